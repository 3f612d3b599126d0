"""The scan's P-value search (scan/_pvalues.py): exact tails against enumeration of every word,
the node budget (counted before the search runs) and the bucketed look-up of the suffix table."""
import itertools

import numpy as np
import pytest

from bioaccel.motif import PSSM, Background
from bioaccel.motif import Grid
from bioaccel.motif.tails import first_above
from bioaccel.scan._pvalues import _bucket_starts, _first_above_bucketed, hit_pvalues, tails_at

RNG = np.random.default_rng(11)


def every_word_tail(pssm, units):
    """P(S >= u) for each grid value u by listing all 4**m words (order-0 background)."""
    g = Grid.of(pssm)
    f = np.asarray(pssm.background.letter_frequencies, dtype=float)
    scores = np.zeros(1, np.int64)
    probs = np.ones(1)
    for j in range(pssm.length):
        scores = (scores[:, None] + g.units[j][None, :]).ravel()
        probs = (probs[:, None] * f[None, :]).ravel()
    return np.array([probs[scores >= u].sum() for u in units])


def test_bucketed_look_up_is_the_binary_search():
    for n, spread, shift in itertools.product((1, 2, 7, 300), (1, 5, 1000), (0, 1, 3, 9)):
        s = np.sort(RNG.integers(-spread, spread + 1, size=n)).astype(np.int64)     # ties when spread is small
        start = _bucket_starts(s, shift)
        for x in range(int(s[0]) - 3, int(s[-1]) + 4):
            assert _first_above_bucketed(s, start, shift, x) == first_above(s, x), (n, spread, shift, x)


@pytest.mark.parametrize("m,background", [(10, Background.uniform()),
                                          (11, Background.from_frequencies([0.3, 0.2, 0.2, 0.3]))])
def test_tails_equal_every_word_counted(m, background):
    scores = RNG.normal(size=(m, 4)) * 2
    scores[2] = np.round(scores[2])                     # ties
    pssm = PSSM(scores, background=background)
    g = Grid.of(pssm)
    words = RNG.integers(0, 4, size=(60, m))
    units = g.units[np.arange(m), words].sum(axis=1)
    units = units[units >= np.quantile(units, 0.5)]
    p, exact, gap = hit_pvalues(g, background, units)
    assert exact and gap == 0.0
    assert p == pytest.approx(every_word_tail(pssm, units - g.tol), rel=1e-12)


def test_a_search_over_its_budget_is_not_run_and_the_bounds_hold():
    m = 12
    pssm = PSSM(RNG.normal(size=(m, 4)) * 2)
    g = Grid.of(pssm)
    words = RNG.integers(0, 4, size=(40, m))
    units = np.sort(g.units[np.arange(m), words].sum(axis=1))
    v = np.unique(units - g.tol)
    initial, transition = np.ones(1), np.full((1, 4), 0.25)
    full, ok = tails_at(g.units, initial, transition, 0, v, 1 << 40, 8)
    assert ok
    for cap in (1, 100, 10_000):
        tails, ok = tails_at(g.units, initial, transition, 0, v, cap, 8)
        assert not ok and not tails.any()              # nothing added: the search itself never ran
    p, exact, gap = hit_pvalues(g, pssm.background, units, node_cap=100)
    assert not exact and 0 <= gap < 1
    exact_p = full[np.searchsorted(v, units - g.tol)]
    # certified: never below the exact value, and within the gap said (lower bound = p (1 - gap))
    assert (p >= exact_p * (1 - 1e-12)).all() and (p * (1 - gap) <= exact_p * (1 + 1e-12)).all()


@pytest.mark.parametrize("m,h", [(3, 0), (12, 4), (16, 8), (20, 10)])
def test_the_uniform_suffix_table_is_the_kernels_bit_for_bit(m, h):
    from bioaccel.motif.tails import suffix_table
    from bioaccel.scan._pvalues import uniform_suffix_table

    scores = RNG.normal(size=(m, 4)) * 2
    scores[1] = np.round(scores[1])                     # ties: their order must not matter
    g = Grid.of(PSSM(scores))
    kernel = suffix_table(g.units, h, np.full((1, 4), 0.25))
    for a, b in zip(kernel, uniform_suffix_table(g.units, h)):
        assert a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)


def test_uniform_and_general_paths_give_the_same_bits():
    from bioaccel.scan import _pvalues

    m = 18
    pssm = PSSM(np.round(RNG.normal(size=(m, 4)) * 3))   # integer scores: many ties
    g = Grid.of(pssm)
    words = RNG.integers(0, 4, size=(200, m))
    units = g.units[np.arange(m), words].sum(axis=1)
    units = units[units >= np.quantile(units, 0.8)]
    fast = hit_pvalues(g, pssm.background, units)
    general = _pvalues.is_uniform
    try:
        _pvalues.is_uniform = lambda background: False
        slow = hit_pvalues(g, pssm.background, units)
    finally:
        _pvalues.is_uniform = general
    assert fast[1:] == slow[1:] and np.array_equal(fast[0], slow[0])


@pytest.mark.parametrize("m,hits,best_share", [(12, 40, 0.8), (18, 400, 0.93), (20, 2000, 0.97)])
def test_counting_leaf_words_bin_by_bin_gives_the_same_bits(m, hits, best_share):
    """Under the uniform background a leaf's words are counted bin by bin (merge_ratio > 0) or word by
    word and score by score (0: the search as it was): every tail the same bits, for any mix of the
    two (2, 16), with scores near the threshold as a genome's hits are and many ties."""
    rng = np.random.default_rng(m)
    scores = rng.normal(size=(m, 4)) * 2
    scores[::3] = np.round(scores[::3])
    pssm = PSSM(scores)
    g = Grid.of(pssm)
    best = g.units.argmax(axis=1)                      # words near the top, as hits at P ~ 1e-4 are
    words = np.where(rng.random((hits, m)) < best_share, best, rng.integers(0, 4, size=(hits, m)))
    units = g.units[np.arange(m), words].sum(axis=1)
    before = hit_pvalues(g, pssm.background, units, merge_ratio=0)
    assert before[1]                                   # exact: the search ran to its end
    for ratio in (2, 16, 1 << 20):
        after = hit_pvalues(g, pssm.background, units, merge_ratio=ratio)
        assert after[1:] == before[1:] and np.array_equal(after[0], before[0])
