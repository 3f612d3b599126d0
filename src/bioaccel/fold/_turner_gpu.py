"""Turner 2004 MFE on the GPU (variant ``batch``): many short RNAs per launch, one thread block each.

Kernel: ``kernels/turner_batch.cu`` (with turner_fold.cuh, turner_energy.cuh): a block fills a
sequence's tables (diagonal-major, so that a diagonal's threads read coalesced) anti-diagonal by
anti-diagonal (a thread per cell, a ``__syncthreads`` per diagonal), computes the exterior loop and
traces one optimal structure on one warp with the CPU's tie-break, so energies and structures equal
:func:`._turner_cpu.mfe_many`'s; then it takes the launch's next sequence (a persistent grid).

Host side: the sequences are packed once in input order (results come back the same way, each
``pair_to`` a slice of one array); a launch takes the sequences (longest first) whose lengths lie within
a factor 2 of its longest, which picks the block width and the size of each block's tables. The tables
are never initialised: each cell writes all its entries. Sequences of fewer than 5 bases have no pair
and are not launched. Pure Python until :func:`fold` is called: importing this needs no GPU.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InternalError, InvalidParameter
from ..runtime.launch import LaunchSizes
from ._turner_tables import GENERIC, HAIRPIN, INT21, KERNEL_TABLE_SIZE, kernel_inputs, table_codes

#: Longest sequence the GPU batch takes: one block folds it alone (a 4,000-nt fill is 16 million
#: cells on one SM); longer ones go to the CPU, whose tiled fill uses every core.
MAX_GPU_LENGTH = 4000
#: Shortest sequence with a possible pair (a hairpin needs 3 unpaired bases).
MIN_PAIRED = 5
#: ints of a block's shared copy of the small energy tables (turner_energy.cuh SHARED_INTS)
SHARED_TABLE_INTS = INT21 + KERNEL_TABLE_SIZE - GENERIC
#: blocks of a launch per multiprocessor, at most: the most an SM holds at once (8 of 128 threads at 64
#: registers), and a few over, which only wait for the counter to run out
BLOCKS_PER_SM = 16


@dataclass(frozen=True)
class TurnerSizes(LaunchSizes):
    """Launch sizes of the Turner GPU batch (read from :data:`SIZES` at call time; the tests patch small
    ones, tests/conftest.py ``small_turner_sizes``).

    >>> SIZES.threads, SIZES.replace(threads=32).threads
    (256, 32)
    """

    threads: int = 256               # most threads of a block (a power of two: 32..1024)
    min_blocks: int = 4              # blocks of `threads` an SM must hold (caps the registers)
    table_bytes: int = 4 << 30       # device bytes of the tables (and traceback stacks) of one launch
    max_blocks: int = 1 << 20        # most sequences in one launch


SIZES = TurnerSizes()


def check_lengths(lengths) -> None:
    """Refuse, before any is folded, sequences longer than the GPU batch takes (InvalidParameter).

    >>> check_lengths([0, 300, 4000])
    >>> check_lengths([4001])
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: the longest sequence has 4,001 bases; the Turner GPU batch folds at most 4,000 (one thread block per sequence): fold longer ones with --backend cpu
    """
    longest = max(lengths, default=0)
    if longest > MAX_GPU_LENGTH:
        raise InvalidParameter(f"the longest sequence has {longest:,} bases; the Turner GPU batch folds at most "
                               f"{MAX_GPU_LENGTH:,} (one thread block per sequence): fold longer ones with "
                               "--backend cpu")


#: Seconds of the whole GPU per n^2 cells (the interior loops: a bounded number per cell) and per n^3
#: splits (the M2 minimum), and per call; fitted to the two rows of bench/turner.py --gpu on one H100,
#: end to end (2,000 x 1,000 nt in 1.75 s, 1,000,000 x 200 nt in 16.3 s; docs/turner.md).
CELL_SECONDS, SPLIT_SECONDS, LAUNCH_SECONDS = 2.9e-10, 5.8e-13, 2e-3


def estimate_seconds(lengths) -> float:
    """Rough time to fold sequences of these ``lengths`` on one GPU (no GPU needed to ask).

    >>> round(estimate_seconds([200] * 1_000_000)), round(estimate_seconds([1_000] * 2_000), 1)
    (16, 1.7)
    """
    n = np.asarray(list(lengths), dtype=np.float64)
    return float(LAUNCH_SECONDS + CELL_SECONDS * np.sum(n ** 2) + SPLIT_SECONDS * np.sum(n ** 3))


def sequence_ints(n, no_lp=False):
    """int32 words of one n-long sequence's device tables: c, cm, fm (and cc with no_lp), n x n each,
    the M2 ring (3 diagonals) and the traceback stack (2n + 4 entries of 3).

    >>> sequence_ints(200), sequence_ints(200) * 4 // 1024, sequence_ints(200, True) * 4 // 1024  # words, KiB
    (121812, 475, 632)
    """
    return (3 + bool(no_lp)) * n * n + 3 * n + 3 * (2 * n + 4)


def block_threads(longest, sizes):
    """Threads of a block whose launch's longest sequence is ``longest``: about one per two cells of the
    widest diagonal (n - 4 cells), a power of two from 32 to ``sizes.threads``.

    >>> [block_threads(n, SIZES) for n in (5, 60, 200, 1000)]
    [32, 32, 128, 256]
    """
    want = max(32, (longest - 4 + 1) // 2)
    return int(min(sizes.threads, max(32, 1 << (want - 1).bit_length())))


def hairpin_sizes(E, lxc, longest):
    """int32 ``hairpin[min(u, 30)] + (int)(lxc * log(u / 30.))`` for u = 0..longest (the extrapolation
    only above 30): the size term of every hairpin, made on the host with C's ``log`` (Python's is the
    same libm function the CPU fill calls), so the device never rounds a logarithm of its own.

    >>> E, lxc, _ = kernel_inputs(None)
    >>> hairpin_sizes(E, lxc, 40)[[3, 30, 31, 40]].tolist()
    [540, 770, 773, 801]
    """
    sizes = np.array(E[HAIRPIN + np.minimum(np.arange(longest + 1), 30)], dtype=np.int64)
    for u in range(31, longest + 1):
        sizes[u] += int(lxc * math.log(u / 30.0))
    return sizes.astype(np.int32)


def plan(lengths, sizes):
    """The launches of a batch: ``[(first, last, threads)]`` over the sequences sorted longest first
    (positions first..last-1 of that order), each launch's lengths within a factor 2 of its longest, at
    most ``sizes.max_blocks`` sequences.

    >>> plan(np.array([200, 180, 90, 60]), SIZES)
    [(0, 2, 128), (2, 4, 64)]
    >>> plan(np.array([200, 180, 90, 60]), SIZES.replace(max_blocks=1))[:2]
    [(0, 1, 128), (1, 2, 128)]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    launches, first = [], 0
    while first < len(lengths):
        longest = int(lengths[first])
        # lengths fall: the launch ends at the first shorter than half its longest
        halves = int(np.searchsorted(-lengths, -((longest + 1) // 2), side="right"))
        last = max(first + 1, min(halves, first + sizes.max_blocks))
        launches.append((first, last, block_threads(longest, sizes)))
        first = last
    return launches


def grid_blocks(count, longest, sizes, budget, multiprocessors, no_lp=False):
    """Blocks of a persistent launch of ``count`` sequences of at most ``longest`` bases: enough to fill
    the GPU (BLOCKS_PER_SM a multiprocessor), no more than sequences, their tables within ``budget``
    bytes (at least one block).

    >>> grid_blocks(1_000_000, 200, SIZES, 4 << 30, 132), grid_blocks(5, 200, SIZES, 4 << 30, 132)
    (2112, 5)
    >>> grid_blocks(100, 4000, SIZES, 4 << 30, 132), grid_blocks(100, 300, SIZES, 2 << 20, 132)
    (22, 1)
    """
    fits = budget // (4 * sequence_ints(longest, no_lp))
    return int(max(1, min(count, BLOCKS_PER_SM * multiprocessors, fits)))


def _device_codes(cp, joined):
    """The packed codes (bioaccel.inputs.alphabet) as the tables' codes, uint8 on the device: table_codes'
    (c + 1) % 5 done there in uint8 (a million 200-nt sequences: 200 MB, whose int64 arithmetic on the
    host took seconds), unless they are not uint8 codes 0..4, which table_codes converts or refuses."""
    if joined.dtype != np.uint8 or int(joined.max()) > 4:
        return cp.asarray(table_codes(joined).astype(np.uint8))
    codes = cp.asarray(joined)
    codes += np.uint8(1)
    codes %= np.uint8(5)
    return codes


def fold(codes_list, model=None, *, traceback=True) -> list:
    """``[(energy in dcal/mol, pair_to int64 or None)]`` of each sequence (bioaccel.inputs.alphabet codes),
    in input order; ``pair_to`` is None with ``traceback=False``. The ``pair_to`` arrays are consecutive
    slices of one array (no copy per sequence)."""
    if not len(codes_list):
        return []
    lengths = np.fromiter(map(len, codes_list), dtype=np.int64, count=len(codes_list))
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    energies, pairs = fold_packed(np.concatenate(codes_list), starts, model, traceback=traceback)
    energies = energies.tolist()
    if not traceback:
        return [(e, None) for e in energies]
    bounds = starts.tolist()
    return [(e, pairs[bounds[k]:bounds[k + 1]]) for k, e in enumerate(energies)]


def fold_packed(joined, starts, model=None, *, traceback=True):
    """``(energies in dcal/mol (int64), pair_to (int64, back to back, 0-based within each sequence) or
    None)`` of packed sequences: sequence k is ``joined[starts[k]:starts[k + 1]]`` (alphabet codes)."""
    from ..runtime import gpu as _gpu

    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(starts)
    check_lengths([int(lengths.max(initial=0))])
    return _fold_packed(_gpu, joined, lengths, starts, model, traceback)


def _fold_packed(_gpu, joined, lengths, starts, model, traceback):
    """Energies (int64) of the sequences, and their pair_to back to back (int64, starts) or None."""
    total = int(starts[-1])
    launched = np.flatnonzero(lengths >= MIN_PAIRED)
    if not len(launched):
        return np.zeros(len(lengths), dtype=np.int64), np.full(total, -1, dtype=np.int64) if traceback else None
    cp = _gpu.require_gpu()
    sizes = SIZES
    order = launched[np.argsort(-lengths[launched], kind="stable")]
    sorted_lengths = lengths[order]
    codes_dev = _device_codes(cp, np.asarray(joined))
    E, lxc, no_lp = kernel_inputs(model)
    E_dev = cp.asarray(E)
    hp_dev = cp.asarray(hairpin_sizes(E, lxc, int(sorted_lengths[0])))
    starts_dev = cp.asarray(starts)
    ids_dev = cp.asarray(order.astype(np.int32))
    energies = cp.zeros(len(lengths), dtype=np.int32)
    pairs = cp.full(total if traceback else 1, -1, dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    launches = plan(sorted_lengths, sizes)
    counters = cp.zeros(len(launches), dtype=np.int32)
    budget = min(sizes.table_bytes, _gpu.free_memory() // 2)
    multiprocessors = _gpu.multiprocessors()
    grids = [grid_blocks(last - first, int(sorted_lengths[first]), sizes, budget, multiprocessors, no_lp)
             for first, last, _ in launches]
    tables = cp.empty(max(g * sequence_ints(int(sorted_lengths[a]), no_lp) for g, (a, _, _) in zip(grids, launches)),
                      dtype=np.int32)
    fill = _gpu.kernel("bioaccel.fold.kernels", "turner_batch.cu", "turner_fold", (sizes.threads, sizes.min_blocks))
    for at, ((first, last, threads), blocks) in enumerate(zip(launches, grids)):
        longest = int(sorted_lengths[first])
        shared = 4 * (SHARED_TABLE_INTS + longest + 1) + (longest + 3) // 4 * 4
        fill((blocks,), (threads,),
             (E_dev, hp_dev, codes_dev, starts_dev, ids_dev, np.int32(first), np.int32(last - first),
              counters[at:], tables, np.int64(sequence_ints(longest, no_lp)), np.int32(no_lp),
              np.int32(bool(traceback)), energies, pairs, status), shared_mem=shared)
    if int(status.get()[0]) != 0:
        raise InternalError("the Turner GPU traceback found a table value no case of the recurrence reproduces")
    return cp.asnumpy(energies).astype(np.int64), cp.asnumpy(pairs.astype(np.int64)) if traceback else None
