"""Many short sequences on the CPU: each folded whole by one core (the tiled fill, serially), the cores
balanced by cost (n^3), traceback included, in one parallel region for the whole batch."""
import heapq

import numpy as np
from numba import get_num_threads, prange

from .._parallel import serial_and_parallel
from ._tiled_cpu import TILE, _fill_serial, _lowest, _new_diag_tiles, packed_base
from ._traceback import check_traced, traceback_pairs


#: Below this much work (sum of n^3) a batch runs on the calling thread: starting the parallel region
#: (and, in a fresh process, loading its code and thread pool) costs more than the fold.
PARALLEL_WORK = 2e7


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
            _fill_serial(table, base, codes, pairs, min_loop, tile, diag_tiles)
            scores[s] = table[base[0] + n - 1]
            if with_traceback:
                pair_to_all[lo:hi] = traceback_pairs(table, base, codes, pairs, min_loop)



_fold_batch_serial, _fold_batch_parallel = serial_and_parallel(_fold_batch, nogil=True)


def fold_batch(codes_list, params, *, tile=TILE, traceback=True):
    """Fold many short sequences, each on one core, the cores balanced by cost (n^3).

    Returns a list of ``(score in units, pair_to or None)`` in input order.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.alphabet import encode
    >>> [units for units, _ in fold_batch([encode("GGGAAAUCC"), encode("")], FoldParams())]
    [3, 0]
    """
    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    starts = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    codes_all = (np.concatenate([np.asarray(c, dtype=np.uint8) for c in codes_list])
                 if len(codes_list) else np.zeros(0, np.uint8))
    workers = max(1, min(get_num_threads(), len(codes_list)))
    loads = [(0, w) for w in range(workers)]
    assigned = [[] for _ in range(workers)]
    for s in np.argsort(-lengths, kind="stable"):  # longest first onto the least loaded core
        load, w = heapq.heappop(loads)
        assigned[w].append(int(s))
        heapq.heappush(loads, (load + int(lengths[s]) ** 3 + 1, w))
    worker_start = np.zeros(workers + 1, dtype=np.int64)
    np.cumsum([len(a) for a in assigned], out=worker_start[1:])
    worker_items = np.array([s for a in assigned for s in a], dtype=np.int64)
    dtype = params.cell_dtype(int(lengths.max(initial=0)))
    pairs = params.pair_table()
    scores = np.zeros(len(codes_list), dtype=np.int64)
    pair_to_all = np.full(codes_all.shape[0], -1, dtype=np.int32)
    work = float(np.sum(lengths.astype(np.float64) ** 3))
    kernel = _fold_batch_parallel if work >= PARALLEL_WORK and workers > 1 else _fold_batch_serial
    kernel(codes_all, starts, worker_start, worker_items, pairs, int(params.min_loop), int(tile),
           _lowest(dtype), bool(traceback), scores, pair_to_all)
    return [(int(scores[s]), check_traced(pair_to_all[starts[s]:starts[s + 1]].copy()) if traceback else None)
            for s in range(len(codes_list))]
