"""Nussinov folding on an NVIDIA GPU (CuPy; kernels in fold/kernels/*.cu): sizes, dispatch, batches.

Each variant's fill lives in its own module (:mod:`._gpu_tiled`, bioaccel's; :mod:`._gpu_seed`, the
papers'); every one is exact and gives the CPU's scores and structures. The traceback runs on the
device over the table (:mod:`._gpu_table`), with the rule of fold/_traceback.py. Batches of the
default variant are folded many sequences per launch (:mod:`._gpu_batch`).
"""
import numpy as np

from ..runtime import gpu as _gpu
from ..errors import ResourceError
from . import _launch
from ._gpu_seed import fill_blocked, fill_diagonal
from ._gpu_table import pair_model, score_units, trace_structure
from ._gpu_tiled import fill_tiled

MEMORY_MARGIN = 0.92            # of the free device memory we let one table take


def table_bytes(n, variant, params):
    """Device bytes the fill of an n-long sequence takes with ``variant`` (table, scratch, stack)."""
    from ._gpu_seed import table_bytes as seed_bytes
    from ._gpu_tiled import table_bytes as tiled_bytes

    posts = n + 1
    table = tiled_bytes(n, params, _launch.SIZES.tile) if variant == "tiled" else seed_bytes(n, variant)
    return table + posts * 16 + n


def largest_fitting_length(variant, params, budget):
    lo, hi = 0, 1 << 22
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if table_bytes(mid, variant, params) <= budget:
            lo = mid
        else:
            hi = mid - 1
    return lo


def check_fits(n, variant, params):
    """Refuse, before allocating, a length whose table will not fit in free device memory."""
    need = table_bytes(n, variant, params)
    budget = int(_gpu.free_memory() * MEMORY_MARGIN)
    if need > budget:
        best = largest_fitting_length(variant, params, budget)
        hint = " or --variant tiled (tiles of the upper triangle only)" if variant != "tiled" else ""
        raise ResourceError(
            f"a sequence of {n:,} nt needs about {need / 2**30:.1f} GiB of GPU memory with variant "
            f"{variant!r} but {budget / 2**30:.1f} GiB is free; the longest that fits is {best:,} nt "
            f"(use a GPU with more memory{hint}, or --backend cpu)"
        )


def fill(codes_dev, n, params, pm, variant):
    """Fill the table of one sequence (codes on the device) with ``variant``; a DeviceTable."""
    if variant == "tiled":
        return fill_tiled(codes_dev, n, params, pm)
    if variant in ("diagonal", "two-kernel"):
        return fill_diagonal(codes_dev, n, pm, variant)
    return fill_blocked(codes_dev, n, pm, variant)


def fold_many(codes_list, params, *, variant="tiled", traceback=True):
    """Fold each sequence (uint8 codes) on the GPU: a list of (score in units, pair_to or None).

    With the ``tiled`` variant the whole list is one batch (:mod:`._gpu_batch`: binned by length, many
    sequences per launch); with a paper's variant, one sequence after another.
    """
    cp = _gpu.require_gpu()
    if variant == "tiled":
        from ._gpu_batch import fold_list

        return fold_list(codes_list, params, traceback=traceback)
    pm = pair_model(cp, params)
    results = []
    for codes in codes_list:
        n = len(codes)
        check_fits(n, variant, params)
        codes_dev = cp.asarray(np.ascontiguousarray(codes, dtype=np.uint8)) if n else cp.zeros(1, np.uint8)
        table = fill(codes_dev, n, params, pm, variant)
        results.append((score_units(table), trace_structure(table, codes_dev, pm) if traceback else None))
        del table
        cp.get_default_memory_pool().free_all_blocks()
    return results
