"""Score distributions against brute-force enumeration of all 4**m words (tests/naive_motif.py):
the exact method within its certified bounds, BUCKETSCOREDISTRIBUTION within Giraud & Varré's bound
(1 + ceil(log2 N)) * (max - min) / B, under uniform, skewed and Markov order-1 (and 2) backgrounds."""
import math

import numpy as np
import pytest

import naive_motif as naive
from bioaccel.errors import InvalidParameter
from bioaccel.motif import PSSM, Background, pvalues, thresholds
from bioaccel.motif._bucket import bucket_distribution, seed_error_bound, slice_bounds
from bioaccel.motif._exact import DEFAULT_RTOL, DEFAULT_SCORE_TOL, exact_pvalue, exact_threshold

TOL = 1e-12
RNG = np.random.default_rng(4)
BACKGROUNDS = {
    "uniform": Background.uniform(),
    "skewed": Background.from_frequencies([0.1, 0.4, 0.3, 0.2]),
    "markov1": Background.markov([0.2, 0.3, 0.3, 0.2], RNG.dirichlet(np.ones(4), size=4)),
}
MARKOV2 = Background.markov(RNG.dirichlet(np.ones(16)), RNG.dirichlet(np.ones(4), size=16))


def random_scores(rng, m):
    """Log-odds-like matrices: mostly spread scores, some exact ties (as in count matrices)."""
    scores = rng.normal(size=(m, 4)) * 2
    if m > 2:
        scores[1] = np.round(scores[1])          # ties inside a column
        scores[2] = scores[0]                    # a repeated column: many words share a score
    return scores


def cases(count, max_m, seed):
    """Matrices drawn from ``seed``; each case also gets its own seed (``seed`` and its index) for the
    inputs it draws, so that a case draws the same inputs however many of the others run, in whatever
    order, on either backend."""
    rng = np.random.default_rng(seed)
    names = list(BACKGROUNDS)
    out = []
    for i in range(count):
        m = max_m if i < len(names) else int(rng.integers(1, max_m))
        out.append((names[i % len(names)], m, random_scores(rng, m), [seed, i]))
    return out


class Enumeration:
    def __init__(self, scores, background):
        self.words = naive.all_words(scores.shape[0])
        self.scores = naive.word_scores(scores, self.words)
        self.prob = naive.word_probabilities(background, self.words)

    def pvalue(self, s):
        return float(self.prob[self.scores >= s].sum())


@pytest.mark.parametrize("name,m,scores,seed", cases(12, 10, 1), ids=lambda v: v if isinstance(v, str) else None)
def test_exact_pvalue_within_certified_bounds(name, m, scores, seed):
    rng = np.random.default_rng(seed)
    bg = BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    assert abs(truth.prob.sum() - 1) < 1e-9
    picks = list(truth.scores[rng.integers(truth.scores.size, size=4)]) + list(
        rng.uniform(pssm.min_score - 1, pssm.max_score + 1, size=4))
    for s in picks + [pssm.max_score, pssm.min_score]:
        r = exact_pvalue(pssm, s)
        true = truth.pvalue(s)
        assert r.low - TOL <= true <= r.high + TOL, (s, r, true)
        assert r.pvalue == r.high


@pytest.mark.parametrize("name,m,scores,seed", cases(12, 10, 2), ids=lambda v: v if isinstance(v, str) else None)
def test_exact_threshold_certified_and_optimal(name, m, scores, seed):
    bg = BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    for p in (0.2, 1e-2, 1e-3, 1e-4):
        t = exact_threshold(pssm, p)
        best = naive.threshold(scores, bg, p, truth.words)     # the smallest achieved score with P-value <= p
        if not math.isfinite(best):
            assert not math.isfinite(t.score)
            continue
        true = truth.pvalue(t.score)
        assert true <= p + TOL                                 # certified
        assert t.low - TOL <= true <= t.high + TOL <= p + TOL
        assert t.score_low < best + 1e-9                       # nothing below score_low qualifies
        # optimal up to the requested precision: hits lost against the best threshold <= rtol * p
        assert truth.pvalue(best) - true <= 1e-3 * p + TOL or t.score - t.score_low <= 1e-3


def test_exact_markov_order_two():
    rng = np.random.default_rng(5)
    for m in (1, 2, 3, 7):
        scores = random_scores(rng, m)
        pssm = PSSM(scores, background=MARKOV2)
        truth = Enumeration(scores, MARKOV2)
        for s in truth.scores[rng.integers(truth.scores.size, size=5)]:
            r = exact_pvalue(pssm, s)
            assert r.low - TOL <= truth.pvalue(s) <= r.high + TOL


@pytest.mark.parametrize("name,m,scores,seed", cases(15, 10, 3), ids=lambda v: v if isinstance(v, str) else None)
def test_bucket_within_seed_bound(name, m, scores, seed, backend):
    rng = np.random.default_rng(seed)
    bg = BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    slices = int(rng.integers(1, min(m, 5) + 1))
    buckets = int(rng.choice([7, 50, 400, 3600]))
    dist = bucket_distribution(pssm, slices=slices, buckets=buckets, backend=backend)
    bound = seed_error_bound(pssm, slices, buckets)
    assert dist.error <= bound * (1 + 1e-9) + 1e-9          # the paper's bound, section 4.3
    assert abs(dist.mass.sum() - 1.0) < 1e-9
    # every score: P(grid >= s) <= P-value(s) <= P(grid >= s - bound)
    for s in np.concatenate([truth.scores[rng.integers(truth.scores.size, size=20)],
                             rng.uniform(pssm.min_score, pssm.max_score, size=20)]):
        lo, hi = dist.pvalue_bounds(s, bound)
        assert lo - TOL <= truth.pvalue(s) <= hi + TOL, (s, lo, hi)
    # PVALUETOSCORE: certified, and within the bound (+ one bucket) of the best threshold
    for p in (0.1, 1e-2, 1e-3):
        t = dist.threshold(p)
        best = naive.threshold(scores, bg, p, truth.words)
        if math.isfinite(t.score):
            assert truth.pvalue(t.score) <= p + TOL
            assert t.score - best <= dist.error + dist.step + 1e-9


def test_bucket_markov_needs_slices_as_long_as_the_order():
    pssm = PSSM(random_scores(np.random.default_rng(1), 5), background=MARKOV2)
    with pytest.raises(InvalidParameter, match="order 2"):
        bucket_distribution(pssm, slices=5)
    truth = Enumeration(pssm.scores, MARKOV2)
    dist = bucket_distribution(pssm, slices=2, buckets=100)
    for s in truth.scores[::97]:
        lo, hi = dist.pvalue_bounds(s)
        assert lo - TOL <= truth.pvalue(s) <= hi + TOL


def test_slices_cover_the_matrix():
    assert slice_bounds(65, 4) == [(0, 17), (17, 33), (33, 49), (49, 65)]
    assert slice_bounds(3, 3) == [(0, 1), (1, 2), (2, 3)]


def test_pvalue_and_threshold_consistent():
    rng = np.random.default_rng(9)
    for method in ("exact", "bucket"):
        for bg in (BACKGROUNDS["uniform"], BACKGROUNDS["markov1"]):
            pssm = PSSM(rng.normal(size=(12, 4)) * 2, background=bg)
            for p in (1e-2, 1e-4):
                t = thresholds(pssm, p, variant=method)[0]
                back = pvalues(pssm, t.score, variant=method)[0]
                assert t.high <= p * (1 + 1e-9)                    # certified by the threshold's grid
                assert back.low <= t.high + TOL and t.low <= back.high + TOL   # two grids, overlapping bounds
                assert back.low <= p * (1 + 1e-9)
                s = t.score + 0.5                                  # a score's own P-value gives it back
                q = pvalues(pssm, s, variant=method)[0].high
                assert thresholds(pssm, q, variant=method)[0].score_low <= s + 1e-9


def test_biopython_style_api_and_batch():
    rng = np.random.default_rng(11)
    motifs = [PSSM.from_counts(rng.integers(0, 30, size=(m, 4)), motif_id=f"m{m}") for m in (5, 8, 12, 16)]
    dist = motifs[3].distribution("exact")
    assert dist.threshold_fpr(1e-4) == exact_threshold(motifs[3], 1e-4).score
    batch = thresholds(motifs, 1e-4, threads=2)
    assert [t.score for t in batch] == [exact_threshold(m, 1e-4).score for m in motifs]
    assert not math.isfinite(batch[0].score)          # 4**-5 > 1e-4: no 5-mer is that rare
    assert batch[0].to_dict()["score"] is None


def test_bad_parameters():
    pssm = PSSM(np.zeros((3, 4)))
    with pytest.raises(InvalidParameter, match="P-value"):
        thresholds(pssm, 0.0)
    with pytest.raises(InvalidParameter, match="slices"):
        bucket_distribution(pssm, slices=0)
    with pytest.raises(InvalidParameter, match="variant"):        # method= is now variant=
        thresholds(pssm, 0.1, variant="magic")


# ---- The exact variant's precision, against brute force. Bounds that merely contain the truth are
# not enough (bounds [0, 1] always do): they must be as tight as documented in ``_exact``.

PRECISION_CASES = cases(9, 10, 21) + [("markov2", m, random_scores(np.random.default_rng(m), m),
                                       [21, m]) for m in (2, 5, 8)]
ALL_BACKGROUNDS = {**BACKGROUNDS, "markov2": MARKOV2}


@pytest.mark.parametrize("name,m,scores,seed", PRECISION_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_exact_pvalue_meets_its_precision(name, m, scores, seed):
    rng = np.random.default_rng(seed)
    bg = ALL_BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    picks = list(truth.scores[rng.integers(truth.scores.size, size=6)]) + list(
        rng.uniform(pssm.min_score, pssm.max_score, size=3))
    for precision, rtol in ((None, DEFAULT_RTOL), (1e-2, 1e-2)):
        for s in picks:
            r = pvalues(pssm, s, precision=precision)[0]
            assert r.low - TOL <= truth.pvalue(s) <= r.high + TOL
            assert r.high - r.low <= rtol * r.high + TOL, (s, r)          # the documented precision


@pytest.mark.parametrize("name,m,scores,seed", PRECISION_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_exact_threshold_within_tolerance_of_the_optimal(name, m, scores, seed):
    bg = ALL_BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    for p in (0.3, 0.05, 1e-3, 1e-5):
        t = thresholds(pssm, p)[0]
        best = naive.threshold(scores, bg, p, truth.words)
        if not math.isfinite(best):
            assert not t.reachable
            continue
        true = truth.pvalue(t.score)
        assert true <= p + TOL                                            # valid
        assert t.low - TOL <= true <= t.high + TOL and t.high <= p + TOL   # certified
        lost = truth.pvalue(best) - true                                  # hits lost against the optimum
        assert lost <= DEFAULT_RTOL * p + TOL or t.score - best <= DEFAULT_SCORE_TOL + 1e-9, (p, t, best)


@pytest.mark.parametrize("name,m,scores,seed", cases(12, 9, 23), ids=lambda v: v if isinstance(v, str) else None)
def test_bucket_pvalue_bounds_within_the_error_bound(name, m, scores, seed, backend):
    """A bucket P-value interval holds only the words whose true score lies within the paper's error
    bound of the score asked about: high - low <= P(|score - s| <= bound)."""
    rng = np.random.default_rng(seed)
    bg = BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    picks = np.concatenate([truth.scores[rng.integers(truth.scores.size, size=8)],
                            rng.uniform(pssm.min_score, pssm.max_score, size=4)])
    for slices, buckets in ((1, 50), (2, 400), (min(m, 3), 3600), (min(m, 4), 7)):
        dist = bucket_distribution(pssm, slices=slices, buckets=buckets, backend=backend)
        bound = seed_error_bound(pssm, min(slices, m), buckets) + 1e-6
        for s in picks:
            lo, hi = dist.pvalue_bounds(s)
            band = truth.prob[np.abs(truth.scores - s) <= bound].sum()
            assert hi - lo <= band + TOL, (slices, buckets, s, lo, hi, band)
