"""Nussinov RNA folding on all CPU cores (Numba) or an NVIDIA GPU (CuPy).

``nussinov(sequences, backend="cpu")`` folds many sequences; ``fold(sequence)`` returns
``(structure, score)`` like ViennaRNA's ``RNA.fold``. The model (allowed pairs, weights, minimum hairpin
loop) is :class:`FoldParams`.
"""
from ._api import FoldResult, fold, iter_nussinov, nussinov
from ._cpu import CPU_VARIANTS, fill_dense, fill_naive
from ._model import FoldParams

__all__ = ["FoldParams", "FoldResult", "fold", "nussinov", "iter_nussinov", "fill_dense", "fill_naive",
           "CPU_VARIANTS"]
