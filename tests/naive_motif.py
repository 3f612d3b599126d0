"""Brute-force references for the motif statistics: enumerate all 4**m words (small m only)."""
import math

import numpy as np


def all_words(m):
    """(4**m, m) array of every word's letter codes, in lexicographic order."""
    index = np.arange(4 ** m, dtype=np.int64)[:, None]
    return (index >> (2 * np.arange(m - 1, -1, -1, dtype=np.int64))) & 3


def word_scores(scores, words=None):
    scores = np.asarray(scores, dtype=np.float64)
    words = all_words(scores.shape[0]) if words is None else words
    total = np.zeros(words.shape[0])
    for j in range(scores.shape[0]):       # column by column, as the library sums
        total += scores[j, words[:, j]]
    return total


def word_probabilities(background, words):
    """Probability of each word under the background chain (initial k-mer, then transitions)."""
    k = background.order
    m = words.shape[1]
    prob = np.ones(words.shape[0])
    if k == 0:
        for j in range(m):
            prob *= background.transition[0, words[:, j]]
        return prob
    # the first k letters jointly (marginalise the k-mer when the word is shorter)
    kk = min(k, m)
    kmers = all_words(k)
    init = np.zeros(4 ** kk)
    for idx, km in enumerate(kmers):
        init[int(sum(c * 4 ** (kk - 1 - j) for j, c in enumerate(km[:kk])))] += background.initial[idx]
    prefix = np.zeros(words.shape[0], dtype=np.int64)
    for j in range(kk):
        prefix = prefix * 4 + words[:, j]
    prob *= init[prefix]
    for j in range(k, m):
        ctx = np.zeros(words.shape[0], dtype=np.int64)
        for t in range(j - k, j):
            ctx = ctx * 4 + words[:, t]
        prob *= background.transition[ctx, words[:, j]]
    return prob


#: Two word scores this close are one score: mathematically equal sums (the same entries added in another
#: order, or decimals such as 0.1 + 0.2 and 0.3) differ in floating point by far less.
TIE = 1e-9


def pvalue(scores, background, s, words=None):
    """P(score >= s), words within TIE below s counted (they tie with s)."""
    words = all_words(np.asarray(scores).shape[0]) if words is None else words
    return float(word_probabilities(background, words)[word_scores(scores, words) >= s - TIE].sum())


def tie_groups(sorted_desc):
    """Start index of each group of ties in scores sorted descending (a group reaches down while each
    score is within TIE of the previous one)."""
    gaps = sorted_desc[:-1] - sorted_desc[1:]
    return np.concatenate(([0], np.flatnonzero(gaps > TIE) + 1))


def threshold_and_below(scores, background, p, words=None):
    """(t, P(score >= t), next score down, its P-value): t the smallest achieved score (the lowest of its
    tie group) whose P-value is <= p; inf when none; the next group's lowest score and P-value, or None."""
    words = all_words(np.asarray(scores).shape[0]) if words is None else words
    sc = word_scores(scores, words)
    pr = word_probabilities(background, words)
    order = np.argsort(-sc, kind="stable")
    sc, pr = sc[order], pr[order]
    cum = np.cumsum(pr)
    starts = tie_groups(sc)
    ends = np.append(starts[1:], sc.size) - 1          # last (lowest) word of each group
    ok = np.flatnonzero(cum[ends] <= p)
    if not ok.size:
        return math.inf, 0.0, None, None
    g = ok[-1]
    below = (float(sc[ends[g + 1]]), float(cum[ends[g + 1]])) if g + 1 < ends.size else (None, None)
    return float(sc[ends[g]]), float(cum[ends[g]]), *below


def threshold(scores, background, p, words=None):
    """Smallest achieved score t with P(score >= t) <= p, ties grouped (inf when none)."""
    return threshold_and_below(scores, background, p, words)[0]


def compare(scores1, scores2, alpha, beta, background):
    """(both, only1, only2, neither) probabilities for two matrices of the same length (a word is
    above a threshold it ties with)."""
    words = all_words(np.asarray(scores1).shape[0])
    a = word_scores(scores1, words) >= alpha - TIE      # a word tied with a threshold is above it
    b = word_scores(scores2, words) >= beta - TIE
    pr = word_probabilities(background, words)
    return (float(pr[a & b].sum()), float(pr[a & ~b].sum()), float(pr[~a & b].sum()), float(pr[~a & ~b].sum()))
