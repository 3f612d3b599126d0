"""Plain-Python RNAplfold: the windowed base-pair probabilities by their definition. Every window of W
bases is folded on its own (McCaskill's inside and outside, unscaled, as tests/naive_mccaskill.py writes
them; pairs spanning fewer than L bases), and each pair's probability is the mean of its probabilities
over the windows that hold it. The one thing a window takes from the rest of the sequence is what
ViennaRNA's RNAplfold takes: the bases just outside it, as the dangles (mismatches) of its exterior
stems. No running sums, band tables, stretches or scaling: the reference the Numba kernel is tested
against on small inputs.
"""
import math

from bioaccel.fold._turner_pf_params import boltzmann_tables
from bioaccel.fold._turner_tables import (ML_BASE, ML_CLOSING, ML_INTERN, MM_EXTERIOR, MM_MULTI, PAIR_TYPE,
                                          kernel_tables_at, table_codes)
from naive_mccaskill import RT, hairpin, interior, stem


def _window(S, a, b, span, no_lp, E, lxc, B, kT):
    """{(i, j): probability} of the window a .. b (0-based, inclusive) of the table-coded sequence S."""
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
    return {(i, j): qb[i, j] * ob[i, j] / Z for (i, j) in ob if qb.get((i, j), 0.0) * ob[i, j] != 0.0}


def plfold(codes, window, span=None, temperature=37.0, no_lp=False, no_gu=False):
    """``(P, unpaired)``: {(i, j): windowed probability} (1-based, every pair above 0) and each base's
    windowed probability of being unpaired (a list), as RNAplfold -W window -L span -u 1. A window longer
    than the sequence is the sequence."""
    S = [int(x) for x in table_codes(codes)]
    n = len(S)
    W = min(window, n)
    span = W if span is None else min(span, W)
    E, lxc = kernel_tables_at(temperature, no_gu)
    B, kT = boltzmann_tables(temperature, no_gu)
    total, count = {}, {}
    paired, covered = [0.0] * n, [0] * n
    for a in range(0, n - W + 1):
        P = _window(S, a, a + W - 1, span, no_lp, E, lxc, B, kT)
        for (i, j), p in P.items():
            total[i, j] = total.get((i, j), 0.0) + p
            paired[i] += p
            paired[j] += p
        for k in range(a, a + W):
            covered[k] += 1
    for (i, j) in total:
        count[i, j] = sum(1 for a in range(0, n - W + 1) if a <= i and j <= a + W - 1)
    P = {(i + 1, j + 1): total[i, j] / count[i, j] for (i, j) in total}
    unpaired = [1.0 - paired[k] / covered[k] for k in range(n)] if n else []
    assert all(math.isfinite(p) for p in P.values())
    return P, unpaired
