"""Plain-Python model of the long partition function's GPU kernels (src/bioaccel/fold/kernels/
turner_pf_long.cu): the same five tables and triangles, the same tile-diagonal order, the products' k
ranges and the finishes' remainders, the multiloop sum S and its adjoint OS, per-base scales; the loop
factors are tests/naive_mccaskill.py's. Checked against naive_mccaskill.mccaskill on small inputs with
small tiles (tests/test_turner_pf_long_gpu.py), so that the reformulation and the split of each sum between
product and finish are tested on a machine without a GPU.
"""
import math

import numpy as np

from bioaccel.fold._turner_pf_params import boltzmann_tables
from bioaccel.fold._turner_tables import (GENERIC, MAX_LOOP, ML_BASE, ML_CLOSING, ML_INTERN, MM_EXTERIOR,
                                          MM_INTERIOR, MM_MULTI, PAIR_TYPE, kernel_tables_at, table_codes)
from naive_mccaskill import RT, hairpin, interior, stem


def _special_top(u1, umax):
    if u1 < 2:
        return umax
    return min({2: 3, 3: 2}.get(u1, 1), umax)


def tiled_partition(codes, tile=8, log_scale=None, temperature=37.0, no_lp=False, no_gu=False):
    """``(log Z, P)`` computed as the kernels compute them; P n x n (upper triangle)."""
    S = [int(x) for x in table_codes(codes)]
    n = len(S)
    E, lxc = kernel_tables_at(temperature, no_gu)
    B, kT = boltzmann_tables(temperature, no_gu)
    logs = np.zeros(n) if log_scale is None else np.asarray(log_scale, float)
    sc = np.exp(logs)

    def seg(a, c):                  # product of sc over a .. c
        return float(np.prod(sc[a:c + 1])) if c >= a else 1.0

    def ptype(i, j):
        return int(E[PAIR_TYPE + S[i] * 5 + S[j]])

    def pt(i, j):
        if i < 0 or j >= n or j - i < 4:
            return 0
        t = ptype(i, j)
        if not t or not no_lp:
            return t
        ok = (i > 0 and j < n - 1 and ptype(i - 1, j + 1)) or (j - i >= 6 and ptype(i + 1, j - 1))
        return t if ok else 0

    def nb(i, j):
        return (S[i - 1] if i > 0 else -1), (S[j + 1] if j < n - 1 else -1)

    def mlstem(i, j, tp):
        return stem(B, MM_MULTI, tp, *nb(i, j)) * B[ML_INTERN]

    def mlclose(i, j, tp):
        return B[ML_CLOSING] * stem(B, MM_MULTI, RT[tp], S[j - 1], S[i + 1]) * B[ML_INTERN]

    def ext(i, j, tp):
        return stem(B, MM_EXTERIOR, tp, *nb(i, j))

    T = tile
    NT = -(-n // T)
    N = NT * T
    QB, QM, QM1, X, QI = (np.zeros((N, N)) for _ in range(5))
    mlb = B[ML_BASE]

    def product(mode, I, J):
        if mode == 0:
            k0, k1 = (I + 1) * T, J * T + 1
        elif mode == 1:
            k0, k1 = (J + 1) * T, n
        else:
            k0, k1 = 0, I * T
        out = np.zeros((T, T))
        for r in range(T):
            for c in range(T):
                i, j = I * T + r, J * T + c
                s = 0.0
                for k in range(k0, k1):
                    if mode == 0:
                        s += QM[i, k - 1] * QM1[k, j]
                    elif mode == 1:
                        s += QM[k, i] * (QM1[j + 1, k] if j + 1 < n else 0.0)
                    else:
                        s += QM[k, i - 1] * QM[j, k]
                out[r, c] = s
        return out

    def cells(I, J, reverse):
        steps = range(2 * T - 2, -1, -1) if reverse else range(2 * T - 1)
        for s in steps:
            for r in range(T):
                c = r + s - (T - 1)
                i, j = I * T + r, J * T + c
                if 0 <= c < T and j < n and j - i >= 4:
                    yield r, c, i, j

    for D in range(NT):
        for I in range(NT - D):
            J = I + D
            part = product(0, I, J)
            for r, c, i, j in cells(I, J, False):
                tp = pt(i, j)
                qb = 0.0
                if tp:
                    spec = gen = 0.0
                    for u1 in range(0, min(MAX_LOOP, j - i - 6) + 1):
                        p = i + 1 + u1
                        umax = min(MAX_LOOP - u1, j - i - 6 - u1)
                        top = _special_top(u1, umax)
                        for u2 in range(umax + 1):
                            q = j - 1 - u2
                            right = seg(q + 1, q + 1 + u2)
                            left = seg(i, i + u1)
                            if u2 <= top:
                                if QB[p, q] != 0:
                                    spec += interior(B, S, i, j, p, q, tp, RT[ptype(p, q)]) * QB[p, q] * right * left
                            else:
                                gen += B[GENERIC + u2 * 31 + u1] * QI[p, q] * right * left
                    qb = hairpin(B, E, kT, lxc, S, i, j, tp) * seg(i, j) + spec
                    qb += gen * B[MM_INTERIOR + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]
                    qb += X[i + 1, j - 1] * mlclose(i, j, tp) * sc[i] * sc[j]
                QB[i, j] = qb
                qm1 = QM1[i, j - 1] * mlb * sc[j] if j - i >= 5 else 0.0
                if qb != 0:
                    if i > 0 and j < n - 1:
                        QI[i, j] = qb * B[MM_INTERIOR + (RT[tp] * 5 + S[j + 1]) * 5 + S[i - 1]]
                    qm1 += qb * mlstem(i, j, tp)
                    QB[j, i] = qb * ext(i, j, tp)
                QM1[i, j] = qm1
                rr = qm1 + X[j, i + 1] * mlb * sc[i]
                skip = range((I + 1) * T, J * T + 1) if D > 0 else range(0)
                msum = sum(QM[i, u - 1] * QM1[u, j] for u in range(i + 5, j - 3) if u not in skip)
                X[j, i] = rr
                X[i, j] = part[r, c] + msum
                QM[i, j] = rr + X[i, j]
    q5, q3 = np.zeros(n + 1), np.zeros(n + 1)
    q5[0] = q3[n] = 1.0
    for t in range(n):
        q5[t + 1] = q5[t] * sc[t] + sum(q5[k] * QB[t, k] for k in range(0, t - 3))
    for t in range(n - 1, -1, -1):
        q3[t] = q3[t + 1] * sc[t] + sum(QB[t, l] * ext(t, l, ptype(t, l)) * q3[l + 1]
                                        for l in range(t + 4, n) if QB[t, l] != 0)
    z = q5[n]
    for D in range(NT - 1, -1, -1):
        for I in range(NT - D):
            J = I + D
            p_om, p_om1 = product(1, I, J), product(2, I, J)
            for r, c, i, j in cells(I, J, True):
                tp = pt(i, j)
                om = p_om[r, c] + sum(QM[jj, i] * QM1[j + 1, jj] for jj in range(j + 5, min(n, (J + 1) * T)))
                t = om + (X[j, i - 1] * mlb * sc[i - 1] if i > 0 else 0.0)
                X[j, i] = t
                os_ = om
                if i > 0 and j < n - 1 and pt(i - 1, j + 1):
                    os_ += QB[j + 1, i - 1] * mlclose(i - 1, j + 1, pt(i - 1, j + 1)) * sc[i - 1] * sc[j + 1]
                QM[j, i] = os_
                o1 = t + p_om1[r, c] + sum(QM[j, a] * QM[a, i - 1] for a in range(I * T, i - 4))
                if j + 1 < n:
                    o1 += QM1[j + 1, i] * mlb * sc[j + 1]
                QM1[j, i] = o1
                if not tp:
                    continue
                ob = q5[i] * ext(i, j, tp) * q3[j + 1] + o1 * mlstem(i, j, tp)
                gen = 0.0
                for u1 in range(0, min(MAX_LOOP, i - 1) + 1):
                    a = i - 1 - u1
                    umax = min(MAX_LOOP - u1, n - j - 2)
                    top = _special_top(u1, umax)
                    for u2 in range(umax + 1):
                        b = j + 1 + u2
                        w = seg(a, a + u1) * seg(j + 1, j + 1 + u2)
                        if u2 <= top:
                            if QB[b, a] != 0:
                                ob += QB[b, a] * interior(B, S, a, b, i, j, ptype(a, b), RT[tp]) * w
                        else:
                            gen += B[GENERIC + u2 * 31 + u1] * QI[a, b] * w
                if i > 0 and j < n - 1:
                    ob += gen * B[MM_INTERIOR + (RT[tp] * 5 + S[j + 1]) * 5 + S[i - 1]]
                QB[j, i] = ob
                QI[i, j] = ob * B[MM_INTERIOR + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]
    P = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 4, n):
            if QB[i, j] != 0:
                P[i, j] = QB[i, j] * QB[j, i] / z
    return math.log(z) - float(np.sum(logs)), P
