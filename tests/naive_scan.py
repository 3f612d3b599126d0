"""A brute-force reference for ``bioaccel scan``: every window of every sequence on both strands, in
plain Python, and P-values and thresholds by enumerating all 4**m words (short motifs only).

The one convention shared with the library is the definition of a score (motif/_integer.py): each
entry scaled by 2**bits and rounded once, a word's score the integer sum of its columns' entries, and
two scores within ``m // 2 + 2`` units one score (a score's P-value counts the words that tie with it).
Everything else is written out again here, the slow and obvious way.
"""
import math

import numpy as np

import naive_motif

COMPLEMENT = {"A": "T", "C": "G", "G": "C", "T": "A"}


def grid_bits(scores):
    """At most 44 bits, fewer when the largest sum would not stay below 2**61."""
    largest = sum(max(abs(float(v)) for v in row) for row in np.asarray(scores, dtype=float)) + 1.0
    return int(min(44, 61 - math.ceil(math.log2(largest))))


def grid(scores):
    """(units as a list of dicts letter -> int, bits, tie tolerance in units)."""
    scores = np.asarray(scores, dtype=float)
    bits = grid_bits(scores)
    units = [{letter: int(np.rint(row[k] * 2.0 ** bits)) for k, letter in enumerate("ACGT")} for row in scores]
    return units, bits, scores.shape[0] // 2 + 2


def reverse_complement(word):
    return "".join(COMPLEMENT[c] for c in reversed(word))


def word_units(units, word):
    return sum(units[j][c] for j, c in enumerate(word))


def windows(sequence, m):
    """(start, word) for every window of m letters made of A, C, G, T only (U read as T, any case)."""
    text = sequence.upper().replace("U", "T")
    for i in range(len(text) - m + 1):
        word = text[i:i + m]
        if all(c in "ACGT" for c in word):
            yield i, word


class Enumerated:
    """Every word of an m-column matrix with its grid score and its probability under a background."""

    def __init__(self, scores, background):
        scores = np.asarray(scores, dtype=float)
        self.units, self.bits, self.tol = grid(scores)
        words = naive_motif.all_words(scores.shape[0])
        table = np.array([[u[c] for c in "ACGT"] for u in self.units], dtype=np.int64)
        self.word_units = table[np.arange(scores.shape[0])[None, :], words].sum(axis=1)
        self.prob = naive_motif.word_probabilities(background, words)

    def pvalue(self, units):
        """P(a random word scores >= units), the words that tie with it (within tol) included."""
        return float(self.prob[self.word_units >= units - self.tol].sum())

    def threshold(self, p):
        """The smallest attainable score (units) whose P-value is <= p; None when there is none."""
        order = np.argsort(-self.word_units, kind="stable")
        scores, tail = self.word_units[order], np.cumsum(self.prob[order])
        best = None
        for s in np.unique(scores)[::-1]:          # descending; the tail of s counts the words >= s - tol
            last = np.searchsorted(-scores, -(int(s) - self.tol), side="right") - 1
            if tail[last] > p:
                break
            best = int(s)
        return best


def scan(scores, sequences, *, background=None, pvalue=None, threshold=None, strands=(0, 1), enumerate_words=True):
    """Every hit of the motif ``scores`` in ``sequences`` ((name, text) pairs) as dicts with FIMO's
    fields: 0-based ``start0``, 1-based inclusive ``start``/``stop``, ``strand``, ``units``, ``score``,
    ``pvalue`` (None unless ``enumerate_words``), ``matched``. The threshold: the score ``threshold``
    (read with the tolerance: words at most tol units below it count), or the exact threshold of
    P-value ``pvalue``, found for each strand (the reverse strand by the reverse-complement matrix,
    which under a strand-asymmetric background has its own)."""
    from bioaccel.motif import Background

    background = Background.uniform() if background is None else background
    scores = np.asarray(scores, dtype=float)
    m = scores.shape[0]
    units, bits, tol = grid(scores)
    rc_scores = scores[::-1, ::-1]
    enum = [Enumerated(scores, background), Enumerated(rc_scores, background)] if enumerate_words else None
    if threshold is not None:
        cut = [math.ceil(threshold * 2.0 ** bits - (m / 2.0 + 2.0))] * 2
    else:
        cut = [enum[0].threshold(pvalue), enum[1].threshold(pvalue)]
    hits = []
    for name, text in sequences:
        for i, word in windows(text, m):
            for strand in strands:
                read = word if strand == 0 else reverse_complement(word)
                u = word_units(units, read)
                if cut[strand] is None or u < cut[strand]:
                    continue
                hits.append({"sequence": name, "start0": i, "start": i + 1, "stop": i + m,
                             "strand": "+-"[strand], "units": u, "score": u / 2.0 ** bits,
                             "pvalue": enum[strand].pvalue(u) if enum else None, "matched": read})
    return hits


def tests(m, sequences, strands=2):
    """Windows tested: windows of m letters A, C, G, T, times the strands scanned."""
    return strands * sum(1 for _, text in sequences for _ in windows(text, m))


def bh(hit_pvalues, tests):
    """Benjamini-Hochberg q-values of the hits, from the full list of tests: every window that was not
    a hit counted as P = 1; q of the i-th smallest is min over j >= i of p_(j) * N / j, capped at 1."""
    full = sorted([(p, k) for k, p in enumerate(hit_pvalues)] + [(1.0, None)] * (tests - len(hit_pvalues)),
                  key=lambda pair: pair[0])
    n = len(full)
    q = [0.0] * len(hit_pvalues)
    running = math.inf
    for rank in range(n, 0, -1):
        p, k = full[rank - 1]
        running = min(running, p * n / rank)
        if k is not None:
            q[k] = min(running, 1.0)
    return q
