"""The fill of one sequence's table on the GPU: the variant's fill, the device memory it takes, and the
refusal, before anything is allocated, of a length whose table will not fit.

Below both the one-by-one dispatch (:mod:`._gpu`) and the batches (:mod:`._gpu_batch`, whose longest
sequences are filled one at a time here).
"""
from ..errors import ResourceError
from ..runtime import gpu as _gpu
from . import _gpu_papers, _gpu_tiled, _launch

MEMORY_MARGIN = 0.92            # of the free device memory we let one table take


def table_bytes(n, variant, params):
    """Device bytes the fill of an n-long sequence takes with ``variant`` (table, scratch, stack)."""
    posts = n + 1
    if variant == "tiled":
        table = _gpu_tiled.table_bytes(n, params, _launch.SIZES.tile)
    else:
        table = _gpu_papers.table_bytes(n, variant)
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
        return _gpu_tiled.fill_tiled(codes_dev, n, params, pm)
    if variant in ("diagonal", "two-kernel"):
        return _gpu_papers.fill_diagonal(codes_dev, n, pm, variant)
    return _gpu_papers.fill_blocked(codes_dev, n, pm, variant)
