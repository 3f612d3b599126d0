"""The ``exact`` variant: SCORETOPVALUE and PVALUETOSCORE that are exact when they say exact.

Scores live on the motif's integer grid (:mod:`._integer`), so equal sums are equal and a threshold
never splits words that tie. By default every answer is exact:

* a threshold is the optimal cut, the smallest attainable score whose P-value is <= p, with its exact
  P-value and the next attainable score down (whose P-value is > p): a coarse grid narrows the answer
  to an interval, and every word inside it is listed by a meet-in-the-middle search
  (:mod:`._exact_kernels`);
* a P-value counts exactly the words that score at least the score asked about (a word's own score,
  typed or computed by float summation, always counts that word).

With ``precision=R`` the answer may stop early, once the words whose side is uncertain weigh at most
R x p (thresholds) or the bounds are within R of each other (P-values): faster on long matrices; the
results then say ``exact: false``. Where an exact answer would outgrow the work budget (long matrices,
about 25 columns and more), the answer is the best certified one and says so in its ``note``.
Many motifs are answered together by one parallel kernel (:func:`exact_thresholds`).
"""
import math
import threading
from dataclasses import dataclass

import numpy as np
from numba import get_num_threads

from ..runtime.parallel import on_threads
from ._exact_kernels import (EXACT, NEG, UNPROVEN, UNREACHABLE, WITHIN_PRECISION, grid_dp, tails_many,
                             threshold_kernel, thresholds_many)
from ._grid import ScoreDistribution, chain, check_p
from ._integer import grid_bits, score_to_units, to_score, to_units
from ._result import PValue, Threshold

DEFAULT_RTOL = 1e-3        # COMPARE's precision (its 2-D grid is not exact)
FIRST_CELLS = 4096         # cells of the first coarse grid over the whole score range
MAX_CELLS = 20_000_000     # a coarse grid grows 8-fold per refinement, up to this many cells per context
LIST_TARGET = 65_536       # refine until the interval holds about this many words, then list them
LIST_CAP = 1 << 23         # at most this many listed words
NODE_CAP = 60_000_000      # and this many nodes of the prefix search (about a second)
SUFFIX_COLUMNS = 8         # the last 8 columns' 65,536 words are tabulated and sorted
POLL_SECONDS = 0.1         # how often a batch's finished motifs are reported while its kernel runs


@dataclass(frozen=True)
class Grid:
    """A PSSM on its integer grid: ``units`` (m, 4) int64, ``bits`` and the tie tolerance ``tol``
    (units within which two grid scores are one score).

    >>> from bioaccel.motif import PSSM
    >>> g = Grid.of(PSSM(np.eye(4)[:2]))
    >>> g.score(g.units[0, 0] + g.units[1, 1]), g.tol          # the word AC
    (2.0, 3)
    """

    units: np.ndarray
    bits: int
    tol: int

    @classmethod
    def of(cls, pssm) -> "Grid":
        bits = grid_bits(pssm.scores)
        return cls(to_units(pssm.scores, bits), bits, pssm.length // 2 + 2)

    def score(self, units) -> float:
        return to_score(units, self.bits)

    def admits(self, score) -> int:
        """The smallest grid value that ``score`` admits (see :func:`._integer.score_to_units`)."""
        return score_to_units(score, self.bits, self.units.shape[0])


def search_work(pssm) -> float:
    """A rough measure of the exact search's work on ``pssm`` (relative units; for a progress bar's
    estimate of the time left): the searches of the 879 JASPAR 2024 vertebrate matrices at P 1e-4 take
    about 1.8x longer per column up to 20 columns, and about as long past it (the work budget), so
    that the longest 50 take 73% of the time.

    >>> from bioaccel.motif import PSSM
    >>> [round(search_work(PSSM(np.eye(4)[[i % 4 for i in range(n)]])), 1) for n in (6, 11, 30)]
    [1.0, 16.0, 2352.5]
    """
    return 2.0 ** (0.8 * (min(pssm.length, 20) - 6))


def _watched(kernel, args, workers, status, report):
    """``on_threads(kernel, args, workers)``; with ``report``, the kernel runs on a thread of its own
    while this one calls ``report(indices)`` with the motifs newly finished every POLL_SECONDS: those
    whose ``status`` entry (set to -1 before; the kernel writes a motif's status when it is done) is
    no longer -1. Every motif is reported once, the last ones when the kernel returns."""
    if report is None:
        on_threads(kernel, args, workers)
        return
    failed = []

    def run():
        try:
            on_threads(kernel, args, workers)
        except BaseException as error:        # raised again by the calling thread
            failed.append(error)

    thread = threading.Thread(target=run, name="bioaccel-exact", daemon=True)
    thread.start()
    seen = np.zeros(len(status), dtype=np.bool_)
    while True:
        thread.join(POLL_SECONDS)
        done = thread.is_alive() is False
        new = (status != -1) & ~seen
        if new.any():
            seen |= new
            report(np.flatnonzero(new))
        if done:
            break
    if failed:
        raise failed[0]


def _batch_threshold(pssms, ps, precision, report=None):
    """Thresholds of (pssm, p) pairs sharing one background: one parallel kernel call (``report``: see
    :func:`_watched`)."""
    grids = [Grid.of(m) for m in pssms]
    starts = np.zeros(len(grids) + 1, dtype=np.int64)
    np.cumsum([g.units.shape[0] for g in grids], out=starts[1:])
    Qflat = np.concatenate([g.units for g in grids]) if grids else np.zeros((0, 4), np.int64)
    order_idx = np.argsort(-np.diff(starts), kind="stable").astype(np.int64)     # longest first
    tol = np.array([g.tol for g in grids], dtype=np.int64)
    out_int = np.zeros((len(grids), 5), dtype=np.int64)
    out_int[:, 0] = -1                       # no status yet: the motif's search is not done
    out_float = np.zeros((len(grids), 2), dtype=np.float64)
    initial, transition, order = chain(pssms[0].background)
    rtol = 0.0 if precision is None else float(precision)
    if len(grids) == 1:
        # one motif: the kernel itself, so that a first run compiles no loop over motifs around it
        st, T, tT, below, tb, L, U = threshold_kernel(np.ascontiguousarray(grids[0].units), initial, transition, order, float(ps[0]), rtol,
                                                      int(tol[0]), FIRST_CELLS, MAX_CELLS, LIST_TARGET, LIST_CAP,
                                                      NODE_CAP, SUFFIX_COLUMNS)
        out_int[0] = (st, T, below, L, U)
        out_float[0] = (tT, tb)
        if report is not None:
            report(np.zeros(1, dtype=np.int64))
    else:
        _watched(thresholds_many, (Qflat, starts, order_idx, initial, transition, order,
                                   np.asarray(ps, dtype=np.float64), rtol, tol, FIRST_CELLS, MAX_CELLS, LIST_TARGET,
                                   LIST_CAP, NODE_CAP, SUFFIX_COLUMNS, out_int, out_float, np.zeros(1, np.int64)),
                 min(get_num_threads(), len(grids)), out_int[:, 0], report)
    return [_threshold_result(m, g, p, out_int[i], out_float[i], precision)
            for i, (m, g, p) in enumerate(zip(pssms, grids, ps))]


def _threshold_result(pssm, grid, p, ints, floats, precision):
    status, T, below, L, U = (int(v) for v in ints)
    tail_T, tail_below = float(floats[0]), float(floats[1])
    variant = "exact"
    if status == UNREACHABLE:
        return Threshold(pssm.motif_id, p, math.inf, 0.0, 0.0, 0.0, grid.score(T - 1), variant, 0.0,
                         exact=True, pvalue_below=tail_below)
    if status == EXACT:
        low = grid.score(below) if below != NEG else grid.score(L)
        return Threshold(pssm.motif_id, p, grid.score(T), tail_T, tail_T, tail_T, low, variant, 0.0,
                         exact=True, pvalue_below=tail_below if below != NEG else None)
    # within the requested precision, or past the work budget: U is a valid cut (tail in [floats[1],
    # tail_T], tail_T <= p), T the first attainable score at or past it, and the optimum lies in (L, U]
    why = "within_precision" if status == WITHIN_PRECISION else "unproven"
    return Threshold(pssm.motif_id, p, grid.score(T), tail_T, tail_below, tail_T, grid.score(L), variant, 0.0,
                     exact=False, why=why, precision=precision)


def _batch_tail(pssms, scores, precision, report=None):
    """P-values of (pssm, score) pairs sharing one background: one parallel kernel call (``report``:
    see :func:`_watched`)."""
    grids = [Grid.of(m) for m in pssms]
    starts = np.zeros(len(grids) + 1, dtype=np.int64)
    np.cumsum([g.units.shape[0] for g in grids], out=starts[1:])
    Qflat = np.concatenate([g.units for g in grids]) if grids else np.zeros((0, 4), np.int64)
    order_idx = np.argsort(-np.diff(starts), kind="stable").astype(np.int64)
    Ts = np.array([g.admits(s) for g, s in zip(grids, scores)], dtype=np.int64)
    out_exact = np.zeros(len(grids), dtype=np.bool_)
    out_bounds = np.zeros((len(grids), 2), dtype=np.float64)
    out_bounds[:, 1] = -1.0                  # no upper bound yet (a P-value is >= 0): not done
    initial, transition, order = chain(pssms[0].background)
    rtol = 0.0 if precision is None else float(precision)
    _watched(tails_many, (Qflat, starts, order_idx, initial, transition, order, Ts, rtol, FIRST_CELLS, MAX_CELLS,
                          NODE_CAP, SUFFIX_COLUMNS, out_exact, out_bounds, np.zeros(1, np.int64)),
             min(get_num_threads(), len(grids)), out_bounds[:, 1], report)
    return [PValue(m.motif_id, float(s), float(b[1]), float(b[0]), float(b[1]), "exact", 0.0, exact=bool(e),
                   precision=precision)
            for m, s, e, b in zip(pssms, scores, out_exact, out_bounds)]


def _by_background(items, solve, on_answer=None):
    """Run ``solve(pssms, values, report)`` on the items (pssm, value) grouped by background, answers in
    item order; ``on_answer(pssm, True)`` for each item as its answer is found (``report``: the indices
    of a group's items newly answered)."""
    groups = {}
    for i, (pssm, _) in enumerate(items):
        groups.setdefault(id(pssm.background), []).append(i)
    out = [None] * len(items)
    for idx in groups.values():
        report = None if on_answer is None else (
            lambda found, idx=idx: [on_answer(items[idx[k]][0], True) for k in found])
        answers = solve([items[i][0] for i in idx], [items[i][1] for i in idx], report)
        for i, answer in zip(idx, answers):
            out[i] = answer
    return out


def exact_thresholds(items, *, precision=None, on_answer=None) -> list:
    """PVALUETOSCORE of every (pssm, p) in ``items``, in order, on all of Numba's threads;
    ``on_answer(pssm, True)`` is called for each item as its answer is found (a progress bar).

    >>> from bioaccel.motif import PSSM
    >>> [t.score for t in exact_thresholds([(PSSM(np.eye(4)[:2]), 0.1), (PSSM(np.eye(4)[:3]), 0.1)])]
    [2.0, 3.0]
    """
    items = [(m, check_p(p)) for m, p in items]
    return _by_background(items, lambda ms, ps, report: _batch_threshold(ms, ps, precision, report), on_answer)


def exact_pvalues(items, *, precision=None, on_answer=None) -> list:
    """SCORETOPVALUE of every (pssm, score) in ``items``, in order, on all of Numba's threads
    (``on_answer``: as :func:`exact_thresholds`).

    >>> from bioaccel.motif import PSSM
    >>> [r.pvalue for r in exact_pvalues([(PSSM(np.eye(4)[:2]), 1.0), (PSSM(np.eye(4)[:2]), 2.0)])]
    [0.4375, 0.0625]
    """
    return _by_background([(m, float(s)) for m, s in items],
                          lambda ms, ss, report: _batch_tail(ms, ss, precision, report), on_answer)


def exact_threshold(pssm, p, *, precision=None) -> Threshold:
    """The optimal threshold of one motif at P-value ``p`` (see the module's docstring).

    >>> from bioaccel.motif import PSSM
    >>> t = exact_threshold(PSSM(np.eye(4)[:2]), 0.1)
    >>> t.score, t.pvalue, t.exact, t.score_low, t.pvalue_below
    (2.0, 0.0625, True, 1.0, 0.4375)
    """
    return exact_thresholds([(pssm, p)], precision=precision)[0]


def exact_pvalue(pssm, score, *, precision=None) -> PValue:
    """P(score >= ``score``) of one motif, exact unless ``precision`` allows otherwise.

    >>> from bioaccel.motif import PSSM
    >>> exact_pvalue(PSSM(np.eye(4)[:2]), 1.0).pvalue
    0.4375
    """
    return exact_pvalues([(pssm, score)], precision=precision)[0]


class ExactDistribution:
    """``pssm.distribution("exact")``: answers each question exactly (or to ``precision``);
    ``grid()`` gives the whole distribution on a coarse grid (for plots).

    >>> from bioaccel.motif import PSSM
    >>> d = ExactDistribution(PSSM(np.eye(4)[:2]))
    >>> d.threshold_fpr(0.1), d.pvalue(2.0)
    (2.0, 0.0625)
    """

    variant = "exact"

    def __init__(self, pssm, *, precision=None):
        self.pssm = pssm
        self.precision = precision
        self.motif_id = pssm.motif_id

    def threshold(self, p) -> Threshold:
        return exact_threshold(self.pssm, p, precision=self.precision)

    def threshold_fpr(self, fpr) -> float:
        """Score threshold for false positive rate ``fpr`` (Biopython's name)."""
        return self.threshold(fpr).score

    def pvalue_result(self, score) -> PValue:
        return exact_pvalue(self.pssm, score, precision=self.precision)

    def pvalue(self, score) -> float:
        return self.pvalue_result(score).pvalue

    def pvalue_bounds(self, score) -> tuple:
        r = self.pvalue_result(score)
        return r.low, r.high

    def grid(self, cells=FIRST_CELLS) -> ScoreDistribution:
        """The distribution on a grid of about ``cells`` steps over the score range, certified."""
        g = Grid.of(self.pssm)
        Q = g.units
        span = int(Q.max(axis=1).sum() - Q.min(axis=1).sum())
        r = max(0, span.bit_length() - int(cells).bit_length())
        E = int(((Q - ((Q >> r) << r)).max(axis=1)).sum())
        initial, transition, order = chain(self.pssm.background)
        dist, base, lumped = grid_dp(Q >> r, initial, transition, order, NEG >> 1, (1 << 61))
        step = 2.0 ** (r - g.bits)
        return ScoreDistribution(int(base) * step, step, dist, E * 2.0 ** -g.bits, above=lumped,
                                 variant="exact", motif_id=self.motif_id)

    def curve(self) -> tuple:
        return self.grid().curve()
