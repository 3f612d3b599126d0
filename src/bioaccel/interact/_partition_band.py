"""BPPart swept along the target (windows and the binding profile) on the CPU: the recurrence of
docs/bppart.md ("bioaccel's form"), every query interval of at most L1 bases against every target
interval of at most L2 bases, one row of the reversed target at a time, from the last row up.

A cell [a0, a1) x [b0, b1) reads only sub-intervals of its own, so the target's rows b0 > b0 + L2
are never read again once row b0 is done: the tables that later rows read (QI, QIac, and the columns
of QF and AUX1) are kept as rings of L2 + 1 rows (columns), the others as one row, and time and
memory grow linearly with the target. Within a row the query intervals go by end, each end from the
shortest interval up (every sub-interval comes first), each row of
cells left to right: what a cell reads of its own row is then done (docs/bppart.md, "Windows").

``lam[y]`` multiplies every intermolecular pair of reversed target position y: 1 everywhere for the
plain fill, 0 at y for the fill in which y may not pair with the query (the binding profile: the
structures in which y is bound weigh Z - Z_y). Scaling as in _partition_cpu: every weight carries
exp(-c) per base it covers, so a cell holds Z exp(-c1 l1 - c2 l2).
"""
import numpy as np
from numba import njit, prange

from ._partition_band_cross import LEFT, RIGHT, cross_sums
from ._partition_cpu import _dot   # the fill's vectorised dot product, shared

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the row updates; inf/NaN stay detectable


@njit(cache=True, nogil=True)
def single_strand_band(codes, weights, unpaired, L):
    """Qb[i, d]: the scaled partition function of codes[i:i + d] for d <= min(L, n - i) (0 beyond):
    the single-strand recurrence of docs/bppart.md on intervals of at most L bases only (each reads
    only shorter intervals inside it, so the values are those of the full table).

    >>> import numpy as np
    >>> w = np.zeros((5, 5)); w[2, 1] = w[1, 2] = np.exp(3.0)
    >>> q = single_strand_band(np.array([2, 0, 0, 0, 1, 0], dtype=np.uint8), w, 1.0, 5)
    >>> bool(abs(q[0, 5] - (1 + np.exp(3.0))) < 1e-12), float(q[1, 5])
    (True, 1.0)
    """
    n = codes.shape[0]
    Q = np.zeros((n + 1, L + 1))
    Z = np.zeros((n + 1, L + 1))   # Z[i, d]: i pairs inside [i, i + d)
    powers = np.ones(L + 1)
    for k in range(1, L + 1):
        powers[k] = powers[k - 1] * unpaired
    for i in range(n + 1):
        for d in range(min(L, n - i) + 1):
            Q[i, d] = powers[d]
    pair_factor = unpaired * unpaired
    for length in range(5, min(L, n) + 1):
        for i in range(n - length + 1):
            e = i + length
            z = 0.0
            for p in range(i + 4, e):   # i pairs p
                z += weights[codes[i], codes[p]] * pair_factor * Q[i + 1, p - i - 1] * Q[p + 1, e - p - 1]
            Z[i, length] = z
            total = powers[length]
            for d in range(i, e - 4):   # d is the first paired base
                total += powers[d - i] * Z[d, e - d]
            Q[i, length] = total
    return Q


@njit(cache=True, nogil=True)
def column_band(Qb):
    """QE[c, L - e] = Q(c - e, c) from Qb[i, d] = Q(i, i + d): a column of Q as a contiguous row, by
    start (so that the sums over a split point read both operands forwards and vectorise)."""
    n1, width = Qb.shape
    L = width - 1
    QE = np.zeros((n1, width))
    for c in range(n1):
        for e in range(min(L, c) + 1):
            QE[c, L - e] = Qb[c - e, e]
    return QE


@njit(cache=True, nogil=True)
def window_index(M, L1):
    """(idx, starts, ends): idx[i, e] numbers the query intervals [i, e) of at most L1 bases by length
    (every empty interval is 0; -1: outside the domain); starts / ends give each number's interval."""
    idx = np.full((M + 1, M + 1), -1, dtype=np.int64)
    count = 1
    for length in range(1, L1 + 1):
        count += M - length + 1
    starts = np.zeros(count, dtype=np.int64)
    ends = np.zeros(count, dtype=np.int64)
    for i in range(M + 1):
        idx[i, i] = 0
    k = 1
    for length in range(1, L1 + 1):
        for i in range(M - length + 1):
            idx[i, i + length] = k
            starts[k], ends[k] = i, i + length
            k += 1
    return idx, starts, ends


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _row(b0, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, starts, ends, L2, QI, QIac, QFT, AUX1T, QX, QF, Rr, T0,
         AUX0, T1, acc, QIr, QIacr, blocked):
    """Every table at reversed target row b0 (cells [a0, a1) x [b0, b0 + d), d <= L2), for every query
    interval; rows b0 + 1 .. b0 + L2 of the rings are done. ``blocked``: QIa's and QIm's double sums by
    :func:`._partition_band_cross.cross_sums` (QI and QIac also kept as padded rings QIr, QIacr), else
    by row updates."""
    N = rb.shape[0]
    R = QI.shape[1]
    s = b0 % R
    D = min(L2, N - b0)
    P = QI.shape[0]
    cur, prev = QX[b0 % 2], QX[(b0 + 1) % 2]
    for A in range(P):             # row b0 takes the ring slot of row b0 + L2 + 1, column b0 that of column b0 + L2 + 1
        for d in range(L2 + 1):
            QI[A, s, d] = 0.0
            QIac[A, s, d] = 0.0
            QFT[A, s, d] = 0.0
            AUX1T[A, s, d] = 0.0
            cur[A, d] = 0.0
            QF[A, d] = 0.0
            Rr[A, d] = 0.0
            T0[A, d] = 0.0
            AUX0[A, d] = 0.0
            T1[A, d] = 0.0
        QI[A, s, 0] = Q0b[starts[A], ends[A] - starts[A]]   # an empty target interval: the query alone
        if blocked:
            for d in range(L2 + 1):
                QIr[A, s, LEFT + d] = 0.0
                QIacr[A, s, LEFT + d] = 0.0
            QIr[A, s, LEFT] = QI[A, s, 0]
    for d in range(D + 1):         # an empty query interval: the target alone
        QI[0, s, d] = Q1b[b0, d]
    if D == 0:
        return
    M = a.shape[0]
    L1 = (acc.shape[0] - 5) // 2
    bulk_a, bulk_m = acc[:L1 + 1], acc[L1 + 1:2 * L1 + 2]     # by query length, for one end a1
    rows = np.empty(L2 + 1, dtype=np.int64)                   # the ring slot of row b0 + j
    for j in range(L2 + 1):
        rows[j] = (b0 + j) % R
    acc_s0, acc_aux0, acc_qx = acc[2 * L1 + 2], acc[2 * L1 + 3], acc[2 * L1 + 4]
    for a1 in range(1, M + 1):                  # query intervals by end, each end's from the shortest
        lo = max(0, a1 - L1)
        if blocked:
            bulk_a[:, :] = 0.0                  # the tiles write past D too
            bulk_m[:, :] = 0.0
            cross_sums(a1, lo, D, s, idx, QIac, QF, QIr, QIacr, rows, bulk_a, bulk_m)
            c_first = a1                        # the row updates below: none
        else:
            bulk_a[:, :D + 1] = 0.0
            bulk_m[:, :D + 1] = 0.0
            c_first = lo + 1
        # QIa's and QIm's double sums of every [a0, a1) at once: they read intervals [a0, c) that end
        # before a1 (this row, done) and rings [c, a1) of later rows, so each ring row is loaded once
        # for all a0 (L1 times less memory traffic than interval by interval).
        for c in range(c_first, a1):
            A2 = idx[c, a1]
            for j in range(1, D + 1):
                slot = (b0 + j) % R
                row_qi = QI[A2, slot]           # QIac([a0, c), b0, b0 + j) QI([c, a1), b0 + j, b1)
                row_ac = QIac[A2, slot]         # QF([a0, c), b0, b0 + j) QIac([c, a1), b0 + j, b1)
                for a0 in range(lo, c):
                    A1 = idx[a0, c]
                    x = QIac[A1, s, j]
                    if x != 0.0:
                        target = bulk_a[a1 - a0, j:D + 1]
                        for e in range(D + 1 - j):
                            target[e] += x * row_qi[e]
                    y = QF[A1, j]
                    if y != 0.0 and j < D:
                        target = bulk_m[a1 - a0, j:D + 1]
                        for e in range(D + 1 - j):
                            target[e] += y * row_ac[e]
        for a0 in range(a1 - 1, lo - 1, -1):
            _interval(a0, a1, b0, D, s, R, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, QI, QIac, QFT, AUX1T, cur,
                      prev, QF, Rr, T0, AUX0, T1, bulk_a[a1 - a0], bulk_m[a1 - a0], acc_s0, acc_aux0, acc_qx, QIr,
                      QIacr, blocked)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _interval(a0, a1, b0, D, s, R, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, QI, QIac, QFT, AUX1T, cur, prev,
              QF, Rr, T0, AUX0, T1, acc_a, acc_m, acc_s0, acc_aux0, acc_qx, QIr, QIacr, blocked):
    """The cells of the query interval [a0, a1) on row b0, given QIa's and QIm's double sums over
    other query intervals (``acc_a``, ``acc_m``); the single sums are added here."""
    A = idx[a0, a1]
    l1 = a1 - a0
    L2 = QI.shape[2] - 1
    acc_s0[:D + 1] = 0.0
    acc_aux0[:D + 1] = 0.0
    acc_qx[:D + 1] = 0.0
    if l1 >= 5:
        for k in range(a0 + 1, a1 - 1):
            _add_scaled(acc_s0, Q0b[a0 + 1, k - a0 - 1], AUX0[idx[k, a1 - 1]], D)
    for k in range(a0, a1 - 1):
        _add_scaled(acc_aux0, Q0b[k + 1, a1 - k - 1], T0[idx[a0, k + 1]], D)
    for k in range(a0 + 1, a1):
        _add_scaled(acc_qx, Q0b[a0, k - a0], Rr[idx[k, a1]], D)
    A_last, A_inner, A_rest = idx[a0, a1 - 1], idx[a0 + 1, a1 - 1], idx[a0 + 1, a1]
    w_query = w1[a[a0], a[a1 - 1]]
    qi_next = QI[A_rest, (b0 + 1) % R]
    for d in range(1, D + 1):
        b1 = b0 + d
        c = b1 % R
        s0 = acc_s0[d] * w_query if l1 >= 5 else 0.0
        s1 = 0.0
        if d >= 5:                          # b0 pairs b1 - 1 around all of [a0, a1)
            # AUX1(A, k, b1 - 1) = AUX1T[A, (b1 - 1) % R, k - b1 + 1 + L2] for k = b0 + 1 .. b1 - 2
            s1 = _dot(Q1b[b0 + 1], AUX1T[A, (b1 - 1) % R, L2 - d + 2:], d - 2) * w2[rb[b0], rb[b1 - 1]]
        m = 0.0                             # QIm: first element at (a0, b0), last at (a1 - 1, b1 - 1)
        if l1 == 1 and d == 1:
            m = wi[a[a0], rb[b0]] * lam[b0]
        elif l1 >= 2 and d >= 2:
            m = acc_m[d] + wi[a[a1 - 1], rb[b1 - 1]] * lam[b1 - 1] * QF[A_last, d - 1]
        T0[A, d] = s0 + m
        T1[A, d] = s1 + m
        AUX0[A, d] = acc_aux0[d] + s0 + m
        AUX1T[A, c, L2 - d] = _dot(T1[A, 1:], Q1Tb[b1, L2 - d + 1:], d)   # T1(A, b0, b0 + j) Q1(b0 + j, b1)
        both = 0.0
        if l1 >= 5 and d >= 5:              # both strands closed around an interacting interior
            both = prev[A_inner, d - 2] * w_query * w2[rb[b0], rb[b1 - 1]]
        QIac[A, s, d] = s0 + s1 + both
        if blocked:
            QIacr[A, s, LEFT + d] = s0 + s1 + both
        # and the block spanning all of [a0, a1), the rest of the target alone
        qia = acc_a[d] + _dot(QIac[A, s, 1:], Q1Tb[b1, L2 - d + 1:], d)
        qf = wi[a[a0], rb[b0]] * lam[b0] * qi_next[d - 1] + qia
        QF[A, d] = qf
        QFT[A, c, L2 - d] = qf
        r = _dot(Q1b[b0], QFT[A, c, L2 - d:], d)   # Q1(b0, b0 + j) QF(A, b0 + j, b1)
        Rr[A, d] = r
        qx = acc_qx[d] + r
        cur[A, d] = qx
        QI[A, s, d] = Q0b[a0, l1] * Q1b[b0, d] + qx
        if blocked:
            QIr[A, s, LEFT + d] = QI[A, s, d]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _add_scaled(out, factor, row, D):
    """out[1:D+1] += factor * row[1:D+1]."""
    if factor != 0.0:
        for d in range(1, D + 1):
            out[d] += factor * row[d]


@njit(cache=True, nogil=True)
def _tables(P, L2, blocked):
    R = L2 + 1
    rings = (np.zeros((P, R, L2 + 1)), np.zeros((P, R, L2 + 1)), np.zeros((P, R, L2 + 1)), np.zeros((P, R, L2 + 1)),
             np.zeros((2, P, L2 + 1)))
    # QI and QIac with zeros on both sides of each row (the blocked products' right operands)
    padded = (np.zeros((P, R, LEFT + L2 + 1 + RIGHT)), np.zeros((P, R, LEFT + L2 + 1 + RIGHT))) if blocked else \
        (np.zeros((1, 1, 1)), np.zeros((1, 1, 1)))
    return rings, padded


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _chunk(a, rb, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, starts, ends, L1, L2, lo, hi, ylo, yhi, f1, f2, rec_qi, rec_qx,
           forbidden, blocked):
    """Rows [lo, hi) of the sweep: their window cells into rec_qi / rec_qx ([query length class, target
    length class, query start, row]); for each reversed target position y in [ylo, yhi), the sum over
    the boxes at rows [lo, hi) that hold y of sign * scale * QI with y forbidden, into forbidden[y]."""
    N = rb.shape[0]
    M = a.shape[0]
    P = starts.shape[0]
    (QI, QIac, QFT, AUX1T, QX), (QIr, QIacr) = _tables(P, L2, blocked)
    single = (np.zeros((P, L2 + 1)), np.zeros((P, L2 + 1)), np.zeros((P, L2 + 1)), np.zeros((P, L2 + 1)),
              np.zeros((P, L2 + 1)))
    acc = np.zeros((2 * L1 + 5, L2 + 1 + RIGHT))
    lam = np.ones(N)
    top = min(N, max(hi + L2, yhi))
    for b0 in range(top, lo - 1, -1):
        if ylo <= b0 < yhi:                     # the rows that see b0, refilled with b0 forbidden
            wQI, wQIac, wQFT, wAUX1T, wQX = QI.copy(), QIac.copy(), QFT.copy(), AUX1T.copy(), QX.copy()
            wQIr, wQIacr = QIr.copy(), QIacr.copy()
            lam[b0] = 0.0
            for r in range(b0, max(lo, b0 - L2 + 1) - 1, -1):
                _row(r, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, starts, ends, L2, wQI, wQIac, wQFT, wAUX1T, wQX,
                     single[0], single[1], single[2], single[3], single[4], acc, wQIr, wQIacr, blocked)
                if r < hi:
                    forbidden[b0] += _boxes_at(r, b0, M, N, L1, L2, idx, wQI, f1, f2)
            lam[b0] = 1.0
        _row(b0, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, starts, ends, L2, QI, QIac, QFT, AUX1T, QX,
             single[0], single[1], single[2], single[3], single[4], acc, QIr, QIacr, blocked)
        if b0 < hi:
            s = b0 % (L2 + 1)
            for iq in range(2):
                lq = L1 - iq
                for it in range(2):
                    lt = L2 - it
                    if lq < 0 or lt < 0 or b0 + lt > N:
                        continue
                    for q in range(M - lq + 1):
                        A = idx[q, q + lq]
                        rec_qi[iq, it, q, b0] = QI[A, s, lt]
                        rec_qx[iq, it, q, b0] = QX[b0 % 2, A, lt] if A > 0 and lt > 0 else 0.0


@njit(cache=True, nogil=True)
def _boxes_at(r, y, M, N, L1, L2, idx, QI, f1, f2):
    """sign * scale * QI over the boxes of the inclusion-exclusion (docs/bppart.md, "Windows") whose
    target interval starts at row r and holds y."""
    s = r % (L2 + 1)
    total = 0.0
    for it in range(2):
        lt = L2 - it
        # windows start at rows 0 .. N - L2, the overlaps of two consecutive ones at rows 1 .. N - L2
        if lt < 0 or r + lt > N or r + lt <= y or (it == 1 and (r < 1 or r > N - L2)):
            continue
        for iq in range(2):
            lq = L1 - iq
            if lq < 0:
                continue
            first = 0 if iq == 0 else 1
            sign = 1.0 if iq == it else -1.0
            scale = (f1 if iq == 1 else 1.0) * (f2 if it == 1 else 1.0)
            for q in range(first, M - L1 + 1):
                total += sign * scale * QI[idx[q, q + lq], s, lt]
    return total


@njit(cache=True, nogil=True, parallel=True)
def sweep(a, rb, w1, w2, wi, Q0b, Q1b, L1, L2, chunks, f1, f2, blocked):
    """(rec_qi, rec_qx, forbidden) of the whole sweep, its chunks (rows [lo, hi), positions [ylo, yhi)
    a row of ``chunks`` each) on every core; ``forbidden`` per chunk, to be added up. ``blocked``: the
    double sums as register-blocked products (the default), else as row updates (the first form)."""
    M, N = a.shape[0], rb.shape[0]
    idx, starts, ends = window_index(M, L1)
    Q1Tb = column_band(Q1b)
    rec_qi = np.zeros((2, 2, M + 1, N + 1))
    rec_qx = np.zeros((2, 2, M + 1, N + 1))
    forbidden = np.zeros((chunks.shape[0], N + 1))
    for c in prange(chunks.shape[0]):
        _chunk(a, rb, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, starts, ends, L1, L2, chunks[c, 0], chunks[c, 1], chunks[c, 2],
               chunks[c, 3], f1, f2, rec_qi, rec_qx, forbidden[c], blocked)
    return rec_qi, rec_qx, forbidden
