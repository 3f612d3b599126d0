"""Nussinov folding on an NVIDIA GPU (CuPy; kernels in fold/kernels/*.cu).

Variants (``variant=``), each exact and giving the CPU's scores and structures:

=================  ===================================================================================
``diagonal``       Chang et al. as described in seed 001: one launch per diagonal; a thread, a block or
                   all blocks per cell in the initial, middle and final stages; mirrored N x N table.
``two-kernel``     Stojanovski et al. (seed 002): kernel 1 (a thread per cell) for the first 32
                   diagonals, kernel 2 (a 128-thread block per cell, shared-memory reduction) after.
``blocked``        seed 001 "Ours1": 32 x 32 tiles by tile diagonals, Algorithm 3's maxKernel, N x N.
``blocked-packed`` seed 001 "Ours2": the same over the packed upper triangle.
``fast``           bioaccel's own (default): 128 x 128 tiles of the upper triangle only, int16 cells
                   with Hopper's two-lane DPX max-plus while scores fit (int32 above), split-K bulk
                   products, shared-memory finish; short sequences batched, one block per sequence.
=================  ===================================================================================

Every kernel works on half-open intervals (nussinov_common.cuh). The traceback runs on the device over
the table (nussinov_traceback.cu), with the rule of fold/_traceback.py.
"""
import math
from dataclasses import dataclass

import numpy as np

from .. import _gpu
from ..errors import InvalidParameter, ResourceError

KERNELS = "bioaccel.fold.kernels"
VARIANTS = ("fast", "diagonal", "two-kernel", "blocked", "blocked-packed")
DEFAULT_VARIANT = "fast"

FAST_TILE = 128
FINISH_THREADS = FAST_TILE * 4    # nussinov_fast.cu: FINISH_LANES threads per cell
BULK_STAGE_BYTES = 128            # bytes of each A row per shared-memory stage (int16 bulk product)
SEED_TILE = 32
BATCH_MAX_LEN = 256             # nussinov_batch.cu: longest sequence folded in shared memory
TWO_KERNEL_SWITCH = 32          # seed 002: kernel 2 from the 33rd diagonal on
CHANG_INITIAL_STAGE = 32        # diagonals (lengths) done with a thread per cell
CHANG_FINAL_STAGE_CELLS = 64    # fewer cells than this on a diagonal: all blocks per cell
MEMORY_MARGIN = 0.92            # of the free device memory we let one table take
BULK_MIN_PRODUCTS = 8           # fewest tile products a bulk block takes when the K range is split

_FAST_NAMES = ("fast_bulk<Int16x2, 2, 64>", "fast_bulk<Int16x2, 2, 128>", "fast_bulk<Int32x1, 2, 64>",
               "fast_finish<short>", "fast_finish<int>")
_TRACEBACK_NAMES = (
    "traceback<int, SquareLayout>", "traceback<int, PackedRowsLayout>",
    "traceback<short, TiledLayout<128>>", "traceback<int, TiledLayout<128>>",
)
_DIAGONAL_NAMES = ("diagonal_cell_per_block<128>", "diagonal_cell_per_block<256>", "diagonal_cell_per_grid<256>")
_BLOCKED_NAMES = ("blocked_tile_diagonal<SquareLayout>", "blocked_tile_diagonal<PackedRowsLayout>")

# Every .cu file and the template instantiations the host asks of it (tests check they exist).
MODULES = {
    "nussinov_fast.cu": _FAST_NAMES,
    "nussinov_traceback.cu": _TRACEBACK_NAMES,
    "nussinov_diagonal.cu": ("diagonal_cell_per_thread",) + _DIAGONAL_NAMES,
    "nussinov_blocked.cu": _BLOCKED_NAMES,
    "nussinov_batch.cu": ("batch_fold",),
}


def _module(filename):
    return _gpu.load_module(KERNELS, filename, MODULES[filename])


def _kernel(filename, name):
    return _module(filename).get_function(name)


# ---- sizes --------------------------------------------------------------------------------------

def _fast_score_type(n, params):
    return np.int16 if params.max_score_units(n) <= np.iinfo(np.int16).max else np.int32


def table_bytes(n, variant, params):
    """Device bytes the fill of an n-long sequence takes with ``variant`` (table, scratch, stack)."""
    posts = n + 1
    if variant == "fast":
        nt = math.ceil(posts / FAST_TILE)
        itemsize = np.dtype(_fast_score_type(n, params)).itemsize
        table = nt * (nt + 1) // 2 * FAST_TILE * FAST_TILE * itemsize
        scratch = 3 * nt * FAST_TILE * FAST_TILE * 4
    elif variant == "blocked-packed":
        table, scratch = posts * (posts + 1) // 2 * 4, 0
    else:
        table, scratch = posts * posts * 4, 0
    return table + scratch + posts * 16 + n


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
        hint = " or --variant fast (packed tiles)" if variant != "fast" else ""
        raise ResourceError(
            f"a sequence of {n:,} nt needs about {need / 2**30:.1f} GiB of GPU memory with variant "
            f"{variant!r} but {budget / 2**30:.1f} GiB is free; the longest that fits is {best:,} nt "
            f"(use a GPU with more memory{hint}, or --backend cpu)"
        )


# ---- device-side model --------------------------------------------------------------------------

def _pair_model(cp, params):
    """The PairModel struct of nussinov_common.cuh: 25 weights, then min_loop (int32 each)."""
    return cp.asarray(np.append(params.pair_table().ravel(), params.min_loop).astype(np.int32))


@dataclass
class DeviceTable:
    """A filled half-open table left on the device, with what is needed to read it."""

    values: object          # cupy array
    layout: str             # "square", "packed", "tiled"
    layout_arg: np.int64    # the one field of the layout struct (N, or tiles per side)
    n: int

    @property
    def score_type(self):
        return "short" if self.values.dtype == np.int16 else "int"


def _launch(kernel, grid, block, args, shared=0):
    kernel(grid, block, args, shared_mem=shared)


# ---- fills --------------------------------------------------------------------------------------

def fill(codes_dev, n, params, pm, variant):
    """Fill the table of one sequence (codes on the device) and return a DeviceTable."""
    cp = _gpu.cupy()
    if variant == "fast":
        return _fill_fast(cp, codes_dev, n, params, pm)
    if variant in ("diagonal", "two-kernel"):
        return _fill_diagonal(cp, codes_dev, n, pm, variant)
    if variant in ("blocked", "blocked-packed"):
        return _fill_blocked(cp, codes_dev, n, pm, variant)
    raise InvalidParameter(f"unknown GPU variant {variant!r}; choose one of {', '.join(VARIANTS)}")


def _fill_fast(cp, codes_dev, n, params, pm):
    score_type = _fast_score_type(n, params)
    tag = "short" if score_type == np.int16 else "int"
    posts = n + 1
    nt = math.ceil(posts / FAST_TILE)
    # -1 everywhere first: a cell the kernels fail to write stays visibly wrong (tests look).
    table = cp.full(nt * (nt + 1) // 2 * FAST_TILE * FAST_TILE, -1, dtype=score_type)
    # three scratch buffers in rotation: diagonal d's interior products are accumulated while the
    # finish of d-1 still reads its own buffer (and that of d-2 was reset before d's products start)
    scratch = cp.zeros((3, nt * FAST_TILE * FAST_TILE), dtype=np.int32)
    bulk, bulk_shared = bulk_kernel(score_type)
    finish = _kernel("nussinov_fast.cu", f"fast_finish<{tag}>")
    shared = finish_shared_bytes(score_type)
    finish.max_dynamic_shared_size_bytes = shared
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    plan = {d: (tiles, splits, chunk) for d, tiles, splits, chunk in _bulk_plan(nt, 4 * sms)}
    n_, nt_ = np.int32(n), np.int32(nt)

    # The chain (edge products, then finish, diagonal after diagonal) runs on `chain`; the interior
    # products of diagonal d run on `side` as soon as diagonal d-2 is finished.
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
                _launch(bulk, (tiles, splits), (256,), (table, buf, nt_, np.int32(d), np.int32(chunk), np.int32(0)),
                        shared=bulk_shared)
            interior_done = side.record()
        if d >= 2:
            with chain:
                _launch(bulk, (nt - d, 2), (256,), (table, buf, nt_, np.int32(d), np.int32(1), np.int32(1)),
                        shared=bulk_shared)
        if d in plan:
            chain.wait_event(interior_done)
        with chain:
            _launch(finish, (nt - d,), (FINISH_THREADS,), (table, buf, codes_dev, pm, n_, nt_, np.int32(d)),
                    shared=shared)
        finished.append(chain.record())
    caller.wait_event(chain.record())
    return DeviceTable(table, "tiled", np.int64(nt), n)


def _priority_stream(cp, high):
    """A non-blocking stream; the chain of finishes gets the device's highest priority, so that its
    blocks take SMs as soon as bulk blocks leave them."""
    try:  # CUDA clamps a priority outside the device's range (Hopper: 0 lowest, -5 highest)
        return cp.cuda.Stream(non_blocking=True, priority=-5 if high else 0)
    except TypeError:  # a CuPy without stream priorities
        return cp.cuda.Stream(non_blocking=True)


def bulk_kernel(score_type, stage_bytes=None):
    """The fast_bulk instantiation for ``score_type`` and its dynamic shared memory in bytes."""
    stage_bytes = stage_bytes or (BULK_STAGE_BYTES if score_type == np.int16 else 64)
    lanes = "Int16x2" if score_type == np.int16 else "Int32x1"
    kernel = _kernel("nussinov_fast.cu", f"fast_bulk<{lanes}, 2, {stage_bytes}>")
    itemsize = np.dtype(score_type).itemsize
    k_per_stage = stage_bytes // itemsize
    shared = 2 * FAST_TILE * (k_per_stage + 16 // itemsize) * itemsize + 2 * k_per_stage * FAST_TILE * itemsize
    kernel.max_dynamic_shared_size_bytes = shared
    return kernel, shared


def finish_shared_bytes(score_type):
    """Dynamic shared memory of fast_finish: three TILE x LD tiles (LD as in nussinov_fast.cu)."""
    itemsize = np.dtype(score_type).itemsize
    return 3 * FAST_TILE * (FAST_TILE + 4 // itemsize) * itemsize


def _bulk_plan(nt, want_blocks, min_products=None):
    """(d, tiles, splits, chunk) of every launch of interior products (I+1 < K < J-1): the K range
    of a tile is split only as far as needed to give the GPU ``want_blocks`` blocks, and never below
    ``min_products`` tile products a block (partial results cost atomics)."""
    min_products = min_products or BULK_MIN_PRODUCTS
    plan = []
    for d in range(4, nt):
        tiles, products = nt - d, d - 3
        splits = max(1, min(math.ceil(want_blocks / tiles), products // min_products))
        chunk = math.ceil(products / splits)
        plan.append((d, tiles, math.ceil(products / chunk), chunk))
    return plan


def _fill_diagonal(cp, codes_dev, n, pm, variant):
    posts = n + 1
    table = cp.zeros((posts, posts), dtype=np.int32)
    per_thread = _kernel("nussinov_diagonal.cu", "diagonal_cell_per_thread")
    n_ = np.int32(n)
    if variant == "two-kernel":
        per_block = _kernel("nussinov_diagonal.cu", "diagonal_cell_per_block<128>")
        for D in range(2, n + 1):
            cells = n - D + 1
            if D - 1 <= TWO_KERNEL_SWITCH:
                _launch(per_thread, (math.ceil(cells / 128),), (128,), (table, codes_dev, pm, n_, np.int32(D)))
            else:
                _launch(per_block, (cells,), (128,), (table, codes_dev, pm, n_, np.int32(D)))
    else:
        per_block = _kernel("nussinov_diagonal.cu", "diagonal_cell_per_block<256>")
        per_grid = _kernel("nussinov_diagonal.cu", "diagonal_cell_per_grid<256>")
        for D in range(2, n + 1):
            cells = n - D + 1
            args = (table, codes_dev, pm, n_, np.int32(D))
            if D <= CHANG_INITIAL_STAGE:
                _launch(per_thread, (math.ceil(cells / 256),), (256,), args)
            elif cells >= CHANG_FINAL_STAGE_CELLS:
                _launch(per_block, (cells,), (256,), args)
            else:
                splits = max(1, min(64, (D - 1) // 1024))
                _launch(per_grid, (cells, splits), (256,), args)
    return DeviceTable(table.ravel(), "square", np.int64(posts), n)


def _fill_blocked(cp, codes_dev, n, pm, variant):
    posts = n + 1
    nt = math.ceil(posts / SEED_TILE)
    if variant == "blocked":
        table = cp.zeros(posts * posts, dtype=np.int32)
        name, layout = "blocked_tile_diagonal<SquareLayout>", "square"
    else:
        table = cp.zeros(posts * (posts + 1) // 2, dtype=np.int32)
        name, layout = "blocked_tile_diagonal<PackedRowsLayout>", "packed"
    kernel = _kernel("nussinov_blocked.cu", name)
    n_, N_ = np.int32(n), np.int64(posts)
    for d in range(nt):
        _launch(kernel, (nt - d,), (SEED_TILE, 2), (table, codes_dev, pm, n_, np.int32(d), N_))
    return DeviceTable(table, layout, N_, n)


# ---- reading results ----------------------------------------------------------------------------

def score_units(table):
    """V(0, n), the optimal score in units."""
    n = table.n
    if n < 2:
        return 0
    return int(read_cell(table, 0, n))


def cell_index(table, i, c):
    """Where V(i, c) lives in ``table.values`` (i < c; NumPy arrays or scalars), as in the kernels' layouts."""
    if table.layout == "square":
        return i * int(table.layout_arg) + c
    if table.layout == "packed":
        N = int(table.layout_arg)
        return i * N - i * (i - 1) // 2 + (c - i)
    nt, T = int(table.layout_arg), FAST_TILE
    I, J = i // T, c // T
    return (I * nt - I * (I - 1) // 2 + (J - I)) * T * T + (i % T) * T + (c % T)


def read_cell(table, i, c):
    """V(i, c) of a DeviceTable (one cell; for the score and tests)."""
    return 0 if c - i <= 1 else int(table.values[cell_index(table, i, c)].get())


def to_dense(table):
    """The whole table as a host (n+1) x (n+1) int64 array of V(i, c), upper triangle (for tests)."""
    N = table.n + 1
    values = _gpu.cupy().asnumpy(table.values).astype(np.int64)
    i, c = np.triu_indices(N, k=2)
    dense = np.zeros((N, N), dtype=np.int64)
    dense[i, c] = values[cell_index(table, i, c)]
    return dense


def trace_structure(table, codes_dev, pm):
    """The pair_to array (partner or -1) of the optimal structure, traced on the device."""
    cp = _gpu.cupy()
    n = table.n
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    layout = {"square": "SquareLayout", "packed": "PackedRowsLayout", "tiled": "TiledLayout<128>"}[table.layout]
    kernel = _kernel("nussinov_traceback.cu", f"traceback<{table.score_type}, {layout}>")
    stack = cp.empty((n + 2) * 2, dtype=np.int32)
    pair_to = cp.empty(n, dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    _launch(kernel, (1,), (1024,), (table.values, table.layout_arg, codes_dev, pm, np.int32(n), stack, pair_to, status))
    if int(status.get()[0]) != 0:
        raise RuntimeError("GPU traceback found no split reproducing a table value: the table is corrupt")
    return cp.asnumpy(pair_to)


# ---- many short sequences -----------------------------------------------------------------------

def fold_batch(codes_list, params, pm):
    """Fold sequences of at most BATCH_MAX_LEN nt, one block each, in one launch; scores and pair_to."""
    cp = _gpu.cupy()
    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    offsets = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = np.concatenate(codes_list).astype(np.uint8) if len(codes_list) else np.zeros(0, np.uint8)
    seqs_dev = cp.asarray(joined if joined.size else np.zeros(1, np.uint8))
    offsets_dev = cp.asarray(offsets)
    scores = cp.zeros(len(codes_list), dtype=np.int32)
    pair_to = cp.empty(max(1, int(offsets[-1])), dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    longest = int(lengths.max()) if lengths.size else 0
    shared = (longest + 1) * (longest + 2) // 2 * 2
    kernel = _kernel("nussinov_batch.cu", "batch_fold")
    kernel.max_dynamic_shared_size_bytes = max(shared, 1)
    _launch(kernel, (len(codes_list),), (256,), (seqs_dev, offsets_dev, pm, scores, pair_to, status), shared=shared)
    if int(status.get()[0]) != 0:
        raise RuntimeError("GPU batch traceback found no split reproducing a table value")
    scores_h, pair_h = cp.asnumpy(scores), cp.asnumpy(pair_to)
    return [(int(scores_h[k]), pair_h[offsets[k]:offsets[k + 1]].copy()) for k in range(len(codes_list))]


def fold_many(codes_list, params, *, variant=None, traceback=True):
    """Fold each sequence (uint8 codes) on the GPU: a list of (score in units, pair_to or None).

    With the default variant, sequences of up to BATCH_MAX_LEN nt are folded together in one launch;
    longer ones (and every sequence with a seed variant) one after another.
    """
    variant = variant or DEFAULT_VARIANT
    if variant not in VARIANTS:
        raise InvalidParameter(f"unknown GPU variant {variant!r}; choose one of {', '.join(VARIANTS)}")
    cp = _gpu.require_gpu()
    pm = _pair_model(cp, params)
    results = [None] * len(codes_list)
    if variant == "fast":
        short = [k for k, c in enumerate(codes_list)
                 if len(c) <= BATCH_MAX_LEN and _fast_score_type(len(c), params) == np.int16]
        if short:
            for k, result in zip(short, fold_batch([codes_list[k] for k in short], params, pm)):
                results[k] = (result[0], result[1] if traceback else None)
    for k, codes in enumerate(codes_list):
        if results[k] is not None:
            continue
        n = len(codes)
        check_fits(n, variant, params)
        codes_dev = cp.asarray(np.ascontiguousarray(codes, dtype=np.uint8)) if n else cp.zeros(1, np.uint8)
        table = fill(codes_dev, n, params, pm, variant)
        score = score_units(table)
        pairs = trace_structure(table, codes_dev, pm) if traceback else None
        results[k] = (score, pairs)
        del table
        cp.get_default_memory_pool().free_all_blocks()
    return results
