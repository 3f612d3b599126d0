"""BPMax RNA-RNA interaction (seed 003): exact recurrence, windowed variant, traceback, command line.

``bpmax(query, target, params=InteractParams(...), variant="tiled")`` returns an :class:`Interaction`;
the recurrence is the one of ../shared/design/bpmax.md.
"""
from ._api import VARIANTS, Interaction, bpmax
from ._model import InteractParams

__all__ = ["VARIANTS", "Interaction", "InteractParams", "bpmax"]
