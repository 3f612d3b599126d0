"""What the motif statistics give: :class:`PValue` (SCORETOPVALUE), :class:`Threshold`
(PVALUETOSCORE) and :class:`CompareResult` (COMPARE), each with certified (low, high) bounds.

They mix in :class:`bioaccel.results.rows.Result`: ``to_dict()`` gives the fields as plain values (an
infinite number as None, which JSON can hold) and ``to_frame(results)`` a pandas DataFrame.
"""
import math
from dataclasses import dataclass

from ..results.rows import Result, hidden


class _Row(Result):
    """``to_dict()`` with infinite numbers as None."""

    def to_dict(self) -> dict:
        return {key: None if isinstance(value, float) and not math.isfinite(value) else value
                for key, value in super().to_dict().items()}


class _Certified(_Row):
    """A P-value certified between ``pvalue_low`` and ``pvalue_high`` on a grid of step ``grid_step``
    (0: exact), by the names every distribution answers with."""

    @property
    def low(self) -> float:
        return self.pvalue_low

    @property
    def high(self) -> float:
        return self.pvalue_high

    @property
    def step(self) -> float:
        return self.grid_step


@dataclass(frozen=True)
class PValue(_Certified):
    """SCORETOPVALUE: P(score >= ``score``) lies in [``pvalue_low``, ``pvalue_high``]; ``pvalue`` is the
    upper bound (conservative). ``grid_step`` is the step of the score grid that certified it (0: exact).

    >>> r = PValue("m", 3.0, 0.02, 0.0199, 0.02, "exact", 0.01)
    >>> r.low, r.high, r.to_dict()["pvalue_low"]
    (0.0199, 0.02, 0.0199)
    """

    DERIVED = ("note",)

    motif_id: str
    score: float
    pvalue: float
    pvalue_low: float
    pvalue_high: float
    variant: str = "exact"
    grid_step: float = 0.0
    backend: str = "cpu"
    exact: bool = False
    precision: "float | None" = hidden(default=None)

    @property
    def note(self):
        """How far to trust ``pvalue`` (None when it is exact)."""
        if self.exact:
            return None
        return (f"certified between pvalue_low and pvalue_high (grid step {self.grid_step:.3g})"
                if self.variant != "exact" or self.precision is None
                else f"certified to relative precision {self.precision:g}")


NOTE_UNREACHABLE = "no word reaches this P-value: even the best score is more probable"


@dataclass(frozen=True)
class Threshold(_Certified):
    """PVALUETOSCORE for P-value ``p``: ``score`` is certified to have a P-value in [``pvalue_low``,
    ``pvalue_high``] with ``pvalue_high <= p``, and no score below ``score_low`` has a P-value <= p.
    ``score`` is ``inf`` when even the best word is more probable than p (nothing passes); ``to_dict()``
    then gives None and a ``note``.

    >>> t = Threshold("m", 1e-3, float("inf"), 0.0, 0.0, 0.0, 4.5)
    >>> t.reachable, t.to_dict()["score"], t.to_dict()["note"][:13]
    (False, None, 'no word reach')
    """

    DERIVED = ("note",)

    motif_id: str
    p: float
    score: float
    pvalue: float
    pvalue_low: float
    pvalue_high: float
    score_low: float
    variant: str = "exact"
    grid_step: float = 0.0
    backend: str = "cpu"
    exact: bool = False
    pvalue_below: "float | None" = None
    why: str = hidden(default="")
    precision: "float | None" = hidden(default=None)

    @property
    def reachable(self) -> bool:
        return math.isfinite(self.score)

    @property
    def note(self):
        """Why ``score`` is missing, or how it falls short of the optimal cut (None: it is optimal)."""
        if not self.reachable:
            return NOTE_UNREACHABLE
        if self.exact:
            return None
        if self.why == "within_precision":
            return (f"within precision {self.precision:g}: valid; the optimal threshold lies in "
                    f"({self.score_low:.6g}, {self.score:.6g}]")
        if self.why == "unproven":
            return (f"valid but not proven optimal (too long to list every word near the cut); the optimal "
                    f"threshold lies in ({self.score_low:.6g}, {self.score:.6g}]")
        return f"certified: P-value in [{self.pvalue_low:.3g}, {self.pvalue_high:.3g}] (grid step {self.grid_step:.3g})"


def _bound(name, index):
    return property(lambda self: getattr(self, name)[index],
                    doc=f"{'Lower' if index == 0 else 'Upper'} bound of ``{name}``.")


@dataclass(frozen=True)
class CompareResult(_Row):
    """COMPARE at one shift: the probabilities (low, high) of the words scoring above both thresholds
    (matrix 1 >= ``alpha`` and matrix 2 >= ``beta``), above one only, and above neither. Matrix 2's
    first column is placed at matrix 1's column ``shift``; ``span`` columns cover both. ``strand`` "-":
    matrix 2 is taken as its reverse complement.

    >>> r = CompareResult("a", "b", 0, 6, 5.0, 4.0, (0.01, 0.01), (0.0, 0.0), (0.0, 0.0), (0.99, 0.99))
    >>> r.similarity, r.to_dict()["both_high"]
    (1.0, 0.01)
    """

    DERIVED = ("both_low", "both_high", "only1_low", "only1_high", "only2_low", "only2_high",
               "neither_low", "neither_high", "similarity")

    motif1: str
    motif2: str
    shift: int
    span: int
    alpha: float
    beta: float
    both: tuple = hidden()
    only1: tuple = hidden()
    only2: tuple = hidden()
    neither: tuple = hidden()
    variant: str = "exact"
    backend: str = "cpu"
    strand: str = "+"

    both_low, both_high = _bound("both", 0), _bound("both", 1)
    only1_low, only1_high = _bound("only1", 0), _bound("only1", 1)
    only2_low, only2_high = _bound("only2", 0), _bound("only2", 1)
    neither_low, neither_high = _bound("neither", 0), _bound("neither", 1)

    @property
    def similarity(self) -> float:
        """both / (both + only1 + only2), from the middle of each interval (0 when nothing passes)."""
        def mid(bounds):
            return 0.5 * (bounds[0] + bounds[1])

        union = mid(self.both) + mid(self.only1) + mid(self.only2)
        return mid(self.both) / union if union > 0 else 0.0
