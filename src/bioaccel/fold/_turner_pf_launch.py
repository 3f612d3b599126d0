"""The launches of the GPU partition function batch (:mod:`._turner_pf_gpu`): the device copies of a
batch's inputs, the kernel ``turner_pf`` of ``kernels/turner_pf_batch.cu`` over groups of sequences
(each group one buffer of listed pairs, its launches the MFE batch's plan: lengths within a factor 2,
longest first, a persistent grid sized to the GPU and to the table budget), and the final sort of the
listed pairs by sequence, i and j on the device.

>>> grid_blocks(100_000, 200, 128, 132, PLAN_SIZES, 8 << 30), grid_blocks(3, 200, 128, 132, PLAN_SIZES, 8 << 30)
(1056, 3)
"""
from dataclasses import dataclass
from types import SimpleNamespace

import numpy as np

from ..errors import ResourceError
from ..runtime.launch import LaunchSizes
from ._turner_gpu import _device_codes, plan


@dataclass(frozen=True)
class PfSizes(LaunchSizes):
    """Launch sizes of the GPU partition function (read from :data:`SIZES` at call time; tests patch small
    ones).

    >>> SIZES.threads, SIZES.replace(threads=32).threads
    (256, 32)
    """

    threads: int = 256                # most threads of a block (a power of two: 32..1024)
    min_blocks: int = 4               # blocks of `threads` an SM must hold: 64 registers, no spills (nvcc -v)
    block_cap: int = 256              # most threads a launch's blocks use (<= threads; same kernel)
    table_bytes: int = 24 << 30       # device bytes of the blocks' tables (a third of the free memory at most)
    pair_bytes: int = 8 << 30         # device bytes of one group's listed pairs
    group: int = 1 << 17              # most sequences per group (one pair buffer)


SIZES = PfSizes()


def block_doubles(n: int) -> int:
    """Doubles of one block's tables for an n-long sequence: nine n x n tables, q5 and q3, the pair types
    (bytes, rounded up to doubles)."""
    return 9 * n * n + 2 * (n + 1) + (n * n + 7) // 8


#: shared memory of a block besides its sequence: the weights pw (34 doubles) and G (961 doubles)
SHARED_DOUBLES = 34 + 31 * 31
#: the sizes of the module's doctest (the launches read SIZES at call time)
PLAN_SIZES = SIZES


def grid_blocks(count, longest, threads, multiprocessors, sizes, budget) -> int:
    """Blocks of a persistent launch of ``threads``-thread blocks: as many as the multiprocessors hold at
    once (``sizes.threads * sizes.min_blocks`` threads each, at most 32 blocks), no more than sequences,
    their tables within ``budget`` bytes (at least one)."""
    per_sm = min(32, sizes.threads * sizes.min_blocks // threads)
    fits = budget // (8 * block_doubles(longest))
    return int(max(1, min(count, per_sm * multiprocessors, fits)))


class Launcher:
    """A batch's device inputs and the kernel, for :func:`._turner_pf_gpu.partition_packed`."""

    def __init__(self, cp, gpu, joined, starts, model, cutoff, want_bpp, sizes):
        from ._turner_pf_params import boltzmann_tables
        from ._turner_tables import kernel_inputs

        E, self.lxc, self.no_lp = kernel_inputs(model)
        self.temperature = 37.0 if model is None else float(model.temperature)
        B, self.kT = boltzmann_tables(self.temperature, False if model is None else model.no_gu)
        self.cp, self.sizes, self.cutoff, self.want_bpp = cp, sizes, float(cutoff), bool(want_bpp)
        self.lengths = np.diff(starts)
        count = len(self.lengths)
        self.codes = _device_codes(cp, np.asarray(joined))
        self.E = cp.asarray(np.ascontiguousarray(E, dtype=np.int32))
        self.B = cp.asarray(np.ascontiguousarray(B, dtype=np.float64))
        self.starts = cp.asarray(np.asarray(starts, dtype=np.int64))
        self.zhat = cp.zeros(count, dtype=np.float64)
        self.sums = cp.zeros(2 * count, dtype=np.float64)
        free = gpu.free_memory()
        self.table_budget = int(min(sizes.table_bytes, free // 3))
        self.pair_budget = int(min(sizes.pair_bytes, free // 4))
        self.multiprocessors = gpu.multiprocessors()
        self.kernel = gpu.kernel("bioaccel.fold.kernels", "turner_pf_batch.cu", "turner_pf",
                                 (sizes.threads, sizes.min_blocks))
        self.tables = None

    def groups(self, todo, scale):
        """Run the sequences ``todo`` (longest first) at per-sequence log scales ``scale``: (ln of the scaled
        Z of every sequence (host), the sums (count x 2, host), [device keys], [device probabilities])."""
        cp = self.cp
        scale_dev = cp.asarray(np.asarray(scale, dtype=np.float64))
        keys, probs = [], []
        for first in range(0, len(todo), self.sizes.group):
            self._group(todo[first:first + self.sizes.group], scale_dev, keys, probs)
        return cp.asnumpy(self.zhat), cp.asnumpy(self.sums).reshape(-1, 2), keys, probs

    def _group(self, ids, scale_dev, keys, probs):
        cp = self.cp
        lengths = self.lengths[ids]
        cells = int(np.sum((lengths - 4) * (lengths - 3) // 2))
        capacity = min(cells, self.pair_budget // 16) if self.want_bpp else 0
        key_buf = cp.empty(max(1, capacity), dtype=np.int64)
        prob_buf = cp.empty(max(1, capacity), dtype=np.float64)
        found = cp.zeros(1, dtype=np.uint64)
        cap = min(self.sizes.block_cap, self.sizes.threads)
        launches = plan(lengths, SimpleNamespace(threads=cap, max_blocks=1 << 30))
        grids = [grid_blocks(last - a, int(lengths[a]), threads, self.multiprocessors, self.sizes, self.table_budget)
                 for a, last, threads in launches]
        words = [block_doubles(int(lengths[a])) for a, _, _ in launches]
        need = max(g * w for g, w in zip(grids, words))
        if self.tables is None or self.tables.size < need:
            self.tables = None
            self.tables = cp.empty(need, dtype=np.float64)
        ids_dev = cp.asarray(np.asarray(ids, dtype=np.int32))
        counters = cp.zeros(len(launches), dtype=np.int32)
        for at, ((a, last, threads), blocks, w) in enumerate(zip(launches, grids, words)):
            longest = int(lengths[a])
            shared = 8 * SHARED_DOUBLES + (longest + 7) // 8 * 8
            self.kernel((blocks,), (threads,),
                        (self.B, self.E, self.codes, self.starts, ids_dev, scale_dev, np.int32(a), np.int32(last - a),
                         counters[at:], self.tables, np.int64(w), np.int32(self.no_lp), np.float64(self.kT),
                         np.float64(self.lxc), np.float64(self.cutoff), np.int32(self.want_bpp), self.zhat, self.sums,
                         key_buf, prob_buf, found, np.int64(capacity)), shared_mem=shared)
        listed = int(found[0])
        if listed > capacity:
            if len(ids) == 1:
                raise ResourceError(f"the probabilities of one sequence ({listed:,} pairs) will not fit in device "
                                    "memory; raise the probability cutoff")
            half = len(ids) // 2
            self._group(ids[:half], scale_dev, keys, probs)
            self._group(ids[half:], scale_dev, keys, probs)
            return
        if listed:
            keys.append(key_buf[:listed])
            probs.append(prob_buf[:listed])

    def gather(self, keys, probs, count):
        """(offsets, i, j, p) on the host: the listed pairs of the kept launches sorted by (sequence, i, j)
        (a sequence redone at another scale listed none the first time)."""
        cp = self.cp
        self.tables = None
        if not keys:
            return np.zeros(count + 1, np.int64), np.zeros(0, np.int32), np.zeros(0, np.int32), np.zeros(0)
        key = cp.concatenate(keys) if len(keys) > 1 else keys[0]
        prob = cp.concatenate(probs) if len(probs) > 1 else probs[0]
        order = cp.argsort(key)
        key = key[order]
        prob = prob[order]
        del order
        seq = key >> 24
        offsets = cp.searchsorted(seq, cp.arange(count + 1, dtype=np.int64))
        i = ((key >> 12) & 0xFFF).astype(np.int32)
        j = (key & 0xFFF).astype(np.int32)
        return cp.asnumpy(offsets).astype(np.int64), cp.asnumpy(i), cp.asnumpy(j), cp.asnumpy(prob)
