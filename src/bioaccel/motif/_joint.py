"""The joint tail P(score1 >= A and score2 >= B) of two aligned matrices, exactly, on their integer
grids (COMPARE's "both" at one shift): a meet-in-the-middle sweep.

Every word of the last k columns (a suffix) is a point (its two scores) weighed by its probability
given the chain's context; every word of the first h columns (a prefix) asks for the weight of the
suffixes with score1 >= A - t1 and score2 >= B - t2. Prefixes sorted by their first need, suffixes by
their first score, both descending: sweeping them together, each suffix enters a Fenwick tree over the
ranks of its second score once, and each prefix's answer is a suffix sum of that tree. O(n log n) for
n = 4**(span/2) words on each side, exact to the last word (spans of up to about 16 columns).
"""
import numpy as np
from numba import njit

from .coarse_grid import column_sums
from .tails import word_probabilities, word_scores


@njit(cache=True, nogil=True)
def _fenwick_add(tree, i, value):
    i += 1
    while i < tree.shape[0]:
        tree[i] += value
        i += i & (-i)


@njit(cache=True, nogil=True)
def _fenwick_prefix(tree, i):
    """Sum of the values at indices 0..i-1."""
    total = 0.0
    while i > 0:
        total += tree[i]
        i -= i & (-i)
    return total


@njit(cache=True, nogil=True)
def joint_tail(Q1, Q2, initial, transition, order, A, B, suffix_columns):
    """P(Q1(u) >= A and Q2(u) >= B) for integer grid matrices Q1, Q2 of the same span (at least
    ``order`` + 1 columns)."""
    m = Q1.shape[0]
    nctx = transition.shape[0]
    k = min(suffix_columns, (m + 1) // 2, m - min(order, m))
    h = m - k
    n = 1 << (2 * k)
    s1 = np.zeros(n, np.int64)
    s2 = np.zeros(n, np.int64)
    for w in range(n):
        for i in range(k):
            x = (w >> (2 * (k - 1 - i))) & 3
            s1[w] += Q1[h + i, x]
            s2[w] += Q2[h + i, x]
    probs = word_probabilities(k, transition)
    by_s1 = np.argsort(-s1)                      # suffixes, first score descending
    ranks2 = np.empty(n, np.int64)               # rank of each suffix's second score, ascending
    order2 = np.argsort(s2)
    for r in range(n):
        ranks2[order2[r]] = r
    sorted2 = s2[order2]
    # the prefixes: every word of the first h columns, pruned where no suffix can lift both scores
    _, _, rmin1, rmax1 = column_sums(Q1)
    _, _, rmin2, rmax2 = column_sums(Q2)
    total = 0.0
    nq = 1 << (2 * h)
    need1 = np.empty(nq, np.int64)
    need2 = np.empty(nq, np.int64)
    weight = np.empty(nq, np.float64)
    qctx = np.empty(nq, np.int64)
    q = 0
    for w in range(nq):
        t1, t2, pw, ctx = word_scores(w, h, Q1, Q2, initial, transition, order)
        if t1 + rmax1[h] < A or t2 + rmax2[h] < B:
            continue                              # no completion reaches both thresholds
        if t1 + rmin1[h] >= A and t2 + rmin2[h] >= B:
            total += pw                           # every completion does
            continue
        need1[q] = A - t1
        need2[q] = B - t2
        weight[q] = pw
        qctx[q] = ctx
        q += 1
    by_need = np.argsort(-need1[:q])
    tree = np.zeros((nctx, n + 1), np.float64)
    added = np.zeros(nctx, np.float64)
    p = 0
    for qi in range(q):
        i = by_need[qi]
        while p < n and s1[by_s1[p]] >= need1[i]:
            s = by_s1[p]
            for c in range(nctx):
                _fenwick_add(tree[c], ranks2[s], probs[c, s])
                added[c] += probs[c, s]
            p += 1
        # suffixes already in with a second score >= need2: all in, less those ranked below it
        lo = np.searchsorted(sorted2, need2[i])          # first rank whose score is >= need2
        c = qctx[i]
        total += weight[i] * (added[c] - _fenwick_prefix(tree[c], lo))
    return total
