"""BPMax on all CPU cores (variant ``tiled``, the default): seed 003's decomposition, streamed by rows.

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
All of them run through register-blocked micro-kernels (_simd): each 64-column chunk of a row keeps
four vectors of accumulators in registers while it streams over the reduction index (k2, or the list
of strand-1 pair terms); D does two rows per pass, so that each loaded vector of F(k1+1, j1) serves
both. R3 and R4 are D's border terms (bpmax.md's compact form): the cell left of each stored row
holds S1 of its query interval, and D's reduction runs over i2 - 1 <= k2 <= j2. R1 and R2 run over
static lists of the k2 that can matter (_r1_lists, _r2_lists). A task computes a block of 32
consecutive rows of one query interval: first the terms that read shorter query intervals
(strand-1 pair, then D with R3/R4, k1 outermost so that F(k1+1, j1) stays in cache while all rows
of the block use it), then, bottom-up (a valid Nussinov order), R1, the
strand-2 pair and R2. Tasks are handed out from a shared counter in anti-diagonal order
``I + l1 - 1 = t`` (row block I, l1 = j1 - i1 + 1), and each waits only for the three tasks whose
completion implies its inputs: no barrier per anti-diagonal (see _stream).

Because a row only reads rows at most W2 below it, a target window needs only a ring of
W2 + 1 + 32 (L1 + 3) rows per query interval: memory does not grow with the target's length. Without a
window, or when the target is short, the whole banded table is kept (packed: storage only for the cells
the windows allow, plus a 16-cell sentinel pad left of each row).

R2 is not a sequential push along the row: S2 is superadditive, so R2 is one max-plus product of the
row (with every other term in) and S2, through the same kernel as D (see _row_finish). ``prune`` is
accepted for compatibility and has no effect any more (it skipped dominated pushes of the old R2).
"""
import numpy as np
import numba
from numba import njit, prange, types
from numba.extending import overload

from ..fold._cpu import _fetch_add, _load_acquire, _store_release, _wait_for, _yield_cpu
from ._simd import ROWS, maxplus_range, maxplus_range_vector, maxplus_rows, maxplus_rows_vector

RING_SLACK = 2  # steps a task may run ahead of the slowest with a ring of rows (see _stream)
ROWS_PER_TASK = 32  # rows of one query interval per parallel task: fewer barriers, rows share F(k1+1, j1) in cache


def narrow(value, like):
    """``value`` converted to the element type of the array ``like`` (inside Numba code only)."""
    raise NotImplementedError


@overload(narrow, inline="always")
def _narrow(value, like):
    # Numba widens int16/int32 sums to int64; converting back right away lets LLVM keep 16 lanes.
    if like.dtype == types.int16:
        return lambda value, like: np.int16(value)
    if like.dtype == types.int32:
        return lambda value, like: np.int32(value)
    return lambda value, like: value


def sentinel(dtype):
    """Max-plus zero: far below any score, and twice it does not overflow ``dtype``."""
    return np.int16(-16384) if dtype == np.int16 else np.int32(-(2 ** 30))


@njit(cache=True)
def _ranged(acc, off, n, table, avec, a_at, offsets, o_at, b_at, counts, border=0):
    """acc[off + c] = max over x < c of avec[a_at + x] + table[offsets[o_at + x] + b_at + off + c], c < n;
    with ``border`` = 1, over -1 <= x <= c instead, indices shifted by one (x + 1 from a_at, o_at).

    64 columns at a time with the accumulators in registers, a partial chunk on the left 16 at a time;
    x runs over the whole row, without any per-x scalar work.
    """
    c0 = 0
    head = n % 64  # as in _rows_ranged: the partial chunk on the left, where x runs short
    while c0 < head:
        counts[0] = min(n - 1 + 2 * border, c0 + 16 + border)
        maxplus_range_vector(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 16
    c0 = head
    while c0 < n:
        for v in range(4):
            counts[v] = min(n - 1 + 2 * border, c0 + 16 * v + 16 + border)
        maxplus_range(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 64


@njit(cache=True)
def _rows_ranged(acc, first_off, acc_len, r0, J_end, table, left, right, gaps, starts, a_ats, counts):
    """D for the ROWS rows r0, r0+1, .. of one block and one k1, on absolute target columns J <= J_end:

        acc row i2, column J - i2  max=  F(i1, k1)[i2, k2] + F(k1+1, j1)[k2+1, J],   r0 <= k2 < J

    Row i2's accumulators start at ``first_off - (i2 - r0) * acc_len`` (rows lie bottom-up in acc).
    The rows share every loaded vector of F(k1+1, j1). Terms with k2 < i2 read the sentinel pad left of
    row i2 of F(i1, k1), and columns J < i2 land in the scratch tail of the next row's accumulators
    (acc has a 16-cell margin in front for the bottom row): both harmless.
    """
    # reduction index p = k2 - r0 + 1 for r0 - 1 <= k2 <= J: the border terms of bpmax.md's compact
    # form come with D. The cell left of each stored row holds S1 of its query interval (_task), so
    # k2 = i2 - 1 reads S1(i1, k1) as F(i1, k1, i2, i2-1) (R3) and k2 = J reads S1(k1+1, j1) as
    # F(k1+1, j1, J+1, J) (R4).
    for r in range(ROWS):
        a_ats[r] = left + gaps[r0 + r] + r0 - 1  # F(i1, k1)[r0 + r, k2] = table[a_ats[r] + k2 - r0 + 1]
    # The columns that do not fill a 64-column chunk go first, 16 at a time: on the left, where the
    # reduction over k2 < J is short. The 64-column chunks then end exactly at J_end, so the long
    # reductions of the right end all run with four vectors per loaded scalar. Columns done twice
    # (a 16-column pass overlapping the first chunk) are harmless: max is idempotent.
    J0 = r0
    head = (J_end - r0 + 1) % 64
    while J0 < r0 + head:
        for r in range(ROWS):
            starts[r] = first_off - r * acc_len + J0 - (r0 + r)
        counts[0] = min(J_end + 1, J0 + 16) - r0 + 1
        maxplus_rows_vector(acc, starts, table, table, a_ats, gaps, r0, right + J0, counts)
        J0 += 16
    J0 = r0 + head
    while J0 <= J_end:
        for r in range(ROWS):
            starts[r] = first_off - r * acc_len + J0 - (r0 + r)
        for v in range(4):
            counts[v] = min(J_end + 1, J0 + 16 * v + 16) - r0 + 1
        maxplus_rows(acc, starts, table, table, a_ats, gaps, r0, right + J0, counts)
        J0 += 64


@njit(cache=True)
def _ranged_list(acc, off, n, table, avec, a_at, offsets, o_at, b_at, prefix, pf_at, counts):
    """_ranged over a compacted list of reduction indices: term p is avec[a_at + p] + table[offsets[o_at
    + p] + b_at + off + c]; prefix[pf_at + b] = how many list entries have x < 16 b (x sorted)."""
    # partial chunk on the left as in _rows_ranged, but whole 16-column steps (the prefix counts are
    # per 16 x), so the last chunk may pass the row's end by up to 15 scratch columns
    head = ((n % 64) + 15) // 16 * 16
    c0 = 0
    while c0 < head:
        counts[0] = prefix[pf_at + c0 // 16 + 1]
        maxplus_range_vector(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 16
    while c0 < n:
        for v in range(4):
            counts[v] = prefix[pf_at + c0 // 16 + v + 1]
        maxplus_range(acc, off + c0, table, avec, a_at, offsets, o_at, b_at, counts)
        c0 += 64


@njit(cache=True)
def _r1_lists(S2p, gaps, Wd):
    """For each target row i2, the k2 = i2 + x that R1 needs: x = 0 and every x where S2(i2, i2+x)
    grows. Where S2(i2, k2) = S2(i2, k2-1), the term S2(i2, k2) + F(.., k2+1, j2) is dominated by
    S2(i2, k2-1) + F(.., k2, j2), since F grows when its target interval grows (R1 with an empty
    left part). About half of the k2 are left (random sequences). Returns (values, table offsets
    gaps[k2+1], prefix counts per 16 x), row i2 at i2 * Wd (prefix: i2 * (Wd // 16 + 6))."""
    N = S2p.shape[0]
    values = np.zeros(N * Wd, dtype=S2p.dtype)
    offsets = np.zeros(N * Wd, dtype=np.int64)
    stride = Wd // 16 + 6
    prefix = np.zeros(N * stride, dtype=np.int64)
    for i2 in range(N):
        n = min(Wd, N - i2)
        q = 0
        for x in range(n - 1):  # k2 < j2 <= i2 + n - 1
            if x % 16 == 0:
                prefix[i2 * stride + x // 16] = q
            if x == 0 or S2p[i2, 16 + x] != S2p[i2, 15 + x]:
                values[i2 * Wd + q] = S2p[i2, 16 + x]
                offsets[i2 * Wd + q] = gaps[i2 + 1 + x]
                q += 1
        for b in range(max(n - 2, 0) // 16 + 1, stride):
            prefix[i2 * stride + b] = q
    return values, offsets, prefix


@njit(cache=True)
def _r2_lists(P2p, s2gaps, Wd):
    """For each target row i2, the k2 = i2 + x that R2 needs (see _row_finish): x = 0 and every x where
    rb[i2] pairs with rb[i2+x]. Returns (x, table offsets s2gaps[i2+1+x], prefix counts per 16 x), laid
    out as _r1_lists."""
    N = P2p.shape[0]
    xs = np.zeros(N * Wd, dtype=np.int64)
    offsets = np.zeros(N * Wd, dtype=np.int64)
    stride = Wd // 16 + 6
    prefix = np.zeros(N * stride, dtype=np.int64)
    for i2 in range(N):
        n = min(Wd, N - i2)
        q = 0
        for x in range(n - 1):  # k2 < j2 <= i2 + n - 1
            if x % 16 == 0:
                prefix[i2 * stride + x // 16] = q
            if x == 0 or P2p[i2, 16 + x] > 0:
                xs[i2 * Wd + q] = x
                offsets[i2 * Wd + q] = s2gaps[i2 + 1 + x]
                q += 1
        for b in range(max(n - 2, 0) // 16 + 1, stride):
            prefix[i2 * stride + b] = q
    return xs, offsets, prefix


@njit(cache=True)
def _start_terms(pairs, a, S1, mat_id, capacity, i1, l1, values, bases):
    """The terms of row starts that read shorter query intervals, the same for every row i2 of
    F(i1, i1+l1-1): (scalar, matrix) pairs, the term being scalar + row i2 of that matrix. Only the
    strand-1 pair now (R4 and R3 come with D as border terms). Returns how many."""
    j1 = i1 + l1 - 1
    count = 0
    if l1 >= 5:
        w = pairs[a[i1], a[j1]]
        if w > 0:
            values[count] = narrow(w, values)
            bases[count] = mat_id[i1 + 1, l1 - 3] * capacity
            count += 1
    return count


@njit(cache=True)
def _row_start(a, rb, pairs, Wd, flat, rowstart, i1, l1, i2, acc, off, values, bases, count, counts):
    """Start row i2 of F(i1, i1+l1-1) in acc[off:]: base case, then the ``count`` terms of _start_terms
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
def _row_finish(S2p, P2p, Wd, mat_id, buf, rowstart, gaps, s2gaps, r1, r2, i1, l1, i2, acc, off, flat, S2flat,
                counts, gather):
    """Finish row i2 of F(i1, i1+l1-1) in acc[off:] with the terms inside the matrix; return its length."""
    N = S2p.shape[0]
    n = min(i2 + Wd - 1, N - 1) - i2 + 1
    n_pad = n + (-n) % 16
    own = mat_id[i1, l1 - 1]
    # R1: S2(i2, k2) + rows k2+1 of this matrix (stored already: rows are finished bottom-up), over
    # the k2 where S2(i2, k2) grows (_r1_lists)
    r1_values, r1_offsets, r1_prefix = r1
    _ranged_list(acc, off, n, flat, r1_values, i2 * Wd, r1_offsets, i2 * Wd, own * buf.shape[1] + i2 - off,
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
    # (_r2_lists), about 40% of the k2. Any value between T and the final one is a valid scalar.
    r2_xs, r2_offsets, r2_prefix = r2
    stride = Wd // 16 + 6
    listed = r2_prefix[i2 * stride + stride - 1]
    for q in range(listed):
        gather[q] = acc[off + r2_xs[i2 * Wd + q]]
    _ranged_list(acc, off, n, S2flat, gather, 0, r2_offsets, i2 * Wd, i2 + 16 - off, r2_prefix, i2 * stride,
                 counts)
    return n


@njit(cache=True)
def _task(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, s2gaps, r1, r2, win, record, i1, l1,
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
    # row i2's accumulators: acc[16 + (bot - i2) * acc_len:], the 16-cell margin for _rows_ranged
    acc = np.empty(16 + B * acc_len, dtype=buf.dtype)
    counts = np.empty(4, dtype=np.int64)
    starts = np.empty(ROWS, dtype=np.int64)
    a_ats = np.empty(ROWS, dtype=np.int64)
    gather = np.empty(Wd, dtype=buf.dtype)
    m = mat_id[i1, l1 - 1]
    # first the terms that read shorter query intervals, for every row of the block; D with k1
    # outermost, so that F(k1+1, j1) stays in cache while the block's rows use it, and ROWS rows per
    # kernel pass sharing its loads
    values = np.empty(2 * l1 + 1, dtype=buf.dtype)
    bases = np.empty(2 * l1 + 1, dtype=np.int64)
    n_terms = _start_terms(pairs, a, S1, mat_id, capacity, i1, l1, values, bases)
    for i2 in range(top, bot + 1):
        _row_start(a, rb, pairs, Wd, flat, rowstart, i1, l1, i2, acc, 16 + (bot - i2) * acc_len,
                   values, bases, n_terms, counts)
    for k1 in range(i1, j1):
        left = mat_id[i1, k1 - i1] * capacity
        right = mat_id[k1 + 1, j1 - k1 - 1] * capacity
        i2 = top
        while i2 + ROWS - 1 <= bot:
            J_end = min(i2 + ROWS - 1 + Wd - 1, N - 1)
            _rows_ranged(acc, 16 + (bot - i2) * acc_len, acc_len, i2, J_end, flat, left, right, gaps,
                         starts, a_ats, counts)
            i2 += ROWS
        while i2 <= bot:
            off = 16 + (bot - i2) * acc_len
            n = min(i2 + Wd - 1, N - 1) - i2 + 1
            _ranged(acc, off, n, flat, flat, left + rowstart[i2] - 1, gaps, i2, right + i2 - off, counts, 1)
            i2 += 1
    for i2 in range(bot, top - 1, -1):
        off = 16 + (bot - i2) * acc_len
        n = _row_finish(S2p, P2p, Wd, mat_id, buf, rowstart, gaps, s2gaps, r1, r2, i1, l1, i2, acc, off,
                        flat, S2flat, counts, gather)
        r0 = rowstart[i2]
        for c in range(n):
            buf[m, r0 + c] = acc[off + c]
        buf[m, r0 - 1] = S1[i1, j1]  # F(i1, j1, i2, i2-1): the empty-target border, read by D as R3/R4
        if i2 == N - 1:
            buf[m, rowstart[N] - 1] = S1[i1, j1]
        if l1 == L1:
            win[i1, i2] = acc[off + n - 1]
        if record.shape[0] > 0:
            for c in range(n):
                record[i1, i1 + l1 - 1, i2, i2 + c] = acc[off + c]


@njit(cache=True)
def _wait_for_count(counter, index, target):
    """Wait until ``counter[index]`` reaches ``target`` (spin briefly, then yield the core)."""
    spins = 0
    while _load_acquire(counter, index) < target:
        spins += 1
        if spins > 64:
            _yield_cpu()


@njit(cache=True, parallel=True)
def _stream(a, rb, pairs, S1, S2p, P2p, L1, Wd, rows_per_task, mat_id, buf, rowstart, win, record, wraps,
            workers):
    """Every worker takes the next task from a shared counter and waits only for the tasks it reads.

    A task is block I (from the bottom) of rows of one query interval (i1, l1). It reads rows of its
    own block and the blocks below, of its own matrix and of the sub-intervals of [i1, j1]; done
    (I, l1-1, i1), (I, l1-1, i1+1) and (I-1, l1, i1) imply all of those (by induction). Tasks are
    handed out by step I + l1 - 1 (costliest first within a step), an order consistent with those
    dependencies, so no worker waits for a task nobody has taken: no deadlock with any number of
    threads. No barrier per step: on the shared machine a descheduled thread stalls only the tasks
    that need its task, and consecutive steps overlap.

    With a ring of rows (``wraps``) a task overwrites rows that tasks up to RING_SLACK + 1 steps
    earlier may still read, so it also waits until every task of step t - RING_SLACK - 1 is done (the
    ring is RING_SLACK blocks longer than a step-by-step schedule would need).
    """
    M = a.shape[0]
    N = rb.shape[0]
    B = rows_per_task
    n_blocks = (N + B - 1) // B
    n_steps = n_blocks + L1 - 1
    total = 0
    for l1 in range(1, L1 + 1):
        total += (M - l1 + 1) * n_blocks
    task_i1 = np.empty(total, dtype=np.int64)
    task_l1 = np.empty(total, dtype=np.int64)
    task_t = np.empty(total, dtype=np.int64)
    step_size = np.zeros(n_steps, dtype=np.int64)
    k = 0
    for t in range(n_steps):
        for l1 in range(min(L1, t + 1), max(1, t - n_blocks + 2) - 1, -1):  # costliest first
            for i1 in range(M - l1 + 1):
                task_i1[k] = i1
                task_l1[k] = l1
                task_t[k] = t
                k += 1
                step_size[t] += 1
    gaps = rowstart - np.arange(N + 1)  # rowstart[i2+x+1] - x - 1 = gaps[i2+x+1] + i2
    # R2's table offsets: s2gaps[i2+x+1] + i2 + 16 + c = flat index of S2p[i2+x+1, 16 + c-x-1] = S2(i2+x+1, i2+c)
    s2gaps = np.arange(N) * (S2p.shape[1] - 1)
    r1 = _r1_lists(S2p, gaps, Wd)
    r2 = _r2_lists(P2p, s2gaps, Wd)
    done = np.zeros(n_blocks * L1 * M, dtype=np.int64)  # flag of task (I, l1, i1) at (I * L1 + l1 - 1) * M + i1
    step_done = np.zeros(n_steps, dtype=np.int64)
    counter = np.zeros(1, dtype=np.int64)
    for _ in prange(workers):
        while True:
            k = _fetch_add(counter, 0, 1)
            if k >= total:
                break
            i1 = task_i1[k]
            l1 = task_l1[k]
            t = task_t[k]
            block = t - (l1 - 1)
            if l1 > 1:
                _wait_for(done, (block * L1 + l1 - 2) * M + i1)
                _wait_for(done, (block * L1 + l1 - 2) * M + i1 + 1)
            if block > 0:
                _wait_for(done, ((block - 1) * L1 + l1 - 1) * M + i1)
            if wraps and t > RING_SLACK:
                _wait_for_count(step_done, t - RING_SLACK - 1, step_size[t - RING_SLACK - 1])
            _task(a, rb, pairs, S1, S2p, P2p, L1, Wd, B, mat_id, buf, rowstart, gaps, s2gaps, r1, r2, win, record,
                  i1, l1, block)
            _store_release(done, (block * L1 + l1 - 1) * M + i1, 1)
            _fetch_add(step_done, t, 1)


class StreamPlan:
    """Layout of the streamed table for an M x N problem under ``params`` (sizes in cells and bytes)."""

    def __init__(self, M, N, params, keep=False, rows_per_task=ROWS_PER_TASK):
        self.M, self.N = M, N
        self.L1, self.Wd = params.spans(M, N)
        self.dtype = params.score_dtype(M, N)
        self.rows_per_task = rows_per_task
        # a row is last read by rows up to Wd - 1 above it, at most (L1 + 1) task blocks later
        ring = self.Wd + (self.L1 + 1 + RING_SLACK) * rows_per_task
        self.wraps = ring < N and not keep
        self.rows = ring if self.wraps else N
        self.n_mat = sum(M - l1 + 1 for l1 in range(1, self.L1 + 1))
        if self.wraps:
            self.row_capacity = 16 + self.Wd
            self.capacity = self.rows * self.row_capacity + 160
        else:
            lengths = np.minimum(self.Wd, N - np.arange(N)) + 16
            self.capacity = int(lengths.sum()) + 160
        itemsize = np.dtype(self.dtype).itemsize
        side = (N * (self.Wd + 48)) * 2 * itemsize  # padded S2 and pair-score rows
        self.nbytes = self.n_mat * self.capacity * itemsize + side

    def rowstart(self):
        """Where row i2 starts in a matrix, for i2 <= N: row N is empty, only its left border cell
        (S1 of the matrix) is read, by R4 at the last column."""
        N = self.N
        if self.wraps:
            return (np.arange(N + 1, dtype=np.int64) % self.rows) * self.row_capacity + 16
        lengths = np.minimum(self.Wd, N - np.arange(N)) + 16
        return (np.concatenate(([0], np.cumsum(lengths))) + 16).astype(np.int64)

    def mat_id(self):
        ids = np.full((self.M, self.L1), -1, dtype=np.int64)
        m = 0
        for l1 in range(1, self.L1 + 1):
            for i1 in range(self.M - l1 + 1):
                ids[i1, l1 - 1] = m
                m += 1
        return ids


def padded_band(dense, Wd, dtype, pairs_rb=None):
    """Rows r of ``dense`` from column r on (Wd values) behind a 16-cell sentinel pad, plus slack.

    With ``pairs_rb`` (pair table, codes): the strand-2 pair scores score(rb[r], rb[r+d]) for d >= 4.
    """
    if pairs_rb is not None:
        pairs, codes = pairs_rb
        N = codes.shape[0]
    else:
        N = dense.shape[0]
    out = np.full((N, 16 + Wd + 32), sentinel(dtype), dtype=dtype)
    for r in range(N):
        width = min(Wd, N - r)
        if pairs_rb is not None:
            row = pairs[codes[r], codes[r:r + width]].astype(dtype)
            row[:4] = 0
            out[r, 16:16 + width] = row
            out[r, 16 + width:] = 0
        else:
            out[r, 16:16 + width] = dense[r, r:r + width]
    return out


def fill_tiled(a, rb, S1, S2, params, *, keep=False, prune=True, record=None, rows_per_task=ROWS_PER_TASK):
    """Run the streamed fill. Returns (win, plan, buf, rowstart, mat_id).

    ``win[i1, i2]`` = F(i1, i1+L1-1, i2, min(i2+Wd-1, N-1)) for every query window start i1 and every
    target row i2 (in units). With ``keep`` (or whenever the ring would hold every row) ``buf`` holds
    the whole banded table: F(i1, j1, i2, j2) = buf[mat_id[i1, j1-i1], rowstart[i2] + j2 - i2].
    ``record``: optional dense (M, M, N, N) int32 array receiving every cell (tests).
    """
    M, N = a.shape[0], rb.shape[0]
    plan = StreamPlan(M, N, params, keep=keep, rows_per_task=rows_per_task)
    dtype = plan.dtype
    pairs = params.pair_table()
    S1d = S1.astype(dtype)
    S2p = padded_band(S2, plan.Wd, dtype)
    P2p = padded_band(None, plan.Wd, dtype, pairs_rb=(pairs, rb))
    buf = np.full((plan.n_mat, plan.capacity), sentinel(dtype), dtype=dtype)
    rowstart = plan.rowstart()
    mat_id = plan.mat_id()
    win = np.zeros((M - plan.L1 + 1, N), dtype=np.int32)
    if record is None:
        record = np.zeros((0, 0, 0, 0), dtype=np.int32)
    chunk = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(1)  # one worker loop per thread
    try:
        _stream(a, rb, pairs, S1d, S2p, P2p, plan.L1, plan.Wd, rows_per_task, mat_id, buf, rowstart, win, record,
                plan.wraps, numba.get_num_threads())
    finally:
        numba.set_parallel_chunksize(chunk)
    return win, plan, buf, rowstart, mat_id
