"""BPPart's fill on the CPU, variant ``queued``: the ``blocked`` variant's query intervals
(:func:`._partition_blocked._interval`, unchanged: the same sums in the same order, the same bits) handed
out from one task queue (:mod:`bioaccel.runtime.parallel`) instead of a parallel loop per query length.

The ``blocked`` fill runs the query intervals of one length in parallel, with a barrier after each
length: 23 barriers at a 23-nt query, a thread idle wherever a length has an odd count of intervals
(the longest has one), and each length reads every shorter interval's matrices, which do not fit the
L3 (180 MB of tables at 23 x 100). Here an interval [a0, a1) waits only for [a0, a1 - 1) and
[a0 + 1, a1) (each of them waited for its own, so everything it reads is done), and the intervals are
handed out by columns (:func:`interval_order`): each worker goes down a column a1 from its shortest
interval (a0 from a1 - 1 to 0), the next column a step behind it, so that claims in a row are of
different columns and none waits long. Columns at work side by side read the same left operands [a0, c)
at about the same a0 (in L3 once for all of them), and their right operands [c, a1) are their own
column's, written just before. Tiny pairs (under :data:`PARALLEL_WORK`) run on one thread with no parallel region: on a
busy machine, waking OpenMP's threads and joining them can cost more than such a fill.

Two changes that keep every sum (docs/bppart.md, "bppcpu3, stop 48"): the double sums' eight-lane tiles
leave out most of their products by exact zeros (:mod:`._partition_blocked_skip`), and the seven tables
are one allocation, each table on whole pages (:func:`aligned_tables`; ``blocked_tables`` gives each its
own allocation, its rows not on cache lines). Either old form stays selectable (``tiles``, ``tables``).
Since stop 49 (docs/bppart.md, "bppsparse, stop 49") those tiles are inlined into the products' loop
(``tiles=INLINE``: no call a tile, so no reference counts a tile); stop 48's called tiles are ``SKIP_ZEROS``.
Since stop 50 (docs/bppart.md, "bpppair, stop 50") a task is two intervals [a0, a1) and [a0, a1 + 1) where it
can (``tasks="pairs"``, :mod:`._partition_blocked_pair`): one worker reads what both read while it is in its
L2; stop 49's task of one interval is ``tasks="single"``.
"""
import functools

import numba
import numpy as np
from numba import prange

from ..runtime.parallel import claim, complete, serial_and_parallel, task_queue
from ._partition_band_cross import wide_vectors
from ._partition_blocked import _interval, _interval_inline, _logs, _start, blocked_tables, table_shape
from ._partition_blocked_pair import _pair, pair_order
from ._partition_blocked_split import INLINE, SKIP_ZEROS  # noqa: F401 (SKIP_ZEROS: stop 48's tiles, by name)
from ._partition_cpu import _FLAGS


def fill_partition_queued(a: np.ndarray, rb: np.ndarray, weights: np.ndarray, c1: float, c2: float,
                          tiles: int = INLINE, tables=None, rows: str = "inline", tasks: str = "pairs") -> tuple:
    """(log QI, log QX, log Q0, log Q1) of the whole strands, as
    :func:`._partition_blocked.fill_partition_blocked` gives them (same arguments, the same bits), the
    query intervals from a task queue on Numba's threads. ``tiles``: the double sums' eight-lane tiles
    where the CPU has AVX-512 (:data:`INLINE`: without the products by zeros, inlined into the products'
    loop; :data:`SKIP_ZEROS`: the same tiles called, stop 48's; True: stop 47's full tiles); ``tables``:
    the tables' allocation (None: :func:`aligned_tables`; stop 47's: ``blocked_tables``); ``rows``: each query
    interval's row functions inlined into it (``"inline"``: ``_interval_inline``, bppinline, stop 49) or
    called (``"called"``: ``_interval``, stop 49's), the same bits; ``tasks``: the queue's tasks, one query
    interval (``"single"``, stop 49's) or two, [a0, a1) and [a0, a1 + 1), where it can
    (:func:`._partition_blocked_pair.pair_order`, bpppair, stop 50): ``"pairs"`` (the default) one after the
    other, ``"shared"`` their double sums' shared left matrices read once (:func:`._partition_blocked_pair._pair`,
    rows inlined only; not faster), the same bits.

    >>> import numpy as np
    >>> w = np.zeros((5, 5)); w[1, 2] = w[2, 1] = np.exp(3.0)
    >>> [round(float(x), 4) for x in fill_partition_queued(np.array([2], np.uint8), np.array([1], np.uint8), w, 0.0, 0.0)]
    [3.0486, 3.0, 0.0, 0.0]
    """
    M, N = a.shape[0], rb.shape[0]
    workers = numba.get_num_threads() if fill_work(M, N) >= PARALLEL_WORK else 1
    if rows not in ROWS:
        raise ValueError(f"rows must be one of {ROWS}, not {rows!r}")
    if tasks not in TASKS or (tasks == "shared" and rows != "inline"):
        raise ValueError(f"tasks must be one of {TASKS} (shared with rows='inline'), not {tasks!r}")
    order, dep_start, deps = interval_order(M, workers) if tasks == "single" else pair_order(M, workers, FIXED)
    fill = _fill_queued_parallel if workers > 1 else _fill_queued_serial
    wide = tiles if wide_vectors() else False
    return fill(a, rb, weights, c1, c2, *(tables or aligned_tables)(M, N), wide, task_queue(dep_start, deps), order,
                workers, rows == "inline", tasks == "shared")


#: fill_partition_queued's ``rows``: _interval's row functions inlined into it (the default), or called
ROWS = ("inline", "called")
#: fill_partition_queued's ``tasks``: two query intervals a task where it can, one after the other (the
#: default), or sharing their double sums' left matrices; or one a task (stop 49's)
TASKS = ("pairs", "shared", "single")


#: Bytes a table of :func:`aligned_tables` starts on (a page: its rows, of 16-cell multiples, on cache lines)
PAGE = 4096


def aligned_tables(M: int, N: int, value: float = None) -> list:
    """:func:`._partition_blocked.blocked_tables` (the same shapes, not zeroed, or all ``value``) in one
    allocation, each table from a page's start. Measured at 23 x 100 (one thread, one process, calls
    alternating, reserved memory): 4-6% faster than seven allocations, whose tables start 16 bytes past
    a cache line (each 16-cell tile row across three lines), 2-3% of it from the cache lines alone.

    >>> tables = aligned_tables(2, 20)
    >>> [t.shape for t in tables][:2], {t.ctypes.data % PAGE for t in tables}
    ([(6, 24, 32), (6, 24, 32)], {0})
    """
    shape = table_shape(M, N)
    cells = int(np.prod(shape))
    pitch = (cells * 8 + PAGE - 1) // PAGE * PAGE // 8
    block = np.empty(pitch * 7 + PAGE // 8) if value is None else np.full(pitch * 7 + PAGE // 8, value)
    start = (-block.ctypes.data) % PAGE // 8
    return [block[start + i * pitch:start + i * pitch + cells].reshape(shape) for i in range(7)]


#: A fill's work (:func:`fill_work`) from which it runs on every thread: below it (23 x 9 nt and less, a
#: fill of under 3 ms), one thread with no parallel region, which on a busy machine may wait milliseconds
#: for OpenMP's threads. Measured on the idle 2-core machine (load 0.8, best of 15), serial against two
#: threads: 23 x 1 0.79 / 0.61 ms, 23 x 10 3.0 / 1.8 ms, 23 x 30 12.5 / 8.9 ms: two threads pay from there.
PARALLEL_WORK = 1_000_000


def fill_work(M: int, N: int) -> int:
    """About the multiply-adds of a fill at M x N nt: its cells (query intervals x target cells) times
    the split points of a cell (M + N).

    >>> fill_work(23, 10) > PARALLEL_WORK > fill_work(23, 5)
    True
    """
    return (M + 1) * (M + 2) // 2 * (N + 1) * (N + 1) * (M + N)


#: The cost of a query interval of length l1 in the order's schedule (:func:`interval_order`), in units of
#: one split point's double sums: FIXED + l1. Measured on one thread at 23 x 100: the double sums 28 us a
#: split point, the rest of an interval (its rows, cells and single sums) about 260 us.
FIXED = 8


@functools.lru_cache(maxsize=64)
def interval_order(M: int, workers: int) -> tuple:
    """The non-empty query intervals of an M-nt query as a task queue's tasks: ``order[k] = (a0, a1)``,
    and each task's dependencies (``dep_start``, ``deps``: [a0, a1 - 1) and [a0 + 1, a1) where non-empty).
    The order is a simulated schedule's, by start time: each of ``workers`` takes the next column a1 when
    its own is done and goes down it (a0 from a1 - 1 to 0), a task starting when its worker is free and
    its two dependencies are done, a task costing FIXED + l1. So the columns at work are next to each other,
    one a step behind the other, and a worker that finishes a column starts the next while the others
    finish theirs (in groups of ``workers`` columns, stop 47's first order, the group's last tasks waited
    on each other: 1.08x slower at 23 x 100 on two threads). Read-only arrays (cached).

    >>> order, dep_start, deps = interval_order(3, 2)
    >>> [tuple(x) for x in order.tolist()]
    [(0, 1), (1, 2), (0, 2), (2, 3), (1, 3), (0, 3)]
    >>> [deps[dep_start[k]:dep_start[k + 1]].tolist() for k in range(6)]
    [[], [], [0, 1], [], [1, 3], [2, 4]]
    """
    start = _simulated_starts(M, max(1, workers))
    tasks = sorted(start, key=lambda task: (start[task], task[1]))
    number = {task: k for k, task in enumerate(tasks)}
    dep_start, deps = [0], []
    for a0, a1 in tasks:
        deps += [number[d] for d in ((a0, a1 - 1), (a0 + 1, a1)) if d[0] < d[1]]
        dep_start.append(len(deps))
    arrays = (np.array(tasks, dtype=np.int64).reshape(-1, 2), np.array(dep_start, dtype=np.int64),
              np.array(deps, dtype=np.int64))
    for array in arrays:
        array.flags.writeable = False
    return arrays


def _simulated_starts(M: int, workers: int) -> dict:
    """:func:`interval_order`'s schedule: the start time of each interval (a0, a1)."""
    free = [0.0] * workers           # when each worker is next free
    column = [None] * workers        # [a1, the next a0] of each worker's column
    finish, start, retired, taken = {}, {}, set(), 0
    while len(retired) < workers:
        w = min((i for i in range(workers) if i not in retired), key=lambda i: free[i])
        if column[w] is None or column[w][1] < 0:
            if taken == M:
                retired.add(w)
                continue
            taken += 1
            column[w] = [taken, taken - 1]
        a1, a0 = column[w]
        needs = [d for d in ((a0, a1 - 1), (a0 + 1, a1)) if d[0] < d[1]]
        if any(d not in finish for d in needs):   # another worker has yet to reach it: wait for its next step
            later = [free[i] for i in range(workers) if i != w and i not in retired and free[i] > free[w]]
            free[w] = min(later) if later else free[w] + 1e-6   # (one free as early: it goes first now)
            continue
        start[a0, a1] = max([free[w]] + [finish[d] for d in needs])
        finish[a0, a1] = free[w] = start[a0, a1] + FIXED + a1 - a0
        column[w][1] -= 1
    return start


def _fill_queued(a, rb, weights, c1, c2, QI, QX, QIac, QF, R, T0, AUX0, wide, queue, order, workers,
                 inline_rows=True, shared_pairs=False):
    """fill_partition_queued's fill, on tables of :func:`._partition_blocked.blocked_tables`' shapes
    (:func:`aligned_tables` by default): ``workers`` loops that claim intervals from ``queue`` in ``order``
    (:func:`interval_order`; :func:`._partition_blocked_pair.pair_order`: a third column, a task's intervals)
    until none is left (compiled twice: ``_fill_queued_parallel``, one loop a thread; ``_fill_queued_serial``,
    for one worker); ``inline_rows``: ``_interval_inline``, else ``_interval``; ``shared_pairs``: a task of two
    intervals by :func:`._partition_blocked_pair._pair` (their double sums' left matrices shared), else one
    interval after the other."""
    Q0, Q1p, idx, w1, w2, wi = _start(a, rb, weights, c1, c2, QI, QX)
    for _ in prange(workers):
        while True:
            k = claim(queue)
            if k < 0:
                break
            width = order[k, 2] if order.shape[1] > 2 else 1   # the task's intervals [a0, a1) .. [a0, a1 + width - 1)
            if width == 2 and shared_pairs:
                _pair(order[k, 0], order[k, 1], a, rb, w1, w2, wi, Q0, Q1p, idx, QI, QX, QIac, QF, R, T0, AUX0, wide)
                width = 0
            for a1 in range(order[k, 1], order[k, 1] + width):
                if inline_rows:
                    _interval_inline(order[k, 0], a1, a, rb, w1, w2, wi, Q0, Q1p, idx, QI, QX, QIac, QF, R, T0, AUX0,
                                     wide)
                else:
                    _interval(order[k, 0], a1, a, rb, w1, w2, wi, Q0, Q1p, idx, QI, QX, QIac, QF, R, T0, AUX0, wide)
            complete(queue, k)
    return _logs(a, rb, c1, c2, Q0, Q1p, idx, QI, QX)


_fill_queued_serial, _fill_queued_parallel = serial_and_parallel(_fill_queued, nogil=True, fastmath=_FLAGS)
