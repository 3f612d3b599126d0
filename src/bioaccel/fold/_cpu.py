"""Nussinov fill on the CPU (Numba). Seed 001's CPU variants and the project's blocked algorithm.

Every fill function takes ``codes`` (uint8, see bioaccel.alphabet), ``pairs`` (the 5 x 5 int32 table of
FoldParams.pair_table()) and ``min_loop``, and returns a dense (n, n) table whose upper triangle holds
C(i, j) (lower triangle: whatever the variant keeps there, e.g. the mirror of CPU2).
"""
import numpy as np
from numba import njit


@njit(cache=True)
def fill_naive(codes, pairs, min_loop):
    """CPU1, Algorithm 1 of seed 001: diagonal by diagonal, column reads M[k+1][col]."""
    n = codes.shape[0]
    M = np.zeros((n, n), dtype=np.int32)
    for diag in range(1, n):
        for row in range(0, n - diag):
            col = row + diag
            best = 0
            w = pairs[codes[row], codes[col]]
            if w > 0 and diag - 1 >= min_loop:
                best = (M[row + 1, col - 1] if diag >= 2 else 0) + w
            for k in range(row, col):
                t = M[row, k] + M[k + 1, col]
                if t > best:
                    best = t
            M[row, col] = best
    return M
