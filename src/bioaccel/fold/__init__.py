"""Nussinov RNA folding on all CPU cores (Numba) or an NVIDIA GPU (CuPy).

``nussinov(sequences, backend="cpu")`` folds many sequences; ``fold(sequence)`` returns
``(structure, score)`` like ViennaRNA's ``RNA.fold``; ``fold_table(sequence)`` gives the whole table.
The model (allowed pairs, weights, minimum hairpin loop) is :class:`FoldParams`; the algorithms are
listed in ``VARIANTS``.
"""
from ._api import fold, fold_table, iter_nussinov, nussinov
from ._model import FoldParams
from ._result import FoldResult
from ._variants import VARIANTS

__all__ = ["FoldParams", "FoldResult", "VARIANTS", "fold", "fold_table", "iter_nussinov", "nussinov"]
