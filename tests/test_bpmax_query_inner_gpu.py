"""BPMax in query-inner order on the GPU (bench/bpmax_query_inner.cu, the bench prototype of issue 29): on random
pairs (queries of 3 to 23 nt, targets up to 150 nt, target windows 8 to 40, both weight sets), by each of the
kernel's forms (bench/bpmax_query_inner_gpu.FORMS), every cell of the band
that the A copies hold equals the dense reference bioaccel.interact._naive.fill_naive, every cell's diagonal holds
S2, every B copy equals its A copy, and the window scores are the band's F(0, M - 1, i2, i2 + L2 - 1)."""
import os
import random
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))

from bpmax_query_inner_gpu import FORMS  # noqa: E402 (bench/ on the path above; no CuPy at import)

pytestmark = pytest.mark.gpu

# (query nt, target nt, target window, AU, GU): a 1-tile target, targets shorter than the window + 1, windows not a
# multiple of 8, the 23-nt query's whole 24 x 24 triangle, and targets that end inside a tile
CASES = [(3, 20, 8, 1, 1.5), (23, 150, 40, 1, 1.5), (7, 9, 8, 2, 1), (23, 64, 16, 2, 1), (12, 101, 33, 1, 1.5),
         (16, 130, 24, 1, 1.5), (20, 47, 13, 2, 1), (5, 88, 11, 1, 1.5)]


@pytest.fixture(scope="module")
def module():
    import cupy as cp

    import bpmax_query_inner_gpu

    return bpmax_query_inner_gpu.load(cp)


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("M, N, window, au, gu", CASES)
def test_every_band_cell_equals_fill_naive(module, M, N, window, au, gu, form):
    import cupy as cp

    from bioaccel.interact import InteractParams
    from bioaccel.interact._naive import fill_naive
    from bioaccel.interact._strands import single_strand_table
    from bpmax_gpu import random_codes
    from bpmax_query_inner_gpu import band_cells, fill, prepare, window_outputs

    rng = random.Random(M * 1000 + N)
    params = InteractParams(au=au, gu=gu, window_target=window)
    a, rb = random_codes(rng, M), random_codes(rng, N)
    S1, S2 = single_strand_table(a, params.fold_params), single_strand_table(rb, params.fold_params)
    L1, L2 = params.spans(M, N)
    want = fill_naive(a, rb, params.pair_table(), S1, S2, L1, L2)
    state = prepare(cp, a, rb, params)
    fill(cp, module, state, form=form)
    F, diagonal, b_agrees = band_cells(cp, state)
    differ = np.argwhere(F != want)
    assert differ.size == 0, (len(differ), differ[:3].tolist())
    assert len(np.unique(want)) > 5                       # the values are no trivial agreement
    i2, j2 = np.triu_indices(N)
    in_band = j2 - i2 < L2
    assert (diagonal[:, i2[in_band], j2[in_band]] == S2[i2[in_band], j2[in_band]]).all()
    assert b_agrees
    win, folds = window_outputs(cp, state)
    rows = N - L2 + 1
    assert np.array_equal(win[0], want[0, M - 1, np.arange(rows), np.arange(rows) + L2 - 1])
    assert np.array_equal(folds, S2[np.arange(rows), np.arange(rows) + L2 - 1])
