"""The exact variant's kernels (Numba, no GIL): tails of the score distribution on a motif's integer grid
(:mod:`._integer`), exact to the last word.

Two tools, used together:

* :func:`grid_dp`, a dynamic programme over a *coarse* copy of the grid (each entry shifted right by r
  bits, so rounded down): for a word u with coarse sum C(u), its grid score lies in
  [C(u) 2**r, C(u) 2**r + E], E the sum of the columns' largest remainders. The distribution of C
  gives certified bounds on every tail, so it narrows the optimal threshold to an interval (L, U].
* :func:`exact_band`, a meet-in-the-middle listing: every suffix of the last k columns is scored and
  sorted once (:func:`suffix_table`); a depth-first search over the first h = m - k columns, pruned
  whenever no completion can land above L, joins each prefix with the sorted suffixes by binary search.
  It lists every word whose score lies in (L, U] and sums the exact probability of those above U.

With both, the tail P(score >= v) is exact for every attainable v in (L, U], and the optimal threshold
(the smallest attainable score whose tail is <= p) is found among them. Words whose grid scores lie
within ``tol`` units of each other are one score (the float sums of a word's entries differ by less),
so a threshold never splits them.
"""
import numpy as np
from numba import njit, prange

from ..runtime.parallel import fetch_add

NEG = -(1 << 62)
POS = 1 << 62
ONE = np.ones(1)
UNIT = np.ones((1, 4))

# status of a threshold
EXACT, UNREACHABLE, WITHIN_PRECISION, UNPROVEN = 1, 2, 3, 0


@njit(cache=True, nogil=True)
def _ceil_shift(a, r):
    """ceil(a / 2**r) for int64 a."""
    return -((-a) >> r)


@njit(cache=True, nogil=True)
def grid_dp(q, initial, transition, order, vlow, vlump, wide=False):
    """Distribution of C = sum_j q[j, x_j] under the Markov chain, restricted to C >= vlow, with the
    mass of words certain to reach C >= vlump lumped. Returns (dist, base, lumped): dist[i] =
    P(C = base + i) for base + i in [vlow, vlump). ``wide``: each column's cells on every core
    (:func:`_spread_wide`; the same bits), for grids of millions of cells."""
    m = q.shape[0]
    nctx = transition.shape[0]
    colmin = np.empty(m, np.int64)
    colmax = np.empty(m, np.int64)
    for j in range(m):
        colmin[j] = q[j].min()
        colmax[j] = q[j].max()
    rmin = np.zeros(m + 1, np.int64)   # sum of column minima from j to the end
    rmax = np.zeros(m + 1, np.int64)
    for j in range(m - 1, -1, -1):
        rmin[j] = rmin[j + 1] + colmin[j]
        rmax[j] = rmax[j + 1] + colmax[j]
    pmin = np.zeros(m + 1, np.int64)   # sums of the first j columns
    pmax = np.zeros(m + 1, np.int64)
    for j in range(m):
        pmin[j + 1] = pmin[j] + colmin[j]
        pmax[j + 1] = pmax[j] + colmax[j]
    lo = np.empty(m + 1, np.int64)     # kept window of partial sums after j columns
    hi = np.empty(m + 1, np.int64)
    for j in range(m + 1):
        lo[j] = max(pmin[j], vlow - rmax[j])
        hi[j] = min(pmax[j], vlump - rmin[j] - 1)
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
    # the first `order` letters come together from the chain's initial distribution
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
    for j in range(start, m):
        nwidth = max(hi[j + 1] - lo[j + 1] + 1, 0)
        nxt = bufs[(j - start + 1) % 2]
        # the cells landing above the new window (certain to reach vlump), in the order of one loop over
        # ctx, x, i; then those inside it, each (ctx, x) a loop without a branch (SIMD), or with ``wide``
        # blocks of cells on every core; every sum in the order of one loop over i: the same bits either
        # way (a cell of 0 adds +0.0, which changes no sum here)
        for ctx in range(nctx):
            for x in range(4):
                prob = transition[ctx, x]
                base = lo[j] + q[j, x] - lo[j + 1]     # index in nxt of cur[ctx, 0]
                for i in range(_window_split(base, width, nwidth)[1], width):
                    lumped += cur[ctx, i] * prob
        if wide:
            _spread_wide(cur, nxt, q[j], lo[j], lo[j + 1], transition, width, nwidth)
        else:
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
    dist = np.zeros(width, np.float64)
    for ctx in range(nctx):
        for i in range(width):
            dist[i] += cur[ctx, i]
    return dist, lo[m], lumped


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
    """Cells (per context) grid_dp keeps over all columns for this window: its cost."""
    m = q.shape[0]
    rmin = np.zeros(m + 1, np.int64)
    rmax = np.zeros(m + 1, np.int64)
    for j in range(m - 1, -1, -1):
        rmin[j] = rmin[j + 1] + q[j].min()
        rmax[j] = rmax[j + 1] + q[j].max()
    p0 = 0
    p1 = 0
    total = 0
    for j in range(m + 1):
        lo = max(p0, vlow - rmax[j])
        hi = min(p1, vlump - rmin[j] - 1)
        if hi >= lo:
            total += hi - lo + 1
        if j < m:
            p0 += q[j].min()
            p1 += q[j].max()
    return total


@njit(cache=True, nogil=True)
def best_word_probability(Q, initial, transition, order):
    """P(the word scores the maximum), i.e. every column takes one of its best letters."""
    m = Q.shape[0]
    best = np.zeros((m, 4), np.int64)
    for j in range(m):
        top = Q[j].max()
        for x in range(4):
            if Q[j, x] == top:
                best[j, x] = 1
    dist, base, lumped = grid_dp(best, initial, transition, order, m, m)
    return lumped + dist.sum()


@njit(cache=True, nogil=True)
def suffix_table(Q, h, transition):
    """Every word of columns h..m-1: scores sorted ascending, probabilities given each context of the
    chain (the last ``order`` letters before column h), and their tails (sums from each index up)."""
    m = Q.shape[0]
    k = m - h
    n = 1 << (2 * k)
    nctx = transition.shape[0]
    scores = np.zeros(n, np.int64)
    probs = np.ones((nctx, n), np.float64)
    for w in range(n):
        s = 0
        for i in range(k):
            s += Q[h + i, (w >> (2 * (k - 1 - i))) & 3]
        scores[w] = s
        for c in range(nctx):
            ctx = c
            pw = 1.0
            for i in range(k):
                x = (w >> (2 * (k - 1 - i))) & 3
                pw *= transition[ctx, x]
                ctx = (ctx * 4 + x) % nctx
            probs[c, w] = pw
    idx = np.argsort(scores)
    s_sorted = scores[idx]
    p_sorted = np.empty((nctx, n), np.float64)
    tails = np.zeros((nctx, n + 1), np.float64)
    for c in range(nctx):
        for i in range(n):
            p_sorted[c, i] = probs[c, idx[i]]
        for i in range(n - 1, -1, -1):
            tails[c, i] = tails[c, i + 1] + p_sorted[c, i]
    return s_sorted, p_sorted, tails


@njit(cache=True, nogil=True)
def _first_above(a, x):
    """First index i with a[i] > x (``a`` sorted ascending)."""
    lo = 0
    hi = a.shape[0]
    while lo < hi:
        mid = (lo + hi) >> 1
        if a[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def exact_band(Q, h, initial, transition, order, sB, pB, tB, L, U, out_q, out_p, node_cap):
    """List every word scoring in (L, U] (score, probability) into out_q/out_p and return (count,
    P(score > U), nodes); count is -1 when the list outgrew out_q or the search ``node_cap`` nodes."""
    m = Q.shape[0]
    nctx = transition.shape[0]
    cap = out_q.shape[0]
    rmax = np.zeros(m + 1, np.int64)
    rmin = np.zeros(m + 1, np.int64)
    for j in range(m - 1, -1, -1):
        rmax[j] = rmax[j + 1] + Q[j].max()
        rmin[j] = rmin[j + 1] + Q[j].min()
    above = 0.0
    n = 0
    if h == 0:   # no prefix (order 0 only): the suffix table is every word
        i_lo = _first_above(sB, L)
        i_hi = _first_above(sB, U)
        if i_hi - i_lo > cap:
            return -1, 0.0, 0
        for i in range(i_lo, i_hi):
            out_q[n] = sB[i]
            out_p[n] = pB[0, i]
            n += 1
        return n, tB[0, i_hi], 0
    nodes = 0
    letters = np.zeros(h + 1, np.int64)
    ps = np.zeros(h + 1, np.int64)
    pw = np.ones(h + 1)
    pc = np.zeros(h + 1, np.int64)
    j = 0
    while j >= 0:
        if letters[j] > 3:
            j -= 1
            if j >= 0:
                letters[j] += 1
            continue
        nodes += 1
        if nodes > node_cap:
            return -1, above, nodes
        x = letters[j]
        t = ps[j] + Q[j, x]
        ctx = pc[j]
        nc = (ctx * 4 + x) % nctx
        if j < order:
            w = initial[nc] if j + 1 == order else 1.0
        else:
            w = pw[j] * transition[ctx, x]
        if t + rmax[j + 1] <= L:                        # no completion gets above L
            letters[j] += 1
            continue
        if j + 1 >= order and t + rmin[j + 1] > U:      # every completion is above U
            above += w
            letters[j] += 1
            continue
        if j == h - 1:
            if h < order:       # a word shorter than the chain's order: the initial k-mer's marginal
                rest = order - h
                w = 0.0
                for tail in range(1 << (2 * rest)):
                    w += initial[(nc << (2 * rest)) | tail]
            i_lo = _first_above(sB, L - t)
            i_hi = _first_above(sB, U - t)
            above += w * tB[nc, i_hi]
            if n + (i_hi - i_lo) > cap:
                return -1, above, nodes
            for i in range(i_lo, i_hi):
                out_q[n] = t + sB[i]
                out_p[n] = w * pB[nc, i]
                n += 1
            letters[j] += 1
        else:
            ps[j + 1] = t
            pc[j + 1] = nc
            pw[j + 1] = w
            j += 1
            letters[j] = 0
    return n, above, nodes


#: nodes min_at_least may visit (a closest-sum search: exponential on long matrices)
MIN_SEARCH_NODES = 2_000_000
#: words in a threshold's listing past which one more suffix column pays (MA1890.1's 2.2 million: -25%)
BIG_LISTING = 262_144


@njit(cache=True, nogil=True)
def min_at_least(Q, T):
    """The smallest grid score >= T that some word has (POS if none). Past MIN_SEARCH_NODES nodes, the
    smallest found so far (a score >= T some word has, maybe not the smallest), or T itself if none."""
    m = Q.shape[0]
    rmax = np.zeros(m + 1, np.int64)
    rmin = np.zeros(m + 1, np.int64)
    for j in range(m - 1, -1, -1):
        rmax[j] = rmax[j + 1] + Q[j].max()
        rmin[j] = rmin[j + 1] + Q[j].min()
    best = POS
    letters = np.zeros(m + 1, np.int64)
    s = np.zeros(m + 1, np.int64)
    nodes = 0
    j = 0
    while j >= 0:
        if letters[j] > 3:
            j -= 1
            if j >= 0:
                letters[j] += 1
            continue
        nodes += 1
        if nodes > MIN_SEARCH_NODES:
            return best if best < POS else T
        t = s[j] + Q[j, letters[j]]
        if t + rmax[j + 1] < T or t + rmin[j + 1] >= best:
            letters[j] += 1
            continue
        if j == m - 1:
            best = t
            letters[j] += 1
        else:
            s[j + 1] = t
            j += 1
            letters[j] = 0
    return best


@njit(cache=True, nogil=True)
def split_point(Q, order, suffix_columns):
    """h, the number of prefix columns: the last min(suffix_columns, m/2) columns are tabulated."""
    m = Q.shape[0]
    k = min(suffix_columns, (m + 1) // 2, m - min(order, m))
    return m - k


@njit(cache=True, nogil=True)
def _max_remainder(Q, r):
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
def threshold_kernel(Q, initial, transition, order, p, rtol, tol, first_cells, max_cells, list_target, list_cap,
                     node_cap, suffix_columns):
    """The optimal threshold of grid matrix ``Q`` at P-value ``p``: the smallest attainable score (scores
    within ``tol`` units being one score) whose tail is <= p.

    Returns (status, T, tail_T, below, tail_below, L, U):
      EXACT:            T optimal with its exact tail; ``below`` the next score down with its exact tail
                        (> p), or NEG when it was not listed (then tail(L) > p is the certificate);
      UNREACHABLE:      even the best word is more probable than p (T = max + 1);
      WITHIN_PRECISION: ``rtol`` > 0 and the words whose side is uncertain weigh at most rtol * p: T = U
                        is valid, tail(U) in [tail_below, tail_T] (tail_T <= p), the optimum in (L, U];
      UNPROVEN:         the budget ran out first: the same, without the precision.
    """
    m = Q.shape[0]
    minQ = 0
    maxQ = 0
    for j in range(m):
        minQ += Q[j].min()
        maxQ += Q[j].max()
    if p >= 1.0:
        return EXACT, minQ, 1.0, NEG, 1.0, minQ - 1, minQ
    top = best_word_probability(Q, initial, transition, order)
    if top > p:
        return UNREACHABLE, maxQ + 1, 0.0, maxQ, top, maxQ, maxQ + 1
    r = 0
    while ((maxQ - minQ) >> r) > first_cells:
        r += 1
    L = minQ - 1
    U = maxQ
    h = -1
    hi_tail = 0.0
    lowU = 0.0
    while True:
        qc = Q >> r
        E = _max_remainder(Q, r)
        vlump = _ceil_shift(U, r)
        dist, base, lumped = grid_dp(qc, initial, transition, order, (L + 1 - E) >> r, vlump)
        nd = dist.size
        acc = lumped
        for i in range(nd, -1, -1):        # coarse cell c = base + i, from the top
            if i < nd:
                acc += dist[i]
            if acc <= p:                   # every word of cells >= c: tail(T) <= acc for T > (c-1) 2^r + E
                cand = ((base + i - 1) << r) + E + 1
                if cand < U:
                    U = cand
                    hi_tail = acc
            else:                          # words certainly >= c 2^r weigh more than p
                cand = (base + i) << r
                if cand > L:
                    L = cand
                break
        # mass whose side of the optimum is still open (coarse cells from just above L to U), and a
        # lower bound of tail(U) (the words certainly >= U)
        band = 0.0
        lowU = lumped
        for i in range(nd):
            c = base + i
            if (c << r) + E > L and (c << r) < U:
                band += dist[i]
            if (c << r) >= U:
                lowU += dist[i]
        if rtol > 0.0 and band <= rtol * p:      # report an attainable score: the first at or past U
            return WITHIN_PRECISION, min_at_least(Q, U), hi_tail, NEG, lowU, L, U
        if rtol <= 0.0:
            # how many words the listing would meet (coarse sums that may land in (L - tol, U]); list
            # them when they are few, or when the next grid would be too large to afford anyway
            cdist, cbase, clumped = grid_dp(qc, ONE, UNIT, 0, (L - tol - E) >> r, _ceil_shift(U + 1, r))
            estimate = cdist.sum()
            r2 = max(r - 3, 0)
            last = r == 0 or window_cells(Q >> r2, (L + 1 - _max_remainder(Q, r2)) >> r2,
                                          _ceil_shift(U, r2)) * transition.shape[0] > max_cells
            if estimate <= list_target or (last and estimate <= list_cap):
                if h < 0:
                    # a long listing (hundreds of thousands of words) costs fewer prefix nodes with one
                    # more tabulated column (4 times the table, a quarter of the leaves)
                    wide = estimate > BIG_LISTING and transition.shape[0] == 1
                    h = split_point(Q, order, suffix_columns + 1 if wide else suffix_columns)
                    sB, pB, tB = suffix_table(Q, h, transition)
                size = int(min(estimate, list_cap)) + 16
                out_q = np.empty(size, np.int64)
                out_p = np.empty(size, np.float64)
                cnt, above, nodes = exact_band(Q, h, initial, transition, order, sB, pB, tB, L - tol - 1, U,
                                               out_q, out_p, node_cap)
                if cnt >= 0:
                    return _walk(Q, out_q[:cnt], out_p[:cnt], above, p, tol, L, U)
        if r == 0:
            return UNPROVEN, min_at_least(Q, U), hi_tail, NEG, lowU, L, U
        r = max(r - 3, 0)
        if window_cells(Q >> r, (L + 1 - _max_remainder(Q, r)) >> r, _ceil_shift(U, r)) \
                * transition.shape[0] > max_cells:
            return UNPROVEN, min_at_least(Q, U), hi_tail, NEG, lowU, L, U


@njit(cache=True, nogil=True)
def _walk(Q, qs, ps, above, p, tol, L, U):
    """The optimum from the listed words of (L - tol - 1, U] and the mass above U: groups of scores
    within ``tol`` of each other, from the top down, until a group's tail passes p."""
    idx = np.argsort(-qs)
    cnt = qs.shape[0]
    tail = above
    best_T = NEG
    best_tail = -1.0
    below = NEG
    below_tail = -1.0
    i = 0
    while i < cnt:
        low = qs[idx[i]]
        k = i
        while k < cnt and low - qs[idx[k]] <= tol:   # one score: the group reaches down while within tol
            low = qs[idx[k]]
            tail += ps[idx[k]]
            k += 1
        if tail <= p:
            best_T = low
            best_tail = tail
        else:
            below = low
            below_tail = tail
            break
        i = k
    if best_T == NEG:                   # nothing listed qualifies: the smallest attainable score past U
        best_T = min_at_least(Q, U + 1)
        best_tail = above
    return EXACT, best_T, best_tail, below, below_tail, L, U


@njit(cache=True, nogil=True)
def tail_kernel(Q, initial, transition, order, T, rtol, first_cells, max_cells, node_cap, suffix_columns):
    """P(score >= T) for grid matrix ``Q``: returns (exact, low, high). Exact (low == high) by the
    meet-in-the-middle search when it fits ``node_cap`` (whatever ``rtol``: it is usually the cheaper
    way); otherwise certified bounds from the coarse grid, refined until high - low <= rtol * high or
    the grid outgrows ``max_cells``."""
    m = Q.shape[0]
    minQ = 0
    maxQ = 0
    for j in range(m):
        minQ += Q[j].min()
        maxQ += Q[j].max()
    if T <= minQ:
        return True, 1.0, 1.0
    if T > maxQ:
        return True, 0.0, 0.0
    h = split_point(Q, order, suffix_columns)
    sB, pB, tB = suffix_table(Q, h, transition)
    empty_q = np.empty(0, np.int64)
    empty_p = np.empty(0, np.float64)
    cnt, above, nodes = exact_band(Q, h, initial, transition, order, sB, pB, tB, T - 1, T - 1, empty_q, empty_p,
                                   node_cap)
    if cnt >= 0:
        return True, above, above
    r = 0
    while ((maxQ - minQ) >> r) > first_cells:
        r += 1
    low = 0.0
    high = 1.0
    while True:
        E = _max_remainder(Q, r)
        vlump = _ceil_shift(T, r)           # C >= vlump: certainly >= T
        dist, base, lumped = grid_dp(Q >> r, initial, transition, order, (T - E) >> r, vlump)
        low = lumped
        high = lumped + dist.sum()
        if high - low <= max(rtol, 1e-15) * high or r == 0:
            return high == low, low, high
        r = max(r - 3, 0)
        if window_cells(Q >> r, (T - _max_remainder(Q, r)) >> r, _ceil_shift(T, r)) * transition.shape[0] \
                > max_cells:
            return False, low, high


@njit(cache=True, nogil=True, parallel=True)
def thresholds_many(Qflat, starts, order_idx, initial, transition, order, ps, rtol, tol, first_cells, max_cells,
                    list_target, list_cap, node_cap, suffix_columns, out_int, out_float, workers):
    """threshold_kernel for motif i (rows starts[i]:starts[i+1] of Qflat) at P-value ps[i], for every i,
    on ``workers`` threads that take the motifs one at a time from a shared counter, the costliest first
    (``order_idx``; costs differ by orders of magnitude, so static halves would leave a thread idle).
    out_int[i] = (status, T, below, L, U), out_float[i] = (tail_T, tail_below)."""
    counter = np.zeros(1, np.int64)
    for _ in prange(workers):
        while True:
            n = fetch_add(counter, 0, 1)
            if n >= order_idx.shape[0]:
                break
            _one_threshold(Qflat, starts, order_idx[n], initial, transition, order, ps, rtol, tol, first_cells,
                           max_cells, list_target, list_cap, node_cap, suffix_columns, out_int, out_float)


@njit(cache=True, nogil=True)
def _one_threshold(Qflat, starts, i, initial, transition, order, ps, rtol, tol, first_cells, max_cells,
                   list_target, list_cap, node_cap, suffix_columns, out_int, out_float):
    Q = Qflat[starts[i]:starts[i + 1]]
    st, T, tT, below, tb, L, U = threshold_kernel(Q, initial, transition, order, ps[i], rtol, tol[i],
                                                  first_cells, max_cells, list_target, list_cap, node_cap,
                                                  suffix_columns)
    out_int[i, 0] = st
    out_int[i, 1] = T
    out_int[i, 2] = below
    out_int[i, 3] = L
    out_int[i, 4] = U
    out_float[i, 0] = tT
    out_float[i, 1] = tb


@njit(cache=True, nogil=True, parallel=True)
def tails_many(Qflat, starts, order_idx, initial, transition, order, Ts, rtol, first_cells, max_cells, node_cap,
               suffix_columns, out_exact, out_bounds, workers):
    """tail_kernel for motif i at grid score Ts[i], for every i, on ``workers`` threads sharing a counter."""
    counter = np.zeros(1, np.int64)
    for _ in prange(workers):
        while True:
            n = fetch_add(counter, 0, 1)
            if n >= order_idx.shape[0]:
                break
            i = order_idx[n]
            _one_tail(Qflat, starts, i, initial, transition, order, Ts, rtol, first_cells, max_cells, node_cap,
                      suffix_columns, out_exact, out_bounds)


@njit(cache=True, nogil=True)
def _one_tail(Qflat, starts, i, initial, transition, order, Ts, rtol, first_cells, max_cells, node_cap,
              suffix_columns, out_exact, out_bounds):
    Q = Qflat[starts[i]:starts[i + 1]]
    exact, low, high = tail_kernel(Q, initial, transition, order, Ts[i], rtol, first_cells, max_cells, node_cap,
                                   suffix_columns)
    out_exact[i] = exact
    out_bounds[i, 0] = low
    out_bounds[i, 1] = high
