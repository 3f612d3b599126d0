"""What folding one sequence gives: :class:`FoldResult`, the same type for every model."""
from dataclasses import dataclass

import numpy as np

from ..results.rows import Result, hidden

#: The fields that hold a model's value: one is set, the other None.
VALUE_FIELDS = ("score", "energy")


@dataclass(frozen=True)
class FoldResult(Result):
    """One folded sequence.

    ``structure`` is the dot-bracket and ``pair_to[i]`` the 0-based partner of position i (-1:
    unpaired); both are None when folded with ``traceback=False``. ``model`` names the model
    (``bioaccel.fold.MODELS``); its value is ``score`` for Nussinov (the optimal weighted number of
    pairs, an int when whole) and ``energy`` for an energy model (kcal/mol), the other None;
    ``score_units`` is the same value in the model's integer units (Nussinov: ``FoldParams.unit`` per
    pair of weight 1; an energy model: dcal/mol). ``to_dict()`` leaves out the value field a model
    does not have.

    >>> r = FoldResult("s", "GGGAAAUCC", "(((...)))", 3, np.array([8, 7, 6, -1, -1, -1, 2, 1, 0]))
    >>> r.pairs, r.base_pairs()[0], r.to_dict()["length"], r.value, "energy" in r.to_dict()
    (3, (0, 8), 9, 3, False)
    """

    DERIVED = ("length", "pairs")

    id: str
    sequence: str
    structure: "str | None"
    score: "int | float | None" = None
    pair_to: "np.ndarray | None" = hidden(default=None, repr=False)
    score_units: int = 0
    min_loop: int = 3
    variant: str = ""
    backend: str = "cpu"
    model: str = "nussinov"
    energy: "float | None" = None
    #: the rest of the FASTA header after the id (vienna writes the header as RNAfold does: whole)
    description: str = hidden(default="")

    @property
    def length(self) -> int:
        return len(self.sequence)

    @property
    def pairs(self) -> "int | None":
        """Number of base pairs in the structure (None without a traceback)."""
        return None if self.pair_to is None else int(np.count_nonzero(self.pair_to >= 0) // 2)

    @property
    def value_name(self) -> str:
        """The field holding the model's value: ``"score"`` or ``"energy"``."""
        return "energy" if self.energy is not None else "score"

    @property
    def value(self) -> "int | float":
        """The model's value: the score (Nussinov) or the energy (an energy model)."""
        return getattr(self, self.value_name)

    def base_pairs(self) -> list:
        """The pairs as a list of 0-based ``(i, j)``, ``i < j``, in order of ``i``."""
        if self.pair_to is None:
            return []
        i = np.flatnonzero(self.pair_to > np.arange(len(self.pair_to)))
        return list(zip(i.tolist(), self.pair_to[i].tolist()))

    def to_dict(self) -> dict:
        row = super().to_dict()
        for name in VALUE_FIELDS:
            if row[name] is None and name != self.value_name:
                del row[name]
        return row
