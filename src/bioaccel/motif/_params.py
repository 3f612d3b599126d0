"""How motifs are scored: :class:`MotifParams`, the model object every motif function takes as
``params=`` (the background, and the pseudocount and log base that turn counts into log-odds)."""
import math
from dataclasses import dataclass

import numpy as np

from ..results.values import shown
from ..errors import InvalidParameter
from ._pssm import DEFAULT_PRESET, PRESETS, Background

MAX_BACKGROUND_ORDER = 5


def _number(value):
    return not isinstance(value, bool) and isinstance(value, (int, float, np.integer, np.floating))


@dataclass(frozen=True)
class MotifParams:
    """How count and frequency matrices become scores, and the background words are drawn from.

    ``background``: a :class:`Background`, or a spec as :meth:`Background.parse` reads it
    (``"uniform"``, four frequencies ``"0.3,0.2,0.2,0.3"``, or a FASTA file to estimate an order
    ``background_order`` Markov chain from). ``preset``: ``"fimo"`` (pseudocount 0.1, bits) or
    ``"moods"`` (0.01, natural log); ``pseudocount`` and ``log_base`` override the preset's values.
    Everything is checked here, on construction (a FASTA background is read here too).

    >>> MotifParams(background="0.3,0.2,0.2,0.3", preset="moods").background_model.letter_frequencies.tolist()
    [0.3, 0.2, 0.2, 0.3]
    >>> MotifParams(pseudocount=float("nan"))
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: pseudocount must be a finite number >= 0, got nan
    """

    background: "Background | str" = "uniform"
    background_order: int = 0
    preset: str = DEFAULT_PRESET
    pseudocount: "float | None" = None
    log_base: "float | None" = None

    def __post_init__(self):
        order = self.background_order
        if isinstance(order, bool) or not isinstance(order, (int, np.integer)) \
                or not 0 <= order <= MAX_BACKGROUND_ORDER:
            raise InvalidParameter(
                f"background order must be a whole number from 0 to {MAX_BACKGROUND_ORDER}, got {shown(order)}")
        if self.preset not in PRESETS:
            raise InvalidParameter(f"preset must be one of {', '.join(PRESETS)}, got {self.preset!r}")
        ps, base = self.pseudocount, self.log_base
        if ps is not None and not (_number(ps) and math.isfinite(ps) and ps >= 0):
            raise InvalidParameter(f"pseudocount must be a finite number >= 0, got {shown(ps)}")
        if base is not None and not (_number(base) and math.isfinite(base) and base > 1):
            raise InvalidParameter(f"log base must be a finite number > 1, got {shown(base)}")
        if not isinstance(self.background, (Background, str)) and not hasattr(self.background, "__fspath__"):
            raise InvalidParameter(
                f"background must be a Background or a spec such as 'uniform', got {type(self.background).__name__}")
        object.__setattr__(self, "_model", Background.parse(self.background, order=int(order)))

    @property
    def background_model(self) -> Background:
        """The background as a :class:`Background` (parsed, or estimated, on construction)."""
        return self._model

    def scoring(self) -> dict:
        """The keywords :meth:`PSSM.from_counts` takes for this model.

        >>> sorted(MotifParams().scoring())
        ['background', 'log_base', 'preset', 'pseudocount']
        """
        return {"background": self.background_model, "preset": self.preset, "pseudocount": self.pseudocount,
                "log_base": self.log_base}
