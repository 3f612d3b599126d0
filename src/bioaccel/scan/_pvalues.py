"""The P-value of every hit of a scan, from the motif's exact score distribution.

A hit's P-value is P(S >= s) for a random word S under the background, s the hit's score: the same
number ``bioaccel motif pvalue --score s`` prints (a score is read onto the motif's integer grid with
the tolerance of :func:`._integer.score_to_units`, so ``s`` counts the hit's own word and the words
that tie with it).

All the distinct scores of one motif's hits are answered by one meet-in-the-middle search
(:func:`tails_at`): the last columns' words are tabulated and sorted once (as for thresholds), the
word search of :func:`bioaccel.motif.tails.search_prefixes` over the first columns (the one thresholds
use), pruned below the smallest score asked about, adds each
prefix's share to every score at once (per suffix word, or per score by binary search, whichever is
fewer steps), and a subtree whose every completion scores above every score asked about is added
whole. Nothing is listed or sorted, so memory is the suffix table's. The answers are exact.
The nodes are counted first, without the leaves' work, so a search over its budget is not run; a
score's suffixes are found through buckets of the suffix table (a few scores each), and a word's bin by
stepping on from the previous word's.

Past ``node_cap`` search nodes (long matrices with low thresholds: about 18 columns and more at
P = 1e-4, where 1e-4 x 4**18 = 7e6 words lie above the threshold) the P-values come from one coarse
grid of about :data:`BOUND_CELLS` cells instead: certified upper bounds (the reported value is never
below the true P-value), within a relative 1e-4 or so of it; the hits say so (``exact`` False).
"""
import numpy as np
from numba import njit

from ..motif.tails import first_above, search_prefixes, split_point, suffix_table, visitor
from ._coarse import bounded_tails, words_at_least

NODE_CAP = 50_000_000      # search steps (nodes, words binned, scores looked up) per motif before
                           # the grid bound is used: about a second
BOUND_CELLS = 1 << 22      # cells of the grid bound


def suffix_columns(length, contexts):
    """Columns of the suffix table: 10 (a million words, 24 MB) for long matrices under an order-0 or
    order-1 background (fewer prefixes to search), else 8.

    >>> suffix_columns(20, 1), suffix_columns(12, 1), suffix_columns(20, 16)
    (10, 8, 8)
    """
    return 10 if length >= 16 and contexts <= 4 else 8


@njit(cache=True, nogil=True)
def _bucket_starts(sB, shift):
    """start[b]: the first index i with sB[i] >= sB[0] + (b << shift), for every bucket b of the sorted
    scores ``sB`` and one past the last (so bucket b's scores are sB[start[b]:start[b + 1]])."""
    n = sB.shape[0]
    buckets = ((sB[n - 1] - sB[0]) >> shift) + 1
    start = np.empty(buckets + 1, np.int64)
    i = 0
    for b in range(buckets + 1):
        edge = sB[0] + (b << shift)
        while i < n and sB[i] < edge:
            i += 1
        start[b] = i
    return start


@njit(cache=True, nogil=True)
def _first_above_bucketed(sB, start, shift, x):
    """:func:`bioaccel.motif.tails.first_above` of the sorted ``sB`` through its buckets
    (:func:`_bucket_starts`): one bucket's few scores searched instead of all (the same index)."""
    n = sB.shape[0]
    if x < sB[0]:
        return 0
    if x >= sB[n - 1]:
        return n
    b = (x - sB[0]) >> shift
    return start[b] + first_above(sB[start[b]:start[b + 1]], x)


#: Under the uniform background a leaf's words are counted bin by bin by a walk over the suffixes
#: (:func:`_search`) when they are at most this many times its scores in reach; else each score is
#: looked up. Either gives the same bits; only the time differs.
MERGE_RATIO = 16


@visitor("bioaccel.scan.tails_given")
def _bin_leaf(search, state, t, nc, w, whole):
    """The visitor of :func:`tails_given`'s search (:func:`bioaccel.motif.tails.search_prefixes`): a
    leaf adds its suffixes' weights to the scores' bins (``mass[b]``: the words scoring in
    [v[b-1], v[b]); ``whole``, the search's sum of the words reaching every score: >= v[K-1]) or
    tails (``acc``), and returns the steps that cost. With ``count_only`` the leaves' work is skipped;
    the steps counted are the same, since no count depends on that work. With ``wk`` > 0 (the uniform
    background) every suffix weighs ``wk`` and the tail from index i is (n - i) wk, exactly the values
    of ``pB`` and ``tB``, computed instead of read (``pB`` and ``tB`` are then not used): two of the
    three tables a leaf reads at random, 16 MB a long motif, stay out of the caches that 16 searches
    share."""
    v, sB, pB, tB, wk, start, shift, count_only, merge_ratio, log_k, log_b, mass, acc = state
    K = v.shape[0]
    nB = sB.shape[0]
    i_lo = _first_above_bucketed(sB, start, shift, v[0] - 1 - t)   # the first suffix reaching the lowest
    k_lo = first_above(v, t + sB[0])          # scores up to v[k_lo - 1]: every suffix reaches
    k_hi = first_above(v, t + sB[nB - 1])     # scores from v[k_hi] on: out of reach
    few_words = (nB - i_lo) * log_k <= (k_hi - k_lo) * log_b
    cost = nB - i_lo if few_words else k_hi - k_lo     # the budget counts as it always has
    if count_only:
        return cost, whole
    if wk > 0.0 and (nB - i_lo) <= (k_hi - k_lo) * merge_ratio:
        if i_lo < nB:
            # every word weighs w wk: count the words of each bin, walking the suffixes up to each score
            # in turn (a loop whose branch is nearly always taken, where stepping the bin word by word
            # mispredicted); the sums are of multiples of 4**-m below 2**53 of them, exact either way,
            # so the same bits
            ww = w * wk
            i = i_lo
            prev = i_lo
            for k in range(first_above(v, t + sB[i_lo]), k_hi):
                target = v[k] - t              # some suffix reaches it: k < k_hi
                while sB[i] < target:
                    i += 1
                mass[k] += (i - prev) * ww     # v[k-1] <= score < v[k]
                prev = i
            if k_hi < K:
                mass[k_hi] += (nB - prev) * ww
            else:
                whole += (nB - prev) * ww
    elif few_words:                            # few words: each to its bin
        # the suffixes' scores rise with i, so their bins do: a word's bin is found by stepping on from
        # the last word's, a binary search only past a few steps
        b = first_above(v, t + sB[i_lo]) if i_lo < nB else K
        for i in range(i_lo, nB):
            s = t + sB[i]
            steps = 0
            while b < K and v[b] <= s:
                b += 1
                steps += 1
                if steps == 4:
                    b += first_above(v[b:], s)
                    break
            if b < K:
                mass[b] += w * (wk if wk > 0.0 else pB[nc, i])     # v[b-1] <= score < v[b]
            else:
                whole += w * (wk if wk > 0.0 else pB[nc, i])
    else:                                      # few scores: each by binary search
        if k_lo < K:
            mass[k_lo] += w * (nB * wk if wk > 0.0 else tB[nc, 0])
        else:
            whole += w * (nB * wk if wk > 0.0 else tB[nc, 0])
        i = -1
        for k in range(k_lo, k_hi):
            # the first suffix reaching v[k]: a few steps on from the last score's (the scores rise, so
            # does it; near in memory), else a look-up in the buckets
            target = v[k] - t
            steps = 0
            if i >= 0:
                while steps < 8 and i < nB and sB[i] < target:
                    i += 1
                    steps += 1
            if i < 0 or steps == 8:
                i = _first_above_bucketed(sB, start, shift, target - 1)
            acc[k] += w * ((nB - i) * wk if wk > 0.0 else tB[nc, i])
    return cost, whole


@njit(cache=True, nogil=True)
def tails_at(Q, initial, transition, order, v, node_cap, suffix_columns):
    """P(S >= v[k]) for every k (``v`` sorted ascending, distinct): (tails, ok); ok False when the
    search would pass ``node_cap`` nodes. The nodes are counted first, without the leaves' work (a few
    hundredths of a second where the whole search takes a second), so a search over its budget is
    never run: at P = 1e-4 over 1 Mb of chr22, 4 of the 11 JASPAR 2024 CORE matrices of 21 columns
    were, 1.2-2.6 s each before ending in the bounds anyway."""
    h = split_point(Q, order, suffix_columns)
    sB, pB, tB = suffix_table(Q, h, transition)
    return tails_given(Q, initial, transition, order, v, node_cap, h, sB, pB, tB, 0.0, MERGE_RATIO)


@njit(cache=True, nogil=True)
def tails_given(Q, initial, transition, order, v, node_cap, h, sB, pB, tB, wk, merge_ratio):
    """:func:`tails_at` with the suffix table of columns h.. given: ``suffix_table``'s, or under the
    uniform background the sorted scores alone (:func:`uniform_suffix_scores`) and ``wk`` = 4**-(m - h),
    each suffix's weight (see :func:`_bin_leaf`); ``merge_ratio``: :data:`MERGE_RATIO` (0 to count every
    leaf's words as before it, the tests' reference: the same bits)."""
    K = v.shape[0]
    tails = np.zeros(K, np.float64)
    if K == 0:
        return tails, True
    if h == 0:      # order 0, at most suffix_columns columns: the table is every word
        for k in range(K):
            i = first_above(sB, v[k] - 1)
            tails[k] = (sB.shape[0] - i) * wk if wk > 0.0 else tB[0, i]
        return tails, True
    # buckets of about 4 suffixes on average, so a look-up reads one bucket, not log2(n) scattered scores
    shift = 0
    while ((sB[sB.shape[0] - 1] - sB[0]) >> shift) >= max(sB.shape[0] // 4, 1):
        shift += 1
    start = _bucket_starts(sB, shift)
    top = np.array([v[K - 1]])
    log_k = 1 + int(np.log2(K + 1))       # binary search steps over the scores, over the suffixes
    log_b = 1 + int(np.log2(sB.shape[0] + 1))
    for count_only in (True, False):       # the nodes counted first: a search over its budget never runs
        mass = np.zeros(K, np.float64)
        acc = np.zeros(K, np.float64)
        state = (v, sB, pB, tB, wk, start, shift, count_only, merge_ratio, log_k, log_b, mass, acc)
        ok, _, whole = search_prefixes(Q, h, initial, transition, order, v[0], top, node_cap,
                                       "bioaccel.scan.tails_given", state)
        if not ok:
            return tails, False
    running = whole
    for k in range(K - 1, -1, -1):
        tails[k] = running + acc[k]
        running += mass[k]
    return tails, True


def is_uniform(background) -> bool:
    """Whether ``background`` is the uniform order-0 one: every word of k letters then weighs exactly
    4**-k (a power of two), so the order of tied scores in the suffix table changes no bit of it.

    >>> from bioaccel.motif import Background
    >>> is_uniform(Background.uniform()), is_uniform(Background.from_frequencies([0.3, 0.2, 0.2, 0.3]))
    (True, False)
    """
    return background.order == 0 and bool(np.all(np.asarray(background.transition) == 0.25))


def uniform_suffix_scores(Q, h):
    """The scores of every word of columns h.., sorted: ``suffix_table``'s first array, by NumPy's
    vectorised sort (about 10 ms for the 4**10 words of a long motif, where the kernel's sort and
    probability products took 0.19 s).

    >>> uniform_suffix_scores(np.array([[0, 1, 2, 3], [0, 0, 5, 5]], dtype=np.int64), 0).tolist()[:6]
    [0, 0, 1, 1, 2, 2]
    """
    scores = np.zeros(1, np.int64)
    for j in range(h, Q.shape[0]):                 # first column most significant, as suffix_table
        scores = (scores[:, None] + Q[j][None, :]).ravel()
    return np.sort(scores)


def uniform_suffix_table(Q, h):
    """``suffix_table(Q, h, transition)`` under the uniform background, bit for bit: the sorted scores,
    each word's probability 4**-k (k = m - h columns) and the tails (n - i) 4**-k, all exact; what
    :func:`tails_given` computes in place of the last two (its ``wk``).

    >>> Q = np.array([[0, 1, 2, 3], [0, 0, 5, 5]], dtype=np.int64)
    >>> sB, pB, tB = uniform_suffix_table(Q, 0)
    >>> float(pB[0, 0]), tB[0, :3].tolist()
    (0.0625, [1.0, 0.9375, 0.875])
    """
    scores = uniform_suffix_scores(Q, h)
    n = scores.shape[0]
    weight = 0.25 ** (Q.shape[0] - h)              # a power of two: exact
    tails = ((n - np.arange(n + 1, dtype=np.int64)) * weight).reshape(1, n + 1)
    return scores, np.full((1, n), weight), tails


#: Past this many words above the lowest score asked about, the exact search is not tried (it would
#: pass ``NODE_CAP``): the motif's P-values are bounds from the start.
WORDS_CAP = 1e9


def hit_pvalues(grid, background, units, *, node_cap=NODE_CAP, cells=BOUND_CELLS, merge_ratio=MERGE_RATIO):
    """P-values of hits scoring ``units`` (grid values) on ``grid`` (a :class:`bioaccel.motif.Grid`) under
    ``background``: (pvalues in the order of ``units``, exact, largest relative gap when not exact).

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.motif import Grid
    >>> pssm = PSSM(np.eye(4)[:2])
    >>> g = Grid.of(pssm)
    >>> p, exact, _ = hit_pvalues(g, pssm.background, [2 << g.bits, 1 << g.bits])
    >>> p.tolist(), exact                  # P(S >= 2) = 1/16 (the word AC); P(S >= 1) = 7/16
    ([0.0625, 0.4375], True)
    """
    units = np.asarray(units, dtype=np.int64)
    if units.size == 0:
        return np.zeros(0), True, 0.0
    asked, where = asked_values(grid, units)
    tails, ok, gap = tails_of(grid, background, asked, node_cap=node_cap, cells=cells, merge_ratio=merge_ratio)
    return np.minimum(tails[where], 1.0), ok, gap


def asked_values(grid, units) -> tuple:
    """The distinct values a search is asked about for hits scoring ``units`` (each less the tie
    tolerance, ascending) and each hit's index among them: what :func:`tails_of` answers.

    >>> from bioaccel.motif import PSSM, Grid
    >>> g = Grid.of(PSSM(np.eye(4)[:2]))
    >>> [v.tolist() for v in asked_values(g, np.array([9, 5, 9]))]
    [[2, 6], [1, 0, 1]]
    """
    return np.unique(np.asarray(units, dtype=np.int64) - grid.tol, return_inverse=True)


def tails_of(grid, background, asked, *, node_cap=NODE_CAP, cells=BOUND_CELLS, merge_ratio=MERGE_RATIO) -> tuple:
    """(P(S >= v) for each v of ``asked`` (ascending, distinct grid values), exact, largest relative gap
    when not exact): one search, or the grid bound past its budget. Which values are asked together
    decides, for long matrices, whether the answers are exact or bounds, so a stored answer is keyed by
    all of them (:mod:`._price_store`).

    >>> from bioaccel.motif import PSSM, Grid
    >>> pssm = PSSM(np.eye(4)[:2])
    >>> g = Grid.of(pssm)
    >>> tails, exact, _ = tails_of(g, pssm.background, np.array([(1 << g.bits) - g.tol]))
    >>> tails.tolist(), exact
    ([0.4375], True)
    """
    initial = np.ascontiguousarray(background.initial, dtype=np.float64)
    transition = np.ascontiguousarray(background.transition, dtype=np.float64)
    ok = False
    if words_at_least(grid.units, int(asked[0])) <= WORDS_CAP:
        columns = suffix_columns(grid.units.shape[0], transition.shape[0])
        if is_uniform(background):
            h = split_point(grid.units, 0, columns)
            unused = np.zeros((1, 1))
            tails, ok = tails_given(grid.units, initial, transition, 0, asked, node_cap, h,
                                    uniform_suffix_scores(grid.units, h), unused, unused,
                                    0.25 ** (grid.units.shape[0] - h), merge_ratio)
        else:
            tails, ok = tails_at(grid.units, initial, transition, background.order, asked, node_cap, columns)
    gap = 0.0
    if not ok:
        tails, gap = bounded_tails(grid.units, initial, transition, background.order, asked, cells)
    return tails, bool(ok), float(gap)
