"""Row-level max-plus reductions of the ``tiled`` BPMax fill, on top of the register kernels of simd.

Every term of the recurrence (docs/bpmax.md) is a broadcast scalar plus a contiguous row of some target
matrix; these functions run whole rows of such terms through the kernels, 64 columns (four vectors of
16 int16) at a time with the accumulators in registers, and the partial chunks 16 columns at a time.
"""
import numpy as np
from numba import njit, types
from numba.extending import overload

from .simd import ROWS, maxplus_range, maxplus_range_vector, maxplus_rows, maxplus_rows_vector


def narrow(value, like):
    """``value`` converted to the element type of the array ``like`` (inside Numba code only)."""
    raise NotImplementedError


@overload(narrow, inline="always")
def _narrow(value, like):
    # Numba widens int16/int32 sums to int64; converting back right away lets LLVM keep 16 lanes.
    if like.dtype == types.int16:
        return lambda value, like: np.int16(value)
    if like.dtype == types.int32:
        return lambda value, like: np.int32(value)
    return lambda value, like: value


@njit(cache=True)
def ranged(acc, off, n, table, avec, a_at, offsets, o_at, b_at, counts, border=0):
    """acc[off + c] = max over x < c of avec[a_at + x] + table[offsets[o_at + x] + b_at + off + c], c < n;
    with ``border`` = 1, over -1 <= x <= c instead, indices shifted by one (x + 1 from a_at, o_at).

    64 columns at a time with the accumulators in registers, a partial chunk on the left 16 at a time;
    x runs over the whole row, without any per-x scalar work.
    """
    c0 = 0
    head = n % 64  # as in rows_ranged: the partial chunk on the left, where x runs short
    while c0 < head:
        counts[0] = min(n - 1 + 2 * border, c0 + 16 + border)
        maxplus_range_vector(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 16
    c0 = head
    while c0 < n:
        for v in range(4):
            counts[v] = min(n - 1 + 2 * border, c0 + 16 * v + 16 + border)
        maxplus_range(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 64


@njit(cache=True)
def rows_ranged(acc, first_off, acc_len, r0, J_end, table, left, right, gaps, starts, a_ats, counts):
    """D for the ROWS rows r0, r0+1, .. of one block and one k1, on absolute target columns J <= J_end:

        acc row i2, column J - i2  max=  F(i1, k1)[i2, k2] + F(k1+1, j1)[k2+1, J],   r0 <= k2 < J

    Row i2's accumulators start at ``first_off - (i2 - r0) * acc_len`` (rows lie bottom-up in acc).
    The rows share every loaded vector of F(k1+1, j1). Terms with k2 < i2 read the sentinel pad left of
    row i2 of F(i1, k1), and columns J < i2 land in the scratch tail of the next row's accumulators
    (acc has a 16-cell margin in front for the bottom row): both harmless.
    """
    # reduction index p = k2 - r0 + 1 for r0 - 1 <= k2 <= J: the border terms of bpmax.md's compact
    # form come with D. The cell left of each stored row holds S1 of its query interval (fill._task), so
    # k2 = i2 - 1 reads S1(i1, k1) as F(i1, k1, i2, i2-1) (R3) and k2 = J reads S1(k1+1, j1) as
    # F(k1+1, j1, J+1, J) (R4).
    for r in range(ROWS):
        a_ats[r] = left + gaps[r0 + r] + r0 - 1  # F(i1, k1)[r0 + r, k2] = table[a_ats[r] + k2 - r0 + 1]
    # The columns that do not fill a 64-column chunk go first, 16 at a time: on the left, where the
    # reduction over k2 < J is short. The 64-column chunks then end exactly at J_end, so the long
    # reductions of the right end all run with four vectors per loaded scalar. Columns done twice
    # (a 16-column pass overlapping the first chunk) are harmless: max is idempotent.
    J0 = r0
    head = (J_end - r0 + 1) % 64
    while J0 < r0 + head:
        for r in range(ROWS):
            starts[r] = first_off - r * acc_len + J0 - (r0 + r)
        counts[0] = min(J_end + 1, J0 + 16) - r0 + 1
        maxplus_rows_vector(acc, starts, table, table, a_ats, gaps, r0, right + J0, counts)
        J0 += 16
    J0 = r0 + head
    while J0 <= J_end:
        for r in range(ROWS):
            starts[r] = first_off - r * acc_len + J0 - (r0 + r)
        for v in range(4):
            counts[v] = min(J_end + 1, J0 + 16 * v + 16) - r0 + 1
        maxplus_rows(acc, starts, table, table, a_ats, gaps, r0, right + J0, counts)
        J0 += 64


@njit(cache=True)
def ranged_list(acc, off, n, table, avec, a_at, offsets, o_at, b_at, prefix, pf_at, counts):
    """ranged over a compacted list of reduction indices: term p is avec[a_at + p] + table[offsets[o_at
    + p] + b_at + off + c]; prefix[pf_at + b] = how many list entries have x < 16 b (x sorted)."""
    # partial chunk on the left as in rows_ranged, but whole 16-column steps (the prefix counts are
    # per 16 x), so the last chunk may pass the row's end by up to 15 scratch columns
    head = ((n % 64) + 15) // 16 * 16
    c0 = 0
    while c0 < head:
        counts[0] = prefix[pf_at + c0 // 16 + 1]
        maxplus_range_vector(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 16
    while c0 < n:
        for v in range(4):
            counts[v] = prefix[pf_at + c0 // 16 + v + 1]
        maxplus_range(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 64

