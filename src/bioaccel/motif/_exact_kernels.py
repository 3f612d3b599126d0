"""The exact variant's kernels (Numba, no GIL): thresholds and tails of the score distribution on a
motif's integer grid (:mod:`._integer`), exact to the last word, made of the two searches of
:mod:`.tails`:

* the coarse grid (:func:`.coarse_grid.grid_dp`) narrows the optimal threshold to an interval (L, U];
* :func:`exact_band`, a meet-in-the-middle listing by the one word search
  (:func:`.tails.search_prefixes`): it lists every word whose score lies in (L, U] and sums the exact
  probability of those above U.

With both, the tail P(score >= v) is exact for every attainable v in (L, U], and the optimal threshold
(the smallest attainable score whose tail is <= p) is found among them. Words whose grid scores lie
within ``tol`` units of each other are one score (the float sums of a word's entries differ by less),
so a threshold never splits them.
"""
import numpy as np
from numba import njit

from ..runtime.parallel import fetch_add
from .coarse_grid import ceil_shift, grid_dp, max_remainder, score_range, window_cells
from .tails import first_above, search_prefixes, split_point, suffix_table, visitor

NEG = -(1 << 62)
POS = 1 << 62
ONE = np.ones(1)
UNIT = np.ones((1, 4))

# status of a threshold
EXACT, UNREACHABLE, WITHIN_PRECISION, UNPROVEN = 1, 2, 3, 0


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
def exact_band(Q, h, initial, transition, order, sB, pB, tB, L, U, out_q, out_p, node_cap):
    """List every word scoring in (L, U] (score, probability) into out_q/out_p and return (count,
    P(score > U), nodes); count is -1 when the list outgrew out_q or the search ``node_cap`` nodes."""
    cap = out_q.shape[0]
    if h == 0:   # no prefix (order 0 only): the suffix table is every word
        i_lo = first_above(sB, L)
        i_hi = first_above(sB, U)
        if i_hi - i_lo > cap:
            return -1, 0.0, 0
        for i in range(i_lo, i_hi):
            out_q[i - i_lo] = sB[i]
            out_p[i - i_lo] = pB[0, i]
        return i_hi - i_lo, tB[0, i_hi], 0
    listed = np.zeros(1, np.int64)
    done, nodes, above = search_prefixes(Q, h, initial, transition, order, L + 1, np.array([U + 1]), node_cap,
                                         "bioaccel.motif.exact_band", (sB, pB, tB, L, U, out_q, out_p, listed))
    return (listed[0] if done else -1), above, nodes


@visitor("bioaccel.motif.exact_band")
def _list_band(search, state, t, nc, w, whole):
    """:func:`exact_band`'s visitor: a leaf adds its suffixes above U to the mass above U (``whole``) and
    lists those in (L, U] (-1 when they overflow the list)."""
    sB, pB, tB, L, U, out_q, out_p, listed = state
    i_lo = first_above(sB, L - t)
    i_hi = first_above(sB, U - t)
    whole += w * tB[nc, i_hi]
    n = listed[0]
    if n + (i_hi - i_lo) > out_q.shape[0]:
        return -1, whole
    for i in range(i_lo, i_hi):
        out_q[n] = t + sB[i]
        out_p[n] = w * pB[nc, i]
        n += 1
    listed[0] = n
    return 0, whole


#: nodes min_at_least may visit (a closest-sum search: exponential on long matrices)
MIN_SEARCH_NODES = 2_000_000
#: words in a threshold's listing past which one more suffix column pays (MA1890.1's 2.2 million: -25%)
BIG_LISTING = 262_144


@njit(cache=True, nogil=True)
def min_at_least(Q, T):
    """The smallest grid score >= T that some word has (POS if none). Past MIN_SEARCH_NODES nodes, the
    smallest found so far (a score >= T some word has, maybe not the smallest), or T itself if none."""
    best = np.array([POS])      # the search's top: a branch that can only land at or above it is cut
    done, _, _ = search_prefixes(Q, Q.shape[0], ONE, UNIT, 0, T, best, MIN_SEARCH_NODES,
                                 "bioaccel.motif.min_at_least", best)
    return best[0] if done or best[0] < POS else T


@visitor("bioaccel.motif.min_at_least")
def _closest(search, state, t, nc, w, whole):
    """:func:`min_at_least`'s visitor: a whole word (every column chosen) below the best so far is the
    new best (``state``: the best, the search's top)."""
    state[0] = t
    return 0, whole


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
    minQ, maxQ = score_range(Q)
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
        E = max_remainder(Q, r)
        vlump = ceil_shift(U, r)
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
            # arrays of its own and an int64 order (not the read-only globals and a literal 0): the
            # specialization of grid_dp compiled for the calls above serves this one too
            cdist, cbase, clumped = grid_dp(qc, np.ones(1), np.ones((1, 4)), order - order, (L - tol - E) >> r,
                                            ceil_shift(U + 1, r))
            estimate = cdist.sum()
            r2 = max(r - 3, 0)
            last = r == 0 or window_cells(Q >> r2, (L + 1 - max_remainder(Q, r2)) >> r2,
                                          ceil_shift(U, r2)) * transition.shape[0] > max_cells
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
        if window_cells(Q >> r, (L + 1 - max_remainder(Q, r)) >> r, ceil_shift(U, r)) \
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
    minQ, maxQ = score_range(Q)
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
        E = max_remainder(Q, r)
        vlump = ceil_shift(T, r)           # C >= vlump: certainly >= T
        dist, base, lumped = grid_dp(Q >> r, initial, transition, order, (T - E) >> r, vlump)
        low = lumped
        high = lumped + dist.sum()
        if high - low <= max(rtol, 1e-15) * high or r == 0:
            return high == low, low, high
        r = max(r - 3, 0)
        if window_cells(Q >> r, (T - max_remainder(Q, r)) >> r, ceil_shift(T, r)) * transition.shape[0] \
                > max_cells:
            return False, low, high


@njit(cache=True, nogil=True)
def _next_motif(counter, order_idx):
    """The next motif of the queue that thresholds_many's and tails_many's threads share (``order_idx``,
    costliest first), or -1 once every motif is taken."""
    n = fetch_add(counter, 0, 1)
    return order_idx[n] if n < order_idx.shape[0] else -1


@njit(cache=True, nogil=True)
def thresholds_many(Qflat, starts, order_idx, initial, transition, order, ps, rtol, tol, first_cells, max_cells,
                    list_target, list_cap, node_cap, suffix_columns, out_int, out_float, counter):
    """threshold_kernel for motif i (rows starts[i]:starts[i+1] of Qflat) at P-value ps[i], for the motifs
    this thread takes one at a time from the ``counter`` it shares with the others (run on several
    threads by :func:`bioaccel.runtime.parallel.on_threads`), the costliest first (``order_idx``; costs
    differ by orders of magnitude, so static halves would leave a thread idle).
    out_int[i] = (status, T, below, L, U), out_float[i] = (tail_T, tail_below).

    threshold_kernel is called here directly, not through a helper per motif: each level of calls is
    another module that Numba optimises again whole, callees included (1.3 s a level on the 2-core
    machine when the cache is empty)."""
    i = _next_motif(counter, order_idx)
    while i >= 0:
        st, T, tT, below, tb, L, U = threshold_kernel(Qflat[starts[i]:starts[i + 1]], initial, transition, order,
                                                      ps[i], rtol, tol[i], first_cells, max_cells, list_target,
                                                      list_cap, node_cap, suffix_columns)
        out_int[i, 0] = st
        out_int[i, 1] = T
        out_int[i, 2] = below
        out_int[i, 3] = L
        out_int[i, 4] = U
        out_float[i, 0] = tT
        out_float[i, 1] = tb
        i = _next_motif(counter, order_idx)


@njit(cache=True, nogil=True)
def tails_many(Qflat, starts, order_idx, initial, transition, order, Ts, rtol, first_cells, max_cells, node_cap,
               suffix_columns, out_exact, out_bounds, counter):
    """tail_kernel for motif i at grid score Ts[i], for the motifs this thread takes from ``counter``
    (as :func:`thresholds_many`)."""
    i = _next_motif(counter, order_idx)
    while i >= 0:
        exact, low, high = tail_kernel(Qflat[starts[i]:starts[i + 1]], initial, transition, order, Ts[i], rtol,
                                       first_cells, max_cells, node_cap, suffix_columns)
        out_exact[i] = exact
        out_bounds[i, 0] = low
        out_bounds[i, 1] = high
        i = _next_motif(counter, order_idx)
