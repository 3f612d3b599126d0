"""What folding one sequence gives: :class:`FoldResult`."""
from dataclasses import dataclass

import numpy as np

from ..results.rows import Result, hidden


@dataclass
class FoldResult(Result):
    """One folded sequence.

    ``structure`` is the dot-bracket and ``pair_to[i]`` the 0-based partner of position i (-1:
    unpaired); both are None when folded with ``traceback=False``. ``score`` is the optimal weighted
    number of pairs (an int when whole), ``score_units`` the same in the model's integer units.

    >>> r = FoldResult("s", "GGGAAAUCC", "(((...)))", 3, np.array([8, 7, 6, -1, -1, -1, 2, 1, 0]))
    >>> r.pairs, r.base_pairs()[0], r.to_dict()["length"]
    (3, (0, 8), 9)
    """

    DERIVED = ("length", "pairs")

    id: str
    sequence: str
    structure: "str | None"
    score: "int | float"
    pair_to: "np.ndarray | None" = hidden(default=None, repr=False)
    score_units: int = 0
    min_loop: int = 3
    variant: str = ""
    backend: str = "cpu"

    @property
    def length(self) -> int:
        return len(self.sequence)

    @property
    def pairs(self):
        """Number of base pairs in the structure (None without a traceback)."""
        return None if self.pair_to is None else int(np.count_nonzero(self.pair_to >= 0) // 2)

    def base_pairs(self) -> list:
        """The pairs as a list of 0-based ``(i, j)``, ``i < j``, in order of ``i``."""
        if self.pair_to is None:
            return []
        i = np.flatnonzero(self.pair_to > np.arange(len(self.pair_to)))
        return list(zip(i.tolist(), self.pair_to[i].tolist()))
