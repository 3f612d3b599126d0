"""Nussinov fill on the CPU (Numba): seed 001's CPU variants and the project's blocked algorithm.

Every fill takes ``codes`` (uint8, see bioaccel.alphabet), ``pairs`` (the 5 x 5 int32 table of
FoldParams.pair_table()) and ``min_loop``.

Variants (``--variant``):

``naive``           CPU1 (seed 001, Algorithm 1): diagonal by diagonal, column reads ``M[k+1][col]``.
``cache``           CPU2: every value is mirrored into the lower triangle, so the k loop reads
                    ``M[col][k+1]`` along a row.
``naive-parallel``  OMP1: CPU1 with the rows of each diagonal spread over the cores (prange).
``cache-parallel``  OMP2: CPU2 likewise.
``blocked``         the default; seed 001's blocked GPU algorithm (Ours1) adapted to the CPU. The upper
                    triangle is cut into ``tile`` x ``tile`` tiles, handed out to the cores in
                    tile-diagonal order (each tile waits only for its left and lower neighbours, not
                    for a whole tile-diagonal: see _fill_blocked_parallel). With ``m = k + 1`` the split
                    term is ``C(i, m-1) + C(m, j)`` (the seed's one-column shift of the A tile), so the
                    bulk of tile (I, J) is a max-plus product over ``m`` in row tiles ``I+1 .. J-1``,
                    whose operands are all final. It runs as row broadcasts
                    ``acc[j] = max(acc[j], a + row_m[j])`` over contiguous ``j``, two rows ``i`` and
                    four ``m`` at a time. The rest of the tile (``m`` inside tile I's rows or tile J's
                    columns) is finished in dependency order: rows bottom-up, columns left to right.

The dense variants return an (n, n) int32 table whose upper triangle holds C(i, j). ``blocked`` keeps a
packed upper triangle (row ``i`` holds C(i, i..n-1), contiguous) in int16 when every score fits, else
int32: ``python3 bench/nussinov_cpu.py --cell-types`` times the same code with int16, int32 and
float32 cells, and int16 came out fastest, then int32, float32 far behind (Numba's float ``max`` keeps
NaN semantics and does not become a plain vmaxps). Numba widens int16 + int16 to int64; casting each
sum back to the table's dtype lets LLVM keep 16 lanes per AVX2 instruction.

Every layout is read through one accessor, ``table[base[i] + j]`` = C(i, j): ``base[i] = i * n`` for a
dense table (raveled), ``offset(i) - i`` for the packed triangle (:func:`packed_base`).
"""
import numpy as np
from llvmlite import ir as llvm_ir
from numba import get_num_threads, njit, prange, types
from numba.core import cgutils
from numba.extending import intrinsic

from .._memory import require_memory
from ..errors import InvalidParameter
from ._traceback import traceback_pairs

#: Tile edge of the blocked variant (compare: bench/nussinov_cpu.py --tile N); tests pass small tiles.
TILE = 128

CPU_VARIANTS = ("blocked", "naive", "cache", "naive-parallel", "cache-parallel")
DEFAULT_CPU_VARIANT = "blocked"


# ---------------------------------------------------------------------------------------------------
# Seed 001's CPU variants (dense n x n int32)

@njit(cache=True)
def _naive_cell(M, codes, pairs, min_loop, row, col):
    diag = col - row
    best = 0
    w = pairs[codes[row], codes[col]]
    if w > 0 and diag - 1 >= min_loop:
        best = (M[row + 1, col - 1] if diag >= 2 else 0) + w
    for k in range(row, col):
        t = M[row, k] + M[k + 1, col]  # M[k+1][col]: a column read, as in the seed's CPU1
        if t > best:
            best = t
    M[row, col] = best


@njit(cache=True)
def fill_naive(codes, pairs, min_loop):
    """CPU1, Algorithm 1 of seed 001: diagonal by diagonal, column reads M[k+1][col]."""
    n = codes.shape[0]
    M = np.zeros((n, n), dtype=np.int32)
    for diag in range(1, n):
        for row in range(0, n - diag):
            _naive_cell(M, codes, pairs, min_loop, row, row + diag)
    return M


@njit(cache=True)
def _cache_cell(M, codes, pairs, min_loop, row, col):
    diag = col - row
    best = 0
    w = pairs[codes[row], codes[col]]
    if w > 0 and diag - 1 >= min_loop:
        best = (M[row + 1, col - 1] if diag >= 2 else 0) + w
    for k in range(row, col):
        t = M[row, k] + M[col, k + 1]  # M[col][k+1] mirrors C(k+1, col): a row read
        if t > best:
            best = t
    M[row, col] = best
    M[col, row] = best


@njit(cache=True)
def fill_cache(codes, pairs, min_loop):
    """CPU2 of seed 001: CPU1 with each value mirrored into the lower triangle, so reads run along rows.

    The lower triangle holds the mirror shifted by nothing: ``M[j][i] = C(i, j)``; the diagonal is 0.
    """
    n = codes.shape[0]
    M = np.zeros((n, n), dtype=np.int32)
    for diag in range(1, n):
        for row in range(0, n - diag):
            _cache_cell(M, codes, pairs, min_loop, row, row + diag)
    return M


@njit(cache=True, parallel=True)
def fill_naive_parallel(codes, pairs, min_loop):
    """OMP1 of seed 001: CPU1 with the rows of each diagonal in parallel."""
    n = codes.shape[0]
    M = np.zeros((n, n), dtype=np.int32)
    for diag in range(1, n):
        for row in prange(0, n - diag):
            _naive_cell(M, codes, pairs, min_loop, row, row + diag)
    return M


@njit(cache=True, parallel=True)
def fill_cache_parallel(codes, pairs, min_loop):
    """OMP2 of seed 001: CPU2 with the rows of each diagonal in parallel."""
    n = codes.shape[0]
    M = np.zeros((n, n), dtype=np.int32)
    for diag in range(1, n):
        for row in prange(0, n - diag):
            _cache_cell(M, codes, pairs, min_loop, row, row + diag)
    return M


# ---------------------------------------------------------------------------------------------------
# The blocked variant (packed upper triangle)

@njit(cache=True)
def packed_base(n):
    """``base`` of the packed upper triangle: C(i, j) lives at ``table[base[i] + j]``."""
    base = np.empty(n, dtype=np.int64)
    for i in range(n):
        base[i] = i * n - (i * (i - 1)) // 2 - i
    return base


def packed_size(n):
    return n * (n + 1) // 2


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
    n = codes.shape[0]
    r0 = ti * tile
    r1 = min(n, r0 + tile)
    c0 = tj * tile
    c1 = min(n, c0 + tile)
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


@intrinsic
def _fetch_add(typingctx, counter, index, value):
    """Atomically add ``value`` to ``counter[index]`` (int64) and return the previous value."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None
    sig = types.int64(counter, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        return builder.atomic_rmw("add", ptr, args[2], "seq_cst")
    return sig, codegen


@intrinsic
def _load_acquire(typingctx, flags, index):
    """``flags[index]`` (int64), read anew on every call and ordered before the reads that follow."""
    if not (isinstance(flags, types.Array) and flags.dtype == types.int64):
        return None
    sig = types.int64(flags, types.intp)

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        return builder.load_atomic(ptr, "acquire", 8)
    return sig, codegen


@intrinsic
def _store_release(typingctx, flags, index, value):
    """``flags[index] = value`` (int64), ordered after the writes that precede it."""
    if not (isinstance(flags, types.Array) and flags.dtype == types.int64):
        return None
    sig = types.void(flags, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        ary = context.make_array(sig.args[0])(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, sig.args[0], ary, [args[1]])
        builder.store_atomic(args[2], ptr, "release", 8)
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def _yield_cpu(typingctx):
    """sched_yield(2): let another thread run on this core (the one we may be waiting for)."""
    sig = types.int32()

    def codegen(context, builder, sig, args):
        fnty = llvm_ir.FunctionType(llvm_ir.IntType(32), [])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
    return sig, codegen


@njit(cache=True)
def _wait_for(done, index):
    """Wait until ``done[index]`` is set: spin briefly, then yield the core between looks, so that on
    a busy machine a waiting thread does not burn the time slice the thread it waits for needs."""
    spins = 0
    while _load_acquire(done, index) == 0:
        spins += 1
        if spins > 64:
            _yield_cpu()


@njit(cache=True, parallel=True)
def _fill_blocked_parallel(table, base, codes, pairs, min_loop, tile, diag_tiles, workers):
    """Every core takes the next tile in tile-diagonal order from a shared counter and waits only for
    that tile's two neighbours, (ti, tj-1) and (ti+1, tj), whose completion implies all its inputs.

    No barrier per tile-diagonal: on a shared machine a descheduled thread stalls only the tiles that
    need its tile, and the last, sparse tile-diagonals overlap. Tiles are handed out in an order
    consistent with their dependencies, so a worker never waits for a tile nobody has taken: with any
    number of threads, one included, it cannot deadlock.
    """
    n = codes.shape[0]
    tiles = (n + tile - 1) // tile
    total = tiles * (tiles + 1) // 2
    order_i = np.empty(total, dtype=np.int64)
    order_j = np.empty(total, dtype=np.int64)
    k = 0
    for d in range(tiles):
        for ti in range(tiles - d):
            order_i[k] = ti
            order_j[k] = ti + d
            k += 1
    done = np.zeros(tiles * tiles, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    for _ in prange(workers):
        while True:
            k = _fetch_add(counter, 0, 1)
            if k >= total:
                break
            ti = order_i[k]
            tj = order_j[k]
            if tj > ti:
                _wait_for(done, ti * tiles + tj - 1)
                _wait_for(done, (ti + 1) * tiles + tj)
            _fill_tile(table, base, codes, pairs, min_loop, tile, ti, tj, diag_tiles)
            _store_release(done, ti * tiles + tj, 1)


@njit(cache=True)
def _fill_blocked_serial(table, base, codes, pairs, min_loop, tile, diag_tiles):
    n = codes.shape[0]
    tiles = (n + tile - 1) // tile
    for d in range(tiles):
        for ti in range(tiles - d):
            _fill_tile(table, base, codes, pairs, min_loop, tile, ti, ti + d, diag_tiles)


def table_dtype(params_or_pairs, n):
    """int16 when every value of an n-long table fits, else int32 (raises if int32 would overflow)."""
    pairs = np.asarray(params_or_pairs)
    bound = (n // 2) * int(pairs.max(initial=0))
    if bound <= np.iinfo(np.int16).max:
        return np.dtype(np.int16)
    if bound > np.iinfo(np.int32).max:
        raise InvalidParameter(f"scores of a sequence of length {n} would overflow 32-bit integers")
    return np.dtype(np.int32)


def _lowest(dtype):
    """A one-element array holding the dtype's minimum: the padding of the diagonal tiles.

    (float32 is accepted for measurements: bench/nussinov_cpu.py --cell-types.)
    """
    dtype = np.dtype(dtype)
    low = -np.inf if dtype.kind == "f" else np.iinfo(dtype).min
    return np.array([low], dtype=dtype)


def fill_blocked(codes, pairs, min_loop, *, tile=TILE, parallel=True, dtype=None):
    """The blocked variant: returns the packed table (int16 or int32) and its ``base``."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    pairs = np.ascontiguousarray(pairs, dtype=np.int32)
    n = codes.shape[0]
    if tile < 1:
        raise InvalidParameter(f"tile must be >= 1, got {tile}")
    dtype = np.dtype(dtype) if dtype is not None else table_dtype(pairs, n)
    tiles = (n + tile - 1) // tile
    check_memory((packed_size(n) + tiles * tile * tile) * dtype.itemsize + 8 * n, n, "packed score table")
    table = np.zeros(packed_size(n), dtype=dtype)
    base = packed_base(n)
    if n:
        diag_tiles = _new_diag_tiles(n, int(tile), _lowest(dtype))
        if parallel:
            _fill_blocked_parallel(table, base, codes, pairs, int(min_loop), int(tile), diag_tiles,
                                   get_num_threads())
        else:
            _fill_blocked_serial(table, base, codes, pairs, int(min_loop), int(tile), diag_tiles)
    return table, base


# ---------------------------------------------------------------------------------------------------
# Many short sequences: one sequence per core at a time, balanced by cost

@njit(cache=True, parallel=True)
def _fold_batch(codes_all, starts, worker_start, worker_items, pairs, min_loop, tile, dtype_proto,
                with_traceback, scores, pair_to_all):
    for w in prange(worker_start.shape[0] - 1):
        for q in range(worker_start[w], worker_start[w + 1]):
            s = worker_items[q]
            lo = starts[s]
            hi = starts[s + 1]
            n = hi - lo
            if n == 0:
                scores[s] = 0
                continue
            codes = codes_all[lo:hi]
            table = np.zeros(n * (n + 1) // 2, dtype=dtype_proto.dtype)
            base = packed_base(n)
            diag_tiles = _new_diag_tiles(n, tile, dtype_proto)
            _fill_blocked_serial(table, base, codes, pairs, min_loop, tile, diag_tiles)
            scores[s] = table[base[0] + n - 1]
            if with_traceback:
                pair_to_all[lo:hi] = traceback_pairs(table, base, codes, pairs, min_loop)


# ---------------------------------------------------------------------------------------------------
# Memory

def check_memory(nbytes, n, what):
    """Raise ResourceError when ``nbytes`` will not fit in the memory available now."""
    require_memory(nbytes, f"folding a sequence of length {n:,} ({what})", "use --backend gpu or a shorter sequence")


# ---------------------------------------------------------------------------------------------------
# One entry point per table, whatever the variant

def _dense_fill(function):
    def fill(codes, pairs, min_loop, *, tile=TILE):
        n = codes.shape[0]
        check_memory(n * n * 4, n, f"dense {n:,} x {n:,} score table")
        M = function(codes, pairs, int(min_loop))
        return M.reshape(-1), np.arange(n, dtype=np.int64) * n
    return fill


def _blocked_fill(codes, pairs, min_loop, *, tile=TILE):
    return fill_blocked(codes, pairs, min_loop, tile=tile)


FILLS = {
    "blocked": _blocked_fill,
    "naive": _dense_fill(fill_naive),
    "cache": _dense_fill(fill_cache),
    "naive-parallel": _dense_fill(fill_naive_parallel),
    "cache-parallel": _dense_fill(fill_cache_parallel),
}


def check_variant(variant):
    """The CPU variant to use (None: the default); InvalidParameter for an unknown name."""
    variant = variant or DEFAULT_CPU_VARIANT
    if variant not in FILLS:
        raise InvalidParameter(f"unknown CPU variant {variant!r}; choose one of {', '.join(CPU_VARIANTS)}")
    return variant


def fill_table(codes, pairs, min_loop, variant=DEFAULT_CPU_VARIANT, *, tile=TILE):
    """Fill with ``variant``; return ``(table, base)``, one-dimensional, C(i, j) = table[base[i] + j]."""
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    pairs = np.ascontiguousarray(pairs, dtype=np.int32)
    return FILLS[check_variant(variant)](codes, pairs, min_loop, tile=tile)


@njit(cache=True)
def _unpack(table, base, n):
    dense = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        for j in range(i, n):
            dense[i, j] = table[base[i] + j]
    return dense


def fill_dense(codes, pairs, min_loop, variant="blocked", threads=0, *, tile=TILE):
    """An (n, n) int32 table whose upper triangle holds C(i, j), filled with ``variant``.

    ``threads``: CPU threads for the parallel variants (0 = all cores). The lower triangle is 0.
    """
    from .._cliutil import set_threads

    set_threads(threads)
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    n = codes.shape[0]
    variant = check_variant(variant)
    check_memory(n * n * 4 * (1 if variant == "blocked" else 2), n, f"dense {n:,} x {n:,} score table")
    table, base = fill_table(codes, pairs, min_loop, variant, tile=tile)
    return _unpack(table, base, n)


def fold_batch(codes_list, pairs, min_loop, *, tile=TILE, traceback=True):
    """Fold many short sequences, each on one core, the cores balanced by cost (n^3).

    Returns a list of ``(score in units, pair_to or None)`` in input order.
    """
    import heapq

    import numba

    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    starts = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    codes_all = (np.concatenate([np.asarray(c, dtype=np.uint8) for c in codes_list])
                 if len(codes_list) else np.zeros(0, np.uint8))
    workers = max(1, min(numba.get_num_threads(), len(codes_list)))
    loads = [(0, w) for w in range(workers)]
    assigned = [[] for _ in range(workers)]
    for s in np.argsort(-lengths, kind="stable"):  # longest first onto the least loaded core
        load, w = heapq.heappop(loads)
        assigned[w].append(int(s))
        heapq.heappush(loads, (load + int(lengths[s]) ** 3 + 1, w))
    worker_start = np.zeros(workers + 1, dtype=np.int64)
    np.cumsum([len(a) for a in assigned], out=worker_start[1:])
    worker_items = np.array([s for a in assigned for s in a], dtype=np.int64)
    dtype = table_dtype(pairs, int(lengths.max(initial=0)))
    scores = np.zeros(len(codes_list), dtype=np.int64)
    pair_to_all = np.full(codes_all.shape[0], -1, dtype=np.int32)
    _fold_batch(codes_all, starts, worker_start, worker_items, np.ascontiguousarray(pairs, dtype=np.int32),
                int(min_loop), int(tile), _lowest(dtype), bool(traceback), scores, pair_to_all)
    return [(int(scores[s]), pair_to_all[starts[s]:starts[s + 1]].copy() if traceback else None)
            for s in range(len(codes_list))]
