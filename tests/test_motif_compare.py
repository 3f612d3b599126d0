"""COMPARE against brute force: every shift of two small matrices, enumeration and grid paths."""
import math

import numpy as np
import pytest

import naive_motif as naive
from bioaccel.motif import PSSM, Background, compare
from bioaccel.motif import _compare

TOL = 1e-12
RNG = np.random.default_rng(12)
BACKGROUNDS = [Background.uniform(), Background.from_frequencies([0.1, 0.4, 0.3, 0.2]),
               Background.markov([0.2, 0.3, 0.3, 0.2], RNG.dirichlet(np.ones(4), size=4))]


def oriented(b, strand):
    """Matrix 2's scores on ``strand``: as given, or reversed and complemented (written out here, not
    taken from the library)."""
    scores = np.asarray(b.scores)
    return scores if strand == "+" else np.array([[row[3], row[2], row[1], row[0]] for row in scores[::-1]])


def padded_truth(r, a, b, bg):
    start = min(0, r.shift)
    s1 = np.zeros((r.span, 4))
    s1[-start:-start + a.length] = a.scores
    s2 = np.zeros((r.span, 4))
    s2[r.shift - start:r.shift - start + b.length] = oriented(b, r.strand)
    return naive.compare(s1, s2, r.alpha, r.beta, bg)


@pytest.mark.parametrize("path", ["enumerated", "meet-in-the-middle", "grid"])
@pytest.mark.parametrize("bg", BACKGROUNDS, ids=["uniform", "skewed", "markov1"])
def test_compare_every_shift_both_strands_equals_brute_force(monkeypatch, path, bg):
    if path != "enumerated":     # the joint tail by meet in the middle, or the 2-D grid, on short spans
        monkeypatch.setattr(_compare, "ENUMERATE_SPAN", 0)
    if path == "grid":
        monkeypatch.setattr(_compare, "MITM_SPAN", 0)
    rng = np.random.default_rng(13)
    for m1, m2 in [(4, 4), (5, 3), (2, 6), (6, 5)]:
        a = PSSM(rng.normal(size=(m1, 4)) * 2, motif_id="a", background=bg)
        b = PSSM(rng.normal(size=(m2, 4)) * 2, motif_id="b", background=bg)
        results = compare(a, b, pvalue=0.05)
        shifts = list(range(-(m2 - 1), m1))
        assert [(r.strand, r.shift) for r in results] == [("+", s) for s in shifts] + [("-", s) for s in shifts]
        for r in results:
            truth = padded_truth(r, a, b, bg)
            for (lo, hi), true in zip((r.both, r.only1, r.only2, r.neither), truth):
                assert lo - TOL <= true <= hi + TOL, (path, r, truth)
            if path != "grid":
                assert all(lo == hi for lo, hi in (r.both, r.only1, r.only2, r.neither))   # exact


@pytest.mark.parametrize("path", ["enumerated", "meet-in-the-middle"])
def test_thresholds_on_word_scores_keep_intervals_exact(monkeypatch, path):
    """A threshold that is a word's own score (as the exact thresholds always are) leaves no uncertain
    word: each probability is exact, and a word tied with a threshold counts as above it."""
    if path != "enumerated":
        monkeypatch.setattr(_compare, "ENUMERATE_SPAN", 0)
    rng = np.random.default_rng(17)
    for m1, m2 in [(5, 5), (6, 3)]:                     # spans of 5 to 9 columns
        a = PSSM(np.round(rng.normal(size=(m1, 4)) * 2, 1), motif_id="a")
        b = PSSM(np.round(rng.normal(size=(m2, 4)) * 2, 1), motif_id="b")
        for r in compare(a, b, pvalue=1e-3):
            assert all(lo == hi for lo, hi in (r.both, r.only1, r.only2, r.neither)), r
            truth = padded_truth(r, a, b, Background.uniform())
            assert all(abs(lo - t) <= TOL for (lo, _), t in zip((r.both, r.only1, r.only2, r.neither), truth))


def test_reverse_complement_finds_the_flipped_motif():
    rng = np.random.default_rng(18)
    a = PSSM(rng.normal(size=(8, 4)) * 2, motif_id="a")
    flipped = PSSM(a.scores[::-1, ::-1], motif_id="a_rc")
    from bioaccel.motif import best_per_pair

    best, = best_per_pair(compare(a, flipped, pvalue=1e-3))
    assert (best.strand, best.shift) == ("-", 0) and best.similarity == pytest.approx(1.0)
    forward, = best_per_pair(compare(a, flipped, pvalue=1e-3, strands="+"))
    assert forward.similarity < best.similarity


def test_compare_same_matrix_is_similar():
    rng = np.random.default_rng(14)
    a = PSSM(rng.normal(size=(6, 4)) * 2, motif_id="a")
    results = compare(a, a, pvalue=1e-2, strands="+")
    best = max(results, key=lambda r: r.similarity)
    assert best.shift == 0 and best.similarity == pytest.approx(1.0)
    assert best.only1 == (0.0, 0.0)


@pytest.mark.parametrize("bg", BACKGROUNDS, ids=["uniform", "skewed", "markov1"])
def test_bucket_compare_bounds_contain_brute_force(bg):
    """Section 4.5 by 2-D BUCKETSCOREDISTRIBUTION: slices, sqrt(B) x sqrt(B) tables, merges."""
    rng = np.random.default_rng(15)
    for (m1, m2), slices, buckets in [((4, 4), 1, 400), ((5, 3), 2, 3600), ((3, 6), 3, 100)]:
        a = PSSM(rng.normal(size=(m1, 4)) * 2, motif_id="a", background=bg)
        b = PSSM(rng.normal(size=(m2, 4)) * 2, motif_id="b", background=bg)
        results = compare(a, b, alpha=1.0, beta=0.5, variant="bucket", slices=slices, buckets=buckets)
        shifts = list(range(-(m2 - 1), m1))
        assert [(r.strand, r.shift) for r in results] == [("+", s) for s in shifts] + [("-", s) for s in shifts]
        for r in results:
            truth = padded_truth(r, a, b, bg)
            for (lo, hi), true in zip((r.both, r.only1, r.only2, r.neither), truth):
                assert lo - TOL <= true <= hi + TOL, (r, truth)
            if buckets == 3600:     # 60 buckets per axis: the bounds say something
                assert sum(hi - lo for lo, hi in (r.both, r.only1, r.only2, r.neither)) < 1.0


def true_scores(r, a, b, bg):
    """Every word of the span: its score under each padded matrix, and its probability."""
    start = min(0, r.shift)
    s1 = np.zeros((r.span, 4))
    s1[-start:-start + a.length] = a.scores
    s2 = np.zeros((r.span, 4))
    s2[r.shift - start:r.shift - start + b.length] = oriented(b, r.strand)
    words = naive.all_words(r.span)
    return naive.word_scores(s1, words), naive.word_scores(s2, words), naive.word_probabilities(bg, words)


def near(scores, prob, cut, bound):
    """P(|score - cut| <= bound): the words whose side of ``cut`` an error of ``bound`` can hide."""
    return float(prob[np.abs(scores - cut) <= bound].sum()) if math.isfinite(cut) else 0.0


@pytest.mark.parametrize("bg", BACKGROUNDS, ids=["uniform", "skewed", "markov1"])
def test_bucket_compare_widths_within_error_bound(bg):
    """Each axis of 2-D BUCKETSCOREDISTRIBUTION errs by at most (1 + ceil(log2 N)) (max - min) / sqrt(B),
    so an interval can be no wider than the mass of words within that error of either threshold."""
    rng = np.random.default_rng(16)
    for (m1, m2), slices, buckets in [((4, 4), 1, 400), ((5, 3), 2, 3600), ((3, 6), 3, 100), ((5, 5), 4, 900),
                                      ((6, 2), 2, 49)]:
        a = PSSM(rng.normal(size=(m1, 4)) * 2, motif_id="a", background=bg)
        b = PSSM(rng.normal(size=(m2, 4)) * 2, motif_id="b", background=bg)
        for cuts in ({"alpha": 1.0, "beta": 0.5}, {"pvalue": 0.05}):
            for r in compare(a, b, variant="bucket", slices=slices, buckets=buckets, **cuts):
                levels = 1 + math.ceil(math.log2(min(slices, r.span)))
                nb = math.isqrt(buckets)
                e1 = levels * (a.max_score - a.min_score) / nb + 1e-6
                e2 = levels * (b.max_score - b.min_score) / nb + 1e-6
                scores1, scores2, prob = true_scores(r, a, b, bg)
                allowed = near(scores1, prob, r.alpha, e1) + near(scores2, prob, r.beta, e2)
                for lo, hi in (r.both, r.only1, r.only2, r.neither):
                    assert hi - lo <= allowed + TOL, (slices, buckets, r, allowed)


@pytest.mark.parametrize("bg", BACKGROUNDS, ids=["uniform", "skewed", "markov1"])
def test_a_matrix_against_itself_is_its_own_tails_on_the_grid_path(monkeypatch, bg):
    """Past the exact spans (here forced to 0), a matrix laid against itself is answered from its own
    tails: exact, equal to brute force, none above one threshold only when the thresholds are equal, and
    the words between them when they are not."""
    monkeypatch.setattr(_compare, "ENUMERATE_SPAN", 0)
    monkeypatch.setattr(_compare, "MITM_SPAN", 0)
    rng = np.random.default_rng(19)
    a = PSSM(rng.normal(size=(6, 4)) * 2, motif_id="a", background=bg)
    for alpha, beta in [(1.0, 1.0), (0.5, 2.0), (2.0, -1.0)]:
        r = _compare.compare_at_shift(a, a, alpha, beta, 0)
        truth = padded_truth(r, a, a, bg)
        assert all(lo == hi for lo, hi in (r.both, r.only1, r.only2, r.neither)), r
        assert [lo for lo, _ in (r.both, r.only1, r.only2, r.neither)] == pytest.approx(truth, abs=1e-12)
        if alpha == beta:
            assert r.only1 == r.only2 == (0.0, 0.0) and r.similarity == 1.0


@pytest.mark.parametrize("variant", ["exact", "bucket"])
def test_long_motifs_against_themselves_have_similarity_one(variant):
    """Issue 25: MA0066.1 (20 columns) against itself read 0.84, the 2-D grid's uncertain words counted
    as possibly above one threshold only. Now 1, and (exact) both is the threshold's exact P-value."""
    from bioaccel.motif import best_per_pair, read_motifs, thresholds

    for m in read_motifs(["jaspar:MA0066.1", "jaspar:MA0065.2"][:1 if variant == "bucket" else 2]):
        options = {"variant": "bucket", "slices": 5} if variant == "bucket" else {}
        best, = best_per_pair(compare(m, m, pvalue=1e-3, shifts=[-1, 0, 1], **options))
        assert (best.strand, best.shift) == ("+", 0) and best.similarity == 1.0
        assert best.only1 == best.only2 == (0.0, 0.0)
        if variant == "exact":
            p = thresholds(m, 1e-3)[0].pvalue
            assert best.both == (p, p) and best.neither == pytest.approx((1 - p, 1 - p), abs=1e-15)
        else:
            assert best.both[0] < best.both[1]           # the buckets' interval, whole, on both
