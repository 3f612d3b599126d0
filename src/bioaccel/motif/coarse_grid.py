"""The distribution of a motif's coarse sums (Numba, without the GIL): each entry of the motif's integer
grid (:mod:`._integer`) shifted right by r bits, so rounded down, for a word u with coarse sum C(u) its
grid score lies in [C(u) 2**r, C(u) 2**r + E], E the sum of the columns' largest remainders
(:func:`max_remainder`); the distribution of C (:func:`grid_dp`) gives certified bounds on every tail.
The exact variant narrows its thresholds with it and the scan bounds its P-values with it; the exact
word search is :mod:`.tails`.

>>> import numpy as np
>>> Q = np.array([[0, 5, 9, 12], [3, 3, 6, 1]], dtype=np.int64)
>>> q = Q >> 2                                        # each entry rounded down to a multiple of 4
>>> q.tolist(), max_remainder(Q, 2)                   # a word's score: 4 C(u) .. 4 C(u) + 1 + 3
([[0, 1, 2, 3], [0, 0, 1, 0]], 4)
"""
import numpy as np
from numba import njit, prange


@njit(cache=True, nogil=True)
def ceil_shift(a, r):
    """ceil(a / 2**r) for int64 a.

    >>> ceil_shift(5, 1), ceil_shift(-5, 1)
    (3, -2)
    """
    return -((-a) >> r)


@njit(cache=True, nogil=True)
def max_remainder(Q, r):
    """E: the most that shifting every entry of ``Q`` right by r bits can lose in one word (the sum of
    each column's largest remainder).

    >>> import numpy as np
    >>> max_remainder(np.array([[4, 5, 6, 7], [0, 1, 0, 0]], dtype=np.int64), 2)
    4
    """
    E = 0
    for j in range(Q.shape[0]):
        worst = 0
        for x in range(4):
            d = Q[j, x] - ((Q[j, x] >> r) << r)
            if d > worst:
                worst = d
        E += worst
    return E


@njit(cache=True, nogil=True)
def column_sums(q):
    """The sums of the columns' least and greatest entries of grid matrix ``q`` (m columns): of the
    columns before j (``pmin[j]``, ``pmax[j]``) and of those from j on (``rmin[j]``, ``rmax[j]``), for
    j = 0 .. m: the least and the most a word's first j columns, or its last m - j, can score.

    >>> import numpy as np
    >>> [a.tolist() for a in column_sums(np.array([[0, 3, 1, 1], [2, 2, 5, 2]], dtype=np.int64))]
    [[0, 0, 2], [0, 3, 8], [2, 2, 0], [8, 5, 0]]
    """
    m = q.shape[0]
    pmin = np.zeros(m + 1, np.int64)
    pmax = np.zeros(m + 1, np.int64)
    rmin = np.zeros(m + 1, np.int64)
    rmax = np.zeros(m + 1, np.int64)
    for j in range(m):
        pmin[j + 1] = pmin[j] + q[j].min()
        pmax[j + 1] = pmax[j] + q[j].max()
    for j in range(m - 1, -1, -1):
        rmin[j] = rmin[j + 1] + q[j].min()
        rmax[j] = rmax[j + 1] + q[j].max()
    return pmin, pmax, rmin, rmax


@njit(cache=True, nogil=True)
def score_range(q):
    """(lowest, highest) score of a word of grid matrix ``q``.

    >>> import numpy as np
    >>> score_range(np.array([[0, 3, 1, 1], [2, 2, 5, 2]], dtype=np.int64))
    (2, 8)
    """
    _, _, rmin, rmax = column_sums(q)
    return rmin[0], rmax[0]


@njit(cache=True, nogil=True)
def partial_windows(q, vlow, vlump):
    """The partial sums worth keeping after each number of columns j (``lo[j]`` .. ``hi[j]``; none where
    hi < lo) when only the words that may end at or above ``vlow`` matter and those certain to reach
    ``vlump`` are lumped: those that can still end at ``vlow`` or more and may still end below
    ``vlump`` (a partial sum above ``hi[j]`` is certain to reach ``vlump``). Also gives ``rmin``
    (:func:`column_sums`).

    >>> import numpy as np
    >>> lo, hi, _ = partial_windows(np.eye(4, dtype=np.int64)[:2], 1, 2)
    >>> lo.tolist(), hi.tolist()          # after one column: 0 or 1 (A.); after both: 1 (AC lumped)
    ([0, 0, 1], [0, 1, 1])
    """
    pmin, pmax, rmin, rmax = column_sums(q)
    m = q.shape[0]
    lo = np.empty(m + 1, np.int64)
    hi = np.empty(m + 1, np.int64)
    for j in range(m + 1):
        lo[j] = max(pmin[j], vlow - rmax[j])
        hi[j] = min(pmax[j], vlump - rmin[j] - 1)
    return lo, hi, rmin


@njit(cache=True, nogil=True)
def grid_dp(q, initial, transition, order, vlow, vlump):
    """Distribution of C = sum_j q[j, x_j] under the Markov chain, restricted to C >= vlow, with the
    mass of words certain to reach C >= vlump lumped. Returns (dist, base, lumped): dist[i] =
    P(C = base + i) for base + i in [vlow, vlump). :func:`grid_dp_wide` is the same on every core (the
    same bits), for grids of millions of cells; kept apart so that a caller of this one compiles no
    parallel region (0.75 s a specialization on the 2-core machine).

    >>> import numpy as np
    >>> dist, base, lumped = grid_dp(np.eye(4, dtype=np.int64)[:2], np.ones(1), np.full((1, 4), 0.25), 0, 1, 2)
    >>> dist.tolist(), int(base), lumped              # P(C = 1) = 6/16, P(C >= 2) = 1/16
    ([0.375], 1, 0.0625)
    """
    m = q.shape[0]
    lo, hi, start, bufs, width, lumped = _dp_start(q, initial, transition, order, vlow, vlump)
    cur = bufs[0]
    for j in range(start, m):
        nxt, nwidth, lumped = _dp_column(cur, bufs, q, lo, hi, j, start, transition, width, lumped)
        # the cells inside the new window, each (ctx, x) a loop without a branch (SIMD); every sum in the
        # order of one loop over i (a cell of 0 adds +0.0, which changes no sum here)
        nctx = transition.shape[0]
        for ctx in range(nctx):
            for i in range(nwidth):
                nxt[ctx, i] = 0.0
        for ctx in range(nctx):
            for x in range(4):
                prob = transition[ctx, x]
                base = lo[j] + q[j, x] - lo[j + 1]
                first, stop = _window_split(base, width, nwidth)
                row = cur[ctx]
                out = nxt[(ctx * 4 + x) % nctx]
                for i in range(first, stop):
                    out[base + i] += row[i] * prob
        cur = nxt
        width = nwidth
    return _dp_total(cur, width), lo[m], lumped


@njit(cache=True, nogil=True)
def grid_dp_wide(q, initial, transition, order, vlow, vlump):
    """:func:`grid_dp` with each column's cells on every core (:func:`_spread_wide`; the same bits).

    >>> import numpy as np
    >>> args = (np.arange(12, dtype=np.int64).reshape(3, 4), np.ones(1), np.full((1, 4), 0.25), 0, 5, 20)
    >>> wide, one = grid_dp_wide(*args), grid_dp(*args)
    >>> wide[0].tolist() == one[0].tolist() and wide[1:] == one[1:]
    True
    """
    m = q.shape[0]
    lo, hi, start, bufs, width, lumped = _dp_start(q, initial, transition, order, vlow, vlump)
    cur = bufs[0]
    for j in range(start, m):
        nxt, nwidth, lumped = _dp_column(cur, bufs, q, lo, hi, j, start, transition, width, lumped)
        _spread_wide(cur, nxt, q[j], lo[j], lo[j + 1], transition, width, nwidth)
        cur = nxt
        width = nwidth
    return _dp_total(cur, width), lo[m], lumped


@njit(cache=True, nogil=True)
def _dp_column(cur, bufs, q, lo, hi, j, start, transition, width, lumped):
    """Column j of :func:`grid_dp` and :func:`grid_dp_wide` opened: (the buffer of the next column, the
    next window's width, the mass lumped so far with that of the cells that leave the window above)."""
    nwidth = max(hi[j + 1] - lo[j + 1] + 1, 0)
    nxt = bufs[(j - start + 1) % 2]
    lumped = _lump_column(cur, q[j], lo[j], lo[j + 1], transition, width, nwidth, lumped)
    return nxt, nwidth, lumped


@njit(cache=True, nogil=True)
def _dp_start(q, initial, transition, order, vlow, vlump):
    """The first ``order`` letters of :func:`grid_dp` and :func:`grid_dp_wide` (from the chain's initial
    distribution): (the kept window [lo[j], hi[j]] of partial sums after j columns, the column reached,
    the two buffers, the window's width there, the mass lumped so far)."""
    lo, hi, rmin = partial_windows(q, vlow, vlump)
    m = q.shape[0]
    nctx = transition.shape[0]
    lumped = 0.0
    start = min(order, m)
    # two buffers as wide as the widest column, used in turn: one allocation each, not one per column
    # (many threads allocating and freeing large blocks serialise on the kernel's memory map)
    widest = 0
    for j in range(start, m + 1):
        widest = max(widest, hi[j] - lo[j] + 1)
    bufs = np.zeros((2, nctx, max(widest, 0)), np.float64)
    width = max(hi[start] - lo[start] + 1, 0)
    cur = bufs[0]
    for kmer in range(nctx):
        v = 0
        for j in range(start):
            v += q[j, (kmer >> (2 * (order - 1 - j))) & 3]
        prob = initial[kmer]
        if v > hi[start]:
            if v + rmin[start] >= vlump:
                lumped += prob
        elif v >= lo[start]:
            cur[kmer, v - lo[start]] += prob
    return lo, hi, start, bufs, width, lumped


@njit(cache=True, nogil=True)
def _lump_column(cur, qj, lo_j, lo_next, transition, width, nwidth, lumped):
    """``lumped`` plus the cells of one column of :func:`grid_dp` landing above the next window
    (certain to reach vlump), in the order of one loop over ctx, x, i."""
    nctx = transition.shape[0]
    for ctx in range(nctx):
        for x in range(4):
            prob = transition[ctx, x]
            base = lo_j + qj[x] - lo_next     # index in nxt of cur[ctx, 0]
            for i in range(_window_split(base, width, nwidth)[1], width):
                lumped += cur[ctx, i] * prob
    return lumped


@njit(cache=True, nogil=True)
def _dp_total(cur, width):
    """The last column's cells summed over the contexts."""
    dist = np.zeros(width, np.float64)
    for ctx in range(cur.shape[0]):
        for i in range(width):
            dist[i] += cur[ctx, i]
    return dist


@njit(cache=True, nogil=True)
def _window_split(base, width, nwidth):
    """The cells i of a column of :func:`grid_dp` (0 <= i < width) that land in the next column's window
    (base + i in [0, nwidth)): [first, stop); those from stop on land above it."""
    first = min(max(-base, 0), width)
    return first, min(max(nwidth - base, first), width)


#: Cells of a column that one core of :func:`_spread_wide` takes at a time (64 KB of float64)
WIDE_BLOCK = 8192


@njit(cache=True, nogil=True, parallel=True)
def _spread_wide(cur, nxt, qj, lo_j, lo_next, transition, width, nwidth):
    """One column of :func:`grid_dp`'s table inside the window, blocks of :data:`WIDE_BLOCK` cells of
    ``nxt`` on every core: each cell's terms still come in the order of ctx, then x, so every sum has the
    bits of grid_dp's one pass per (ctx, x)."""
    nctx = transition.shape[0]
    for b in prange((nwidth + WIDE_BLOCK - 1) // WIDE_BLOCK):
        b0 = b * WIDE_BLOCK
        b1 = min(b0 + WIDE_BLOCK, nwidth)
        for ctx in range(nctx):
            for t in range(b0, b1):
                nxt[ctx, t] = 0.0
        for ctx in range(nctx):
            for x in range(4):
                prob = transition[ctx, x]
                base = lo_j + qj[x] - lo_next          # targets t = base + i, 0 <= i < width
                first = max(b0, base)
                last = min(b1, base + width)
                out = nxt[(ctx * 4 + x) % nctx]
                for t in range(first, last):
                    out[t] += cur[ctx, t - base] * prob


@njit(cache=True, nogil=True)
def window_cells(q, vlow, vlump):
    """Cells (per context) :func:`grid_dp` keeps over all columns for this window: its cost.

    >>> import numpy as np
    >>> window_cells(np.eye(4, dtype=np.int64)[:2], 0, 3)        # sums 0; 0..1; 0..2
    6
    """
    lo, hi, _ = partial_windows(q, vlow, vlump)
    return np.maximum(hi - lo + 1, 0).sum()
