"""McCaskill's inside and outside recurrences for the Turner 2004 model, one cell at a time (Numba).
The recurrences, the scaling and the tables' layout are in docs/mccaskill.md; the drivers (diagonal by
diagonal, the cells of one diagonal over the cores, or many sequences one per core) are in
:mod:`._turner_pf_cpu`; the plain-Python reference is tests/naive_mccaskill.py.

Arrays (n x n float64; ``(i, j)`` with i < j, "upper" ``[i, j]``, "lower" ``[j, i]``):

- ``QB``: upper qb(i, j) (i, j paired); lower the outside of qb, ob(i, j).
- ``QM``: qm(i, j) (part of a multiloop with one stem or more) in both triangles (the lower copy is read
  along columns).
- ``QM1``: qm1(i, j) (exactly one stem, starting at i) in both triangles.
- ``OM``: the outside of qm, both triangles; ``OML``: ob(i, j) times the multiloop closing factor of
  (i, j) and the scale of its two bases, both triangles.

Every value is scaled: a segment's partition function times the product of ``sc[k]`` over its bases
(``seg[a * SEG + L]``: the product over a .. a + L - 1, L <= 32; longer stretches ``exp`` of the prefix
sums ``cum`` of log sc). ``PT[i, j]`` is the pair type of (i, j) where (i, j) may pair (hairpin of 3 or
more, ViennaRNA's noLP rule), else 0.
"""
import math

import numpy as np
from numba import njit

from ._turner_energy import RTYPE
from ._turner_pf_loops import exp_ext_stem, exp_hairpin, exp_interior, exp_ml_closing, exp_ml_stem
from ._turner_tables import GENERIC, MAX_LOOP, ML_BASE, MM_INTERIOR

#: longest stretch of the per-base scale table seg (interior loops: 30 unpaired + 1 paired base, + 1)
SEG = 33
_JIT = dict(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
# reassociation lets LLVM vectorise the sums of products (the O(n^3) multiloop parts); no other fast-math flag
_FAST = dict(_JIT, fastmath={"reassoc", "contract"})


@njit(**_JIT)
def _segment(seg, cum, a, b):
    """The product of the scales of bases a .. b (1 if b < a)."""
    L = b - a + 1
    if L < SEG:
        return seg[a * SEG + L] if L > 0 else 1.0
    return math.exp(cum[b + 1] - cum[a])


@njit(**_JIT)
def _neighbours(S, n, i, j):
    return (S[i - 1] if i > 0 else -1), (S[j + 1] if j < n - 1 else -1)


@njit(**_JIT)
def _special_top(u1, umax):
    """The largest u2 (3' side unpaired) of a loop with u1 on the 5' side that is not generic (stacks,
    bulges, 1xn, 2x2, 2x3, 3x2 take exp_interior); the generic ones, u2 above it, a tight sum."""
    if u1 < 2:
        return umax
    if u1 == 2:
        return min(3, umax)
    if u1 == 3:
        return min(2, umax)
    return min(1, umax)


@njit(**_FAST)
def inside_cell(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI, r_prev, r_cur, i, j):
    """qb, qm1, qm of cell (i, j) from the shorter spans; r_prev[i + 1] is R(i + 1, j) of the diagonal
    before (R(i, j) = sum_u mlbase^(u - i) scale(i..u-1) qm1(u, j)), r_cur[i] receives R(i, j)."""
    n = S.shape[0]
    tp = PT[i, j]
    qb = 0.0
    if tp:
        qb = exp_hairpin(B, E, kT, lxc, S, i, j, tp) * _segment(seg, cum, i, j)
        gen = 0.0
        for p in range(i + 1, min(i + MAX_LOOP + 1, j - 4) + 1):
            u1 = p - i - 1
            left = seg[i * SEG + u1 + 1]
            umax = min(MAX_LOOP - u1, j - p - 5)
            top = _special_top(u1, umax)
            for u2 in range(0, top + 1):
                q = j - 1 - u2
                t2 = PT[p, q]
                if t2:
                    z = QB[p, q]
                    if z != 0.0:
                        qb += exp_interior(B, S, i, j, p, q, tp, RTYPE[t2]) * z * left * seg[(q + 1) * SEG + u2 + 1]
            g = 0.0
            for u2 in range(top + 1, umax + 1):
                q = j - 1 - u2
                g += B[GENERIC + u2 * 31 + u1] * QI[p, q] * seg[(q + 1) * SEG + u2 + 1]
            gen += g * left
        qb += gen * B[MM_INTERIOR + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]
        s = 0.0
        for u in range(i + 6, j - 4):
            s += QM[i + 1, u - 1] * QM1[j - 1, u]
        if s != 0.0:
            qb += s * exp_ml_closing(B, S, i, j, tp) * sc[i] * sc[j]
    QB[i, j] = qb
    if qb != 0.0 and i > 0 and j < n - 1:
        QI[i, j] = qb * B[MM_INTERIOR + (RTYPE[tp] * 5 + S[j + 1]) * 5 + S[i - 1]]
    mlb = B[ML_BASE]
    v = QM1[i, j - 1] * mlb * sc[j] if j - i >= 5 else 0.0
    if qb != 0.0:
        s5, s3 = _neighbours(S, n, i, j)
        v += qb * exp_ml_stem(B, tp, s5, s3)
    QM1[i, j] = v
    QM1[j, i] = v
    r = v + r_prev[i + 1] * mlb * sc[i]
    r_cur[i] = r
    m = r
    for u in range(i + 5, j - 3):
        m += QM[i, u - 1] * QM1[j, u]
    QM[i, j] = m
    QM[j, i] = m


@njit(**_JIT)
def exterior_inside(E, B, S, PT, sc, QB):
    """q5[t]: the scaled partition function of bases 0 .. t-1 (q5[0] = 1); q3[t]: of t .. n-1."""
    n = S.shape[0]
    q5 = np.zeros(n + 1)
    q3 = np.zeros(n + 1)
    q5[0] = 1.0
    q3[n] = 1.0
    for j in range(n):
        z = q5[j] * sc[j]
        for k in range(0, j - 3):
            if PT[k, j]:
                s5, s3 = _neighbours(S, n, k, j)
                z += q5[k] * QB[k, j] * exp_ext_stem(B, PT[k, j], s5, s3)
        q5[j + 1] = z
    for i in range(n - 1, -1, -1):
        z = q3[i + 1] * sc[i]
        for l in range(i + 4, n):
            if PT[i, l]:
                s5, s3 = _neighbours(S, n, i, l)
                z += QB[i, l] * exp_ext_stem(B, PT[i, l], s5, s3) * q3[l + 1]
        q3[i] = z
    return q5, q3


@njit(**_FAST)
def outside_cell(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, OM, OML, QI, t_prev, t_cur, o1_prev, o1_cur, i, j):
    """om, om1 and ob of cell (i, j) from the longer spans (within the cell in that order). Diagonal
    vectors: t_prev[i - 1] is T(i - 1, j), o1_prev[i] is om1(i, j + 1) (the diagonal before, one longer);
    t_cur[i] and o1_cur[i] receive T(i, j) and om1(i, j). T(u, j) = sum_{a <= u} om(a, j) mlbase^(u - a)
    scale(a .. u-1) is R's outside counterpart."""
    n = S.shape[0]
    mlb = B[ML_BASE]
    # om(i, j): qm(i, j) as the left part of a longer qm(i, jj), or the first part of a multiloop
    # closed by (i - 1, jj)
    om = 0.0
    for jj in range(j + 5, n):
        om += OM[i, jj] * QM1[j + 1, jj]
    if i > 0:
        for jj in range(j + 6, n):
            om += OML[i - 1, jj] * QM1[j + 1, jj - 1]
    OM[i, j] = om
    OM[j, i] = om
    t = om + (t_prev[i - 1] * mlb * sc[i - 1] if i > 0 else 0.0)
    t_cur[i] = t
    # om1(i, j): extended by an unpaired base to qm1(i, j + 1); the last stem of a qm(a, j) (alone: T;
    # after a qm(a, i - 1)); the last stem of a multiloop closed by (a, j + 1)
    o1 = t
    for a in range(0, i - 4):
        o1 += OM[j, a] * QM[i - 1, a]
    if j + 1 < n:
        o1 += o1_prev[i] * mlb * sc[j + 1]
        for a in range(0, i - 5):
            o1 += OML[j + 1, a] * QM[i - 1, a + 1]
    o1_cur[i] = o1
    tp = PT[i, j]
    if not tp:
        return
    s5, s3 = _neighbours(S, n, i, j)
    ob = q5[i] * exp_ext_stem(B, tp, s5, s3) * q3[j + 1] + o1 * exp_ml_stem(B, tp, s5, s3)
    tq = RTYPE[tp]
    gen = 0.0
    for a in range(i - 1, max(-1, i - MAX_LOOP - 2), -1):
        u1 = i - a - 1
        left = seg[a * SEG + u1 + 1]
        umax = min(MAX_LOOP - u1, n - j - 2)
        top = _special_top(u1, umax)
        for u2 in range(0, top + 1):
            b = j + 1 + u2
            ta = PT[a, b]
            if ta:
                z = QB[b, a]
                if z != 0.0:
                    ob += z * exp_interior(B, S, a, b, i, j, ta, tq) * left * seg[(j + 1) * SEG + u2 + 1]
        g = 0.0
        for u2 in range(top + 1, umax + 1):
            g += B[GENERIC + u2 * 31 + u1] * QI[a, j + 1 + u2] * seg[(j + 1) * SEG + u2 + 1]
        gen += g * left
    if i > 0 and j < n - 1:
        ob += gen * B[MM_INTERIOR + (tq * 5 + S[j + 1]) * 5 + S[i - 1]]
    QB[j, i] = ob
    QI[i, j] = ob * B[MM_INTERIOR + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]     # now the outside's OI
    oml = ob * exp_ml_closing(B, S, i, j, tp) * sc[i] * sc[j]
    OML[i, j] = oml
    OML[j, i] = oml
