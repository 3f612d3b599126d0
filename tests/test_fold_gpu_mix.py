"""The tiled fill's products with part of their adds on the FMA pipe (``SIZES.bulk_mix`` for the interior products,
``SIZES.edge_mix`` for the split chain's edge products: kernels/nussinov_tiled.cu FmaMix, two IMAD.IADD and one
VIMNMX3 for four updates; issue 29, helper nbmix), cell by cell against the CPU, with production tiles (128), 64-tiles
and the tests' 32: lengths that are no multiple of the tile (the last tile column's cells past the sequence's end
hold the table's POISON -1, whose packed add carries into the next lane), scores near the top of int16 (the packed
sums' bound), and the offset and int32 encodings, where the setting must be ignored (fold/_gpu_tiled.fill_tiled
mixes only the int16 encoding's lanes). Marked ``gpu``: skipped where there is no CUDA device.
"""
import random
from dataclasses import replace

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.fold._model import FoldParams
from bioaccel.fold._dense_cpu import fill_naive
import test_fold_gpu_chain as chain_forms

pytestmark = pytest.mark.gpu

MIXES = [(8, 0), (12, 0), (16, 0), (16, 16)]
MIX_IDS = ["x8", "x12", "x16", "x16-y16"]


@pytest.mark.parametrize("tile", [128, 64, 32])
@pytest.mark.parametrize("bulk_mix, edge_mix", MIXES, ids=MIX_IDS)
def test_mixed_products_every_cell_equals_cpu(tile, bulk_mix, edge_mix, monkeypatch):
    """test_fold_gpu_chain's cases (int16: 1,500 and 301 nt, and at 32-tiles 2 and 64; offset 1,100 and 33; int32 700)
    under the production's chain with the mixed products."""
    from bioaccel.fold import _launch

    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, bulk_mix=bulk_mix, edge_mix=edge_mix))
    chain_forms.test_chain_forms_every_cell_equals_cpu(tile, "split", 11, 3, 120000, monkeypatch)


@pytest.mark.parametrize("tile", [128, 32])
@pytest.mark.parametrize("bulk_mix, edge_mix", [(16, 16)], ids=["x16-y16"])
def test_mixed_products_near_int16_top_equal_cpu(tile, bulk_mix, edge_mix, monkeypatch):
    """GC pairs of weight 65 and no hairpin minimum on 1,000 and 999 nt (int16 cells: 500 x 65 = 32,500 <= 32,767): a
    G run before a C run scores 32,500 (999 nt: 32,435), so the products' packed sums reach the top of int16's lanes;
    and a random sequence of G and C."""
    from bioaccel.fold import _gpu_table, _gpu_tiled, _launch
    from bioaccel.runtime import gpu as _gpu

    cp = _gpu.require_gpu()
    monkeypatch.setattr(_launch, "SIZES", replace(_launch.SIZES, tile=tile, bulk_mix=bulk_mix, edge_mix=edge_mix,
                                                    bulk_min_products=1, bulk_pad_products=0))
    params = FoldParams(min_loop=0, gc=65)
    rng = random.Random(65)
    for seq, top in (("G" * 500 + "C" * 500, 32_500), ("G" * 499 + "C" * 500, 32_435),
                     ("".join(rng.choice("GC") for _ in range(1000)), None)):
        n, codes = len(seq), encode(seq)
        assert _gpu_tiled.cell_encoding(n, params, tile) == "int16"
        table = _gpu_tiled.fill_tiled(cp.asarray(codes), n, params, _gpu_table.pair_model(cp, params))
        expect = chain_forms._closed_to_half_open(fill_naive(codes, params.pair_table(), params.min_loop))
        assert top is None or expect.max() == top
        assert np.array_equal(_gpu_table.to_dense(table), expect), (n, seq[:4])
