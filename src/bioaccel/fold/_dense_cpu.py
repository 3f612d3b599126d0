"""The dense-table CPU fills of Li, Ranka & Sahni (2014): CPU1, CPU2, OMP1 and OMP2, over an (n, n)
int32 table.

Each fill takes ``codes`` (uint8, see bioaccel.inputs.alphabet), ``pairs`` (the 5 x 5 int32 table of
FoldParams.pair_table()) and ``min_loop`` and returns an (n, n) table whose upper triangle holds
C(i, j) (the recurrence of :mod:`bioaccel.fold._model`).

``naive``           CPU1 (Algorithm 1): diagonal by diagonal, column reads ``M[k+1][col]``.
``cache``           CPU2: every value is mirrored into the lower triangle, so the k loop reads
                    ``M[col][k+1]`` along a row.
``naive-parallel``  OMP1: CPU1 with the rows of each diagonal spread over the cores (prange).
``cache-parallel``  OMP2: CPU2 likewise.
"""
import functools

import numpy as np
from numba import njit, prange

from ..runtime.parallel import serial_and_parallel


@njit(cache=True)
def _paired(M, codes, pairs, min_loop, row, col):
    """C(row + 1, col - 1) plus the weight of the pair (row, col), or 0 when they cannot pair."""
    diag = col - row
    w = pairs[codes[row], codes[col]]
    if w > 0 and diag - 1 >= min_loop:
        return (M[row + 1, col - 1] if diag >= 2 else 0) + w
    return 0


@njit(cache=True)
def _naive_cell(M, codes, pairs, min_loop, row, col):
    best = _paired(M, codes, pairs, min_loop, row, col)
    for k in range(row, col):
        t = M[row, k] + M[k + 1, col]  # M[k+1][col]: a column read, as in the paper's CPU1
        if t > best:
            best = t
    M[row, col] = best


@njit(cache=True)
def _cache_cell(M, codes, pairs, min_loop, row, col):
    best = _paired(M, codes, pairs, min_loop, row, col)
    for k in range(row, col):
        t = M[row, k] + M[col, k + 1]  # M[col][k+1] mirrors C(k+1, col): a row read
        if t > best:
            best = t
    M[row, col] = best
    M[col, row] = best


def _fill_dense(codes, pairs, min_loop, mirrored):
    """CPU1 (``mirrored`` False): diagonal by diagonal, column reads M[k+1][col]; CPU2 (True): each value
    mirrored into the lower triangle (``M[j][i] = C(i, j)``), so reads run along rows, the diagonal 0.
    OMP1 and OMP2 are the same with each diagonal's rows in parallel. The choice is made per cell, not
    per k, so the k loops stay the paper's two."""
    n = codes.shape[0]
    M = np.zeros((n, n), dtype=np.int32)
    for diag in range(1, n):
        for row in prange(0, n - diag):
            if mirrored:
                _cache_cell(M, codes, pairs, min_loop, row, row + diag)
            else:
                _naive_cell(M, codes, pairs, min_loop, row, row + diag)
    return M


# the paper's serial and OpenMP versions are one loop nest each, compiled without and with parallel=True
# (prange is range in the serial copy)
fill_dense, fill_dense_parallel = serial_and_parallel(_fill_dense, nogil=True)
fill_naive = functools.partial(fill_dense, mirrored=False)
fill_cache = functools.partial(fill_dense, mirrored=True)
fill_naive_parallel = functools.partial(fill_dense_parallel, mirrored=False)
fill_cache_parallel = functools.partial(fill_dense_parallel, mirrored=True)

#: variant name -> dense fill
DENSE_FILLS = {"naive": fill_naive, "cache": fill_cache, "naive-parallel": fill_naive_parallel,
               "cache-parallel": fill_cache_parallel}
