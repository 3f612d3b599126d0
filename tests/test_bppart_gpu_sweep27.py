"""The windowed BPPart sweep's last tile diagonal folded into the launch of the diagonal before it (v27,
``band_last_fold``: bppart_band_tiles with FARSHAPE's bits 2-3, a counter a last-diagonal tile, the block that stores
its second operand tile computes its cell; 1, a warp's loads as bppart_band_last; 2, the operands staged in shared
memory first; plus 4, that kernel for every diagonal's launch): against the CPU on random pairs with small launches
and NaN-filled fresh tables (target windows of 16, 32 and 48 bases: the fold into diagonals 1, 2 and 3; pieces whose
tiles the launch skips), and at the production sizes and window 128 against the CPU and equal to the production's
(the last diagonal by its own launch, bppart_band_last) to the last bit. Each test checks that the folding launch ran
and bppart_band_last did not. Marker ``gpu``."""
import random

import pytest

from test_bppart_gpu_windows import (WEIGHTS, _cpu, _form_same_bits_and_cpu, _gpu, _same_windows,  # noqa: F401
                                     poisoned_tables, random_rna)
from bioaccel.interact import PartitionParams

pytestmark = pytest.mark.gpu


@pytest.fixture
def launched(monkeypatch):
    """(name, template arguments) of the sweep's kernels built during the test (a list that fills as they are built)."""
    from bioaccel.interact import _partition_band_tables

    built, kernel = [], _partition_band_tables._kernel

    def recording(name, *arguments):
        built.append((name, arguments))
        return kernel(name, *arguments)

    monkeypatch.setattr(_partition_band_tables, "_kernel", recording)
    return built


def _folded(built, fold, alone=True):
    """Whether the fold's form ``fold`` was built (and so launched: the host builds it only to launch it) and, with
    ``alone``, the last diagonal's own kernel was not (the `==` tests' references build it)."""
    forms = {arguments[11] >> 2 for name, arguments in built if name == "bppart_band_tiles"}
    return fold & 3 in forms and not (alone and any(name == "bppart_band_last" for name, _ in built))


@pytest.mark.parametrize("au, gu, bases, pipe, shape, fold", [
    (*WEIGHTS[0], 40, 3, 3, 1),       # pieces of 40 bases (window 16 only: the others need longer launches), m16n8k16
    (*WEIGHTS[0], 40, 3, 3, 2),
    (*WEIGHTS[1], 0, 3, 3, 1),        # whole targets a launch
    (*WEIGHTS[1], 0, 3, 3, 2),
    (*WEIGHTS[0], 0, 2, 0, 2),        # after a ring of 2, the far part by m8n8k4
])
def test_gpu_windows_v27_fold_equal_cpu(small_launch_sizes, monkeypatch, launched, au, gu, bases, pipe, shape, fold):
    """The last tile diagonal taken by the launch before it (16-tiles, the split sweep in launches): the CPU's numbers,
    target windows of 16, 32 and 48 bases (one band cell a tile of the last diagonal), with and without a query
    window."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=16, band_tile_blocks=4,
                                              band_lanes=True, band_trim=True, band_pipe=pipe, band_far=2,
                                              band_warp=True, band_far_shape=shape, band_bases=bases, band_last=True,
                                              band_last_fold=fold)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    rng = random.Random(int(au * 10 + gu * 100) + bases + fold)
    for wq, wt in ((None, 16), (3, 32), (None, 48))[:1 if bases else 3]:
        params = PartitionParams(au=au, gu=gu, window_query=wq, window_target=wt)
        targets = [random_rna(rng, n) for n in (150, 9, rng.randint(2, 60), 41, rng.randint(60, 200))]
        for q in (random_rna(rng, rng.randint(1, 12)), random_rna(rng, 12)):
            for t, got in zip(targets, _gpu(q, targets, params)):
                _same_windows(got, _cpu(q, t, params))
    assert _folded(launched, fold)


@pytest.mark.parametrize("variant, reference", [
    (dict(band_last_fold=1), dict()),                                                   # the production's far part
    (dict(band_last_fold=2), dict()),
    (dict(band_last_fold=6), dict()),                                                   # form 2's kernel everywhere
    (dict(band_last_fold=2, band_far_shape=0), dict(band_far_shape=0)),                 # after m8n8k4
    (dict(band_last_fold=1, band_streams=1, band_bases=333), dict()),                   # launches of other lengths
    (dict(band_last_fold=2, band_streams=1, band_bases=333), dict(band_last=False)),    # the whole-tile last diagonal
])
def test_gpu_windows_v27_fold_same_bits_and_cpu(monkeypatch, launched, variant, reference):
    """The production with the last tile diagonal folded into the launch before it (``band_last_fold``): 23 x 300 and
    23 x 140 nt against the CPU, and 23 x 700 after 333 nt equal to the last diagonal's own launch (bppart_band_last,
    or bppart_band_tiles' whole tiles) to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, reference)
    assert _folded(launched, variant["band_last_fold"], alone=False)
