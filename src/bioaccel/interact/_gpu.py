"""BPMax on the GPU (variant ``fused``): every window score of a query against many targets.

The device keeps, for each query interval (i1, j1) of at most L1 bases, the band of the target matrix
F(i1, j1, ., .) (kernels/bpmax.cu has the layout). The query's intervals are the outer grid, the
target the long axis of each matrix: for the short query and long target of a screen that is a small
grid of large matrices, as Gildemaster 2021 advises, and every launch has the whole target's width of
parallel work. A level (query intervals of one length) is two launches: the products (double
reduction D with R3 and R4, the strand-1 pair, the base case) and the finish inside each matrix (R1,
R2, the strand-2 pair), so a query of M bases costs 2 M launches whatever the number of targets.

Many targets share a launch: they are laid back to back as one long target. A cell F(i1, j1, i2, j2)
depends only on cells whose target interval lies inside [i2, j2], so cells of one target never read
cells that cross into the next; the crossing cells are computed and never read. A target too long
for the device's memory (with a window) is cut into pieces that overlap by the window, each window
lying whole in one piece: the streamed path, identical by the same argument.

Without a window the band is the whole target, so a long target needs its whole table at once; that
is refused with the estimate when it cannot fit.
"""
import functools
from dataclasses import dataclass

import numpy as np

from ..runtime import gpu as _gpu
from ..runtime.memory import format_bytes
from ..errors import ResourceError
from . import _gpu_launch
from . import _maxplus_gpu as library
from ._gpu_finish import cell_name as _cell, finisher as _finisher, kernel as _kernel
from ._gpu_launch import BPMaxSizes, paired_copy, pairs_form, pairs_stage, products_lanes
from ._gpu_paired import Paired
from ._model import sentinel

MEMORY_MARGIN = 0.7           # share of the free device memory one launch may take
WIDE_BAND = 150               # about the widest band whose finish segments fit in shared memory


@dataclass
class Piece:
    """One target (or piece of one) in a launch: reversed codes and its window length L2."""

    target: int
    start: int          # first window row of the whole target this piece holds
    codes: np.ndarray
    span: int


def row_stride(width: int) -> int:
    """Cells per band row: the empty-target slot, ``width`` cells and up to 7 slots before them (a row's
    slots start at a multiple of 8 on absolute target columns: kernels/bpmax.cu's cell_at), rounded to 8.

    >>> row_stride(129)
    144
    """
    return (width + 8 + 7) // 8 * 8


def band_rows(table: np.ndarray, rows: int, RS: int, width: int) -> np.ndarray:
    """The band rows of device tables laid out as kernels/bpmax.cu's cell_at, as ``[..., i2, e + 1]``
    for e = -1 .. width - 1 (the layout-free form the tests compare).

    >>> t = np.arange(2 * 16)                     # rows 0 and 1 of RS = 16 slots
    >>> band_rows(t, 2, 16, 3).tolist()            # row 0 starts 7 slots in, row 1 at its first slot
    [[7, 8, 9, 10], [16, 17, 18, 19]]
    """
    i2 = np.arange(rows)[:, None]
    at = i2 * RS + np.arange(width + 1)[None, :] + ((i2 - 1) & 7)
    return table[..., at]


def first_matrix(M, l1):
    """The number of the first target matrix of query length ``l1``: matrices are numbered length by
    length, m(i1, l1) = first_matrix(M, l1) + i1, as tiled.StreamPlan.mat_id numbers them for the CPU
    (and kernels/bpmax.cu's mat_of). Works elementwise on NumPy arrays.

    >>> first_matrix(23, 1), first_matrix(23, 2), first_matrix(23, 3)
    (0, 23, 45)
    """
    return (l1 - 1) * M - (l1 - 1) * (l1 - 2) // 2


def matrices(M: int, L1: int) -> int:
    """Query intervals of at most L1 bases: the number of target matrices.

    >>> matrices(23, 23)
    276
    """
    return first_matrix(M, L1 + 1)


def bytes_per_base(M: int, L1: int, width: int, dtype, paired: bool = False, pool_tile: int = 0) -> int:
    """Device bytes per target base of a launch: the matrices, S2, the window scores and the codes (``paired``:
    and the paired copy of the levels below L1, pairs_stage 4; ``pool_tile`` T > 0: and the banded-library
    variant's tile-major pool of every matrix, at most ceil(width / T) + 1 tiles of T x T cells per T rows; the
    last tile row of each matrix, at most T bases' worth, lies within MEMORY_MARGIN).

    >>> bytes_per_base(23, 23, 129, np.int16), bytes_per_base(23, 23, 129, np.int16, paired=True)
    (79792, 158992)
    >>> bytes_per_base(23, 23, 129, np.int16, pool_tile=32)
    185776
    """
    cells = (matrices(M, L1) + 1 + paired * first_matrix(M, L1)) * row_stride(width)
    if pool_tile:
        cells += matrices(M, L1) * (-(-width // pool_tile) + 1) * pool_tile
    if width > WIDE_BAND:       # the global-memory finish's diagonal-major copies of a level and of S2
        cells += (M + 1) * width
    return cells * np.dtype(dtype).itemsize + 4 * (M - L1 + 2) + 8


def _launches(pieces, M, L1, dtype, capacity, per_base):
    """Pieces grouped into launches of at most ``capacity`` bytes, similar band widths together
    (``per_base(width, bases)``: a launch's device bytes per target base, bytes_per_base)."""
    order = sorted(range(len(pieces)), key=lambda p: pieces[p].span)
    group, width, total = [], 0, 0
    for p in order:
        n, w = len(pieces[p].codes), max(width, pieces[p].span)
        need = (total + n + 1) * per_base(w, total + n)
        if group and (need > capacity or w > 2 * max(width, 16)):
            yield group
            group, width, total = [], 0, 0
            w = pieces[p].span
        group.append(p)
        width, total = w, total + n
    if group:
        yield group


def cut(target: int, codes: np.ndarray, span: int, piece_bases: int) -> list:
    """A reversed target as pieces of at most ``piece_bases`` bases overlapping by span - 1, so that
    every window [i2, i2 + span) lies whole in one piece (the first that holds its start).

    >>> [(p.start, len(p.codes)) for p in cut(0, np.zeros(10, np.uint8), 3, 5)]
    [(0, 5), (3, 5), (6, 4)]
    """
    n = len(codes)
    if n <= piece_bases or span >= n:
        return [Piece(target, 0, codes, span)]
    step = max(1, piece_bases - span + 1)
    return [Piece(target, s, codes[s:s + piece_bases], span) for s in range(0, n - span + 1, step)]


def window_scores(a, S1band, targets, params, *, variant: str = "fused", sizes: "BPMaxSizes | None" = None,
                  record: "list | None" = None, timings: "dict | None" = None):
    """Every window score of query codes ``a`` against each reversed target in ``targets``.

    Returns one ``(win, folds)`` per target: ``win[i1, i2]`` = F(i1, i1 + L1 - 1, i2, i2 + L2 - 1) for
    every query window start i1 and every full target window row i2 < N - L2 + 1 (int32 units), and
    ``folds[i2]`` = S2(i2, i2 + L2 - 1), the window folded alone; (L1, L2) = ``params.spans(M, N)``.
    ``S1band``: the query's fold as a band at least L1 wide (_strands). ``variant``: "fused" or
    "banded-library" (the double reduction through the product library, _maxplus_gpu). ``sizes``: the
    launch sizes (None: ``_gpu_launch.SIZES``, read now). ``record``: a list that receives, per launch,
    (pieces, F, S2, Wb + 1) as host arrays, F[m, i2, e + 1] and S2[i2, e + 1] (band_rows; the tests'
    cell-by-cell check).
    ``timings``: a dict that accumulates the device seconds of the "products" and "finish" launches
    (bench/bpmax_gpu.py; each phase is then synchronised, which costs a little); where it holds a list
    "launches", each launch's (phase, seconds) is appended to it in order too.
    """
    cp = _gpu.require_gpu()
    sizes = sizes or _gpu_launch.SIZES
    M = len(a)
    L1 = params.spans(M, 1)[0]
    spans = [params.spans(M, len(rb))[1] for rb in targets]
    dtype = max((params.cell_dtype(M, len(rb)) for rb in targets), key=lambda d: np.dtype(d).itemsize,
                default=np.dtype(np.int16))
    capacity = int(_gpu.free_memory() * MEMORY_MARGIN)
    pieces = []
    short = np.dtype(dtype) == np.int16

    def launch_bytes(width, bases):     # what _launch allocates, per target base
        tile = _library_layout(dtype, max(bases, 1), width, sizes).tile if variant == "banded-library" else 0
        return bytes_per_base(M, L1, width, dtype, paired_copy(sizes, short, width, variant), tile)

    for t, (rb, span) in enumerate(zip(targets, spans)):
        per_base = launch_bytes(span, len(rb))
        fits = capacity // per_base - 1
        if len(rb) > fits and (span == len(rb) or fits < 2 * span):
            need = (len(rb) + 1) * per_base
            raise ResourceError(
                f"BPMax of {M:,} x {len(rb):,} nt needs about {format_bytes(need)} of GPU memory "
                f"{'without a target window ' if span == len(rb) else ''}but {format_bytes(capacity)} may be "
                f"used; give a (smaller) target window (--window-target 128, the svRNA studies' choice), or "
                f"use --backend cpu")
        pieces += cut(t, rb, span, max(min(sizes.piece or fits, fits), span))
    results = [(np.empty((M - L1 + 1, max(len(rb) - s + 1, 0)), np.int32),
                np.empty(max(len(rb) - s + 1, 0), np.int64)) for rb, s in zip(targets, spans)]

    @functools.cache
    def query():   # the query's arrays, uploaded once, behind the first group's fill: the device fills meanwhile
        return (cp.asarray(np.ascontiguousarray(a, dtype=np.uint8)),
                cp.asarray(np.ascontiguousarray(S1band[:, :L1], dtype=np.int32)),
                cp.asarray(params.pair_table().astype(np.int32).ravel()))

    for group in _launches(pieces, M, L1, dtype, capacity, launch_bytes):
        _launch([pieces[p] for p in group], query, M, L1, dtype, sizes, results, record, timings, variant)
    return results


def _launch(group, query, M, L1, dtype, sizes, results, record=None, timings=None, variant="fused"):
    """One launch group: the pieces back to back, every level, then the window scores into ``results``
    (``query()``: the query's codes, S1 and the pair table on the device)."""
    cp = _gpu.cupy()
    cell = _cell(dtype)
    lengths = [len(p.codes) for p in group]
    N = sum(lengths)
    Wb = max(p.span for p in group)
    RS = row_stride(Wb)
    n_mat = matrices(M, L1)
    stride = (N + 1) * RS
    # poisoned (an unwritten cell read would show), first: the host's uploads and set-up below run during the fill
    # (table_fill 0: cupy.full's fill, a cell a thread, 3.4 ms more of 23 x 20,000 nt, window 128, on an H200)
    F = _gpu.filled(n_mat * stride, sentinel(dtype), dtype, by_cell=not sizes.table_fill)
    S2 = _gpu.filled(stride, sentinel(dtype), dtype, by_cell=not sizes.table_fill)
    a_dev, S1d, pairs = query()
    rb = cp.asarray(np.concatenate([p.codes for p in group]).astype(np.uint8))
    span = np.zeros(N, np.int32)
    offset = 0
    for p, n in zip(group, lengths):
        span[offset:offset + n - p.span + 1] = p.span
        offset += n
    dims = (np.int32(M), np.int32(N), np.int32(L1), np.int32(Wb), np.int32(RS), np.int64(stride), pairs)

    finish = _timed(_finisher(rb, dims, M, N, Wb, dtype, sizes), timings, "finish")
    finish(S2, S2, 0, 1, self_=True)
    short = cell == "short"
    parts = products_lanes(sizes, short, Wb)
    paired = Paired(dims, first_matrix(M, L1), pairs_form(sizes, short, Wb, variant), _kernel("bpmax_pair_rows"),
                    lambda launch: _timed(launch, timings, "pairing"))
    if parts:             # packed, each cell's k2 split among `parts` lanes (band-following warps)
        tr, tc = sizes.split_rows, sizes.split_cols
        if sizes.split_pairs:   # a word one cell, its halves over the even and the odd k2
            stage = pairs_stage(sizes, parts)
            arguments = (tr, tc, sizes.split_chunk, parts, sizes.pairs_step, stage, sizes.pairs_blocks)
            name, threads = "bpmax_products_pairs", (tr // 4) * (tc // 4) * parts
        else:                   # two cells a word
            arguments = (tr, tc, sizes.split_chunk, parts, sizes.split_prefetch, sizes.split_own)
            name, threads = "bpmax_products_split", (tr // 4) * (tc // 8) * parts
    elif cell == "short":   # two cells per word, one DPX instruction per two updates
        tr, tc = sizes.packed_rows, sizes.packed_cols
        name, arguments, threads = "bpmax_products_packed", (tr, tc, sizes.chunk), (tr // 4) * (tc // 8)
    else:
        tr, tc = sizes.tile_rows, sizes.tile_cols
        name, arguments, threads = "bpmax_products", (cell, tr, tc, sizes.chunk), (tr // 4) * (tc // 4)
    if not sizes.products_skip and not parts:   # the form that also runs the tiles past the target (before
        name += "_unskipped"                    # issue 29's skip; the split kernel always skips)
    row_tiles = -(-N // tr)
    col_tiles = -(-(tr - 1 + Wb) // tc)
    if variant == "banded-library":
        products = _timed(_library_level(dtype, a_dev, rb, S1d, F, dims, M, N, Wb, n_mat, sizes),
                          timings, "products")
    else:
        products = _timed(_kernel(name, *arguments), timings, "products")
    for l1 in range(1, L1 + 1):
        mats = M - l1 + 1
        if variant == "banded-library":
            products(l1)
        else:
            products((mats * row_tiles * col_tiles,), (threads,),
                     (a_dev, rb, S1d, F, *dims, np.int32(l1), np.int32(col_tiles), np.int32(row_tiles),
                      *(paired.arguments(F) if name == "bpmax_products_pairs" else ())))
        finish(F, S2, first_matrix(M, l1), mats, self_=False)
        paired.write(F, l1, L1, first_matrix(M, l1), mats)
    gather = _kernel("bpmax_gather", cell)
    span_dev = cp.asarray(span)
    windows = M - L1 + 1
    first = first_matrix(M, L1)
    scores = cp.empty((windows + 1) * N, dtype=np.int32)   # the window scores, then the folds: one copy back
    gather((-(-windows * N // 256),), (256,), (F, *dims, np.int32(first), np.int32(windows), span_dev, scores))
    gather((-(-N // 256),), (256,), (S2, *dims, np.int32(0), np.int32(1), span_dev, scores[windows * N:]))
    if record is not None:
        record.append((group, band_rows(cp.asnumpy(F).reshape(n_mat, -1), N + 1, RS, Wb),
                       band_rows(cp.asnumpy(S2), N + 1, RS, Wb), Wb + 1))
    scores = _gpu.to_host(scores)
    win, folds = scores[:windows * N].reshape(windows, N), scores[windows * N:]
    offset = 0
    for p, n in zip(group, lengths):
        rows = n - p.span + 1
        out_win, out_folds = results[p.target]
        out_win[:, p.start:p.start + rows] = win[:, offset:offset + rows]
        out_folds[p.start:p.start + rows] = folds[offset:offset + rows]
        offset += n


def _library_level(dtype, a_dev, rb, S1d, F, dims, M, N, Wb, n_mat, sizes):
    """The terms of a level that read shorter query intervals, Gildemaster 2021's way: the previous
    level's matrices copied into the product library's tile-major pool, D as one library launch (a
    column of l1 - 1 banded products for each matrix of the level), then R3, R4, the strand-1 pair and
    the base case by a thread per cell. Returns ``level(l1)``."""
    cp = _gpu.cupy()
    layout = _library_layout(dtype, N, Wb, sizes)
    pool = library.padding_pool(n_mat, layout, xp=cp)
    I, _ = layout.tile_coordinates()
    starts = cp.asarray(np.searchsorted(I, np.arange(layout.tiles_per_side)).astype(np.int32))
    tile = (starts, np.int32(layout.tile), np.int32(layout.tiles))
    cell = _cell(dtype)
    to_tiles = _kernel("bpmax_to_tiles", cell)
    border = _kernel("bpmax_border", cell)

    def level(l1):
        mats = M - l1 + 1
        if l1 >= 2:
            below = M - l1 + 2
            to_tiles((-(-below * N * Wb // 256),), (256,),
                     (F, pool, *dims, np.int32(first_matrix(M, l1 - 1)), np.int32(below), *tile))
            g, k = np.meshgrid(np.arange(mats), np.arange(l1 - 1), indexing="ij")
            a_index = (first_matrix(M, k + 1) + g).astype(np.int32)                  # F(i1, k1): m(g, k + 1)
            b_index = (first_matrix(M, l1 - k - 1) + g + k + 1).astype(np.int32)    # F(k1+1, j1): m(g+k+1, l1-k-1)
            c_index = (first_matrix(M, l1) + np.arange(mats)).astype(np.int32)
            library.banded_products(pool, pool, pool, cp.asarray(a_index), cp.asarray(b_index),
                                    cp.asarray(c_index), layout, accumulate=False)
        border((-(-mats * (N + 1) * (Wb + 1) // 256),), (256,),
               (a_dev, rb, S1d, F, pool, *dims, np.int32(l1), *tile))
    return level


def _library_layout(dtype, N, Wb, sizes):
    """The product library's layout of the banded-library variant's pool (N target bases, band Wb)."""
    return library.band_layout(N, Wb, dtype=np.dtype(dtype).name, tile=sizes.library_tile or None)


def _timed(launch, timings, key):
    """``launch`` itself, or with ``timings`` a wrapper adding its device time to ``timings[key]``."""
    if timings is None:
        return launch
    cp = _gpu.cupy()

    def timed(*args, **kwargs):
        start, stop = cp.cuda.Event(), cp.cuda.Event()
        start.record()
        launch(*args, **kwargs)
        stop.record()
        stop.synchronize()
        seconds = cp.cuda.get_elapsed_time(start, stop) / 1e3
        timings[key] = timings.get(key, 0.0) + seconds
        if "launches" in timings:   # bench/bpmax_gpu_sizes.py --levels: each launch in order
            timings["launches"].append((key, seconds))
    return timed
