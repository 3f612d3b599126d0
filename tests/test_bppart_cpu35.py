"""BPPart on the CPU, issue 27's CPU goal (bppsparse, stop 49): the ``queued`` fill's eight-lane tiles
without their products by zeros inlined into the products' loop (``tiles=INLINE``, the default), the same
bits as stop 48's called tiles (``SKIP_ZEROS``)."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.runtime.parallel import threads
from test_bppart import random_rna
from test_bppart_cpu32 import _cleared_matrix

A, G, U = (int(encode(x)[0]) for x in "AGU")


def _weights(kind):
    """BPPart's default weights, BPMax's scores, or the defaults with a pair weight of exactly 0 (GU, or
    AU: A then pairs with nothing)."""
    if kind == "bpmax":
        return PartitionParams(au=1.0, gu=1.5).weights()
    w = PartitionParams().weights().copy()
    if kind in ("gu0", "au0"):
        x, y = (G, U) if kind == "gu0" else (A, U)
        w[x, y] = w[y, x] = 0.0
    return w


def _random_strand(rng, n, with_n):
    """A random RNA of n nt, about a tenth of its letters N (pairs with nothing) where ``with_n``."""
    s = random_rna(rng, n)
    return "".join("N" if with_n and rng.random() < 0.1 else c for c in s)


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("kind", ["default", "bpmax", "gu0", "au0"])
def test_inlined_tiles_equal_the_called_ones_bit_for_bit(count, kind):
    """tiles=INLINE (the default) against tiles=SKIP_ZEROS (stop 48's): == logs at sizes from 1 x 1 to
    23 x 101, odd ones and around the tiles' edges, some with N letters, at two scales, on one thread and two."""
    from bioaccel.interact._partition_blocked_queue import fill_partition_queued
    from bioaccel.interact._partition_blocked_split import INLINE, SKIP_ZEROS

    rng = random.Random(49 + count)
    weights = _weights(kind)
    lengths = [(1, 1), (2, 3), (5, 5), (6, 16), (7, 17), (9, 47), (12, 9), (23, 101), (3, 24), (11, 33)]
    lengths += [(rng.randint(1, 14), rng.randint(1, 60)) for _ in range(4)]
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for i, (M, N) in enumerate(lengths):
            a = encode(_random_strand(rng, M, i % 3 == 1))
            rb = np.ascontiguousarray(encode(_random_strand(rng, N, i % 3 == 2)))
            for c1, c2 in ((0.0, 0.0), (0.3, 0.2)):
                old = fill_partition_queued(a, rb, weights, c1, c2, SKIP_ZEROS)
                assert fill_partition_queued(a, rb, weights, c1, c2, INLINE) == old, (M, N, kind, c1, c2)
                assert fill_partition_queued(a, rb, weights, c1, c2) == old


@pytest.mark.parametrize("n", [9, 17, 33, 102])
def test_split_products_inlined_equal_called_on_nan_matrices(n):
    """_split_products with wide=INLINE against SKIP_ZEROS on matrices with NaN wherever no tile may read
    (several split points, the output accumulated over them): the same bits."""
    from bioaccel.interact._partition_blocked_split import INLINE, SKIP_ZEROS, _split_products
    from bioaccel.interact._partition_cpu import interval_index

    rng = random.Random(n)
    rows, cols = (n + 7) // 8 * 8, (n + 15) // 16 * 16
    M = 6
    idx = interval_index(M)
    L = np.stack([_cleared_matrix(rng, rows, cols, n) for _ in range(idx.max() + 1)])
    R = np.stack([_cleared_matrix(rng, rows, cols, n) for _ in range(idx.max() + 1)])
    for a0, a1 in ((0, 6), (1, 4), (2, 3)):
        called, inlined = np.zeros((rows, cols)), np.zeros((rows, cols))
        _split_products(L, R, idx, a0, a1, called, n, SKIP_ZEROS)
        _split_products(L, R, idx, a0, a1, inlined, n, INLINE)
        assert np.array_equal(called, inlined) and np.isfinite(called).all(), (a0, a1)
