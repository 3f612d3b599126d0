"""The exact variant on every JASPAR 2024 CORE vertebrate matrix of up to 10 columns, against
enumeration of every word (meet in the middle): thresholds at 1e-3, 1e-4 and 1e-5 optimal and valid,
and the P-value of a word's own score (its float sum, in any order) counting that word.

pyjaspar is a dependency of bioaccel, so the matrices are always at hand."""
import numpy as np
import pytest

from bioaccel.motif import pvalues, read_motifs, thresholds

TIE = 1e-9           # scores this close are one score (as tests/naive_motif.py)
PS = (1e-3, 1e-4, 1e-5)


class Words:
    """Every word's score of a matrix, as two sorted halves whose sums are the words (uniform background)."""

    def __init__(self, scores):
        m = scores.shape[0]
        h = m // 2
        self.left = self._sums(scores[:h])
        self.right = np.sort(self._sums(scores[h:]))
        self.n = 4.0 ** m

    @staticmethod
    def _sums(rows):
        total = np.zeros(1)
        for row in rows:
            total = (total[:, None] + row[None, :]).ravel()
        return total

    def tail(self, s):
        """P(score >= s), words tied with s included."""
        return float((self.right.size - np.searchsorted(self.right, s - TIE - self.left)).sum()) / self.n

    def best_below(self, s):
        """The highest score of a word below s (not tied with it), or None."""
        idx = np.searchsorted(self.right, s - TIE - self.left) - 1
        ok = idx >= 0
        return float((self.left[ok] + self.right[idx[ok]]).max()) if ok.any() else None


@pytest.fixture(scope="module")
def short_vertebrates():
    motifs = [m for m in read_motifs("jaspar:2024/CORE/vertebrates") if m.length <= 10]
    assert len(motifs) > 400
    return motifs


def test_thresholds_optimal_and_valid_on_every_short_matrix(short_vertebrates):
    motifs = short_vertebrates
    answers = thresholds(motifs, list(PS))
    assert len(answers) == len(motifs) * len(PS)
    failures = []
    for k, motif in enumerate(motifs):
        words = Words(motif.scores)
        best = float(words.left.max() + words.right[-1])
        for p, t in zip(PS, answers[k * len(PS):(k + 1) * len(PS)]):
            if not t.reachable:
                if words.tail(best) <= p:
                    failures.append((motif.motif_id, p, "unreachable, but the best word passes"))
                continue
            true = words.tail(t.score)
            below = words.best_below(t.score)
            if not t.exact or true > p or abs(true - t.pvalue) > 1e-15:
                failures.append((motif.motif_id, p, "invalid or not exact", t.score, true))
            elif below is not None and words.tail(below) <= p:
                failures.append((motif.motif_id, p, "not optimal", t.score, below))
    assert not failures, failures[:10]


def test_a_words_own_score_counts_that_word(short_vertebrates):
    rng = np.random.default_rng(2024)
    failures = []
    for motif in short_vertebrates[::3]:
        words = Words(motif.scores)
        m = motif.length
        picks = [motif.scores.argmax(axis=1)] + [rng.integers(0, 4, m) for _ in range(2)]
        asked = []
        for w in picks:
            entries = motif.scores[np.arange(m), w]
            asked += [float(entries.sum()), float(entries[::-1].sum()), float(sum(sorted(entries)))]
        for s, r in zip(asked, pvalues(motif, asked)):
            if r.pvalue < 4.0 ** -m or abs(r.pvalue - words.tail(s)) > 1e-15:
                failures.append((motif.motif_id, s, r.pvalue, words.tail(s)))
    assert not failures, failures[:10]
