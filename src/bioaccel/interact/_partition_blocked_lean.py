"""BPPart's fill on the CPU: the ``queued`` variant's query interval (issue 27, bppcpu2): the ``blocked``
variant's :func:`._partition_blocked._interval` with the same sums in the same order (the same bits),
two of its per-interval costs cut.

- Its scratch (the double sums' accumulators, AUX1, the rows' work rows) is allocated once per worker
  (:func:`interval_scratch`) and cleared per interval, not allocated per interval (four ``np.zeros``).
- A target row's cells (:func:`_row`): the ``blocked`` loop tests the target length l2 and the query
  length l1 in every cell. Here the first four cells (l2 < 5) keep that loop; the rest (l2 >= 5: s1's
  and QIe's terms are there) go in loops with the tests on l1 hoisted out, one table written a loop so
  that LLVM can vectorise them (each loop's few arrays checked for overlap once, not a dozen). Each
  cell's terms are the same expressions in the same order.
"""
import numpy as np
from numba import njit

from ._partition_blocked import _ask_rows, _ask_write, _axpy, _clear, _cross_rows, _row_end, _vecmat, _vecmat2
from ._partition_blocked_split import _split_products
from ._partition_cpu import _FLAGS


@njit(cache=True, nogil=True)
def interval_scratch(QI, rb, w2, wi):
    """What :func:`interval` reads besides the tables (one copy a worker): the pair weights of each base
    with each target base, ``w2[x, rb[c]]`` and ``wi[x, rb[c]]`` at [x, c]. :func:`_far_cells` reads a
    row of them contiguously: an indexed load (a gather) kept LLVM from vectorising its loops."""
    w2r, wir = np.zeros((w2.shape[0], QI.shape[2])), np.zeros((wi.shape[0], QI.shape[2]))
    for c in range(rb.shape[0]):
        w2r[:, c] = w2[:, rb[c]]
        wir[:, c] = wi[:, rb[c]]
    return w2r, wir


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def interval(a0, a1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, wide, scratch):
    """:func:`._partition_blocked._interval` (the same cells, the same bits) on one worker's ``scratch``
    (:func:`interval_scratch`)."""
    N = rb.shape[0]
    n = N + 1
    l1 = a1 - a0
    A = idx[a0, a1]
    w2r, wir = scratch
    for table in (QI, QIac, QF):
        _clear(table[A], n)
    for c in range(n):
        QI[A, c, c] = Q0[a0, a1]
        QX[A, c, c] = 0.0
    shape = (QI.shape[1], QI.shape[2])   # allocated here, not reused from the worker's scratch: arrays
    acc_a = np.zeros(shape)             # born here are known to LLVM not to overlap the tables (reused
    acc_m = np.zeros(shape)             # ones: the fill 1.11x slower, 23 x 100 on one thread)
    aux1 = np.zeros(shape)
    work = np.zeros((9, shape[1]))
    _split_products(QIac, QI, idx, a0, a1, acc_a, n, wide)
    _split_products(QF, QIac, idx, a0, a1, acc_m, n, wide)
    prev = idx[a0, a1 - 1]
    inner = idx[a0 + 1, a1 - 1] if l1 >= 2 else A
    QIa_, QXa, Ca, Fa, Ra, T0a, X0a = QI[A], QX[A], QIac[A], QF[A], R[A], T0[A], AUX0[A]
    Fprev, Qin, Xin = QF[prev], QI[idx[a0 + 1, a1]], QX[inner]
    v, r, v2, r2 = work[0], work[3], work[7], work[8]
    for hi in range(N - 1, -1, -2):   # as _partition_blocked._interval
        lo = hi - 1
        start = max(lo, 0)
        v[start:] = 0.0
        r[start:] = 0.0
        v2[start:] = 0.0
        r2[start:] = 0.0
        _vecmat2(Q1[hi + 1], Q1[hi], hi + 1, N, aux1, v, v2, n)
        if hi >= 3:
            _ask_rows(a0, a1, hi - 2, n, idx, AUX0, T0, R)
            _ask_rows(a0, a1, hi - 3, n, idx, AUX0, T0, R)
            for T in (QIa_, QXa, Ca, Fa, Ra, T0a, X0a):
                _ask_write(T[hi - 2], hi - 1, n)
                _ask_write(T[hi - 3], hi - 2, n)
        _cross_rows(a0, a1, hi, n, Q0, idx, AUX0, T0, R, work)
        _row(a0, a1, hi, N, a, rb, w1, w2, wi, Q1, Ca, Fa, T0a, X0a, Fprev, Qin, Xin, aux1, work, v, acc_a, acc_m,
             w2r, wir)
        if lo >= 0:
            _vecmat2(Q1[hi], Q1[lo], hi, N, Fa, r, r2, n)
        else:
            _vecmat(Q1[hi], hi, N, Fa, r, n)
        _row_end(a0, a1, hi, N, Q0, Q1, QIa_, QXa, Ra, r, work)
        if lo >= 0:
            _axpy(v2[hi:n], Q1[hi, hi], aux1[hi, hi:n])
            _cross_rows(a0, a1, lo, n, Q0, idx, AUX0, T0, R, work)
            _row(a0, a1, lo, N, a, rb, w1, w2, wi, Q1, Ca, Fa, T0a, X0a, Fprev, Qin, Xin, aux1, work, v2, acc_a,
                 acc_m, w2r, wir)
            _axpy(r2[lo:n], Q1[lo, lo], Fa[lo, lo:n])
            _row_end(a0, a1, lo, N, Q0, Q1, QIa_, QXa, Ra, r2, work)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _row(a0, a1, b0, N, a, rb, w1, w2, wi, Q1, Ca, Fa, T0a, X0a, Fprev, Qin, Xin, aux1, work, v, acc_a, acc_m,
         w2r, wir):
    """:func:`._partition_blocked._row`: the cells b1 < b0 + 5 by its loop, the others by
    :func:`_far_cells` (``w2r``, ``wir``: :func:`interval_scratch`'s weights by target base)."""
    n = N + 1
    l1 = a1 - a0
    t1, qia = work[1], work[2]
    wq = w1[a[a0], a[a1 - 1]]
    first = wi[a[a0], rb[b0]]
    near = min(b0 + 5, n)
    for b1 in range(b0 + 1, near):   # _partition_blocked._row's loop (l2 < 5)
        l2 = b1 - b0
        s0 = work[4, b1] * wq if l1 >= 5 else 0.0
        s1 = v[b1 - 1] * w2[rb[b0], rb[b1 - 1]] if l2 >= 5 else 0.0
        m = 0.0
        if l1 == 1 and l2 == 1:
            m = first
        elif l1 >= 2 and l2 >= 2:
            m = acc_m[b0, b1] + wi[a[a1 - 1], rb[b1 - 1]] * Fprev[b0, b1 - 1]
        T0a[b0, b1] = s0 + m
        t1[b1] = s1 + m
        X0a[b0, b1] = work[5, b1] + (s0 + m)
        both = 0.0
        if l1 >= 5 and l2 >= 5:
            both = Xin[b0 + 1, b1 - 1] * wq * w2[rb[b0], rb[b1 - 1]]
        Ca[b0, b1] = s0 + s1 + both
        qia[b1] = acc_a[b0, b1]
    if near < n:
        _far_cells(l1, near, n, b0, w2r[rb[b0]], wir[a[a1 - 1]], wq, Ca, T0a, X0a, Fprev, Xin, work, v, acc_a, acc_m)
    aux = aux1[b0]
    _vecmat2(t1, Ca[b0], b0 + 1, n, Q1, aux, qia, n)
    for b1 in range(b0 + 1, n):
        Fa[b0, b1] = first * Qin[b0 + 1, b1] + qia[b1]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _far_cells(l1, lo, hi, b0, w2b, wl, wq, Ca, T0a, X0a, Fprev, Xin, work, v, acc_a, acc_m):
    """Row b0's cells b1 in [lo, hi), all at l2 >= 5: s1's and, from l1 = 5, s0's and QIe's terms; QIm's
    from l1 = 2 (``w2b[c]``: w2 of row b0's base with base c, ``wl[c]``: wi of the query's last base with
    base c). The same expressions as :func:`_row`'s loop, on rows (contiguous: vectorised loops)."""
    t1, s0w, x0w, qia = work[1], work[4], work[5], work[2]
    T0r, X0r, Car, am, fp, xi = T0a[b0], X0a[b0], Ca[b0], acc_m[b0], Fprev[b0], Xin[b0 + 1]
    if l1 >= 5:
        for b1 in range(lo, hi):
            T0r[b1] = s0w[b1] * wq + (am[b1] + wl[b1 - 1] * fp[b1 - 1])
        for b1 in range(lo, hi):
            X0r[b1] = x0w[b1] + (s0w[b1] * wq + (am[b1] + wl[b1 - 1] * fp[b1 - 1]))
        for b1 in range(lo, hi):
            Car[b1] = s0w[b1] * wq + v[b1 - 1] * w2b[b1 - 1] + xi[b1 - 1] * wq * w2b[b1 - 1]
    elif l1 >= 2:             # s0 and QIe's term 0.0 (added as _row adds them: the same bits)
        for b1 in range(lo, hi):
            T0r[b1] = 0.0 + (am[b1] + wl[b1 - 1] * fp[b1 - 1])
        for b1 in range(lo, hi):
            X0r[b1] = x0w[b1] + (0.0 + (am[b1] + wl[b1 - 1] * fp[b1 - 1]))
        for b1 in range(lo, hi):
            Car[b1] = 0.0 + v[b1 - 1] * w2b[b1 - 1] + 0.0
    else:                     # l1 = 1: QIm's term 0.0 too
        for b1 in range(lo, hi):
            T0r[b1] = 0.0 + 0.0
            X0r[b1] = x0w[b1] + (0.0 + 0.0)
            Car[b1] = 0.0 + v[b1 - 1] * w2b[b1 - 1] + 0.0
    if l1 >= 2:
        for b1 in range(lo, hi):
            t1[b1] = v[b1 - 1] * w2b[b1 - 1] + (am[b1] + wl[b1 - 1] * fp[b1 - 1])
    else:
        for b1 in range(lo, hi):
            t1[b1] = v[b1 - 1] * w2b[b1 - 1] + 0.0
    ar = acc_a[b0]
    for b1 in range(lo, hi):
        qia[b1] = ar[b1]
