"""The BPMax model shared by every variant: weights, windows, integer scores, the work formula.

The recurrence is the one of docs/bpmax.md (Gildemaster 2021 prints it garbled; that note gives the
exact model of the original program of Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz). Strand 1 is the
query ``a`` (length M), strand 2 the target ``b`` (length N), used reversed: ``rb = b[::-1]``. One score
function serves intra- and intermolecular pairs: GC 3, AU ``au``, GU ``gu``; intramolecular pairs need
at least 3 unpaired bases inside (j - i >= 4). Every value is held as an exact integer in units of
``1 / unit`` (half-units for the default AU 1, GU 1.5).

Windows (BPMaxW): ``window_query`` W1 and ``window_target`` W2 restrict the domain of F to
``j1 - i1 <= W1`` and ``j2 - i2 <= W2``, i.e. intervals of at most W + 1 bases (bpmax.md's definition).
"""
import functools
import math
from dataclasses import dataclass

import numpy as np

from ..results.values import shown
from ..errors import InvalidParameter
from ..fold import FoldParams

#: Largest pair weight accepted (as for folding): scores of long strands stay within int32.
MAX_WEIGHT = 1000


def _check_weight(name, value):
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
            or not math.isfinite(value) or value < 0:
        raise InvalidParameter(f"pair weight {name} must be a finite number >= 0, got {shown(value)}")
    if value > MAX_WEIGHT:
        raise InvalidParameter(f"pair weight {name} must be at most {MAX_WEIGHT:,}, got {shown(value)}")


def _check_window(name, value):
    if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
        raise InvalidParameter(f"{name.replace('_', ' ')} must be a whole number >= 1, got {shown(value)}")


@dataclass(frozen=True)
class InteractParams:
    """Pair weights (GC is 3) and the optional windows of BPMax.

    Defaults are the original program's AU = 1, GU = 1.5 (an older release used AU = 2, GU = 1).
    ``window_query`` / ``window_target``: None (no window) or a whole number >= 1.

    >>> InteractParams().unit, InteractParams(window_target=128).spans(20, 3000)
    (2, (20, 129))
    >>> InteractParams(gu=float("inf"))
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: pair weight GU must be a finite number >= 0, got inf
    """

    au: float = 1.0
    gu: float = 1.5
    window_query: "int | None" = None
    window_target: "int | None" = None

    def __post_init__(self):
        _check_weight("AU", self.au)
        _check_weight("GU", self.gu)
        _check_window("window_query", self.window_query)
        _check_window("window_target", self.window_target)
        self.fold_params.unit  # the weights must be exact fractions

    @functools.cached_property
    def fold_params(self) -> FoldParams:
        """The single-strand (weighted Nussinov) model of S1 and S2 (made once: the pair loops ask for it
        several times a pair, 0.33 s per 1,800 pairs when it was made each time)."""
        return FoldParams.bpmax(au=self.au, gu=self.gu)

    @property
    def unit(self) -> int:
        """Table values are scores times ``unit``."""
        return self.fold_params.unit

    @property
    def min_loop(self) -> int:
        return self.fold_params.min_loop

    def pair_table(self) -> np.ndarray:
        """5 x 5 int32 score table over codes in units (intra- and intermolecular alike)."""
        return self.fold_params.pair_table()

    def to_score(self, units):
        """A table value in units as the reported score (an int when whole)."""
        return self.fold_params.to_score(units)

    def spans(self, M: int, N: int) -> tuple:
        """(L1, L2): the longest query and target intervals in the domain."""
        L1 = M if self.window_query is None else min(M, self.window_query + 1)
        L2 = N if self.window_target is None else min(N, self.window_target + 1)
        return L1, L2

    def cell_dtype(self, M: int, N: int) -> np.dtype:
        """The cells of an M x N table on every variant: int16 when every value of the (windowed)
        table fits, else int32.

        >>> InteractParams().cell_dtype(20, 200), InteractParams().cell_dtype(40, 12000)
        (dtype('int16'), dtype('int32'))
        """
        L1, L2 = self.spans(M, N)
        bound = ((L1 + L2) // 2) * int(self.pair_table().max())  # each base in at most one pair
        if bound <= np.iinfo(np.int16).max:
            return np.dtype(np.int16)
        if bound > np.iinfo(np.int32).max:
            raise InvalidParameter(f"scores of {M} x {N} nt would overflow 32-bit integers")
        return np.dtype(np.int32)


def sentinel(dtype):
    """The max-plus zero of a table of cells of ``dtype`` (:meth:`InteractParams.cell_dtype`), on every
    variant: far below any score, and twice it does not overflow ``dtype``.

    >>> int(sentinel(np.int16))
    -16384
    """
    return np.int16(-16384) if dtype == np.int16 else np.int32(-(2 ** 30))


def work(M: int, N: int, L1: "int | None" = None, L2: "int | None" = None) -> int:
    """Useful max/add operations of the recurrence: bpmax.md's ``2 [T(M)T(N) + 2 P(M)T(N) + 2 T(M)P(N)]``,
    or with windows (longest intervals L1, L2 bases) the same sums over the windowed domain.

    A cell with interval lengths (l1, l2) costs (l1-1)(l2-1) terms of D, 2(l1-1) of R3/R4 and
    2(l2-1) of R1/R2, each one max and one add.

    >>> work(3, 3) == 2 * (4 * 4 + 2 * 6 * 4 + 2 * 4 * 6)   # T(3) = (27 - 3) / 6, P(3) = 6
    True
    """
    L1 = M if L1 is None else min(L1, M)
    L2 = N if L2 is None else min(L2, N)

    def T(n, L):  # sum over interval lengths l <= L of (number of intervals) * (l - 1), closed form
        return n * L * (L - 1) // 2 - (L - 1) * L * (2 * L - 1) // 6

    def P(n, L):  # number of intervals of at most L bases
        return n * L - L * (L - 1) // 2

    return 2 * (T(M, L1) * T(N, L2) + 2 * P(M, L1) * T(N, L2) + 2 * T(M, L1) * P(N, L2))
