"""Nussinov on the CPU: one entry point for every variant's table, the memory check before it, and the
folds the model hands the pipeline (one sequence on every core, or many short ones one per core).

Every table is read through one accessor, ``table[base[i] + j]`` = C(i, j): ``base[i] = i * n`` for a
dense table (raveled), :func:`~bioaccel.fold._tiled_cpu.packed_base` for the packed triangle of the
``tiled`` variant.
"""
import numpy as np
from numba import njit

from ..runtime.memory import require_memory
from ._dense_cpu import DENSE_FILLS
from ._packed_cpu import fold_list
from ._tiled_cpu import TILE, fill_tiled, tiled_bytes
from ._traceback import check_traced, traceback_pairs

#: Sequences up to this length are folded with the ``tiled`` variant several at a time, one per core
#: (:mod:`._packed_cpu`); longer ones one at a time, each on all cores.
ONE_CORE_MAX_LENGTH = 800


def check_memory(nbytes, n, what):
    """Raise ResourceError when ``nbytes`` will not fit in the memory available now."""
    require_memory(nbytes, f"folding a sequence of length {n:,} ({what})",
                   "use --backend gpu or a shorter sequence")


def table_bytes(n, params, variant):
    """Memory the ``variant`` fill of an n-long sequence takes on the CPU.

    >>> from bioaccel.fold import FoldParams
    >>> table_bytes(1000, FoldParams(), "naive")
    4000000
    """
    if variant == "tiled":
        return tiled_bytes(n, params.cell_dtype(n))
    return 4 * n * n


def table_name(n, variant):
    """What the fill of an n-long sequence allocates, as a message names it."""
    return "tiled score table" if variant == "tiled" else f"dense {n:,} x {n:,} score table"


def fill_table(codes, params, variant="tiled", *, tile=TILE):
    """Fill with ``variant`` (a CPU variant name); return ``(table, base)``, one-dimensional, C(i, j) =
    ``table[base[i] + j]``. Refuses, before allocating, a table that will not fit in memory.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> table, base = fill_table(encode("GGGAAAUCC"), FoldParams(), "naive")
    >>> int(table[base[0] + 8])
    3
    """
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    n = codes.shape[0]
    check_memory(table_bytes(n, params, variant), n, table_name(n, variant))
    pairs = params.pair_table()
    if variant == "tiled":
        return fill_tiled(codes, pairs, params.min_loop, params.cell_dtype(n), tile=tile)
    M = DENSE_FILLS[variant](codes, pairs, int(params.min_loop))
    return M.reshape(-1), np.arange(n, dtype=np.int64) * n


@njit(cache=True, nogil=True)
def unpack(table, base, n):
    """The (n, n) int32 dense table (upper triangle; the rest 0) of any layout."""
    dense = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        for j in range(i, n):
            dense[i, j] = table[base[i] + j]
    return dense


def fold_one(codes, params, variant, traceback):
    """``(optimum in units, pair_to or None)`` of one sequence, its table filled on every core.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> units, pair_to = fold_one(encode("GGGAAAUCC"), FoldParams(), "naive", True)
    >>> units, pair_to[:3].tolist()
    (3, [8, 7, 6])
    """
    table, base = fill_table(codes, params, variant)
    n = len(codes)
    units = int(table[base[0] + n - 1]) if n else 0
    if not traceback:
        return units, None
    return units, check_traced(traceback_pairs(table, base, codes, params.pair_table(), params.min_loop))


def fold_many(codes_list, params, variant, traceback):
    """``[(optimum in units, pair_to or None)]`` of each sequence: a lone sequence (or a variant other
    than ``tiled``) one at a time on every core, several ``tiled`` ones packed, one per core."""
    if len(codes_list) == 1 or variant != "tiled":
        return [fold_one(codes, params, variant, traceback) for codes in codes_list]
    return fold_list(codes_list, params, traceback=traceback)
