"""The ``exact`` variant: SCORETOPVALUE and PVALUETOSCORE on a certified integer grid (in the spirit of
TFM-Pvalue).

Each column's scores are rounded *down* to a multiple of ``step``; a dynamic programme over the
integer grid (carrying the last k letters as state under an order-k Markov background) gives the grid
distribution, whose ``error`` is the sum over columns of the largest rounding of that column
(< m * step). The step shrinks 8-fold until the bounds meet the requested relative precision or the
answer is decided (no mass left in the uncertain band). Only the scores that can still matter are
kept (those that can reach the lowest candidate threshold; those certain to exceed every candidate are
lumped), so refinements stay cheap. Motifs of up to ``ENUMERATE_LENGTH`` columns whose bounds stay
apart (a tie at the answer) are settled by listing the words above the answer's lower bound.

Precision, as the tests check against brute force: a P-value's bounds end within ``rtol`` of each
other (``high - low <= rtol * high``), and a threshold loses at most ``rtol * p`` of P-value against
the optimal one, or lies within ``score_tol`` of it, unless the grid would exceed ``MAX_STATES`` cells
or ``max_refinements`` is reached first on a motif longer than ``ENUMERATE_LENGTH`` (then the bounds
reached so far are returned, still certified).
"""
import math

import numpy as np
from numba import njit

from ..errors import ResourceError
from ._grid import ScoreDistribution, chain, check_p, grid_thresholds, round_down
from ._result import PValue, Threshold

MAX_STATES = 10_000_000       # grid cells (contexts x scores) of one exact DP: 160 MB in two arrays
DEFAULT_RTOL = 1e-3
DEFAULT_SCORE_TOL = 1e-3
REFINE = 8.0
ENUMERATE_LENGTH = 12      # motifs this short whose grid bounds stay apart (a tie at the answer) are settled
ENUMERATE_CAP = 1 << 21    # by listing the words above the answer's lower bound, at most this many
_BIG = np.iinfo(np.int64).max // 4


@njit(cache=True, nogil=True)
def _grid_dp(q, initial, transition, order, vlow, vlump):
    """Distribution of F = sum_j q[j, x_j] under the Markov chain, restricted to F >= vlow, with
    the mass of words certain to reach F >= vlump lumped (returned separately).

    Returns (dist, base, lumped): dist[i] = P(F = base + i) for base + i in [vlow, vlump).
    """
    m = q.shape[0]
    nctx = transition.shape[0]
    colmin = np.empty(m, np.int64)
    colmax = np.empty(m, np.int64)
    for j in range(m):
        colmin[j] = q[j].min()
        colmax[j] = q[j].max()
    rmin = np.zeros(m + 1, np.int64)   # sum of column minima from j to the end
    rmax = np.zeros(m + 1, np.int64)
    for j in range(m - 1, -1, -1):
        rmin[j] = rmin[j + 1] + colmin[j]
        rmax[j] = rmax[j + 1] + colmax[j]
    pmin = np.zeros(m + 1, np.int64)   # sums of the first j columns
    pmax = np.zeros(m + 1, np.int64)
    for j in range(m):
        pmin[j + 1] = pmin[j] + colmin[j]
        pmax[j + 1] = pmax[j] + colmax[j]
    lo = np.empty(m + 1, np.int64)     # kept window of partial sums after j columns
    hi = np.empty(m + 1, np.int64)
    for j in range(m + 1):
        lo[j] = max(pmin[j], vlow - rmax[j])
        hi[j] = min(pmax[j], vlump - rmin[j] - 1)
    lumped = 0.0
    start = min(order, m)
    width = max(hi[start] - lo[start] + 1, 0)
    cur = np.zeros((nctx, width), np.float64)
    # the first `order` letters come together from the chain's initial distribution
    for kmer in range(nctx):
        v = 0
        for j in range(start):
            letter = (kmer >> (2 * (order - 1 - j))) & 3
            v += q[j, letter]
        prob = initial[kmer]
        if v > hi[start]:
            if v + rmin[start] >= vlump:
                lumped += prob
        elif v >= lo[start]:
            cur[kmer, v - lo[start]] += prob
    for j in range(start, m):
        nwidth = max(hi[j + 1] - lo[j + 1] + 1, 0)
        nxt = np.zeros((nctx, nwidth), np.float64)
        for ctx in range(nctx):
            row = cur[ctx]
            for x in range(4):
                prob = transition[ctx, x]
                ctx2 = (ctx * 4 + x) % nctx
                shift = q[j, x]
                dest = nxt[ctx2]
                base = lo[j] + shift - lo[j + 1]     # index in nxt of row[0]
                for i in range(row.size):
                    w = row[i]
                    if w == 0.0:
                        continue
                    t = base + i
                    if t >= nwidth:
                        lumped += w * prob       # above the window: certain to reach vlump
                    elif t >= 0:
                        dest[t] += w * prob
        cur = nxt
    dist = np.zeros(cur.shape[1], np.float64)
    for ctx in range(nctx):
        dist += cur[ctx]
    return dist, lo[m], lumped


@njit(cache=True, nogil=True)
def _words_above(scores, initial, transition, order, cut, cap):
    """Score and probability of every word scoring >= ``cut`` (depth-first, skipping every prefix that
    cannot reach ``cut``); scores summed column by column. ``n > cap`` means the list overflowed."""
    m = scores.shape[0]
    nctx = transition.shape[0]
    rmax = np.zeros(m + 1)
    for j in range(m - 1, -1, -1):
        rmax[j] = rmax[j + 1] + scores[j].max()
    letters = np.zeros(m, np.int64)
    ps = np.zeros(m + 1)
    pw = np.ones(m + 1)
    pc = np.zeros(m + 1, np.int64)
    out_s = np.empty(cap)
    out_p = np.empty(cap)
    n = 0
    j = 0
    slack = 1e-9 * (1.0 + abs(cut) + rmax[0])    # prefix + best rest is summed in another order
    while j >= 0:
        if letters[j] > 3:
            j -= 1
            if j >= 0:
                letters[j] += 1
            continue
        x = letters[j]
        total = ps[j] + scores[j, x]
        if total + rmax[j + 1] < cut - slack:
            letters[j] += 1
            continue
        ctx = pc[j]
        nc = (ctx * 4 + x) % nctx
        if j < order:
            w = initial[nc] if j + 1 == order else 1.0
        else:
            w = pw[j] * transition[ctx, x]
        ps[j + 1] = total
        pc[j + 1] = nc
        pw[j + 1] = w
        if j == m - 1:
            if m < order:          # the initial k-mer's marginal over the letters the motif lacks
                rest = order - m
                w = 0.0
                for tail in range(4 ** rest):
                    w += initial[(nc << (2 * rest)) | tail]
            if n >= cap:
                return out_s, out_p, n + 1
            out_s[n] = total
            out_p[n] = w
            n += 1
            letters[j] += 1
        else:
            j += 1
            letters[j] = 0
    return out_s[:n], out_p[:n], n


def _listed(pssm, cut):
    initial, transition, order = chain(pssm.background)
    scores, probs, n = _words_above(pssm.scores, initial, transition, order, cut, ENUMERATE_CAP)
    return (scores, probs) if n <= ENUMERATE_CAP else None


def _listed_threshold(pssm, p, lower):
    listed = _listed(pssm, lower - 1e-9 * (1 + abs(lower)))
    if listed is None:
        return None
    scores, probs = listed
    order = np.argsort(-scores, kind="stable")
    scores, probs = scores[order], probs[order]
    cum = np.cumsum(probs)
    last = np.flatnonzero(np.append(scores[1:] != scores[:-1], True))     # last word of each tied score
    ok = last[cum[last] <= p] if scores.size else last
    if not ok.size or ok[-1] + 1 >= scores.size:
        return None                # the answer is not inside the listed words: keep the grid's answer
    i = ok[-1]
    pv = float(cum[i])
    return Threshold(pssm.motif_id, p, float(scores[i]), pv, pv, pv, float(scores[i + 1]), "exact", 0.0)


def _listed_pvalue(pssm, score):
    listed = _listed(pssm, score)
    if listed is None:
        return None
    pv = float(listed[1][listed[0] >= score].sum())
    return PValue(pssm.motif_id, float(score), pv, pv, pv, "exact", 0.0)


def _widest_window(q, vlow, vlump):
    """Largest number of partial sums the DP keeps at any column (see ``_grid_dp``)."""
    cmin, cmax = q.min(axis=1), q.max(axis=1)
    zero = np.zeros(1, np.int64)
    pmin, pmax = np.concatenate([zero, np.cumsum(cmin)]), np.concatenate([zero, np.cumsum(cmax)])
    rmin = np.concatenate([np.cumsum(cmin[::-1])[::-1], zero])
    rmax = np.concatenate([np.cumsum(cmax[::-1])[::-1], zero])
    lo = np.maximum(pmin, vlow - rmax)
    hi = np.minimum(pmax, vlump - rmin - 1)
    return int(max(0, (hi - lo).max() + 1))


def grid_distribution(pssm, step, *, low=-math.inf, lump=math.inf) -> ScoreDistribution:
    """One exact DP at grid ``step``: a :class:`ScoreDistribution` of the scores >= ``low`` (scores
    certain to reach ``lump`` are lumped into ``above``).

    >>> from bioaccel.motif import PSSM
    >>> grid_distribution(PSSM(np.eye(4)[:2]), 0.5).pvalue(2.0)
    0.0625
    """
    q, err_units = round_down(pssm.scores, step)
    vlow = -_BIG if not math.isfinite(low) else math.floor(low / step) - 1
    vlump = _BIG if not math.isfinite(lump) else math.ceil(lump / step) + 1
    width = _widest_window(q, vlow, vlump)
    nctx = pssm.background.transition.shape[0]
    if nctx * width > MAX_STATES:
        raise ResourceError(
            f"{pssm.motif_id}: the exact score grid at step {step:.3g} needs about {nctx * width:,} cells "
            f"({16 * nctx * width / 1e9:.1f} GB); use a coarser precision (--precision) or --variant bucket")
    initial, transition, order = chain(pssm.background)
    dist, base, lumped = _grid_dp(q, initial, transition, order, vlow, vlump)
    return ScoreDistribution(base * step, step, dist, err_units * step, above=lumped, variant="exact",
                             motif_id=pssm.motif_id, complete=not math.isfinite(low))


def _initial_step(pssm, cells=4096):
    span = pssm.max_score - pssm.min_score
    return span / cells if span > 0 else 1.0


def _best_word_probability(pssm):
    """P(the word scores max_score), i.e. every column takes one of its best letters."""
    best = (pssm.scores == pssm.scores.max(axis=1, keepdims=True)).astype(np.int64)
    initial, transition, order = chain(pssm.background)
    dist, base, lumped = _grid_dp(best, initial, transition, order, pssm.length, pssm.length)
    return float(lumped + dist.sum())


def exact_threshold(pssm, p, *, rtol=DEFAULT_RTOL, score_tol=DEFAULT_SCORE_TOL, max_refinements=6) -> Threshold:
    """PVALUETOSCORE by the exact variant.

    The optimal threshold t* (the smallest score with P-value <= p) is kept in ``(lower, upper]``;
    ``upper`` is always certified. The grid is refined until the mass of words whose scores fall in
    ``[lower, upper)`` (those whose side of the threshold is still in question) is at most
    ``rtol * p`` (zero: decided), or ``upper - lower <= score_tol``.

    >>> from bioaccel.motif import PSSM
    >>> exact_threshold(PSSM(np.eye(4)[:2]), 0.1).score      # both columns' best letter: P = 1/16
    2.0
    """
    p = check_p(p)
    if p >= 1.0:
        return Threshold(pssm.motif_id, p, pssm.min_score, 1.0, 1.0, 1.0, -math.inf, "exact", 0.0)
    best = _best_word_probability(pssm)
    if best > p:
        return Threshold(pssm.motif_id, p, math.inf, 0.0, 0.0, 0.0, pssm.max_score, "exact", 0.0)
    lower, upper = -math.inf, pssm.max_score          # t* lies in (lower, upper]
    step = _initial_step(pssm)
    result = None
    for _ in range(max_refinements + 1):
        err = round_down(pssm.scores, step)[1] * step
        try:
            dist = grid_distribution(pssm, step, low=lower - err - step, lump=upper + step)
        except ResourceError:
            if result is None:
                raise
            break
        t_hi, t_lo = grid_thresholds(dist, p)
        if t_hi is not None and t_hi < upper:
            upper = t_hi
        if t_lo is not None:
            lower = max(lower, t_lo - step)
        lo, hi = dist.pvalue_bounds(upper)
        band = dist.pvalue_bounds(lower)[1] - lo
        result = Threshold(pssm.motif_id, p, upper, hi, lo, hi, lower, "exact", step)
        if band <= rtol * p:
            return result
        if upper - lower <= score_tol:
            break
        step /= REFINE
    if pssm.length <= ENUMERATE_LENGTH:       # a tie at the answer keeps the bounds apart: settle it
        return _listed_threshold(pssm, p, result.score_low) or result
    return result


def exact_pvalue(pssm, score, *, rtol=DEFAULT_RTOL, max_refinements=4) -> PValue:
    """SCORETOPVALUE by the exact variant: refine until ``high - low <= rtol * high``.

    >>> from bioaccel.motif import PSSM
    >>> exact_pvalue(PSSM(np.eye(4)[:2]), 1.0).pvalue          # 1 - (3/4)**2
    0.4375
    """
    score = float(score)
    margin = 1e-9 * (1.0 + abs(pssm.min_score) + abs(pssm.max_score))    # summation order changes the last bits
    if score < pssm.min_score - margin:
        return PValue(pssm.motif_id, score, 1.0, 1.0, 1.0, "exact", 0.0)
    if score > pssm.max_score + margin:
        return PValue(pssm.motif_id, score, 0.0, 0.0, 0.0, "exact", 0.0)
    step = _initial_step(pssm)
    result = None
    for _ in range(max_refinements + 1):
        try:
            dist = grid_distribution(pssm, step, low=score - round_down(pssm.scores, step)[1] * step - step,
                                     lump=score + step)
        except ResourceError:
            if result is None:
                raise
            break
        result = dist.pvalue_result(score)
        if result.high - result.low <= rtol * result.high:
            return result
        step /= REFINE
    if pssm.length <= ENUMERATE_LENGTH:
        return _listed_pvalue(pssm, score) or result
    return result


class ExactDistribution:
    """``pssm.distribution("exact")``: each answer refines its own grid; ``grid()`` gives one table.

    >>> from bioaccel.motif import PSSM
    >>> d = ExactDistribution(PSSM(np.eye(4)[:2]))
    >>> d.pvalue(2.0), d.threshold_fpr(0.1)
    (0.0625, 2.0)
    """

    variant = "exact"
    backend = "cpu"

    def __init__(self, pssm, *, rtol=DEFAULT_RTOL, score_tol=DEFAULT_SCORE_TOL):
        self.pssm = pssm
        self.rtol = rtol
        self.score_tol = score_tol
        self.motif_id = pssm.motif_id

    def threshold(self, p) -> Threshold:
        """PVALUETOSCORE (see :func:`exact_threshold`)."""
        return exact_threshold(self.pssm, p, rtol=self.rtol, score_tol=self.score_tol)

    def threshold_fpr(self, fpr) -> float:
        """Score threshold for false positive rate ``fpr`` (Biopython's name)."""
        return self.threshold(fpr).score

    def pvalue_result(self, score) -> PValue:
        """SCORETOPVALUE (see :func:`exact_pvalue`)."""
        return exact_pvalue(self.pssm, score, rtol=self.rtol)

    def pvalue(self, score) -> float:
        """Certified upper bound of P(score >= ``score``)."""
        return self.pvalue_result(score).pvalue

    def pvalue_bounds(self, score) -> tuple:
        """(lower, upper) bounds of P(score >= ``score``)."""
        r = self.pvalue_result(score)
        return r.low, r.high

    def grid(self, cells=4096) -> ScoreDistribution:
        """The whole distribution on one grid of about ``cells`` steps (for plots)."""
        return grid_distribution(self.pssm, _initial_step(self.pssm, cells))

    def curve(self) -> tuple:
        """(scores, upper-bound P-values) on :meth:`grid`."""
        return self.grid().curve()
