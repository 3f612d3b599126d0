"""The tiled batch of :mod:`._gpu_batch`: sequences of a few hundred to BATCH_TILED_MAX nt, many tables a launch.

A bin's tables lie back to back; each launch is one tile diagonal of every table (the products' maxima
into the tiles, the sub-tiled finish: issue 29), then one traceback block per table
(kernels/nussinov_tiled.cu, kernels/nussinov_traceback.cu).

The host's work before the first launch holds the GPU idle (issue 29, helper nbhost: 1.35-2.6 ms of a
32 ms fold of 2,000 x 1,000 nt), so a group's kernels are looked up, and their shared-memory limits set,
once per launch sizes and cell type (:func:`tiled_kernels`), and a group launches the diagonal's finish
first: what the traceback alone needs (the stack, the letters' fill: ``ready``) is made while it runs
(with the one upload of fold/_gpu_upload.py: 1.32-1.60 ms before the first kernel became 0.36-0.39 ms).
"""
import functools
from dataclasses import dataclass

import numpy as np

from . import _launch
from ._gpu_table import POISON, kernel
from ._gpu_tiled import bulk_kernel, finish_shared_bytes, tiles_per_side

#: Device bytes the tables of one tiled launch group may take.
BATCH_TABLE_BYTES = 4 << 30
#: Most tables in one tiled launch group (gridDim.y of the bulk and finish launches).
MAX_GRID_Y = 65_535


def tiled_bytes(n, itemsize, tile, form="sub"):
    """Device bytes of one table of a tiled batch: table, stack, ("wavefront") one row of int32 scratch tiles.

    >>> tiled_bytes(1000, 2, 64)
    1122128
    """
    nt = tiles_per_side(n, tile)
    scratch = nt * tile * tile * 4 if form == "wavefront" else 0
    return nt * (nt + 1) // 2 * tile * tile * itemsize + scratch + (n + 2) * 8


def bins(keys, ids):
    """``(key, ids with that key)`` for each distinct key, ids in input order within a bin.

    >>> [(k, b.tolist()) for k, b in bins(np.array([3, 1, 3]), np.arange(3))], bins(np.zeros(0), np.zeros(0))
    ([(1, [1]), (3, [0, 2])], [])
    """
    if not len(keys):
        return []
    if keys.min() == keys.max():                        # one bin (a million of one length: no sort)
        return [(int(keys[0]), ids)]
    order = np.argsort(keys, kind="stable")
    keys, ids = keys[order], ids[order]
    cuts = np.flatnonzero(np.diff(keys)) + 1
    return [(int(k[0]), part) for k, part in zip(np.split(keys, cuts), np.split(ids, cuts))]


def tiled_groups(ids, lengths, params, sizes, widest):
    """``(nt, dtype, group ids)`` of each launch group: the ids binned by tiles per side, each bin cut into
    groups of at most BATCH_TABLE_BYTES of tables and MAX_GRID_Y tables. ``widest``: the largest pair
    weight in units (a bin's cells int16 where (n // 2) widest fits, as FoldParams.cell_dtype says).

    >>> from bioaccel.fold import FoldParams
    >>> [(nt, str(dtype), g.tolist()) for nt, dtype, g in tiled_groups(np.arange(3), np.array([300, 1000, 310]),
    ...                                                                  FoldParams(), _launch.SIZES, 1)]
    [(5, 'int16', [0, 2]), (16, 'int16', [1])]
    """
    T = sizes.batch_tile
    groups = []
    for nt, bin_ids in bins((lengths[ids] + T) // T, ids):          # tiles_per_side, vectorised
        longest = int(lengths[bin_ids].max())
        fits = (longest // 2) * widest <= np.iinfo(np.int16).max
        dtype = np.dtype(np.int16) if fits else params.cell_dtype(longest)
        per_table = tiled_bytes(longest, dtype.itemsize, T, sizes.batch_finish)
        group = max(1, min(MAX_GRID_Y, BATCH_TABLE_BYTES // per_table))
        groups += [(nt, dtype, bin_ids[first:first + group]) for first in range(0, len(bin_ids), group)]
    return groups


def trace_shared_bytes(walk, longest):
    """Dynamic shared memory of batch_traceback: walk 6 holds the pair model (26 int32) and the longest
    sequence's codes (kernels/nussinov_traceback.cu), the others none.

    >>> trace_shared_bytes(6, 1000), trace_shared_bytes(5, 1000)
    (1104, 0)
    """
    return (26 * 4 + longest + 15) // 16 * 16 if walk == 6 else 0


@dataclass
class TiledKernels:
    """The kernels of a tiled launch group, their shared-memory limits already set: ``first`` finishes the
    diagonal d = 0 (batch_finish_diag, or batch_finish_sub_diag where SIZES.batch_diagonal is 2; batch_finish
    where it is off or in the "wavefront" form) with ``first_threads`` a block, ``finish`` the tiles off it
    ("sub": batch_finish_sub or its tight form; "wavefront": batch_finish)."""

    sub: bool
    diag: bool
    bulk: object
    bulk_shared: int
    first: object
    first_shared: int
    first_threads: int
    finish: object
    finish_shared: int
    trace: object


@functools.lru_cache(maxsize=None)
def tiled_kernels(sizes, tag) -> TiledKernels:
    """The :class:`TiledKernels` of launch sizes ``sizes`` and cells ``tag`` ("short", "int"), compiled on
    first use and kept: a fold looks nothing up and sets no attribute again. Only what is launched is
    compiled (batch_finish is not, where batch_finish_diag replaces it).

    >>> tiled_kernels.cache_info().maxsize is None
    True
    """
    T = sizes.batch_tile
    dtype = np.dtype(np.int16 if tag == "short" else np.int32)
    sub = sizes.batch_finish == "sub"
    diag = sub and bool(sizes.batch_diagonal)
    stage = sizes.batch_stage_bytes if tag == "short" else 0
    bulk, bulk_shared = bulk_kernel(dtype, T, stage or None, "batch_bulk_direct" if sub else "batch_bulk",
                                    _launch.batch_lanes(sizes.int16_lanes))
    first_threads = 4 * T
    closure = sizes.batch_closure if tag == "short" else 0      # batch_finish_sub_tight's form (0: batch_finish_sub)
    if diag and sizes.batch_diagonal == 2:     # d = 0 sub-tiled: the triangles, then the closure of the form
        first_shared = finish_shared_bytes(dtype, T, "sub-diagonal")
        # the closure's form without the far products taken ahead (batch_closure 8 is form 4 and them): the
        # diagonal's sub-wavefronts are its own loop
        first = kernel("nussinov_tiled.cu", "batch_finish_sub_diag", tag, T, _launch.finish_sub_blocks(first_shared),
                       _launch.closure_base_form(closure, "batch"))
        first_threads = 2 * T
    elif diag:                                 # d = 0 by batch_finish_diag (8 blocks an SM at 64-tiles)
        first = kernel("nussinov_tiled.cu", "batch_finish_diag", tag, T, _launch.finish_diag_blocks(T))
        first_shared = _launch.diag_shared_bytes(T, dtype.itemsize)
    else:
        first = kernel("nussinov_tiled.cu", "batch_finish", tag, T)
        first_shared = finish_shared_bytes(dtype, T)
    first.max_dynamic_shared_size_bytes = first_shared
    if sub:
        finish_shared = finish_shared_bytes(dtype, T, "sub")
        blocks = _launch.finish_sub_blocks(finish_shared)
        if closure:                                          # batch_finish_sub_tight's form
            finish = kernel("nussinov_tiled.cu", "batch_finish_sub_tight", tag, T, blocks,
                            _launch.closure_form(closure, "batch"))
        else:
            finish = kernel("nussinov_tiled.cu", "batch_finish_sub", tag, T, blocks)
        finish.max_dynamic_shared_size_bytes = finish_shared
    else:
        finish, finish_shared = first, first_shared
    trace = kernel("nussinov_traceback.cu", "batch_traceback", tag, T, sizes.batch_walk)
    return TiledKernels(sub, diag, bulk, bulk_shared, first, first_shared, first_threads, finish, finish_shared, trace)


def fold_tiled_group(cp, codes_dev, starts_dev, ids_dev, longest, nt, dtype, pm, out, walk, ready):
    """One launch group: ``len(ids_dev)`` tables of ``nt`` tiles per side, filled tile diagonal by tile
    diagonal (all products of a tile in one block, then the finish), then traced back. SIZES.batch_finish
    "sub": the products' maxima go into the tile's own cells (batch_bulk_direct, from d = 1: its zeros),
    tiles off the diagonal finish sub-tiled (batch_finish_sub), those on it too (batch_finish_sub_diag; SIZES.
    batch_diagonal 1: batch_finish_diag, the wavefront finish);
    "wavefront" (before issue 29): maxima in int32 scratch tiles by atomicMax, every tile finished
    wavefront by wavefront (batch_finish). ``ready()`` is called once the first launch is queued, before
    the traceback: the caller's work that only the traceback waits for (``out``'s arrays, made then)."""
    sizes = _launch.SIZES
    T = sizes.batch_tile
    count = len(ids_dev)
    k = tiled_kernels(sizes, "short" if dtype == np.int16 else "int")
    threads = sizes.batch_traceback_threads
    table_cells = nt * (nt + 1) // 2 * T * T
    scratch_cells = 0 if k.sub else nt * T * T
    # "sub": no poison (a cell read before it is written, below a diagonal tile's diagonal or past the end,
    # only ever reaches cells past the end)
    if k.sub:
        tables = cp.empty(count * table_cells, dtype=dtype)
    else:
        tables = cp.full(count * table_cells, POISON, dtype=dtype)
    nt_ = np.int32(nt)
    tc = np.int64(table_cells)
    sc = np.int64(scratch_cells)
    # SIZES.batch_streams > 1: the tables in parts, each on its own stream (measured no faster, issue 29)
    ways = max(1, min(sizes.batch_streams, count))
    caller = cp.cuda.get_current_stream()
    if k.diag and ways == 1:
        # the diagonal's finish needs only the tables and the uploads: launched before anything else is made
        k.first((nt, count), (k.first_threads,), (tables, codes_dev, starts_dev, ids_dev, pm, nt_, tc),
                shared_mem=k.first_shared)
        ready()
        first_d = 1
        streams = [caller]
    else:
        ready()
        first_d = 0
        streams = [caller] if ways == 1 else [cp.cuda.Stream(non_blocking=True) for _ in range(ways)]
        begin = caller.record()
        for stream in streams:
            stream.wait_event(begin)
    scratch = cp.zeros(max(1, count * scratch_cells), dtype=np.int32)
    stack = cp.empty((count, longest + 2, 2), dtype=np.int32)
    views = []
    a = 0
    for j, stream in enumerate(streams):          # as np.array_split: the first count % ways parts one longer
        b = a + count // ways + (j < count % ways)
        acc = scratch[a * scratch_cells:b * scratch_cells] if scratch_cells else scratch
        views.append((stream, b - a, tables[a * table_cells:b * table_cells], acc, ids_dev[a:b], stack[a:b]))
        a = b
    for d in range(first_d, nt):
        d_ = np.int32(d)
        for stream, size, V, acc, part_ids, _ in views:
            with stream:
                _launch_diagonal(k, d, d_, nt, size, T, V, acc, codes_dev, starts_dev, part_ids, pm, nt_, tc, sc)
    trace_shared = trace_shared_bytes(sizes.batch_walk, longest)
    for stream, size, V, _, part_ids, part_stack in views:
        with stream:
            k.trace((size,), (threads,),
                    (V, tc, nt_, part_ids, starts_dev, codes_dev, pm, np.int32(walk), part_stack,
                     np.int32(stack.shape[1]), out.scores, out.pair_to, out.chars, out.status), shared_mem=trace_shared)
        if stream is not caller:
            caller.wait_event(stream.record())


def _launch_diagonal(k, d, d_, nt, size, T, V, acc, codes_dev, starts_dev, part_ids, pm, nt_, tc, sc):
    """The launches of tile diagonal ``d`` of ``size`` tables (see :func:`fold_tiled_group`)."""
    if k.sub and d >= 1:
        if d >= 2 or not _launch.SIZES.batch_skip_first_bulk:   # d = 1: zeros, which the finish takes itself
            k.bulk((nt - d, size), ((T // 8) ** 2,), (V, V, nt_, d_, tc), shared_mem=k.bulk_shared)
        k.finish((nt - d, size), (2 * T,), (V, codes_dev, starts_dev, part_ids, pm, nt_, d_, tc),
                 shared_mem=k.finish_shared)
    elif k.diag:
        k.first((nt, size), (k.first_threads,), (V, codes_dev, starts_dev, part_ids, pm, nt_, tc),
                shared_mem=k.first_shared)
    else:
        if d >= 2:
            k.bulk((nt - d, size), ((T // 8) ** 2,), (V, acc, nt_, d_, tc, sc), shared_mem=k.bulk_shared)
        k.first((nt - d, size), (T * 4,), (V, acc, codes_dev, starts_dev, part_ids, pm, nt_, d_, tc, sc),
                shared_mem=k.first_shared)
