"""The tiled fill's chain forms (issue 29, helper nbpersist), cell by cell against the CPU.

``SIZES.chain`` "fused" (tiled_chain: a block a tile adds the two edge products, then finishes the tile),
``SIZES.finish_closure`` 1 (the batches' closure form 1 in the single sequence's sub-tiled finish; 2 that with the
far product blocks taken ahead by idle warps: issue 29, nbskew; 7 and 8 that with the batches' slimmer closure
steps, forms 4 and 5: issue 29, nb16warps; 10 form 4's steps unrolled, form 7: issue 29, nbunroll; 11 form 7 with the
lines loaded a step ahead, form 8: issue 29, nbahead), the
interior products padded to one block an SM (``bulk_shared_pad``), finer interior launches and the form
before, each with production tiles (128), 64-tiles (64-byte stages, 8 blocks an SM) and the tests' (32,
where a tiled_chain block has more threads than the bulk's: the extra ones only meet at its barriers), in
the int16, offset and int32 encodings. Marked ``gpu``: skipped where there is no CUDA device.
"""
import random
from dataclasses import replace

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.fold._model import FoldParams
from bioaccel.fold._dense_cpu import fill_naive

pytestmark = pytest.mark.gpu


def _closed_to_half_open(C):
    """CPU table C(i, j) (closed) -> V(i, c) = C(i, c-1) on n+1 posts (as tests/test_fold_gpu.py)."""
    n = C.shape[0]
    V = np.zeros((n + 1, n + 1), dtype=np.int64)
    V[:n, 1:] = np.triu(C)
    return np.triu(V, k=2)


@pytest.mark.parametrize("tile", [128, 64, 32])
@pytest.mark.parametrize("chain, closure, blocks, pad", [("fused", 0, 3, 0), ("fused", 1, 3, 120000),
                                                         ("split", 1, 3, 120000), ("fused", 1, 8, 0),
                                                         ("split", 0, 3, 0), ("split", 2, 3, 120000),
                                                         ("fused", 2, 3, 120000), ("split", 7, 3, 120000),
                                                         ("split", 8, 3, 120000), ("split", 10, 3, 120000),
                                                         ("split", 11, 3, 120000)],
                         ids=["fused", "fused-c1", "split-c1", "fused-c1-b8", "split-c0-before", "split-c2",
                              "fused-c2", "split-c7", "split-c8", "split-c10", "split-c11"])
def test_chain_forms_every_cell_equals_cpu(tile, chain, closure, blocks, pad, monkeypatch):
    from bioaccel.fold import _gpu_table, _gpu_tiled, _launch
    from bioaccel.runtime import gpu as _gpu

    cp = _gpu.require_gpu()
    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, tile=tile, bulk_min_products=1, chain=chain,
                                                    finish_closure=closure, bulk_blocks_per_sm=blocks,
                                                    bulk_shared_pad=pad, bulk_pad_products=0))
    if tile == 64:      # bench/nussinov_gpu_chain.py's 64-tiles: 64-byte stages, 8 blocks an SM
        monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, tiled_stage_bytes=64, tiled_bulk_blocks=8))
    rng = random.Random(29 + tile)
    cases = [(1500, FoldParams(), "int16"), (1100, FoldParams.bpmax(), "offset"),
             (700, FoldParams(min_loop=0), "int32"), (301, FoldParams(min_loop=1, au=2, gc=3, gu=0), "int16"),
             (33, FoldParams(), "offset")]
    if tile == 32:
        cases += [(2, FoldParams(min_loop=0), "int16"), (64, FoldParams.bpmax(), "int16")]
    for n, params, encoding in cases:
        seq = "".join(rng.choice("ACGU") for _ in range(n))
        codes = encode(seq)
        pm = _gpu_table.pair_model(cp, params)
        table = _gpu_tiled.fill_tiled(cp.asarray(codes), n, params, pm, encoding=encoding)
        assert _gpu_table.unwritten_cells(table) == 0, (n, encoding)
        expect = _closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop))
        assert np.array_equal(_gpu_table.to_dense(table), expect), (n, encoding, chain, closure)


@pytest.mark.parametrize("tile", [128, 64, 32])
@pytest.mark.parametrize("edge_rows, bulk_rows", [(0, 0), (1, 0)], ids=["before", "edges-rows"])
def test_rows_forms_every_cell_equals_cpu(tile, edge_rows, bulk_rows, monkeypatch):
    """The products' atomics by rows of consecutive cells (tiled_bulk_rows, issue 29, nbedges; the default for the
    split chain's edge products and the interior products, which the tests above run): neither (before), and the edge
    products' alone, every encoding, cell by cell."""
    from bioaccel.fold import _launch

    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, edge_rows=edge_rows, bulk_rows=bulk_rows))
    test_chain_forms_every_cell_equals_cpu(tile, "split", 2, 3, 120000, monkeypatch)


def test_chain_timeline_marks_every_launch(small_launch_sizes, monkeypatch):
    """The bench's timeline: a start and an end event for every finish, edge and interior launch."""
    from bioaccel.fold import _gpu_table, _gpu_tiled, _launch
    from bioaccel.runtime import gpu as _gpu

    cp = _gpu.require_gpu()
    n, params = 700, FoldParams()
    nt = _gpu_tiled.tiles_per_side(n, _launch.SIZES.tile)
    codes = encode("".join(random.Random(3).choice("ACGU") for _ in range(n)))
    for chain in ("split", "fused"):
        monkeypatch.setattr(_launch, "SIZES", replace(small_launch_sizes.fold, chain=chain))
        events = []
        _gpu_tiled.fill_tiled(cp.asarray(codes), n, params, _gpu_table.pair_model(cp, params), timeline=events)
        whats = [what for _, what, _ in events]
        assert whats.count("finish start") == whats.count("finish end") == nt
        assert whats.count("edges start") == (nt - 2 if chain == "split" else 0)
        assert whats.count("interior start") == whats.count("interior end") == nt - 4


@pytest.mark.parametrize("tile", [128, 32])
def test_table_poisoned_by_cupy_full_every_cell_equals_cpu(tile, monkeypatch):
    """The table poisoned by cupy.full (table_fill 0, the form before stop 57; the default's runtime.gpu.filled runs
    in every test above), every encoding, cell by cell, and no cell left unwritten."""
    from bioaccel.fold import _launch

    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, table_fill=0))
    test_chain_forms_every_cell_equals_cpu(tile, "split", 11, 3, 120000, monkeypatch)
