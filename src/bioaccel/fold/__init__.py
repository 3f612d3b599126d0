"""Nussinov RNA folding on all CPU cores (Numba) or an NVIDIA GPU (CuPy).

``nussinov(sequences, backend="cpu")`` folds many sequences (a FoldResult each);
``scores, structures = nussinov_batch(sequences)`` folds millions, results as arrays; ``fold(sequence)`` returns
``(structure, score)`` like ViennaRNA's ``RNA.fold``; ``fold_table(sequence)`` gives the whole table.
The model (allowed pairs, weights, minimum hairpin loop) is :class:`FoldParams`; the algorithms are
listed in ``VARIANTS``.

The names load on first use (PEP 562), so that the command line can read the variant registry
without importing Numba.

>>> from bioaccel.fold import fold
>>> fold("GGGAAAUCC")
('(((...)))', 3)
"""
import importlib

from ._variants import VARIANTS

_LAZY = {"fold": "._api", "fold_table": "._api", "iter_nussinov": "._api", "nussinov": "._api",
         "nussinov_batch": "._arrays", "FoldBatch": "._arrays",
         "FoldParams": "._model", "FoldResult": "._result"}
__all__ = ["FoldBatch", "FoldParams", "FoldResult", "VARIANTS", "fold", "fold_table", "iter_nussinov", "nussinov",
           "nussinov_batch"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
