"""The device tables of BPPart's windowed GPU fill and the launches that fill them (kernels/bppart_band.cu):
the band tables of one window length, a launch's kernels level by level, and the gather of its windows'
values. Scheduled by :mod:`._partition_band_gpu` (docs/bppart-gpu-notes.md).
"""
import numpy as np

from ..runtime import gpu as _gpu
from ._partition_band_sizes import (aligned, band_cross_kernel, band_cross_run, band_cross_runs_everywhere,
                                    band_cross_shared, band_last_kernel, band_outer_kernel, band_outer_role,
                                    band_tiles_arguments, band_tiles_shared)

KERNELS = "bioaccel.interact.kernels"
FULL_TABLES = 7               # QI, QX, QIac, QF, R, T0, AUX0 (every query interval)
LEVEL_TABLES = 4              # T1, AUX1, ACCA, ACCM (the query intervals of one length)
N_CODE = 4                    # the code of a base that pairs with nothing (PartitionParams.weights)


def band_intervals(M: int, L1: int) -> int:
    """Query intervals of 1 to L1 bases, and one for every empty interval.

    >>> band_intervals(23, 23)
    277
    """
    return 1 + L1 * M - L1 * (L1 - 1) // 2


def band_pitch(L2: int) -> int:
    """Doubles between a band table's rows (v38, kernels/bppart_tile.cuh's band_pitch): the L2 + 1 cells of a row, and
    a pad where that is even, so that a row's pairs of cells (columns 2 j, 2 j + 1) start 16 bytes aligned in every row.

    >>> band_pitch(129), band_pitch(128)
    (131, 129)
    """
    return (L2 + 1) | 1


def row_bytes(M: int, L1: int, L2: int) -> int:
    """Device bytes per target base of a launch: a band row of every table, Q1 and its pair sums, a code.

    >>> round(row_bytes(23, 23, 129) / 2**20, 2)
    2.03
    """
    return 8 * band_pitch(L2) * (FULL_TABLES * band_intervals(M, L1) + LEVEL_TABLES * M + 2) + 1


class _Tables:
    """The device tables of one launch group, sized for ``rows`` bases and reused by its launches: a
    launch reads only cells it wrote and the empty target intervals (set by each launch); the cells
    outside the band are masked, not read. So the tables start unset (no zeroing: 42 GB, 14 ms at 23 x
    20,000 nt), whatever an earlier launch or call left in the pool's memory; the tests fill them with
    NaN (``fresh``: :data:`._partition_band_gpu.FRESH_FILL`). ``key``: what another job needs to reuse them."""

    def __init__(self, cp, M, L1, L2, rows, fresh=None):
        self.cp, self.M, self.L1, self.L2, self.W1, self.P = cp, M, L1, L2, L2 + 1, band_pitch(L2)
        self.key, self.job = (M, L1, L2, rows), None
        self.n_int = band_intervals(M, L1)
        self.S = (rows + 1) * self.P
        self.full = [cp.empty(self.n_int * self.S) for _ in range(FULL_TABLES)]
        self.level = [cp.empty(M * self.S) for _ in range(LEVEL_TABLES)]
        self.Q1 = cp.empty(self.S)
        self.Z = cp.empty(self.S)
        if fresh is not None:
            for table in self.full + self.level + [self.Q1, self.Z]:
                table.fill(fresh)

    def load(self, job, a, Q0, weights, u1, u2):
        """The query's codes, its strand's partition function and the weights at the scales of ``job`` (the
        tables serve the jobs of one table size in turn, a query after another)."""
        cp, M, L1, L2 = self.cp, self.M, self.L1, self.L2
        self.job = job
        self.a = cp.asarray(np.ascontiguousarray(a, dtype=np.uint8))
        self.Q0 = cp.asarray(np.ascontiguousarray(Q0))
        self.q0_cells = cp.asarray(np.array([Q0[i, e] for length in range(1, L1 + 1)
                                             for i in range(M - length + 1) for e in [i + length]]))
        self.W = cp.asarray(np.concatenate([(weights * (u1 * u1)).ravel(), (weights * (u2 * u2)).ravel(),
                                            (weights * (u1 * u2)).ravel()]))
        self.raw = cp.asarray(np.ascontiguousarray(weights.ravel()))
        self.closing = _closing_words(a, weights)
        powers = np.ones(L2 + 1)
        for k in range(1, L2 + 1):
            powers[k] = powers[k - 1] * u2
        self.powers = cp.asarray(powers)

    def fill(self, pieces, sizes, timings, clock):
        """Every table of the pieces laid back to back (n bases in all)."""
        cp, M, L1, W1, P = self.cp, self.M, self.L1, self.W1, self.P
        filler = N_CODE         # pairs with nothing; only the cells that cross pieces read it
        codes = np.concatenate([np.pad(p.codes, (0, aligned(len(p.codes), sizes) - len(p.codes)),
                                       constant_values=filler) for p in pieces]).astype(np.uint8)
        if sizes.band_align:    # (v16) filler after the last piece: n + 1 a multiple of band_align
            codes = np.concatenate([codes, np.full(-(len(codes) + 1) % sizes.band_align, filler, dtype=np.uint8)])
        n = len(codes)
        if self.L2 % 2 == 0 or n % 2 == 0:    # (the cross's pairs need a pad a row, L2 odd, and S = (n + 1) P even)
            sizes = sizes.replace(band_cross_copy16=0)
        self.sizes = sizes
        S = (n + 1) * P            # this launch's matrices: the first S cells of each slot (rows P cells apart)
        rb = cp.asarray(codes)
        ends, near = _ends(cp, pieces, n, self.L2, sizes)
        # (v35, band_cross_skip_open: a bench's bound) the cross reads which query splits close after the rows' ends
        cross_ends = cp.concatenate([ends, cp.asarray(self.closing)]) if sizes.band_cross_skip_open else ends
        clock.lap("codes")
        events = {"single": [], "cross": [], "outer": [], "sweep": []}

        def mark(key):
            if timings is not None:
                events.setdefault(key, []).append(cp.cuda.Event())
                events[key][-1].record()

        Q1, Z = self.Q1[:S], self.Z[:S]
        Q1[...] = 0.0
        Q1.reshape(n + 1, P)[:, 0] = 1.0
        single = _kernel("bppart_band_single")
        mark("single")
        for length in range(1, min(self.L2, n) + 1):
            starts = n - length + 1
            single((-(-starts // 128),), (128,), (rb, self.raw, self.powers, Q1, Z, np.int32(n), np.int32(W1),
                                                   np.int32(length)))
        tables = [t[:self.n_int * S].reshape(self.n_int, n + 1, P) for t in self.full]
        QI, QX, QIac, QF, R, T0, AUX0 = tables
        if P > W1 and sizes.band_cross_copy16:    # (v38: the pads the cross's pairs read, zeros; no kernel writes them)
            for table in (QI, QIac, QF):
                table[:, :, W1:] = 0.0
        if len(near):            # (before QI[0] = Q1: the target alone is kept whole; timed with "single")
            unneeded = _kernel("bppart_band_unneeded")
            for table, count in [(t, self.n_int) for t in self.full] + [(t, M) for t in self.level]:
                unneeded((len(near), -(-count // 16)), (128,), (table, np.int64(count), np.int64(S), near, ends,
                                                                np.int32(W1)))
        mark("single")
        QI[0] = Q1.reshape(n + 1, P)
        QI[1:, :, 0] = self.q0_cells[:, None]
        T1, AUX1, ACCA, ACCM = [t[:M * S] for t in self.level]
        for table in (QX, QIac, QF, R, T0, AUX0, T1.reshape(M, n + 1, P), AUX1.reshape(M, n + 1, P)):
            table[:, :, 0] = 0.0   # read as "no structure"; an earlier launch's layout may have left a value
        sms = _gpu.multiprocessors()   # cached per device: this runs once a launch
        TR, TC, B = sizes.band_rows, sizes.band_cols, sizes.band_tile
        name, arguments, threads = band_cross_kernel(sizes)
        strip = name == "bppart_band_cross_mma" and arguments[-1]
        ring = name == "bppart_band_cross_ring"
        run = ring and arguments[9] & 65536        # (v28: the levels whose blocks take runs of intervals)
        plain, plain_arguments, _ = band_cross_kernel(sizes.replace(band_cross_run=0))   # (the levels without runs)
        cross_run = _kernel(name, *arguments) if run else None
        # (v30: the runs' kernel at per = 1 too, band_cross_hoist 2: the one-interval kernel not built)
        cross = cross_run if band_cross_runs_everywhere(sizes) else _kernel(plain, *plain_arguments)
        cross_run = cross if cross_run is None else cross_run
        cross_shared = band_cross_shared(sizes) if ring else 0
        if cross_shared:       # (v11: a ring over 48 KB, in dynamic shared memory)
            cross.max_dynamic_shared_size_bytes = cross_run.max_dynamic_shared_size_bytes = cross_shared
        tiles = _kernel("bppart_band_tiles", *band_tiles_arguments(sizes))
        shared = band_tiles_shared(sizes)
        if shared:
            tiles.max_dynamic_shared_size_bytes = shared
        outer_name, outer_arguments = band_outer_kernel(sizes)
        outer = _kernel(outer_name, *outer_arguments) if sizes.band_split else None
        ntr, D = -(-(n + 1) // TR), (TR + self.L2 - 1) // TC + 1
        if strip:              # column tiles j = 0 .. D from the row tile's first row: TR + L2 columns
            D = -(-(TR + self.L2) // TC) - 1
        nt = -(-(n + 1) // B)
        dmax = min(nt - 1, (self.L2 + B - 1) // B)
        last = band_last_kernel(sizes, self.L2, nt) if sizes.band_sweep != "persistent" else None
        counters = cp.zeros(L1 + 1, dtype=np.uint32)
        dims = (np.int32(M), np.int32(n), np.int32(W1))
        flat = [t.reshape(-1) for t in tables]
        for l1 in range(1, L1 + 1):
            mats = M - l1 + 1
            mark("cross")
            mark(("cross", l1))
            if l1 >= 2:
                grid = ntr * (D + 1) * mats
                split = min(l1 - 1, max(1, -(-(sizes.cross_blocks or 4 * sms) // grid)))
                group = ring and arguments[6]      # (GROUP; the last is the copies' hint)
                if split > 1 and not group:
                    ACCA.fill(0), ACCM.fill(0)
                sums = [(w, g0) for w in (0, 1) for g0 in range(0, l1 - 1, group)] if group else [(0, 0)]
                per = band_cross_run(sizes, l1, mats)     # (v28: query intervals a block; 1: the kernel without runs)
                for which, g0 in sums:      # (a ring takes which and g0; a group, its launch's sum and splits)
                    apart = 2 if ring and arguments[9] & 128 else 1     # (v21: a block a sum)
                    kernel = cross_run if per > 1 else cross
                    kernel((ntr * (D + 1), -(-mats // per), 1 if group else split * apart), (threads,),
                           (flat[2], flat[0], flat[3], ACCA, ACCM, *dims, np.int32(l1), np.int32(ntr), np.int32(D))
                           + ((np.int32(which), np.int32(g0), cross_ends, np.int32(per)) if ring else ()),
                           shared_mem=cross_shared)
            mark(("cross", l1))
            mark("cross")
            mark("outer")
            if outer is not None:
                outer((-(-(n + 1) * P // 256), mats), (256,), (self.a, rb, self.Q0, Q1, self.W, flat[0], flat[1],
                                                                 flat[2], flat[3], flat[4], flat[5], flat[6], ACCA,
                                                                 ACCM, *dims, np.int32(l1), ends)
                      + tuple(np.int32(r) for r in band_outer_role(sizes, l1, L1)))
            mark("outer")
            mark("sweep")
            tables = (self.a, rb, self.Q0, Q1, self.W, *flat, T1, AUX1, ACCA, ACCM, *dims, np.int32(l1), np.int32(nt))
            if sizes.band_sweep == "persistent":
                grid = max(1, min(sms * sizes.blocks_per_sm, mats * nt))
                tiles((grid,), (B * B,), (*tables, np.int32(0), np.int32(dmax), counters[l1:], ends), shared_mem=shared)
            else:               # a tile diagonal a launch: a block per tile, no barrier
                for d in range(dmax + 1):
                    mark(("sweep", d))
                    if last is not None and d == dmax:     # (v22: one band cell a tile, a warp a tile)
                        warps = last[2]
                        _kernel(last[0], *last[1])((-(-mats * (nt - d) // warps),), (32 * warps,),
                                                   (*tables, np.int32(d), ends))
                    else:
                        tiles((mats * (nt - d),), (B * B,), (*tables, np.int32(d), np.int32(d), counters[l1:], ends),
                              shared_mem=shared)
                    mark(("sweep", d))
            mark("sweep")
        clock.lap("issue", sync=False)
        clock.lap("device")
        if timings is not None:    # ("sweep", d), ("cross", l1): a tile diagonal's, a level's launches apart (a profile)
            for key, marks in events.items():
                marks[-1].synchronize()
                into = (timings.setdefault({"sweep": "sweep_by_diagonal", "cross": "cross_by_level"}[key[0]], {})
                        if isinstance(key, tuple) else timings)
                key = key[1] if isinstance(key, tuple) else key
                into[key] = into.get(key, 0.0) + sum(
                    cp.cuda.get_elapsed_time(start, stop) for start, stop in zip(marks[::2], marks[1::2])) / 1e3
        self.n, self.tables = n, (QI, QX)

    def gather(self, pieces, lengths, records, x_records, ends):
        """Each piece's windows (those whose start it holds first) into its target's records."""
        cp, M, L1, L2 = self.cp, self.M, self.L1, self.L2
        QI, QX = self.tables
        Q1 = self.Q1[:(self.n + 1) * self.P].reshape(self.n + 1, self.P)
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


def _closing_words(a, weights):
    """Per query start x, the bits o of the query intervals [x, x + o + 1) that can close (at least 5 bases, end
    bases that pair: v32's "closing" splits), an int32 a start: the cross products' bench bound
    ``band_cross_skip_open`` (v35) reads them; queries of up to 32 bases (1 << 31 then the sign bit).

    >>> w = np.zeros((5, 5)); w[0, 3] = w[3, 0] = 1.0
    >>> _closing_words(np.array([0, 1, 1, 1, 3, 3]), w).tolist()
    [48, 0, 0, 0, 0, 0]
    """
    a, M, w = np.asarray(a), len(a), np.asarray(weights).reshape(-1)
    side = int(round(len(w) ** 0.5))       # (5: the bases and N, as the kernels' w1[x0 * 5 + x1])
    words = np.zeros(M, dtype=np.uint32)
    for x in range(M):
        for o in range(4, min(32, M - x)):
            if w[a[x] * side + a[x + o]] != 0.0:
                words[x] |= np.uint32(1 << o)
    return words.view(np.int32)


def _ends(cp, pieces, n, L2, sizes):
    """Per row of a launch of ``pieces`` (n bases), the end (exclusive) of its piece's bases, and the rows
    within L2 of it (device arrays, int32): the kernels skip the tiles whose cells lie past it
    (``sizes.band_ends``; else every end is n: nothing skipped, no row listed).

    >>> from types import SimpleNamespace
    >>> from bioaccel.interact._partition_launch import SIZES
    >>> host = _ends_host([SimpleNamespace(codes=[0] * 70), SimpleNamespace(codes=[0] * 3)], 192, 5, SIZES)
    >>> host[0][[0, 127, 128, 191, 192]].tolist(), host[1].tolist()[:3], len(host[1])
    ([70, 70, 131, 131, 192], [66, 67, 68], 126)
    """
    ends, near = _ends_host(pieces, n, L2, sizes)
    return cp.asarray(ends), cp.asarray(near)


def _ends_host(pieces, n, L2, sizes):
    ends = np.full(n + 1, n, dtype=np.int32)
    if not sizes.band_ends:
        return ends, np.zeros(0, dtype=np.int32)
    offset = 0
    for p in pieces:
        span = aligned(len(p.codes), sizes)
        ends[offset:offset + span] = offset + len(p.codes)
        offset += span
    rows = np.arange(n + 1, dtype=np.int32)
    return ends, rows[(ends - rows < L2) & (rows < n)].astype(np.int32)


def _kernel(name, *arguments):
    return _gpu.kernel(KERNELS, "bppart_band.cu", name, arguments)
