"""The ``bucket`` variant: BUCKETSCOREDISTRIBUTION (Giraud & Varré, section 4.2), on all CPU cores or
the GPU, and the slice and merge machinery that COMPARE by buckets shares.

The matrix is cut into N slices of nearly equal length. For each slice all 4**L words are enumerated
and each word's *score* (not each column's) is rounded down into one of B buckets spanning
``[min, max]`` of that slice. The slice tables are then merged pairwise along a balanced tree, each
merge a convolution whose sums are rounded down again into B buckets spanning the merged range. The
error on scores is at most ``(1 + ceil(log2 N)) * (max M - min M) / B`` (section 4.3), and
:class:`~bioaccel.motif._grid.ScoreDistribution` turns it into certified P-value bounds.

Word scores are summed in fixed point (``floor(score * 2**S)`` in int64, S chosen so no sum can
overflow): sums are exact in any order, so the CPU and the GPU put every word in the same bucket.
The fixed-point rounding adds at most ``m * 2**-S`` (~1e-11) to the error, which is included.

Markov backgrounds of order k: a slice's table is indexed by the k letters before it (its context)
and its own last k letters, ``table[in, out, bucket]``; merges sum over the shared context. Every
slice must then be at least k letters long. The GPU kernels handle orders 0 to 2.

The enumeration (:func:`slice_table`) takes one matrix or two (COMPARE: a word's bucket on each
axis), and :func:`merge_tree` merges any tables along the same tree with the merge it is given.
"""
import math

import numpy as np
from numba import get_num_threads, prange  # noqa: F401  (prange: parallel loops below)

from ..runtime.parallel import serial_and_parallel
from ..errors import InvalidParameter, ResourceError
from ._grid import ScoreDistribution, chain

DEFAULT_SLICES = 4
DEFAULT_BUCKETS = 3600          # the paper's B: one 32-bit table of 3600 buckets fits in 16 KB
MAX_WORDS_CPU = 4 ** 18
# Each kernel is compiled twice: small work runs on one thread, where a parallel region would cost
# more than it saves (and, on an oversubscribed machine, OpenMP's spinning barrier can cost far more).
PARALLEL_WORDS = 4 ** 9
PARALLEL_PAIRS = 1 << 20


def fixed_point_shift(scores) -> int:
    """S such that any word score times 2**S fits comfortably in an int64 (below 2**52).

    >>> fixed_point_shift(np.ones((8, 4)))
    47
    """
    total = float(np.abs(scores).max(axis=1).sum()) + 1.0
    return int(51 - math.ceil(math.log2(total)))


def slice_bounds(m, slices) -> list:
    """(start, stop) of each slice; the first ``m % slices`` slices are one column longer.

    >>> slice_bounds(7, 3)
    [(0, 3), (3, 5), (5, 7)]
    """
    base, extra = divmod(m, slices)
    out, start = [], 0
    for i in range(slices):
        stop = start + base + (1 if i < extra else 0)
        out.append((start, stop))
        start = stop
    return out


def bucket_words(length, slices=DEFAULT_SLICES) -> float:
    """The words BUCKETSCOREDISTRIBUTION enumerates for a motif of ``length`` columns in ``slices``
    slices (at most one a column): 4**L for each slice of L columns, what its time on the CPU grows with.

    >>> bucket_words(10, 4), bucket_words(2, 4)         # slices of 3, 3, 2, 2 columns; of 1 and 1
    (160.0, 8.0)
    """
    return float(sum(4.0 ** (b - a) for a, b in slice_bounds(length, min(int(slices), length))))


class SliceGrid:
    """How one matrix slice's word scores map to buckets (shared by the CPU and GPU enumerations):
    ``qfix`` the slice's fixed-point scores (``floor(score * 2**shift)``), ``buckets`` of equal width
    over its range. ``error`` bounds a word's true score above its bucket's lower edge.

    >>> g = SliceGrid(np.array([[0, 4, 0, 0], [0, 0, 4, 0]]), 2, 4)
    >>> g.offset, g.step, g.error
    (0.0, 0.5, 1.0)
    """

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
        self.error = self.step + self.q.shape[0] * unit       # a bucket, plus the fixed-point rounding


def _slice_histogram(q, qmin, scale, nb, initial, transition, order, first, prefix_len):
    """Histogram of one slice's words for one or two matrices (``q``: (K, L, 4), K = 1 or 2):
    out[in_ctx, out_ctx, cell] = total probability, ``cell`` the word's bucket (K = 1) or
    ``b1 * nb + b2`` (K = 2).

    Chunks of words sharing their first ``prefix_len`` letters run in parallel, each into its own
    table; within a chunk an odometer over the other letters updates only the changed positions.
    """
    two = q.shape[0] == 2
    L = q.shape[1]
    q1 = q[0]
    q2 = q[q.shape[0] - 1]
    nctx = transition.shape[0]
    nin = 1 if first else nctx
    cells = nb * nb if two else nb
    nchunks = 4 ** prefix_len
    hist = np.zeros((nchunks * nin, nctx, cells), np.float64)
    for task in prange(nchunks * nin):
        a = task // nchunks
        pre = task % nchunks
        letters = np.zeros(L, np.int64)
        s1 = np.zeros(L + 1, np.int64)
        s2 = np.zeros(L + 1, np.int64)
        pw = np.ones(L + 1, np.float64)
        pc = np.zeros(L + 1, np.int64)
        for j in range(prefix_len):
            letters[j] = (pre >> (2 * (prefix_len - 1 - j))) & 3
        pc[0] = 0 if first else a
        start = 0
        while True:
            for j in range(start, L):
                x = letters[j]
                s1[j + 1] = s1[j] + q1[j, x]
                if two:
                    s2[j + 1] = s2[j] + q2[j, x]
                ctx = pc[j]
                pc[j + 1] = (ctx * 4 + x) % nctx
                if first and j < order:
                    pw[j + 1] = initial[pc[j + 1]] if j + 1 == order else 1.0
                else:
                    pw[j + 1] = pw[j] * transition[ctx, x]
            cell = min(np.int64((s1[L] - qmin[0]) * scale[0]), nb - 1)
            if two:
                cell = cell * nb + min(np.int64((s2[L] - qmin[1]) * scale[1]), nb - 1)
            hist[task, pc[L], cell] += pw[L]
            j = L - 1
            while j >= prefix_len and letters[j] == 3:
                letters[j] = 0
                j -= 1
            if j < prefix_len:
                break
            letters[j] += 1
            start = j
    out = np.zeros((nin, nctx, cells), np.float64)
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


_histogram_serial, _histogram_parallel = serial_and_parallel(_slice_histogram, nogil=True)
_merge_serial, _merge_parallel = serial_and_parallel(_merge, nogil=True)


def _prefix_len(L, tasks_per_prefix, cells):
    """Letters fixed per parallel task: enough tasks for every core, tables within 256 MB."""
    want = 4 * get_num_threads()
    p = 0
    while p < L and (4 ** p) * tasks_per_prefix < want and (4 ** (p + 1)) * cells * 8 < 256e6:
        p += 1
    return p


def slice_table(grids, background, first) -> np.ndarray:
    """Every word of one slice, enumerated: ``table[in_ctx, out_ctx, b]`` for one matrix's
    :class:`SliceGrid`, ``table[in_ctx, out_ctx, b1, b2]`` for two (the same columns of two matrices,
    with as many buckets each). ``first``: the slice starts the word (the chain's initial k-mer).

    >>> from bioaccel.motif import Background
    >>> g = SliceGrid(np.array([[0, 4, 0, 0], [0, 0, 4, 0]]), 2, 4)
    >>> slice_table([g], Background.uniform(), True).ravel().tolist()
    [0.5625, 0.0, 0.375, 0.0625]
    """
    initial, transition, order = chain(background)
    q = np.ascontiguousarray(np.stack([g.q for g in grids]))
    qmin = np.array([g.qmin for g in grids], dtype=np.int64)
    scale = np.array([g.scale for g in grids], dtype=np.float64)
    nb = grids[0].buckets
    L, nctx = q.shape[1], transition.shape[0]
    nin = 1 if first else nctx
    cells = nin * nctx * nb ** len(grids)
    kernel = _histogram_parallel if nin * 4 ** L >= PARALLEL_WORDS else _histogram_serial
    table = kernel(q, qmin, scale, nb, initial, transition, order, first, _prefix_len(L, nin, cells))
    return table.reshape((nin, nctx) + (nb,) * len(grids))


def merge_tables(ta, step_a, tb, step_b, buckets) -> np.ndarray:
    """Merge two one-matrix tables (see ``_merge``), in parallel when the work is large.

    >>> half = np.array([[[0.5, 0.5]]])
    >>> merge_tables(half, 1.0, half, 1.0, 2).tolist()      # buckets of width 2: sums 0, 1 | 2
    [[[0.75, 0.25]]]
    """
    pairs = np.count_nonzero(ta) * np.count_nonzero(tb)
    kernel = _merge_parallel if pairs >= PARALLEL_PAIRS else _merge_serial
    return kernel(ta, step_a, tb, step_b, buckets)


class Node:
    """A table and its grid: scores ``offset + i * step`` (per axis: floats for one matrix, arrays for
    two) and the bound ``error`` on how far above its bucket a word's true score may lie."""

    __slots__ = ("table", "offset", "step", "error")

    def __init__(self, table, offset, step, error):
        self.table, self.offset, self.step, self.error = table, offset, step, error


def merge_tree(nodes, merge) -> Node:
    """Merge adjacent nodes along a balanced binary tree (depth ceil(log2 N)) with
    ``merge(table_a, step_a, table_b, step_b) -> table``; each level adds one merged step to the error.

    >>> half = np.array([[[0.5, 0.5]]])
    >>> root = merge_tree([Node(half, 0.0, 1.0, 1.0)] * 2, lambda a, sa, b, sb: merge_tables(a, sa, b, sb, 2))
    >>> root.step, root.error
    (2.0, 4.0)
    """
    if len(nodes) == 1:
        return nodes[0]
    half = (len(nodes) + 1) // 2
    left, right = merge_tree(nodes[:half], merge), merge_tree(nodes[half:], merge)
    table = merge(left.table, left.step, right.table, right.step)
    step = left.step + right.step
    return Node(table, left.offset + right.offset, step, left.error + right.error + step)


def slice_grids(pssm, slices, buckets) -> tuple:
    """The fixed-point slices of ``pssm`` and their bucket grids: ``(grids, shift)``.

    >>> from bioaccel.motif import PSSM
    >>> grids, shift = slice_grids(PSSM(np.eye(4)[:3]), 2, 100)
    >>> [g.q.shape[0] for g in grids]
    [2, 1]
    """
    m = pssm.length
    if slices < 1 or slices > m:
        raise InvalidParameter(f"slices must be between 1 and the motif length {m}, got {slices}")
    if buckets < 2:
        raise InvalidParameter(f"buckets must be at least 2, got {buckets}")
    shift = fixed_point_shift(pssm.scores)
    qfix = np.floor(pssm.scores * 2.0 ** shift).astype(np.int64)
    return [SliceGrid(qfix[a:b], shift, buckets) for a, b in slice_bounds(m, slices)], shift


def bucket_bytes(buckets, order=0, threads=None) -> int:
    """Memory the bucket tables of one distribution take at most: the merge's private tables (up to 64),
    the enumeration's per-task tables and the tree's, each ``4**order`` x ``4**order`` x ``buckets``
    float64 cells.

    >>> bucket_bytes(3600, threads=2) // 1024          # KiB
    2250
    """
    threads = get_num_threads() if threads is None else threads
    contexts = 4 ** (2 * int(order))
    return 8 * int(buckets) * contexts * (64 + 4 * int(threads) + 8)


def check_bucket_memory(buckets, order=0, what="BUCKETSCOREDISTRIBUTION"):
    """Refuse, before any table is allocated, a bucket count whose tables will not fit in memory."""
    from ..runtime.memory import require_memory

    def hint(limit):
        fits = int(limit // max(1, bucket_bytes(1, order)))
        return f"use fewer buckets (at most about {fits:,} fit; the default is {DEFAULT_BUCKETS:,})"

    require_memory(bucket_bytes(buckets, order), f"{what} with {int(buckets):,} buckets", hint)


def bucket_leaves_cpu(pssm, grids) -> list:
    """One table per slice (``(contexts in, contexts out, B)``), every word enumerated on the CPU.

    >>> from bioaccel.motif import PSSM
    >>> pssm = PSSM(np.eye(4)[:3])
    >>> [t.shape for t in bucket_leaves_cpu(pssm, slice_grids(pssm, 2, 100)[0])]
    [(1, 1, 100), (1, 1, 100)]
    """
    tables = []
    for index, grid in enumerate(grids):
        L = grid.q.shape[0]
        if 4 ** L > MAX_WORDS_CPU:
            raise ResourceError(
                f"{pssm.motif_id}: a slice of {L} columns means 4**{L} = {4 ** L:,} words to enumerate on the CPU; "
                f"use more slices (at least {math.ceil(pssm.length / 18)}), the gpu backend or the exact variant")
        tables.append(slice_table([grid], pssm.background, index == 0))
    return tables


def _bucket_leaves_gpu(pssm, grids) -> list:
    from ._gpu import bucket_leaves_gpu          # CuPy loads with the first GPU distribution

    return bucket_leaves_gpu(pssm, grids)


#: Each backend's enumeration of the slices: (pssm, slice grids) -> one table per slice.
LEAVES = {"cpu": bucket_leaves_cpu, "gpu": _bucket_leaves_gpu}


def bucket_distribution(pssm, *, slices=DEFAULT_SLICES, buckets=DEFAULT_BUCKETS, backend="cpu") -> ScoreDistribution:
    """BUCKETSCOREDISTRIBUTION: a :class:`ScoreDistribution` with error
    ``(1 + ceil(log2 N)) * (max - min) / B`` (plus the fixed-point rounding, < m * 2**-S).

    >>> from bioaccel.motif import PSSM
    >>> d = bucket_distribution(PSSM(np.eye(4)[:3]), slices=2, buckets=100)
    >>> d.pvalue_bounds(3.0)          # the one word AAA: 1/64, within the bucket error
    (0.0, 0.015625)
    """
    order = pssm.background.order
    slices = min(int(slices), pssm.length)
    check_bucket_memory(buckets, order)
    grids, shift = slice_grids(pssm, slices, buckets)
    if order and min(g.q.shape[0] for g in grids) < order:
        raise InvalidParameter(
            f"{pssm.motif_id}: a Markov background of order {order} needs slices of at least {order} "
            f"columns; use fewer slices (at most {pssm.length // order})")
    if backend not in LEAVES:
        raise InvalidParameter(f"unknown backend {backend!r}; choose one of cpu, gpu")
    tables = LEAVES[backend](pssm, grids)
    nodes = [Node(t, g.offset, g.step, g.error) for t, g in zip(tables, grids)]
    root = merge_tree(nodes, lambda ta, sa, tb, sb: merge_tables(ta, sa, tb, sb, buckets))
    mass = root.table.sum(axis=(0, 1))
    return ScoreDistribution(root.offset, root.step, mass, root.error, variant="bucket", motif_id=pssm.motif_id,
                             backend=backend)


def seed_error_bound(pssm, slices, buckets) -> float:
    """The paper's bound on scores (section 4.3): (1 + ceil(log2 N)) * (max - min) / B.

    >>> from bioaccel.motif import PSSM
    >>> seed_error_bound(PSSM(np.eye(4)[:4]), 4, 100)
    0.12
    """
    return (1 + math.ceil(math.log2(slices))) * (pssm.max_score - pssm.min_score) / buckets
