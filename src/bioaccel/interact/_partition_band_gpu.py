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

A round's queries share one schedule (:func:`gpu_windows_round`, launch size ``band_queries``): the launches of
every query and launch group alternate between the streams without a drain between queries, each query's
windows assembled on the CPU when its last launch is gathered, while the device works on the next query's.
"""
import contextlib
import math
import time

import numpy as np

from ..errors import ResourceError
from ..runtime import gpu as _gpu
from ..runtime.memory import format_bytes
from . import _partition_launch
from ._gpu import cut
from ._partition_band_sizes import aligned, band_cross_kernel, band_tiles_arguments, band_tiles_shared  # noqa: F401
from ._partition_band_tables import _Tables, band_intervals, row_bytes  # noqa: F401
from ._partition_cpu import single_strand_scaled

MEMORY_MARGIN = 0.7           # share of the free device memory one launch may take
PLAIN_LIMIT = 600.0           # natural log: the largest box value allowed unscaled (doubles reach 709)
FRESH_FILL = None             # a launch group's tables start unset (tests: NaN, so a cell read unwritten shows)
SPLIT_BASES = 32              # band_streams: a launch group of fewer target bases than this many windows is not cut


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
    ``rbs`` (every strand at least one base), windows ``params.spans``, without the binding profile:
    :func:`gpu_windows_round` of one query."""
    return gpu_windows_round([a], rbs, params, sizes=sizes, timings=timings, timeline=timeline)[0]


def gpu_windows_round(queries: list, rbs: list, params, *, sizes=None, timings: "dict | None" = None,
                      timeline: "list | None" = None, trace: "list | None" = None) -> list:
    """For each query's codes of ``queries`` (each at least one base), the :class:`._partition_windows.Windowed`
    against each REVERSED target of ``rbs`` (every strand at least one base), windows ``params.spans``,
    without the binding profile. ``sizes``: launch sizes (None: ``_partition_launch.SIZES``, read now;
    ``band_queries``: one schedule for all the queries, else a drain after each launch group); ``timings``: a
    dict that accumulates the device seconds of the "single", "cross", "outer" and "sweep" launches (and,
    launched a tile diagonal a launch, "sweep_by_diagonal": {d: seconds of diagonal d's launches}; "cross_by_level":
    {l1: seconds of level l1's cross products}), on one stream so that they add up; ``timeline``: a list that gets
    (stage, host seconds) of each stage, the
    device synchronised at each stage's end (so a stage holds its device work; "issue": the host's time to
    enqueue a launch's kernels, "device": the wait for them after it); ``trace``: a list that gets, per launch, a
    dict of its stream, rows and device start and end (ms after the call began, from CUDA events: nothing
    synchronised) and the host's issue and gather times, then one dict of the call's host seconds ("call")."""
    from ._partition_windows import window_scales

    cp = _gpu.require_gpu()
    clock = _Clock(cp, timeline)
    tracer = _Trace(cp, trace)
    sizes = sizes or _partition_launch.SIZES
    weights = params.weights()
    jobs = []
    for a in queries:
        groups = {}
        for t, rb in enumerate(rbs):
            L1, L2 = params.spans(len(a), len(rb))
            if params.scale is None and plain_fits(weights, L1, L2):
                key = (L1, L2, 0.0, 0.0, -1)
            else:
                key = (L1, L2, *window_scales(a, rb, params, L1, L2), t)
            groups.setdefault(key, []).append(t)
        jobs.append([_Job(a, rbs, members, weights, *key[:4], params.scale) for key, members in groups.items()])
    clock.lap("groups")
    count = sizes.band_streams if timings is None else 1
    if sizes.band_queries:        # every job planned against the same memory, on the streams all of them fit
        capacity = int(_gpu.free_memory() * MEMORY_MARGIN)
        flat = [job for query in jobs for job in query]
        k = min(job.streams(capacity, count) for job in flat)
        for job in flat:
            job.plan(capacity, k, sizes)
        clock.lap("setup")
        _run(cp, _streams(cp, k), flat, sizes, timings, clock, tracer)
    else:
        for job in (job for query in jobs for job in query):
            capacity = int(_gpu.free_memory() * MEMORY_MARGIN)
            k = job.streams(capacity, count)
            job.plan(capacity, k, sizes)
            clock.lap("setup")
            _run(cp, _streams(cp, k), [job], sizes, timings, clock, tracer)
    out = []
    for query in jobs:
        found = [None] * len(rbs)
        for job in query:
            for t, w in zip(job.members, job.found):
                found[t] = w
        out.append(found)
    tracer.done()
    return out


class _Job:
    """The targets of one query, window length and scale: their pieces in launches, the records their
    launches gather, then each one's windows (:meth:`finish`)."""

    def __init__(self, a, rbs, members, weights, L1, L2, c1, c2, scale):
        self.a, self.members, self.rbs, self.weights = a, members, [rbs[t] for t in members], weights
        self.M, self.L1, self.L2, self.c1, self.c2, self.scale = len(a), L1, L2, c1, c2, scale
        self.per_row = row_bytes(self.M, L1, L2)

    def streams(self, capacity, count) -> int:
        """How many of ``count`` streams this job's tables fit with ``capacity`` bytes (a window each)."""
        if capacity // self.per_row - 1 < self.L2:
            raise ResourceError(f"the windowed partition function of {self.L1:,}-nt x {self.L2:,}-nt windows needs "
                                f"about {format_bytes((self.L2 + 1) * self.per_row)} of GPU memory but "
                                f"{format_bytes(capacity)} may be used; give a smaller --window-target, or use "
                                f"--backend cpu")
        return count if capacity // count // self.per_row > self.L2 else 1

    def plan(self, capacity, k, sizes):
        """The launches on ``k`` streams: pieces of the targets laid back to back, each from a multiple of
        the tiles' side."""
        rbs, L2, M, per_row = self.rbs, self.L2, self.M, self.per_row
        most = capacity // per_row - 1
        bases = sum(len(rb) for rb in rbs)
        if k > 1:                 # each stream's tables a share of the memory; a long group cut so that every
            #                       stream gets a piece (a short one is not: its pieces' overlaps would cost more)
            most = min(capacity // k // per_row - 1, -(-bases // k) + L2 if bases >= SPLIT_BASES * L2 else bases)
        if sizes.band_bases:      # a cap for tests and benchmarks; a piece holds a window at least
            most = min(most, max(sizes.band_bases, L2))
        side = aligned(1, sizes)
        # pieces of a target every multiple of the tiles' side (their step is most - L2 + 1 bases)
        most = max(L2 - 1 + side, L2 - 1 + (most - L2 + 1) // side * side)
        pieces = [p for t, rb in enumerate(rbs) for p in cut(t, rb, L2, most)]
        self.records = [np.zeros((2, 2, M + 1, len(rb) + 1)) for rb in rbs]
        self.x_records = [np.zeros((2, 2, M + 1, len(rb) + 1)) for rb in rbs]
        self.ends = [np.zeros((2, len(rb) + 1)) for rb in rbs]      # Q1 of the windows and of their overlaps
        launches, launch, total = [], [], 0
        most = aligned(most, sizes)   # a launch's rows: whole pieces, each laid from a multiple of the side
        for piece in pieces:
            if launch and total + aligned(len(piece.codes), sizes) > most:
                launches.append(launch)
                launch, total = [], 0
            launch.append(piece)
            total += aligned(len(piece.codes), sizes)
        launches.append(launch)
        self.launches, self.left, self.lengths = launches, len(launches), [len(rb) for rb in rbs]
        self.rows = min(most, max(sum(aligned(len(p.codes), sizes) for p in launch) for launch in launches))
        self.rows += max(sizes.band_align - 1, 0)      # (v16: the filler that aligns a launch's matrices)
        self.Q0 = single_strand_scaled(self.a, self.weights, math.exp(-self.c1))

    @property
    def key(self) -> tuple:
        """The size of this job's tables: a stream's tables of the same key serve it (its query loaded)."""
        return self.M, self.L1, self.L2, self.rows

    def load(self, state):
        state.load(self, self.a, self.Q0, self.weights, math.exp(-self.c1), math.exp(-self.c2))

    def gather(self, state, launch):
        state.gather(launch, self.lengths, self.records, self.x_records, self.ends)
        self.left -= 1

    def finish(self):
        """Each target's windows, once every launch is gathered."""
        from ._partition_windows import assemble

        M, L1, L2, c1, c2, Q0 = self.M, self.L1, self.L2, self.c1, self.c2, self.Q0
        u1 = math.exp(-c1)
        nq = M - L1 + 1
        zq = float(sum(Q0[q, q + L1] for q in range(nq))) - u1 * float(sum(Q0[q, q + L1 - 1] for q in range(1, nq)))
        self.found = [assemble(self.records[t], self.x_records[t], zq,
                               _target_alone(self.ends[t], len(rb), L2, math.exp(-c2)), M, len(rb), L1, L2, c1, c2,
                               self.scale) for t, rb in enumerate(self.rbs)]
        self.records = self.x_records = self.ends = None


def _run(cp, streams, jobs, sizes, timings, clock, tracer):
    """The launches of ``jobs`` in order, launch i on stream i mod len(streams), each stream with its own
    tables: a stream's next launch is issued after its previous one's gather (which waits for that stream
    only), so that the other streams' launches keep the device busy while the host gathers or assembles a
    job's windows (after its last gather), and their kernels fill each other's gaps (launch tails, the
    sweep's short tile diagonals). A stream's tables serve the next job of their size (its query loaded)."""
    work = [(job, launch) for job in jobs for launch in job.launches]
    k, states, pending = len(streams), [None] * len(streams), [None] * len(streams)
    for i, item in enumerate(work + [None] * k):
        s = i % k
        with streams[s] if streams[s] is not None else contextlib.nullcontext():
            if pending[s] is not None:
                job, launch = pending[s]
                job.gather(states[s], launch)
                tracer.gathered(s)
                pending[s] = None
                clock.lap("gather")
                if job.left == 0:
                    job.finish()
                    clock.lap("assemble")
            if item is not None:
                job, launch = item
                if states[s] is None or states[s].key != job.key:
                    states[s] = None  # (released before the next tables are made)
                    states[s] = _Tables(cp, *job.key, FRESH_FILL)
                    clock.lap("tables")
                if states[s].job is not job:
                    job.load(states[s])
                tracer.start(s, launch, sizes)
                states[s].fill(launch, sizes, timings, clock)
                tracer.end(s)
                pending[s] = item


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


class _Trace:
    """A ``trace`` list's launches (see :func:`gpu_windows_round`): CUDA events recorded on each launch's stream
    before its first kernel and after its last (nothing synchronised until :meth:`done`); nothing without a list."""

    def __init__(self, cp, trace):
        self.cp, self.trace, self.open = cp, trace, {}
        if trace is not None:
            self.host0 = time.perf_counter()
            self.ref = cp.cuda.Event()
            self.ref.record(cp.cuda.Stream.null)
            self.launches = []

    def start(self, s, launch, sizes):
        if self.trace is not None:
            self.open[s] = dict(stream=s, rows=sum(aligned(len(p.codes), sizes) for p in launch),
                                issued_s=time.perf_counter() - self.host0, begin=self._event())

    def end(self, s):
        if self.trace is not None:
            self.open[s].update(enqueued_s=time.perf_counter() - self.host0, finish=self._event())
            self.launches.append(self.open[s])

    def gathered(self, s):
        if self.trace is not None:
            self.open[s]["gathered_s"] = time.perf_counter() - self.host0

    def _event(self):
        event = self.cp.cuda.Event()
        event.record()
        return event

    def done(self):
        if self.trace is None:
            return
        self.ref.synchronize()
        for launch in self.launches:
            launch["finish"].synchronize()
            begin, finish = launch.pop("begin"), launch.pop("finish")
            launch.update(start_ms=self.cp.cuda.get_elapsed_time(self.ref, begin),
                          end_ms=self.cp.cuda.get_elapsed_time(self.ref, finish))
            self.trace.append(launch)
        self.trace.append(dict(call_s=time.perf_counter() - self.host0))


def _target_alone(ends, N, L2, f2) -> float:
    nt = N - L2 + 1
    return float(ends[0, :nt].sum()) - f2 * float(ends[1, 1:nt].sum())
