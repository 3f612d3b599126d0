"""The BPMax model shared by every variant: weights, windows, integer scores, memory estimates.

The recurrence is the one of ../shared/design/bpmax.md (the thesis of seed 003 prints it garbled).
Strand 1 is the query ``a`` (length M), strand 2 the target ``b`` (length N), used reversed:
``rb = b[::-1]``. One score function serves intra- and intermolecular pairs: GC 3, AU ``au``, GU ``gu``;
intramolecular pairs need at least 3 unpaired bases inside (j - i >= 4). Every value is held as an
exact integer in units of ``1 / unit`` (half-units for the default AU 1, GU 1.5).

Windows (BPMaxW): ``window_query`` W1 and ``window_target`` W2 restrict the domain of F to
``j1 - i1 <= W1`` and ``j2 - i2 <= W2``, i.e. intervals of at most W + 1 bases (bpmax.md's definition).
"""
from dataclasses import dataclass

import numpy as np

from .._memory import require_memory
from ..errors import InvalidParameter
from ..fold._model import FoldParams


@dataclass(frozen=True)
class InteractParams:
    """Pair weights (GC is 3) and the optional windows of BPMax.

    Defaults are the original program's AU = 1, GU = 1.5 (an older release used AU = 2, GU = 1).
    ``window_query`` / ``window_target``: None (no window) or a whole number >= 1.
    """

    au: float = 1.0
    gu: float = 1.5
    window_query: int | None = None
    window_target: int | None = None

    def __post_init__(self):
        for name in ("window_query", "window_target"):
            value = getattr(self, name)
            if value is not None and (not isinstance(value, (int, np.integer)) or value < 1):
                raise InvalidParameter(f"{name.replace('_', ' ')} must be a whole number >= 1, got {value!r}")
        self.fold_params  # validates the weights

    @property
    def fold_params(self):
        """The single-strand (weighted Nussinov) model of S1 and S2."""
        return FoldParams.bpmax(au=self.au, gu=self.gu)

    @property
    def unit(self):
        return self.fold_params.unit

    @property
    def min_loop(self):
        return self.fold_params.min_loop

    def pair_table(self):
        """5 x 5 int32 score table over codes in units (intra- and intermolecular alike)."""
        return self.fold_params.pair_table()

    def to_score(self, units):
        return self.fold_params.to_score(units)

    def spans(self, M, N):
        """(L1, L2): the longest query and target intervals in the domain."""
        L1 = M if self.window_query is None else min(M, self.window_query + 1)
        L2 = N if self.window_target is None else min(N, self.window_target + 1)
        return L1, L2

    def score_dtype(self, M, N):
        """int16 when every value of the (windowed) table fits, else int32."""
        L1, L2 = self.spans(M, N)
        bound = ((L1 + L2) // 2) * int(self.pair_table().max())  # each base in at most one pair
        if bound <= np.iinfo(np.int16).max:
            return np.int16
        if bound > np.iinfo(np.int32).max:
            raise InvalidParameter(f"scores of {M} x {N} nt would overflow 32-bit integers")
        return np.int32


def banded_count(n, span):
    """Number of intervals [i, j] of a length-n strand with at most ``span`` bases."""
    span = min(span, n)
    return n * span - span * (span - 1) // 2


def work(M, N, L1=None, L2=None):
    """Useful max/add operations of the recurrence: bpmax.md's ``2 [T(M)T(N) + 2 P(M)T(N) + 2 T(M)P(N)]``,
    or with windows (longest intervals L1, L2 bases) the same sums over the windowed domain.

    A cell with interval lengths (l1, l2) costs (l1-1)(l2-1) terms of D, 2(l1-1) of R3/R4 and
    2(l2-1) of R1/R2, each one max and one add.
    """
    L1 = M if L1 is None else min(L1, M)
    L2 = N if L2 is None else min(L2, N)

    def T(n, L):  # sum over interval lengths l <= L of (number of intervals) * (l - 1)
        return sum((n - l + 1) * (l - 1) for l in range(1, L + 1))

    def P(n, L):
        return sum(n - l + 1 for l in range(1, L + 1))

    return 2 * (T(M, L1) * T(N, L2) + 2 * P(M, L1) * T(N, L2) + 2 * T(M, L1) * P(N, L2))


def check_memory(estimate, what, suggest=None):
    """Raise ResourceError when ``estimate`` bytes will not fit in the memory available now;
    ``suggest(limit_bytes)`` returns a hint (e.g. the target window that would fit) or None."""
    require_memory(estimate, what, suggest)