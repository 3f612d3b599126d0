"""BPPart with target windows on the GPU: every window pair's partition function of one query against
many targets, FP64, kernels/bppart_band.cu (docs/bppart.md, "Windows"; docs/bppart-gpu-notes.md).

The tables are those of the unwindowed GPU fill (:mod:`._partition_gpu`) on the band of target
intervals of at most L2 bases, so time and memory grow linearly with the target. The targets are cut
into pieces that overlap by L2 - 1 bases (every window lies whole in the first piece that holds its
start, as BPMax's streamed GPU path, :func:`._gpu.cut`) and the pieces of many targets are laid back to
back as one long target: a cell reads only its own sub-intervals, so the cells that cross from one
piece into the next are computed and never read. Each piece starts on a multiple of the tiles' common
side (:func:`aligned`; filler bases after each piece) and the pieces of a target start every multiple of
it, so every cell falls at the same place in its tiles, and its sums are taken in the same order,
whatever shares its launch, how many GPUs share the batch or how much memory is free: a pair's numbers
are the same to the last bit. Per launch group and query length l1: the cross
products (FP64 tensor cores), the terms over other query intervals (a thread a cell), and the sweep by
tiles, a launch per tile diagonal (about L2 / 16 + 1), whatever the length of the targets.

Scale: a box of n = L1 + L2 bases has at most 6^n joint structures (3^L each strand alone, 2^n
monotone sets of intermolecular pairs), each weighing at most exp(s / 2) a base (s the largest pair
score) and at least 1 (scores are >= 0), so when n (log 6 + s / 2) <= :data:`PLAIN_LIMIT` no table can
over- or underflow in plain doubles: the fill runs unscaled and nothing is folded on the CPU first
(23 x 129-nt windows at the default scores: n (log 6 + 1.5) = 500). Every table is a sum of positive
terms, so the values carry the CPU's relative rounding (tests: equal to the CPU's sweep to 1e-12). Wider
windows, or a given ``scale``, take the CPU's scales (:func:`._partition_windows.window_scales`), one
launch group per target.
"""
import math
import time

import numpy as np

from ..errors import ResourceError
from ..runtime import gpu as _gpu
from ..runtime.memory import format_bytes
from . import _partition_launch
from ._gpu import cut
from ._partition_band_sizes import aligned, band_cross_kernel, band_tiles_arguments, band_tiles_shared  # noqa: F401
from ._partition_cpu import single_strand_scaled

KERNELS = "bioaccel.interact.kernels"
MEMORY_MARGIN = 0.7           # share of the free device memory one launch may take
FULL_TABLES = 7               # QI, QX, QIac, QF, R, T0, AUX0 (every query interval)
LEVEL_TABLES = 4              # T1, AUX1, ACCA, ACCM (the query intervals of one length)
N_CODE = 4                    # the code of a base that pairs with nothing (PartitionParams.weights)
PLAIN_LIMIT = 600.0           # natural log: the largest box value allowed unscaled (doubles reach 709)
FRESH_FILL = None             # a launch group's tables start unset (tests: NaN, so a cell read unwritten shows)
SPLIT_BASES = 32              # band_streams: a launch group of fewer target bases than this many windows is not cut


def band_intervals(M: int, L1: int) -> int:
    """Query intervals of 1 to L1 bases, and one for every empty interval.

    >>> band_intervals(23, 23)
    277
    """
    return 1 + L1 * M - L1 * (L1 - 1) // 2


def row_bytes(M: int, L1: int, L2: int) -> int:
    """Device bytes per target base of a launch: a band row of every table, Q1 and its pair sums, a code.

    >>> round(row_bytes(23, 23, 129) / 2**20, 2)
    2.02
    """
    return 8 * (L2 + 1) * (FULL_TABLES * band_intervals(M, L1) + LEVEL_TABLES * M + 2) + 1


def plain_fits(weights: np.ndarray, L1: int, L2: int) -> bool:
    """Whether every table of a box of L1 x L2 bases stays within the double range unscaled (the
    module's bound, natural logs).

    >>> from bioaccel.interact import PartitionParams
    >>> plain_fits(PartitionParams().weights(), 23, 129), plain_fits(PartitionParams().weights(), 23, 500)
    (True, False)
    """
    top = math.log(max(1.0, float(weights.max())))
    return (L1 + L2) * (math.log(6.0) + top / 2) <= PLAIN_LIMIT


def gpu_windows(a: np.ndarray, rbs: list, params, *, sizes=None, timings: "dict | None" = None,
                timeline: "list | None" = None) -> list:
    """The :class:`._partition_windows.Windowed` of query codes ``a`` against each REVERSED target of
    ``rbs`` (every strand at least one base), windows ``params.spans``, without the binding profile.
    ``sizes``: launch sizes (None: ``_partition_launch.SIZES``, read now); ``timings``: a dict that
    accumulates the device seconds of the "single", "cross", "outer" and "sweep" launches (and, launched a
    tile diagonal a launch, "sweep_by_diagonal": {d: seconds of diagonal d's launches}), on one stream so that
    they add up; ``timeline``: a
    list that gets (stage, host seconds) of each stage, the device synchronised at each stage's end (so a
    stage holds its device work; "issue": the host's time to enqueue a launch's kernels, "device": the
    wait for them after it)."""
    from ._partition_windows import window_scales

    cp = _gpu.require_gpu()
    clock = _Clock(cp, timeline)
    sizes = sizes or _partition_launch.SIZES
    weights = params.weights()
    M = len(a)
    groups = {}
    for t, rb in enumerate(rbs):
        L1, L2 = params.spans(M, len(rb))
        if params.scale is None and plain_fits(weights, L1, L2):
            key = (L1, L2, 0.0, 0.0, -1)
        else:
            key = (L1, L2, *window_scales(a, rb, params, L1, L2), t)
        groups.setdefault(key, []).append(t)
    out = [None] * len(rbs)
    clock.lap("groups")
    for (L1, L2, c1, c2, _), members in groups.items():
        found = _group(cp, a, [rbs[t] for t in members], weights, L1, L2, c1, c2, sizes, timings, params.scale, clock)
        for t, w in zip(members, found):
            out[t] = w
    return out


def _group(cp, a, rbs, weights, L1, L2, c1, c2, sizes, timings, scale, clock) -> list:
    """The targets of one window length and scale: their pieces in launches, then each one's windows."""
    from ._partition_windows import assemble

    M = len(a)
    per_row = row_bytes(M, L1, L2)
    capacity = int(_gpu.free_memory() * MEMORY_MARGIN)
    most = capacity // per_row - 1
    if most < L2:
        raise ResourceError(f"the windowed partition function of {L1:,}-nt x {L2:,}-nt windows needs about "
                            f"{format_bytes((L2 + 1) * per_row)} of GPU memory but {format_bytes(capacity)} may be "
                            f"used; give a smaller --window-target, or use --backend cpu")
    bases, count = sum(len(rb) for rb in rbs), sizes.band_streams if timings is None else 1
    streams = _streams(cp, count if capacity // count // per_row > L2 else 1)
    if len(streams) > 1:          # each stream's tables a share of the memory; a long group cut so that every
        #                           stream gets a piece (a short one is not: its pieces' overlaps would cost more)
        most = min(capacity // len(streams) // per_row - 1,
                   -(-bases // len(streams)) + L2 if bases >= SPLIT_BASES * L2 else bases)
    if sizes.band_bases:          # a cap for tests and benchmarks; a piece holds a window at least
        most = min(most, max(sizes.band_bases, L2))
    side = aligned(1, sizes)
    # pieces of a target every multiple of the tiles' side (their step is most - L2 + 1 bases)
    most = max(L2 - 1 + side, L2 - 1 + (most - L2 + 1) // side * side)
    u1 = math.exp(-c1)
    Q0 = single_strand_scaled(a, weights, u1)
    pieces = [p for t, rb in enumerate(rbs) for p in cut(t, rb, L2, most)]
    records = [np.zeros((2, 2, M + 1, len(rb) + 1)) for rb in rbs]
    x_records = [np.zeros((2, 2, M + 1, len(rb) + 1)) for rb in rbs]
    ends = [np.zeros((2, len(rb) + 1)) for rb in rbs]      # Q1 of the windows and of their overlaps
    launches, launch, total = [], [], 0
    most = aligned(most, sizes)   # a launch's rows: whole pieces, each laid from a multiple of the side
    for piece in pieces:
        if launch and total + aligned(len(piece.codes), sizes) > most:
            launches.append(launch)
            launch, total = [], 0
        launch.append(piece)
        total += aligned(len(piece.codes), sizes)
    launches.append(launch)
    rows = min(most, max(sum(aligned(len(p.codes), sizes) for p in launch) for launch in launches))
    clock.lap("setup")
    lengths = [len(rb) for rb in rbs]
    if len(streams) == 1:
        state = _Tables(cp, a, Q0, weights, M, L1, L2, u1, math.exp(-c2), rows)
        clock.lap("tables")
        for launch in launches:
            state.fill(launch, sizes, timings, clock)
            state.gather(launch, lengths, records, x_records, ends)
            clock.lap("gather")
    else:
        _streamed(cp, streams, launches, lambda: _Tables(cp, a, Q0, weights, M, L1, L2, u1, math.exp(-c2), rows),
                  lambda state, launch: state.fill(launch, sizes, timings, clock),
                  lambda state, launch: state.gather(launch, lengths, records, x_records, ends), clock)
    nq = M - L1 + 1
    zq = float(sum(Q0[q, q + L1] for q in range(nq))) - u1 * float(sum(Q0[q, q + L1 - 1] for q in range(1, nq)))
    found = [assemble(records[t], x_records[t], zq, _target_alone(ends[t], len(rb), L2, math.exp(-c2)), M,
                      len(rb), L1, L2, c1, c2, scale) for t, rb in enumerate(rbs)]
    clock.lap("assemble")
    return found


_STREAMS = {}                  # device -> band_streams' streams, made once a process (CuPy's pool keeps blocks per stream)


def _streams(cp, count) -> list:
    """``count`` CUDA streams of this process (blocking: they order after the legacy default stream), or
    [None] for one: the current stream."""
    if count <= 1:
        return [None]
    made = _STREAMS.setdefault(cp.cuda.Device().id, [])
    while len(made) < count:
        made.append(cp.cuda.Stream(non_blocking=False))
    return made[:count]


def _streamed(cp, streams, launches, make, fill, gather, clock):
    """Launch i on stream i mod len(streams), each stream with its own tables (``make()``, made on it): a
    stream's next launch is issued after its previous one's gather (which waits for that stream only), so
    that the other streams' launches keep the device busy while the host gathers, and their kernels fill
    each other's gaps (launch tails, the sweep's short tile diagonals)."""
    k, states, pending = len(streams), [None] * len(streams), [None] * len(streams)
    for i, launch in enumerate(launches + [None] * k):
        s = i % k
        with streams[s]:
            if pending[s] is not None:
                gather(states[s], pending[s])
                clock.lap("gather")
            if launch is not None and states[s] is None:
                states[s] = make()
                clock.lap("tables")
            if launch is not None:
                fill(states[s], launch)
                pending[s] = launch


class _Clock:
    """The host stages of a call for a ``timeline`` list: (stage, seconds since the previous stage), the
    device synchronised first unless ``sync`` is false; nothing at all without a list."""

    def __init__(self, cp, timeline):
        self.cp, self.timeline, self.last = cp, timeline, time.perf_counter()

    def lap(self, stage, sync=True):
        if self.timeline is None:
            return
        if sync:
            self.cp.cuda.Device().synchronize()
        now = time.perf_counter()
        self.timeline.append((stage, now - self.last))
        self.last = now


def _target_alone(ends, N, L2, f2) -> float:
    nt = N - L2 + 1
    return float(ends[0, :nt].sum()) - f2 * float(ends[1, 1:nt].sum())


class _Tables:
    """The device tables of one launch group, sized for ``rows`` bases and reused by its launches: a
    launch reads only cells it wrote and the empty target intervals (set by each launch); the cells
    outside the band are masked, not read. So the tables start unset (no zeroing: 42 GB, 14 ms at 23 x
    20,000 nt), whatever an earlier launch or call left in the pool's memory; the tests fill them with
    NaN (:data:`FRESH_FILL`)."""

    def __init__(self, cp, a, Q0, weights, M, L1, L2, u1, u2, rows):
        self.cp, self.M, self.L1, self.L2, self.W1 = cp, M, L1, L2, L2 + 1
        self.n_int = band_intervals(M, L1)
        self.S = (rows + 1) * self.W1
        self.full = [cp.empty(self.n_int * self.S) for _ in range(FULL_TABLES)]
        self.level = [cp.empty(M * self.S) for _ in range(LEVEL_TABLES)]
        self.Q1 = cp.empty(self.S)
        self.Z = cp.empty(self.S)
        if FRESH_FILL is not None:
            for table in self.full + self.level + [self.Q1, self.Z]:
                table.fill(FRESH_FILL)
        self.a = cp.asarray(np.ascontiguousarray(a, dtype=np.uint8))
        self.Q0 = cp.asarray(np.ascontiguousarray(Q0))
        self.q0_cells = cp.asarray(np.array([Q0[i, e] for length in range(1, L1 + 1)
                                             for i in range(M - length + 1) for e in [i + length]]))
        self.W = cp.asarray(np.concatenate([(weights * (u1 * u1)).ravel(), (weights * (u2 * u2)).ravel(),
                                            (weights * (u1 * u2)).ravel()]))
        self.raw = cp.asarray(np.ascontiguousarray(weights.ravel()))
        powers = np.ones(L2 + 1)
        for k in range(1, L2 + 1):
            powers[k] = powers[k - 1] * u2
        self.powers = cp.asarray(powers)

    def fill(self, pieces, sizes, timings, clock):
        """Every table of the pieces laid back to back (n bases in all)."""
        cp, M, L1, W1 = self.cp, self.M, self.L1, self.W1
        filler = N_CODE         # pairs with nothing; only the cells that cross pieces read it
        codes = np.concatenate([np.pad(p.codes, (0, aligned(len(p.codes), sizes) - len(p.codes)),
                                       constant_values=filler) for p in pieces]).astype(np.uint8)
        n = len(codes)
        self.sizes = sizes
        S = (n + 1) * W1           # this launch's matrices: the first S cells of each slot
        rb = cp.asarray(codes)
        clock.lap("codes")
        events = {"single": [], "cross": [], "outer": [], "sweep": []}

        def mark(key):
            if timings is not None:
                events.setdefault(key, []).append(cp.cuda.Event())
                events[key][-1].record()

        Q1, Z = self.Q1[:S], self.Z[:S]
        Q1[...] = 0.0
        Q1.reshape(n + 1, W1)[:, 0] = 1.0
        single = _kernel("bppart_band_single")
        mark("single")
        for length in range(1, min(self.L2, n) + 1):
            starts = n - length + 1
            single((-(-starts // 128),), (128,), (rb, self.raw, self.powers, Q1, Z, np.int32(n), np.int32(W1),
                                                   np.int32(length)))
        mark("single")
        tables = [t[:self.n_int * S].reshape(self.n_int, n + 1, W1) for t in self.full]
        QI, QX, QIac, QF, R, T0, AUX0 = tables
        QI[0] = Q1.reshape(n + 1, W1)
        QI[1:, :, 0] = self.q0_cells[:, None]
        T1, AUX1, ACCA, ACCM = [t[:M * S] for t in self.level]
        for table in (QX, QIac, QF, R, T0, AUX0, T1.reshape(M, n + 1, W1), AUX1.reshape(M, n + 1, W1)):
            table[:, :, 0] = 0.0   # read as "no structure"; an earlier launch's layout may have left a value
        device = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        sms = device["multiProcessorCount"]
        TR, TC, B = sizes.band_rows, sizes.band_cols, sizes.band_tile
        name, arguments, threads = band_cross_kernel(sizes)
        cross = _kernel(name, *arguments)
        strip = name == "bppart_band_cross_mma" and arguments[-1]
        ring = name == "bppart_band_cross_ring"
        tiles = _kernel("bppart_band_tiles", *band_tiles_arguments(sizes))
        shared = band_tiles_shared(sizes)
        if shared:
            tiles.max_dynamic_shared_size_bytes = shared
        outer = _kernel("bppart_band_outer") if sizes.band_split else None
        ntr, D = -(-(n + 1) // TR), (TR + self.L2 - 1) // TC + 1
        if strip:              # column tiles j = 0 .. D from the row tile's first row: TR + L2 columns
            D = -(-(TR + self.L2) // TC) - 1
        nt = -(-(n + 1) // B)
        dmax = min(nt - 1, (self.L2 + B - 1) // B)
        counters = cp.zeros(L1 + 1, dtype=np.uint32)
        dims = (np.int32(M), np.int32(n), np.int32(W1))
        flat = [t.reshape(-1) for t in tables]
        for l1 in range(1, L1 + 1):
            mats = M - l1 + 1
            mark("cross")
            if l1 >= 2:
                grid = ntr * (D + 1) * mats
                split = min(l1 - 1, max(1, -(-(sizes.cross_blocks or 4 * sms) // grid)))
                group = ring and arguments[-1]
                if split > 1 and not group:
                    ACCA.fill(0), ACCM.fill(0)
                sums = [(w, g0) for w in (0, 1) for g0 in range(0, l1 - 1, group)] if group else [(0, 0)]
                for which, g0 in sums:      # (a ring takes which and g0; a group, its launch's sum and splits)
                    cross((ntr * (D + 1), mats, 1 if group else split), (threads,),
                          (flat[2], flat[0], flat[3], ACCA, ACCM, *dims, np.int32(l1), np.int32(ntr), np.int32(D))
                          + ((np.int32(which), np.int32(g0)) if ring else ()))
            mark("cross")
            mark("outer")
            if outer is not None:
                outer((-(-(n + 1) * W1 // 256), mats), (256,), (self.a, rb, self.Q0, Q1, self.W, flat[0], flat[1],
                                                                 flat[2], flat[3], flat[4], flat[5], flat[6], ACCA,
                                                                 ACCM, *dims, np.int32(l1)))
            mark("outer")
            mark("sweep")
            tables = (self.a, rb, self.Q0, Q1, self.W, *flat, T1, AUX1, ACCA, ACCM, *dims, np.int32(l1), np.int32(nt))
            if sizes.band_sweep == "persistent":
                grid = max(1, min(sms * sizes.blocks_per_sm, mats * nt))
                tiles((grid,), (B * B,), (*tables, np.int32(0), np.int32(dmax), counters[l1:]), shared_mem=shared)
            else:               # a tile diagonal a launch: a block per tile, no barrier
                for d in range(dmax + 1):
                    mark(("sweep", d))
                    tiles((mats * (nt - d),), (B * B,), (*tables, np.int32(d), np.int32(d), counters[l1:]),
                          shared_mem=shared)
                    mark(("sweep", d))
            mark("sweep")
        clock.lap("issue", sync=False)
        clock.lap("device")
        if timings is not None:    # ("sweep", d): the sweep's launches of tile diagonal d, apart (a profile)
            for key, marks in events.items():
                marks[-1].synchronize()
                into = timings.setdefault("sweep_by_diagonal", {}) if isinstance(key, tuple) else timings
                key = key[1] if isinstance(key, tuple) else key
                into[key] = into.get(key, 0.0) + sum(
                    cp.cuda.get_elapsed_time(start, stop) for start, stop in zip(marks[::2], marks[1::2])) / 1e3
        self.n, self.tables = n, (QI, QX)

    def gather(self, pieces, lengths, records, x_records, ends):
        """Each piece's windows (those whose start it holds first) into its target's records."""
        cp, M, L1, L2 = self.cp, self.M, self.L1, self.L2
        QI, QX = self.tables
        Q1 = self.Q1[:(self.n + 1) * self.W1].reshape(self.n + 1, self.W1)
        rows, targets, windows, offset = [], [], [], 0
        for p in pieces:
            last = min(p.start + len(p.codes), lengths[p.target]) - L2      # the piece's last window start
            t = np.arange(p.start, last + 1)
            rows.append(offset + t - p.start)
            targets.append(np.full(t.size, p.target))
            windows.append(t)
            offset += aligned(len(p.codes), self.sizes)
        rows_h, targets_h, windows_h = np.concatenate(rows), np.concatenate(targets), np.concatenate(windows)
        r = cp.asarray(rows_h)
        for iq in range(2):
            lq = L1 - iq
            if lq < 0:
                continue
            q = np.arange(M - lq + 1)
            numbers = cp.asarray(np.array([0 if lq == 0 else lq * (M + 1) - lq * (lq - 1) // 2 + i - M for i in q]))
            for it in range(2):
                lt = L2 - it
                if lt < 0:
                    continue
                qi = cp.asnumpy(QI[numbers[:, None], r[None, :], lt])
                qx = cp.asnumpy(QX[numbers[:, None], r[None, :], lt])
                for target in np.unique(targets_h):
                    keep = targets_h == target
                    records[target][iq, it, q[:, None], windows_h[keep][None, :]] = qi[:, keep]
                    x_records[target][iq, it, q[:, None], windows_h[keep][None, :]] = qx[:, keep]
        for it in range(2):
            if L2 - it >= 0:
                q1 = cp.asnumpy(Q1[r, L2 - it])
                for target in np.unique(targets_h):
                    keep = targets_h == target
                    ends[target][it, windows_h[keep]] = q1[keep]


def _kernel(name, *arguments):
    return _gpu.kernel(KERNELS, "bppart_band.cu", name, arguments)
