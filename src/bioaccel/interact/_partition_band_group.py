"""The ``blocked`` variant of the windowed sweep (:mod:`._partition_band`): K rows of the reversed
target at a time (a group, K = 16), QIa's and QIm's double sums as register-blocked products
(:mod:`._partition_band_cross`).

Why groups: at each row the double sums read, for every query interval, the L2 later rows of its QI
and QIac rings (2 x 130 x 161 doubles at window 128: 74 MB a row for 23 nt, from memory, which held
the products at 5 to 7 G multiply-adds a second where the tiles reach 17 with the rings in cache).
Row b0 - k of a group starting at b0 reads the rings of [c, a1) at rows b0 - k + j: those past the
group (j > k, done before it) for all K rows of the group while the two rings are in cache (``far``,
:func:`._partition_band_cross.cross_group`), the others (rows of the group itself, j <= k) after the
group's earlier rows have done [c, a1) (``near``). A row of the group still finds every cell it reads
done:

- at each query end a1, the far sums of every row of the group, then the intervals by start from the
  last, each interval's rows from the first (b0) down: an interval [a0, a1) of row b0 - k reads the
  rows above it in the group only for intervals [a0, a1) and [a0 + 1, a1) (done before it in this
  order), [c, a1) for c > a0 (near sums: done) and intervals that end before a1;
- row b0 - k takes the ring slots of row b0 - k + L2 + 1, which the rows above it in the group still
  read: as the right operand of the double sums, at end a1, before any row of the group rewrites an
  interval of end a1 (the far sums come first); its columns (QFT, AUX1T) in the interval's own cells,
  which the rows above do first. So each interval's slot is cleared just before its cells are done,
  not the whole row at once; and QX (read one row down) is a ring of K + 1 rows.

A row's arithmetic depends on its place k in its group (which terms are far, which near): groups
start at rows N - i K whatever the chunking (:func:`._partition_band._chunk`), so one task and two
give the same bits.
"""
import numpy as np
from numba import njit

from ._partition_band_cells import interval_cells_blocked
from ._partition_band_cross import LEFT, cross_group, near_tile

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the row updates; inf/NaN stay detectable


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def rows_group(b0, K, end, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1p, idx, starts, ends, L1, L2, QI, QIac, QFT, AUX1T, QX,
               QIr, QIacr, scratch, acc, rows):
    """Every table at reversed target rows b0, b0 - 1, .., b0 - K + 1 (cells [a0, a1) x [r, r + d), d <= L2),
    for every query interval; rows b0 + 1 .. b0 + L2 of the rings are done. ``scratch[t, k]``: row
    b0 - k's QF, R, T0, AUX0, T1 (t = 0 .. 4); ``acc[k]`` its sums; ``rows[k]`` its ring slots (``rows[-1]``:
    0, 1, 2, ..); ``Q1p``: Q1b with LEFT zeros before each row. Only the cells [r, b1) with b1 <= ``end``
    are done (a task's rows past its own read no more: its first L2 rows cost a third of full ones)."""
    M = a.shape[0]
    R = L2 + 1
    P = QI.shape[0]
    S = QX.shape[0]
    Ds = np.empty(K, dtype=np.int64)   # each row's last target length
    for k in range(K):
        r = b0 - k
        s = r % R
        Ds[k] = max(0, min(L2, end - r))
        for j in range(L2 + 1):
            rows[k, j] = (r + j) % R
        for d in range(L2 + 1):         # an empty query interval: the target alone
            QI[0, s, d] = Q1b[r, d] if d <= Ds[k] else 0.0
        if Ds[k] == 0:                  # the last row: every target interval is empty (nothing else at it)
            for A in range(1, P):
                _clear(A, s, r % S, Q0b[starts[A], ends[A] - starts[A]], L2, QI, QIac, QFT, AUX1T, QX, QIr, QIacr,
                       scratch[0, k], scratch[1, k], scratch[2, k], scratch[3, k], scratch[4, k])
    for a1 in range(1, M + 1):                  # query intervals by end, each end's from the shortest
        lo = max(0, a1 - L1)
        for k in range(K):
            acc[k, :L1 + 1, :] = 0.0
            acc[k, L1 + 1:2 * L1 + 2, :] = 0.0
        for c in range(lo + 1, a1):             # the far terms, every row of the group on [c, a1)'s rings
            cross_group(c, a1, lo, b0, K, Ds[0], idx, QIac, scratch[0], QIr, QIacr, rows[0], Ds, acc, L1)
        for a0 in range(a1 - 1, lo - 1, -1):
            A = idx[a0, a1]
            for k in range(K):
                r = b0 - k
                D = Ds[k]
                if D == 0:
                    continue
                s = r % R
                QF, Rr, T0, AUX0, T1 = scratch[0, k], scratch[1, k], scratch[2, k], scratch[3, k], scratch[4, k]
                _clear(A, s, r % S, Q0b[a0, a1 - a0], L2 if D < L2 else 0, QI, QIac, QFT, AUX1T, QX, QIr, QIacr, QF, Rr,
                       T0, AUX0, T1)
                bulk_a, bulk_m = acc[k, a1 - a0], acc[k, L1 + 1 + a1 - a0]
                if k > 0:
                    _near(a0, a1, k, D, s, idx, QIac, QF, QIr, QIacr, rows[k], bulk_a, bulk_m)
                interval_cells_blocked(a0, a1, r, D, s, R, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1p, rows[-1], idx, QI, QIac,
                                       QFT, AUX1T, QX[r % S], QX[(r + 1) % S], QF, Rr, T0, AUX0, T1, bulk_a, bulk_m,
                                       acc[k, 2 * L1 + 2], acc[k, 2 * L1 + 3], acc[k, 2 * L1 + 4], QIr, QIacr,
                                       acc[k, 2 * L1 + 5:])


@njit(cache=True, nogil=True)
def _clear(A, s, sx, q0, last, QI, QIac, QFT, AUX1T, QX, QIr, QIacr, QF, Rr, T0, AUX0, T1):
    """Interval A's cells [0, last] of the row in ring slot s (QX slot sx) set to 0, but its empty target
    interval (the query alone, ``q0``); and the cell [r, r) of its columns (QFT, AUX1T). A row of L2
    lengths writes every other cell before anything reads it (``last`` = 0 is enough), a shorter one
    (the target's last L2 rows) leaves lengths past its end, which must be zero (``last`` = L2)."""
    L2 = QFT.shape[2] - 1
    QFT[A, s, L2] = 0.0
    AUX1T[A, s, L2] = 0.0
    for d in range(last + 1):
        QI[A, s, d] = 0.0
        QIac[A, s, d] = 0.0
        QFT[A, s, d] = 0.0
        AUX1T[A, s, d] = 0.0
        QX[sx, A, d] = 0.0
        QIr[A, s, LEFT + d] = 0.0
        QIacr[A, s, LEFT + d] = 0.0
        QF[A, d] = 0.0
        Rr[A, d] = 0.0
        T0[A, d] = 0.0
        AUX0[A, d] = 0.0
        T1[A, d] = 0.0
    QI[A, s, 0] = q0
    QIr[A, s, LEFT] = q0


@njit(cache=True, nogil=True)
def _near(a0, a1, k, D, s, idx, QIac, QF, QIr, QIacr, rows, acc_a, acc_m):
    """The near terms of [a0, a1) at the group's row r = b0 - k: the double sums' terms that read the
    rings of [c, a1) at the group's rows r + j, j = 1 .. k (done), 16 ends at a time in registers."""
    for d0 in range(1, D + 1, 16):
        near_tile(a0, a1, min(k, D, d0 + 15), d0, s, idx, QIac, QF, QIr, QIacr, rows, acc_a, acc_m)
