"""bioaccel's tiled Nussinov fill on the CPU (variant ``tiled``), over a packed upper triangle.

Li, Ranka & Sahni's blocked GPU algorithm (Ours1) adapted to the CPU. The upper triangle is cut into
``tile`` x ``tile`` tiles, handed out to the cores in tile-diagonal order from the shared task queue
(:mod:`bioaccel.runtime.parallel`): each tile waits only for its left and lower neighbours, not for a whole
tile-diagonal. With ``m = k + 1`` the split term is ``C(i, m-1) + C(m, j)`` (the paper's one-column
shift of the A tile), so the bulk of tile (I, J) is a max-plus product over ``m`` in row tiles
``I+1 .. J-1``, whose operands are all final. It runs as row broadcasts
``acc[j] = max(acc[j], a + row_m[j])`` over contiguous ``j``, two rows ``i`` and four ``m`` at a time.
The rest of the tile (``m`` inside tile I's rows or tile J's columns) is finished in dependency order:
rows bottom-up, columns left to right.

The table is the packed upper triangle (row ``i`` holds C(i, i..n-1), contiguous), int16 when every
score fits, else int32 (FoldParams.cell_dtype): ``python3 bench/nussinov_cpu.py --cell-types`` times
the same code with int16, int32 and float32 cells, and int16 came out fastest, then int32, float32 far
behind (Numba's float ``max`` keeps NaN semantics and does not become a plain vmaxps). Numba widens
int16 + int16 to int64; casting each sum back to the table's dtype lets LLVM keep 16 lanes per AVX2
instruction. C(i, j) = ``table[base[i] + j]`` with ``base`` from :func:`packed_base`.
"""
import numpy as np
from numba import get_num_threads, njit, prange

from ..runtime.parallel import claim, complete, task_queue

#: Tile edge (compare: bench/nussinov_cpu.py --tile N); tests pass small tiles.
TILE = 128


@njit(cache=True)
def packed_base(n):
    """``base`` of the packed upper triangle: C(i, j) lives at ``table[base[i] + j]``."""
    base = np.empty(n, dtype=np.int64)
    for i in range(n):
        base[i] = i * n - (i * (i - 1)) // 2 - i
    return base


def packed_size(n):
    """Cells of the packed upper triangle of an n-long sequence."""
    return n * (n + 1) // 2


@njit(cache=True, nogil=True)
def tile_span(n, tile, ti, tj):
    """``(r0, r1, c0, c1)``: the rows [r0, r1) and columns [c0, c1) of tile (ti, tj) of an n x n table
    cut into ``tile`` x ``tile`` tiles (the last ones shorter), as every tiled fill of this wing takes them."""
    r0 = ti * tile
    c0 = tj * tile
    return r0, min(n, r0 + tile), c0, min(n, c0 + tile)


@njit(cache=True)
def _maxplus_rows(acc, table, base, i, m_lo, m_hi, c0):
    """acc[j - c0] = max over m in [m_lo, m_hi) of C(i, m-1) + C(m, j), for the columns of acc."""
    cast = table.dtype.type
    width = acc.shape[0]
    ai = base[i] - 1
    m = m_lo
    while m + 8 <= m_hi:
        a0 = table[ai + m]
        a1 = table[ai + m + 1]
        a2 = table[ai + m + 2]
        a3 = table[ai + m + 3]
        a4 = table[ai + m + 4]
        a5 = table[ai + m + 5]
        a6 = table[ai + m + 6]
        a7 = table[ai + m + 7]
        r0 = table[base[m] + c0:base[m] + c0 + width]
        r1 = table[base[m + 1] + c0:base[m + 1] + c0 + width]
        r2 = table[base[m + 2] + c0:base[m + 2] + c0 + width]
        r3 = table[base[m + 3] + c0:base[m + 3] + c0 + width]
        r4 = table[base[m + 4] + c0:base[m + 4] + c0 + width]
        r5 = table[base[m + 5] + c0:base[m + 5] + c0 + width]
        r6 = table[base[m + 6] + c0:base[m + 6] + c0 + width]
        r7 = table[base[m + 7] + c0:base[m + 7] + c0 + width]
        for j in range(width):
            t = max(max(cast(a0 + r0[j]), cast(a1 + r1[j])), max(cast(a2 + r2[j]), cast(a3 + r3[j])))
            u = max(max(cast(a4 + r4[j]), cast(a5 + r5[j])), max(cast(a6 + r6[j]), cast(a7 + r7[j])))
            acc[j] = max(acc[j], max(t, u))
        m += 8
    while m < m_hi:
        a = table[ai + m]
        r = table[base[m] + c0:base[m] + c0 + width]
        for j in range(width):
            acc[j] = max(acc[j], cast(a + r[j]))
        m += 1


@njit(cache=True)
def _maxplus_row_pair(acc0, acc1, table, base, i, m_lo, m_hi, c0):
    """:func:`_maxplus_rows` for rows i and i + 1 at once: each row m of B is loaded once for both
    (four m at a time: measured faster than eight m for one row, or eight for two)."""
    cast = table.dtype.type
    width = acc0.shape[0]
    ai = base[i] - 1
    ei = base[i + 1] - 1
    m = m_lo
    while m + 4 <= m_hi:
        a0 = table[ai + m]
        a1 = table[ai + m + 1]
        a2 = table[ai + m + 2]
        a3 = table[ai + m + 3]
        e0 = table[ei + m]
        e1 = table[ei + m + 1]
        e2 = table[ei + m + 2]
        e3 = table[ei + m + 3]
        r0 = table[base[m] + c0:base[m] + c0 + width]
        r1 = table[base[m + 1] + c0:base[m + 1] + c0 + width]
        r2 = table[base[m + 2] + c0:base[m + 2] + c0 + width]
        r3 = table[base[m + 3] + c0:base[m + 3] + c0 + width]
        for j in range(width):
            x0 = r0[j]
            x1 = r1[j]
            x2 = r2[j]
            x3 = r3[j]
            acc0[j] = max(acc0[j], max(max(cast(a0 + x0), cast(a1 + x1)), max(cast(a2 + x2), cast(a3 + x3))))
            acc1[j] = max(acc1[j], max(max(cast(e0 + x0), cast(e1 + x1)), max(cast(e2 + x2), cast(e3 + x3))))
        m += 4
    if m < m_hi:
        _maxplus_rows(acc0, table, base, i, m, m_hi, c0)
        _maxplus_rows(acc1, table, base, i + 1, m, m_hi, c0)


@njit(cache=True)
def _finish_row(table, base, codes, pairs, min_loop, i, c0, c_start, acc, diag_tiles, tj):
    """Finalise C(i, j) for j in [c_start, c0 + len(acc)), left to right, into ``table`` and ``acc``.

    On entry ``acc[j - c0]`` holds the split maximum over every m < c_start. The pair terms depend on
    row i + 1 only, so they are folded in first; then the split at m = c_start uses C(i, c_start - 1),
    final already, and each newly final C(i, j) is broadcast as the split at m = j + 1.
    ``diag_tiles[tj]`` is the diagonal tile of these columns, ``diag_tiles[tj, m - c0, j - c0]`` =
    C(m, j), padded with the dtype's minimum below its diagonal: the broadcasts then run over the
    full tile width (loops of varying length would not vectorise) and the padding, plus a score
    >= 0, stays negative, below every ``acc`` value. (Rows are taken as ``diag_tiles[tj, m, :width]``,
    which Numba knows to be contiguous; a row of a 2-D sub-view is not, and would not vectorise.)
    """
    cast = table.dtype.type
    width = acc.shape[0]
    c1 = c0 + width
    weights = pairs[codes[i]]
    for j in range(max(c_start, i + 1 + min_loop), c1):
        w = weights[codes[j]]
        if w > 0:
            inner = table[base[i + 1] + j - 1] if i + 1 <= j - 1 else 0
            acc[j - c0] = max(acc[j - c0], cast(inner + w))
    a = table[base[i] + c_start - 1]
    row = diag_tiles[tj, c_start - c0, :width]
    for jj in range(width):
        acc[jj] = max(acc[jj], cast(a + row[jj]))
    for j in range(c_start, c1 - 1):
        v = acc[j - c0]
        row = diag_tiles[tj, j + 1 - c0, :width]
        for jj in range(width):
            acc[jj] = max(acc[jj], cast(v + row[jj]))
    out = table[base[i] + c_start:base[i] + c1]
    for j in range(c1 - c_start):
        out[j] = acc[c_start - c0 + j]


@njit(cache=True)
def _fill_tile(table, base, codes, pairs, min_loop, tile, ti, tj, diag_tiles):
    """Compute tile (ti, tj) of the packed table; every tile on an earlier tile-diagonal is final.

    ``diag_tiles[t]`` is the padded copy of diagonal tile (t, t) (see :func:`_finish_row`); a diagonal
    tile is computed in it, then copied into ``table``.
    """
    r0, r1, c0, c1 = tile_span(codes.shape[0], tile, ti, tj)
    width = c1 - c0
    acc = np.zeros((r1 - r0, width), dtype=table.dtype)
    if ti == tj:
        for i in range(r1 - 2, r0 - 1, -1):
            _finish_row(table, base, codes, pairs, min_loop, i, c0, i + 1, acc[i - r0], diag_tiles, tj)
            for j in range(i + 1, c1):
                diag_tiles[tj, i - r0, j - c0] = acc[i - r0, j - c0]
        return
    # bulk: m over the whole row tiles between the two, a max-plus product of final tiles,
    # one row tile of m at a time so that its rows stay in cache for all rows i
    for mk in range(r1, c0, tile):
        mk1 = min(mk + tile, c0)
        for i in range(r0, r1 - 1, 2):
            _maxplus_row_pair(acc[i - r0], acc[i + 1 - r0], table, base, i, mk, mk1, c0)
        if (r1 - r0) % 2:
            _maxplus_rows(acc[r1 - 1 - r0], table, base, r1 - 1, mk, mk1, c0)
    for i in range(r1 - 1, r0 - 1, -1):
        _maxplus_rows(acc[i - r0], table, base, i, i + 1, r1, c0)  # rows of this tile, below i
        _finish_row(table, base, codes, pairs, min_loop, i, c0, c0, acc[i - r0], diag_tiles, tj)


@njit(cache=True)
def _new_diag_tiles(n, tile, dtype_proto):
    tiles = (n + tile - 1) // tile
    low = dtype_proto[0]
    diag_tiles = np.full((tiles, tile, tile), low, dtype=dtype_proto.dtype)
    for t in range(tiles):
        for r in range(tile):
            diag_tiles[t, r, r] = 0
    return diag_tiles


def tile_order(tiles):
    """The tiles (ti, tj) in the order they are handed out (tile diagonal by tile diagonal) and the
    task queue whose dependencies are each tile's left and lower neighbours, which imply all its inputs.

    >>> ti, tj, queue = tile_order(2)
    >>> list(zip(ti.tolist(), tj.tolist())), queue.deps.tolist()
    ([(0, 0), (1, 1), (0, 1)], [0, 1])
    """
    d = np.concatenate([np.full(tiles - k, k) for k in range(tiles)]) if tiles else np.zeros(0, np.int64)
    ti = np.concatenate([np.arange(tiles - k) for k in range(tiles)]) if tiles else np.zeros(0, np.int64)
    first = np.concatenate(([0], np.cumsum(np.arange(tiles, 0, -1))))   # index of (0, d) in the order
    has_deps = d > 0
    left = first[np.maximum(d - 1, 0)] + ti                # (ti, tj - 1) is on diagonal d - 1 at ti
    deps = np.stack([left, left + 1], axis=1)[has_deps].ravel()   # (ti + 1, tj) right after it
    dep_start = np.concatenate(([0], np.cumsum(2 * has_deps)))
    return ti.astype(np.int64), (ti + d).astype(np.int64), task_queue(dep_start, deps)


@njit(cache=True, parallel=True, nogil=True)
def _fill_parallel(table, base, codes, pairs, min_loop, tile, diag_tiles, order_i, order_j, queue, workers):
    """Every worker takes the next tile from the queue and computes it once its neighbours are done.

    No barrier per tile-diagonal: on a shared machine a descheduled thread stalls only the tiles that
    need its tile, and the last, sparse tile-diagonals overlap.
    """
    for _ in prange(workers):
        while True:
            k = claim(queue)
            if k < 0:
                break
            _fill_tile(table, base, codes, pairs, min_loop, tile, order_i[k], order_j[k], diag_tiles)
            complete(queue, k)


@njit(cache=True, nogil=True)
def _fill_serial(table, base, codes, pairs, min_loop, tile, diag_tiles):
    n = codes.shape[0]
    tiles = (n + tile - 1) // tile
    for d in range(tiles):
        for ti in range(tiles - d):
            _fill_tile(table, base, codes, pairs, min_loop, tile, ti, ti + d, diag_tiles)


def _lowest(dtype):
    """A one-element array holding the dtype's minimum: the padding of the diagonal tiles.

    (float32 is accepted for measurements: bench/nussinov_cpu.py --cell-types.)
    """
    dtype = np.dtype(dtype)
    low = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
    return np.array([low], dtype=dtype)


def fill_tiled(codes, pairs, min_loop, dtype, *, tile=TILE, parallel=True):
    """The tiled fill: returns the packed table (``dtype``, int16 or int32) and its ``base``.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> table, base = fill_tiled(encode("GGGAAAUCC"), FoldParams().pair_table(), 3, np.int16, tile=4)
    >>> int(table[base[0] + 8])
    3
    """
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    pairs = np.ascontiguousarray(pairs, dtype=np.int32)
    n = codes.shape[0]
    dtype = np.dtype(dtype)
    table = np.zeros(packed_size(n), dtype=dtype)
    base = packed_base(n)
    if n:
        diag_tiles = _new_diag_tiles(n, int(tile), _lowest(dtype))
        if parallel:
            order_i, order_j, queue = tile_order((n + tile - 1) // tile)
            _fill_parallel(table, base, codes, pairs, int(min_loop), int(tile), diag_tiles, order_i, order_j,
                           queue, get_num_threads())
        else:
            _fill_serial(table, base, codes, pairs, int(min_loop), int(tile), diag_tiles)
    return table, base


def tiled_bytes(n, dtype, tile=TILE):
    """Memory the tiled fill of an n-long sequence takes (table, padded diagonal tiles, base)."""
    tiles = (n + tile - 1) // tile
    return (packed_size(n) + tiles * tile * tile) * np.dtype(dtype).itemsize + 8 * n
