"""What BPMax of one query against one target gives: :class:`Interaction`."""
from dataclasses import dataclass

import numpy as np

from ..results.rows import Result, hidden
from ._window import position_profile


@dataclass(frozen=True)
class Interaction(Result):
    """The result of BPMax for one query against one target.

    Coordinates are 0-based, half-open, on the strands as given (the target is NOT reversed here).
    Without windows the single window is the whole of both strands. ``score`` is the window pair's
    score (an int when whole); ``query_fold`` / ``target_fold`` are the single-strand optima of that
    query window and that target window (the whole strands without windows), and ``gain`` = score -
    query_fold - target_fold, what the interaction adds to the two strands folded alone (never
    negative: folding each alone is one joint structure). ``site``: 1 for the best window pair, 2.. for
    the next non-overlapping target windows (``sites=K``, see _sites). ``window_scores[q, t]`` is the
    score of the query window starting at ``q`` with the target window starting at ``t``. With
    ``structure=True``: ``structure`` is the dot-bracket ``query&target`` of the window pair,
    ``intra_query`` / ``intra_target`` its intramolecular pairs and ``inter`` its intermolecular pairs
    (query position, target position); ``intermolecular`` gives those as lists for tables. The arrays
    and pair lists stay out of ``to_dict()``. An empty strand has one window, of length 0: the score is
    the other window folded alone. Interactions are frozen (``dataclasses.replace`` makes a changed
    copy).

    >>> from bioaccel.interact import bpmax
    >>> r = bpmax("GGG", "AAAAAACCC", structure=True)[0]
    >>> r.score, r.structure, r.intermolecular
    (9, '(((&......)))', [[0, 8], [1, 7], [2, 6]])
    >>> r.gain, r.query_fold, r.target_fold, sorted(r.to_dict())[:4]
    (9, 0, 0, ['backend', 'gain', 'intermolecular', 'query'])
    """

    DERIVED = ("intermolecular",)

    query: str
    target: str
    score: "int | float"
    query_fold: "int | float"
    target_fold: "int | float"
    gain: "int | float"
    query_start: int
    query_end: int
    target_start: int
    target_end: int
    query_window: int
    target_window: int
    window_scores: np.ndarray = hidden(repr=False)
    structure: "str | None" = None
    intra_query: "list | None" = hidden(default=None, repr=False)
    intra_target: "list | None" = hidden(default=None, repr=False)
    inter: "list | None" = hidden(default=None, repr=False)
    target_length: int = 0
    site: int = 1
    variant: str = ""
    backend: str = "cpu"

    @property
    def intermolecular(self) -> "list | None":
        """The intermolecular pairs as ``[query position, target position]`` lists (None without a
        structure)."""
        return None if self.inter is None else [[q, t] for q, t in self.inter]

    def profile(self) -> np.ndarray:
        """Best score of any window pair covering each target position (float array, length N); the
        same for every site of a pair."""
        return position_profile(self.window_scores.max(axis=0), self.target_window, self.target_length)
