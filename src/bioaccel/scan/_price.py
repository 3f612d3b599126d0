"""Pricing a batch of scan hits: each hit's exact P-value, on every core.

Values priced before are looked up (:class:`._price_cache.PriceCache`). The rest are grouped by score
distribution (motif x strand), and each group's distinct values answered by one meet-in-the-middle
search (:func:`._pvalues.hit_pvalues`), the groups on a pool of threads (the searches release the
GIL), costliest first: over a genome most of the time goes to a few dozen matrices of 16 columns and
more, whose searches take seconds each, and one of them starting last would leave the other threads
idle. (Cutting each long search into 16 parts by its first two letters, sharing one suffix table, was
measured slower on an H100 machine's 16 cores: docs/scan-notes.md.)

Where only the ``best`` hits of smallest P-value are wanted (``--max-stored-hits``), :func:`price_best`
asks about each distribution's values from the highest down, in rounds, and stops where the hits left
cannot be among the best: a search costs about as many steps as there are words above the lowest value
asked, so the near-threshold values that most hits have, and that no kept hit needs, are the dearest.
"""
import math
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, prange

from ..runtime.parallel import resolve_threads
from ._hits import Hits
from ._price_cache import SMALL
from ._pvalues import asked_values, tails_of

#: A value's P-value must pass a cut by this factor before the values below it are taken to pass it:
#: a lower score's P-value, computed by another sum, cannot then fall below the cut by rounding (exact
#: P-values are accurate to ~1e-12 relative)
FLOOR_MARGIN = 1e-6


def price(setup, hits, threads=0) -> None:
    """Fill ``hits.pvalue`` (see the module's docstring); ``threads``: 0 for all cores.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._setup import prepare
    >>> from bioaccel.scan._hits import Hits
    >>> setup = prepare([PSSM(np.eye(4)[:2])], threshold=2)
    >>> hits = Hits.empty(1)
    >>> price(setup, hits)                 # nothing to price
    >>> len(hits)
    0
    """
    if len(hits) == 0:
        return
    batch = _Batch(setup, setup.dist_index[hits.motif, hits.strand], hits.units)
    jobs = {d: batch.values[slice(*batch.unasked(d))] for d in batch.groups}
    for d, (values, answer, _) in _search(setup, jobs, threads).items():
        batch.take(d, values, answer)
    hits.pvalue[:] = batch.pvalues()


def price_best(setup, hits, best, threads=0, floor_cut=math.inf) -> None:
    """Fill ``hits.pvalue`` (:class:`~._hits.Hits`, or a batch's list of them, not joined) where a hit
    may be among the ``best`` of smallest P-value, ``inf`` elsewhere.

    A hit left at ``inf`` has a P-value at or above theta = min(t, ``floor_cut``), t the
    (``best`` + 1)-th smallest P-value: so :meth:`~._hits.Hits.best` keeps the hits it would keep
    with every P-value filled, and with ``floor_cut`` (the cut of an earlier batch of the scan) a hit left
    out can never be kept. Each distribution's values are asked about from the highest down, those whose
    lower bound (:class:`._bounds.PriceBounds`) is below theta, theta taken with upper bounds in place
    of the P-values not known yet; once the values asked are priced theta can only fall, and a value whose
    lower bound it passes is asked about in another round (rarely). Which values are asked depends only on
    the hits and on what was priced before, never on timing.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._setup import prepare
    >>> from bioaccel.scan._hits import Hits
    >>> setup = prepare([PSSM(np.eye(4)[:3])], threshold=1)
    >>> units = np.repeat([3, 2, 1], [2, 8, 40]) << setup.grids[0].bits
    >>> hits = Hits(np.zeros(50, np.int32), np.zeros(50, np.int8), np.zeros(50, np.int32), np.arange(50),
    ...             units, np.zeros((50, 1), np.uint64), np.zeros(50), np.zeros(50))
    >>> price_best(setup, hits, 1)         # P(S >= 3) = 1/64 = theta, P(S >= 2) = 10/64
    >>> np.unique(hits.pvalue * 64).tolist()       # so no score-2 or score-1 hit can be the best
    [1.0, inf]
    """
    parts = [hits] if isinstance(hits, Hits) else list(hits)
    if sum(len(part) for part in parts) <= best:
        for part in parts:
            price(setup, part, threads)
        return
    picked = _may_be_kept(setup, parts, best, floor_cut, threads)
    batch = _Batch(setup, np.concatenate([setup.dist_index[p.motif[i], p.strand[i]] for p, i in zip(parts, picked)]),
                   np.concatenate([p.units[i] for p, i in zip(parts, picked)]))
    if batch.groups:
        _ask_in_rounds(setup, batch, best, threads, floor_cut)
    pvalue, at = batch.pvalues(), 0
    for part, i in zip(parts, picked):
        part.pvalue[:] = np.inf
        part.pvalue[i] = pvalue[at:at + i.size]
        at += i.size


def _may_be_kept(setup, parts, best, floor_cut, threads) -> list:
    """Of each part, the indices of the hits whose lower bound is below cap = min(u, ``floor_cut``) x
    (1 + :data:`FLOOR_MARGIN`), u the (``best`` + 1)-th smallest upper bound of the batch: the others
    can neither be asked about nor move theta, so the batch is grouped without them (a genome's first
    batch: some 6 M hits, of which a few hundred thousand are below cap).

    Why nothing else changes: every P-value reported lies below its upper bound (by far less than the
    margin), so theta <= cap at every round of :func:`price_best` and a value is asked about only when
    its lower bound is below theta; and while theta is the batch's own order statistic (below
    ``floor_cut``), every P-value or bound at or below it belongs to a hit kept here, so it is the same
    order statistic. A hit left out keeps P = inf, as a hit never asked about, though its value may be
    known: its P-value is at or above cap, so it can never be kept."""
    if math.isfinite(floor_cut):
        return [setup.bounds.below(setup.dist_index, part, floor_cut * (1.0 + FLOOR_MARGIN), threads)
                for part in parts]
    # (the lower bounds come with the upper ones: not computed again by PriceBounds.below)
    bounds = [setup.bounds.of_hits(setup.dist_index, part, threads) for part in parts]
    cap = float(np.partition(np.concatenate([upper for _, upper in bounds]), best)[best])
    return [np.flatnonzero(lower < cap * (1.0 + FLOOR_MARGIN)) for lower, _ in bounds]


def _ask_in_rounds(setup, batch, best, threads, floor_cut) -> None:
    """:func:`price_best`'s rounds: each distribution's values from the highest down, while their lower
    bounds are below theta (a round ends when theta stops falling)."""
    lower, upper = setup.bounds.at(batch.value_dist, batch.values, threads)
    known = batch.known[~batch.missing]
    known = np.partition(known, best)[:best + 1] if known.size > best + 1 else known
    motif = _motifs(setup)
    pending = set(batch.groups)
    while pending:
        # the (best + 1)-th smallest P-value, each not known yet taken at its upper bound: at least t
        stand_in = np.where(np.isfinite(batch.pvalue), batch.pvalue, upper)      # (inf until priced)
        theta = min(_order_statistic([known, stand_in], [np.ones(known.size, np.int64), batch.counts], best),
                    floor_cut) * (1.0 + FLOOR_MARGIN)
        jobs = {}
        for d in sorted(pending):
            lo, hi = batch.unasked(d)
            # the values left are the highest first, so their lower bounds rise: those below theta lead
            need = int(np.searchsorted(lower[lo:hi], theta))
            if need and int(motif[d]) not in setup.inexact:
                # values at or below one priced exactly with a P-value >= theta cannot be kept either
                need = min(need, int(np.count_nonzero(batch.values[lo:hi] > _known_floor(setup, d, theta))))
            if need == 0:
                pending.discard(d)
                continue
            jobs[d] = batch.values[lo:lo + need]
        if not jobs:
            break
        for d, (values, answer, _) in _search(setup, jobs, threads).items():
            batch.take(d, values, answer)


def _order_statistic(values, weights, k) -> float:
    """The (k + 1)-th smallest of ``values`` (arrays), each counted ``weights`` times; inf if fewer."""
    v = np.concatenate(values)
    w = np.concatenate(weights)
    order = np.argsort(v, kind="stable")
    reach = np.cumsum(w[order])
    i = int(np.searchsorted(reach, k + 1))
    return float(v[order[i]]) if i < v.size else math.inf


class _Batch:
    """Hits (their distributions ``dist`` and values ``units``) whose values are not priced yet, by
    distribution: each one's distinct values from the highest down (``values[groups[d][0]:groups[d][1]]``),
    how many hits have each, and the P-values this batch has found for them."""

    def __init__(self, setup, dist, units):
        self.dist = dist
        self.known, self.missing = setup.priced.look_up(dist, units)
        self.groups = {}
        miss = np.flatnonzero(self.missing)
        if miss.size == 0:
            return
        small = self.dist[miss].astype(np.int16 if len(setup.dists) < (1 << 15) else np.int32)
        order = miss[np.argsort(small, kind="stable")]        # a radix sort for 16-bit keys
        bounds = np.concatenate([[0], np.flatnonzero(np.diff(self.dist[order])) + 1, [order.size]])
        self.values, self.counts, starts, self.slot = distinct_by_group(units, order, bounds)
        ds = self.dist[order[bounds[:-1]]]
        self.value_dist = np.repeat(ds, np.diff(starts))
        self.groups = {int(d): [int(a), int(a), int(b)] for d, a, b in zip(ds, starts[:-1], starts[1:])}
        self.pvalue = np.full(self.values.size, np.inf)       # of each value: inf until priced

    def unasked(self, d) -> tuple:
        """The range of distribution d's values not asked about yet."""
        _, next_, end = self.groups[d]
        return next_, end

    def take(self, d, values, pvalues) -> None:
        """The P-values of the next values of distribution d (from the highest down)."""
        group = self.groups[d]
        self.pvalue[group[1]:group[1] + values.size] = pvalues
        group[1] += values.size

    def pvalues(self) -> np.ndarray:
        """The hits' P-values: known before, found by this batch, ``inf`` where a value was never asked
        about."""
        p = self.known
        if self.groups:
            miss = np.flatnonzero(self.missing)
            p[miss] = self.pvalue[self.slot[miss]]
        return p


def distinct_by_group(units, order, bounds):
    """:func:`_distinct_by_group`, by NumPy for at most :data:`SMALL` hits (the same arrays).

    >>> units = np.array([5, 7, 5, 2, 9])
    >>> [a.tolist() for a in distinct_by_group(units, np.array([0, 1, 2, 3, 4]), np.array([0, 3, 5]))]
    [[7, 5, 9, 2], [1, 2, 1, 1], [0, 2, 4], [1, 0, 1, 3, 2]]
    """
    if order.size > SMALL:
        return _distinct_by_group(units, order, bounds)
    groups = bounds.size - 1
    group = np.repeat(np.arange(groups, dtype=np.int64), np.diff(bounds))
    u = units[order]
    ranked = np.lexsort((-u, group))               # by group, then from the highest value down
    su, sg = u[ranked], group[ranked]
    new = np.ones(su.size, np.bool_)
    new[1:] = (su[1:] != su[:-1]) | (sg[1:] != sg[:-1])
    values = su[new]
    index = np.cumsum(new) - 1
    counts = np.bincount(index, minlength=values.size).astype(np.int64)
    starts = np.zeros(groups + 1, np.int64)
    np.cumsum(np.bincount(sg[new], minlength=groups), out=starts[1:])
    slot = np.full(units.shape[0], -1, np.int64)
    slot[order[ranked]] = index
    return values.astype(np.int64), counts, starts, slot


@njit(cache=True, nogil=True, parallel=True)
def _distinct_by_group(units, order, bounds):
    """For each group g of hits ``order[bounds[g]:bounds[g + 1]]``: its distinct ``units`` from the
    highest down (values[starts[g]:starts[g + 1]]), how many hits have each (counts), and each hit's
    index in ``values`` (slot, of every hit of ``units``; -1 outside the groups), every group on its own
    core."""
    groups = bounds.shape[0] - 1
    ranked = np.empty(order.shape[0], np.int64)
    distinct = np.zeros(groups + 1, np.int64)
    for g in prange(groups):
        lo, hi = bounds[g], bounds[g + 1]
        ranked[lo:hi] = np.sort(units[order[lo:hi]])[::-1]
        n = 1
        for i in range(lo + 1, hi):
            n += ranked[i] != ranked[i - 1]
        distinct[g + 1] = n
    starts = np.cumsum(distinct)
    values = np.empty(starts[groups], np.int64)
    counts = np.zeros(starts[groups], np.int64)
    slot = np.full(units.shape[0], -1, np.int64)
    for g in prange(groups):
        k = starts[g]
        values[k] = ranked[bounds[g]]
        for i in range(bounds[g], bounds[g + 1]):
            if ranked[i] != values[k]:
                k += 1
                values[k] = ranked[i]
            counts[k] += 1
        for i in range(bounds[g], bounds[g + 1]):      # each hit's value: found among the group's
            h = order[i]
            a, b = starts[g], starts[g + 1]           # values fall: the first one <= units[h] is it
            while a < b:
                mid = (a + b) // 2
                if values[mid] > units[h]:
                    a = mid + 1
                else:
                    b = mid
            slot[h] = a
    return values, counts, starts, slot


def _search(setup, jobs, threads) -> dict:
    """Answer ``jobs`` {d: grid values of distribution d}: one search a distribution, costliest first on
    ``threads`` threads. Returns {d: (values, their P-values, exact)}; what was found is remembered in
    ``setup.priced``, and a motif whose values came out as bounds in ``setup.inexact``. A bound is the
    smaller of the search's and the coarse one of ``setup.bounds`` (both certified): no P-value reported
    is then above the upper bound that :func:`price_best` and the scan's floors take for it."""
    motif = _motifs(setup)
    questions = {d: asked_values(setup.dists[d][0], jobs[d]) for d in jobs}
    asked = {d: q[0] for d, q in questions.items()}
    stored = setup.store.read(asked) if setup.store is not None and asked else {}
    cost = lambda d: (int(setup.dists[d][0].units.shape[0]), jobs[d].size)      # noqa: E731
    order = sorted((d for d in jobs if d not in stored), key=cost, reverse=True)

    def one(d):
        grid, background = setup.dists[d]
        return tails_of(grid, background, asked[d])

    workers = max(1, min(resolve_threads(threads), len(order)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        searched = dict(zip(order, pool.map(one, order)))
    if setup.store is not None and searched:
        setup.store.write(asked, searched)
    out = {}
    for d in sorted(jobs, key=cost, reverse=True):     # the order the searches were made in before
        tails, exact, gap = stored[d] if d in stored else searched[d]
        values = jobs[d]
        answer = np.minimum(tails[questions[d][1]], 1.0)
        if not exact:
            answer = np.minimum(answer, setup.bounds.at(np.full(values.size, d), values, threads=1)[1])
            k = int(motif[d])
            setup.inexact[k] = max(setup.inexact.get(k, 0.0), gap)
        setup.priced.add(d, values, answer)
        out[d] = (values, answer, exact)
    return out


def _motifs(setup) -> np.ndarray:
    """motif[d]: the motif whose score distribution (on one strand or both) is d."""
    motif = np.empty(len(setup.dists), np.int64)
    for strand in (1, 0):
        motif[setup.dist_index[:, strand]] = np.arange(setup.dist_index.shape[0])
    return motif


def _known_floor(setup, d, theta) -> float:
    """The largest value of distribution d priced so far whose P-value is at least ``theta`` (-inf if
    none): every lower value's P-value is at least as large (an exact P-value falls as the score rises)."""
    known, known_p = setup.priced.known[d]
    at_least = known_p >= theta
    return float(known[at_least].max()) if at_least.any() else -np.inf
