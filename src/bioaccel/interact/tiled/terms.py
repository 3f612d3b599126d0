"""The static term lists of the ``tiled`` BPMax fill: which reduction indices R1 and R2 need per target
row, and the terms of a row's start that read shorter query intervals.

R1 and R2 (docs/bpmax.md) are reductions over k2 along one target row. Most k2 cannot give the
maximum, and which ones can depends only on the target, not on the query interval: these lists are
built once per fill and every task reads them (see fill._row_finish).
"""
import numpy as np
from numba import njit

from .rows import narrow


@njit(cache=True)
def _listed(table, starts, Wd, r1, out, offsets, prefix):
    """The k2 = i2 + x a reduction along target row i2 needs, compacted at i2 * Wd: x = 0 and every x
    where the padded band row ``table[i2, 16 + x]`` grows (``r1``: over the cell before it; else over
    0). Each x listed gives ``out`` its table value (``r1``) or x itself, and ``offsets`` its
    ``starts[i2 + 1 + x]``; ``prefix[i2 * (Wd // 16 + 6) + b]``: how many x < 16 b are listed."""
    N = table.shape[0]
    stride = Wd // 16 + 6
    for i2 in range(N):
        n = min(Wd, N - i2)
        q = 0
        for x in range(n - 1):  # k2 < j2 <= i2 + n - 1
            if x % 16 == 0:
                prefix[i2 * stride + x // 16] = q
            here = table[i2, 16 + x]
            if x == 0 or (here != table[i2, 15 + x] if r1 else here > 0):
                out[i2 * Wd + q] = here if r1 else x
                offsets[i2 * Wd + q] = starts[i2 + 1 + x]
                q += 1
        for b in range(max(n - 2, 0) // 16 + 1, stride):
            prefix[i2 * stride + b] = q


def _lists(table, starts, Wd, r1, out_type, index_type):
    N = table.shape[0]
    out = np.zeros(N * Wd, dtype=out_type)
    offsets = np.zeros(N * Wd, dtype=index_type)
    prefix = np.zeros(N * (Wd // 16 + 6), dtype=np.int64)
    _listed(table, starts, Wd, r1, out, offsets, prefix)
    return out, offsets, prefix


def r1_lists(S2p, gaps, Wd, index_type):
    """For each target row i2, the k2 = i2 + x that R1 needs: x = 0 and every x where S2(i2, i2+x)
    grows. Where S2(i2, k2) = S2(i2, k2-1), the term S2(i2, k2) + F(.., k2+1, j2) is dominated by
    S2(i2, k2-1) + F(.., k2, j2), since F grows when its target interval grows (R1 with an empty
    left part). About half of the k2 are left (random sequences). Returns (values, table offsets
    gaps[k2+1] as ``index_type``, prefix counts per 16 x), row i2 at i2 * Wd (prefix: i2 * (Wd // 16 +
    6)).

    >>> S2p = np.zeros((4, 24), dtype=np.int16)
    >>> S2p[0, 16:19] = [0, 0, 3]                  # S2(0, 2) grows: x = 0 and x = 2 of row 0
    >>> values, offsets, prefix = r1_lists(S2p, np.arange(5) * 10, 4, np.int32)
    >>> values[:4].tolist(), offsets[:4].tolist(), prefix[:3].tolist()
    ([0, 3, 0, 0], [10, 30, 0, 0], [0, 2, 2])
    """
    return _lists(S2p, gaps, Wd, True, S2p.dtype, index_type)


def r2_lists(P2p, s2gaps, Wd, index_type):
    """For each target row i2, the k2 = i2 + x that R2 needs (see fill._row_finish): x = 0 and every x
    where rb[i2] pairs with rb[i2+x]. Returns (x and table offsets s2gaps[i2+1+x] as ``index_type``,
    prefix counts per 16 x), laid out as r1_lists."""
    return _lists(P2p, s2gaps, Wd, False, index_type, index_type)


def term_lists(S2p, P2p, rowstart, Wd):
    """Everything the R1 and R2 reductions of a fill read: ``(gaps, s2gaps, r1, r2)``.

    ``gaps[i2+x+1] + i2`` = rowstart[i2+x+1] - x - 1 (where row i2+x+1 of a matrix starts, shifted
    back to column i2); ``s2gaps[i2+x+1] + i2 + 16 + c`` is the flat index of S2p[i2+x+1, 16 + c-x-1] =
    S2(i2+x+1, i2+c), R2's table offsets.
    """
    N = S2p.shape[0]
    gaps = (rowstart - np.arange(N + 1)).astype(np.int64)
    s2gaps = np.arange(N, dtype=np.int64) * (S2p.shape[1] - 1)
    # int32 entries while every offset fits: the lists are N x Wd, the largest tables of a long target
    largest = max(int(gaps.max()), int(s2gaps[-1]) if N else 0, Wd)
    index_type = np.int32 if largest < 2 ** 31 - 2 ** 20 else np.int64
    return gaps, s2gaps, r1_lists(S2p, gaps, Wd, index_type), r2_lists(P2p, s2gaps, Wd, index_type)


@njit(cache=True)
def start_terms(pairs, a, mat_id, capacity, i1, l1, values, bases):
    """The terms of row starts that read shorter query intervals, the same for every row i2 of
    F(i1, i1+l1-1): (scalar, matrix) pairs, the term being scalar + row i2 of that matrix. Only the
    strand-1 pair now (R4 and R3 come with D as border terms), so at most one. Returns how many."""
    j1 = i1 + l1 - 1
    count = 0
    if l1 >= 5:
        w = pairs[a[i1], a[j1]]
        if w > 0:
            values[count] = narrow(w, values)
            bases[count] = mat_id[i1 + 1, l1 - 3] * capacity
            count += 1
    return count
