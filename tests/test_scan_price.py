"""Pricing only what may be kept (scan/_price.py, ``price_best``): on random motifs and
sequences, under uniform, skewed and Markov backgrounds, the hits :meth:`Hits.best` keeps and its cut are
those of every hit priced, with the same P-values, and every hit left unpriced has a P-value at or above
the cut, also where the P-values are bounds; and the floors a batch's bounds set (``bound_floor``)."""
import copy
import functools
import math

import numpy as np
import pytest

from bioaccel.motif import PSSM, Background
from bioaccel.scan._hits import Hits
from bioaccel.scan._pipeline import ScanState, bound_floor, collect
from bioaccel.scan._setup import prepare
from bioaccel.scan import _price
from bioaccel.scan._price import price, price_best
from bioaccel.scan._price_cache import PriceCache
from bioaccel.scan._pvalues import tails_of

SKEWED = Background.from_frequencies([0.35, 0.15, 0.2, 0.3])
_RNG = np.random.default_rng(7)
MARKOV = Background.markov(_RNG.dirichlet(np.ones(4)), _RNG.dirichlet(np.ones(4) * 0.7, size=4))


def motifs_and_hits(seed, background):
    """Random motifs of 4 to 14 columns and every hit (priced whole) of a random sequence at P = 0.02."""
    rng = np.random.default_rng(seed)
    motifs = [PSSM(rng.normal(size=(m, 4)) * 2, motif_id=f"m{k}", background=background)
              for k, m in enumerate(rng.integers(4, 15, size=6))]
    text = "".join(rng.choice(list("ACGT"), size=6000))
    hits, _ = collect(prepare(motifs, pvalue=0.02), [("r", text)], max_stored_hits=None, qvalues=False)
    return motifs, hits


def fresh(motifs, hits):
    """A setup that has priced nothing yet, and the hits with no P-value."""
    unpriced = copy.deepcopy(hits)
    unpriced.pvalue[:] = np.nan
    setup = prepare(motifs, pvalue=0.02)
    setup.store = None          # every search run here (the store on disk: tests/test_scan_store.py)
    return setup, unpriced


def key(hits):
    return sorted(zip(hits.motif.tolist(), hits.strand.tolist(), hits.start.tolist()))


@pytest.mark.parametrize("background", [Background.uniform(), SKEWED, MARKOV], ids=["uniform", "skewed", "markov"])
@pytest.mark.parametrize("best", [1, 7, 60, 150])
def test_the_best_kept_are_those_of_every_hit_priced(background, best):
    motifs, every = motifs_and_hits(best, background)
    assert len(every) > 8 * best
    setup, hits = fresh(motifs, every)
    price_best(setup, hits, best)
    left = np.isinf(hits.pvalue)
    assert left.any() and not np.isnan(hits.pvalue).any()
    assert np.allclose(hits.pvalue[~left], every.pvalue[~left], rtol=1e-12, atol=0)
    expected, cut = every.best(best)
    kept, kept_cut = hits.best(best)
    assert key(kept) == key(expected) and kept_cut == pytest.approx(cut, rel=1e-12)
    assert every.pvalue[left].min() >= cut * (1 - 1e-12)       # no hit left unpriced could be kept


def test_a_floor_from_earlier_batches_keeps_what_may_be_kept():
    motifs, every = motifs_and_hits(3, SKEWED)
    best = 50
    _, cut = every.best(best)
    setup, alone = fresh(motifs, every)
    price_best(setup, alone, best)
    floor_cut = float(np.quantile(every.pvalue, 0.01))     # an earlier batch's cut, far below this one's
    assert floor_cut < cut
    setup, held = fresh(motifs, every)
    price_best(setup, held, best, floor_cut=floor_cut)
    assert np.isinf(held.pvalue).sum() >= np.isinf(alone.pvalue).sum()
    assert every.pvalue[np.isinf(held.pvalue)].min() >= floor_cut * (1 - 1e-12)
    assert key(held.take(held.pvalue < floor_cut)) == key(every.take(every.pvalue < floor_cut))


def test_values_priced_by_an_earlier_batch_bound_the_search():
    """A second batch of the same hits: the values known from the first bound every distribution's
    search, so it asks about nothing and keeps the same hits."""
    motifs, every = motifs_and_hits(5, Background.uniform())
    setup, first = fresh(motifs, every)
    price_best(setup, first, 30)
    asked = sum(k.size for k, _ in setup.priced.known)
    second = copy.deepcopy(first)
    second.pvalue[:] = np.nan
    price_best(setup, second, 30)
    assert sum(k.size for k, _ in setup.priced.known) == asked
    assert key(second.best(30)[0]) == key(first.best(30)[0])


def test_bounds_in_place_of_exact_values_keep_the_guarantee(monkeypatch):
    """Every search over a tiny work budget, so every P-value is a bound: each reported is at or above
    the exact one and at or below the coarse upper bound the floors take for it, and a hit left unpriced
    has a lower bound at or above the cut, so could not have been kept."""
    motifs, every = motifs_and_hits(8, SKEWED)
    setup, hits = fresh(motifs, every)
    monkeypatch.setattr(_price, "tails_of", functools.partial(tails_of, node_cap=10))
    price_best(setup, hits, 25)
    priced = np.isfinite(hits.pvalue)
    assert set() != set(setup.inexact) <= set(hits.motif[priced].tolist())      # (short ones stay exact)
    assert (hits.pvalue[priced] >= every.pvalue[priced] * (1 - 1e-12)).all()
    lower, upper = setup.bounds.at(setup.dist_index[hits.motif, hits.strand], hits.units)
    assert (hits.pvalue[priced] <= upper[priced]).all() and (hits.pvalue[priced] > every.pvalue[priced]).any()
    _, cut = hits.best(25)
    assert (~priced).any() and (lower[~priced] >= cut).all()


def test_price_fills_every_hit_and_remembers_the_values():
    motifs, every = motifs_and_hits(9, MARKOV)
    setup, hits = fresh(motifs, every)
    price(setup, hits)
    assert np.allclose(hits.pvalue, every.pvalue, rtol=1e-12, atol=0)
    again = copy.deepcopy(hits)
    again.pvalue[:] = np.nan
    p, missing = setup.priced.look_up(setup.dist_index[again.motif, again.strand], again.units)
    assert not missing.any() and np.array_equal(p, hits.pvalue)
    assert isinstance(setup.priced, PriceCache) and math.isfinite(hits.pvalue.max())


@pytest.mark.parametrize("background", [Background.uniform(), MARKOV], ids=["uniform", "markov"])
def test_the_floor_from_bounds_holds_back_only_hits_that_cannot_be_kept(background):
    motifs, every = motifs_and_hits(4, background)
    best = 40
    setup = prepare(motifs, pvalue=0.02)
    floor = bound_floor(setup, ScanState(), [copy.deepcopy(every)], best)
    plan = setup.plan
    entry = {(int(k), int(s)): e for e, (k, s) in enumerate(zip(plan.motif_of, plan.strand_of))}
    at = np.array([floor[entry[k, s]] for k, s in zip(every.motif.tolist(), every.strand.tolist())])
    below = every.units < at
    _, cut = every.best(best)
    assert below.mean() > 0.5                               # most hits held back
    assert every.pvalue[below].min() >= cut                 # none that could be kept


def every_hit_kept(setup, parts, best, floor_cut, threads):
    return [np.arange(len(part)) for part in parts]


@pytest.mark.parametrize("node_cap", [None, 10], ids=["exact", "bounds"])
@pytest.mark.parametrize("floor_quantile", [None, 0.05], ids=["own-cut", "earlier-cut"])
def test_grouping_only_what_may_be_kept_asks_the_same_values(monkeypatch, node_cap, floor_quantile):
    """price_best groups only the hits whose lower bound is below the batch's cap (_may_be_kept): the
    values searched, in which groups, and every P-value found are those of grouping every hit (two
    batches, the second the first's hits again, which it kept more of), also where the searches give
    bounds; a hit it leaves out has a P-value at or above the cut."""
    if node_cap is not None:
        monkeypatch.setattr(_price, "tails_of", functools.partial(tails_of, node_cap=node_cap))
    motifs, every = motifs_and_hits(12, MARKOV)
    batches = [every, every.take(np.arange(len(every))[::-1])]          # the second: the same hits again
    floor_cut = math.inf if floor_quantile is None else float(np.quantile(every.pvalue, floor_quantile))
    runs = []
    for narrow in (True, False):
        if not narrow:
            monkeypatch.setattr(_price, "_may_be_kept", every_hit_kept)
        setup, _ = fresh(motifs, every)
        searched = []
        search = _price._search
        monkeypatch.setattr(_price, "_search", lambda s, jobs, t: searched.append(
            {d: v.tolist() for d, v in jobs.items()}) or search(s, jobs, t))
        priced = []
        for batch, best in zip(batches, (200, 20)):
            parts = [copy.deepcopy(batch.take(np.arange(0, len(batch), 2))),
                     copy.deepcopy(batch.take(np.arange(1, len(batch), 2)))]      # a batch's chunks
            price_best(setup, parts, best, floor_cut=floor_cut)
            priced.append(parts)
        monkeypatch.setattr(_price, "_search", search)
        runs.append((searched, setup, priced))
    (narrow_asked, narrow_setup, narrow), (whole_asked, whole_setup, whole) = runs
    assert narrow_asked == whole_asked and whole_asked
    assert narrow_setup.inexact == whole_setup.inexact and (node_cap is None) == (not whole_setup.inexact)
    for (k, p), (k2, p2) in zip(narrow_setup.priced.known, whole_setup.priced.known):
        assert np.array_equal(k, k2) and np.array_equal(p, p2)
    left_out = 0
    for parts, whole_parts, best in zip(narrow, whole, (200, 20)):
        for part, whole_part in zip(parts, whole_parts):
            same = np.isfinite(part.pvalue)
            assert np.array_equal(part.pvalue[same], whole_part.pvalue[same])
            extra = np.isfinite(whole_part.pvalue) & ~same
            left_out += int(extra.sum())
        joined = Hits.concat(parts)
        whole_joined = Hits.concat(whole_parts)
        cut = min(whole_joined.best(best)[1], floor_cut)          # what the scan can keep of this batch
        assert key(joined.take(joined.pvalue < cut)) == key(whole_joined.take(whole_joined.pvalue < cut))
        assert (whole_joined.pvalue[np.isinf(joined.pvalue)] >= cut).all()
    # the second batch's own cut is below what the first kept: some of its known values were left out
    assert left_out > 0 or floor_quantile is not None


@pytest.mark.parametrize("keep", [5, 40])
def test_batches_of_known_values_are_cut_to_their_own_best(monkeypatch, keep):
    """A sequence repeated: once its first batches are priced every value is known, and each later batch
    is looked up and cut below both the scan's cut and its own (the fast path of ``_priced``): the hits
    kept, their P-values, the count dropped and the final cut are those of every hit cut once."""
    import bioaccel.scan._pipeline as pipeline

    rng = np.random.default_rng(21)
    motifs = [PSSM(rng.normal(size=(m, 4)) * 2, motif_id=f"m{k}") for k, m in enumerate((5, 8, 11))]
    text = "".join(rng.choice(list("ACGT"), size=400)) * 40
    searched = []
    price_best_ = pipeline.price_best
    monkeypatch.setattr(pipeline, "price_best", lambda *a, **k: searched.append(1) or price_best_(*a, **k))
    every, _ = collect(prepare(motifs, pvalue=0.02), [("r", text)], max_stored_hits=None)
    hits, state = collect(prepare(motifs, pvalue=0.02), [("r", text)], max_stored_hits=keep, batch=40,
                          chunk_size=200)
    expected, cut = every.best(keep)
    assert len(every) > 20 * 40 and 0 < len(searched) < len(every) // 40 // 2     # most batches looked up
    assert state.dropped == len(every) - len(expected) and state.cut == cut
    assert key(hits) == key(expected) and np.array_equal(np.sort(hits.pvalue), np.sort(expected.pvalue))
