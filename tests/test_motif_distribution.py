"""Score distributions against brute-force enumeration of all 4**m words (tests/naive_motif.py):
the exact variant exact (the optimal threshold, P-values to the last word, ties never split), with a
precision only when asked; BUCKETSCOREDISTRIBUTION within Giraud & Varré's bound
(1 + ceil(log2 N)) * (max - min) / B, under uniform, skewed and Markov order-1 (and 2) backgrounds."""
import math

import numpy as np
import pytest

import naive_motif as naive
from bioaccel.errors import InvalidParameter
from bioaccel.motif import PSSM, Background, pvalues, thresholds
from bioaccel.motif._bucket import bucket_distribution, seed_error_bound, slice_bounds
from bioaccel.motif._exact import exact_pvalue, exact_threshold

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
        """P(score >= s), words tied with s (within naive.TIE) included."""
        return float(self.prob[self.scores >= s - naive.TIE].sum())


@pytest.mark.parametrize("name,m,scores,seed", cases(12, 10, 1), ids=lambda v: v if isinstance(v, str) else None)
def test_exact_pvalue_is_exact(name, m, scores, seed):
    rng = np.random.default_rng(seed)
    bg = BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    assert abs(truth.prob.sum() - 1) < 1e-9
    picks = list(truth.scores[rng.integers(truth.scores.size, size=4)]) + list(
        rng.uniform(pssm.min_score - 1, pssm.max_score + 1, size=4))
    for s in picks + [pssm.max_score, pssm.min_score]:
        r = exact_pvalue(pssm, s)
        assert r.exact and r.low == r.high == r.pvalue, (s, r)
        assert abs(r.pvalue - truth.pvalue(s)) <= 1e-12, (s, r, truth.pvalue(s))


@pytest.mark.parametrize("name,m,scores,seed", cases(12, 10, 2), ids=lambda v: v if isinstance(v, str) else None)
def test_exact_threshold_is_the_optimal_cut(name, m, scores, seed):
    bg = BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    for p in (0.2, 1e-2, 1e-3, 1e-4):
        t = exact_threshold(pssm, p)
        best, tail, below, tail_below = naive.threshold_and_below(scores, bg, p, truth.words)
        if not math.isfinite(best):
            assert not t.reachable and t.exact
            continue
        assert t.exact and abs(t.score - best) <= 1e-9, (p, t, best)          # the optimal cut
        assert abs(t.pvalue - tail) <= 1e-12 and t.pvalue <= p                  # its exact P-value
        assert t.low == t.high == t.pvalue
        if t.pvalue_below is not None:                                          # the next score down fails
            assert abs(t.score_low - below) <= 1e-9 and abs(t.pvalue_below - tail_below) <= 1e-12
            assert t.pvalue_below > p


def test_exact_markov_order_two():
    rng = np.random.default_rng(5)
    for m in (1, 2, 3, 7):
        scores = random_scores(rng, m)
        pssm = PSSM(scores, background=MARKOV2)
        truth = Enumeration(scores, MARKOV2)
        for s in truth.scores[rng.integers(truth.scores.size, size=5)]:
            r = exact_pvalue(pssm, s)
            assert r.exact and abs(r.pvalue - truth.pvalue(s)) <= 1e-12
        for p in (0.1, 1e-3):
            best = naive.threshold(scores, MARKOV2, p, truth.words)
            t = exact_threshold(pssm, p)
            assert (not t.reachable) if not math.isfinite(best) else abs(t.score - best) <= 1e-9


def tied_matrices():
    """Matrices whose words tie on purpose: the same column entries in several orders (words made of
    the same entries, summed in another order), and decimals whose float sums differ (0.1 + 0.2 and 0.3,
    0.7 + 0.1 and 0.8)."""
    rng = np.random.default_rng(31)
    column = rng.normal(size=4) * 2
    out = [np.array([rng.permutation(column) for _ in range(7)]),                # every column a permutation
           np.array([column] * 6),                                               # one column repeated
           np.array([[0.1, 0.2, 0.3, 0.0], [0.2, 0.1, 0.0, 0.3], [0.3, 0.0, 0.1, 0.2],
                     [0.7, 0.1, 0.8, 0.0], [0.1, 0.7, 0.0, 0.8]]),
           np.round(rng.normal(size=(8, 4)), 1)]                                # one decimal: many ties
    jitter = np.array([rng.permutation(column) for _ in range(6)])
    jitter[:, 0] = [0.1 + 0.2, 0.3, 0.1 + 0.2, 0.3, 0.3, 0.1 + 0.2]             # equal, but not in float
    out.append(jitter)
    return out


@pytest.mark.parametrize("index", range(5))
@pytest.mark.parametrize("bg", ["uniform", "skewed"])
def test_ties_are_never_split(index, bg):
    scores = tied_matrices()[index]
    background = BACKGROUNDS[bg]
    pssm = PSSM(scores, background=background)
    truth = Enumeration(scores, background)
    for p in (0.3, 0.05, 1e-2, 1e-3, 1e-4):
        best, tail, _, _ = naive.threshold_and_below(scores, background, p, truth.words)
        t = thresholds(pssm, p)[0]
        if not math.isfinite(best):
            assert not t.reachable
            continue
        assert abs(t.score - best) <= 1e-9 and abs(t.pvalue - tail) <= 1e-12, (p, t, best, tail)
        # the threshold read back as a score gives the same P-value (pvalue and threshold agree)
        assert abs(pvalues(pssm, t.score)[0].pvalue - t.pvalue) <= 1e-12
    # every word's own score, summed in float in any order, counts that word and every word tied with it
    rng = np.random.default_rng(index)
    for w in truth.words[rng.integers(truth.words.shape[0], size=20)]:
        entries = scores[np.arange(scores.shape[0]), w]
        for s in (float(entries.sum()), float(entries[::-1].sum()), float(np.sort(entries).sum())):
            r = pvalues(pssm, s)[0]
            assert r.pvalue >= truth.prob[(truth.words == w).all(axis=1)].sum()
            assert abs(r.pvalue - truth.pvalue(s)) <= 1e-12


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
    """Under an order-2 chain every slice needs 2 columns at least; the bounds it gives contain every
    word's true P-value and are as tight as the paper's bound says: only the words whose true score lies
    within the error of the score asked about may sit between them (bounds (0, 1) would contain any
    truth, and fail here)."""
    pssm = PSSM(random_scores(np.random.default_rng(1), 5), background=MARKOV2)
    with pytest.raises(InvalidParameter, match="order 2"):
        bucket_distribution(pssm, slices=5)
    truth = Enumeration(pssm.scores, MARKOV2)
    rng = np.random.default_rng(2)
    picks = np.concatenate([truth.scores[::97], rng.uniform(pssm.min_score, pssm.max_score, size=20)])
    for slices, buckets in ((2, 100), (2, 3600), (1, 400)):
        dist = bucket_distribution(pssm, slices=slices, buckets=buckets)
        bound = seed_error_bound(pssm, slices, buckets)
        assert dist.error <= bound * (1 + 1e-9) + 1e-9
        assert abs(dist.mass.sum() - 1.0) < 1e-9
        for s in picks:
            lo, hi = dist.pvalue_bounds(s)
            assert lo - TOL <= truth.pvalue(s) <= hi + TOL, (slices, buckets, s, lo, hi)       # containing
            band = truth.prob[np.abs(truth.scores - s) <= bound + 1e-6].sum()
            assert hi - lo <= band + TOL, (slices, buckets, s, lo, hi, band)                  # tight


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
                # (with a hair of slack: that P-value, summed in another order, may differ in its last bit)
                q = pvalues(pssm, s, variant=method)[0].high * (1 + 1e-12)
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


# ---- With a precision: bounds as tight as documented (bounds [0, 1] would contain any truth: they must
# not pass), thresholds valid and within the precision of the optimal cut.

PRECISION_CASES = cases(9, 10, 21) + [("markov2", m, random_scores(np.random.default_rng(m), m),
                                       [21, m]) for m in (2, 5, 8)]
ALL_BACKGROUNDS = {**BACKGROUNDS, "markov2": MARKOV2}


@pytest.mark.parametrize("name,m,scores,seed", PRECISION_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_pvalue_meets_its_precision(name, m, scores, seed):
    rng = np.random.default_rng(seed)
    bg = ALL_BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    picks = list(truth.scores[rng.integers(truth.scores.size, size=6)]) + list(
        rng.uniform(pssm.min_score, pssm.max_score, size=3))
    for precision in (1e-2, 1e-1):
        for s in picks:
            r = pvalues(pssm, s, precision=precision)[0]
            assert r.low - TOL <= truth.pvalue(s) <= r.high + TOL
            assert r.high - r.low <= precision * r.high + TOL, (s, r)          # the documented precision


@pytest.mark.parametrize("name,m,scores,seed", PRECISION_CASES, ids=lambda v: v if isinstance(v, str) else None)
def test_threshold_within_its_precision_of_the_optimal(name, m, scores, seed):
    bg = ALL_BACKGROUNDS[name]
    pssm = PSSM(scores, background=bg)
    truth = Enumeration(scores, bg)
    for p in (0.3, 0.05, 1e-3, 1e-5):
        t = thresholds(pssm, p, precision=1e-2)[0]
        best = naive.threshold(scores, bg, p, truth.words)
        if not math.isfinite(best):
            assert not t.reachable
            continue
        true = truth.pvalue(t.score)
        assert true <= p + TOL                                            # valid
        assert t.low - TOL <= true <= t.high + TOL and t.high <= p + TOL   # certified
        assert t.score_low < best + 1e-9                                  # the optimum lies in (low, score]
        lost = truth.pvalue(best) - true                                  # hits lost against the optimum
        assert t.exact or lost <= 1e-2 * p + TOL, (p, t, best)


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
