"""BPPart swept along the target (windows and the binding profile) on the CPU: the recurrence of
docs/bppart.md ("bioaccel's form"), every query interval of at most L1 bases against every target
interval of at most L2 bases, one row of the reversed target at a time, from the last row up.

A cell [a0, a1) x [b0, b1) reads only sub-intervals of its own, so the target's rows b0 > b0 + L2
are never read again once row b0 is done: the tables that later rows read (QI, QIac, and the columns
of QF and AUX1) are kept as rings of L2 + 1 rows (columns), the others as one row, and time and
memory grow linearly with the target. Within a row the query intervals go by end, each end from the
shortest interval up (every sub-interval comes first), each row of
cells left to right: what a cell reads of its own row is then done (docs/bppart.md, "Windows").

Two variants (``sweep``'s ``group``): ``rows`` (0), the first form, QIa's and QIm's double sums as
row updates one row at a time (:func:`_row`); ``blocked`` (rows at a time, the default), those sums as
register-blocked products over groups of rows (:mod:`._partition_band_group`), 2.8 times (23 x 500 nt,
one task) and 3.1 times (23 x 2,000 nt, two) less CPU time at window 128 (docs/bppart.md, "Speed anchors"). Both end in the same cells
(:mod:`._partition_band_cells`) and give the same values to rounding.

``lam[y]`` multiplies every intermolecular pair of reversed target position y: 1 everywhere for the
plain fill, 0 at y for the fill in which y may not pair with the query (the binding profile: the
structures in which y is bound weigh Z - Z_y). Scaling as in _partition_cpu: every weight carries
exp(-c) per base it covers, so a cell holds Z exp(-c1 l1 - c2 l2).
"""
import numpy as np
from numba import njit, prange

from ._partition_band_cells import interval_cells
from ._partition_band_cross import LEFT, RIGHT
from ._partition_band_group import rows_group

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
         AUX0, T1, acc):
    """Every table at reversed target row b0 (cells [a0, a1) x [b0, b0 + d), d <= L2), for every query
    interval; rows b0 + 1 .. b0 + L2 of the rings are done (the ``rows`` variant: QIa's and QIm's double
    sums as row updates, one output row segment per split point and ring row)."""
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
    for d in range(D + 1):         # an empty query interval: the target alone
        QI[0, s, d] = Q1b[b0, d]
    if D == 0:
        return
    M = a.shape[0]
    L1 = (acc.shape[0] - 5) // 2
    bulk_a, bulk_m = acc[:L1 + 1], acc[L1 + 1:2 * L1 + 2]     # by query length, for one end a1
    acc_s0, acc_aux0, acc_qx = acc[2 * L1 + 2], acc[2 * L1 + 3], acc[2 * L1 + 4]
    for a1 in range(1, M + 1):                  # query intervals by end, each end's from the shortest
        lo = max(0, a1 - L1)
        bulk_a[:, :D + 1] = 0.0
        bulk_m[:, :D + 1] = 0.0
        # QIa's and QIm's double sums of every [a0, a1) at once: they read intervals [a0, c) that end
        # before a1 (this row, done) and rings [c, a1) of later rows, so each ring row is loaded once
        # for all a0 (L1 times less memory traffic than interval by interval).
        for c in range(lo + 1, a1):
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
            interval_cells(a0, a1, b0, D, s, R, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, QI, QIac, QFT, AUX1T,
                           cur, prev, QF, Rr, T0, AUX0, T1, bulk_a[a1 - a0], bulk_m[a1 - a0], acc_s0, acc_aux0, acc_qx,
                           QI, QI, False)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _chunk(a, rb, w1, w2, wi, Q0b, Q1b, Q1Tb, Q1p, idx, starts, ends, L1, L2, lo, hi, ylo, yhi, f1, f2, rec_qi, rec_qx,
           forbidden, group):
    """Rows [lo, hi) of the sweep: their window cells into rec_qi / rec_qx ([query length class, target
    length class, query start, row]); for each reversed target position y in [ylo, yhi), the sum over
    the boxes at rows [lo, hi) that hold y of sign * scale * QI with y forbidden, into forbidden[y].
    ``group``: rows at a time of the blocked variant (:mod:`._partition_band_group`); 0: the rows variant."""
    N = rb.shape[0]
    M = a.shape[0]
    P = starts.shape[0]
    R = L2 + 1
    K = max(1, min(group, L2, RIGHT))      # row b0 - k takes the slot of row b0 - k + L2 + 1: not one of the group
    extra = RIGHT if group else 0           # the blocked tiles read QIac's and QF's rows up to K - 1 past L2
    QI, QIac, QFT, AUX1T = np.zeros((P, R, L2 + 1)), np.zeros((P, R, L2 + 1 + extra)), np.zeros((P, R, L2 + 1)), \
        np.zeros((P, R, L2 + 1))
    QX = np.zeros((K + 1, P, L2 + 1))       # read one row down: K + 1 rows
    width = LEFT + L2 + 1 + RIGHT if group else 1   # QI and QIac padded (the blocked products' right operands)
    QIr, QIacr = np.zeros((P, R if group else 1, width)), np.zeros((P, R if group else 1, width))
    scratch = np.zeros((5, K, P, L2 + 1 + extra))   # QF, R, T0, AUX0, T1 of each row at work
    # per row: sums by query length (QIa's, QIm's), three single sums, (blocked) two rows of products
    acc = np.zeros((K, 2 * L1 + 7, L2 + 1 + 2 * RIGHT)) if group else np.zeros((1, 2 * L1 + 5, L2 + 1))
    rows = np.zeros((K + 1, L2 + 1), dtype=np.int64)
    rows[K] = np.arange(L2 + 1)
    lam = np.ones(N)
    # rows [lo, hi) read no cell past column hi - 1 + L2: the blocked variant does no other (the rows
    # variant, the first form, does every cell of the rows it sweeps)
    end = min(N, hi - 1 + L2) if group else N
    b0 = min(N, max(hi + L2, yhi))
    b0 += (N - b0) % K    # groups start at rows N - i K in any chunking: a row's place in its group (its arithmetic) is fixed
    while b0 >= lo:
        if ylo <= b0 < yhi:                     # the rows that see b0, refilled with b0 forbidden
            wQI, wQIac, wQFT, wAUX1T, wQX = QI.copy(), QIac.copy(), QFT.copy(), AUX1T.copy(), QX.copy()
            wQIr, wQIacr = QIr.copy(), QIacr.copy()
            lam[b0] = 0.0
            r, last = b0, max(lo, b0 - L2 + 1)
            while r >= last:
                k = min(K, r - last + 1)
                _rows(r, k, group, end, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, Q1p, idx, starts, ends, L1, L2, wQI, wQIac, wQFT,
                      wAUX1T, wQX, wQIr, wQIacr, scratch, acc, rows)
                for i in range(k):
                    if r - i < hi:
                        forbidden[b0] += _boxes_at(r - i, b0, M, N, L1, L2, idx, wQI, f1, f2)
                r -= k
            lam[b0] = 1.0
            k = 1
        else:                                   # a group stops above the positions refilled
            k = min(K, b0 - lo + 1, b0 - yhi + 1) if b0 >= yhi and ylo < yhi else min(K, b0 - lo + 1)
        _rows(b0, k, group, end, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, Q1p, idx, starts, ends, L1, L2, QI, QIac, QFT, AUX1T, QX,
              QIr, QIacr, scratch, acc, rows)
        for r in range(b0, b0 - k, -1):
            if r < hi:
                _record(r, M, N, L1, L2, idx, QI, QX[r % (K + 1)], rec_qi, rec_qx)
        b0 -= k


@njit(cache=True, nogil=True)
def _rows(b0, k, group, end, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, Q1p, idx, starts, ends, L1, L2, QI, QIac, QFT, AUX1T, QX,
          QIr, QIacr, scratch, acc, rows):
    """Rows b0 .. b0 - k + 1 by the variant ``group`` chooses (0: the rows variant, one row)."""
    if group:
        rows_group(b0, k, end, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1p, idx, starts, ends, L1, L2, QI, QIac, QFT, AUX1T, QX,
                   QIr, QIacr, scratch, acc, rows)
    else:
        _row(b0, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, starts, ends, L2, QI, QIac, QFT, AUX1T, QX,
             scratch[0, 0], scratch[1, 0], scratch[2, 0], scratch[3, 0], scratch[4, 0], acc[0])


@njit(cache=True, nogil=True)
def _record(r, M, N, L1, L2, idx, QI, QXr, rec_qi, rec_qx):
    """Row r's window cells (and their overlaps') into rec_qi / rec_qx."""
    s = r % (L2 + 1)
    for iq in range(2):
        lq = L1 - iq
        for it in range(2):
            lt = L2 - it
            if lq < 0 or lt < 0 or r + lt > N:
                continue
            for q in range(M - lq + 1):
                A = idx[q, q + lq]
                rec_qi[iq, it, q, r] = QI[A, s, lt]
                rec_qx[iq, it, q, r] = QXr[A, lt] if A > 0 and lt > 0 else 0.0


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
def sweep(a, rb, w1, w2, wi, Q0b, Q1b, L1, L2, chunks, f1, f2, group):
    """(rec_qi, rec_qx, forbidden) of the whole sweep, its chunks (rows [lo, hi), positions [ylo, yhi)
    a row of ``chunks`` each) on every core; ``forbidden`` per chunk, to be added up. ``group``: rows at
    a time of the blocked variant (double sums as register-blocked products); 0: the rows variant (as
    row updates, one row at a time)."""
    M, N = a.shape[0], rb.shape[0]
    idx, starts, ends = window_index(M, L1)
    Q1Tb = column_band(Q1b)
    Q1p = np.zeros((N + 1, LEFT + L2 + 1 + RIGHT) if group else (1, 1))   # Q1b, zeros around its rows
    if group:
        Q1p[:, LEFT:LEFT + L2 + 1] = Q1b
    rec_qi = np.zeros((2, 2, M + 1, N + 1))
    rec_qx = np.zeros((2, 2, M + 1, N + 1))
    forbidden = np.zeros((chunks.shape[0], N + 1))
    for c in prange(chunks.shape[0]):
        _chunk(a, rb, w1, w2, wi, Q0b, Q1b, Q1Tb, Q1p, idx, starts, ends, L1, L2, chunks[c, 0], chunks[c, 1], chunks[c, 2],
               chunks[c, 3], f1, f2, rec_qi, rec_qx, forbidden[c], group)
    return rec_qi, rec_qx, forbidden
