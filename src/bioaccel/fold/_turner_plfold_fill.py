"""Windowed base-pair probabilities of the Turner 2004 model (RNAplfold) for one stretch of a sequence:
the inside of every segment of at most W bases, then the windowed outside, row by row (Numba). The
recurrences and why the cost is linear are in docs/mccaskill.md ("Local folding"); the driver that cuts a
genome into such stretches and runs them over the cores is :mod:`._turner_plfold`; the plain-Python
reference is tests/naive_plfold.py.

Coordinates are the stretch's, 1-based: bases 1 .. m, ``Sx[0]`` and ``Sx[m + 1]`` their neighbours in
the whole sequence (-1 past its ends: an exterior stem's dangles reach out of a window, as in
ViennaRNA). Band tables ``X[x, d]`` hold the cell (x, x + d) (row-major) and ``Xc[y, d]`` the cell
(y - d, y) (the same values by columns, for the sums that run down a column). Pairs span at most ``D``
(``j - i <= D``), segments at most ``W - 1``.

Scaling: every value is a segment's partition function times the product of ``sc`` over its bases.
Base y's scale is chosen when its column is done: the inverse of its marginal weight in the longest
segment ending at it, ``q(x0, y - 1) / q(x0, y)`` (x0 = y - W + 1), so that every window's scaled
partition function stays near 1 whatever the sequence's length or composition (the column's values are
linear in ``sc[y]``: they are computed with ``sc[y] = 1`` and multiplied by it).
"""
import math

import numpy as np
from numba import njit

from ._turner_energy import RTYPE
from ._turner_pf_fill import _special_top
from ._turner_pf_loops import exp_ext_stem, exp_hairpin, exp_interior, exp_ml_closing, exp_ml_stem
from ._turner_tables import BULGE, GENERIC, MAX_LOOP, ML_BASE, MM_1N, MM_INTERIOR, ONE_N, TERMINAL_AU

#: longest unpaired stretch whose scale product is tabulated (interior loops: 30 + 2)
SEG = 33
_JIT = dict(cache=True, nogil=True)
_FAST = dict(_JIT, fastmath={"reassoc", "contract"})


@njit(**_JIT)
def band_pair_types(PTAB, Sx, m, D, no_lp):
    """PT[x, d]: the type of pair (x, x + d) where it may form (4 <= d <= D), else 0; with ``no_lp``
    ViennaRNA's rule for the partition function: (x - 1, y + 1) or (x + 1, y - 1) could pair too
    (the bases beyond the stretch included)."""
    PT = np.zeros((m + 2, D + 1), np.int8)
    for x in range(1, m + 1):
        for d in range(4, min(D, m - x) + 1):
            y = x + d
            t = PTAB[Sx[x], Sx[y]]
            if t and no_lp:
                out = d + 2 <= D and Sx[x - 1] >= 0 and Sx[y + 1] >= 0 and PTAB[Sx[x - 1], Sx[y + 1]] != 0
                inner = d >= 6 and PTAB[Sx[x + 1], Sx[y - 1]] != 0
                if not (out or inner):
                    t = 0
            PT[x, d] = t
    return PT


@njit(**_JIT)
def _segment(Sg, cum, x, y):
    """The product of the scales of bases x .. y."""
    L = y - x + 1
    if L < SEG:
        return Sg[x, L]
    return math.exp(cum[y + 1] - cum[x])


@njit(**_FAST)
def _inside_column(E, B, G, kT, lxc, Sx, PT, m, W, D, y, sc, Sg, suffix, cum, QB, QX, QM, QM1, QMc, QM1c, Q, Qc,
                   ecol):
    """Every cell (x, y), x from y down to y - W + 1, with sc[y] = 1 (the caller scales the column)."""
    mlb = B[ML_BASE]
    r = 0.0                                   # R(x + 1, y): sum_u mlb^(u - x) scale(x .. u-1) qm1(u, y)
    x0 = max(1, y - W + 1)
    for L in range(1, min(SEG - 1, y) + 1):   # suffix[L]: the scales of the L bases ending at y, in a row
        suffix[L] = Sg[y - L + 1, L]
    for x in range(y, x0 - 1, -1):
        d = y - x
        tp = PT[x, d] if d <= D else 0
        qb = 0.0
        if tp:
            qb = exp_hairpin(B, E, kT, lxc, Sx, x, y, tp) * _segment(Sg, cum, x, y)
            gen = 0.0
            for p in range(x + 1, min(x + MAX_LOOP + 1, y - 5) + 1):
                u1 = p - x - 1
                left = Sg[x, u1 + 1]
                umax = min(MAX_LOOP - u1, y - p - 5)
                top = _special_top(u1, umax)
                one_by_one = top                         # the loops evaluated one by one
                if u1 < 2:                               # bulges (u1 = 0) and 1xn loops (u1 = 1): tight sums
                    one_by_one = min(top, u1 + 1)
                    t = 0.0
                    for u2 in range(u1 + 2, umax + 1):
                        t += B[(BULGE if u1 == 0 else ONE_N) + u2] * QX[1 + u1, p, y - 1 - u2 - p] * suffix[u2 + 1]
                    if u1 == 0:
                        qb += t * left * (B[TERMINAL_AU] if tp > 2 else 1.0)
                    else:
                        qb += t * left * B[MM_1N + (tp * 5 + Sx[x + 1]) * 5 + Sx[y - 1]]
                for u2 in range(0, one_by_one + 1):      # stacks, bulges of 1, 1x1, 1x2, 2x2, 2x3, ...
                    q = y - 1 - u2
                    t2 = PT[p, q - p]
                    if t2:
                        z = QB[p, q - p]
                        if z != 0.0:
                            qb += exp_interior(B, Sx, x, y, p, q, tp, RTYPE[t2]) * z * left * Sg[q + 1, u2 + 1]
                g = 0.0
                for u2 in range(top + 1, umax + 1):      # generic: size and asymmetry, both mismatches
                    g += G[u1, u2] * QX[0, p, y - 1 - u2 - p] * suffix[u2 + 1]
                gen += g * left
            qb += gen * B[MM_INTERIOR + (tp * 5 + Sx[x + 1]) * 5 + Sx[y - 1]]
            s = 0.0
            for u in range(x + 6, y - 4):
                s += QM[x + 1, u - x - 2] * QM1c[y - 1, y - 1 - u]
            if s != 0.0:
                qb += s * exp_ml_closing(B, Sx, x, y, tp) * sc[x]
        if d <= D:
            QB[x, d] = qb
            if qb != 0.0 and Sx[x - 1] >= 0 and Sx[y + 1] >= 0:     # qb times its factors as an inner pair
                tq = RTYPE[tp]
                QX[0, x, d] = qb * B[MM_INTERIOR + (tq * 5 + Sx[y + 1]) * 5 + Sx[x - 1]]     # generic
                QX[1, x, d] = qb * B[TERMINAL_AU] if tp > 2 else qb                          # bulge
                QX[2, x, d] = qb * B[MM_1N + (tq * 5 + Sx[y + 1]) * 5 + Sx[x - 1]]           # 1xn
            v = QM1[x, d - 1] * mlb if d >= 5 else 0.0
            if qb != 0.0:
                v += qb * exp_ml_stem(B, tp, Sx[x - 1], Sx[y + 1])
            QM1[x, d] = v
            QM1c[y, d] = v
            r = v + r * mlb * sc[x]
            mm = r
            for u in range(x + 5, y - 3):
                mm += QM[x, u - 1 - x] * QM1c[y, y - u]
            QM[x, d] = mm
            QMc[y, d] = mm
            ecol[d] = qb * exp_ext_stem(B, tp, Sx[x - 1], Sx[y + 1]) if qb != 0.0 else 0.0
        else:
            ecol[d] = 0.0
        # q(x, y) = q(x, y - 1) sc[y] + sum_k q(x, k - 1) qb(k, y) stem_E(k, y), q(x, x - 1) = 1
        z = (Q[x, d - 1] if d >= 1 else 1.0) + ecol[d]
        for t in range(1, d - 3):
            z += Q[x, t - 1] * ecol[d - t]
        Q[x, d] = z
        Qc[y, d] = z


@njit(**_JIT)
def _scale_column(m, W, D, y, sc, Sg, cum, QB, QX, QM, QM1, QMc, QM1c, Q, Qc):
    """sc[y]: the inverse of base y's marginal weight in the longest segment ending at it; the column's
    values, its scale products and the prefix sums of ln sc take it."""
    x0 = max(1, y - W + 1)
    before = Q[x0, y - 1 - x0] if y > x0 else 1.0
    f = before / Q[x0, y - x0]
    sc[y] = f
    cum[y + 1] = cum[y] + math.log(f)
    for L in range(1, min(SEG - 1, y) + 1):
        Sg[y - L + 1, L] *= f
    for x in range(x0, y + 1):
        d = y - x
        Q[x, d] *= f
        Qc[y, d] *= f
        if d <= D:
            QB[x, d] *= f
            QX[0, x, d] *= f
            QX[1, x, d] *= f
            QX[2, x, d] *= f
            QM[x, d] *= f
            QM1[x, d] *= f
            QMc[y, d] *= f
            QM1c[y, d] *= f


@njit(**_FAST)
def _outside_row(E, B, G, Sx, PT, m, W, D, x, sc, Sg, invZ, lrow, QB, QM1, QMc, Q, Qc, OB, OX, OM, OMc, OML, OMLc,
                 Tcol):
    """om, om1 and ob of every cell (x, y), y from x + D down to x + 4 (the adjoint of the inside: longer
    spans first), summed over the windows that hold the cell."""
    mlb = B[ML_BASE]
    o1 = 0.0                                                   # om1(x, y + 1)
    amax = m - W + 1                                           # the last window's start
    # lrow[a - base] = q(a, x - 1) / Z_a for the windows a that may hold a pair starting at x, ascending
    base = x - W + 1
    for a in range(max(1, base), min(x, amax) + 1):
        lrow[a - base] = (Qc[x - 1, x - 1 - a] if a < x else 1.0) * invZ[a]
    for y in range(min(m, x + D), x + 3, -1):
        d = y - x
        om = 0.0
        for jj in range(y + 5, min(m, x + D) + 1):
            om += OM[x, jj - x] * QM1[y + 1, jj - y - 1]
        if x > 1:
            for jj in range(y + 6, min(m, x - 1 + D) + 1):
                om += OML[x - 1, jj - x + 1] * QM1[y + 1, jj - y - 2]
        OM[x, d] = om
        OMc[y, d] = om
        t = om + Tcol[y] * mlb * sc[x - 1] if x > 1 else om
        Tcol[y] = t
        o = t
        for a in range(max(1, y - D), x - 4):
            o += OMc[y, y - a] * QMc[x - 1, x - 1 - a]
        if y < m:
            o += o1 * mlb * sc[y + 1]
            for a in range(max(1, y + 1 - D), x - 5):
                o += OMLc[y + 1, y + 1 - a] * QMc[x - 1, x - 2 - a]
        o1 = o
        tp = PT[x, d]
        if not tp or QB[x, d] == 0.0:
            continue
        s5 = Sx[x - 1]
        s3 = Sx[y + 1]
        # exterior: sum over the windows [a, a + W - 1] that hold (x, y) of q(a, x-1) q(y+1, a+W-1) / q(a, a+W-1)
        # sum over the windows a of lrow(a) q(y + 1, a + W - 1); the window ending at y (its right side
        # empty) apart, so that the loop is two ascending streams
        ext = 0.0
        first, last = max(1, y - W + 1), min(x, amax)
        if first == y - W + 1 and first <= last:
            ext += lrow[first - base]
            first += 1
        for a in range(first, last + 1):
            ext += lrow[a - base] * Q[y + 1, a + W - 2 - y]
        ob = ext * exp_ext_stem(B, tp, s5, s3) + o * exp_ml_stem(B, tp, s5, s3)
        tq = RTYPE[tp]
        gen = 0.0
        for a in range(x - 1, max(0, x - MAX_LOOP - 2), -1):
            u1 = x - a - 1
            left = Sg[a, u1 + 1]
            umax = min(MAX_LOOP - u1, m - y - 1, a + D - y - 1)
            top = _special_top(u1, umax)
            one_by_one = top
            if u1 < 2:                                   # bulges and 1xn loops: tight sums
                one_by_one = min(top, u1 + 1)
                t = 0.0
                for u2 in range(u1 + 2, umax + 1):
                    t += B[(BULGE if u1 == 0 else ONE_N) + u2] * OX[1 + u1, a, y + 1 + u2 - a] * Sg[y + 1, u2 + 1]
                if u1 == 0:
                    ob += t * left * (B[TERMINAL_AU] if tp > 2 else 1.0)
                else:
                    ob += t * left * B[MM_1N + (tq * 5 + Sx[y + 1]) * 5 + Sx[x - 1]]
            for u2 in range(0, one_by_one + 1):
                b = y + 1 + u2
                ta = PT[a, b - a]
                if ta:
                    z = OB[a, b - a]
                    if z != 0.0:
                        ob += z * exp_interior(B, Sx, a, b, x, y, ta, tq) * left * Sg[y + 1, u2 + 1]
            g = 0.0
            for u2 in range(top + 1, umax + 1):
                g += G[u1, u2] * OX[0, a, y + 1 + u2 - a] * Sg[y + 1, u2 + 1]
            gen += g * left
        ob += gen * B[MM_INTERIOR + (tq * 5 + Sx[y + 1]) * 5 + Sx[x - 1]]
        OB[x, d] = ob
        OX[0, x, d] = ob * B[MM_INTERIOR + (tp * 5 + Sx[x + 1]) * 5 + Sx[y - 1]]     # its factors as an outer pair
        OX[1, x, d] = ob * B[TERMINAL_AU] if tp > 2 else ob
        OX[2, x, d] = ob * B[MM_1N + (tp * 5 + Sx[x + 1]) * 5 + Sx[y - 1]]
        oml = ob * exp_ml_closing(B, Sx, x, y, tp) * sc[x] * sc[y]
        OML[x, d] = oml
        OMLc[y, d] = oml


@njit(**_JIT)
def window_stretch(E, B, kT, lxc, PTAB, Sx, W, D, no_lp, core0, core1):
    """The windowed probabilities of the pairs (x, y) of a stretch of m bases (``Sx``: its table codes
    with a neighbour each side) whose left base x lies in ``core0 .. core1 - 1`` (1-based, in the
    stretch): ``(P, mass, ok)``, P[x - core0, d] the probability of (x, x + d) (the mean over the windows
    of W bases in the stretch that hold it), ``mass[k - core0]`` the sum over those pairs with base k of
    P times the number of windows (RNAplfold -u 1), ok False when a value left double range."""
    m = Sx.shape[0] - 2
    PT = band_pair_types(PTAB, Sx, m, D, no_lp)
    sc = np.ones(m + 2)
    cum = np.zeros(m + 3)
    Sg = np.ones((m + 2, SEG))
    QB = np.zeros((m + 2, D + 1))
    QX = np.zeros((3, m + 2, D + 1))          # qb times its generic, bulge and 1xn factors as an inner pair
    QM = np.zeros((m + 2, D + 1))
    QM1 = np.zeros((m + 2, D + 1))
    QMc = np.zeros((m + 2, D + 1))
    QM1c = np.zeros((m + 2, D + 1))
    Q = np.zeros((m + 2, W))
    Qc = np.zeros((m + 2, W))
    ecol = np.zeros(W)
    suffix = np.ones(SEG)
    G = np.zeros((MAX_LOOP + 1, MAX_LOOP + 1))        # G[u1, u2]: a generic loop's size and asymmetry factor
    for u1 in range(MAX_LOOP + 1):
        for u2 in range(MAX_LOOP + 1 - u1):
            G[u1, u2] = B[GENERIC + u2 * 31 + u1]
    for y in range(1, m + 1):
        # with sc[y] = 1 for now: the products of scales ending at y are those ending at y - 1
        cum[y + 1] = cum[y]
        for L in range(1, min(SEG - 1, y) + 1):
            Sg[y - L + 1, L] = Sg[y - L + 1, L - 1]
        _inside_column(E, B, G, kT, lxc, Sx, PT, m, W, D, y, sc, Sg, suffix, cum, QB, QX, QM, QM1, QMc, QM1c, Q,
                       Qc, ecol)
        _scale_column(m, W, D, y, sc, Sg, cum, QB, QX, QM, QM1, QMc, QM1c, Q, Qc)
    ok = True
    for y in range(1, m + 1):
        if not (0.0 < sc[y] < math.inf):
            ok = False
    amax = m - W + 1
    invZ = np.zeros(m + 2)
    for a in range(1, amax + 1):
        invZ[a] = 1.0 / Q[a, W - 1]
    # the outside reads qm by columns and qm1 by rows only: their other copies and QX hold the outside
    OB, OX, OM = QM, QX, QM1c
    OB[:] = 0.0
    OX[:] = 0.0
    OM[:] = 0.0
    OMc = np.zeros((m + 2, D + 1))
    OML = np.zeros((m + 2, D + 1))
    OMLc = np.zeros((m + 2, D + 1))
    Tcol = np.zeros(m + 2)
    lrow = np.zeros(W)
    P = np.zeros((max(core1 - core0, 0), D + 1))
    mass = np.zeros(max(core1 - core0, 0) + D)
    for x in range(1, min(core1, m + 1)):
        _outside_row(E, B, G, Sx, PT, m, W, D, x, sc, Sg, invZ, lrow, QB, QM1, QMc, Q, Qc, OB, OX, OM, OMc, OML, OMLc,
                     Tcol)
        if x < core0:
            continue
        for d in range(4, min(D, m - x) + 1):
            z = QB[x, d] * OB[x, d]
            if z != 0.0:
                y = x + d
                windows = min(x, amax) - max(1, y - W + 1) + 1
                P[x - core0, d] = z / windows
                mass[x - core0] += z
                mass[y - core0] += z
    return P, mass, ok
