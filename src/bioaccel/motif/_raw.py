"""A matrix as a reader found it, before scoring: :class:`RawMotif` (files and the JASPAR database
both produce them; :meth:`RawMotif.to_pssm` scores one under a :class:`MotifParams`)."""
from dataclasses import dataclass, field

import numpy as np

from ._params import MotifParams
from ..errors import InvalidParameter
from ._pssm import PSSM


@dataclass
class RawMotif:
    """``values`` (m, 4) in A, C, G, T order, and their ``kind``: counts, frequencies (with ``nsites``,
    the number of sites they were counted from, when the file says) or log-odds; ``threshold``: the
    score threshold the file gives (a HOMER file's log-odds detection threshold), None where none.

    >>> raw = RawMotif("m", "", [[4, 2, 1, 1], [1, 1, 2, 4]], "counts")
    >>> raw.to_pssm(MotifParams(pseudocount=0.0)).max_score
    2.0
    """

    motif_id: str
    name: str
    values: np.ndarray = field(repr=False)
    kind: str
    nsites: "float | None" = None
    source: str = ""
    threshold: "float | None" = None

    def __post_init__(self):
        self.values = np.asarray(self.values, dtype=np.float64)

    def to_pssm(self, params=None) -> PSSM:
        """The scored matrix under ``params`` (default: :class:`MotifParams`'s defaults); log-odds are
        kept as they are."""
        params = MotifParams() if params is None else params
        if not isinstance(params, MotifParams):
            raise InvalidParameter(f"params must be a MotifParams, got {type(params).__name__}")
        scoring = params.scoring()
        if self.kind == "logodds":
            return PSSM(self.values, motif_id=self.motif_id, name=self.name, background=scoring["background"],
                        source=self.source, file_threshold=self.threshold)
        return PSSM.from_counts(self.values, motif_id=self.motif_id, name=self.name, kind=self.kind,
                                nsites=self.nsites, source=self.source, file_threshold=self.threshold, **scoring)
