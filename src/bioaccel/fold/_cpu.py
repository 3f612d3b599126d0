"""Nussinov on the CPU: one entry point for every variant's table, and the memory check before it.

Every table is read through one accessor, ``table[base[i] + j]`` = C(i, j): ``base[i] = i * n`` for a
dense table (raveled), :func:`~bioaccel.fold._tiled_cpu.packed_base` for the packed triangle of the
``tiled`` variant.
"""
import numpy as np
from numba import njit

from ..runtime.memory import require_memory
from ._dense_cpu import DENSE_FILLS
from ._tiled_cpu import TILE, fill_tiled, tiled_bytes


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
    check_memory(table_bytes(n, params, variant), n, "tiled score table" if variant == "tiled"
                 else f"dense {n:,} x {n:,} score table")
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
