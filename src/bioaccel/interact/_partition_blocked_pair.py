"""BPPart's ``queued`` fill with query intervals in pairs (bpppair, stop 50): [a0, a1) and [a0, a1 + 1), two
columns side by side, as one task of the queue (:func:`pair_order`), so that what both read is read by one
worker while it is in its L2: their double sums' left matrices [a0, c) (QIac's and QF's), their rows' T0 of
[a0, k + 1), the first's QIac and QF (the second's last split point and its QIm's last term).

Two forms of a pair (``fill_partition_queued(..., tasks=)``): ``"pairs"`` (the default) runs the two intervals
one after the other (``_interval_inline`` of each: the same code as a task a interval); ``"shared"``
(:func:`_pair`) runs their double sums split point by split point, the first's tiles and then the second's on
the same left matrix (:func:`_split_pair`), the second's last split point c = a1 (on the first's QIac and QF)
after the first's rows: last, as in :func:`._partition_blocked_split._split_products`, so each output cell's
adds keep the order of c. Measured in one process (docs/bppart.md, "bpppair, stop 50"): the pairs' order
1.02-1.04x on one thread at 23 x 100, 1.03-1.08x on two; ``"shared"`` no faster than ``"pairs"`` (its
split points 2-15% slower alone: two outputs and three right matrices at work in L2).
The other pair, [a0, a1) and [a0 - 1, a1) (the same right operands), cannot keep the order of c: the second's
first split point c = a0 reads the first interval's QI, which is done only after its rows.

Every output cell gets the same tiles' sums in the same order of split points as in a task a interval, and
the rows are ``_interval_inline``'s own code (:func:`._partition_blocked._interval_rows`): the same bits
(tests/test_bppart_cpu50.py).
"""
import functools

import numpy as np
from numba import njit

from ._partition_band_cross import _prefetch
from ._partition_blocked import _interval_open_inline, _interval_rows_inline
from ._partition_blocked_split import PREFETCH, _half_any, _tile_any
from ._partition_cpu import _FLAGS


@functools.lru_cache(maxsize=64)
def pair_order(M: int, workers: int, fixed: int = 8, columns: int = 2) -> tuple:
    """The non-empty query intervals of an M-nt query as a task queue's tasks, two columns a task where it can:
    ``order[k] = (a0, a1, width)``, the intervals [a0, a1) .. [a0, a1 + width - 1); and each task's
    dependencies (``dep_start``, ``deps``: the tasks of [a0, e - 1) and [a0 + 1, e) of each of its intervals,
    but its own). Columns go in groups of two (1 and 2, 3 and 4, ...; the last alone when M is odd): a group's
    first task is the second column's interval [p, p + 1), then the pairs (a0, p, 2) for a0 from p - 1 down to
    0 (``columns``: groups of that many; 3 and 4 measured slower on two threads). The order is
    :func:`._partition_blocked_queue.interval_order`'s simulated schedule over the groups (an interval costing
    ``fixed`` + its length). Read-only arrays (cached).

    >>> order, dep_start, deps = pair_order(3, 2)
    >>> [tuple(x) for x in order.tolist()]
    [(1, 2, 1), (2, 3, 1), (0, 1, 2), (1, 3, 1), (0, 3, 1)]
    >>> [deps[dep_start[k]:dep_start[k + 1]].tolist() for k in range(5)]
    [[], [], [0], [0, 1], [2, 3]]
    """
    groups = _groups(M, columns)
    owner = {(a0, e): (a0, a1, width) for group in groups for a0, a1, width in group for e in range(a1, a1 + width)}
    needs = {task: sorted({owner[d] for e in _ends(task) for d in ((task[0], e - 1), (task[0] + 1, e))
                           if d[0] < d[1] and owner[d] != task}) for group in groups for task in group}
    cost = {task: sum(fixed + e - task[0] for e in _ends(task)) for task in needs}
    start = _simulated_starts(groups, needs, cost, max(1, workers))
    column = {task: g for g, group in enumerate(groups) for task in group}
    tasks = sorted(start, key=lambda task: (start[task], column[task]))
    number = {task: k for k, task in enumerate(tasks)}
    dep_start, deps = [0], []
    for task in tasks:
        deps += [number[d] for d in needs[task]]
        dep_start.append(len(deps))
    arrays = (np.array(tasks, dtype=np.int64).reshape(-1, 3), np.array(dep_start, dtype=np.int64),
              np.array(deps, dtype=np.int64))
    for array in arrays:
        array.flags.writeable = False
    return arrays


def _ends(task: tuple) -> range:
    """The ends a1 of a task's intervals."""
    return range(task[1], task[1] + task[2])


def _groups(M: int, columns: int = 2) -> list:
    """:func:`pair_order`'s tasks, a list a group of ``columns`` columns, in the order a worker goes down it:
    from the top, each row a0's intervals of the group's columns as one task ``(a0, first end, count)``."""
    groups = []
    for p in range(1, M + 1, columns):
        last = min(p + columns - 1, M)
        groups.append([(a0, max(p, a0 + 1), last - max(p, a0 + 1) + 1) for a0 in range(last - 1, -1, -1)])
    return groups


def _simulated_starts(groups: list, needs: dict, cost: dict, workers: int) -> dict:
    """Each task's start time in a schedule where each of ``workers`` takes the next group when its own is
    done and goes down it, a task starting when its worker is free and the tasks it needs are done."""
    free = [0.0] * workers
    queue = [None] * workers     # the tasks left of each worker's group
    finish, start, retired, taken = {}, {}, set(), 0
    while len(retired) < workers:
        w = min((i for i in range(workers) if i not in retired), key=lambda i: free[i])
        if not queue[w]:
            if taken == len(groups):
                retired.add(w)
                continue
            queue[w] = list(groups[taken])
            taken += 1
        task = queue[w][0]
        if any(d not in finish for d in needs[task]):   # another worker has yet to reach it: wait
            later = [free[i] for i in range(workers) if i != w and i not in retired and free[i] > free[w]]
            free[w] = min(later) if later else free[w] + 1e-6
            continue
        start[task] = max([free[w]] + [finish[d] for d in needs[task]])
        finish[task] = free[w] = start[task] + cost[task]
        queue[w].pop(0)
    return start


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _pair(a0, a1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, wide):
    """Every table at the query intervals [a0, a1) and [a0, a1 + 1) (a0 < a1), as ``_interval_inline`` of
    each in turn: the double sums of both over c < a1 split point by split point, the first's rows, the second's
    last split point (c = a1, on the first's QIac and QF), the second's rows."""
    n = rb.shape[0] + 1
    acc_a, acc_m = _interval_open_inline(a0, a1, n, Q0, idx, QI, QX, QIac, QF)
    acc_a2, acc_m2 = _interval_open_inline(a0, a1 + 1, n, Q0, idx, QI, QX, QIac, QF)
    _split_pair(QIac, QI, idx, a0, a1, a0 + 1, a1, acc_a, acc_a2, n, wide)
    _split_pair(QF, QIac, idx, a0, a1, a0 + 1, a1, acc_m, acc_m2, n, wide)
    _interval_rows_inline(a0, a1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, acc_a, acc_m)
    _split_pair(QIac, QI, idx, a0, a1, a1, a1 + 1, acc_a, acc_a2, n, wide)
    _split_pair(QF, QIac, idx, a0, a1, a1, a1 + 1, acc_m, acc_m2, n, wide)
    _interval_rows_inline(a0, a1 + 1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, acc_a2, acc_m2)


@njit(cache=True, nogil=True)
def _split_pair(L, Rt, idx, a0, a1, c_lo, c_hi, out1, out2, n, wide):
    """:func:`._partition_blocked_split._split_products` of [a0, a1) into ``out1`` and of [a0, a1 + 1) into
    ``out2``, over the split points c_lo <= c < c_hi (``out1``'s only where c < a1): at each split point the
    first's tiles, then the second's on the same left matrix L([a0, c)), now in L2. (Tiles in pairs, each
    left tile for both at once, measured 8-15% slower: two right column strips of 14 KB, and the left rows,
    no longer fit the 32 KB L1 that one strip and the rows fit.)"""
    size = L.shape[1] * L.shape[2]
    for c in range(c_lo, c_hi):
        left = L[idx[a0, c]]
        ahead = c + 1 if c + 1 < c_hi else c   # the next split point's matrices asked for while these compute
        next_l, next_2 = L[idx[a0, ahead]].reshape(size), Rt[idx[ahead, a1 + 1]].reshape(size)
        if c < a1:
            next_1 = Rt[idx[ahead, a1]].reshape(size)
            _split_point(left, Rt[idx[c, a1]], out1, n, wide, next_l, next_1)
        _split_point(left, Rt[idx[c, a1 + 1]], out2, n, wide, next_2, next_l)


@njit(cache=True, nogil=True)
def _split_point(left, right, out, n, wide, ask1, ask2):
    """One split point of :func:`._partition_blocked_split._split_products` (its tiles in its order), asking
    for ``ask1`` and ``ask2`` (flat: the next split point's matrices) as it goes, as that does."""
    size = ask1.shape[0]
    step = 8 if wide else 4
    pos = 0
    for B in range(0, n, 16):
        kend = min(B + 16, n)
        if n - B <= 8:
            _half_any(left, right, out, B, kend, n, wide)
            continue
        for b0 in range(0, min(B + 16, n - 1), step):
            for _ in range(PREFETCH):
                if pos < size:
                    _prefetch(ask1, pos)
                    _prefetch(ask2, pos)
                    pos += 8
            _tile_any(left, right, out, b0, B, kend, wide)



