"""The scaled inside and outside fills of the Nussinov partition function (docs/nussinov-partition.md;
:mod:`._nussinov_partition` chooses and checks them): one column at a time, on one thread or on
several through a task queue, or (the inside, on one thread) several columns a sweep over the rows.

One square array holds ``Q[i, e]`` (half-open intervals, scaled) above the diagonal and its mirror
``Q[e, i]`` below, so that every sum reads two contiguous rows (the same for the outside ``O``). A
column's rows are independent: a task is the rows ``i = t, t + T, ...`` of one column (cyclic, so that
the long and the short rows are shared out alike). Threads take tasks from one queue
(:func:`~bioaccel.runtime.parallel.task_queue`): a column's tasks wait for the whole previous column
and, to scale, for its row 0. Waiting spins briefly and then yields the core, where one parallel region
a column (tried first) put each column's threads to sleep and, on a machine with more threads than
cores, was 8 times slower than one thread.
"""
import math

import numpy as np
from numba import njit, prange

from ..runtime.parallel import claim, complete, store_release, task_queue, wait_for

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the dot products; inf/NaN stay detectable

#: A column whose largest provisional pair factor would pass exp(HEADROOM) is shifted down first, so
#: that pair weights up to FoldParams' limit (1,000 a pair) cannot overflow before the column is scaled.
HEADROOM = 600.0


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _inside_rows(codes, logw, allowed, min_loop, scaled, M, cs, b, e, t, stride):
    """Column e's unscaled-for-base-(e-1) values at rows t, t + stride, ...; returns g, the provisional
    log scale of base e-1 (0 unless a pair factor would pass exp(HEADROOM)). ``b``: scratch."""
    j = e - 1                      # the new last base
    cj = codes[j]
    last = j - 1 - min_loop        # the last base that may pair with j
    g = 0.0
    if scaled:
        top = -np.inf
        for k in range(last + 1):
            if allowed[codes[k], cj]:
                top = max(top, logw[codes[k], cj] - cs[k])
        if top > HEADROOM:
            g = top - HEADROOM
    for k in range(t, last + 1):   # b[k] = B(k, j): k pairs j around Q[k+1, j]
        if allowed[codes[k], cj]:
            b[k] = math.exp(logw[codes[k], cj] - cs[k] - g) * M[j, k + 1]
        else:
            b[k] = 0.0
    u = math.exp(-g)
    for i in range(t, e, stride):
        s = M[i, j] * u            # j unpaired
        hi = max(last + 1, i)      # a negative end would count from the row's end
        row = M[i, i:hi]           # 0-based slices: the loop vectorises (measured 2x)
        bk = b[i:hi]
        for k in range(row.shape[0]):
            s += row[k] * bk[k]
        M[i, e] = s
    return g


@njit(cache=True, nogil=True)
def _finish_rows(M, e, t, stride, inv):
    """Scale column e's rows t, t + stride, ... by ``inv``, mirror them; their smallest value."""
    low = 1.0
    for i in range(t, e, stride):
        M[i, e] *= inv
        M[e, i] = M[i, e]
        low = min(low, M[i, e])
    return low


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _outside_rows(codes, logw, allowed, min_loop, M, cs, O, P, brow, e, t, stride):
    """Column e of the outside at rows t, t + stride, ... (mirrored), and P[i-1, e] for those rows."""
    n = codes.shape[0]
    ce = codes[e]
    last = e - 1 - min_loop        # pairs (k, e), k <= last
    first = e + 1 + min_loop       # pairs (e, j), j >= first
    for j in range(first, n):      # brow[j] = B(e, j)
        if allowed[ce, codes[j]]:
            brow[j] = math.exp(logw[ce, codes[j]] - cs[e] - cs[j]) * M[e + 1, j]
        else:
            brow[j] = 0.0
    u = math.exp(-cs[e])
    z = M[0, n]
    for i in range(t, e + 1, stride):
        s = O[i, e + 1] * u        # Q[i, e+1] = Q[i, e] u_e + ...
        orow = O[i, first + 1:n + 1]
        br = brow[first:n]
        for j in range(orow.shape[0]):
            s += orow[j] * br[j]
        k = i - 1                  # Q[i, e] is the inside of the pair (k, e)
        if 0 <= k <= last and allowed[codes[k], ce]:
            bo = 0.0               # outside of the pair (k, e): sum_h O[h, e+1] Q[h, k]
            orow = O[e + 1, :k + 1]
            mrow = M[k, :k + 1]
            for h in range(k + 1):
                bo += orow[h] * mrow[h]
            bo *= math.exp(logw[codes[k], ce] - cs[k] - cs[e])
            P[k, e] = bo * M[e, k + 1] / z
            s += bo
        O[i, e] = s
        O[e, i] = s                # row e's lower part: no task of this column reads it


@njit(cache=True, nogil=True)
def _start(M, O, n, outside):
    if outside:
        for i in range(n + 1):
            O[i, n] = 0.0
            O[n, i] = 0.0
        O[0, n] = 1.0
        O[n, 0] = 1.0
    else:
        for e in range(n + 1):
            M[e, e] = 1.0


@njit(cache=True, nogil=True)
def inside(codes, logw, allowed, min_loop, scaled, M, cs, b):
    """Fill ``M`` ((n+1) x (n+1)) on this thread: the scaled Q[i, e] and its mirror; ``cs[b]``: each
    base's log scale (0 when not ``scaled``). ``b``: scratch of n + 1. Returns the smallest value of M."""
    n = codes.shape[0]
    _start(M, M, n, False)
    low = 1.0
    for e in range(1, n + 1):
        g = _inside_rows(codes, logw, allowed, min_loop, scaled, M, cs, b, e, 0, 1)
        inv = 1.0
        if scaled:                 # base e-1's scale makes the prefix's Q exactly 1
            cs[e - 1] = g + math.log(M[0, e])
            inv = 1.0 / M[0, e]
        low = min(low, _finish_rows(M, e, 0, 1, inv))
    return low


#: Columns a sweep of :func:`inside_sweep` (2,000 nt on one thread: 0.7 s against 1.0 s a column at a
#: time; 8 gains little more).
SWEEP = 4


def sweep_width(max_weight: float, n: int) -> int:
    """The columns a sweep for pairs of at most ``max_weight`` and sequences up to ``n``; 0: one column
    at a time (:func:`inside`, which shifts heavy columns down first).

    >>> sweep_width(3, 100_000), sweep_width(500, 100)
    (4, 0)
    """
    return SWEEP if SWEEP * (max_weight + math.log(n + 1) + 1) < 600 else 0


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def inside_sweep(codes, logw, allowed, min_loop, scaled, M, cs, width):
    """:func:`inside` with ``width`` columns a sweep over the rows, bottom-up, so that each row is read
    from memory once for all of them (a column needs the one before only at rows below). The sweep's
    new bases have scale 1 while it runs and get theirs after it (every term holds each base once);
    its values grow by at most (1 + n e^w_max) a column, so the caller keeps ``width * (w_max +
    log(n + 1))`` well below 700. Returns the smallest value of M."""
    n = codes.shape[0]
    _start(M, M, n, False)
    B = np.zeros((width, n + 1))   # B[w, k]: k pairs column E+w's new base, around Q(k+1, E+w-1)
    D = np.empty(width + 1)
    low = 1.0
    E = 1
    while E <= n:
        W = min(width, n - E + 1)
        j = E - 1
        for k in range(j - min_loop):
            B[0, k] = math.exp(logw[codes[k], codes[j]] - cs[k]) * M[j, k + 1] if allowed[codes[k], codes[j]] else 0.0
        for i in range(E + W - 2, -1, -1):
            for w in range(W):
                C = E + w
                if C <= i:
                    continue
                jw = C - 1
                last = jw - 1 - min_loop
                if w > 0 and i <= last:    # row i + 1 of column jw is done
                    ok = allowed[codes[i], codes[jw]]
                    B[w, i] = math.exp(logw[codes[i], codes[jw]] - cs[i]) * M[jw, i + 1] if ok else 0.0
                s = M[i, jw]               # jw unpaired
                hi = max(last + 1, i)
                row = M[i, i:hi]
                bk = B[w, i:hi]
                for k in range(row.shape[0]):
                    s += row[k] * bk[k]
                M[i, C] = s
                M[C, i] = s
        D[0] = M[0, E - 1]
        for w in range(W):
            D[w + 1] = M[0, E + w]
            if scaled:
                cs[E - 1 + w] = math.log(D[w + 1]) - math.log(D[w])
        for w in range(W):
            C = E + w
            for i in range(C):
                if scaled:                 # the sweep's bases i .. C-1 (all of them when i < E)
                    M[i, C] *= D[max(i - E + 1, 0)] / D[w + 1]
                    M[C, i] = M[i, C]
                low = min(low, M[i, C])
        E += W
    return low


@njit(cache=True, nogil=True)
def outside(codes, logw, allowed, min_loop, M, cs, O, P, brow):
    """Fill ``O`` (the scaled outside of every Q[i, e], mirrored) and ``P[k, l]`` (k < l), the
    probability that k pairs l, on this thread. ``brow``: scratch of n + 1."""
    n = codes.shape[0]
    _start(M, O, n, True)
    for e in range(n - 1, -1, -1):
        _outside_rows(codes, logw, allowed, min_loop, M, cs, O, P, brow, e, 0, 1)


@njit(cache=True, nogil=True, parallel=True)
def _inside_tasks(codes, logw, allowed, min_loop, scaled, M, cs, scratch, queue, ready, ratio, lows):
    workers = scratch.shape[0]
    for w in prange(workers):
        low = 1.0
        while True:
            k = claim(queue)
            if k < 0:
                break
            e, t = k // workers + 1, k % workers
            g = _inside_rows(codes, logw, allowed, min_loop, scaled, M, cs, scratch[w], e, t, workers)
            if t == 0:             # row 0 is this task's: the column's scale
                ratio[e] = M[0, e] if scaled else 1.0
                if scaled:
                    cs[e - 1] = g + math.log(ratio[e])
                store_release(ready, e, 1)
            else:
                wait_for(ready, e)
            low = min(low, _finish_rows(M, e, t, workers, 1.0 / ratio[e]))
            complete(queue, k)
        lows[w] = low


@njit(cache=True, nogil=True, parallel=True)
def _outside_tasks(codes, logw, allowed, min_loop, M, cs, O, P, scratch, queue):
    workers = scratch.shape[0]
    n = codes.shape[0]
    for w in prange(workers):
        while True:
            k = claim(queue)
            if k < 0:
                break
            _outside_rows(codes, logw, allowed, min_loop, M, cs, O, P, scratch[w], n - 1 - k // workers,
                          k % workers, workers)
            complete(queue, k)


def _column_queue(columns, workers):
    """Tasks ``column * workers + t``, each waiting for every task of the column before."""
    count = columns * workers
    group = np.arange(count, dtype=np.int64) // workers
    return task_queue(np.zeros(count + 1, dtype=np.int64), np.zeros(0, dtype=np.int64), group=group,
                      wait_group=group - 1)


def inside_parallel(codes, logw, allowed, min_loop, scaled, M, cs, workers):
    """:func:`inside` with each column's rows shared by ``workers`` threads.

    >>> w = np.zeros((5, 5)); ok = np.zeros((5, 5), dtype=np.bool_); w[2, 1] = w[1, 2] = 3.0
    >>> ok[2, 1] = ok[1, 2] = True
    >>> M, cs = np.empty((6, 6)), np.zeros(5)
    >>> low = inside_parallel(np.array([2, 0, 0, 0, 1], dtype=np.uint8), w, ok, 3, True, M, cs, 2)
    >>> bool(abs(cs.sum() - math.log(1 + math.exp(3))) < 1e-12)
    True
    """
    n = codes.shape[0]
    _start(M, M, n, False)
    lows = np.ones(workers)
    _inside_tasks(codes, logw, allowed, min_loop, scaled, M, cs, np.empty((workers, n + 1)),
                  _column_queue(n, workers), np.zeros(n + 1, dtype=np.int64), np.ones(n + 1), lows)
    return float(lows.min())


def outside_parallel(codes, logw, allowed, min_loop, M, cs, O, P, workers):
    """:func:`outside` with each column's rows shared by ``workers`` threads."""
    n = codes.shape[0]
    _start(M, O, n, True)
    _outside_tasks(codes, logw, allowed, min_loop, M, cs, O, P, np.empty((workers, n + 1)),
                   _column_queue(n, workers))
