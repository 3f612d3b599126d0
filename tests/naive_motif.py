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


def pvalue(scores, background, s, words=None):
    """P(score >= s)."""
    words = all_words(np.asarray(scores).shape[0]) if words is None else words
    return float(word_probabilities(background, words)[word_scores(scores, words) >= s].sum())


def threshold(scores, background, p, words=None):
    """Smallest achieved score t with P(score >= t) <= p (inf when none)."""
    words = all_words(np.asarray(scores).shape[0]) if words is None else words
    sc = word_scores(scores, words)
    pr = word_probabilities(background, words)
    order = np.argsort(-sc, kind="stable")
    sc, pr = sc[order], pr[order]
    cum = np.cumsum(pr)
    last_of_group = np.flatnonzero(np.append(sc[1:] != sc[:-1], True))   # words tied on a score together
    ok = last_of_group[cum[last_of_group] <= p]
    return float(sc[ok[-1]]) if ok.size else math.inf


def compare(scores1, scores2, alpha, beta, background):
    """(both, only1, only2, neither) probabilities for two matrices of the same length."""
    words = all_words(np.asarray(scores1).shape[0])
    a = word_scores(scores1, words) >= alpha
    b = word_scores(scores2, words) >= beta
    pr = word_probabilities(background, words)
    return (float(pr[a & b].sum()), float(pr[a & ~b].sum()), float(pr[~a & b].sum()), float(pr[~a & ~b].sum()))
