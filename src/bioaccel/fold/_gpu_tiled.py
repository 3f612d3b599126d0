"""bioaccel's tiled Nussinov fill on the GPU (variant ``tiled``; kernels/nussinov_fast.cu).

TILE x TILE tiles of the upper triangle only, int16 cells with Hopper's two-lane DPX max-plus while
scores fit (int32 above: FoldParams.cell_dtype), split-K bulk products, the in-tile finish in shared
memory. The finish chain (edge products, then finish, diagonal after diagonal) runs on a high-priority
stream; the interior products of diagonal d run on a second stream as soon as diagonal d-2 is finished,
so they overlap the chain (docs/gpu-notes.md has what each step measured).
"""
import math

import numpy as np

from .. import _gpu
from . import _launch
from ._gpu_table import POISON, DeviceTable, kernel

FINISH_LANES = 4                  # nussinov_fast.cu: threads per cell in the finish


def tiles_per_side(n, tile):
    return math.ceil((n + 1) / tile)


def table_bytes(n, params, tile):
    """Device bytes of the tiled table of an n-long sequence and its three scratch rows of tiles."""
    nt = tiles_per_side(n, tile)
    table = nt * (nt + 1) // 2 * tile * tile * params.cell_dtype(n).itemsize
    return table + 3 * nt * tile * tile * 4


def bulk_kernel(score_type, tile, stage_bytes=None, kernel_name="fast_bulk"):
    """The ``kernel_name`` (fast_bulk, or batch_bulk for many tables) instantiation for ``score_type``
    and its dynamic shared memory in bytes."""
    itemsize = np.dtype(score_type).itemsize
    stage_bytes = stage_bytes or _launch.stage_bytes(tile, itemsize)
    lanes = "Int16x2" if itemsize == 2 else "Int32x1"
    bulk = kernel("nussinov_fast.cu", f"{kernel_name}<{lanes}, {tile}, 2, {stage_bytes}>")
    k_per_stage = stage_bytes // itemsize
    shared = 2 * tile * (k_per_stage + 16 // itemsize) * itemsize + 2 * k_per_stage * tile * itemsize
    bulk.max_dynamic_shared_size_bytes = shared
    return bulk, shared


def finish_shared_bytes(score_type, tile):
    """Dynamic shared memory of fast_finish: three TILE x LD tiles (LD as in nussinov_fast.cu)."""
    itemsize = np.dtype(score_type).itemsize
    return 3 * tile * (tile + 4 // itemsize) * itemsize


def bulk_plan(nt, want_blocks, min_products):
    """(d, tiles, splits, chunk) of every launch of interior products (I+1 < K < J-1): the K range
    of a tile is split only as far as needed to give the GPU ``want_blocks`` blocks, and never below
    ``min_products`` tile products a block (partial results cost atomics)."""
    plan = []
    for d in range(4, nt):
        tiles, products = nt - d, d - 3
        splits = max(1, min(math.ceil(want_blocks / tiles), products // min_products))
        chunk = math.ceil(products / splits)
        plan.append((d, tiles, math.ceil(products / chunk), chunk))
    return plan


def _priority_stream(cp, high):
    """A non-blocking stream; the chain of finishes gets the device's highest priority, so that its
    blocks take SMs as soon as bulk blocks leave them (CUDA clamps a priority outside the range)."""
    return cp.cuda.Stream(non_blocking=True, priority=-5 if high else 0)


def fill_tiled(codes_dev, n, params, pm):
    """Fill the tiled table of one sequence (codes on the device); returns a DeviceTable."""
    cp = _gpu.cupy()
    sizes = _launch.SIZES
    T = sizes.tile
    score_type = params.cell_dtype(n)
    tag = "short" if score_type == np.int16 else "int"
    nt = tiles_per_side(n, T)
    table = cp.full(nt * (nt + 1) // 2 * T * T, POISON, dtype=score_type)
    # three scratch buffers in rotation: diagonal d's interior products are accumulated while the
    # finish of d-1 still reads its own buffer (and that of d-2 was reset before d's products start)
    scratch = cp.zeros((3, nt * T * T), dtype=np.int32)
    bulk, bulk_shared = bulk_kernel(score_type, T)
    bulk_threads = (T // 8) ** 2
    finish = kernel("nussinov_fast.cu", f"fast_finish<{tag}, {T}>")
    shared = finish_shared_bytes(score_type, T)
    finish.max_dynamic_shared_size_bytes = shared
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    plan = {d: (tiles, splits, chunk) for d, tiles, splits, chunk in bulk_plan(nt, 4 * sms, sizes.bulk_min_products)}
    n_, nt_ = np.int32(n), np.int32(nt)

    caller = cp.cuda.get_current_stream()
    chain, side = _priority_stream(cp, high=True), _priority_stream(cp, high=False)
    start = caller.record()
    chain.wait_event(start)
    side.wait_event(start)
    finished = []
    for d in range(nt):
        buf = scratch[d % 3]
        if d in plan:
            tiles, splits, chunk = plan[d]
            side.wait_event(finished[d - 2])
            with side:
                bulk((tiles, splits), (bulk_threads,), (table, buf, nt_, np.int32(d), np.int32(chunk), np.int32(0)),
                     shared_mem=bulk_shared)
            interior_done = side.record()
        if d >= 2:
            with chain:
                bulk((nt - d, 2), (bulk_threads,), (table, buf, nt_, np.int32(d), np.int32(1), np.int32(1)),
                     shared_mem=bulk_shared)
        if d in plan:
            chain.wait_event(interior_done)
        with chain:
            finish((nt - d,), (T * FINISH_LANES,), (table, buf, codes_dev, pm, n_, nt_, np.int32(d)),
                   shared_mem=shared)
        finished.append(chain.record())
    caller.wait_event(chain.record())
    return DeviceTable(table, "tiled", np.int64(nt), n, tile=T)
