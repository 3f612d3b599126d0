"""skew16 in the single sequence's sub-tiled finish (``SIZES.finish_closure`` 3: finish_sub_tile's FINISH_SKEW,
issue 29, helper nbskew16; 4: with SKEW_PRELOAD; 5: with SKEW_FLAGS too), cell by cell against the CPU: a
sub-tile's closure 16 steps after its nearest neighbours', their splits joined to its own, warp b the sub-tile
column b. Production tiles (128: 8 x 8 sub-tiles), 64- and 32-tiles
(4 x 4 and 2 x 2: the first and last phases overlap most), the split and the fused chain, the int16, offset and
int32 encodings (int32 cells keep their own finish: the setting must not reach them), min_loop 0 with weights
2/3/1, min_loop 4, and lengths that end inside a sub-tile. Marked ``gpu``: skipped where there is no CUDA device.
"""
import random
from dataclasses import replace

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.fold._model import FoldParams
from bioaccel.fold._dense_cpu import fill_naive

pytestmark = pytest.mark.gpu

CASES = [(1500, FoldParams(), "int16"), (1100, FoldParams.bpmax(), "offset"), (700, FoldParams(min_loop=0), "int32"),
         (1207, FoldParams(min_loop=0, au=2, gc=3, gu=1), "int16"), (905, FoldParams(min_loop=4, au=5, gc=9, gu=0),
                                                                     "offset"), (33, FoldParams(), "int16")]


def _closed_to_half_open(C):
    """CPU table C(i, j) (closed) -> V(i, c) = C(i, c-1) on n+1 posts (as tests/test_fold_gpu.py)."""
    n = C.shape[0]
    V = np.zeros((n + 1, n + 1), dtype=np.int64)
    V[:n, 1:] = np.triu(C)
    return np.triu(V, k=2)


@pytest.mark.parametrize("tile", [128, 64, 32])
@pytest.mark.parametrize("chain", ["split", "fused"])
@pytest.mark.parametrize("closure", [3, 4, 5])
def test_skew16_every_cell_equals_cpu(tile, chain, closure, monkeypatch):
    from bioaccel.fold import _gpu_table, _gpu_tiled, _launch
    from bioaccel.runtime import gpu as _gpu

    cp = _gpu.require_gpu()
    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, tile=tile, bulk_min_products=1, chain=chain,
                                                    finish_closure=closure, bulk_pad_products=0))
    if tile == 64:      # bench/nussinov_gpu_chain.py's 64-tiles: 64-byte stages, 8 blocks an SM
        monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, tiled_stage_bytes=64, tiled_bulk_blocks=8))
    rng = random.Random(2916 + tile)
    for n, params, encoding in CASES:
        seq = "".join(rng.choice("ACGU") for _ in range(n))
        codes = encode(seq)
        pm = _gpu_table.pair_model(cp, params)
        table = _gpu_tiled.fill_tiled(cp.asarray(codes), n, params, pm, encoding=encoding)
        assert _gpu_table.unwritten_cells(table) == 0, (n, encoding)
        expect = _closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop))
        assert np.array_equal(_gpu_table.to_dense(table), expect), (n, encoding, chain, tile, closure)

