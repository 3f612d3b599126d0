"""The BPPart model: Boltzmann-like pair weights exp(score) and the scale of the arithmetic.

docs/bppart.md has the recurrence. Scores are those of BPMax (GC 3, AU ``au``, GU ``gu``, intra- and
intermolecular alike) but BPPart's defaults are the original program's ``bppart``: AU 0.5, GU 1.0.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameter
from ..results.values import shown

#: Largest pair score accepted: exp(100) per pair is still far from the double range, and the scale
#: takes the rest.
MAX_SCORE = 100.0


def _check_number(name, value, low, high):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or not low <= value <= high:
        raise InvalidParameter(f"{name} must be a finite number from {shown(low)} to {shown(high)}, "
                               f"got {shown(value)}")


@dataclass(frozen=True)
class PartitionParams:
    """Pair scores of BPPart (GC is 3) and the scale of its arithmetic.

    ``scale``: None (chosen from the strands) or a number c >= 0: every base is weighted exp(-c) while
    the tables fill, so that log Z = log Z~ + c (M + N) (docs/bppart.md, "Scaling"); 0 is plain doubles.
    ``window_query`` / ``window_target``: None or a whole number W >= 1, BPMax's windows (intervals of
    at most W + 1 bases): the sum is then over the structures whose pairs all lie in one window pair
    (docs/bppart.md, "Windows").

    >>> PartitionParams().au, PartitionParams().gu
    (0.5, 1.0)
    >>> PartitionParams(au=-1)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: pair score AU must be a finite number from 0 to 100, got -1
    """

    au: float = 0.5
    gu: float = 1.0
    scale: "float | None" = None
    window_query: "int | None" = None
    window_target: "int | None" = None

    def __post_init__(self):
        _check_number("pair score AU", self.au, 0.0, MAX_SCORE)
        _check_number("pair score GU", self.gu, 0.0, MAX_SCORE)
        if self.scale is not None:
            _check_number("scale", self.scale, 0.0, MAX_SCORE)
        for name in ("window_query", "window_target"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
                raise InvalidParameter(f"{name.replace('_', ' ')} must be a whole number >= 1, got {shown(value)}")

    @property
    def windowed(self) -> bool:
        """Whether a window is asked for on either strand."""
        return self.window_query is not None or self.window_target is not None

    def spans(self, M: int, N: int) -> "tuple[int, int]":
        """(L1, L2): the window lengths in bases (W + 1, clipped at the strand's length), as BPMax's.

        >>> PartitionParams(window_target=128).spans(23, 2000)
        (23, 129)
        """
        return (M if self.window_query is None else min(M, self.window_query + 1),
                N if self.window_target is None else min(N, self.window_target + 1))

    def weights(self) -> np.ndarray:
        """5 x 5 float64 pair weights over codes (A C G U N): exp(score), 0 where letters do not pair.

        >>> w = PartitionParams().weights()
        >>> float(w[1, 2]) == math.exp(3), float(w[0, 0])
        (True, 0.0)
        """
        w = np.zeros((5, 5))
        for x, y, score in ((0, 3, self.au), (1, 2, 3.0), (2, 3, self.gu)):
            w[x, y] = w[y, x] = math.exp(score)
        return w


def strand_scales(params: PartitionParams, strands, scale_of) -> "tuple[float, float]":
    """(c1, c2): the per-base log scale of each of the two ``strands``: ``params.scale`` when given, else
    ``scale_of(strand, weights, first)``, ``first`` a scale at which no strand's fold can overflow.

    >>> strand_scales(PartitionParams(scale=2), ("GG", "C"), None)
    (2.0, 2.0)
    >>> strand_scales(PartitionParams(), ("GG", "C"), lambda strand, weights, first: first * len(strand))
    (5.0, 2.5)
    """
    if params.scale is not None:
        return float(params.scale), float(params.scale)
    weights = params.weights()
    # each base is in at most one pair, and at most 2.62^n structures (Motzkin growth) weigh in
    first = max(3.0, params.au, params.gu) / 2 + 1.0
    c1, c2 = (scale_of(strand, weights, first) for strand in strands)
    return c1, c2
