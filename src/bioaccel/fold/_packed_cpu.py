"""Many short sequences on the CPU, packed back to back: each folded whole by one core (the tiled fill,
serially), the cores balanced by cost (n^3), traceback included, in one parallel region for them all."""
import heapq

import numpy as np
from numba import get_num_threads, prange

from ..runtime.parallel import serial_and_parallel
from ..errors import InternalError
from ._tiled_cpu import TILE, _fill_serial, _lowest, _new_diag_tiles, packed_base
from ._traceback import CORRUPT, traceback_pairs


#: Below this much work (sum of n^3) a packed list runs on the calling thread: starting the parallel region
#: (and, in a fresh process, loading its code and thread pool) costs more than the fold.
PARALLEL_WORK = 2e7


def _fold_packed(codes_all, starts, worker_start, worker_items, pairs, min_loop, tile, dtype_proto,
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
            _fill_serial(table, base, codes, pairs, min_loop, tile, diag_tiles)
            scores[s] = table[base[0] + n - 1]
            if with_traceback:
                pair_to_all[lo:hi] = traceback_pairs(table, base, codes, pairs, min_loop)



_fold_packed_serial, _fold_packed_parallel = serial_and_parallel(_fold_packed, nogil=True)


#: Lists of fewer sequences than this many per core are dealt longest first onto the least loaded core
#: (a heap); larger ones in a snake order over the lengths sorted longest first, vectorised.
HEAP_PER_CORE = 8


def _deal(lengths, workers):
    """``(worker_start, worker_items)``: the sequences of core w are
    ``worker_items[worker_start[w]:worker_start[w + 1]]``, the cores balanced by cost (n^3).

    >>> start, items = _deal(np.array([5, 1, 9, 3]), 2)
    >>> [items[start[w]:start[w + 1]].tolist() for w in range(2)]    # 9^3 alone, 5^3 + 3^3 + 1^3
    [[2], [0, 1, 3]]
    """
    order = np.argsort(-lengths, kind="stable")
    if len(lengths) < HEAP_PER_CORE * workers:
        loads = [(0, w) for w in range(workers)]
        assigned = [[] for _ in range(workers)]
        for s in order.tolist():
            load, w = heapq.heappop(loads)
            assigned[w].append(s)
            heapq.heappush(loads, (load + int(lengths[s]) ** 3 + 1, w))
        worker_of = np.empty(len(lengths), dtype=np.int64)
        for w, items in enumerate(assigned):
            worker_of[items] = w
    else:
        p = np.arange(len(lengths))
        worker_of = np.empty(len(lengths), dtype=np.int64)
        worker_of[order] = np.where((p // workers) % 2 == 0, p % workers, workers - 1 - p % workers)
    items = np.argsort(worker_of, kind="stable")
    return np.searchsorted(worker_of[items], np.arange(workers + 1)).astype(np.int64), items.astype(np.int64)


def fold_packed(codes_all, starts, params, *, tile=TILE, traceback=True):
    """Fold packed sequences (sequence k is ``codes_all[starts[k]:starts[k + 1]]``), each sequence on one
    core, the cores balanced by cost (n^3): ``(scores in units (int64), pair_to (int32, all sequences
    back to back, -1 without traceback))``.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> scores, pair_to = fold_packed(encode("GGGAAAUCCA"), np.array([0, 9, 9, 10]), FoldParams())
    >>> scores.tolist(), pair_to[:3].tolist()
    ([3, 0, 0], [8, 7, 6])
    """
    codes_all = np.ascontiguousarray(codes_all, dtype=np.uint8)
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(starts)
    count = len(lengths)
    workers = max(1, min(get_num_threads(), count))
    worker_start, worker_items = _deal(lengths, workers)
    dtype = params.cell_dtype(int(lengths.max(initial=0)))
    scores = np.zeros(count, dtype=np.int64)
    pair_to_all = np.full(codes_all.shape[0], -1, dtype=np.int32)
    work = float(np.sum(lengths.astype(np.float64) ** 3))
    kernel = _fold_packed_parallel if work >= PARALLEL_WORK and workers > 1 else _fold_packed_serial
    kernel(codes_all, starts, worker_start, worker_items, params.pair_table(),
           int(params.min_loop), int(tile), _lowest(dtype), bool(traceback), scores, pair_to_all)
    if traceback and (pair_to_all[starts[:-1][lengths > 0]] == CORRUPT).any():
        raise InternalError("the traceback of a packed sequence's table found a value no case of the recurrence "
                            "reproduces")
    return scores, pair_to_all


def fold_list(codes_list, params, *, tile=TILE, traceback=True):
    """Fold many short sequences, each on one core, the cores balanced by cost (n^3).

    Returns a list of ``(score in units, pair_to or None)`` in input order.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> [units for units, _ in fold_list([encode("GGGAAAUCC"), encode("")], FoldParams())]
    [3, 0]
    """
    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    starts = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    codes_all = (np.concatenate([np.asarray(c, dtype=np.uint8) for c in codes_list])
                 if len(codes_list) else np.zeros(0, np.uint8))
    scores, pair_to_all = fold_packed(codes_all, starts, params, tile=tile, traceback=traceback)
    return [(int(scores[s]), pair_to_all[starts[s]:starts[s + 1]].copy() if traceback else None)
            for s in range(len(codes_list))]
