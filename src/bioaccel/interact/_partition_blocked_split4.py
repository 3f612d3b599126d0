"""The ``blocked`` fill's double sums over a query interval's split points in tiles of four-lane vectors
(:mod:`._partition_blocked_split` has the sums over the split points, which call these tiles, and the
eight-lane ones): the form for CPUs without AVX-512, where the eight-lane tiles' 16 accumulators of eight doubles become 32 registers of four, more
than AVX2's 16, and spill (the fill at 23 x 100 0.97x, at 23 x 50 0.92x against this form, code built
for Haswell on this machine). The same terms in the same order as the eight-lane tiles: the same sums.
"""
from numba import njit

from ._partition_band_cross import _add_row, _fma, _load, _zero


@njit(cache=True, nogil=True)
def _tile4(left, right, out, b0, B, kend):
    """out[b0 .. b0 + 3, B .. B + 15] += sum over b0 < k < kend of left[row, k] right[k, end], in 16
    registers of four lanes (:func:`._partition_blocked_split._split_products`' tile without AVX-512)."""
    p00 = p01 = p02 = p03 = _zero()
    p10 = p11 = p12 = p13 = _zero()
    p20 = p21 = p22 = p23 = _zero()
    p30 = p31 = p32 = p33 = _zero()
    x0, x1, x2, x3 = left[b0], left[b0 + 1], left[b0 + 2], left[b0 + 3]
    for k in range(b0 + 1, kend):
        y = right[k]
        y0, y1, y2, y3 = _load(y, B), _load(y, B + 4), _load(y, B + 8), _load(y, B + 12)
        v = x0[k]
        p00, p01, p02, p03 = _fma(p00, v, y0), _fma(p01, v, y1), _fma(p02, v, y2), _fma(p03, v, y3)
        v = x1[k]
        p10, p11, p12, p13 = _fma(p10, v, y0), _fma(p11, v, y1), _fma(p12, v, y2), _fma(p13, v, y3)
        v = x2[k]
        p20, p21, p22, p23 = _fma(p20, v, y0), _fma(p21, v, y1), _fma(p22, v, y2), _fma(p23, v, y3)
        v = x3[k]
        p30, p31, p32, p33 = _fma(p30, v, y0), _fma(p31, v, y1), _fma(p32, v, y2), _fma(p33, v, y3)
    _add_row(out[b0], B, p00, p01, p02, p03)
    _add_row(out[b0 + 1], B, p10, p11, p12, p13)
    _add_row(out[b0 + 2], B, p20, p21, p22, p23)
    _add_row(out[b0 + 3], B, p30, p31, p32, p33)


@njit(cache=True, nogil=True)
def _half_tiles4(left, right, out, B, kend, n):
    """:func:`._partition_blocked_split._split_products`' four-lane tiles of its last block of ends when it
    holds at most 8 (B .. n - 1): 4 rows x 8 ends, two vectors a row (the ends past n - 1 are padding,
    zero, as the whole tile's)."""
    z = _zero()
    for b0 in range(0, min(B + 16, n - 1), 4):
        p00 = p01 = p10 = p11 = p20 = p21 = p30 = p31 = _zero()
        x0, x1, x2, x3 = left[b0], left[b0 + 1], left[b0 + 2], left[b0 + 3]
        for k in range(b0 + 1, kend):
            y = right[k]
            y0, y1 = _load(y, B), _load(y, B + 4)
            v = x0[k]
            p00, p01 = _fma(p00, v, y0), _fma(p01, v, y1)
            v = x1[k]
            p10, p11 = _fma(p10, v, y0), _fma(p11, v, y1)
            v = x2[k]
            p20, p21 = _fma(p20, v, y0), _fma(p21, v, y1)
            v = x3[k]
            p30, p31 = _fma(p30, v, y0), _fma(p31, v, y1)
        _add_row(out[b0], B, p00, p01, z, z)
        _add_row(out[b0 + 1], B, p10, p11, z, z)
        _add_row(out[b0 + 2], B, p20, p21, z, z)
        _add_row(out[b0 + 3], B, p30, p31, z, z)
