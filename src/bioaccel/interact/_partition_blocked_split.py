"""The ``blocked`` fill's double sums over a query interval's split points (QIa's and QIm's,
:mod:`._partition_blocked`). For a query interval [a0, a1) and every target cell [b0, b1):
```
out[b0, b1] += sum_{a0 < c < a1} sum_{b0 < k <= b1} L([a0, c), b0, k) Rt([c, a1), k, b1)
```
a product of two upper-triangular target matrices per split point c (4,048 products, 230 M vector
multiply-adds of four lanes at 23 x 100).

A tile of 8 target rows x 16 ends stays in 16 registers of eight doubles (``lanes8``: AVX-512; LLVM
splits them in two on AVX2) over every inner index k: per k, two row loads and eight broadcasts feed 16
vector multiply-adds, each operand row loaded once for twice the work of the four-row tiles of four
lanes it replaces (4 x 16 ends, 16 registers of four). Each lane's sum runs over the same k in the same
order as before (rows below a tile's first have exact zeros there): the same sums, the same rounding.
On one core at 23 x 100 the products took 0.058 s against 0.052 s from other query intervals'
matrices (in L3: they do not fit the 2 MB L2), 0.042 s against 0.027 s on matrices in cache.
"""
from numba import njit

from ._partition_band_cross import _add_to8, _fma8, _load8, _prefetch, _zero8
from ._partition_blocked_skip import _tile_skip, _tile_skip_inline
from ._partition_blocked_split4 import _half_tiles4, _tile4

#: ``wide`` of :func:`_split_products` for the eight-lane tiles without their products by exact zeros
#: (:mod:`._partition_blocked_skip`; the ``queued`` fill's); True: the full eight-lane tiles, False: four lanes
SKIP_ZEROS = 2
#: ``wide`` for the :data:`SKIP_ZEROS` tiles inlined into this function (``_tile_skip_inline``; the
#: ``queued`` fill's default from stop 49): no call a tile, so no reference counts a tile
INLINE = 4
#: Cache lines of each of the next split point's two matrices asked for per 8-row tile (16 and 24 alike,
#: 36 and 48 slower at 23 x 100)
PREFETCH = 24


@njit(cache=True, nogil=True)
def _split_products(L, Rt, idx, a0, a1, out, n, wide):
    """out[b0, b1] += sum over a0 < c < a1 and b0 < k <= b1 of L([a0, c), b0, k) Rt([c, a1), k, b1)
    (``n`` = N + 1 cells a side; L zero on and below its diagonal, Rt below its own, the padding zero;
    rows padded to a multiple of 8): tiles of 8 rows x 16 ends in eight-lane registers where ``wide``
    (AVX-512; :data:`SKIP_ZEROS`: the same without most products by zeros; :data:`INLINE`: those tiles
    inlined here), else of 4 rows in four-lane
    ones (:mod:`._partition_blocked_split4`), over every k, added to ``out`` once a split point."""
    if a1 - a0 < 2:
        return
    size = L.shape[1] * L.shape[2]
    step = 8 if wide else 4           # a tile's rows
    for c in range(a0 + 1, a1):       # one split point at a time: its two matrices stay in cache
        left, right = L[idx[a0, c]], Rt[idx[c, a1]]
        # the next split point's matrices asked for while this one's tiles compute (they come from L3)
        ahead = c + 1 if c + 1 < a1 else c
        next_l, next_r = L[idx[a0, ahead]].reshape(size), Rt[idx[ahead, a1]].reshape(size)
        pos = 0
        for B in range(0, n, 16):
            kend = min(B + 16, n)
            if n - B <= 8:            # the last block, 8 ends or fewer: one vector a row
                _half_any(left, right, out, B, kend, n, wide)
                continue
            for b0 in range(0, min(B + 16, n - 1), step):
                for _ in range(PREFETCH):
                    if pos < size:
                        _prefetch(next_l, pos)
                        _prefetch(next_r, pos)
                        pos += 8
                _tile_any(left, right, out, b0, B, kend, wide)


@njit(cache=True, nogil=True)
def _tile(left, right, out, b0, B, kend):
    """out[b0 .. b0 + 7, B .. B + 15] += sum over b0 < k < kend of left[row, k] right[k, end], in 16
    registers of eight lanes."""
    p00 = p01 = p10 = p11 = p20 = p21 = p30 = p31 = _zero8()
    p40 = p41 = p50 = p51 = p60 = p61 = p70 = p71 = _zero8()
    x0, x1, x2, x3 = left[b0], left[b0 + 1], left[b0 + 2], left[b0 + 3]
    x4, x5, x6, x7 = left[b0 + 4], left[b0 + 5], left[b0 + 6], left[b0 + 7]
    for k in range(b0 + 1, kend):
        y = right[k]
        y0, y1 = _load8(y, B), _load8(y, B + 8)
        v = x0[k]
        p00, p01 = _fma8(p00, v, y0), _fma8(p01, v, y1)
        v = x1[k]
        p10, p11 = _fma8(p10, v, y0), _fma8(p11, v, y1)
        v = x2[k]
        p20, p21 = _fma8(p20, v, y0), _fma8(p21, v, y1)
        v = x3[k]
        p30, p31 = _fma8(p30, v, y0), _fma8(p31, v, y1)
        v = x4[k]
        p40, p41 = _fma8(p40, v, y0), _fma8(p41, v, y1)
        v = x5[k]
        p50, p51 = _fma8(p50, v, y0), _fma8(p51, v, y1)
        v = x6[k]
        p60, p61 = _fma8(p60, v, y0), _fma8(p61, v, y1)
        v = x7[k]
        p70, p71 = _fma8(p70, v, y0), _fma8(p71, v, y1)
    _add_pair(out[b0], B, p00, p01)
    _add_pair(out[b0 + 1], B, p10, p11)
    _add_pair(out[b0 + 2], B, p20, p21)
    _add_pair(out[b0 + 3], B, p30, p31)
    _add_pair(out[b0 + 4], B, p40, p41)
    _add_pair(out[b0 + 5], B, p50, p51)
    _add_pair(out[b0 + 6], B, p60, p61)
    _add_pair(out[b0 + 7], B, p70, p71)


@njit(cache=True, nogil=True)
def _add_pair(row, B, t0, t1):
    """row[B:B + 16] += the two vectors."""
    _add_to8(row, B, t0)
    _add_to8(row, B + 8, t1)


@njit(cache=True, nogil=True)
def _half_tiles(left, right, out, B, kend, n):
    """:func:`_split_products`' tiles of its last block of ends when it holds at most 8 (B .. n - 1):
    8 rows x 8 ends, one vector a row (the ends past n - 1 are padding, zero, as the whole tile's)."""
    for b0 in range(0, min(B + 16, n - 1), 8):
        p0 = p1 = p2 = p3 = p4 = p5 = p6 = p7 = _zero8()
        x0, x1, x2, x3 = left[b0], left[b0 + 1], left[b0 + 2], left[b0 + 3]
        x4, x5, x6, x7 = left[b0 + 4], left[b0 + 5], left[b0 + 6], left[b0 + 7]
        for k in range(b0 + 1, kend):
            y = _load8(right[k], B)
            p0, p1 = _fma8(p0, x0[k], y), _fma8(p1, x1[k], y)
            p2, p3 = _fma8(p2, x2[k], y), _fma8(p3, x3[k], y)
            p4, p5 = _fma8(p4, x4[k], y), _fma8(p5, x5[k], y)
            p6, p7 = _fma8(p6, x6[k], y), _fma8(p7, x7[k], y)
        _add_to8(out[b0], B, p0)
        _add_to8(out[b0 + 1], B, p1)
        _add_to8(out[b0 + 2], B, p2)
        _add_to8(out[b0 + 3], B, p3)
        _add_to8(out[b0 + 4], B, p4)
        _add_to8(out[b0 + 5], B, p5)
        _add_to8(out[b0 + 6], B, p6)
        _add_to8(out[b0 + 7], B, p7)


@njit(nogil=True, inline="always")
def _tile_any(left, right, out, b0, B, kend, wide):
    """The tile of :func:`_split_products` that ``wide`` names."""
    if wide == INLINE:
        _tile_skip_inline(left, right, out, b0, B, kend)
    elif wide == SKIP_ZEROS:
        _tile_skip(left, right, out, b0, B, kend)
    elif wide:
        _tile(left, right, out, b0, B, kend)
    else:
        _tile4(left, right, out, b0, B, kend)


@njit(nogil=True, inline="always")
def _half_any(left, right, out, B, kend, n, wide):
    """The last block's tiles (8 ends or fewer) that ``wide`` names."""
    if wide:
        _half_tiles(left, right, out, B, kend, n)
    else:
        _half_tiles4(left, right, out, B, kend, n)
