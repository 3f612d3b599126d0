"""The order in which the ``tiled`` BPMax fill hands out its tasks, and what each one waits for.

A task is block I (counted from the bottom) of ``rows_per_task`` target rows of one query interval
(i1, l1). It reads rows of its own block and the blocks below, of its own matrix and of the
sub-intervals of [i1, j1]; done (I, l1-1, i1), (I, l1-1, i1+1) and (I-1, l1, i1) imply all of those (by
induction), so those three are its dependencies. Tasks are handed out by step t = I + l1 - 1
(costliest, i.e. longest l1, first within a step, then by i1), an order consistent with those
dependencies: a worker never waits for a task nobody has taken, and with any number of threads the
shared queue (:mod:`bioaccel.runtime.parallel`) cannot deadlock. There is no barrier per step: on a shared
machine a descheduled thread stalls only the tasks that need its task, and consecutive steps overlap.

With a ring of rows (a target window on a long target) a task overwrites rows that tasks up to
RING_SLACK + 1 steps earlier may still read, so it also waits until every task of step
t - RING_SLACK - 1 is done: the queue's groups are the steps (the ring is RING_SLACK blocks longer than
a step-by-step schedule would need).
"""
import numpy as np
from numba import njit

from ...runtime.parallel import task_queue
from .layout import RING_SLACK


@njit(cache=True)
def _order(M, N, L1, rows_per_task):
    """The tasks in hand-out order, with their dependencies (CSR: ``deps[dep_start[k]:dep_start[k+1]]``)."""
    n_blocks = (N + rows_per_task - 1) // rows_per_task
    n_steps = n_blocks + L1 - 1
    per_block = 0
    for l1 in range(1, L1 + 1):
        per_block += M - l1 + 1
    total = per_block * n_blocks
    i1s = np.empty(total, dtype=np.int64)
    l1s = np.empty(total, dtype=np.int64)
    blocks = np.empty(total, dtype=np.int64)
    steps = np.empty(total, dtype=np.int64)
    number = np.full(n_blocks * L1 * M, -1, dtype=np.int64)   # task number of (block, l1, i1)
    dep_start = np.zeros(total + 1, dtype=np.int64)
    deps = np.empty(3 * total, dtype=np.int64)
    k = 0
    d = 0
    for t in range(n_steps):
        for l1 in range(min(L1, t + 1), max(1, t - n_blocks + 2) - 1, -1):  # costliest first
            block = t - (l1 - 1)
            for i1 in range(M - l1 + 1):
                i1s[k] = i1
                l1s[k] = l1
                blocks[k] = block
                steps[k] = t
                number[(block * L1 + l1 - 1) * M + i1] = k
                if l1 > 1:
                    deps[d] = number[(block * L1 + l1 - 2) * M + i1]
                    deps[d + 1] = number[(block * L1 + l1 - 2) * M + i1 + 1]
                    d += 2
                if block > 0:
                    deps[d] = number[((block - 1) * L1 + l1 - 1) * M + i1]
                    d += 1
                k += 1
                dep_start[k] = d
    return i1s, l1s, blocks, steps, dep_start, deps[:d]


def task_order(M, N, L1, rows_per_task, wraps):
    """``(i1, l1, block, queue)``: the query interval and row block of each task, in the order they are
    handed out, and the :class:`~bioaccel.runtime.parallel.TaskQueue` of their dependencies.

    >>> i1, l1, block, queue = task_order(2, 2, 2, 1, False)
    >>> list(zip(i1.tolist(), l1.tolist(), block.tolist()))
    [(0, 1, 0), (1, 1, 0), (0, 2, 0), (0, 1, 1), (1, 1, 1), (0, 2, 1)]
    >>> queue.dep_start.tolist(), queue.deps.tolist()
    ([0, 0, 0, 2, 3, 4, 7], [0, 1, 0, 1, 3, 4, 2])
    """
    i1, l1, block, step, dep_start, deps = _order(M, N, L1, rows_per_task)
    if not wraps:
        return i1, l1, block, task_queue(dep_start, deps)
    wait = np.where(step > RING_SLACK, step - RING_SLACK - 1, -1)
    return i1, l1, block, task_queue(dep_start, deps, group=step, wait_group=wait)
