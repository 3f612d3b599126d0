"""The certified score grid every distribution variant produces, and the helpers that build one.

A :class:`ScoreDistribution` is a grid of scores ``offset + i * step`` with a probability ``mass[i]``
(plus ``above``, mass known to lie above the grid) and an ``error`` such that every word's true score
lies in ``[grid score, grid score + error]``. Hence, for any score s,

    P(grid >= s)  <=  P-value(s) = P(score >= s)  <=  P(grid >= s - error)

and these two numbers are the certified bounds every answer carries. P-values reported are the upper
bound (conservative); thresholds are the smallest grid score certified to have a P-value <= p.
"""
import math

import numpy as np

from ..errors import InvalidParameter
from ._result import PValue, Threshold


def check_p(p) -> float:
    """``p`` as a float, or InvalidParameter unless it is a P-value in (0, 1].

    >>> check_p(1e-4)
    0.0001
    >>> check_p(0)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: P-value must be in (0, 1], got 0
    """
    try:
        value = float(p)
    except (TypeError, ValueError):
        raise InvalidParameter(f"P-value must be a number in (0, 1], got {p!r}") from None
    if not (0.0 < value <= 1.0):
        from ..results.values import shown

        raise InvalidParameter(f"P-value must be in (0, 1], got {shown(value)}")
    return value


def chain(background) -> tuple:
    """``(initial, transition, order)`` of a background as contiguous float64 arrays, as kernels take them.

    >>> from bioaccel.motif import Background
    >>> initial, transition, order = chain(Background.uniform())
    >>> transition.shape, order
    ((1, 4), 0)
    """
    return (np.ascontiguousarray(background.initial, dtype=np.float64),
            np.ascontiguousarray(background.transition, dtype=np.float64), background.order)


def round_down(scores, step) -> tuple:
    """Integer grid matrix ``floor(scores / step)`` and its error bound in units of ``step``: the sum
    over columns of the largest rounding of that column.

    >>> q, err = round_down(np.array([[0.25, 1.0, 0.5, 0.0]]), 0.5)
    >>> q.tolist(), err
    ([[0, 2, 1, 0]], 0.5)
    """
    scaled = scores / step
    q = np.floor(scaled)
    frac = scaled - q
    return q.astype(np.int64), float(frac.max(axis=1).sum())


class ScoreDistribution:
    """Probability mass on the grid ``offset + i * step`` plus ``above`` beyond its top; every word's
    true score is within ``[grid score, grid score + error]``. ``complete`` is False when mass below the
    grid was left out (the exact variant keeps only the scores that can still matter).

    >>> d = ScoreDistribution(0.0, 1.0, [0.25, 0.5, 0.25], 0.0)
    >>> d.pvalue(1.0), d.pvalue_bounds(1.5), d.threshold_fpr(0.3)
    (0.75, (0.25, 0.25), 2.0)
    """

    def __init__(self, offset, step, mass, error, *, above=0.0, variant="exact", motif_id="motif",
                 complete=True, backend="cpu"):
        self.offset = float(offset)
        self.step = float(step)
        self.mass = np.asarray(mass, dtype=np.float64)
        self.error = float(error)
        self.above = float(above)
        self.variant = variant
        self.backend = backend
        self.motif_id = motif_id
        self.complete = complete
        # tail[i] = P(grid index >= i) (+ above); tail[len] = above
        self._tail = np.concatenate([np.cumsum(self.mass[::-1])[::-1], [0.0]]) + self.above

    @property
    def scores(self) -> np.ndarray:
        """The grid's scores."""
        return self.offset + self.step * np.arange(self.mass.size)

    @property
    def tail(self) -> np.ndarray:
        """``tail[i]``: P(grid index >= i), plus ``above``; one entry more than the grid."""
        return self._tail

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

    def pvalue_bounds(self, score, error=None) -> tuple:
        """(lower, upper) bounds of P(score >= ``score``); ``error`` overrides the grid's own bound."""
        error = self.error if error is None else error
        return self._tail_at(score, 1e-9), min(1.0, self._tail_at(score - error, -1e-9))

    def pvalue(self, score) -> float:
        """Certified upper bound of P(score >= ``score``)."""
        return self.pvalue_bounds(score)[1]

    def pvalue_result(self, score) -> PValue:
        """SCORETOPVALUE at ``score`` as a :class:`PValue`."""
        lo, hi = self.pvalue_bounds(score)
        return PValue(self.motif_id, float(score), hi, lo, hi, self.variant, self.step, self.backend)

    def threshold(self, p) -> Threshold:
        """The smallest grid score whose P-value is certified <= p (see :class:`Threshold`)."""
        p = check_p(p)
        t_hi, t_lo = grid_thresholds(self, p)
        if t_hi is None:
            lo_bound = -math.inf if t_lo is None else t_lo - self.step
            return Threshold(self.motif_id, p, math.inf, 0.0, 0.0, 0.0, lo_bound, self.variant, self.step,
                             self.backend)
        lo, hi = self.pvalue_bounds(t_hi)
        return Threshold(self.motif_id, p, t_hi, hi, lo, hi, t_lo - self.step, self.variant, self.step,
                         self.backend)

    def threshold_fpr(self, fpr) -> float:
        """Score threshold for false positive rate ``fpr`` (Biopython's name)."""
        return self.threshold(fpr).score

    def curve(self) -> tuple:
        """(scores, upper-bound P-values) at every grid point, for plots."""
        s = self.scores
        return s, np.array([self.pvalue(x) for x in s])


def grid_thresholds(dist, p) -> tuple:
    """(smallest grid score with upper-bound P <= p, smallest with lower-bound P <= p); None if none.

    >>> grid_thresholds(ScoreDistribution(0.0, 1.0, [0.5, 0.25, 0.25], 1.0), 0.3)
    (None, 2.0)
    >>> grid_thresholds(ScoreDistribution(0.0, 1.0, [0.5, 0.25, 0.25], 1.0), 0.5)
    (2.0, 1.0)
    """
    tail = dist.tail
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
