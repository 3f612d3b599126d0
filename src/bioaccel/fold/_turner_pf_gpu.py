"""McCaskill's partition function and base-pair probabilities of the Turner 2004 model on the GPU, in
FP64, for many short RNAs per launch (variant ``batch`` of the partition function): one thread block per
sequence, as the MFE batch (:mod:`._turner_gpu`) folds them.

Kernel: ``kernels/turner_pf_batch.cu`` with ``turner_pf.cuh`` (the cells of the inside and the outside,
the recurrences of docs/mccaskill.md, the MFE's diagonal-major layout and table offsets; tests build the
same cells for the host and compare them with the CPU's). The Boltzmann factors are the CPU's
(:func:`._turner_pf_params.boltzmann_tables`), made on the host and uploaded; each base weighs the CPU's
default scale, and a sequence whose scaled Z leaves (e^-500, e^500) is redone with the CPU's corrected
scale (bisection on over- or underflow, then the exact one), so no length overflows.

What comes back, per sequence: ln Z, the ensemble diversity and the centroid's expected distance (sums
over every pair, on the device), and the probabilities of at least ``cutoff`` as one sorted sparse list
(``cutoff=0``: every non-zero one, the CPU's matrix). Sequences are taken longest first, in launches of
lengths within a factor 2 (the MFE batch's plan); the pair list of a group of launches that overflows
its buffer is redone in halves. ``TurnerModel.partition_gpu`` (``ensemble(..., backend="gpu")``, ``bioaccel
fold -p --backend gpu``) sends the sequences up to 4,000 nt here (:func:`partition_many`) and longer ones
to the long path (:mod:`._turner_pf_long_gpu`). Pure Python until called: importing this needs no GPU.

>>> round(block_doubles(200) * 8 / 2 ** 20, 2)            # MiB of one block's tables at 200 nt
2.79
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameter, ResourceError
from ..runtime.memory import format_bytes
from ._turner_gpu import MAX_GPU_LENGTH      # the longest the batch takes, as the MFE batch's
from ._turner_pf_launch import block_doubles

#: Shortest sequence with a possible pair; shorter ones have Z = 1 and are not launched
MIN_PAIRED = 5
#: fills tried per sequence before giving up on a scale (as the CPU's MAX_REFILLS)
MAX_REFILLS = 24
#: bytes of a listed pair: its key (int64) and probability (float64), and the sort's copies
PAIR_BYTES = 32
#: the part of the free device memory a call may use
GPU_MEMORY_FRACTION = 0.85


def check_lengths(lengths) -> None:
    """Refuse sequences longer than the batch takes (InvalidParameter), before any is computed.

    >>> check_lengths([3, 200, 4000])
    >>> check_lengths([4001])
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: the longest sequence has 4,001 bases; the GPU partition function batch takes at most 4,000 (one thread block per sequence): longer ones take the long path (TurnerModel.partition_gpu)
    """
    longest = max(lengths, default=0)
    if longest > MAX_GPU_LENGTH:
        raise InvalidParameter(f"the longest sequence has {longest:,} bases; the GPU partition function batch takes "
                               f"at most {MAX_GPU_LENGTH:,} (one thread block per sequence): longer ones take the "
                               "long path (TurnerModel.partition_gpu)")


def device_bytes(lengths, per_pair: float = 0.0) -> int:
    """The least device memory a batch needs: one block's tables for the longest sequence, the packed
    sequences and per-sequence results, and ``per_pair`` listed pairs per cell (the pair list's share).

    >>> format_bytes(device_bytes([200] * 100_000))
    '28.0 MiB'
    """
    lengths = np.asarray(list(lengths), dtype=np.int64)
    longest = int(lengths.max(initial=0))
    cells = float(np.sum(lengths * lengths)) / 2
    return int(8 * block_doubles(longest) + int(lengths.sum()) + 64 * len(lengths) + per_pair * cells * PAIR_BYTES)


def check_fits(lengths, free_bytes) -> None:
    """Refuse (ResourceError, with the estimate) a batch whose least memory will not fit in ``free_bytes``.

    >>> check_fits([200] * 1000, 80 << 30)
    >>> check_fits([4000] * 2, 1 << 30)
    Traceback (most recent call last):
    ...
    bioaccel.errors.ResourceError: the GPU partition function of a sequence of length 4,000 needs about 1.1 GiB of device memory (nine n x n float64 tables) but only 1.0 GiB is free; use --backend cpu, or a GPU with more memory
    """
    need = device_bytes(lengths)
    if need > GPU_MEMORY_FRACTION * free_bytes:
        longest = max(lengths)
        raise ResourceError(f"the GPU partition function of a sequence of length {longest:,} needs about "
                            f"{format_bytes(need)} of device memory (nine n x n float64 tables) but only "
                            f"{format_bytes(free_bytes)} is free; use --backend cpu, or a GPU with more memory")


def base_log_scale(temperature: float, kT: float) -> float:
    """ln of one base's weight by default: the CPU's (ViennaRNA's) uniform scale from -0.185 kcal/mol per
    base at 37 C, sfact 1.07.

    >>> round(base_log_scale(37.0, 616.3208), 4)
    -0.3212
    """
    from ._turner_pf_cpu import SFACT

    return SFACT * (-185 + (temperature - 37.0) * 7.27) / kT


@dataclass
class PartitionBatch:
    """The partition functions of a batch, in input order: ``log_z`` (natural log of Z), ``diversity``
    (2 sum p (1 - p)) and ``centroid_distance`` (sum of p > 0.5 ? 1 - p : p), over every pair; the pairs of
    probability at least the cutoff as sorted flat arrays ``i``, ``j`` (0-based, i < j), ``p``, sequence
    k's at ``offsets[k]:offsets[k + 1]``.

    >>> b = PartitionBatch(np.zeros(1), np.zeros(1), np.zeros(1), np.array([0, 1]), np.array([0]),
    ...                    np.array([4]), np.array([0.25]))
    >>> float(b.dense(0, 5)[0, 4]), len(b)
    (0.25, 1)
    """

    log_z: np.ndarray
    diversity: np.ndarray
    centroid_distance: np.ndarray
    offsets: np.ndarray
    i: np.ndarray
    j: np.ndarray
    p: np.ndarray

    def __len__(self) -> int:
        return len(self.log_z)

    def dense(self, k: int, n: int) -> np.ndarray:
        """Sequence k's n x n probabilities (those listed; zero elsewhere)."""
        P = np.zeros((n, n))
        a, b = int(self.offsets[k]), int(self.offsets[k + 1])
        P[self.i[a:b], self.j[a:b]] = self.p[a:b]
        return P


def partition(codes_list, model=None, *, cutoff: float = 0.0, want_bpp: bool = True) -> PartitionBatch:
    """The :class:`PartitionBatch` of the sequences (bioaccel.inputs.alphabet codes), in input order;
    ``want_bpp=False``: ln Z only (no outside, no pairs)."""
    lengths = np.fromiter(map(len, codes_list), dtype=np.int64, count=len(codes_list))
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    joined = np.concatenate(codes_list) if len(codes_list) else np.zeros(0, np.uint8)
    return partition_packed(joined, starts, model, cutoff=cutoff, want_bpp=want_bpp)


def partition_packed(joined, starts, model=None, *, cutoff: float = 0.0, want_bpp: bool = True) -> PartitionBatch:
    """:func:`partition` of packed sequences: sequence k is ``joined[starts[k]:starts[k + 1]]``."""
    from ..runtime import gpu as _gpu
    from . import _turner_pf_launch as launch

    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(starts)
    count = len(lengths)
    check_lengths([int(lengths.max(initial=0))])
    if not 0.0 <= cutoff <= 1.0:
        raise InvalidParameter(f"the probability cutoff must lie in [0, 1], got {cutoff}")
    log_z, sums = np.zeros(count), np.zeros((count, 2))
    launched = np.flatnonzero(lengths >= MIN_PAIRED)
    empty = np.zeros(0, np.int64)
    if not len(launched):
        return PartitionBatch(log_z, sums[:, 0], sums[:, 1], np.zeros(count + 1, np.int64), empty, empty, np.zeros(0))
    cp = _gpu.require_gpu()
    check_fits(lengths[launched].tolist(), _gpu.free_memory())
    run = launch.Launcher(cp, _gpu, joined, starts, model, cutoff, want_bpp, launch.SIZES)
    scale = np.full(count, base_log_scale(run.temperature, run.kT))
    estimate = scale * lengths * run.kT / 10.0 / _sfact()          # the CPU's estimate, dcal/mol
    low = np.full(count, np.nan)
    high = np.full(count, np.nan)
    todo = launched[np.argsort(-lengths[launched], kind="stable")]
    keys, probs = [], []
    for _ in range(MAX_REFILLS):
        zhat, part_sums, part_keys, part_probs = run.groups(todo, scale)
        keys += part_keys
        probs += part_probs
        ok = np.abs(zhat[todo]) < 500.0
        done, todo = todo[ok], todo[~ok]
        log_z[done] = zhat[done] - lengths[done] * scale[done]
        sums[done] = part_sums[done]
        if not len(todo):
            break
        _rescale(todo, zhat, lengths, scale, estimate, low, high, run.kT)
    if len(todo):
        from ..errors import InternalError

        raise InternalError(f"the partition function of {len(todo):,} sequences left double range at every scale")
    offsets, i, j, p = run.gather(keys, probs, count)
    return PartitionBatch(log_z, sums[:, 0], sums[:, 1], offsets, i, j, p)


def _sfact():
    from ._turner_pf_cpu import SFACT

    return SFACT


def _rescale(todo, zhat, lengths, scale, estimate, low, high, kT):
    """The CPU's next scale for each failed sequence (_turner_pf_cpu.partition): the exact one where the
    scaled Z was finite but far from 1; else bisection between estimates known to under- and overflow,
    and before both are known the CPU's steps (which assume a negative estimate; a positive one, never
    the default, first jumps below 0)."""
    sfact = _sfact()
    for k in todo.tolist():
        n, lz = int(lengths[k]), float(zhat[k])
        if math.isfinite(lz):
            estimate[k] = -(lz - n * scale[k]) * kT / 10.0 / sfact
        else:
            if lz == -math.inf:
                low[k] = estimate[k]
            else:
                high[k] = estimate[k]
            if not (math.isnan(low[k]) or math.isnan(high[k])):
                estimate[k] = (low[k] + high[k]) / 2
            elif lz == -math.inf:       # underflow: a weaker scale (towards 0 from below, else further up)
                estimate[k] = estimate[k] / 2 if estimate[k] < 0 else estimate[k] * 2 + n
            else:                       # overflow: a stronger one (the CPU's 2e - n from a negative e)
                estimate[k] = -abs(estimate[k]) * 2 - n
        scale[k] = sfact * estimate[k] * 10.0 / (n * kT)


def partition_many(codes_list, model=None, *, want_bpp: bool = True) -> list:
    """``[(ln Z, P or None)]`` of each sequence, in order (:meth:`.TurnerModel.partition_gpu`): those the
    batch takes in one :func:`partition` (every non-zero probability: P dense, n x n, as the CPU's), the
    longer ones (:func:`._turner_pf_long_gpu.goes_long`) one at a time over the whole GPU."""
    from ._turner_pf_long_gpu import goes_long
    from ._turner_pf_long_gpu import partition_many as long_many

    out = [None] * len(codes_list)
    short = [k for k, codes in enumerate(codes_list) if not goes_long(len(codes))]
    if short:
        batch = partition([codes_list[k] for k in short], model, cutoff=0.0, want_bpp=want_bpp)
        for at, k in enumerate(short):
            out[k] = (float(batch.log_z[at]), batch.dense(at, len(codes_list[k])) if want_bpp else None)
    rest = [k for k, codes in enumerate(codes_list) if goes_long(len(codes))]
    for k, result in zip(rest, long_many([codes_list[k] for k in rest], model, want_bpp=want_bpp)):
        out[k] = result
    return out


def check_batch(lengths) -> None:
    """Refuse up front (ResourceError with the estimate), where a GPU is here, a batch whose least device
    memory is more than is free (lengths the batch takes; longer ones are the long path's to check)."""
    from ..runtime import gpu as _gpu

    taken = [n for n in lengths if n <= MAX_GPU_LENGTH]
    if taken and _gpu.gpu_available():
        check_fits(taken, _gpu.free_memory())
