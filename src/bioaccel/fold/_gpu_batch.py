"""Many sequences folded together on the GPU (variant ``tiled``): binned by length, many per launch.

The sequences arrive back to back (uint8 codes on the device, ``starts`` on the host: sequence k is
``codes[starts[k]:starts[k + 1]]``) and the results leave the same way: one score per sequence, and
``pair_to`` and the dot-bracket letters at each sequence's own place. Nothing is copied per sequence;
the host loops over bins, never over sequences.

* up to ``SIZES.batch_shared_max`` nt: one block per sequence, the whole table in shared memory,
  traceback by the same block (kernels/nussinov_batch.cu); one launch per bin of block widths. The
  kernel is batch_fold_x2t (row and column copies, a 2 x 2 tile of cells a thread, two splits per DPX
  instruction, int8 cells where every V <= 127, else int16 to 16,383; batch_fold_x2, a thread a cell,
  with ``SHORT_KERNEL = "x2"``; the others of :data:`SHORT_KERNELS`, measured slower, for A/B), b1's
  batch_fold past that or with ``SHORT_KERNEL = "b1"``.
* up to ``BATCH_TILED_MAX`` nt: the tiled fill's kernels (kernels/nussinov_tiled.cu) with a batch index:
  a bin's tables back to back, each launch one tile diagonal of every table (the products' maxima into
  the tiles, the sub-tiled finish: issue 29), then one traceback block per table.
* longer: one at a time, the split-K tiled fill on two streams (:mod:`._gpu_tiled`, through
  :mod:`._gpu_fill`).

Every path gives the CPU's scores and structures (the traceback rule of fold/_traceback.py).
"""
import math
from dataclasses import dataclass

import numpy as np

from ..runtime import gpu as _gpu
from ..errors import InternalError
from . import _launch
from ._gpu_fill import check_fits
from ._gpu_table import POISON, kernel, pair_model, score_units, trace_structure
from ._gpu_tiled import bulk_kernel, fill_tiled, finish_shared_bytes, tiles_per_side

#: Longest sequence folded in a tiled batch; longer ones fill the GPU on their own.
BATCH_TILED_MAX = 6000
#: Device bytes the tables of one tiled launch group may take.
BATCH_TABLE_BYTES = 4 << 30
#: Most tables in one tiled launch group (gridDim.y of the bulk and finish launches).
MAX_GRID_Y = 65_535
#: The shared-memory kernel of short sequences: "x2t" (batch_fold_x2t: a 2 x 2 tile of cells a thread,
#: issue 29, 2026-11-27), "x2" (batch_fold_x2: a thread a cell, row and column copies, two splits a DPX
#: instruction), "x4t" (batch_fold_x4t: a 4 x 4 tile a thread), "x2tr", "x4tr" (with turns, see
#: SHORT_KERNELS) or "b1" (batch_fold: a thread per cell, one split at a time), all but x2t kept for A/B
#: (docs/gpu-notes.md: x4t 1.54x, x2tr 1.47x, x4tr 2.3x slower than x2t at 1M x 200 nt on an H100).
SHORT_KERNEL = "x2t"
#: Preferred shared-memory carveout (percent) of the shared-memory kernels, None: the driver's choice.
#: Not measured yet (docs/gpu-notes.md, issue 29): the bench's setting ``x2c`` sets it to 100.
SHARED_CARVEOUT = None
#: Blocks an SM that batch_fold_x4t is compiled for (its __launch_bounds__): four tables of 200 nt (47.5 KB
#: each) fit in an H100 SM's shared memory.
X4T_MIN_BLOCKS = 4
#: Largest V that batch_fold_x2 holds in int8 and in int16 cells (empty cells -128 and -16384: a sum
#: with an empty operand stays below 0, two empty ones within int16).
X2_MAX_SCORE = (127, 16_383)


@dataclass
class PackedFolds:
    """The folds of a batch on the device: ``scores`` (int32 units, one per sequence), ``pair_to``
    (int32, partner or -1) and ``chars`` (uint8 dot-bracket letters), each of the last two the length
    of all sequences together, sequence k at ``starts[k]:starts[k + 1]``."""

    scores: object
    pair_to: object
    chars: object
    status: object = None       # int32 on the device: non-zero where a traceback failed (check_packed)


def shared_bytes(n):
    """Dynamic shared memory of batch_fold for an n-long sequence: table, then stack.

    >>> shared_bytes(200)
    42224
    """
    N = n + 1
    return (N * (N + 1) + 15) // 16 * 16 + (N + 1) * 8


def x2_shared_bytes(n, cell="signed char"):
    """Dynamic shared memory of batch_fold_x2 for an n-long sequence: the row and column copies (chunk
    by chunk, 16 bytes a chunk of a row or column), the traceback stack, the pair model, the codes
    (kernels/nussinov_batch.cu, X2Layout).

    >>> x2_shared_bytes(200), x2_shared_bytes(200, "short"), x2_shared_bytes(255)
    (46720, 88320, 71775)
    """
    per = 16 if cell == "signed char" else 8                  # cells a chunk
    full, chunks = n // per, (n + per) // per
    rows = per * full * (full + 1) // 2 + (chunks - full) * n          # chunks = full + 1: the last one n rows
    col_chunks = (n - 1) // per + 1
    cols = col_chunks * n - per * col_chunks * (col_chunks - 1) // 2
    return 16 * (rows + cols) + 8 * (n + 2) + 4 * 26 + n


def xt_shared_bytes(n, cell="signed char", edge=2):
    """Dynamic shared memory of batch_fold_x2t (``edge`` 2) or batch_fold_x4t (4) for an n-long sequence:
    row blocks of CH (k + 1) rows and column blocks of columns CH k .. n by residue mod ``edge``, 16 bytes
    a chunk (kernels/nussinov_batch.cu, XTLayout), then the traceback stack, the pair model, the codes.

    >>> xt_shared_bytes(200), xt_shared_bytes(200, "short"), xt_shared_bytes(255)
    (47056, 88864, 72047)
    >>> xt_shared_bytes(200, edge=4), xt_shared_bytes(200, "short", 4), xt_shared_bytes(255, edge=4)
    (47472, 89696, 72047)
    """
    per = 16 if cell == "signed char" else 8                  # cells a chunk
    chunks = n // per + 1
    rows = per * chunks * (chunks + 1) // 2
    cols = chunks * ((edge - 1) * (n // edge + 1) + (n + 1) // edge) - per * chunks * (chunks - 1) // 2
    return 16 * (rows + cols) + 8 * (n + 2) + 4 * 26 + n


def tile_threads(lengths, sizes, edge=2):
    """Threads of the batch_fold_x2t (``edge`` 2) or batch_fold_x4t (4) block of each length: one for each
    of the n // edge tiles of the first tile-diagonal, in whole warps, at most ``sizes.batch_threads``
    (fewer: the kernel folds in rounds).

    >>> tile_threads(np.array([2, 33, 200, 256]), _launch.SIZES).tolist()
    [32, 32, 128, 128]
    >>> tile_threads(np.array([2, 33, 200, 256]), _launch.SIZES, 4).tolist()
    [32, 32, 64, 64]
    """
    return np.minimum(sizes.batch_threads, np.maximum(32, (lengths // edge + 31) // 32 * 32))


def block_threads(lengths, sizes):
    """Threads of the batch_fold block of each length: one per cell of the widest diagonal computed
    (n - 1 cells), in whole warps, at most ``sizes.batch_threads``.

    >>> block_threads(np.array([2, 33, 200, 900]), _launch.SIZES).tolist()
    [32, 32, 224, 928]
    """
    return np.minimum(sizes.batch_threads, np.maximum(32, (lengths - 1 + 31) // 32 * 32))


def _bins(keys, ids):
    """``(key, ids with that key)`` for each distinct key, ids in input order within a bin."""
    if len(keys) and keys.min() == keys.max():          # one bin (a million of one length: no sort)
        return [(int(keys[0]), ids)]
    order = np.argsort(keys, kind="stable")
    keys, ids = keys[order], ids[order]
    cuts = np.flatnonzero(np.diff(keys)) + 1
    return [(int(k[0]), part) for k, part in zip(np.split(keys, cuts), np.split(ids, cuts))]


#: The shared-memory kernels by name: (file, kernel, layout of its shared memory, its block widths, turns).
#: "r": the blocks of an SM take turns at which warp folds the first tiles (kernels/nussinov_batch.cu).
SHORT_KERNELS = {"x2": ("nussinov_batch.cu", "batch_fold_x2", "x2", "x2", None),
                 "x2t": ("nussinov_batch.cu", "batch_fold_x2t", "x2t", "x2t", False),
                 "x2tr": ("nussinov_batch.cu", "batch_fold_x2t", "x2t", "x2t", True),
                 "x4t": ("nussinov_batch_x4t.cu", "batch_fold_x4t", "x4t", "x4t", False),
                 "x4tr": ("nussinov_batch_x4t.cu", "batch_fold_x4t", "x4t", "x2t", True)}
#: Counters of the turns (kernels/nussinov_batch.cu, SM_TURNS), by the device's number.
SM_TURNS = 1024
_turns = {}


def short_shared_bytes(name, n, cell):
    """Dynamic shared memory of the shared-memory kernel ``name`` for an n-long sequence.

    >>> short_shared_bytes("x4tr", 200, "signed char") == xt_shared_bytes(200, edge=4)
    True
    """
    layout = SHORT_KERNELS[name][2]
    return x2_shared_bytes(n, cell) if layout == "x2" else xt_shared_bytes(n, cell, 4 if layout == "x4t" else 2)


def short_threads(name, lengths, sizes):
    """Block width of the shared-memory kernel ``name`` for each length.

    >>> short_threads("x4t", np.array([200]), _launch.SIZES).tolist(), short_threads("x4tr", np.array([200]), _launch.SIZES).tolist()
    ([64], [128])
    """
    widths = SHORT_KERNELS[name][3]
    return block_threads(lengths, sizes) if widths == "x2" else tile_threads(lengths, sizes, 4 if widths == "x4t" else 2)


def short_kernel_arguments(name, cell, sizes):
    """``(file, kernel, template arguments)`` of the shared-memory kernel ``name`` with ``cell``.

    >>> short_kernel_arguments("x4tr", "signed char", _launch.SIZES)
    ('nussinov_batch_x4t.cu', 'batch_fold_x4t', (128, 4, 'signed char', True))
    """
    filename, function, _, _, turns = SHORT_KERNELS[name]
    widest = int(short_threads(name, np.array([sizes.batch_shared_max]), sizes)[0])
    if function == "batch_fold_x2":
        return filename, function, (widest, cell)
    if function == "batch_fold_x2t":
        return filename, function, (widest, cell, turns)
    return filename, function, (widest, X4T_MIN_BLOCKS, cell, turns)


def _short_kernel(name, cell, sizes):
    """The kernel object of a shared-memory kernel: b1 (``cell`` None), else ``name`` with ``cell``."""
    if cell is None:
        return kernel("nussinov_batch.cu", "batch_fold", sizes.batch_threads)
    filename, function, arguments = short_kernel_arguments(name, cell, sizes)
    return kernel(filename, function, *arguments)


def _fold_shared(cp, codes_dev, starts_dev, ids, lengths, pm, out, status, walk, cell=None, name=SHORT_KERNEL):
    """Shared-memory bins: b1 (``cell`` None), or with ``cell`` ("short", "signed char") the kernel ``name``."""
    sizes = _launch.SIZES
    fold = _short_kernel(name, cell, sizes)
    if cell is None:
        widths, shared_of, extra = block_threads(lengths[ids], sizes), shared_bytes, ()
    else:
        widths, shared_of = short_threads(name, lengths[ids], sizes), lambda n: short_shared_bytes(name, n, cell)
        device = cp.cuda.Device().id
        if device not in _turns:
            _turns[device] = cp.zeros(SM_TURNS, dtype=np.uint32)
        extra = (_turns[device],)
    for threads, bin_ids in _bins(widths, ids):
        shared = shared_of(int(lengths[bin_ids].max()))
        fold.max_dynamic_shared_size_bytes = shared
        if SHARED_CARVEOUT is not None:
            fold.preferred_shared_memory_carveout = SHARED_CARVEOUT
        fold((len(bin_ids),), (threads,), (codes_dev, starts_dev, cp.asarray(bin_ids.astype(np.int32)), pm,
                                           np.int32(walk), out.scores, out.pair_to, out.chars, status) + extra,
             shared_mem=shared)


def tiled_bytes(n, itemsize, tile, form="sub"):
    """Device bytes of one table of a tiled batch: table, stack, ("wavefront") one row of int32 scratch tiles."""
    nt = tiles_per_side(n, tile)
    scratch = nt * tile * tile * 4 if form == "wavefront" else 0
    return nt * (nt + 1) // 2 * tile * tile * itemsize + scratch + (n + 2) * 8


def _fold_tiled(cp, codes_dev, starts_dev, ids, lengths, params, pm, out, status, walk):
    sizes = _launch.SIZES
    T = sizes.batch_tile
    for nt, bin_ids in _bins((lengths[ids] + T) // T, ids):          # tiles_per_side, vectorised
        dtype = params.cell_dtype(int(lengths[bin_ids].max()))
        per_table = tiled_bytes(int(lengths[bin_ids].max()), dtype.itemsize, T, sizes.batch_finish)
        group = max(1, min(MAX_GRID_Y, BATCH_TABLE_BYTES // per_table))
        for first in range(0, len(bin_ids), group):
            _fold_tiled_group(cp, codes_dev, starts_dev, bin_ids[first:first + group], lengths, nt, dtype,
                              pm, out, status, walk)


def _fold_tiled_group(cp, codes_dev, starts_dev, ids, lengths, nt, dtype, pm, out, status, walk):
    """One launch group: ``len(ids)`` tables of ``nt`` tiles per side, filled tile diagonal by tile
    diagonal (all products of a tile in one block, then the finish), then traced back. SIZES.batch_finish
    "sub": the products' maxima go into the tile's own cells (batch_bulk_direct, from d = 1: its zeros),
    tiles off the diagonal finish sub-tiled (batch_finish_sub), those on it by batch_finish_diag; "wavefront" (before issue 29): maxima in
    int32 scratch tiles by atomicMax, every tile finished wavefront by wavefront (batch_finish)."""
    sizes = _launch.SIZES
    T, tag, count = sizes.batch_tile, "short" if dtype == np.int16 else "int", len(ids)
    table_cells = nt * (nt + 1) // 2 * T * T
    scratch_cells = 0 if (sub := sizes.batch_finish == "sub") else nt * T * T
    # "sub": no poison (a cell read before it is written, below a diagonal tile's diagonal or past the end, only ever reaches cells past the end)
    tables = cp.empty(count * table_cells, dtype=dtype) if sub else cp.full(count * table_cells, POISON, dtype=dtype)
    scratch = cp.zeros(max(1, count * scratch_cells), dtype=np.int32)
    ids_dev, stage = cp.asarray(ids.astype(np.int32)), sizes.batch_stage_bytes if dtype == np.int16 else 0
    bulk, bulk_shared = bulk_kernel(dtype, T, stage or None, "batch_bulk_direct" if sub else "batch_bulk",
                                    _launch.batch_lanes(sizes.int16_lanes))
    finish_shared, sub_shared = finish_shared_bytes(dtype, T), finish_shared_bytes(dtype, T, "sub")
    tight = (sizes.batch_closure,) if sizes.batch_closure and tag == "short" else ()   # batch_finish_sub_tight's form
    finish, finish_sub = kernel("nussinov_tiled.cu", "batch_finish", tag, T), kernel("nussinov_tiled.cu", (
        "batch_finish_sub_tight" if tight else "batch_finish_sub"), tag, T, _launch.finish_sub_blocks(sub_shared), *tight)
    finish.max_dynamic_shared_size_bytes, finish_sub.max_dynamic_shared_size_bytes = finish_shared, sub_shared
    if diag := sub and sizes.batch_diagonal:      # d = 0 by batch_finish_diag (8 blocks an SM at 64-tiles)
        finish, finish_shared = (kernel("nussinov_tiled.cu", "batch_finish_diag", tag, T, _launch.finish_diag_blocks(T)),
                                 _launch.diag_shared_bytes(T, dtype.itemsize))
        finish.max_dynamic_shared_size_bytes = finish_shared
    nt_, tc, sc, trace = np.int32(nt), np.int64(table_cells), np.int64(scratch_cells), kernel("nussinov_traceback.cu", "batch_traceback", tag, T)
    stack = cp.empty((count, int(lengths[ids].max()) + 2, 2), dtype=np.int32)
    # SIZES.batch_streams > 1: the tables in parts, each on its own stream (measured no faster, issue 29)
    parts = np.array_split(np.arange(count), max(1, min(sizes.batch_streams, count)))
    caller = cp.cuda.get_current_stream()
    streams = [caller] if len(parts) == 1 else [cp.cuda.Stream(non_blocking=True) for _ in parts]
    begin, views = caller.record(), []
    for stream, part in zip(streams, parts):
        a, b = int(part[0]), int(part[-1]) + 1
        stream.wait_event(begin)
        acc = scratch[a * scratch_cells:b * scratch_cells] if scratch_cells else scratch
        views.append((stream, b - a, tables[a * table_cells:b * table_cells], acc, ids_dev[a:b], stack[a:b]))
    for d, d_ in ((d, np.int32(d)) for d in range(nt)):
        for stream, size, V, acc, part_ids, _ in views:
            with stream:
                if sub and d >= 1:
                    bulk((nt - d, size), ((T // 8) ** 2,), (V, V, nt_, d_, tc), shared_mem=bulk_shared)
                    finish_sub((nt - d, size), (2 * T,), (V, codes_dev, starts_dev, part_ids, pm, nt_, d_, tc),
                               shared_mem=sub_shared)
                    continue
                if diag:
                    finish((nt, size), (T * 4,), (V, codes_dev, starts_dev, part_ids, pm, nt_, tc), shared_mem=finish_shared)
                    continue
                if d >= 2:
                    bulk((nt - d, size), ((T // 8) ** 2,), (V, acc, nt_, d_, tc, sc), shared_mem=bulk_shared)
                finish((nt - d, size), (T * 4,), (V, acc, codes_dev, starts_dev, part_ids, pm, nt_, d_, tc, sc),
                       shared_mem=finish_shared)
    for stream, size, V, _, part_ids, part_stack in views:
        with stream:
            trace((size,), (sizes.batch_traceback_threads,),
                  (V, tc, nt_, part_ids, starts_dev, codes_dev, pm, np.int32(walk), part_stack, np.int32(stack.shape[1]),
                   out.scores, out.pair_to, out.chars, status))
        if stream is not caller:
            caller.wait_event(stream.record())


def _fold_alone(cp, codes_dev, starts, ids, params, pm, out, walk):
    """Sequences too long for a batch: one at a time, each filling the GPU."""
    from ._traceback import dot_bracket        # (the CPU traceback module: imported only when needed)

    for k in ids.tolist():
        a, b = int(starts[k]), int(starts[k + 1])
        check_fits(b - a, "tiled", params)
        table = fill_tiled(codes_dev[a:b], b - a, params, pm)
        out.scores[k] = score_units(table)
        if walk:
            pair_to = trace_structure(table, codes_dev[a:b], pm)
            out.pair_to[a:b] = cp.asarray(pair_to)
            out.chars[a:b] = cp.asarray(np.frombuffer(dot_bracket(pair_to).encode("ascii"), dtype=np.uint8))
        del table
        cp.get_default_memory_pool().free_all_blocks()


def fold_packed(codes_dev, starts, params, *, traceback=True, check=True) -> PackedFolds:
    """Fold every sequence of a packed batch (``codes_dev`` on the device, ``starts`` int64 on the host,
    one more than the sequences); device arrays of scores, pair_to and dot-bracket letters (the last two
    left at -1 and '.' with ``traceback=False``). ``check=False``: return once the launches are queued
    (sequences up to BATCH_TILED_MAX nt), the caller checks later with :func:`check_packed`."""
    cp = _gpu.require_gpu()
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(starts)
    total = int(starts[-1]) if len(starts) else 0
    out = PackedFolds(scores=cp.asarray(np.where(lengths < 2, 0, -1).astype(np.int32)),   # < 2 nt: no pair
                      pair_to=cp.full(max(total, 1), -1, dtype=np.int32),
                      chars=cp.full(max(total, 1), ord("."), dtype=np.uint8))
    if codes_dev.size == 0:
        codes_dev = cp.zeros(1, dtype=np.uint8)
    pm, starts_dev, status = pair_model(cp, params), cp.asarray(starts), cp.zeros(1, dtype=np.int32)
    out.status, walk, ids = status, bool(traceback), np.arange(len(lengths))
    # int16 cells hold every score of these lengths (FoldParams.cell_dtype, vectorised)
    in_int16 = (lengths // 2) * int(params.pair_table().max()) <= np.iinfo(np.int16).max
    shared = (lengths >= 2) & (lengths <= _launch.SIZES.batch_shared_max) & in_int16
    tiled = (lengths >= 2) & ~shared & (lengths <= BATCH_TILED_MAX)
    alone = (lengths >= 2) & ~shared & ~tiled
    if SHORT_KERNEL in SHORT_KERNELS:
        score = (lengths // 2) * int(params.pair_table().max())
        byte, short = shared & (score <= X2_MAX_SCORE[0]), shared & (score > X2_MAX_SCORE[0]) & (score <= X2_MAX_SCORE[1])
        parts = ((shared & ~byte & ~short, None), (byte, "signed char"), (short, "short"))
    else:
        parts = ((shared, None),)
    for part, cell in parts:
        if part.any():
            _fold_shared(cp, codes_dev, starts_dev, ids[part], lengths, pm, out, status, walk, cell, SHORT_KERNEL)
    if tiled.any():
        _fold_tiled(cp, codes_dev, starts_dev, ids[tiled], lengths, params, pm, out, status, walk)
    if alone.any():
        _fold_alone(cp, codes_dev, starts, ids[alone], params, pm, out, walk)
    if check:
        check_packed(out)
    return out


def check_packed(out, *, units=None, stream=None) -> None:
    """Raise InternalError where a batch's traceback failed or a sequence got no score (waits for the
    batch's launches, or for ``stream``). ``units``: the scores already copied to the host, checked there.

    >>> check_packed(PackedFolds(np.zeros(2, np.int32), None, None, np.zeros(1, np.int32)))
    >>> check_packed(PackedFolds(None, None, None, np.ones(1, np.int32)), units=np.zeros(2))
    Traceback (most recent call last):
    bioaccel.errors.InternalError: internal error: the GPU batch traceback found a table value no split ...
    """
    status = out.status if isinstance(out.status, np.ndarray) else out.status.get(stream=stream)
    if int(status[0]) != 0:
        raise InternalError("the GPU batch traceback found a table value no split reproduces")
    if bool((out.scores < 0 if units is None else units < 0).any()):
        raise InternalError("the GPU batch left a sequence without a score")


def fold_list(codes_list, params, *, traceback=True) -> list:
    """``[(score in units, pair_to or None)]`` of each sequence (uint8 codes), for FoldResult objects.

    The folding is :func:`fold_packed`; only the split into per-sequence arrays loops in Python.
    """
    cp = _gpu.require_gpu()
    lengths = np.fromiter(map(len, codes_list), dtype=np.int64, count=len(codes_list))
    starts = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    joined = np.concatenate(codes_list).astype(np.uint8) if len(codes_list) else np.zeros(0, np.uint8)
    out = fold_packed(cp.asarray(joined), starts, params, traceback=traceback)
    scores = cp.asnumpy(out.scores).tolist()
    if not traceback:
        return [(s, None) for s in scores]
    pair_to = cp.asnumpy(out.pair_to)
    return [(s, pair_to[starts[k]:starts[k + 1]].copy()) for k, s in enumerate(scores)]


def ceiling_fraction(lengths, seconds, ceiling=30.8e12):
    """Useful updates (n^3 / 6 per sequence) per second over the int16x2 DPX ceiling of limits.md.

    >>> round(ceiling_fraction([26_000], 0.095), 2)
    1.0
    """
    work = float(np.sum(np.asarray(lengths, dtype=np.float64) ** 3)) / 6
    return work / seconds / ceiling if seconds > 0 else math.inf
