"""The ``queued`` fill's eight-lane tiles of the double sums (:mod:`._partition_blocked_split`'s
``_tile``) without most of their products by exact zeros: 28% of a tile's lane products at 23 x 100
multiply a cell below a matrix's diagonal, which :func:`._partition_blocked._clear` set to +0.0.

In a tile of rows b0 .. b0 + 7 and ends B .. B + 15, over k from b0 + 1:
- a right row k > B + 7 is zero in ends B .. B + 7 (below its diagonal, in the diagonal's block of 16):
  there only the second vector's eight multiply-adds a k (8% of the products);
- a left row b0 + i is zero at k <= b0 + i: while k <= b0 + 4, rows b0 + 4 .. b0 + 7 are left out
  (4% of the products; rows 1 .. 3's zeros, and rows 5 .. 7's past b0 + 4, are still multiplied).

Every lane's sum keeps the same terms in the same order but for products equal to +0.0 (a non-negative
factor times +0.0; the sums are of non-negative terms, so adding +0.0 changes nothing): the same bits as
the full tile (tests/test_bppart_cpu32.py, ``==``).
"""
from numba import njit

from ._partition_band_cross import _add_to8, _fma8, _load8, _zero8


@njit(cache=True, nogil=True)
def _tile_skip(left, right, out, b0, B, kend):
    """out[b0 .. b0 + 7, B .. B + 15] += sum over b0 < k < kend of left[row, k] right[k, end], as
    ``_tile``, its k in four runs (each in order): rows 0 .. 3 alone while k <= b0 + 4, the first
    vector of ends only while k < B + 8."""
    z = _zero8()
    x = (left[b0], left[b0 + 1], left[b0 + 2], left[b0 + 3])
    w = (left[b0 + 4], left[b0 + 5], left[b0 + 6], left[b0 + 7])
    mid = min(b0 + 5, kend)    # rows 4 .. 7 from here
    half = B + 8               # the first vector of ends from here zero
    lo, hi, wl, wh = (z, z, z, z), (z, z, z, z), (z, z, z, z), (z, z, z, z)
    for k in range(b0 + 1, min(mid, half)):
        lo, hi = _rows_both(x, right[k], k, B, lo, hi)
    for k in range(max(b0 + 1, half), mid):
        hi = _rows(x, _load8(right[k], B + 8), k, hi)
    for k in range(max(mid, b0 + 1), min(kend, half)):
        lo, hi = _rows_both(x, right[k], k, B, lo, hi)
        wl, wh = _rows_both(w, right[k], k, B, wl, wh)
    for k in range(max(mid, half), kend):
        y = _load8(right[k], B + 8)
        hi, wh = _rows(x, y, k, hi), _rows(w, y, k, wh)
    _add_rows(out, b0, B, lo, hi)
    _add_rows(out, b0 + 4, B, wl, wh)


#: :func:`_tile_skip` inlined into its caller (Numba's IR; ``_split_products``' ``wide`` = INLINE). A call of
#: a tile passes three arrays, whose reference counts Numba updates around it (atomic, out of line, the
#: tile's registers spilled around them): with an empty k range a called tile costs 40-47 ns, an inlined
#: one 17 ns (one core, matrices in cache), about 12% of a split point's products at 23 x 100
#: (docs/bppart.md, "bppsparse, stop 49"). The same arithmetic, the same bits.
_tile_skip_inline = njit(nogil=True, inline="always")(_tile_skip.py_func)


@njit(cache=True, nogil=True)
def _add_rows(out, b0, B, lo, hi):
    """out[b0 + i, B:B + 16] += (lo[i], hi[i]) for the four rows."""
    _add_to8(out[b0], B, lo[0])
    _add_to8(out[b0], B + 8, hi[0])
    _add_to8(out[b0 + 1], B, lo[1])
    _add_to8(out[b0 + 1], B + 8, hi[1])
    _add_to8(out[b0 + 2], B, lo[2])
    _add_to8(out[b0 + 2], B + 8, hi[2])
    _add_to8(out[b0 + 3], B, lo[3])
    _add_to8(out[b0 + 3], B + 8, hi[3])


@njit(cache=True, nogil=True)
def _rows_both(x, y, k, B, lo, hi):
    """:func:`_rows` of both vectors of ends of the right row ``y`` (B .. B + 7 into ``lo``, B + 8 ..
    B + 15 into ``hi``)."""
    return _rows(x, _load8(y, B), k, lo), _rows(x, _load8(y, B + 8), k, hi)


@njit(cache=True, nogil=True)
def _rows(x, y, k, acc):
    """acc[i] + x[i][k] * y for the four left rows ``x``."""
    return (_fma8(acc[0], x[0][k], y), _fma8(acc[1], x[1][k], y), _fma8(acc[2], x[2][k], y),
            _fma8(acc[3], x[3][k], y))
