"""The tiled batch's closure forms 4 and 5 (issue 29, helper nbbatch4), scores and structures against the CPU.

``SIZES.batch_closure`` 4: form 3 (form 1's closure after form 2's tile read) with a slimmer closure step (the
held value X(r, q) among a row lane's splits, weight 0 at its own row; the pair weights from a table of the tile's
columns by row letter; the pair term's loads only where a row lane stores); 5: form 4 with a lane's line loads and
splits only where its cell lies in the sub-tile; 8 (issue 29, helper nbskew): form 4 with the far product blocks
taken a sub-wavefront ahead by the warps it leaves idle; 7 (issue 29, form 7): form 4's 31 closure steps unrolled
(helper nbunroll's closure_steps_unrolled, compile-time mask bits, shuffle distances and offsets); 11 (form 8): form 7
with each line loaded a step ahead (helper nbahead's finish_closure 11 without the far products ahead). Each at 32-, 64- and 128-tiles, with the weights and min_loop
that reach the pair term's edge cases, as test_tiled_batch_forms_equal_cpu (tests/test_fold_gpu.py) does for the
forms before. Marked ``gpu``: skipped where there is no CUDA device.
"""
import random

import pytest

from bioaccel.fold._model import FoldParams

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0, au=2, gc=3, gu=1),
                                    FoldParams(min_loop=4, au=5, gc=9, gu=0)],
                         ids=["unit weights", "min_loop 0", "min_loop 4"])
@pytest.mark.parametrize("tile, stage, streams, closure", [
    pytest.param(*row, id=f"sub{row[0]}-s{row[1]}-x{row[2]}-c{row[3]}")
    for row in [(64, 64, 1, 4), (32, 0, 2, 4), (128, 64, 1, 4), (64, 64, 1, 5), (32, 0, 2, 5), (128, 64, 1, 5),
                (64, 64, 1, 8), (32, 0, 2, 8), (128, 64, 1, 8), (64, 64, 1, 7), (32, 0, 2, 7), (128, 64, 1, 7),
                (64, 64, 1, 11), (32, 0, 2, 11), (128, 64, 1, 11)]])
def test_tiled_batch_slim_closures_equal_cpu(tile, stage, streams, closure, params, monkeypatch):
    """Forms 4 and 5 fold short, odd and 257-1,100 nt lengths (the shared-memory kernels switched off, so that
    they take the tiled path too) to the CPU's scores and structures, int16 cells."""
    from bioaccel.fold import _launch, nussinov_batch

    sizes = _launch.SIZES.replace(batch_tile=tile, batch_finish="sub", batch_stage_bytes=stage, batch_streams=streams,
                                  batch_shared_max=1, batch_closure=closure)
    monkeypatch.setattr(_launch, "SIZES", sizes)
    rng = random.Random(tile + stage + streams + closure)
    lengths = [2, 3, 5, 17, 31, 33, 64, 65, 127, 129, 200, 257, 258, 301, 383, 385, 511, 513, 640, 777, 999, 1000,
               1023, 1099, 1100] + [rng.randint(257, 1100) for _ in range(6)] + [1000] * 4
    seqs = ["".join(rng.choice("ACGUACGUN") for _ in range(n)) for n in lengths]
    assert str(params.cell_dtype(1100)) == "int16"
    cpu = nussinov_batch(seqs, params=params)
    gpu = nussinov_batch(seqs, params=params, backend="gpu")
    assert gpu.scores.tolist() == cpu.scores.tolist()
    assert gpu.structures.tolist() == cpu.structures.tolist()
    assert max(cpu.scores.tolist()) > 0
