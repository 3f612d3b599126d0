"""The cells of one query interval on one row of the windowed sweep (:mod:`._partition_band`), shared by
its two variants: the recurrence of docs/bppart.md ("bioaccel's form") given QIa's and QIm's double
sums over the other query intervals; the single sums and the dot products along the target are here.
"""
from numba import njit

from ._partition_band_cross import LEFT, tile_pair
from ._partition_cpu import _dot   # the fill's vectorised dot product, shared

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the row updates; inf/NaN stay detectable


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def interval_cells(a0, a1, b0, D, s, R, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1Tb, idx, QI, QIac, QFT, AUX1T, cur, prev,
                   QF, Rr, T0, AUX0, T1, acc_a, acc_m, acc_s0, acc_aux0, acc_qx, QIr, QIacr, padded):
    """The cells of the query interval [a0, a1) on row b0, given QIa's and QIm's double sums over
    other query intervals (``acc_a``, ``acc_m``); the single sums are added here. ``padded``: QI and
    QIac also into the padded rings QIr, QIacr (the blocked variant's right operands)."""
    A, A_last, A_inner, A_rest, w_query = _interval_start(a0, a1, D, a, w1, Q0b, idx, AUX0, T0, Rr, acc_s0, acc_aux0,
                                                          acc_qx)
    l1 = a1 - a0
    L2 = QI.shape[2] - 1
    qi_next = QI[A_rest, (b0 + 1) % R]
    for d in range(1, D + 1):
        b1 = b0 + d
        c = b1 % R
        qiac = _single_sum_cells(A, A_last, A_inner, a0, a1, b0, d, s, R, L2, a, rb, lam, w2, wi, w_query, Q1b,
                                 AUX1T, prev, QF, T0, T1, AUX0, QIac, acc_m, acc_s0, acc_aux0)
        AUX1T[A, c, L2 - d] = _dot(T1[A, 1:], Q1Tb[b1, L2 - d + 1:], d)   # T1(A, b0, b0 + j) Q1(b0 + j, b1)
        if padded:
            QIacr[A, s, LEFT + d] = qiac
        # and the block spanning all of [a0, a1), the rest of the target alone
        qia = acc_a[d] + _dot(QIac[A, s, 1:], Q1Tb[b1, L2 - d + 1:], d)
        _query_rest_cells(A, a0, l1, b0, d, s, c, L2, a, rb, lam, wi, Q0b, Q1b, qi_next, qia, QF, QFT, Rr, cur, QI,
                          acc_qx)
        if padded:
            QIr[A, s, LEFT + d] = QI[A, s, d]


# inline: a call a cell passes ~100 values (each array's fields); LLVM left _single_sum_cells a call
@njit(cache=True, nogil=True, fastmath=_FLAGS, inline="always")
def _single_sum_cells(A, A_last, A_inner, a0, a1, b0, d, s, R, L2, a, rb, lam, w2, wi, w_query, Q1b, AUX1T, prev, QF,
                      T0, T1, AUX0, QIac, acc_m, acc_s0, acc_aux0):
    """Target length d's cells of [a0, a1) on row b0 that need no product along the target: T0, T1, AUX0
    and QIac (the single sums and QIm's term); returns QIac's value. The same in both variants."""
    l1 = a1 - a0
    b1 = b0 + d
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
    both = 0.0
    if l1 >= 5 and d >= 5:              # both strands closed around an interacting interior
        both = prev[A_inner, d - 2] * w_query * w2[rb[b0], rb[b1 - 1]]
    QIac[A, s, d] = s0 + s1 + both
    return s0 + s1 + both


@njit(cache=True, nogil=True, fastmath=_FLAGS, inline="always")   # as _single_sum_cells
def _query_rest_cells(A, a0, l1, b0, d, s, c, L2, a, rb, lam, wi, Q0b, Q1b, qi_next, qia, QF, QFT, Rr, cur, QI, acc_qx):
    """Target length d's cells of [a0, a1) on row b0 that follow from QIa's value ``qia``: QF (and QFT, at
    ring row ``c`` = (b0 + d) % R), R, the row's QI sum (``cur``) and QI. The same in both variants."""
    qf = wi[a[a0], rb[b0]] * lam[b0] * qi_next[d - 1] + qia
    QF[A, d] = qf
    QFT[A, c, L2 - d] = qf
    r = _dot(Q1b[b0], QFT[A, c, L2 - d:], d)   # Q1(b0, b0 + j) QF(A, b0 + j, b1)
    Rr[A, d] = r
    qx = acc_qx[d] + r
    cur[A, d] = qx
    QI[A, s, d] = Q0b[a0, l1] * Q1b[b0, d] + qx


@njit(cache=True, nogil=True, fastmath=_FLAGS, inline="always")   # as _single_sum_cells
def _interval_start(a0, a1, D, a, w1, Q0b, idx, AUX0, T0, Rr, acc_s0, acc_aux0, acc_qx):
    """The query interval's sums over its split points on this row (:func:`_query_split_sums`); returns its
    place in the tables (A) and those of [a0, a1 - 1), [a0 + 1, a1 - 1), [a0 + 1, a1), and its closing pair's
    weight. The same in both variants."""
    _query_split_sums(a0, a1, D, Q0b, idx, AUX0, T0, Rr, acc_s0, acc_aux0, acc_qx)
    return idx[a0, a1], idx[a0, a1 - 1], idx[a0 + 1, a1 - 1], idx[a0 + 1, a1], w1[a[a0], a[a1 - 1]]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _query_split_sums(a0, a1, D, Q0b, idx, AUX0, T0, Rr, acc_s0, acc_aux0, acc_qx):
    """The sums over the query's split points k of [a0, a1) on this row, for every target length d <= D,
    into ``acc_s0`` (the query's closing pair around AUX0), ``acc_aux0`` (T0 after an unpaired query
    stretch) and ``acc_qx`` (R after one): the same in both variants."""
    acc_s0[:D + 1] = 0.0
    acc_aux0[:D + 1] = 0.0
    acc_qx[:D + 1] = 0.0
    if a1 - a0 >= 5:
        for k in range(a0 + 1, a1 - 1):
            _add_scaled(acc_s0, Q0b[a0 + 1, k - a0 - 1], AUX0[idx[k, a1 - 1]], D)
    for k in range(a0, a1 - 1):
        _add_scaled(acc_aux0, Q0b[k + 1, a1 - k - 1], T0[idx[a0, k + 1]], D)
    for k in range(a0 + 1, a1):
        _add_scaled(acc_qx, Q0b[a0, k - a0], Rr[idx[k, a1]], D)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _add_scaled(out, factor, row, D):
    """out[1:D+1] += factor * row[1:D+1]."""
    if factor != 0.0:
        for d in range(1, D + 1):
            out[d] += factor * row[d]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def interval_cells_blocked(a0, a1, b0, D, s, R, a, rb, lam, w1, w2, wi, Q0b, Q1b, Q1p, ident, idx, QI, QIac, QFT,
                           AUX1T, cur, prev, QF, Rr, T0, AUX0, T1, acc_a, acc_m, acc_s0, acc_aux0, acc_qx, QIr, QIacr,
                           tmp):
    """:func:`interval_cells` of the blocked variant: the same cells, but the two sums over the target
    alone (T1 and QIac against Q1, shared by every query interval) as register-blocked products of the
    whole row (``Q1p``: Q1b with LEFT zeros before each row, ``ident[j]`` = j; ``tmp``: 2 rows of at
    least D + 16), between the cells' other terms (their order is free: each reads only later rows)."""
    A, A_last, A_inner, A_rest, w_query = _interval_start(a0, a1, D, a, w1, Q0b, idx, AUX0, T0, Rr, acc_s0, acc_aux0,
                                                          acc_qx)
    l1 = a1 - a0
    L2 = QI.shape[2] - 1
    for d in range(1, D + 1):
        QIacr[A, s, LEFT + d] = _single_sum_cells(A, A_last, A_inner, a0, a1, b0, d, s, R, L2, a, rb, lam, w2, wi,
                                                  w_query, Q1b, AUX1T, prev, QF, T0, T1, AUX0, QIac, acc_m, acc_s0,
                                                  acc_aux0)
    tmp[:, :] = 0.0                         # T1(A, b0, b0 + j) Q1(b0 + j, b1), QIac(A, b0, b0 + j) Q1(b0 + j, b1)
    for d0 in range(1, D + 1, 16):
        tile_pair(T1[A], QIac[A, s], Q1p[b0:], ident, d0, min(D, d0 + 15), tmp[0], tmp[1])
    qi_next = QI[A_rest, (b0 + 1) % R]
    for d in range(1, D + 1):
        b1 = b0 + d
        c = b1 % R
        AUX1T[A, c, L2 - d] = tmp[0, d]
        qia = acc_a[d] + tmp[1, d]          # and the block spanning all of [a0, a1), the rest of the target alone
        _query_rest_cells(A, a0, l1, b0, d, s, c, L2, a, rb, lam, wi, Q0b, Q1b, qi_next, qia, QF, QFT, Rr, cur, QI,
                          acc_qx)
        QIr[A, s, LEFT + d] = QI[A, s, d]
