"""The papers' GPU Nussinov fills (the published GPU designs bioaccel compares its own with), each
exact, each over an int32 table poisoned before the fill.

``diagonal``       Chang et al. as Li, Ranka & Sahni describe it: one launch per diagonal; a thread, a
                   block or all blocks per cell in the initial, middle and final stages; mirrored
                   N x N table (kernels/nussinov_diagonal.cu).
``two-kernel``     Stojanovski et al.: kernel 1 (a thread per cell) for the first 32 diagonals, kernel
                   2 (a 128-thread block per cell, shared-memory reduction) after.
``blocked``        Li, Ranka & Sahni's Ours1: 32 x 32 tiles by tile diagonals, Algorithm 3's
                   maxKernel, N x N table (kernels/nussinov_blocked.cu).
``blocked-packed`` Ours2: the same over the packed upper triangle.
"""
import math

import numpy as np

from ..runtime import gpu as _gpu
from . import _launch
from ._gpu_table import POISON, DeviceTable, kernel


def table_bytes(n, variant):
    posts = n + 1
    return posts * (posts + 1) // 2 * 4 if variant == "blocked-packed" else posts * posts * 4


def fill_diagonal(codes_dev, n, pm, variant):
    """Chang et al. (``diagonal``) or Stojanovski et al. (``two-kernel``): one launch per diagonal."""
    cp = _gpu.cupy()
    sizes = _launch.SIZES
    posts = n + 1
    table = _gpu.filled(posts * posts, POISON, np.int32).reshape(posts, posts)
    # V(i, i) and V(i, i+1) are 0 and never written: the split loops read them (and their mirrors)
    idx = cp.arange(posts)
    table[idx, idx] = 0
    table[idx[:-1], idx[1:]] = 0
    table[idx[1:], idx[:-1]] = 0
    per_thread = kernel("nussinov_diagonal.cu", "diagonal_cell_per_thread")
    n_ = np.int32(n)
    if variant == "two-kernel":
        block = sizes.two_kernel_block
        per_block = kernel("nussinov_diagonal.cu", "diagonal_cell_per_block", block)
        for D in range(2, n + 1):
            cells = n - D + 1
            args = (table, codes_dev, pm, n_, np.int32(D))
            if D - 1 <= sizes.two_kernel_switch:
                per_thread((math.ceil(cells / block),), (block,), args)
            else:
                per_block((cells,), (block,), args)
    else:
        block = sizes.chang_block
        per_block = kernel("nussinov_diagonal.cu", "diagonal_cell_per_block", block)
        per_grid = kernel("nussinov_diagonal.cu", "diagonal_cell_per_grid", block)
        for D in range(2, n + 1):
            cells = n - D + 1
            args = (table, codes_dev, pm, n_, np.int32(D))
            if D <= sizes.chang_initial_stage:
                per_thread((math.ceil(cells / block),), (block,), args)
            elif cells >= sizes.chang_final_stage_cells:
                per_block((cells,), (block,), args)
            else:
                splits = max(1, min(64, (D - 1) // (4 * block)))
                per_grid((cells, splits), (block,), args)
    return DeviceTable(table.ravel(), "square", np.int64(posts), n)


def fill_blocked(codes_dev, n, pm, variant):
    """Ours1 (``blocked``, N x N) or Ours2 (``blocked-packed``): one launch per tile diagonal."""
    cp = _gpu.cupy()
    bs = _launch.SIZES.seed_tile
    posts = n + 1
    nt = math.ceil(posts / bs)
    if variant == "blocked":
        table = _gpu.filled(posts * posts, POISON, np.int32)
        layout_name, layout = "SquareLayout", "square"
    else:
        table = _gpu.filled(posts * (posts + 1) // 2, POISON, np.int32)
        layout_name, layout = "PackedRowsLayout", "packed"
    fill = kernel("nussinov_blocked.cu", "blocked_tile_diagonal", layout_name, bs)
    n_, N_ = np.int32(n), np.int64(posts)
    for d in range(nt):
        fill((nt - d,), (bs, 2), (table, codes_dev, pm, n_, np.int32(d), N_))
    return DeviceTable(table, layout, N_, n)
