"""Turner 2004 MFE of one long RNA on the GPU (variant ``tiled``; kernels/turner_tiled.cu and .cuh).

The CPU's tiled fill (:mod:`._turner_fill`) on the GPU: the CPU's three row-major n x n int32 tables (C
and C + its inner mismatch, FML and its transposed copy, M2 and noLP's CC) in device memory, filled
tile-diagonal by tile-diagonal, two launches each: the multiloop's O(n^3) part as a min-plus product of
finished tiles (DPX add-then-min, 8 x 8 cells a thread, the k range split over blocks where the
diagonal has few tiles), then one block per tile finishing its cells anti-diagonal by anti-diagonal with
the CPU's cell update. Then the exterior loop by chunks of positions, and the traceback on one warp with
the CPU's tie-break; only the energy and ``pair_to`` come back. Every table value equals the CPU's
(tests/test_turner_tiled_host.py checks the device code built on the host; tests/test_turner_gpu.py
the GPU), so energies and structures are the CPU's.

Memory: 12 n^2 bytes (3.6 GB a table at 29,903 nt, 10.7 GB in all), refused up front where it would not
fit the GPU (:func:`check_fits`). Pure Python until :func:`fold_one` runs: importing this needs no GPU.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InternalError, InvalidParameter, ResourceError
from ..runtime import gpu as _gpu
from ..runtime.launch import LaunchSizes
from ..runtime.memory import format_bytes
from ._turner_gpu import MAX_GPU_LENGTH, SHARED_TABLE_INTS, _device_codes, hairpin_sizes
from ._turner_tables import GENERIC, INFINITE, INT21, MAX_LENGTH, MAX_LOOP, kernel_inputs

#: The generic interior loops' (u1, u2) the finish keeps in shared memory (turner_energy.cuh GENERIC_PAIRS).
GENERIC_PAIRS = (MAX_LOOP - 3) * (MAX_LOOP - 2) // 2
#: Share of the GPU's free memory one fold may take.
GPU_MEMORY_FRACTION = 0.9


@dataclass(frozen=True)
class TiledSizes(LaunchSizes):
    """Launch sizes of the tiled Turner fill (read from :data:`SIZES` at call time; the tests patch small
    ones, tests/conftest.py ``small_turner_tiled_sizes``).

    >>> SIZES.tile, SIZES.replace(tile=16).tile
    (64, 16)
    """

    tile: int = 64             # tile edge (a multiple of 8: the product's threads hold 8 x 8 cells)
    stage: int = 16            # splits k of a product stage (stage * tile a multiple of (tile / 8)^2)
    exterior: int = 1024       # positions of an exterior-loop chunk (one block: at most 1024)
    blocks_per_sm: int = 3     # product blocks a launch aims at per multiprocessor
    min_chunk: int = 256       # fewest splits k a product block takes when the k range is split
    product_min_blocks: int = 1  # product blocks an SM must hold (caps their registers)
    finish_lanes: int = 8      # threads of the finish sharing a cell (a power of two, tile x lanes <= 1024)
    rows: int = 1              # the products' minima by rows (turner_bulk_rows; 0: cell by cell, turner_bulk); issue 29
                               # item 2 (turnerrows, H200): 16,000 nt fill 0.4010-0.4015 s against 0.4018-0.4021


SIZES = TiledSizes()


def device_bytes(n, sizes=None) -> int:
    """Device bytes of one n-long fold: the three n x n int32 tables, the products' scratch tiles, and
    the sequence-long vectors (codes, hairpin sizes, f, best, pair_to, traceback stack).

    >>> round(device_bytes(29_903) / 1e9, 1), device_bytes(1_000, SIZES.replace(tile=16)) // 1024
    (10.7, 11821)
    """
    sizes = sizes or SIZES
    tiles = math.ceil(n / sizes.tile)
    return 12 * n * n + 4 * tiles * sizes.tile ** 2 + 4 * (n + 1) * 4 + n + 12 * (2 * n + 4)


def check_fits(n, free_bytes) -> None:
    """Refuse (ResourceError), before anything is allocated, a fold whose tables will not fit in
    ``free_bytes`` of device memory (GPU_MEMORY_FRACTION of them).

    >>> check_fits(29_903, 80 << 30)
    >>> check_fits(100_000, 80 << 30)
    Traceback (most recent call last):
    ...
    bioaccel.errors.ResourceError: folding a sequence of length 100,000 on the GPU needs about 111.8 GiB of device memory (three n x n int32 tables) but only 80.0 GiB is free; fold it with --backend cpu on a machine with enough memory, or fold shorter pieces (a window)
    """
    need = device_bytes(n)
    if need > GPU_MEMORY_FRACTION * free_bytes:
        raise ResourceError(f"folding a sequence of length {n:,} on the GPU needs about {format_bytes(need)} of "
                            f"device memory (three n x n int32 tables) but only {format_bytes(free_bytes)} is "
                            "free; fold it with --backend cpu on a machine with enough memory, or fold shorter "
                            "pieces (a window)")


def product_plan(n, diagonal, sizes, blocks_wanted):
    """``(tiles, splits, chunk)`` of the product launch of tile-diagonal ``diagonal`` >= 1: its tiles, the
    blocks each tile's k range (``(diagonal - 1) tile + 1`` splits) is cut into, enough to give the GPU
    ``blocks_wanted`` blocks but none under ``sizes.min_chunk`` splits, and the splits of each block (a
    multiple of ``sizes.stage``).

    >>> product_plan(29_903, 1, SIZES, 396), product_plan(29_903, 467, SIZES, 396)
    ((467, 1, 16), (1, 110, 272))
    """
    T = sizes.tile
    tiles = math.ceil(n / T) - diagonal
    count = (diagonal - 1) * T + 1
    splits = max(1, min(math.ceil(blocks_wanted / tiles), count // sizes.min_chunk))
    chunk = math.ceil(math.ceil(count / splits) / sizes.stage) * sizes.stage
    return tiles, math.ceil(count / chunk), chunk


def kernel_names(sizes) -> tuple:
    """The name expressions of turner_tiled.cu's kernels for these sizes, compiled together: both forms of the
    products (cell by cell and by rows, :attr:`TiledSizes.rows`), so that either setting costs no second compile.

    >>> kernel_names(SIZES)[:3]
    ('turner_bulk<64, 16, 1>', 'turner_bulk_rows<64, 16, 1>', 'turner_finish<64, 8>')
    """
    from ..runtime.launch import expression

    products = (sizes.tile, sizes.stage, sizes.product_min_blocks)
    return (expression("turner_bulk", products), expression("turner_bulk_rows", products),
            expression("turner_finish", (sizes.tile, sizes.finish_lanes)),
            "turner_exterior_bulk", "turner_exterior_chunk", "turner_tiled_trace")


def _kernels(sizes):
    """The five kernels of turner_tiled.cu for these sizes (the products in the form ``sizes.rows`` picks), from
    one NVRTC compile (each costs seconds)."""
    names = kernel_names(sizes)
    module = _gpu.load_module("bioaccel.fold.kernels", "turner_tiled.cu", names)
    products = names[1] if sizes.rows else names[0]
    return tuple(module.get_function(name) for name in (products,) + names[2:])


def fill_tables(cp, codes_dev, n, E_dev, hp_dev, no_lp, sizes=None, phases=None):
    """The three tables ``(c, fm, m2)`` of the n-long sequence ``codes_dev`` (table codes, uint8 on the
    device), filled as the CPU fills them (cupy arrays, n x n int32). ``phases`` (benchmarks): a dict
    that gets the seconds of the products and of the finishes, from device events around each launch."""
    sizes = sizes or SIZES
    T = sizes.tile
    bulk, finish, _, _, _ = _kernels(sizes)
    c, fm, m2 = (_gpu.filled(n * n, INFINITE, np.int32).reshape(n, n) for _ in range(3))   # 16 bytes a store
    tiles = math.ceil(n / T)
    scratch = _gpu.filled(tiles * T * T, INFINITE, np.int32)
    sms = _gpu.multiprocessors()
    shared = 4 * (SHARED_TABLE_INTS + GENERIC_PAIRS)
    n_, lp = np.int32(n), np.int32(no_lp)
    events = []
    for d in range(tiles):
        if phases is not None:
            events.append(cp.cuda.Event())
            events[-1].record()
        if d:
            count, splits, chunk = product_plan(n, d, sizes, sizes.blocks_per_sm * sms)
            bulk((count, splits), ((T // 8) ** 2,), (fm, scratch, n_, np.int32(d), np.int32(chunk)))
        if phases is not None:
            events.append(cp.cuda.Event())
            events[-1].record()
        finish((tiles - d,), (T * sizes.finish_lanes,),
               (E_dev, hp_dev, codes_dev, n_, np.int32(d), lp, c, fm, m2, scratch), shared_mem=shared)
    if phases is not None:
        events.append(cp.cuda.Event())
        events[-1].record()
        events[-1].synchronize()
        times = [cp.cuda.get_elapsed_time(a, b) / 1e3 for a, b in zip(events, events[1:])]
        phases["products_s"] = sum(times[0::2])
        phases["finishes_s"] = sum(times[1::2])
    return c, fm, m2


def fold_one(codes, model=None, *, traceback=True, sizes=None):
    """``(energy in dcal/mol, pair_to int64 or None)`` of one sequence (bioaccel.inputs.alphabet codes), the
    CPU's (:func:`._turner_cpu.mfe`) energy and structure."""
    from ..runtime import gpu as _gpu

    sizes = sizes or SIZES
    n = len(codes)
    if n < 5:  # no pair possible (a hairpin needs 3 unpaired bases)
        return 0, (np.full(n, -1, dtype=np.int64) if traceback else None)
    cp = _gpu.require_gpu()
    check_fits(n, _gpu.free_memory())
    E, lxc, no_lp = kernel_inputs(model)
    E_dev = cp.asarray(E)
    # the small tables in the form the finish stages into shared memory, for the kernels that read them
    # from global memory (the exterior loop's)
    Es_dev = cp.asarray(np.concatenate([E[:INT21], E[GENERIC:]]).astype(np.int32))
    hp_dev = cp.asarray(hairpin_sizes(E, lxc, n))
    codes_dev = _device_codes(cp, np.ascontiguousarray(codes))
    c, fm, m2 = fill_tables(cp, codes_dev, n, E_dev, hp_dev, no_lp, sizes)
    _, _, ext_bulk, ext_chunk, trace = _kernels(sizes)
    f = cp.zeros(n + 1, dtype=np.int32)
    best = cp.full(n + 1, INFINITE, dtype=np.int32)
    n_ = np.int32(n)
    W, K = sizes.exterior, 512
    for t0 in range(0, n, W):
        t1 = min(t0 + W, n)
        ext_bulk((math.ceil((t1 - t0) / 256), math.ceil((t0 + 1) / K)), (256,),
                 (E_dev, Es_dev, codes_dev, n_, c, f, best, np.int32(t0), np.int32(t1), np.int32(K)))
        ext_chunk((1,), (t1 - t0,), (E_dev, Es_dev, codes_dev, n_, c, f, best, np.int32(t0), np.int32(t1)))
    energy = int(f[n].get())
    if not traceback:
        return energy, None
    pair_to = cp.full(n, -1, dtype=np.int32)
    stack = cp.empty(3 * (2 * n + 4), dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    trace((1,), (32,), (E_dev, hp_dev, codes_dev, n_, np.int32(no_lp), c, fm, m2, f, stack, pair_to, status))
    if int(status.get()[0]):
        raise InternalError("the Turner GPU traceback found a table value no case of the recurrence reproduces")
    return energy, cp.asnumpy(pair_to).astype(np.int64)


def goes_tiled(n, variant) -> bool:
    """Whether an n-long sequence is folded by the tiled fill: always with variant ``tiled``; with
    ``batch`` (the GPU's default) when it is longer than the batch takes.

    >>> goes_tiled(4_000, "batch"), goes_tiled(4_001, "batch"), goes_tiled(200, "tiled")
    (False, True, True)
    """
    return variant == "tiled" or n > MAX_GPU_LENGTH


def check_lengths(lengths, variant) -> None:
    """Refuse, before any is folded, a sequence the GPU will not fold: longer than the fill accepts
    (InvalidParameter), or, where a GPU is here, whose tables will not fit its free memory
    (ResourceError, :func:`check_fits`).

    >>> check_lengths([300_001], "batch")
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: the longest sequence has 300,001 bases; the fold accepts at most 300,000 (its int32 tables keep every energy far from their infinity up to there)
    """
    from ..runtime import gpu as _gpu

    tiled = [n for n in lengths if goes_tiled(n, variant)]
    if not tiled:
        return
    n = max(tiled)
    if n > MAX_LENGTH:
        raise InvalidParameter(f"the longest sequence has {n:,} bases; the fold accepts at most {MAX_LENGTH:,} (its "
                               "int32 tables keep every energy far from their infinity up to there)")
    if _gpu.gpu_available():
        check_fits(n, _gpu.free_memory())


#: Seconds of the tiled fill per n^2 cells (the finishes), per n^3 / 6 splits (the products) and per
#: tile-diagonal, on one H100: bench/turner.py --gpu-long, 29,903 nt in 1.54 s end to end (products
#: 0.55 s, finishes 0.91 s; docs/gpu-notes.md).
CELL_SECONDS, SPLIT_SECONDS, DIAGONAL_SECONDS = 1e-9, 1.2e-13, 1e-4


def estimate_seconds(lengths, variant) -> float:
    """Rough time of these ``lengths`` on one GPU: the tiled ones each alone, the others by the batch.

    >>> round(estimate_seconds([29_903], "batch"), 1) > 0, estimate_seconds([], "batch") >= 0
    (True, True)
    """
    from ._turner_gpu import estimate_seconds as batch_seconds

    tiled = [float(n) for n in lengths if goes_tiled(n, variant)]
    seconds = sum(CELL_SECONDS * n * n + SPLIT_SECONDS * n ** 3 / 6 + DIAGONAL_SECONDS * n / SIZES.tile
                  for n in tiled)
    short = [n for n in lengths if not goes_tiled(n, variant)]
    return seconds + (batch_seconds(short) if short else 0.0)


def fold(codes_list, model, variant, traceback) -> list:
    """``[(energy in dcal/mol, pair_to or None)]`` of each sequence, in input order: those of
    :func:`goes_tiled` one at a time by the tiled fill, the others together by the batch."""
    from ._turner_gpu import fold as batch_fold

    results = [None] * len(codes_list)
    short = [k for k, codes in enumerate(codes_list) if not goes_tiled(len(codes), variant)]
    if short:
        for k, result in zip(short, batch_fold([codes_list[k] for k in short], model, traceback=traceback)):
            results[k] = result
    for k, codes in enumerate(codes_list):
        if results[k] is None:
            results[k] = fold_one(codes, model, traceback=traceback)
    return results
