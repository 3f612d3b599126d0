"""Certified bounds on scan hits' P-values, in milliseconds: what a scan that keeps only its best hits
(``--max-stored-hits``) needs to know before any exact P-value is found.

Each score distribution (motif x strand) gets one coarse grid of :data:`BOUND_CELLS` cells over its
scores from the threshold up (each entry shifted right by r bits, as :func:`._coarse.bounded_tails`
does with many more cells): a word's grid score lies within E of its coarse sum times 2**r, so the coarse
tails bound every P-value from below and above. With them:

* the floors (:meth:`PriceBounds.floors`): once a batch's ``best`` hits are known to lie below some
  P-value theta (from upper bounds alone), every value whose lower bound is at or above theta can never
  be kept, so the scan stops copying such hits out of the GPU at once, not after seconds of exact
  searches;
* which values to price (:func:`._price.price_best`): only those whose lower bound is below theta.

No P-value the scan reports is above its hit's upper bound here: an exact one lies between the bounds,
and where a long matrix gets a bound from a finer grid instead (:func:`._price.price`), the smaller
of the two bounds is reported.
"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit, prange

from ..runtime.parallel import resolve_threads
from ._coarse import coarse_tails, tail_cell

#: Cells of each distribution's coarse grid: ~0.3 ms a matrix of 20 columns.
BOUND_CELLS = 4096


@njit(cache=True, nogil=True, parallel=True)
def _bounds_at(start, tails, base, shift, slack, tol, dist_index, motif, strand, units):
    """(lower, upper) bounds on the P-value of each hit: distribution dist_index[motif[i], strand[i]],
    grid score units[i] (P = P(S >= units - tol)); every hit on every core."""
    lo = np.empty(units.shape[0], np.float64)
    hi = np.empty(units.shape[0], np.float64)
    for i in prange(units.shape[0]):
        d = dist_index[motif[i], strand[i]]
        n = start[d + 1] - start[d] - 1
        v = units[i] - tol[d]
        hi[i] = tails[start[d] + tail_cell(v, slack[d], shift[d], base[d], n)]
        lo[i] = tails[start[d] + tail_cell(v, 0, shift[d], base[d], n)]
    return lo, hi


@njit(cache=True, nogil=True, parallel=True)
def _lower_below(start, tails, base, shift, tol, dist_index, motif, strand, units, theta):
    """Whether each hit's lower bound (:func:`_bounds_at`) is below ``theta``, every hit on every core."""
    out = np.empty(units.shape[0], np.bool_)
    for i in prange(units.shape[0]):
        d = dist_index[motif[i], strand[i]]
        n = start[d + 1] - start[d] - 1
        out[i] = tails[start[d] + tail_cell(units[i] - tol[d], 0, shift[d], base[d], n)] < theta
    return out


@njit(cache=True, nogil=True)
def _surely_at_least(start, tails, base, shift, theta, done):
    """For each distribution d (``done[d]``): the largest grid value v with lower bound >= theta (every
    value up to it then has P >= theta), a huge value where even the top's is, the smallest int64 where
    none is."""
    out = np.full(base.shape[0], np.iinfo(np.int64).min, np.int64)
    for d in range(base.shape[0]):
        if not done[d]:
            continue
        lo, hi = start[d], start[d + 1]
        if tails[hi - 1] >= theta:
            out[d] = np.iinfo(np.int64).max
            continue
        a, b = lo, hi - 1                        # the first cell whose tail is < theta (tails fall)
        while a < b:
            mid = (a + b) // 2
            if tails[mid] >= theta:
                a = mid + 1
            else:
                b = mid
        c = a - lo - 1                           # the last whose tail is >= theta
        if c >= 0:
            out[d] = (c + base[d]) << shift[d]   # ceil(v / 2**r) - base <= c
    return out


class PriceBounds:
    """The coarse tails of a scan's score distributions, made when first asked for.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._setup import prepare
    >>> setup = prepare([PSSM(np.eye(4)[:3])], threshold=1)
    >>> g = setup.grids[0]
    >>> lo, hi = setup.bounds.at(np.zeros(2, np.int64), np.array([3, 2]) << g.bits)
    >>> (lo * 64).tolist(), (hi * 64).tolist()      # exact here: 1/64 and 10/64 (no entry was shifted)
    ([1.0, 10.0], [1.0, 10.0])
    """

    def __init__(self, setup):
        self.setup = setup
        n = len(setup.dists)
        # each distribution's lowest value asked about: its entries' lowest threshold, less the tolerance
        self.vlow = np.full(n, np.iinfo(np.int64).max, np.int64)
        self.tol = np.array([g.tol for g, _ in setup.dists], np.int64)
        plan = setup.plan
        if plan.entries:
            d = setup.dist_index[plan.motif_of, plan.strand_of]
            np.minimum.at(self.vlow, d, plan.threshold - self.tol[d])
        self.done = np.zeros(n, np.bool_)
        self._tails = [np.zeros(1) for _ in range(n)]
        self.base = np.zeros(n, np.int64)
        self.shift = np.zeros(n, np.int64)
        self.slack = np.zeros(n, np.int64)
        self._packed = None

    def make(self, threads=0) -> None:
        """The tails of every distribution that can be hit, on ``threads`` threads (0: every core): about
        0.3 ms a matrix (a genome scan with every JASPAR 2024 CORE matrix: 0.05 s on 16 cores)."""
        todo = np.flatnonzero(~self.done & (self.vlow < np.iinfo(np.int64).max)).tolist()
        if not todo:
            return

        def one(d):
            grid, background = self.setup.dists[d]
            return coarse_tails(grid.units, np.ascontiguousarray(background.initial, dtype=np.float64),
                                np.ascontiguousarray(background.transition, dtype=np.float64),
                                background.order, int(self.vlow[d]), BOUND_CELLS)

        with ThreadPoolExecutor(max_workers=max(1, min(resolve_threads(threads), len(todo)))) as pool:
            for d, (tail, base, r, slack) in zip(todo, pool.map(one, todo)):
                self._tails[d] = tail
                self.base[d], self.shift[d], self.slack[d] = base, r, slack
                self.done[d] = True
        self._packed = None

    def _tables(self):
        if self._packed is None:
            start = np.zeros(len(self._tails) + 1, np.int64)
            start[1:] = np.cumsum([t.size for t in self._tails])
            self._packed = start, np.concatenate(self._tails)
        return self._packed

    def at(self, dist, units, threads=0):
        """(lower, upper) bounds on the P-values of hits of distributions ``dist`` scoring ``units``."""
        dist = np.asarray(dist, np.int64)
        return self._of(np.arange(self.done.size).reshape(-1, 1), dist, np.zeros_like(dist), units, threads)

    def of_hits(self, dist_index, hits, threads=0):
        """:meth:`at` of :class:`~._hits.Hits`, of distributions ``dist_index[motif, strand]``."""
        return self._of(dist_index, hits.motif, hits.strand, hits.units, threads)

    def below(self, dist_index, hits, theta, threads=0) -> np.ndarray:
        """The indices of the :class:`~._hits.Hits` (of distributions ``dist_index[motif, strand]``) whose
        P-value's lower bound is below ``theta``: the only ones that can have a P-value below it.

        >>> from bioaccel.motif import PSSM
        >>> from bioaccel.scan._setup import prepare
        >>> from bioaccel.scan._hits import Hits
        >>> setup = prepare([PSSM(np.eye(4)[:3])], threshold=1)
        >>> units = np.array([3, 2, 1, 3]) << setup.grids[0].bits      # P = 1/64, 10/64, 37/64, 1/64
        >>> hits = Hits(np.zeros(4, np.int32), np.zeros(4, np.int8), np.zeros(4, np.int32), np.arange(4),
        ...             units, np.zeros((4, 1), np.uint64), np.zeros(4), np.zeros(4))
        >>> setup.bounds.below(setup.dist_index, hits, 0.2).tolist()
        [0, 1, 3]
        """
        self.make(threads)
        start, tails = self._tables()
        mask = _lower_below(start, tails, self.base, self.shift, self.tol, dist_index, hits.motif, hits.strand,
                            np.asarray(hits.units, np.int64), float(theta))
        return np.flatnonzero(mask)

    def _of(self, dist_index, motif, strand, units, threads):
        self.make(threads)
        start, tails = self._tables()
        return _bounds_at(start, tails, self.base, self.shift, self.slack, self.tol, dist_index, motif, strand,
                          np.asarray(units, np.int64))

    def floors(self, theta) -> np.ndarray:
        """Per distribution (of those made): the smallest hit score (grid units) whose P-value may be below
        ``theta``; every lower one's lower bound is at least theta. The smallest int64 where none is known.

        >>> from bioaccel.motif import PSSM
        >>> from bioaccel.scan._setup import prepare
        >>> setup = prepare([PSSM(np.eye(4)[:3])], threshold=1)
        >>> setup.bounds.make()
        >>> floor = int(setup.bounds.floors(0.1)[0])    # P(S >= 2) = 10/64 >= 0.1 > P(S >= 3) = 1/64
        >>> floor >> setup.grids[0].bits, floor > 2 << setup.grids[0].bits
        (2, True)
        """
        start, tails = self._tables()
        largest = _surely_at_least(start, tails, self.base, self.shift, theta, self.done)
        out = largest.copy()
        inside = (largest > np.iinfo(np.int64).min) & (largest < np.iinfo(np.int64).max)
        out[inside] += self.tol[inside] + 1
        return out
