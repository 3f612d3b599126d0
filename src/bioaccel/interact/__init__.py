"""BPMax RNA-RNA interaction (Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz): the joint structure of two
RNAs with the most weighted intra- and intermolecular base pairs, with optional windows (BPMaxW).

``bpmax(queries, targets, params=InteractParams(...))`` returns one :class:`Interaction` per target and
query (targets outer, queries inner); ``iter_bpmax`` streams them. The recurrence is the one of
docs/bpmax.md; the algorithms are listed in ``VARIANTS``. Everything but the registry loads on first
use, so that the command line starts without NumPy or Numba.

>>> from bioaccel.interact import bpmax
>>> [r.score for r in bpmax("GGGAAACCC", ["GGGUUUCCC", "AAAA"])]
[21, 9]
"""
import importlib

from ._variants import VARIANTS

__all__ = ["VARIANTS", "InteractParams", "Interaction", "bpmax", "iter_bpmax"]

_LAZY = {"bpmax": "._api", "iter_bpmax": "._api", "InteractParams": "._model", "Interaction": "._result"}


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
