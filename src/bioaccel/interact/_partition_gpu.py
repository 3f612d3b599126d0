"""BPPart on the GPU (variant ``diagonals``): one query against many targets, FP64, the CPU's form.

The tables and their order are those of :mod:`._partition_cpu` (docs/bppart.md, "bioaccel's form"): per
query length l1, the terms that read other query intervals (QIa's and QIm's double sums) as tiled
triangular matrix products of every pair's intervals in one launch, then every cell of the level in a
second, persistent launch that sweeps each target matrix by tiles, tile diagonal after tile diagonal with
a grid barrier between them (a cell reads its own interval's cells of shorter target intervals only:
those of earlier tile diagonals through staged tile products, those of its own tile in shared memory).
The first design's sweep, a warp per cell and a barrier per target diagonal, stays as
``BPPartSizes(sweep="diagonals")``, the benchmark's peer (docs/bppart-gpu-notes.md). Many pairs share a launch: each pair
has its own block of matrices, sized by the launch's longest target (pairs are grouped by length so that
little is padding); a query of M bases costs 2 M launches whatever the number of targets.

Scaling is the CPU's: the per-base factors c1, c2 (``choose_scales``) reweight pairs and unpaired bases,
and log Z = log Z~ + c1 M + c2 N. The strands alone (Q0, Q1) are folded on the CPU.
"""
import math
import numpy as np

from ..errors import ResourceError
from ..runtime import gpu as _gpu
from ..runtime.memory import format_bytes
from . import _partition_launch
from ._partition_cpu import single_strand_scaled
from ._partition_launch import BPPartSizes

KERNELS = "bioaccel.interact.kernels"
MEMORY_MARGIN = 0.7           # share of the free device memory one launch may take
FULL_TABLES = 7               # QI, QX, QIac, QF, R, T0, AUX0 (every query interval)
LEVEL_TABLES = 5              # T1, AUX1T, QFT, ACCA, ACCM (the query intervals of one length)
MAX_GRID_Y = 65535            # the cross launch's pairs x intervals


def intervals(M: int) -> int:
    """Query intervals [i, e), 0 <= i <= e <= M, empty ones included.

    >>> intervals(23)
    300
    """
    return (M + 1) * (M + 2) // 2


def pair_bytes(M: int, N: int) -> int:
    """Device bytes of one pair in a launch whose longest target has N bases: the full and level-local
    tables, Q1 twice (and transposed), the weights and the codes.

    >>> round(pair_bytes(23, 1000) / 2**30, 1)
    16.6
    """
    S = (N + 1) ** 2
    return 8 * ((FULL_TABLES * intervals(M) + LEVEL_TABLES * M + 2) * S + 75) + N + 4


def _batches(lengths, M, capacity, most):
    """Indices of ``lengths`` in launch groups: similar lengths together (a group's matrices are sized by
    its longest), each within ``capacity`` bytes, at most ``most`` pairs."""
    order = sorted(range(len(lengths)), key=lambda i: lengths[i])
    group = []
    for i in order:
        n = lengths[i]
        if group and ((len(group) + 1) * pair_bytes(M, n) > capacity or len(group) >= most
                      or n > 1.25 * lengths[group[0]] + 16):
            yield group
            group = []
        group.append(i)
    if group:
        yield group


def gpu_logs(a: np.ndarray, rbs: list, weights: np.ndarray, c1: float, c2s: list, *,
             sizes: "BPPartSizes | None" = None, timings: "dict | None" = None, pool=None) -> list:
    """(log QI, log QX, log Q0, log Q1) of query codes ``a`` against each REVERSED target of ``rbs``
    (each at least one base; ``a`` too), as :func:`._partition_cpu.fill_partition` gives them, at the
    query's scale ``c1`` and each target's scale of ``c2s``. ``sizes``: launch sizes (None: ``_partition_launch.SIZES``,
    read now). ``timings``: a dict that accumulates the device seconds of the "cross" and "sweep" launches
(bench/bppart_gpu.py). ``pool``: an executor that folds the targets alone at once (None: one by one).
ResourceError, before any launch, for a pair whose tables will not fit the device."""
    cp = _gpu.require_gpu()
    sizes = sizes or _partition_launch.SIZES
    M = len(a)
    capacity = int(_gpu.free_memory() * MEMORY_MARGIN)
    for rb in rbs:
        if pair_bytes(M, len(rb)) > capacity:
            raise ResourceError(
                f"the partition function of {M:,} x {len(rb):,} nt needs about {format_bytes(pair_bytes(M, len(rb)))} "
                f"of GPU memory but {format_bytes(capacity)} may be used; cut the target into pieces of a few "
                f"hundred nt, or use --backend cpu")
    most = min(sizes.pairs or len(rbs), max(1, MAX_GRID_Y // M))
    Q0 = single_strand_scaled(a, weights, math.exp(-c1))
    out = [None] * len(rbs)
    a_dev = cp.asarray(np.ascontiguousarray(a, dtype=np.uint8))
    Q0_dev = cp.asarray(np.ascontiguousarray(Q0))
    for group in _batches([len(rb) for rb in rbs], M, capacity, most):
        logs = _launch(cp, a_dev, Q0_dev, M, [rbs[i] for i in group], weights, c1, [c2s[i] for i in group], sizes,
                       timings, pool)
        for i, found in zip(group, logs):
            out[i] = (found[0], found[1], math.log(Q0[0, M]) + c1 * M, found[2])
    return out


def _kernel(name, *arguments):
    return _gpu.kernel(KERNELS, "bppart.cu", name, arguments)


def _log(x: float) -> float:
    return math.log(x) if x > 0 else (-math.inf if x == 0 else math.nan)


def _launch(cp, a_dev, Q0_dev, M, rbs, weights, c1, c2s, sizes, timings=None, pool=None) -> list:
    """One launch group: every level of every pair; returns (log QI, log QX, log Q1) a pair, scales added."""
    P = len(rbs)
    lengths = [len(rb) for rb in rbs]
    N = max(lengths)
    n1, n_int = N + 1, intervals(M)
    S = n1 * n1
    codes = np.full((P, N), 4, np.uint8)     # 4: a letter that pairs with nothing
    Q1 = np.zeros((P, n1, n1))
    W = np.zeros((P, 3, 25))
    u1 = math.exp(-c1)
    folds = (pool.map if pool is not None else map)(
        lambda pair: single_strand_scaled(pair[0], weights, math.exp(-pair[1])), zip(rbs, c2s))
    for p, (rb, c2, fold) in enumerate(zip(rbs, c2s, folds)):
        n, u2 = len(rb), math.exp(-c2)
        codes[p, :n] = rb
        Q1[p, :n + 1, :n + 1] = fold
        W[p] = (weights * (u1 * u1)).ravel(), (weights * (u2 * u2)).ravel(), (weights * (u1 * u2)).ravel()
    Np = cp.asarray(np.array(lengths, np.int32))
    rb_dev, W_dev = cp.asarray(codes), cp.asarray(W)
    Q1_dev = cp.asarray(Q1)
    Q1T_dev = cp.ascontiguousarray(Q1_dev.transpose(0, 2, 1))
    full = [cp.zeros(P * n_int * S) for _ in range(FULL_TABLES)]
    QI, QX, QIac, QF, R, T0, AUX0 = full
    tiles = sizes.sweep == "tiles"
    if tiles:    # unwritten cells of T1, AUX1 (row-major) are read as zero by the far sums
        level = [cp.zeros(P * M * S) for _ in range(LEVEL_TABLES - 1)]
        T1, AUX1, ACCA, ACCM = level
    else:        # every cell read is written first in its level: NaN poison would show any other read
        level = [_gpu.filled(P * M * S, math.nan, np.float64) for _ in range(LEVEL_TABLES)]
        T1, AUX1T, QFT, ACCA, ACCM = level
    counters = cp.zeros(M + 1, dtype=np.uint32)
    dims = (np.int32(M), np.int32(N), np.int32(n_int))
    init = _kernel("bppart_init")
    init((min(65535, -(-P * (M + 1) * n1 * (M + 1 + n1) // 256)),), (256,), (QI, Q0_dev, Q1_dev, Np, *dims, np.int32(P)))
    tile = sizes.tile
    nt = -(-n1 // tile)
    cross = _kernel("bppart_cross", tile, sizes.chunk)
    sms = _gpu.multiprocessors()
    blocks = sms * sizes.blocks_per_sm
    if tiles:
        B = sizes.sweep_tile
        sweep, st = _kernel("bppart_tiles", B), -(-n1 // B)
    else:
        sweep = _kernel("bppart_sweep", sizes.threads)
    events = {"cross": [], "sweep": []}

    def mark(key):
        if timings is not None:
            events[key].append(cp.cuda.Event())
            events[key][-1].record()

    for l1 in range(1, M + 1):
        mats = M - l1 + 1
        mark("cross")
        if l1 >= 2:
            grid = nt * (nt + 1) // 2 * P * mats       # the blocks that have work
            split = min(l1 - 1, max(1, -(-(sizes.cross_blocks or 4 * sms) // grid)))
            if split > 1:
                ACCA.fill(0)
                ACCM.fill(0)
            cross((nt * nt, P * mats, split), ((tile // 4) ** 2,),
                  (QIac, QI, QF, ACCA, ACCM, Np, *dims, np.int32(l1), np.int32(nt)))
        mark("cross")
        mark("sweep")
        if tiles:
            grid = max(1, min(blocks, P * mats * st))
            sweep((grid,), (B * B,), (a_dev, rb_dev, Np, Q0_dev, Q1_dev, W_dev, QI, QX, QIac, QF, R, T0, AUX0, T1, AUX1,
                                      ACCA, ACCM, *dims, np.int32(l1), np.int32(P), np.int32(st), counters[l1:]))
        else:
            grid = max(1, min(blocks, -(-P * mats * N * 32 // sizes.threads)))
            sweep((grid,), (sizes.threads,),
                  (a_dev, rb_dev, Np, Q0_dev, Q1_dev, Q1T_dev, W_dev, QI, QX, QIac, QF, R, T0, AUX0, T1, AUX1T, QFT,
                   ACCA, ACCM, *dims, np.int32(l1), np.int32(P), np.int32(N), counters[l1:]))
        mark("sweep")
    if timings is not None:
        for key, marks in events.items():
            marks[-1].synchronize()
            timings[key] = timings.get(key, 0.0) + sum(
                cp.cuda.get_elapsed_time(start, stop) for start, stop in zip(marks[::2], marks[1::2])) / 1e3
    whole = (np.arange(P) * n_int + n_int - 1) * S + np.array(lengths)   # cell [0, Np) of [0, M): the last interval
    qi = cp.asnumpy(QI[cp.asarray(whole)])
    qx = cp.asnumpy(QX[cp.asarray(whole)])
    return [(_log(qi[p]) + c1 * M + c2 * n, _log(qx[p]) + c1 * M + c2 * n, _log(Q1[p, 0, n]) + c2 * n)
            for p, (n, c2) in enumerate(zip(lengths, c2s))]
