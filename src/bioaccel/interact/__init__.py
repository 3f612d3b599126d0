"""BPMax RNA-RNA interaction (seed 003): exact recurrence, windowed variant, traceback, command line."""
from ._model import InteractParams

__all__ = ["InteractParams"]
