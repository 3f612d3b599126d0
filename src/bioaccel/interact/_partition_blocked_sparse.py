"""QIa's double sum in the ``queued`` fill without the products by a left factor that is exactly zero
because its query interval cannot close (docs/bppart.md, "bppsparse, stop 49").

QIa([a0, a1), [b0, b1)) sums QIac([a0, c), [b0, k)) QI([c, a1), [k, b1)) over the split points. Where
[a0, c) cannot close (c - a0 < 5, or a[a0] does not pair a[c - 1]: w1 = 0), QIac of it is QIs1 alone
(QIs0 and QIe are multiplied by w1 = 0 or are 0.0), ``v w2(rb[b0], rb[k - 1])``: nonzero only where the
target row's base rb[b0] pairs rb[k - 1] (w2 > 0) and k - b0 >= 5. So for such a split point the rows of
one base (a class) need only the k of their partners: the tiles here take 8 rows of one class (gathered
by index) and run k over the class's partner positions, ascending. Every lane keeps the same nonzero
terms in the same order, the skipped ones being products equal to +0.0 added to sums of non-negative
terms: the same bits as :func:`._partition_blocked_skip._tile_skip` (tests/test_bppart_cpu35.py, ``==``).
Split points whose [a0, c) can close take the ``SKIP_ZEROS`` tiles, unchanged.

A gathered row r is read at every k of its tile from its class's first row on, left of its own diagonal
block too, where the table holds whatever was there (the fill clears only from the diagonal's block of 16):
while k <= r, the lane's factor is set to 0.0 instead of read (the product it replaces was +0.0 or absent).
"""
import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ._partition_band_cross import _fma8, _prefetch, _zero8, lanes8
from ._partition_blocked_skip import _tile_skip, _tile_skip_inline
from ._partition_blocked_split import PREFETCH, SPARSE, SPARSE_INLINE, _half_tiles, _split_products


def _cell_vector(context, builder, signature, args):
    """A pointer to the eight doubles from cell (row, col) of a 2-D array (no view made, no bounds check)."""
    at = cgutils.get_item_pointer(context, builder, signature.args[0],
                                  context.make_array(signature.args[0])(context, builder, args[0]), args[1:3])
    return builder.bitcast(at, ir.VectorType(ir.DoubleType(), 8).as_pointer())


@intrinsic
def _load8r(typingctx, array, row, col):
    """array[row, col:col + 8] of a 2-D float64 array, as one eight-lane vector (no row view: a view of a
    row costs a reference count's calls, which spill the tile's registers)."""
    def codegen(context, builder, signature, args):
        return builder.load(_cell_vector(context, builder, signature, args), align=8)
    return lanes8(array, types.intp, types.intp), codegen


@intrinsic
def _add_to8r(typingctx, array, row, col, value):
    """array[row, col:col + 8] += value (a 2-D float64 array, no row view)."""
    def codegen(context, builder, signature, args):
        at = _cell_vector(context, builder, signature, args)
        builder.store(builder.fadd(builder.load(at, align=8), args[3]), at, align=8)
        return context.get_dummy_value()
    return types.none(array, types.intp, types.intp, lanes8), codegen


@njit(cache=True, nogil=True)
def base_classes(rb, w2):
    """The target rows by class: a letter x's partners are the letters y with w2[x, y] > 0; a letter whose
    partners are a proper subset of another's joins that letter's class (A's {U} within G's {C, U}, C's {G}
    within U's {A, G} at BPPart's weights: two classes instead of four, fuller tiles; its rows' factors at
    the extra k are +0.0). For each class h: its rows b0 < N, ascending (``rows[h, :nrows[h]]``), and the
    inner indices k in 1 .. N with rb[k - 1] a partner of h (``ks[h, :nks[h]]``, ascending). A letter that
    pairs with nothing has no class (its rows' left factors are all zero)."""
    N, letters = rb.shape[0], w2.shape[0]
    pairs = w2 > 0.0
    home = np.full(letters, -1, np.int64)
    for x in range(letters):
        if pairs[x].any():
            home[x] = _widest(pairs, x)
    rows = np.zeros((letters, N + 1), np.int64)
    ks = np.zeros((letters, N + 1), np.int64)
    nrows = np.zeros(letters, np.int64)
    nks = np.zeros(letters, np.int64)
    for h in range(letters):
        if home[h] != h:
            continue
        for k in range(1, N + 1):
            if pairs[h, rb[k - 1]]:
                ks[h, nks[h]] = k
                nks[h] += 1
        for b0 in range(N):
            if home[rb[b0]] == h:
                rows[h, nrows[h]] = b0
                nrows[h] += 1
    return rows, nrows, ks, nks


@njit(cache=True, nogil=True)
def _widest(pairs, x):
    """The letter whose partners are the widest set containing x's (x itself if none is wider; the first
    such letter where two are)."""
    best = x
    for y in range(pairs.shape[0]):
        if pairs[y].sum() > pairs[best].sum() and not (pairs[x] & ~pairs[y]).any():
            best = y
    return best


@njit(cache=True, nogil=True)
def class_plan(rows, nrows, ks, nks, n):
    """The tiles of :func:`split_products_qia`'s split points that cannot close (the same for all), one a
    row: (letter x, first row j in rows[x], rows in it, block of ends B, then the range of k's positions in
    ks[x] (from m0 to m1) cut at mm, the first k past every row of the tile (none masked), and at mh, the
    first k >= B + 8 (the first vector of ends zero)). For each block B, each letter's rows r with
    r + 5 < kend = min(B + 16, n) (the others' left factors are zero below kend) in groups of 8, ascending
    (the last group, nearest the diagonal and shortest, the partial one)."""
    tiles = np.zeros(((n + 15) // 16 * rows.shape[0] * (n // 8 + 1), 8), np.int64)
    t = 0
    for B in range(0, n, 16):
        kend = min(B + 16, n)
        for x in range(rows.shape[0]):
            mine, k = rows[x, :nrows[x]], ks[x, :nks[x]]
            last = np.searchsorted(mine, kend - 5)     # rows r <= kend - 6
            for j in range(0, last, 8):
                cnt = min(8, last - j)
                m0, m1 = np.searchsorted(k, mine[j] + 5), np.searchsorted(k, kend)
                if m0 >= m1:
                    continue
                mm = max(m0, min(m1, np.searchsorted(k, mine[j + cnt - 1] + 1)))
                mh = max(m0, min(m1, np.searchsorted(k, B + 8)))
                tiles[t] = (x, j, cnt, B, m0, mm, mh, m1)
                t += 1
    return tiles[:t]


@njit(cache=True, nogil=True)
def split_products_qia(L, Rt, idx, a0, a1, out, n, wide, a, rb, w1, w2):
    """QIa's :func:`._partition_blocked_split._split_products` (``L`` = QIac, ``Rt`` = QI). ``wide`` =
    :data:`SPARSE`: the ``SKIP_ZEROS`` tiles where the left interval [a0, c) can close, else tiles of one
    base class (:func:`class_plan`, :func:`_class_tile`): the same sums, the same bits; any other ``wide``:
    ``_split_products``' (decided here: the call site stays one line)."""
    if wide != SPARSE and wide != SPARSE_INLINE:
        _split_products(L, Rt, idx, a0, a1, out, n, wide)
        return
    if a1 - a0 < 2:
        return
    rows, nrows, ks, nks = base_classes(rb, w2)
    plan = class_plan(rows, nrows, ks, nks, n)
    size = L.shape[1] * L.shape[2]
    for c in range(a0 + 1, a1):
        left, right = L[idx[a0, c]], Rt[idx[c, a1]]
        ahead = c + 1 if c + 1 < a1 else c
        next_l, next_r = L[idx[a0, ahead]].reshape(size), Rt[idx[ahead, a1]].reshape(size)
        pos = 0
        if c - a0 >= 5 and w1[a[a0], a[c - 1]] != 0.0:     # [a0, c) can close: every row, every k
            for B in range(0, n, 16):
                kend = min(B + 16, n)
                if n - B <= 8:
                    _half_tiles(left, right, out, B, kend, n)
                    continue
                for b0 in range(0, min(B + 16, n - 1), 8):
                    pos = _ask_ahead(next_l, next_r, pos, size)
                    if wide == SPARSE_INLINE:
                        _tile_skip_inline(left, right, out, b0, B, kend)
                    else:
                        _tile_skip(left, right, out, b0, B, kend)
            continue
        _class_tiles(left, right, out, rows, ks, plan, n, next_l, next_r, size)


@njit(cache=True, nogil=True, inline="always")
def _ask_ahead(next_l, next_r, pos, size):
    """Prefetch the next PREFETCH cache lines of the next split point's two matrices (as
    _split_products, once per tile); the next position."""
    for _ in range(PREFETCH):
        if pos < size:
            _prefetch(next_l, pos)
            _prefetch(next_r, pos)
            pos += 8
    return pos


@njit(cache=True, nogil=True)
def _class_tiles(left, right, out, rows, ks, plan, n, next_l, next_r, size):
    """Every tile of :func:`class_plan` at one split point, the next split point's matrices prefetched as
    the tiles go (as ``_split_products``: PREFETCH lines of each a tile). One call a split point: a call
    a tile would cost its arrays' reference counts (atomic, each a call that spills the registers)."""
    pos = 0
    for t in range(plan.shape[0]):
        pos = _ask_ahead(next_l, next_r, pos, size)
        _class_tile(left, right, out, rows, ks, plan, t, n)


@njit(cache=True, nogil=True, inline="always")
def _class_tile(left, right, out, rows, ks, plan, t, n):
    """out[rows[x, j + i], B .. B + 15] += sum over ks[x, m0 .. m1 - 1] (ascending) of
    left[rows[x, j + i], k] right[k, B .. B + 15] for the ``cnt`` rows of :func:`class_plan`'s tile ``t``,
    in four runs: masked or not (before mm, a row is read at max(k, row): on its diagonal, +0.0, while
    k <= the row), both vectors of ends or the second alone from mh (k >= B + 8: below right's diagonal);
    the last block of ends, of 8 or fewer, the first vector alone (the rest is padding). A lane past
    ``cnt`` repeats the first row (its sum is not added). Scalar indices only: no array views a tile."""
    x, j, cnt, B = plan[t, 0], plan[t, 1], plan[t, 2], plan[t, 3]
    m0, mm, mh, m1 = plan[t, 4], plan[t, 5], plan[t, 6], plan[t, 7]
    r = (_lane(rows, x, j, 0, cnt), _lane(rows, x, j, 1, cnt), _lane(rows, x, j, 2, cnt), _lane(rows, x, j, 3, cnt))
    s = (_lane(rows, x, j, 4, cnt), _lane(rows, x, j, 5, cnt), _lane(rows, x, j, 6, cnt), _lane(rows, x, j, 7, cnt))
    x = np.uint64(x)
    z = _zero8()
    lo, hi, wl, wh = (z, z, z, z), (z, z, z, z), (z, z, z, z), (z, z, z, z)
    if n - B <= 8:
        for m in range(m0, mm):
            k = np.uint64(ks[x, np.uint64(m)])
            y = _load8r(right, k, B)
            lo, wl = _rows(_masked(left, r, k), y, lo), _rows(_masked(left, s, k), y, wl)
        for m in range(mm, m1):
            k = np.uint64(ks[x, np.uint64(m)])
            y = _load8r(right, k, B)
            lo, wl = _rows(_plain(left, r, k), y, lo), _rows(_plain(left, s, k), y, wl)
    else:
        for m in range(m0, min(mm, mh)):
            k = np.uint64(ks[x, np.uint64(m)])
            y0, y1 = _load8r(right, k, B), _load8r(right, k, B + 8)
            p, q = _masked(left, r, k), _masked(left, s, k)
            lo, hi, wl, wh = _rows(p, y0, lo), _rows(p, y1, hi), _rows(q, y0, wl), _rows(q, y1, wh)
        for m in range(mh, mm):
            k = np.uint64(ks[x, np.uint64(m)])
            y1 = _load8r(right, k, B + 8)
            hi, wh = _rows(_masked(left, r, k), y1, hi), _rows(_masked(left, s, k), y1, wh)
        for m in range(mm, mh):
            k = np.uint64(ks[x, np.uint64(m)])
            y0, y1 = _load8r(right, k, B), _load8r(right, k, B + 8)
            p, q = _plain(left, r, k), _plain(left, s, k)
            lo, hi, wl, wh = _rows(p, y0, lo), _rows(p, y1, hi), _rows(q, y0, wl), _rows(q, y1, wh)
        for m in range(max(mm, mh), m1):
            k = np.uint64(ks[x, np.uint64(m)])
            y1 = _load8r(right, k, B + 8)
            hi, wh = _rows(_plain(left, r, k), y1, hi), _rows(_plain(left, s, k), y1, wh)
    _add_class_rows(out, r, B, lo, hi, cnt)
    _add_class_rows(out, s, B, wl, wh, cnt - 4)


@njit(cache=True, nogil=True)
def _lane(rows, x, j, i, cnt):
    """The row of a tile's lane i (unsigned): rows[x, j + i], or the tile's first row past ``cnt``."""
    return np.uint64(rows[x, j + i] if i < cnt else rows[x, j])


@njit(cache=True, nogil=True)
def _masked(left, r, k):
    """The four rows' factors at k (unsigned), each read at max(k, row): its diagonal's +0.0 while k <= row."""
    return (left[r[0], max(k, r[0])], left[r[1], max(k, r[1])], left[r[2], max(k, r[2])],
            left[r[3], max(k, r[3])])


@njit(cache=True, nogil=True)
def _plain(left, r, k):
    """The four rows' factors at k (unsigned)."""
    return left[r[0], k], left[r[1], k], left[r[2], k], left[r[3], k]


@njit(cache=True, nogil=True)
def _rows(v, y, acc):
    """acc[i] + v[i] * y for the four factors."""
    return _fma8(acc[0], v[0], y), _fma8(acc[1], v[1], y), _fma8(acc[2], v[2], y), _fma8(acc[3], v[3], y)


@njit(cache=True, nogil=True)
def _add_class_rows(out, r, B, lo, hi, cnt):
    """out[r[i], B:B + 16] += (lo[i], hi[i]) for the first ``cnt`` of the four rows."""
    if cnt > 0:
        _add_to8r(out, r[0], B, lo[0])
        _add_to8r(out, r[0], B + 8, hi[0])
    if cnt > 1:
        _add_to8r(out, r[1], B, lo[1])
        _add_to8r(out, r[1], B + 8, hi[1])
    if cnt > 2:
        _add_to8r(out, r[2], B, lo[2])
        _add_to8r(out, r[2], B + 8, hi[2])
    if cnt > 3:
        _add_to8r(out, r[3], B, lo[3])
        _add_to8r(out, r[3], B + 8, hi[3])
