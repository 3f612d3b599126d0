"""Plain-Python McCaskill for the Turner 2004 model: the recurrences of docs/mccaskill.md written out
as their definitions (no scaling, no running sums, no table layout), the reference the Numba kernels
are tested against on small inputs. The Boltzmann factors are those of
``bioaccel.fold._turner_pf_params.boltzmann_tables``; the loop factors are re-derived here from the
docs (ViennaRNA's exp_E_* rules), independently of ``_turner_pf_loops``.
"""
import math

from bioaccel.fold._turner_pf_params import boltzmann_tables
from bioaccel.fold._turner_tables import (BULGE, DANGLE3, DANGLE5, GENERIC, HAIRPIN, HEXALOOPS, INT11, INT21,
                                          INT22, INTERIOR, ML_BASE, ML_CLOSING, ML_INTERN, MM_1N, MM_23,
                                          MM_EXTERIOR, MM_HAIRPIN, MM_INTERIOR, MM_MULTI, NINIO, ONE_N,
                                          PAIR_TYPE, STACK, TERMINAL_AU, TETRALOOPS, TRILOOPS,
                                          kernel_tables_at, table_codes)

RT = [0, 2, 1, 4, 3, 6, 5, 7]


def _special(E, S, i, size, start):
    width = size + 2
    for row in range(40):
        at = start + row * (width + 1)
        if E[at] < 0:
            return None
        if all(S[i + k] == E[at + k] for k in range(width)):
            return at + width
    return None


def hairpin(B, E, kT, lxc, S, i, j, tp):
    u = j - i - 1
    q = B[HAIRPIN + u] if u <= 30 else B[HAIRPIN + 30] * math.exp(-(lxc * math.log(u / 30.0)) * 10.0 / kT)
    if u in (3, 4, 6):
        at = _special(E, S, i, u, {3: TRILOOPS, 4: TETRALOOPS, 6: HEXALOOPS}[u])
        if at is not None:
            return B[at]
        if u == 3:
            return q * (B[TERMINAL_AU] if tp > 2 else 1.0)
    return q * B[MM_HAIRPIN + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]


def interior(B, S, i, j, p, q, tp, tq):
    u1, u2 = p - i - 1, j - q - 1
    nl, ns = max(u1, u2), min(u1, u2)
    si, sj, sp, sq = S[i + 1], S[j - 1], S[p - 1], S[q + 1]
    if nl == 0:
        return B[STACK + tp * 8 + tq]
    if ns == 0:
        if nl == 1:
            return B[BULGE + 1] * B[STACK + tp * 8 + tq]
        return B[BULGE + nl] * (B[TERMINAL_AU] if tp > 2 else 1) * (B[TERMINAL_AU] if tq > 2 else 1)
    if (ns, nl) == (1, 1):
        return B[INT11 + ((tp * 8 + tq) * 5 + si) * 5 + sj]
    if (ns, nl) == (1, 2):
        if u1 == 1:
            return B[INT21 + (((tp * 8 + tq) * 5 + si) * 5 + sq) * 5 + sj]
        return B[INT21 + (((tq * 8 + tp) * 5 + sq) * 5 + si) * 5 + sp]
    if ns == 1:
        return B[ONE_N + nl] * B[MM_1N + (tp * 5 + si) * 5 + sj] * B[MM_1N + (tq * 5 + sq) * 5 + sp]
    if (ns, nl) == (2, 2):
        return B[INT22 + ((((tp * 8 + tq) * 5 + si) * 5 + sp) * 5 + sq) * 5 + sj]
    if (ns, nl) == (2, 3):
        return B[INTERIOR + 5] * B[NINIO] * B[MM_23 + (tp * 5 + si) * 5 + sj] * B[MM_23 + (tq * 5 + sq) * 5 + sp]
    return B[GENERIC + u2 * 31 + u1] * B[MM_INTERIOR + (tp * 5 + si) * 5 + sj] * B[MM_INTERIOR + (tq * 5 + sq) * 5 + sp]


def stem(B, mismatch, tp, s5, s3):
    if s5 >= 0 and s3 >= 0:
        z = B[mismatch + (tp * 5 + s5) * 5 + s3]
    elif s5 >= 0:
        z = B[DANGLE5 + tp * 5 + s5]
    elif s3 >= 0:
        z = B[DANGLE3 + tp * 5 + s3]
    else:
        z = 1.0
    return z * (B[TERMINAL_AU] if tp > 2 else 1.0)


def mccaskill(codes, temperature=37.0, no_lp=False, no_gu=False):
    """``(log Z, P)``: ln of the partition function and the dict {(i, j): probability} (0-based)."""
    S = [int(x) for x in table_codes(codes)]
    n = len(S)
    E, lxc = kernel_tables_at(temperature, no_gu)
    B, kT = boltzmann_tables(temperature, no_gu)
    Z, P = fold_window(S, 0, n - 1, n + 1, no_lp, E, lxc, B, kT)      # the whole sequence, any span
    return math.log(Z), P


def fold_window(S, a, b, span, no_lp, E, lxc, B, kT):
    """``(Z, {(i, j): probability})`` of the bases a .. b (0-based, inclusive) of the table-coded sequence
    S folded on their own, pairs spanning fewer than ``span`` bases; the exterior stems' dangles are the
    whole sequence's neighbours (RNAplfold's rule for a window; none beyond the sequence's ends)."""
    n = len(S)

    def ptype(i, j):
        if i < 0 or j >= n or j - i - 1 < 3 or j - i >= span:
            return 0
        return int(E[PAIR_TYPE + S[i] * 5 + S[j]])

    def allowed(i, j):
        if i < a or j > b:
            return 0
        t = ptype(i, j)
        if t and no_lp and not (ptype(i - 1, j + 1) or ptype(i + 1, j - 1)):
            return 0
        return t

    def nb(i, j):                       # the whole sequence's neighbours (RNAplfold's exterior dangles)
        return (S[i - 1] if i > 0 else -1), (S[j + 1] if j < n - 1 else -1)

    mlb = B[ML_BASE]

    def mlstem(i, j):
        return stem(B, MM_MULTI, allowed(i, j), *nb(i, j)) * B[ML_INTERN]

    def mlclose(i, j):
        return B[ML_CLOSING] * stem(B, MM_MULTI, RT[allowed(i, j)], S[j - 1], S[i + 1]) * B[ML_INTERN]

    qb, qm, qm1 = {}, {}, {}
    get = lambda t, i, j: t.get((i, j), 0.0)
    for d in range(4, b - a + 1):
        for i in range(a, b - d + 1):
            j = i + d
            tp = allowed(i, j)
            v = 0.0
            if tp:
                v = hairpin(B, E, kT, lxc, S, i, j, tp)
                for p in range(i + 1, j):
                    for q in range(p + 4, j):
                        if (p - i - 1) + (j - q - 1) <= 30 and allowed(p, q):
                            v += interior(B, S, i, j, p, q, tp, RT[allowed(p, q)]) * get(qb, p, q)
                v += mlclose(i, j) * sum(get(qm, i + 1, u - 1) * get(qm1, u, j - 1) for u in range(i + 2, j))
            qb[i, j] = v
            qm1[i, j] = sum(get(qb, i, l) * mlstem(i, l) * mlb ** (j - l) for l in range(i + 4, j + 1) if allowed(i, l))
            qm[i, j] = sum((mlb ** (u - i) + get(qm, i, u - 1)) * get(qm1, u, j) for u in range(i, j + 1))
    # q5[t]: bases a .. t - 1; q3[t]: bases t .. b
    q5 = {a: 1.0}
    for j in range(a, b + 1):
        q5[j + 1] = q5[j] + sum(q5[k] * get(qb, k, j) * stem(B, MM_EXTERIOR, allowed(k, j), *nb(k, j))
                                for k in range(a, j) if allowed(k, j))
    q3 = {b + 1: 1.0}
    for i in range(b, a - 1, -1):
        q3[i] = q3[i + 1] + sum(get(qb, i, l) * stem(B, MM_EXTERIOR, allowed(i, l), *nb(i, l)) * q3[l + 1]
                                for l in range(i + 1, b + 1) if allowed(i, l))
    Z = q5[b + 1]
    ob, om, om1 = {}, {}, {}
    for d in range(b - a, 3, -1):
        for i in range(a, b - d + 1):
            j = i + d
            o = sum(om.get((i, jj), 0.0) * get(qm1, j + 1, jj) for jj in range(j + 1, b + 1))
            o += sum(ob.get((i - 1, jj), 0.0) * mlclose(i - 1, jj) * get(qm1, j + 1, jj - 1)
                     for jj in range(j + 2, b + 1) if i > a and allowed(i - 1, jj))
            om[i, j] = o
            o1 = sum(om[x, j] * (mlb ** (i - x) + get(qm, x, i - 1)) for x in range(a, i + 1))
            o1 += om1.get((i, j + 1), 0.0) * mlb
            o1 += sum(ob.get((x, j + 1), 0.0) * mlclose(x, j + 1) * get(qm, x + 1, i - 1)
                      for x in range(a, i) if j + 1 <= b and allowed(x, j + 1))
            om1[i, j] = o1
            tp = allowed(i, j)
            if not tp:
                continue
            v = q5[i] * stem(B, MM_EXTERIOR, tp, *nb(i, j)) * q3[j + 1] + o1 * mlstem(i, j)
            for x in range(a, i):
                for y in range(j + 1, b + 1):
                    if (i - x - 1) + (y - j - 1) <= 30 and allowed(x, y):
                        v += ob[x, y] * interior(B, S, x, y, i, j, allowed(x, y), RT[tp])
            ob[i, j] = v
    return Z, {(i, j): qb[i, j] * ob[i, j] / Z for (i, j) in ob if qb.get((i, j), 0.0) * ob[i, j] != 0.0}
