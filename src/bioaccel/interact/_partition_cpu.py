"""BPPart's fill on the CPU (variant ``diagonal``): the recurrence of docs/bppart.md over every pair of
query and target intervals, one (l1, l2) diagonal at a time, its cells on every core.

The sums are the original program's, rearranged without changing what they add up (docs/bppart.md,
"bioaccel's form"): QX = QI - Q0 Q1 is its own table, so nothing is subtracted (the original's QIe
subtracts, which cancels when the strands barely interact); QX's double sum is split through the
first-anchored table QF and its partial sum R into two single sums; only QIa and QIm remain double
sums, each read along contiguous rows (QI and QIac are also stored transposed for that).

Scaling: each base of strand s carries the factor u_s = exp(-c_s) (unpaired) and each pair the
factors of its two bases (docs/bppart.md, "Scaling"). Every product in the recurrence covers each base
exactly once, so the scaled fill is the same recurrence with reweighted pairs and unpaired bases, and
log Z = log Z~ + c1 M + c2 N. With c = 0 it is plain arithmetic.
"""
import numpy as np
from numba import njit, prange

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the dot products; inf/NaN stay detectable


@njit(cache=True, nogil=True)
def single_strand_scaled(codes, weights, unpaired):
    """Q[i, e]: the scaled partition function of codes[i:e] (Q[i, i] = 1), as bppart.C's Q and Qz with
    each unpaired base weighted ``unpaired`` and each pair ``weights[x, y] * unpaired**2``.

    >>> import numpy as np
    >>> w = np.zeros((5, 5)); w[2, 1] = w[1, 2] = np.exp(3.0)
    >>> q = single_strand_scaled(np.array([2, 0, 0, 0, 1], dtype=np.uint8), w, 1.0)
    >>> bool(abs(q[0, 5] - (1 + np.exp(3.0))) < 1e-12)
    True
    """
    n = codes.shape[0]
    Q = np.zeros((n + 1, n + 1))
    powers = np.ones(n + 1)
    for k in range(1, n + 1):
        powers[k] = powers[k - 1] * unpaired
    for i in range(n + 1):
        for e in range(i, n + 1):
            Q[i, e] = powers[e - i]
    QT = np.ascontiguousarray(Q.T)   # QT[e, i] = Q[i, e], ZT[e, d] = Z[d, e]: the sums' columns as rows
    ZT = np.zeros((n + 1, n + 1))
    pair_factor = unpaired * unpaired
    for length in range(5, n + 1):
        for i in range(n - length + 1):
            e = i + length
            z = 0.0
            for p in range(i + 4, e):   # i pairs p
                z += weights[codes[i], codes[p]] * pair_factor * Q[i + 1, p] * QT[e, p + 1]
            ZT[e, i] = z
            total = powers[length]
            for d in range(i, e - 4):   # d is the first paired base
                total += powers[d - i] * ZT[e, d]
            Q[i, e] = total
            QT[e, i] = total
    return Q


@njit(cache=True, nogil=True)
def interval_index(M):
    """idx[i, e]: the packed index of the query interval [i, e) (0 <= i <= e <= M), by length."""
    idx = np.full((M + 1, M + 1), -1, dtype=np.int64)
    k = 0
    for length in range(M + 1):
        for i in range(M - length + 1):
            idx[i, i + length] = k
            k += 1
    return idx


@njit(cache=True, nogil=True, parallel=True, fastmath=_FLAGS)
def fill_partition(a, rb, weights, c1, c2):
    """(log QI, log QX, log Q0, log Q1) of the whole strands (natural logs; log QX = -inf when no
    intermolecular pair is possible), from the query codes ``a``, the REVERSED target codes ``rb``, the
    5 x 5 pair weights exp(score) (0: no pair) and the per-base log scales ``c1``, ``c2``.

    The query intervals of one length are independent (each reads only shorter ones and itself), so
    they run in parallel, one barrier per length."""
    M, N = a.shape[0], rb.shape[0]
    u1, u2 = np.exp(-c1), np.exp(-c2)
    Q0 = single_strand_scaled(a, weights, u1)
    Q1 = single_strand_scaled(rb, weights, u2)
    Q1T = np.ascontiguousarray(Q1.T)   # its columns as rows
    idx = interval_index(M)
    shape = ((M + 1) * (M + 2) // 2, N + 1, N + 1)
    # Tables read by other query intervals; T1, AUX1 and QF's columns are read only within their own
    # query interval, so each task keeps them in matrices of its own (_query_interval).
    QI, QX, QIac, QF, R = np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape), np.zeros(shape)
    T0, AUX0 = np.zeros(shape), np.zeros(shape)
    w1 = weights * (u1 * u1)   # pairs inside the query
    w2 = weights * (u2 * u2)   # pairs inside the target
    wi = weights * (u1 * u2)   # intermolecular pairs
    for i in range(M + 1):     # an empty interval on either strand: the other one alone
        for e in range(i, M + 1):
            for c in range(N + 1):
                QI[idx[i, e], c, c] = Q0[i, e]
                if e == i:
                    for d in range(c, N + 1):
                        QI[idx[i, e], c, d] = Q1[c, d]
    for l1 in range(1, M + 1):
        for a0 in prange(M - l1 + 1):
            _query_interval(a0, a0 + l1, a, rb, w1, w2, wi, Q0, Q1, Q1T, idx, QI, QX, QIac, QF, R, T0, AUX0)
    whole = idx[0, M]
    return (np.log(QI[whole, 0, N]) + c1 * M + c2 * N, np.log(QX[whole, 0, N]) + c1 * M + c2 * N,
            np.log(Q0[0, M]) + c1 * M, np.log(Q1[0, N]) + c2 * N)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _query_interval(a0, a1, a, rb, w1, w2, wi, Q0, Q1, Q1T, idx, QI, QX, QIac, QF, R, T0, AUX0):
    """Every table at the query interval [a0, a1) (non-empty) and every non-empty reversed-target
    interval [b0, b1): rows b0 from the last up, each row left to right, so that a cell finds the
    cells of its own query interval that it reads (lower rows, and this row to its left) done."""
    N = rb.shape[0]
    l1 = a1 - a0
    A = idx[a0, a1]
    # The terms that read other query intervals only, for the whole target matrix at once: each is a
    # (triangular) matrix product or a sum of rows, looped so that one operand matrix stays in cache.
    acc_a = np.zeros((N + 1, N + 1))    # QIa's terms with a non-empty rest of the query
    acc_m = np.zeros((N + 1, N + 1))    # QIm's double sum
    acc_s0 = np.zeros((N + 1, N + 1))   # s0's sum,
    acc_aux0 = np.zeros((N + 1, N + 1))  # AUX0's but its last term,
    acc_qx = np.zeros((N + 1, N + 1))   # QX's but its first term
    for k1 in range(a0, a1 - 1):        # a closed block [a0, k1] x [b0, k2 - 1], then QI on the rest
        _triangular_product(QIac[idx[a0, k1 + 1]], QI[idx[k1 + 1, a1]], acc_a, 0)
    for k1 in range(a0 + 1, a1):        # first-anchored [a0, k1) x [b0, k2), last-anchored the rest
        _triangular_product(QF[idx[a0, k1]], QIac[idx[k1, a1]], acc_m, 1)
    if l1 >= 5:
        for k in range(a0 + 1, a1 - 1):
            _add_scaled(acc_s0, Q0[a0 + 1, k], AUX0[idx[k, a1 - 1]])
    for k in range(a0, a1 - 1):
        _add_scaled(acc_aux0, Q0[k + 1, a1], T0[idx[a0, k + 1]])
    for k in range(a0 + 1, a1):
        _add_scaled(acc_qx, Q0[a0, k], R[idx[k, a1]])
    T1 = np.zeros((N + 1, N + 1))       # this query interval's T1, AUX1 (transposed) and QF (transposed)
    AUX1T = np.zeros((N + 1, N + 1))
    QFT = np.zeros((N + 1, N + 1))
    for b0 in range(N - 1, -1, -1):
        for b1 in range(b0 + 1, N + 1):
            _cell(a0, a1, b0, b1, l1, A, a, rb, w1, w2, wi, Q0, Q1, Q1T, idx, QI, QX, QIac, QF, QFT, R, T0, T1, AUX0,
                  AUX1T, acc_a[b0, b1], acc_m[b0, b1], acc_s0[b0, b1], acc_aux0[b0, b1], acc_qx[b0, b1])


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _triangular_product(left, right, out, gap):
    """out[b0, b1] += sum of left[b0, k] * right[k, b1] over b0 < k <= b1 - gap (upper-triangular
    matrices, rows b0 < b1; ``right`` zero below its diagonal, and on it when gap = 1: every table the
    fill multiplies is). Four k at a time: each output row segment is loaded and stored once for four
    multiply-adds (one at a time it was once for each: 0.6 against 3.7 GFMA/s at 101 x 101 on the
    shared 2-core machine); the rows of the four k all start at the first one's start, the others'
    extra cells being the zeros below (or on) their diagonal. The inner loop runs over views from 0:
    with absolute indices Numba's negative-index check keeps LLVM from vectorising it."""
    n = left.shape[0]
    for b0 in range(n - 1):
        k = b0 + 1
        last = n - gap                  # k < last
        while k + 3 < last:
            x0, x1, x2, x3 = left[b0, k], left[b0, k + 1], left[b0, k + 2], left[b0, k + 3]
            start = k + gap
            target = out[b0, start:]
            r0, r1, r2, r3 = right[k, start:], right[k + 1, start:], right[k + 2, start:], right[k + 3, start:]
            for j in range(n - start):
                target[j] += x0 * r0[j] + x1 * r1[j] + x2 * r2[j] + x3 * r3[j]
            k += 4
        while k < last:
            x = left[b0, k]
            start = k + gap
            target = out[b0, start:]
            row = right[k, start:]
            for j in range(n - start):
                target[j] += x * row[j]
            k += 1


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _add_scaled(out, factor, matrix):
    """out += factor * matrix (upper-triangular, rows b0 < b1)."""
    n = out.shape[0]
    for b0 in range(n - 1):
        target = out[b0, b0 + 1:]
        row = matrix[b0, b0 + 1:]
        for j in range(n - b0 - 1):
            target[j] += factor * row[j]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _cell(a0, a1, b0, b1, l1, A, a, rb, w1, w2, wi, Q0, Q1, Q1T, idx, QI, QX, QIac, QF, QFT, R, T0, T1, AUX0,
          AUX1T, cross_a, cross_m, cross_s0, cross_aux0, cross_qx):
    """The cell [a0, a1) x [b0, b1) in docs/bppart.md's order, given the sums' terms over other query
    intervals (``cross_*``)."""
    l2 = b1 - b0
    s0 = 0.0
    if l1 >= 5:        # a0 pairs a1 - 1 around all of [b0, b1)
        s0 = cross_s0 * w1[a[a0], a[a1 - 1]]
    s1 = 0.0
    if l2 >= 5:        # b0 pairs b1 - 1 around all of [a0, a1)
        s1 = _dot(Q1[b0 + 1, b0 + 1:], AUX1T[b1 - 1, b0 + 1:], l2 - 2) * w2[rb[b0], rb[b1 - 1]]
    m = 0.0            # QIm: first element at (a0, b0), last at (a1 - 1, b1 - 1)
    if l1 == 1 and l2 == 1:
        m = wi[a[a0], rb[b0]]
    elif l1 >= 2 and l2 >= 2:
        m = cross_m + wi[a[a1 - 1], rb[b1 - 1]] * QF[idx[a0, a1 - 1], b0, b1 - 1]
    T0[A, b0, b1] = s0 + m
    T1[b0, b1] = s1 + m
    AUX0[A, b0, b1] = cross_aux0 + (s0 + m)   # the last term: this cell's T0, Q0[a1, a1] = 1
    aux = _dot(T1[b0, b0 + 1:], Q1T[b1, b0 + 1:], l2)
    AUX1T[b1, b0] = aux
    both = 0.0
    if l1 >= 5 and l2 >= 5:   # both strands closed around an interacting interior
        both = QX[idx[a0 + 1, a1 - 1], b0 + 1, b1 - 1] * w1[a[a0], a[a1 - 1]] * w2[rb[b0], rb[b1 - 1]]
    closed = s0 + s1 + both
    QIac[A, b0, b1] = closed
    qia = cross_a             # and the block spanning all of [a0, a1), the rest of the target alone
    qia += _dot(QIac[A, b0, b0 + 1:], Q1T[b1, b0 + 1:], l2)
    qf = wi[a[a0], rb[b0]] * QI[idx[a0 + 1, a1], b0 + 1, b1] + qia
    QF[A, b0, b1] = qf
    QFT[b1, b0] = qf
    r = _dot(Q1[b0, b0:], QFT[b1, b0:], l2)
    R[A, b0, b1] = r
    qx = cross_qx + r       # the first term: this cell's R, Q0[a0, a0] = 1
    QX[A, b0, b1] = qx
    QI[A, b0, b1] = Q0[a0, a1] * Q1[b0, b1] + qx


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _dot(x, y, n):
    """sum of x[j] * y[j] for j < n (views from 0, so that it vectorises)."""
    total = 0.0
    for j in range(n):
        total += x[j] * y[j]
    return total
