"""BPMax on all CPU cores (variant ``tiled``, the default): Gildemaster 2021's decomposition, streamed
by rows. The recurrence is the one of docs/bpmax.md.

For each query interval (i1, j1) the target plane F(i1, j1, ., .) is an upper-triangular (windowed:
upper-banded, band W2) matrix. Its double reduction D is the max-plus product of F(i1, k1, ., .) and
F(k1+1, j1, ., .) shifted by one, summed (max) over k1. This module evaluates those products one row of
the product at a time: row i2 of F(i1, j1) is

    max over k1, k2 of  F(i1, k1)[i2, k2] + F(k1+1, j1)[k2+1, :]      (D: a row-vector x matrix product)
    max over k1 of      F(i1, k1)[i2, :] + S1(k1+1, j1),  S1(i1, k1) + F(k1+1, j1)[i2, :]    (R4, R3)
    score(a[i1], a[j1]) + F(i1+1, j1-1)[i2, :]                                            (strand-1 pair)
    max over k2 of      S2(i2, k2) + F(i1, j1)[k2+1, :]                                    (R1)
    score(rb[i2], rb[j2]) + F(i1, j1)[i2+1, j2-1]                                         (strand-2 pair)
    max over k2 < j2 of F(i1, j1)[i2, k2] + S2(k2+1, j2), a product with S2 (see below)       (R2)

Every term is a broadcast scalar plus a contiguous row (int16 when the scores fit: 16 lanes of AVX2).
All of them run through register-blocked micro-kernels (simd, driven row by row from rows): each
64-column chunk of a row keeps four vectors of accumulators in registers while it streams over the
reduction index (k2, or the list of strand-1 pair terms); D does two rows per pass, so that each
loaded vector of F(k1+1, j1) serves both. R3 and R4 are D's border terms (bpmax.md's compact form):
the cell left of each stored row holds S1 of its query interval, and D's reduction runs over
i2 - 1 <= k2 <= j2. R1 and R2 run over static lists of the k2 that can matter (terms). A task
computes a block of 32 consecutive rows of one query interval: first the terms that read shorter
query intervals (strand-1 pair, then D with R3/R4, k1 outermost so that F(k1+1, j1) stays in cache
while all rows of the block use it), then, bottom-up (a valid Nussinov order), R1, the strand-2 pair
and R2. Tasks come from the shared task queue of :mod:`bioaccel.runtime.parallel` in the order of schedule,
each waiting only for the tasks whose completion implies its inputs The workers are a ``prange`` kernel's
(:func:`_stream`) or, for a fill of at most SMALL_WORK, Python threads each running :func:`_worker`.

Because a row only reads rows at most W2 below it, a target window needs only a ring of
W2 + 1 + 32 (L1 + 3) rows per query interval: memory does not grow with the target's length. Without a
window, or when the target is short, the whole banded table is kept (layout). S1 and S2 come as bands
as wide as the windows (bioaccel.interact._strands), so that nothing a windowed fill reads or keeps
grows faster than the target's length.

R2 is not a sequential push along the row: S2 is superadditive, so R2 is one max-plus product of the
row (with every other term in) and S2, through the same kernel as D (see _row_finish).
"""
import numpy as np
from numba import get_num_threads, njit, prange

from ...runtime.parallel import chunksize, claim, complete, on_threads
from .._model import sentinel, work
from .layout import ROWS_PER_TASK, StreamPlan, padded_band
from .rows import narrow, ranged, ranged_list, rows_ranged
from .schedule import task_order
from .simd import ROWS, maxplus_range, maxplus_range_vector
from .terms import start_terms, term_lists


@njit(cache=True)
def _row_start(a, rb, pairs, Wd, flat, rowstart, i1, l1, i2, acc, off, values, bases, count, counts):
    """Start row i2 of F(i1, i1+l1-1) in acc[off:]: base case, then the ``count`` terms of start_terms
    through the register kernel (a reduction over the terms with the row's accumulators in registers)."""
    N = rb.shape[0]
    n = min(i2 + Wd - 1, N - 1) - i2 + 1
    n_pad = n + (-n) % 16
    for c in range(n_pad):
        acc[off + c] = 0
    if l1 == 1:
        acc[off] = pairs[a[i1], rb[i2]]
    if count == 0:
        return
    b_at = rowstart[i2] - off
    c0 = 0
    while c0 + 48 < n:
        for v in range(4):
            counts[v] = count
        maxplus_range(acc, off + c0, flat, values, 0, bases, 0, b_at, counts)
        c0 += 64
    while c0 < n:
        counts[0] = count
        maxplus_range_vector(acc, off + c0, flat, values, 0, bases, 0, b_at, counts)
        c0 += 16


@njit(cache=True)
def _row_finish(S2p, P2p, Wd, mat_id, buf, rowstart, r1, r2, i1, l1, i2, acc, off, flat, S2flat, counts, gather):
    """Finish row i2 of F(i1, i1+l1-1) in acc[off:] with the terms inside the matrix; return its length."""
    N = S2p.shape[0]
    n = min(i2 + Wd - 1, N - 1) - i2 + 1
    n_pad = n + (-n) % 16
    own = mat_id[i1, l1 - 1]
    # R1: S2(i2, k2) + rows k2+1 of this matrix (stored already: rows are finished bottom-up), over
    # the k2 where S2(i2, k2) grows (terms.r1_lists)
    r1_values, r1_offsets, r1_prefix = r1
    ranged_list(acc, off, n, flat, r1_values, i2 * Wd, r1_offsets, i2 * Wd, own * buf.shape[1] + i2 - off,
                r1_prefix, i2 * (Wd // 16 + 6), counts)
    # strand-2 pair: score(rb[i2], rb[j2]) + F(i1, j1, i2+1, j2-1); the score row is 0 where no pair
    # may form, and then the term is at most F(i1, j1, i2, j2) anyway
    if n >= 5:
        below = np.uint64(rowstart[i2 + 1] - 2)
        uo = np.uint64(own)
        ui = np.uint64(i2)
        ua = np.uint64(off)
        for c in range(np.uint64(n_pad)):
            acc[ua + c] = max(acc[ua + c], narrow(P2p[ui, np.uint64(16) + c] + buf[uo, below + c], acc))
    # R2: F(i1, j1, i2, j2) = max(T(j2), max over k2 < j2 of F(i1, j1, i2, k2) + S2(k2+1, j2)), T being
    # every other term (all in acc now). S2 is superadditive (S2(p, q) + S2(q+1, r) <= S2(p, r): the
    # split term of its own recurrence), so a chain of R2 steps is never better than one step from T:
    # R2 is the max-plus product of the row T with S2, not a sequential recurrence along the row.
    # Moreover every term of T except the strand-2 pair (and the base case) already reads R2-closed
    # cells at column j2 itself (e.g. D: F(i1,k1,i2,k2') + F(k1+1,j1,k2'+1,k2) + S2(k2+1,j2) <=
    # F(i1,k1,i2,k2') + F(k1+1,j1,k2'+1,j2), a D term of this cell; likewise R1, R3, R4, strand-1 pair),
    # so only the k2 where rb[i2] can pair with rb[k2] (or k2 = i2) are needed: a static list per row
    # (terms.r2_lists), about 40% of the k2. Any value between T and the final one is a valid scalar.
    r2_xs, r2_offsets, r2_prefix = r2
    stride = Wd // 16 + 6
    listed = r2_prefix[i2 * stride + stride - 1]
    for q in range(listed):
        gather[q] = acc[off + r2_xs[i2 * Wd + q]]
    ranged_list(acc, off, n, S2flat, gather, 0, r2_offsets, i2 * Wd, i2 + 16 - off, r2_prefix, i2 * stride,
                counts)
    return n


@njit(cache=True)
def _task(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, r1, r2, win, record, i1, l1,
          block):
    """Rows [N - (block+1)B, N - block B) of F(i1, i1+l1-1), bottom-up; every cell they read is final."""
    N = rb.shape[0]
    j1 = i1 + l1 - 1
    bot = N - 1 - block * B
    top = max(0, bot - B + 1)
    acc_len = Wd + 96 + (-(Wd + 96)) % 16
    capacity = buf.shape[1]
    flat = buf.reshape(buf.size)
    S2flat = S2p.reshape(S2p.size)
    # row i2's accumulators: acc[16 + (bot - i2) * acc_len:], the 16-cell margin for rows_ranged
    acc = np.empty(16 + B * acc_len, dtype=buf.dtype)
    counts = np.empty(4, dtype=np.int64)
    starts = np.empty(ROWS, dtype=np.int64)
    a_ats = np.empty(ROWS, dtype=np.int64)
    gather = np.empty(Wd, dtype=buf.dtype)
    m = mat_id[i1, l1 - 1]
    # first the terms that read shorter query intervals, for every row of the block; D with k1
    # outermost, so that F(k1+1, j1) stays in cache while the block's rows use it, and ROWS rows per
    # kernel pass sharing its loads
    values = np.empty(1, dtype=buf.dtype)
    bases = np.empty(1, dtype=np.int64)
    n_terms = start_terms(pairs, a, mat_id, capacity, i1, l1, values, bases)
    for i2 in range(top, bot + 1):
        _row_start(a, rb, pairs, Wd, flat, rowstart, i1, l1, i2, acc, 16 + (bot - i2) * acc_len,
                   values, bases, n_terms, counts)
    for k1 in range(i1, j1):
        left = mat_id[i1, k1 - i1] * capacity
        right = mat_id[k1 + 1, j1 - k1 - 1] * capacity
        i2 = top
        while i2 + ROWS - 1 <= bot:
            J_end = min(i2 + ROWS - 1 + Wd - 1, N - 1)
            rows_ranged(acc, 16 + (bot - i2) * acc_len, acc_len, i2, J_end, flat, left, right, gaps,
                        starts, a_ats, counts)
            i2 += ROWS
        while i2 <= bot:
            off = 16 + (bot - i2) * acc_len
            n = min(i2 + Wd - 1, N - 1) - i2 + 1
            ranged(acc, off, n, flat, flat, left + rowstart[i2] - 1, gaps, i2, right + i2 - off, counts, 1)
            i2 += 1
    for i2 in range(bot, top - 1, -1):
        off = 16 + (bot - i2) * acc_len
        n = _row_finish(S2p, P2p, Wd, mat_id, buf, rowstart, r1, r2, i1, l1, i2, acc, off, flat, S2flat,
                        counts, gather)
        r0 = rowstart[i2]
        for c in range(n):
            buf[m, r0 + c] = acc[off + c]
        buf[m, r0 - 1] = S1[i1, l1 - 1]  # F(i1, j1, i2, i2-1) = S1(i1, j1): the empty-target border,
        if i2 == N - 1:                  # read by D as R3/R4
            buf[m, rowstart[N] - 1] = S1[i1, l1 - 1]
        if l1 == L1:
            win[i1, i2] = acc[off + n - 1]
        if record.shape[0] > 0:
            for c in range(n):
                record[i1, i1 + l1 - 1, i2, i2 + c] = acc[off + c]


@njit(cache=True, nogil=True)
def _worker(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, r1, r2, win, record, order_i1,
            order_l1, order_block, queue):
    """One worker: takes the next task from the queue (the order of schedule) and computes it once the
    tasks it reads are done, until none is left. A plain (not ``prange``) kernel: run as it is on Python
    threads (:func:`~bioaccel.runtime.parallel.on_threads`), or by each of :func:`_stream`'s workers."""
    while True:
        k = claim(queue)
        if k < 0:
            break
        _task(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, r1, r2, win, record,
              order_i1[k], order_l1[k], order_block[k])
        complete(queue, k)


@njit(cache=True, parallel=True, nogil=True)
def _stream(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, r1, r2, win, record,
            order_i1, order_l1, order_block, queue, workers):
    """:func:`_worker` on each of ``workers`` ``prange`` workers, all taking from the same queue."""
    for _ in prange(workers):
        _worker(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, r1, r2, win, record, order_i1,
                order_l1, order_block, queue)


#: Fills of at most this much work (:func:`bioaccel.interact._model.work`; an 18-22 nt query against a
#: target of 1,500 nt under a 128-base window is 3-5e10) run their workers on Python threads
#: (:func:`_worker`): a first run then compiles no ``prange`` kernel (about 3 s of the README's first
#: interaction on the 2-core machine) and loads none (nor Numba's threading layer) on later runs.
SMALL_WORK = 2e11


def fill_tiled(a, rb, S1, S2, params, *, keep=False, record=None, rows_per_task=ROWS_PER_TASK):
    """Run the streamed fill on Numba's current thread count. Returns (win, plan, buf, rowstart, mat_id).

    ``a``, ``rb``: codes of the query and of the REVERSED target; ``S1``, ``S2``: their single-strand
    tables as bands (:mod:`bioaccel.interact._strands`: ``S[i, d] = S(i, i + d)``) at least L1 and L2
    wide.
    ``win[i1, i2]`` = F(i1, i1+L1-1, i2, min(i2+Wd-1, N-1)) for every query window start i1 and every
    target row i2 (in units). With ``keep`` (or whenever the ring would
    hold every row) ``buf`` holds the whole banded table: F(i1, j1, i2, j2) = buf[mat_id[i1, j1-i1],
    rowstart[i2] + j2 - i2]. ``record``: optional dense (M, M, N, N) int32 array receiving every cell
    (tests).

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.interact import InteractParams
    >>> from bioaccel.interact._strands import fold_band
    >>> params = InteractParams()
    >>> a, rb = encode("GGGAAACCC"), encode("GGGUUUCCC")[::-1].copy()
    >>> S1, S2 = fold_band(a, params.fold_params, 9), fold_band(rb, params.fold_params, 9)
    >>> int(fill_tiled(a, rb, S1, S2, params)[0][0, 0])    # 21 in half-units
    42
    """
    M, N = a.shape[0], rb.shape[0]
    plan = StreamPlan(M, N, params, keep=keep, rows_per_task=rows_per_task)
    dtype = plan.dtype
    pairs = params.pair_table()
    S1d = np.ascontiguousarray(S1[:, :plan.L1], dtype=dtype)
    S2p = padded_band(S2, plan.Wd, dtype)
    P2p = padded_band(None, plan.Wd, dtype, pairs_rb=(pairs, rb))
    buf = np.full((plan.n_mat, plan.capacity), sentinel(dtype), dtype=dtype)
    rowstart = plan.rowstart()
    mat_id = plan.mat_id()
    win = np.zeros((M - plan.L1 + 1, N), dtype=np.int32)
    if record is None:
        record = np.zeros((0, 0, 0, 0), dtype=np.int32)
    gaps, _, r1, r2 = term_lists(S2p, P2p, rowstart, plan.Wd)
    order_i1, order_l1, order_block, queue = task_order(M, N, plan.L1, rows_per_task, plan.wraps)
    args = (a, rb, pairs, S1d, S2p, P2p, plan.L1, plan.Wd, rows_per_task, mat_id, buf, rowstart, gaps, r1, r2, win,
            record, order_i1, order_l1, order_block, queue)
    if work(M, N, plan.L1, plan.Wd) <= SMALL_WORK:
        on_threads(_worker, args, get_num_threads())
    else:
        with chunksize(1):  # one worker loop per thread
            _stream(*args, get_num_threads())
    return win, plan, buf, rowstart, mat_id
