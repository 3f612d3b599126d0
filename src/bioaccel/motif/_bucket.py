"""BUCKETSCOREDISTRIBUTION (seed 004, section 4.2), on all CPU cores or the GPU.

The matrix is cut into N slices of nearly equal length. For each slice all 4**L words are enumerated
and each word's *score* (not each column's) is rounded down into one of B buckets spanning
``[min, max]`` of that slice. The slice tables are then merged pairwise along a balanced tree, each
merge a convolution whose sums are rounded down again into B buckets spanning the merged range. The
error on scores is at most ``(1 + ceil(log2 N)) * (max M - min M) / B`` (section 4.3), and
:class:`ScoreDistribution` turns it into certified P-value bounds.

Word scores are summed in fixed point (``floor(score * 2**S)`` in int64, S chosen so no sum can
overflow): sums are exact in any order, so the CPU and the GPU put every word in the same bucket.
The fixed-point rounding adds at most ``m * 2**-S`` (~1e-11) to the error, which is included.

Markov backgrounds of order k: a slice's table is indexed by the k letters before it (its context)
and its own last k letters, ``table[in, out, bucket]``; merges sum over the shared context. Every
slice must then be at least k letters long. The GPU kernels handle orders 0 to 2.
"""
import math
import types

import numpy as np
from numba import njit, prange  # noqa: F401  (prange: parallel loops in the kernels below)

from ..errors import InvalidParameter, ResourceError
from ._distribution import ScoreDistribution

DEFAULT_SLICES = 4
DEFAULT_BUCKETS = 3600          # the seed's B: one 32-bit table of 3600 buckets fits in 16 KB
MAX_WORDS_CPU = 4 ** 18


def fixed_point_shift(scores):
    """S such that any word score times 2**S fits comfortably in an int64 (below 2**52)."""
    total = float(np.abs(scores).max(axis=1).sum()) + 1.0
    return int(51 - math.ceil(math.log2(total)))


def slice_bounds(m, slices):
    """(start, stop) of each slice; the first ``m % slices`` slices are one column longer."""
    base, extra = divmod(m, slices)
    out, start = [], 0
    for i in range(slices):
        stop = start + base + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


class SliceGrid:
    """How one slice's word scores map to buckets (shared by the CPU and GPU enumerations)."""

    def __init__(self, qfix, shift, buckets):
        self.q = np.ascontiguousarray(qfix, dtype=np.int64)
        self.qmin = int(self.q.min(axis=1).sum())
        self.qmax = int(self.q.max(axis=1).sum())
        width = self.qmax - self.qmin
        self.buckets = int(buckets)
        self.scale = float(buckets) / width if width > 0 else 0.0
        unit = 2.0 ** -shift
        self.offset = self.qmin * unit
        self.step = width * unit / buckets


def _enumerate_slice(q, qmin, scale, buckets, initial, transition, order, first, prefix_len):
    """Histogram of one slice's words: out[in_ctx, out_ctx, bucket] = total probability.

    Chunks of words sharing their first ``prefix_len`` letters run in parallel, each into its own
    table; within a chunk an odometer over the other letters updates only the changed positions.
    """
    L = q.shape[0]
    nctx = transition.shape[0]
    nin = 1 if first else nctx
    nchunks = 4 ** prefix_len
    hist = np.zeros((nchunks * nin, nctx, buckets), np.float64)
    for task in prange(nchunks * nin):
        a = task // nchunks
        pre = task % nchunks
        letters = np.zeros(L, np.int64)
        psum = np.zeros(L + 1, np.int64)
        pw = np.ones(L + 1, np.float64)
        pc = np.zeros(L + 1, np.int64)
        for j in range(prefix_len):
            letters[j] = (pre >> (2 * (prefix_len - 1 - j))) & 3
        pc[0] = 0 if first else a
        start = 0
        while True:
            for j in range(start, L):
                x = letters[j]
                psum[j + 1] = psum[j] + q[j, x]
                ctx = pc[j]
                pc[j + 1] = (ctx * 4 + x) % nctx
                if first and j < order:
                    pw[j + 1] = initial[pc[j + 1]] if j + 1 == order else 1.0
                else:
                    pw[j + 1] = pw[j] * transition[ctx, x]
            b = np.int64((psum[L] - qmin) * scale)
            if b >= buckets:
                b = buckets - 1
            hist[task, pc[L], b] += pw[L]
            j = L - 1
            while j >= prefix_len and letters[j] == 3:
                letters[j] = 0
                j -= 1
            if j < prefix_len:
                break
            letters[j] += 1
            start = j
    out = np.zeros((nin, nctx, buckets), np.float64)
    for task in range(nchunks * nin):
        out[task // nchunks] += hist[task]
    return out


def _merge(ta, step_a, tb, step_b, buckets):
    """Convolution of two bucket tables, rounded down into ``buckets`` buckets of width
    step_a + step_b: out[a, c, floor((i*step_a + j*step_b) / (step_a + step_b))] += ta[a,b,i]*tb[b,c,j].

    Rows i of the left table are split into chunks merged in parallel into private tables."""
    nin, nmid, na = ta.shape
    nout, nb = tb.shape[1], tb.shape[2]
    step = step_a + step_b
    inv = 1.0 / step if step > 0 else 0.0
    chunks = min(na, 64)
    per = (na + chunks - 1) // chunks
    partial = np.zeros((chunks, nin, nout, buckets), np.float64)
    for chunk in prange(chunks):
        acc = partial[chunk]
        for i in range(chunk * per, min(na, (chunk + 1) * per)):
            base = i * step_a
            for a in range(nin):
                for mid in range(nmid):
                    wa = ta[a, mid, i]
                    if wa == 0.0:
                        continue
                    for c in range(nout):
                        for j in range(nb):
                            wb = tb[mid, c, j]
                            if wb == 0.0:
                                continue
                            k = np.int64((base + j * step_b) * inv)
                            if k >= buckets:
                                k = buckets - 1
                            acc[a, c, k] += wa * wb
    out = np.zeros((nin, nout, buckets), np.float64)
    for chunk in range(chunks):
        out += partial[chunk]
    return out


# Each kernel compiled twice: small work runs on one thread, where a parallel region would cost more
# than it saves (and, on an oversubscribed machine, OpenMP's spinning barrier can cost far more).
PARALLEL_WORDS = 4 ** 9
PARALLEL_PAIRS = 1 << 20


def _renamed(func, name):
    """A copy of ``func`` under another name: Numba's on-disk cache tells functions apart by name, not
    by compile options."""
    copy = types.FunctionType(func.__code__, func.__globals__, name, func.__defaults__, func.__closure__)
    copy.__qualname__ = name
    return copy


_enumerate_parallel = njit(cache=True, parallel=True, nogil=True)(_renamed(_enumerate_slice, "_enumerate_parallel"))
_enumerate_serial = njit(cache=True, nogil=True)(_renamed(_enumerate_slice, "_enumerate_serial"))
_merge_parallel = njit(cache=True, parallel=True, nogil=True)(_renamed(_merge, "_merge_parallel"))
_merge_serial = njit(cache=True, nogil=True)(_renamed(_merge, "_merge_serial"))


def merge_tables(ta, step_a, tb, step_b, buckets):
    pairs = np.count_nonzero(ta) * np.count_nonzero(tb)
    kernel = _merge_parallel if pairs >= PARALLEL_PAIRS else _merge_serial
    return kernel(ta, step_a, tb, step_b, buckets)


class _Node:
    __slots__ = ("table", "offset", "step", "error")

    def __init__(self, table, offset, step, error):
        self.table, self.offset, self.step, self.error = table, offset, step, error


def _merge_tree(nodes, buckets):
    """Merge adjacent tables along a balanced binary tree (depth ceil(log2 N))."""
    if len(nodes) == 1:
        return nodes[0]
    half = (len(nodes) + 1) // 2
    left, right = _merge_tree(nodes[:half], buckets), _merge_tree(nodes[half:], buckets)
    table = merge_tables(left.table, left.step, right.table, right.step, buckets)
    step = left.step + right.step
    return _Node(table, left.offset + right.offset, step, left.error + right.error + step)


def slice_grids(pssm, slices, buckets):
    """The fixed-point slices of ``pssm`` and their bucket grids."""
    m = pssm.length
    if slices < 1 or slices > m:
        raise InvalidParameter(f"--slices must be between 1 and the motif length {m}, got {slices}")
    if buckets < 2:
        raise InvalidParameter(f"--buckets must be at least 2, got {buckets}")
    shift = fixed_point_shift(pssm.scores)
    qfix = np.floor(pssm.scores * 2.0 ** shift).astype(np.int64)
    return [SliceGrid(qfix[a:b], shift, buckets) for a, b in slice_bounds(m, slices)], shift


def _prefix_len(L, tasks_per_prefix, cells):
    """Letters fixed per parallel task: enough tasks for every core, tables within 256 MB."""
    from numba import get_num_threads

    want = 4 * get_num_threads()
    p = 0
    while p < L and (4 ** p) * tasks_per_prefix < want and (4 ** (p + 1)) * cells * 8 < 256e6:
        p += 1
    return p


def bucket_leaves_cpu(pssm, grids):
    bg = pssm.background
    order = bg.order
    initial = np.ascontiguousarray(bg.initial, dtype=np.float64)
    transition = np.ascontiguousarray(bg.transition, dtype=np.float64)
    tables = []
    for index, grid in enumerate(grids):
        L = grid.q.shape[0]
        if 4 ** L > MAX_WORDS_CPU:
            raise ResourceError(
                f"{pssm.motif_id}: a slice of {L} columns means 4**{L} = {4 ** L:,} words to enumerate on the CPU; "
                f"use more --slices (at least {math.ceil(pssm.length / 18)}), --backend gpu or --method exact")
        first = index == 0
        nin = 1 if first else transition.shape[0]
        cells = nin * transition.shape[0] * grid.buckets
        prefix = _prefix_len(L, nin, cells)
        kernel = _enumerate_parallel if nin * 4 ** L >= PARALLEL_WORDS else _enumerate_serial
        tables.append(kernel(grid.q, grid.qmin, grid.scale, grid.buckets, initial, transition,
                             order, first, prefix))
    return tables


def bucket_distribution(pssm, *, slices=DEFAULT_SLICES, buckets=DEFAULT_BUCKETS, backend="cpu"):
    """BUCKETSCOREDISTRIBUTION: a :class:`ScoreDistribution` with error
    ``(1 + ceil(log2 N)) * (max - min) / B`` (plus the fixed-point rounding, < m * 2**-S)."""
    order = pssm.background.order
    slices = min(int(slices), pssm.length)
    grids, shift = slice_grids(pssm, slices, buckets)
    if order and min(g.q.shape[0] for g in grids) < order:
        raise InvalidParameter(
            f"{pssm.motif_id}: a Markov background of order {order} needs slices of at least {order} "
            f"columns; use fewer --slices (at most {pssm.length // order})")
    if backend == "gpu":
        from ._gpu import bucket_leaves_gpu

        tables = bucket_leaves_gpu(pssm, grids)
    elif backend == "cpu":
        tables = bucket_leaves_cpu(pssm, grids)
    else:
        raise InvalidParameter(f"unknown backend {backend!r}; expected cpu or gpu")
    unit = 2.0 ** -shift
    nodes = [_Node(t, g.offset, g.step, g.step + g.q.shape[0] * unit) for t, g in zip(tables, grids)]
    root = _merge_tree(nodes, buckets)
    mass = root.table.sum(axis=(0, 1))
    return ScoreDistribution(root.offset, root.step, mass, root.error, method="bucket",
                             motif_id=pssm.motif_id)


def seed_error_bound(pssm, slices, buckets):
    """The seed's bound on scores: (1 + ceil(log2 N)) * (max - min) / B."""
    return (1 + math.ceil(math.log2(slices))) * (pssm.max_score - pssm.min_score) / buckets
