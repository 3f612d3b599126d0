"""SCAN and MULTIPLESCAN on an NVIDIA GPU (kernels in scan/kernels/scan.cu).

The host cuts a :class:`~bioaccel.scan._plan.ScanPlan`'s entries (motif x strand) into groups whose
tables fit in a block's shared memory, and gives the kernels *coarse* int32 tables: every slice's grid
scores shifted to start at 0 and divided by a step D, rounded up, and the threshold likewise, so that a
window whose exact score reaches the threshold always passes the coarse test (:func:`coarse_entry`).
The kernels score the few windows that pass again exactly, in int64, so the GPU reports the CPU's hits.

Variants: ``fused`` (bioaccel's: tables of 4**4 coarse scores per slice of 4 columns, each thread summing
16 windows at once, the threshold fused in; two forms, :attr:`ScanSizes.form`: ``lanes``, eight entries'
16-bit scores in one 16-byte table row (:mod:`._lanes`), and ``words``, the first form, an int32 table
per entry) and ``segments`` (Giraud & Varré's MULTIPLESCAN kernel: the
segment and the matrices in shared memory, one window per thread, the matrices innermost, column by
column). Chunks go through two CUDA streams: :meth:`GpuScanner.submit` returns at once, so the host
reads the next chunk and prices the last one's hits while the GPU scans.
"""
from dataclasses import dataclass

import numpy as np

from ..runtime import gpu as _gpu
from ..runtime.launch import LaunchSizes
from ..errors import InvalidParameter
from ._lanes import TABLE_WORDS, LaneLayout, build_lanes
from ._plan import slice_table

KERNELS = "bioaccel.scan.kernels"
#: Coarse scores of one entry span at most this many steps: ample resolution (a window that passes
#: the coarse test but not the exact one is rare), and sums stay far inside int32.
LEVELS = 1 << 20


@dataclass(frozen=True)
class ScanSizes(LaunchSizes):
    """Launch sizes (template arguments of scan.cu's kernels) and shared-memory budgets. Runs use
    :data:`SIZES`, read at call time; the GPU tests patch small ones over it (tests/conftest.py: tiny
    segments, groups and hit buffers, so every border and the column-by-column fallback run).

    >>> SIZES.threads * SIZES.per_thread           # windows a fused block scans
    4096
    """

    threads: int = 256
    per_thread: int = 16          # fused: windows per thread (K)
    segment: int = 2048           # segments: letters of text per block (Giraud & Varré)
    buffer: int = 512             # segments: hits a block gathers in shared memory
    fused_words: int = 12288      # coarse table words (int32) a fused block stages: 48 KiB
    form: str = "lanes"           # fused: "lanes" (8 entries a 16-byte row, ._lanes) or "words" (the first form)
    lane_words: int = 24576       # lanes: table words a block stages (96 KiB; 1,024 an octet's slice)
    segment_words: int = 8192     # coarse matrix words a segments block stages: 32 KiB


SIZES = ScanSizes()
#: The ``lanes`` kernel's arrays from its layout, in its argument order (then the grid matrices, thresholds,
#: keep_from, withheld and the hit buffers).
LANE_ARRAYS = ("group_octet", "group_table", "group_words", "group_reach", "octet_table", "octet_slices",
               "octet_init", "coarse", "length", "units_start")


def fused_kernel(L, sizes):
    """The ``fused`` kernel for slices of L columns (4: tables of 4**4 coarse scores; 1: column by
    column), compiled on its first launch."""
    return _gpu.kernel(KERNELS, "scan.cu", "scan_fused", (L, sizes.threads, sizes.per_thread))


def lanes_kernel(sizes):
    """The ``fused`` kernel's ``lanes`` form (:mod:`._lanes`), compiled on its first launch: each thread
    sums 4 Q windows, Q = per_thread / 4 (at least 1)."""
    return _gpu.kernel(KERNELS, "scan.cu", "scan_lanes", (sizes.threads, lane_groups(sizes)))


def lane_groups(sizes) -> int:
    """Q: the groups of 4 consecutive windows a thread of the ``lanes`` form sums.

    >>> lane_groups(SIZES)
    4
    """
    return max(1, sizes.per_thread // 4)


def segments_kernel(sizes):
    """The ``segments`` kernel (Giraud & Varré's MULTIPLESCAN), compiled on its first launch."""
    return _gpu.kernel(KERNELS, "scan.cu", "scan_segments", (sizes.segment, sizes.threads, sizes.buffer))


def coarse_entry(units, threshold, L):
    """The coarse form of one entry ((m, 4) grid matrix ``units``, threshold ``threshold`` in grid
    units) in slices of L columns: (column offsets, tables (slices, 4**L) int32, coarse threshold). A
    slice shorter than L (the last) ignores its extra letters. Every window whose exact score reaches
    ``threshold`` has a coarse sum at least the coarse threshold.

    >>> units = np.array([[4, 0, 0, 0], [0, 6, 0, 0], [0, 0, 0, 2]])
    >>> offsets, tables, T = coarse_entry(units, 10, 2)
    >>> offsets.tolist(), tables.shape, int(T), int(tables[0][0 * 4 + 1] + tables[1][3 * 4])   # ACT
    ([0, 2], (2, 16), 10, 12)
    """
    m = units.shape[0]
    offsets = np.arange(0, m, L)
    exact = []
    for o in offsets:
        width = min(L, m - o)
        t = slice_table(units, int(o), width)
        exact.append(np.repeat(t, 4 ** (L - width)))        # extra letters: don't care
    lows = [int(t.min()) for t in exact]
    spans = [int(t.max()) - low for t, low in zip(exact, lows)]
    step = max(1, -(-sum(spans) // LEVELS))
    rest = int(threshold) - sum(lows)
    tables = np.array([-(-(t - low) // step) for t, low in zip(exact, lows)], dtype=np.int64)
    coarse_threshold = -(-rest // step)
    coarse_threshold = max(min(coarse_threshold, 1 << 30), -(1 << 30))
    return offsets, tables.astype(np.int32), np.int32(coarse_threshold)


@dataclass
class Layout:
    """Entries ``members`` (plan entry ids) in groups for one kernel: every array the kernel reads,
    on the host; entry ids in the kernels are local (positions in ``members``)."""

    L: int
    members: np.ndarray
    group_entry: np.ndarray
    group_table: np.ndarray
    group_words: np.ndarray
    group_reach: np.ndarray
    entry_slice: np.ndarray       # fused: slices of each entry; segments: its first column word
    slice_meta: np.ndarray
    coarse_threshold: np.ndarray
    coarse: np.ndarray
    length: np.ndarray
    units_start: np.ndarray
    threshold: np.ndarray

    @property
    def groups(self) -> int:
        return self.group_entry.shape[0] - 1

    @property
    def largest_group(self) -> int:
        return int(self.group_words.max()) if self.groups else 0


def build_layout(plan, members, L, budget) -> Layout:
    """The :class:`Layout` of the entries ``members`` of ``plan`` in slices of L columns (L = 1: the
    column-by-column matrices of the ``segments`` kernel), groups of at most ``budget`` table words.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._plan import ScanPlan
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[[0, 1, 2, 3, 0]])] * 3, [0] * 3)
    >>> layout = build_layout(plan, np.arange(plan.entries), 4, 600)     # 2 slices of 256 words each
    >>> layout.groups, layout.group_words.tolist()[:2], layout.entry_slice.tolist()[:3]
    (6, [512, 512], [0, 2, 4])
    """
    group_entry, group_table, group_words, group_reach = [0], [], [], []
    entry_slice, slice_meta, coarse_thr, coarse = [0], [], [], []
    words = reach = table_at = 0
    per_slice = 4 ** L
    for local, e in enumerate(members):
        m = int(plan.length[e])
        u = plan.units_flat[plan.units_start[e]:plan.units_start[e] + m]
        offsets, tables, T = coarse_entry(u, int(plan.threshold[e]), L)
        need = tables.size
        if need > budget:
            raise InvalidParameter(f"a motif of {m} columns is too long for the GPU scan's shared memory; "
                                   "use --backend cpu")
        if words + need > budget:                          # close the group
            group_entry.append(local)
            group_table.append(table_at)
            group_words.append(words)
            group_reach.append(reach)
            table_at += words
            words = reach = 0
        for o in offsets:                                   # (column offset, table start in the group)
            slice_meta.append((int(o) << 16) | words)
            words += per_slice
        entry_slice.append(len(slice_meta))
        reach = max(reach, m)
        coarse_thr.append(int(T))
        coarse.append(tables.ravel())
    if words:
        group_entry.append(len(members))
        group_table.append(table_at)
        group_words.append(words)
        group_reach.append(reach)
    i32 = lambda a: np.array(a, dtype=np.int32)  # noqa: E731
    members = np.asarray(members, dtype=np.int64)
    return Layout(L, members, i32(group_entry), np.array(group_table, np.int64), i32(group_words), i32(group_reach),
                  i32(entry_slice), i32(slice_meta), i32(coarse_thr),
                  np.concatenate(coarse).astype(np.int32) if coarse else np.zeros(1, np.int32),
                  plan.length[members].astype(np.int32), plan.units_start[members].astype(np.int64),
                  plan.threshold[members].astype(np.int64))


def entry_columns(layout) -> np.ndarray:
    """For the ``segments`` kernel (L = 1): each entry's first column word within its group."""
    return (layout.slice_meta[layout.entry_slice[:-1]] & 0xFFFF).astype(np.int32)


def warm_up(sizes=None) -> None:
    """Import CuPy, create the CUDA context, compile (or load from CuPy's cache) the ``fused`` variant's
    kernels of ``sizes`` (None: :data:`SIZES`) and put a block in the memory pool: about 0.7 s that a first scan
    otherwise spends before its first chunk, which the command line runs on a thread of its own while it
    reads the motifs and finds their thresholds. Raises :class:`~bioaccel.errors.GPUUnavailable` as
    :class:`GpuScanner` would."""
    cp = _gpu.require_gpu()
    sizes = sizes or SIZES
    if sizes.form == "lanes":          # the default variant's kernel (longer entries' compile when launched)
        lanes_kernel(sizes)
    else:
        fused_kernel(4, sizes)
        fused_kernel(1, sizes)
    block = cp.empty(1 << 26, dtype=cp.uint8)      # 64 MB: a chunk's letters and hits come from the pool
    block.fill(0)
    cp.cuda.Device().synchronize()
    del block


class GpuScanner:
    """Scans chunks on the GPU with ``variant`` (``fused`` or ``segments``) and launch ``sizes`` (None:
    :data:`SIZES`, read now): :meth:`submit` starts a chunk and returns a function that waits for its
    hits ``(entry, start, units)``."""

    def __init__(self, plan, variant, sizes=None):
        cp = _gpu.require_gpu()
        self.cp = cp
        self.plan = plan
        self.variant = variant
        self.sizes = sizes or SIZES
        everyone = np.arange(plan.entries)
        self.jobs = []
        if variant == "segments":
            layout = build_layout(plan, everyone, 1, self.sizes.segment_words)
            self.jobs.append((layout, segments_kernel(self.sizes), self.sizes.segment))
        else:
            if self.sizes.form == "lanes":        # octets of 16-bit lanes; longer entries as the first form
                per_octet = -(-plan.length // 4) * TABLE_WORDS
                octets = everyone[per_octet <= self.sizes.lane_words]
                everyone = everyone[per_octet > self.sizes.lane_words]
                if octets.size:
                    self.jobs.append((build_lanes(plan, octets, self.sizes.lane_words), lanes_kernel(self.sizes),
                                      self.sizes.threads * 4 * lane_groups(self.sizes)))
            elif self.sizes.form != "words":
                raise InvalidParameter(f"unknown fused kernel form {self.sizes.form!r} (lanes or words)")
            # 4-letter tables; an entry too long for them (over ~380 columns) goes column by column
            per_entry = -(-plan.length[everyone] // 4) * 256
            small = everyone[per_entry <= self.sizes.fused_words]
            large = everyone[per_entry > self.sizes.fused_words]
            span = self.sizes.threads * self.sizes.per_thread
            if small.size:
                self.jobs.append((build_layout(plan, small, 4, self.sizes.fused_words), fused_kernel(4, self.sizes),
                                  span))
            if large.size:
                self.jobs.append((build_layout(plan, large, 1, self.sizes.fused_words), fused_kernel(1, self.sizes),
                                  span))
        self.device = [dict(self._upload(layout), members=cp.asarray(layout.members, dtype=cp.int64))
                       for layout, _, _ in self.jobs]
        self.units = cp.asarray(plan.units_flat.ravel())
        self.streams = [cp.cuda.Stream(non_blocking=True) for _ in range(2)]
        # the tables were copied on the caller's stream, which non-blocking streams do not wait for
        uploaded = cp.cuda.Event()
        uploaded.record()
        for scan_stream in self.streams:
            scan_stream.wait_event(uploaded)
        self.turn = 0
        self.capacity = 1 << 16
        self.keep_from = [arrays["threshold"] for arrays in self.device]   # per job: fused hits kept from
        self._floor = None           # asked by withhold_below, applied at the next submit
        self.withheld = 0            # hits found and only counted (below keep_from), not yet taken

    def withhold_below(self, floor) -> None:
        """From the next chunk on, the ``fused`` kernels only count (:meth:`take_withheld`) the hits of entry
        e scoring below ``floor[e]`` (grid units; int64 per plan entry) rather than copy them out: hits
        that cannot be among the best kept (``--max-stored-hits``), which are nearly all of a genome's.
        The ``segments`` kernel (the paper's) reports every hit as it did."""
        if self.variant != "segments":
            self._floor = np.asarray(floor, np.int64).copy()

    def take_withheld(self) -> int:
        """The hits withheld since the last call (counted when a chunk's result was taken)."""
        count, self.withheld = self.withheld, 0
        return count

    def _upload(self, layout):
        cp = self.cp
        if isinstance(layout, LaneLayout):
            return {name: cp.asarray(getattr(layout, name)) for name in LANE_ARRAYS + ("threshold",)}
        arrays = {name: cp.asarray(getattr(layout, name)) for name in (
            "group_entry", "group_table", "group_words", "group_reach", "entry_slice", "slice_meta",
            "coarse_threshold", "coarse", "length", "units_start", "threshold")}
        if layout.L == 1 and self.variant == "segments":
            arrays["entry_column"] = cp.asarray(entry_columns(layout))
        return arrays

    def _launch(self, job, arrays, codes, n, windows, out, keep, withheld):
        layout, kernel, span = job
        reach = int(layout.group_reach.max())
        lanes = isinstance(layout, LaneLayout)
        if self.variant == "segments":
            shared = layout.largest_group * 4 + span + reach
        elif lanes:
            shared = layout.largest_group * 4 + span + reach + 8
        else:
            shared = layout.largest_group * 4 + span + reach + 4
        kernel.max_dynamic_shared_size_bytes = shared
        segments = -(-windows // span)
        for g0 in range(0, layout.groups, 65535):           # the grid's y dimension holds 65,535 groups
            g1 = min(layout.groups, g0 + 65535)
            if lanes:
                head = tuple(arrays[name][g0:] if name.startswith("group") else arrays[name] for name in LANE_ARRAYS)
                kernel((segments, g1 - g0), (self.sizes.threads,), (codes, np.int64(n), np.int64(windows), *head,
                                                                   self.units, arrays["threshold"], keep, withheld, *out),
                       shared_mem=shared)
                continue
            head = (codes, np.int64(n), np.int64(windows), arrays["group_entry"][g0:], arrays["group_table"][g0:],
                    arrays["group_words"][g0:], arrays["group_reach"][g0:])
            if self.variant == "segments":
                body = (arrays["entry_column"], arrays["coarse_threshold"], arrays["coarse"])
            else:
                body = (arrays["entry_slice"], arrays["slice_meta"], arrays["coarse_threshold"], arrays["coarse"])
            tail = (arrays["length"], arrays["units_start"], self.units, arrays["threshold"],
                    *(() if self.variant == "segments" else (keep, withheld)), *out)
            kernel((segments, g1 - g0), (self.sizes.threads,), (*head, *body, *tail), shared_mem=shared)

    def submit(self, codes, windows):
        """Start scanning the first ``windows`` windows of ``codes`` (the host array may be reused as
        soon as this returns); the returned function waits and gives ``(entry, start, units)``."""
        cp = self.cp
        n = int(codes.shape[0])
        if windows <= 0 or not self.jobs:
            empty = np.zeros(0, np.int64)
            return lambda: (empty, empty, empty)
        stream = self.streams[self.turn]
        self.turn ^= 1
        floor, self._floor = self._floor, None
        with stream:
            if floor is not None:        # new arrays (a chunk still running on the other stream reads the old)
                self.keep_from = [cp.asarray(np.maximum(layout.threshold, floor[layout.members]))
                                  for layout, _, _ in self.jobs]
                self.streams[self.turn].wait_event(stream.record())    # the next chunk reads them too
            device_codes = cp.asarray(np.ascontiguousarray(codes, dtype=np.uint8))
            runs = [self._run(job, arrays, device_codes, n, windows, self.capacity, keep)
                    for job, arrays, keep in zip(self.jobs, self.device, self.keep_from)]

        def result():
            stream.synchronize()
            parts = []
            for (job, arrays), (counter, out, withheld, keep) in zip(zip(self.jobs, self.device), runs):
                found = int(counter.get()[0])
                if found > out[1].shape[0]:                  # too many hits for the buffers: again, larger
                    with stream:
                        counter, out, withheld, _ = self._run(job, arrays, device_codes, n, windows, found, keep)
                    stream.synchronize()
                self.withheld += int(withheld.get()[0])
                self.capacity = max(self.capacity, found + (found >> 1))
                with stream:                         # sorted on the device, by position then entry
                    entry = arrays["members"][out[1][:found]]
                    pos, units = out[2][:found], out[3][:found]
                    parts.append((entry, pos, units))
            with stream:
                entry, pos, units = (cp.concatenate([p[k] for p in parts]) for k in range(3))
                order = cp.argsort(pos * max(self.plan.entries, 1) + entry)
                # (int64 on the device already: a second host copy by astype cost 0.1 s of 47 M hits)
                found = tuple(a[order].get().astype(np.int64, copy=False) for a in (entry, pos, units))
            return found

        return result

    def _run(self, job, arrays, device_codes, n, windows, capacity, keep):
        cp = self.cp
        counter = cp.zeros(1, dtype=cp.uint64)
        withheld = cp.zeros(1, dtype=cp.uint64)
        out = (counter, cp.empty(capacity, dtype=cp.int32), cp.empty(capacity, dtype=cp.int64),
               cp.empty(capacity, dtype=cp.int64), np.int64(capacity))
        self._launch(job, arrays, device_codes, n, windows, out, keep, withheld)
        return counter, out, withheld, keep           # (keep: alive until the chunk is done)

    def scan(self, codes, windows):
        """The hits of the first ``windows`` windows of ``codes``: ``(entry, start, units)``."""
        return self.submit(codes, windows)()
