"""Nussinov folding on an NVIDIA GPU (CuPy; kernels in fold/kernels/*.cu): sizes, dispatch, batches.

Each variant's fill lives in its own module (:mod:`._gpu_tiled`, bioaccel's; :mod:`._gpu_seed`, the
papers'); every one is exact and gives the CPU's scores and structures. The traceback runs on the
device over the table (:mod:`._gpu_table`), with the rule of fold/_traceback.py. Short sequences are
folded many per launch, one block each, traceback included (kernels/nussinov_batch.cu).
"""
import numpy as np

from .. import _gpu
from ..errors import InternalError, ResourceError
from . import _launch
from ._gpu_seed import fill_blocked, fill_diagonal
from ._gpu_table import kernel, pair_model, score_units, trace_structure
from ._gpu_tiled import fill_tiled

BATCH_MAX_LEN = 256             # nussinov_batch.cu: longest sequence folded in shared memory
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


def fold_batch(codes_list, params, pm):
    """Fold sequences of at most BATCH_MAX_LEN nt, one block each, in one launch; scores and pair_to."""
    cp = _gpu.cupy()
    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    offsets = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=offsets[1:])
    joined = np.concatenate(codes_list).astype(np.uint8) if len(codes_list) else np.zeros(0, np.uint8)
    seqs_dev = cp.asarray(joined if joined.size else np.zeros(1, np.uint8))
    offsets_dev = cp.asarray(offsets)
    scores = cp.full(len(codes_list), -1, dtype=np.int32)
    pair_to = cp.empty(max(1, int(offsets[-1])), dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    longest = int(lengths.max()) if lengths.size else 0
    shared = (longest + 1) * (longest + 2) // 2 * 2
    threads = _launch.SIZES.batch_threads
    batch = kernel("nussinov_batch.cu", f"batch_fold<{threads}>")
    batch.max_dynamic_shared_size_bytes = max(shared, 1)
    batch((len(codes_list),), (threads,), (seqs_dev, offsets_dev, pm, scores, pair_to, status), shared_mem=shared)
    if int(status.get()[0]) != 0:
        raise InternalError("the GPU batch traceback found a table value no split reproduces")
    scores_h, pair_h = cp.asnumpy(scores), cp.asnumpy(pair_to)
    if np.any(scores_h < 0):
        raise InternalError("the GPU batch kernel left a sequence without a score")
    return [(int(scores_h[k]), pair_h[offsets[k]:offsets[k + 1]].copy()) for k in range(len(codes_list))]


def fold_many(codes_list, params, *, variant="tiled", traceback=True):
    """Fold each sequence (uint8 codes) on the GPU: a list of (score in units, pair_to or None).

    With the ``tiled`` variant, sequences of up to BATCH_MAX_LEN nt are folded together in one launch;
    longer ones (and every sequence with a paper's variant) one after another.
    """
    cp = _gpu.require_gpu()
    pm = pair_model(cp, params)
    results = [None] * len(codes_list)
    if variant == "tiled":
        short = [k for k, c in enumerate(codes_list)
                 if len(c) <= BATCH_MAX_LEN and params.cell_dtype(len(c)) == np.int16]
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
        results[k] = (score_units(table), trace_structure(table, codes_dev, pm) if traceback else None)
        del table
        cp.get_default_memory_pool().free_all_blocks()
    return results
