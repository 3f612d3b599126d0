"""Turner 2004 MFE on the GPU (variant ``batch``): many short RNAs per launch, one thread block each.

Kernel: ``kernels/turner_batch.cu`` (with turner_fold.cuh, turner_energy.cuh): block b fills its
sequence's three n x n int32 tables anti-diagonal by anti-diagonal (a thread per cell, a
``__syncthreads`` per diagonal), the exterior loop on one warp, then traces one optimal structure with
the CPU's tie-break, so energies and structures equal :func:`._turner_cpu.mfe_many`'s.

Host side: the sequences are packed once, longest first, and cut into launches whose tables fit
``SIZES.table_bytes`` (and half the free device memory); a launch holds lengths within a factor 2 of
its longest, whose length picks the block width. The tables, one buffer reused by every launch, are
never initialised: each cell writes all six of its entries. Sequences of fewer than 5 bases have no
pair and are not launched. Pure Python until :func:`fold` is called: importing this needs no GPU.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InternalError, InvalidParameter
from ..runtime.launch import LaunchSizes
from ._turner_tables import HAIRPIN, kernel_inputs, table_codes

#: Longest sequence the GPU batch takes: one block folds it alone (a 4,000-nt fill is 16 million
#: cells on one SM); longer ones go to the CPU, whose tiled fill uses every core.
MAX_GPU_LENGTH = 4000
#: Shortest sequence with a possible pair (a hairpin needs 3 unpaired bases).
MIN_PAIRED = 5


@dataclass(frozen=True)
class TurnerSizes(LaunchSizes):
    """Launch sizes of the Turner GPU batch (read from :data:`SIZES` at call time; the tests patch small
    ones, tests/conftest.py ``small_turner_sizes``).

    >>> SIZES.threads, SIZES.replace(threads=32).threads
    (256, 32)
    """

    threads: int = 256               # most threads of a block (a power of two: 32..1024)
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
#: end to end (2,000 x 1,000 nt in 3.0 s, 1,000,000 x 200 nt in 34.6 s; docs/turner.md).
CELL_SECONDS, SPLIT_SECONDS, LAUNCH_SECONDS = 7.0e-10, 8.0e-13, 2e-3


def estimate_seconds(lengths) -> float:
    """Rough time to fold sequences of these ``lengths`` on one GPU (no GPU needed to ask).

    >>> round(estimate_seconds([200] * 1_000_000)), round(estimate_seconds([1_000] * 2_000), 1)
    (34, 3.0)
    """
    n = np.asarray(list(lengths), dtype=np.float64)
    return float(LAUNCH_SECONDS + CELL_SECONDS * np.sum(n ** 2) + SPLIT_SECONDS * np.sum(n ** 3))


def sequence_ints(n):
    """int32 words of one n-long sequence's device tables: c, fm, m2 (n x n each), then the traceback
    stack (2n + 4 entries of 3).

    >>> sequence_ints(200), sequence_ints(200) * 4 // 1024   # words, KiB
    (121212, 473)
    """
    return 3 * n * n + 3 * (2 * n + 4)


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


def plan(lengths, sizes, budget):
    """The launches of a batch: ``[(first, last, threads)]`` over the sequences sorted longest first
    (positions first..last-1 of that order), each launch's tables within ``budget`` bytes, its lengths
    within a factor 2 of its longest, at most ``sizes.max_blocks`` sequences.

    >>> plan(np.array([200, 180, 90, 60]), SIZES, 2 * 4 * sequence_ints(200))
    [(0, 2, 128), (2, 4, 64)]
    """
    lengths = np.asarray(lengths, dtype=np.int64)
    cum = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(4 * sequence_ints(lengths), out=cum[1:])
    launches, first = [], 0
    while first < len(lengths):
        longest = int(lengths[first])
        # lengths fall: the launch ends at the first shorter than half its longest, or over the budget
        halves = int(np.searchsorted(-lengths, -((longest + 1) // 2), side="right"))
        fits = int(np.searchsorted(cum, cum[first] + budget, side="right")) - 1
        last = max(first + 1, min(halves, fits, first + sizes.max_blocks))
        launches.append((first, last, block_threads(longest, sizes)))
        first = last
    return launches


def fold(codes_list, model=None, *, traceback=True) -> list:
    """``[(energy in dcal/mol, pair_to int64 or None)]`` of each sequence (bioaccel.inputs.alphabet codes),
    in input order; ``pair_to`` is None with ``traceback=False``."""
    from ..runtime import gpu as _gpu

    lengths = np.fromiter(map(len, codes_list), dtype=np.int64, count=len(codes_list))
    check_lengths(lengths.tolist())
    energies = np.zeros(len(codes_list), dtype=np.int64)
    pair_to = [np.full(int(n), -1, dtype=np.int64) for n in lengths] if traceback else None
    launched = np.flatnonzero(lengths >= MIN_PAIRED)
    if len(launched):
        order = launched[np.argsort(-lengths[launched], kind="stable")]
        found, pairs, starts = _fold_sorted(_gpu, [codes_list[k] for k in order.tolist()], lengths[order], model,
                                            traceback)
        energies[order] = found
        if traceback:
            for at, k in enumerate(order.tolist()):
                pair_to[k] = pairs[starts[at]:starts[at + 1]].astype(np.int64)
    return [(int(e), pair_to[k] if traceback else None) for k, e in enumerate(energies.tolist())]


def _fold_sorted(_gpu, codes_sorted, lengths, model, traceback):
    """Energies (int32), packed pair_to (int32) and starts of sequences sorted longest first."""
    cp = _gpu.require_gpu()
    sizes = SIZES
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    codes = table_codes(np.concatenate(codes_sorted)).astype(np.uint8)
    E, lxc, no_lp = kernel_inputs(model)
    E_dev = cp.asarray(E)
    hp_dev = cp.asarray(hairpin_sizes(E, lxc, int(lengths[0])))
    codes_dev = cp.asarray(codes)
    starts_dev = cp.asarray(starts)
    energies = cp.zeros(len(lengths), dtype=np.int32)
    pairs = cp.full(max(int(starts[-1]), 1), -1, dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    budget = max(4 * sequence_ints(int(lengths[0])), min(sizes.table_bytes, _gpu.free_memory() // 2))
    launches = plan(lengths, sizes, budget)
    most = max(int(sequence_ints(lengths[a:b]).sum()) for a, b, _ in launches)
    tables = cp.empty(most, dtype=np.int32)
    for first, last, threads in launches:
        words = sequence_ints(lengths[first:last])
        offsets = np.zeros(last - first, dtype=np.int64)
        np.cumsum(words[:-1], out=offsets[1:])
        fill = _gpu.kernel("bioaccel.fold.kernels", "turner_batch.cu", "turner_fold", (sizes.threads,))
        longest = int(lengths[first])
        shared = 4 * (longest + 1) + (longest + 3) // 4 * 4
        fill((last - first,), (threads,),
             (E_dev, hp_dev, codes_dev, starts_dev, np.int32(first), cp.asarray(offsets), tables,
              np.int32(no_lp), np.int32(bool(traceback)), energies, pairs, status), shared_mem=shared)
    if int(status.get()[0]) != 0:
        raise InternalError("the Turner GPU traceback found a table value no case of the recurrence reproduces")
    return cp.asnumpy(energies), cp.asnumpy(pairs) if traceback else None, starts
