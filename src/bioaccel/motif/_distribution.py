"""Score distributions of a PSSM with certified error bounds, and the problems built on them:
SCORETOPVALUE (``pvalue``) and PVALUETOSCORE (``threshold``) of seed 004.

Two methods, one contract. Each distribution is a grid of scores ``offset + i * step`` with a
probability ``mass[i]`` (plus ``above``, mass known to lie above the grid), and an ``error`` such that
every word's true score lies in ``[grid score, grid score + error]``. Hence, for any score s,

    P(grid >= s)  <=  P-value(s) = P(score >= s)  <=  P(grid >= s - error)

and these two numbers are the certified bounds every answer carries.

* ``exact`` (in the spirit of TFM-Pvalue): each column's scores rounded *down* to a multiple of
  ``step``; a dynamic programme over the integer grid (carrying the last k letters as state under an
  order-k Markov background) gives the grid distribution; ``error`` is the sum over columns of the
  largest rounding of that column (< m * step). The step shrinks 8-fold until the bounds meet the
  requested relative precision or the answer is decided (no mass left in the uncertain band). Only
  the scores that can still matter are kept (those that can reach the lowest candidate threshold;
  those certain to exceed every candidate are lumped), so refinements stay cheap.
* ``bucket``: the seed's BUCKETSCOREDISTRIBUTION (``_bucket.py``): N slices, all 4**(m/N) words of
  each slice enumerated into B buckets rounding word scores down, merged pairwise by convolution;
  ``error = (1 + ceil(log2 N)) * (max - min) / B`` (section 4.3).

P-values reported are the certified upper bound (conservative); thresholds are the smallest grid
score certified to have P-value <= p.
"""
from dataclasses import dataclass
import math

import numpy as np
from numba import njit

from ..errors import InvalidParameter, ResourceError

MAX_STATES = 10_000_000       # grid cells (contexts x scores) of one exact DP: 160 MB in two arrays
DEFAULT_RTOL = 1e-3
DEFAULT_SCORE_TOL = 1e-3
REFINE = 8.0


@dataclass(frozen=True)
class PValue:
    """SCORETOPVALUE: P(score >= ``score``) lies in [``low``, ``high``]; ``pvalue`` is ``high``."""
    motif_id: str
    score: float
    pvalue: float
    low: float
    high: float
    method: str
    step: float

    def to_dict(self):
        return {"motif_id": self.motif_id, "score": self.score, "pvalue": self.pvalue,
                "pvalue_low": self.low, "pvalue_high": self.high, "method": self.method,
                "grid_step": self.step}


@dataclass(frozen=True)
class Threshold:
    """PVALUETOSCORE for P-value ``p``: ``score`` is certified to have P-value in [``low``, ``high``]
    with ``high <= p``; no score below ``score_low`` has a P-value <= p. ``score`` is ``inf`` when
    even the best word is more probable than p (then nothing passes)."""
    motif_id: str
    p: float
    score: float
    pvalue: float
    low: float
    high: float
    score_low: float
    method: str
    step: float

    @property
    def reachable(self):
        return math.isfinite(self.score)

    def to_dict(self):
        finite = self.reachable
        return {"motif_id": self.motif_id, "p": self.p, "score": self.score if finite else None,
                "pvalue": self.pvalue, "pvalue_low": self.low, "pvalue_high": self.high,
                "score_low": self.score_low if math.isfinite(self.score_low) else None,
                "method": self.method, "grid_step": self.step,
                **({} if finite else {"note": "no word reaches this P-value: even the best score is more probable"})}


class ScoreDistribution:
    """Probability mass on the grid ``offset + i * step`` plus ``above`` beyond its top; every word's
    true score is within ``[grid score, grid score + error]``."""

    def __init__(self, offset, step, mass, error, *, above=0.0, method="exact", motif_id="motif",
                 complete=True):
        self.offset = float(offset)
        self.step = float(step)
        self.mass = np.asarray(mass, dtype=np.float64)
        self.error = float(error)
        self.above = float(above)
        self.method = method
        self.motif_id = motif_id
        self.complete = complete       # False when mass below the grid was pruned
        # tail[i] = P(grid index >= i) (+ above); tail[len] = above
        self._tail = np.concatenate([np.cumsum(self.mass[::-1])[::-1], [0.0]]) + self.above

    @property
    def scores(self):
        return self.offset + self.step * np.arange(self.mass.size)

    def _tail_at(self, s, slack=1e-9):
        """P(grid score >= s); ``slack`` (in steps) decides grid points within rounding of s: positive
        leaves them out (for lower bounds), negative counts them in (for upper bounds)."""
        if not math.isfinite(s):
            return float(self._tail[0]) if s < 0 else 0.0
        if self.step == 0:
            return float(self._tail[0]) if self.offset >= s - 1e-12 else float(self.above)
        # float cancellation in (s - offset) costs up to ~1e-16 * |s| / step steps on fine grids
        scale = 1.0 + 1e-7 * (abs(s) + abs(self.offset)) / self.step
        i = math.ceil((s - self.offset) / self.step + slack * scale)
        if i <= 0:
            return float(self._tail[0])
        if i >= self.mass.size:
            return float(self.above)
        return float(self._tail[i])

    def pvalue_bounds(self, score, error=None):
        """(lower, upper) bounds of P(score >= ``score``); ``error`` overrides the grid's own bound."""
        error = self.error if error is None else error
        return self._tail_at(score, 1e-9), min(1.0, self._tail_at(score - error, -1e-9))

    def pvalue(self, score):
        """Certified upper bound of P(score >= ``score``)."""
        return self.pvalue_bounds(score)[1]

    def pvalue_result(self, score):
        lo, hi = self.pvalue_bounds(score)
        return PValue(self.motif_id, float(score), hi, lo, hi, self.method, self.step)

    def threshold(self, p):
        """The smallest grid score whose P-value is certified <= p (see :class:`Threshold`)."""
        t_hi, t_lo = _grid_thresholds(self, p)
        if t_hi is None:
            lo_bound = -math.inf if t_lo is None else t_lo - self.step
            return Threshold(self.motif_id, p, math.inf, 0.0, 0.0, 0.0, lo_bound, self.method, self.step)
        lo, hi = self.pvalue_bounds(t_hi)
        return Threshold(self.motif_id, p, t_hi, hi, lo, hi, t_lo - self.step, self.method, self.step)

    def threshold_fpr(self, fpr):
        """Score threshold for false positive rate ``fpr`` (Biopython's name)."""
        return self.threshold(fpr).score

    def curve(self):
        """(scores, upper-bound P-values) at every grid point, for plots."""
        s = self.scores
        return s, np.array([self.pvalue(x) for x in s])


def _grid_thresholds(dist, p):
    """(smallest grid score with upper-bound P <= p, smallest with lower-bound P <= p); None if none."""
    tail = dist._tail
    n = dist.mass.size
    idx_lo = int(np.searchsorted(-tail[:n], -p, side="left"))      # first i with tail[i] <= p
    t_lo = dist.offset + idx_lo * dist.step if idx_lo < n else None
    if dist.step == 0:
        return (t_lo if dist.pvalue(dist.offset) <= p else None), t_lo
    # upper bound at grid index i is tail at index ceil(i - error/step)
    shift = dist.error / dist.step
    i = idx_lo
    while i < n:
        j = math.ceil(i - shift - 1e-9)
        if j < 0 and not dist.complete:     # below the pruned grid: the tail there is unknown
            i += 1
            continue
        if (tail[0] if j <= 0 else tail[j]) <= p:
            return dist.offset + i * dist.step, t_lo
        i += 1
    return None, t_lo


# ----------------------------------------------------------------------------------------------
# The exact method: dynamic programming over an integer grid.

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


ENUMERATE_LENGTH = 12      # motifs this short whose grid bounds stay apart (a tie at the answer) are settled
ENUMERATE_CAP = 1 << 21    # by listing the words above the answer's lower bound, at most this many


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
    initial, transition, order = _chain(pssm.background)
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


def _chain(background):
    return (np.ascontiguousarray(background.initial, dtype=np.float64),
            np.ascontiguousarray(background.transition, dtype=np.float64), background.order)


def _round_down(scores, step):
    """Integer grid matrix (floor(scores / step)) and its error bound in units of step."""
    scaled = scores / step
    q = np.floor(scaled)
    frac = scaled - q
    return q.astype(np.int64), float(frac.max(axis=1).sum())


_BIG = np.iinfo(np.int64).max // 4


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


def grid_distribution(pssm, step, *, low=-math.inf, lump=math.inf):
    """One exact DP at grid ``step``: a :class:`ScoreDistribution` of the scores >= ``low`` (scores
    certain to reach ``lump`` are lumped into ``above``)."""
    q, err_units = _round_down(pssm.scores, step)
    vlow = -_BIG if not math.isfinite(low) else math.floor(low / step) - 1
    vlump = _BIG if not math.isfinite(lump) else math.ceil(lump / step) + 1
    width = _widest_window(q, vlow, vlump)
    nctx = pssm.background.transition.shape[0]
    if nctx * width > MAX_STATES:
        raise ResourceError(
            f"{pssm.motif_id}: the exact score grid at step {step:.3g} needs about {nctx * width:,} cells "
            f"({16 * nctx * width / 1e9:.1f} GB); use a coarser precision (--precision) or --method bucket")
    initial, transition, order = _chain(pssm.background)
    dist, base, lumped = _grid_dp(q, initial, transition, order, vlow, vlump)
    return ScoreDistribution(base * step, step, dist, err_units * step, above=lumped, method="exact",
                             motif_id=pssm.motif_id, complete=not math.isfinite(low))


def _initial_step(pssm, cells=4096):
    span = pssm.max_score - pssm.min_score
    return span / cells if span > 0 else 1.0


def _best_word_probability(pssm):
    """P(the word scores max_score), i.e. every column takes one of its best letters."""
    best = (pssm.scores == pssm.scores.max(axis=1, keepdims=True)).astype(np.int64)
    initial, transition, order = _chain(pssm.background)
    dist, base, lumped = _grid_dp(best, initial, transition, order, pssm.length, pssm.length)
    return float(lumped + dist.sum())


def exact_threshold(pssm, p, *, rtol=DEFAULT_RTOL, score_tol=DEFAULT_SCORE_TOL, max_refinements=6):
    """PVALUETOSCORE by the exact method.

    The optimal threshold t* (the smallest score with P-value <= p) is kept in ``(lower, upper]``;
    ``upper`` is always certified. The grid is refined until the mass of words whose scores fall in
    ``[lower, upper)`` (those whose side of the threshold is still in question) is at most
    ``rtol * p`` (zero: decided), or ``upper - lower <= score_tol``.
    """
    _check_p(p)
    if p >= 1.0:
        return Threshold(pssm.motif_id, p, pssm.min_score, 1.0, 1.0, 1.0, -math.inf, "exact", 0.0)
    best = _best_word_probability(pssm)
    if best > p:
        return Threshold(pssm.motif_id, p, math.inf, 0.0, 0.0, 0.0, pssm.max_score, "exact", 0.0)
    lower, upper = -math.inf, pssm.max_score          # t* lies in (lower, upper]
    step = _initial_step(pssm)
    result = None
    for _ in range(max_refinements + 1):
        err = _round_down(pssm.scores, step)[1] * step
        try:
            dist = grid_distribution(pssm, step, low=lower - err - step, lump=upper + step)
        except ResourceError:
            if result is None:
                raise
            break
        t_hi, t_lo = _grid_thresholds(dist, p)
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


def exact_pvalue(pssm, score, *, rtol=DEFAULT_RTOL, max_refinements=4):
    """SCORETOPVALUE by the exact method: refine until high - low <= rtol * high."""
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
            dist = grid_distribution(pssm, step, low=score - _round_down(pssm.scores, step)[1] * step - step,
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
    """``pssm.distribution("exact")``: answers refine their own grid; ``grid()`` gives one table."""

    method = "exact"

    def __init__(self, pssm, *, rtol=DEFAULT_RTOL, score_tol=DEFAULT_SCORE_TOL):
        self.pssm = pssm
        self.rtol = rtol
        self.score_tol = score_tol
        self.motif_id = pssm.motif_id

    def threshold(self, p):
        return exact_threshold(self.pssm, p, rtol=self.rtol, score_tol=self.score_tol)

    def threshold_fpr(self, fpr):
        return self.threshold(fpr).score

    def pvalue_result(self, score):
        return exact_pvalue(self.pssm, score, rtol=self.rtol)

    def pvalue(self, score):
        return self.pvalue_result(score).pvalue

    def pvalue_bounds(self, score):
        r = self.pvalue_result(score)
        return r.low, r.high

    def grid(self, cells=4096):
        return grid_distribution(self.pssm, _initial_step(self.pssm, cells))

    def curve(self):
        return self.grid().curve()


def _check_p(p):
    if not (0.0 < p <= 1.0) or not math.isfinite(p):
        raise InvalidParameter(f"P-value must be in (0, 1], got {p}")


METHODS = ("exact", "bucket")


def score_distribution(pssm, method="exact", *, backend="cpu", rtol=DEFAULT_RTOL, score_tol=DEFAULT_SCORE_TOL,
                       slices=4, buckets=3600):
    """The distribution object for ``method``: exact (CPU; refines per question) or bucket."""
    if method == "exact":
        if backend != "cpu":
            raise InvalidParameter("the exact method runs on the CPU; use --method bucket for --backend gpu")
        return ExactDistribution(pssm, rtol=rtol, score_tol=score_tol)
    if method == "bucket":
        from ._bucket import bucket_distribution

        return bucket_distribution(pssm, slices=slices, buckets=buckets, backend=backend)
    raise InvalidParameter(f"unknown method {method!r}; expected one of {', '.join(METHODS)}")


def pvalue(pssm, score, *, method="exact", backend="cpu", **options):
    """SCORETOPVALUE: a :class:`PValue` with certified bounds."""
    return score_distribution(pssm, method, backend=backend, **options).pvalue_result(score)


def threshold(pssm, p, *, method="exact", backend="cpu", **options):
    """PVALUETOSCORE: a :class:`Threshold` with certified bounds."""
    _check_p(p)
    return score_distribution(pssm, method, backend=backend, **options).threshold(p)


def thresholds(pssms, p, *, method="exact", backend="cpu", threads=0, **options):
    """PVALUETOSCORE for many matrices, in input order, on ``threads`` CPU threads (0: all cores).

    The exact DP releases the GIL (``nogil``), so a thread pool keeps every core busy.
    """
    pssms = list(pssms)
    _check_p(p)
    if method != "exact" or backend != "cpu" or len(pssms) < 2:
        return [threshold(m, p, method=method, backend=backend, **options) for m in pssms]
    from concurrent.futures import ThreadPoolExecutor
    from .._cliutil import available_cores

    workers = threads or available_cores()
    # longest first so that no long matrix starts last
    order = sorted(range(len(pssms)), key=lambda i: -pssms[i].length)
    out = [None] * len(pssms)
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for i, res in zip(order, pool.map(lambda i: threshold(pssms[i], p, **options), order)):
            out[i] = res
    return out
