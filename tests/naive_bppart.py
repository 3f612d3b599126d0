"""Plain-Python BPPart, written straight from docs/bppart.md (the original program's ``bppart.C``), and a
brute-force enumeration of every joint structure of two tiny strands that checks it. No Numba, no NumPy.

Python floats (the weights are exp(score)); strand 2 is used reversed (``rb = b[::-1]``). Intervals are
half-open ``[start, end)`` as the original's tables index them. Slow on purpose: for tests on short
strands only.
"""
import math
from functools import lru_cache
from itertools import combinations

# The original's toNum: A C G T/U, anything else (N, ...) pairs with nothing.
CODES = {"A": 0, "C": 1, "G": 2, "T": 3, "U": 3}
MIN_SPAN = 4  # an intramolecular pair (i, j) needs j - i >= 4 (three unpaired bases inside)


def pair_score(x, y, au, gu):
    """bpscore.C: GC 3, AU ``au``, GU ``gu``; None when the letters do not pair."""
    names = {CODES.get(x.upper(), 4), CODES.get(y.upper(), 4)}
    return {frozenset((1, 2)): 3.0, frozenset((0, 3)): au, frozenset((2, 3)): gu}.get(frozenset(names))


def weight(x, y, au, gu):
    """exp(score), 0 for letters that do not pair (the original's score()/iscore())."""
    s = pair_score(x, y, au, gu)
    return 0.0 if s is None else math.exp(s)


def single_strand(s, au, gu):
    """Q[i][j]: the partition function of s[i:j] (Q[i][i] = 1), as bppart.C's Q/Qz loops."""
    n = len(s)
    Q = [[1.0] * (n + 1) for _ in range(n + 1)]
    Qz = [[0.0] * (n + 1) for _ in range(n + 1)]
    for length in range(5, n + 1):
        for i in range(n - length + 1):
            j = i + length  # half-open end
            Qz[i][j] = sum(Q[i + 1][d] * weight(s[i], s[d], au, gu) * Q[d + 1][j] for d in range(i + 4, j))
            Q[i][j] = 1.0 + sum(Qz[d][j] for d in range(i, j - 4))
    return Q


def bppart_tables(a, b, au=0.5, gu=1.0, forbid=None):
    """(QI, QX, Q0, Q1): QI and QX as dicts {(a0, a1, b0, b1): value} over every pair of half-open
    intervals of ``a`` and ``rb``; QX = QI - Q0 Q1, the structures with an intermolecular pair, kept as
    its own sum (the original subtracts) so that it has no cancellation. ``forbid``: None, or a position
    of ``rb`` that may not pair with the query (its intermolecular weights are 0)."""
    rb = b[::-1]
    M, N = len(a), len(rb)
    Q0, Q1 = single_strand(a, au, gu), single_strand(rb, au, gu)
    w1 = lambda x, y: weight(a[x], a[y], au, gu)      # noqa: E731 (pairs inside strand 1)
    w2 = lambda x, y: weight(rb[x], rb[y], au, gu)    # noqa: E731 (pairs inside strand 2)
    wi = lambda x, y: 0.0 if y == forbid else weight(a[x], rb[y], au, gu)   # noqa: E731 (intermolecular)
    QI, QX, QIa, QIac, QIs0, QIs1, QIm, QIaux0, QIaux1 = ({} for _ in range(9))
    for l1 in range(M + 1):
        for l2 in range(N + 1):
            for i1 in range(M - l1 + 1):
                for i2 in range(N - l2 + 1):
                    e1, e2 = i1 + l1, i2 + l2  # half-open ends
                    key = (i1, e1, i2, e2)
                    s0 = 0.0
                    if l1 >= 5 and l2 >= 1:     # i1 pairs e1-1 around all of [i2, e2)
                        s0 = w1(i1, e1 - 1) * sum(Q0[i1 + 1][k] * QIaux0[k, e1 - 1, i2, e2]
                                                  for k in range(i1 + 1, e1 - 1))
                    s1 = 0.0
                    if l1 >= 1 and l2 >= 5:
                        s1 = w2(i2, e2 - 1) * sum(Q1[i2 + 1][k] * QIaux1[i1, e1, k, e2 - 1]
                                                  for k in range(i2 + 1, e2 - 1))
                    m = 0.0
                    if l1 == 1 and l2 == 1:
                        m = wi(i1, i2)
                    elif l1 >= 2 and l2 >= 2:
                        for k1 in range(i1 + 1, e1):
                            for k2 in range(i2 + 1, e2):
                                m += (QIa[i1, k1, i2, k2] + QI[i1 + 1, k1, i2 + 1, k2] * wi(i1, i2)) \
                                    * QIac[k1, e1, k2, e2]
                        m += QI[i1 + 1, e1 - 1, i2 + 1, e2 - 1] * wi(i1, i2) * wi(e1 - 1, e2 - 1) \
                            + wi(e1 - 1, e2 - 1) * QIa[i1, e1 - 1, i2, e2 - 1]
                    QIs0[key], QIs1[key], QIm[key] = s0, s1, m
                    QIaux0[key] = sum((QIs0[i1, k + 1, i2, e2] + QIm[i1, k + 1, i2, e2]) * Q0[k + 1][e1]
                                      for k in range(i1, e1))
                    QIaux1[key] = sum((QIs1[i1, e1, i2, k + 1] + QIm[i1, e1, i2, k + 1]) * Q1[k + 1][e2]
                                      for k in range(i2, e2))
                    both = 0.0
                    if l1 >= 5 and l2 >= 5:     # both strands closed around an interacting interior
                        both = QX[i1 + 1, e1 - 1, i2 + 1, e2 - 1] * w1(i1, e1 - 1) * w2(i2, e2 - 1)
                    QIac[key] = s0 + s1 + both
                    QIa[key] = sum(QIac[i1, k1 + 1, i2, k2 + 1] * QI[k1 + 1, e1, k2 + 1, e2]
                                   for k1 in range(i1, e1) for k2 in range(i2, e2))
                    QX[key] = sum(Q0[i1][k1] * Q1[i2][k2] * (wi(k1, k2) * QI[k1 + 1, e1, k2 + 1, e2]
                                                             + QIa[k1, e1, k2, e2])
                                  for k1 in range(i1, e1) for k2 in range(i2, e2))
                    QI[key] = Q0[i1][e1] * Q1[i2][e2] + QX[key]
    return QI, QX, Q0, Q1


def bppart(a, b, au=0.5, gu=1.0):
    """(QI, QI - Q0 Q1, Q0, Q1) of the whole strands, as the original prints them (natural values)."""
    QI, QX, Q0, Q1 = bppart_tables(a, b, au, gu)
    M, N = len(a), len(b)
    return QI[0, M, 0, N], QX[0, M, 0, N], Q0[0][M], Q1[0][N]


# --- brute force -------------------------------------------------------------------------------------

def _secondary_structures(s, au, gu):
    """Every set of nested pairs (i, j), j - i >= 4, of letters that pair, as frozensets."""
    n = len(s)

    @lru_cache(maxsize=None)
    def within(i, j):  # structures of s[i:j]
        if j - i < 5:
            return [frozenset()]
        out = list(within(i + 1, j))           # i unpaired
        for d in range(i + MIN_SPAN, j):       # i pairs d
            if pair_score(s[i], s[d], au, gu) is not None:
                out += [inner | outer | {(i, d)} for inner in within(i + 1, d) for outer in within(d + 1, j)]
        return out

    return within(0, n)


def _inter_matchings(a, rb, au, gu):
    """Every set of non-crossing intermolecular pairs (x in a, y in rb; x < x' implies y < y')."""
    candidates = [(x, y) for x in range(len(a)) for y in range(len(rb))
                  if pair_score(a[x], rb[y], au, gu) is not None]
    out = []
    for k in range(min(len(a), len(rb)) + 1):
        for chosen in combinations(candidates, k):
            xs, ys = [x for x, _ in chosen], [y for _, y in chosen]
            if all(xs[t] < xs[t + 1] and ys[t] < ys[t + 1] for t in range(k - 1)):
                out.append(frozenset(chosen))
    return out


def is_joint_structure(M, N, intra1, intra2, inter):
    """Whether the pairs are a structure of BPMax's grammar (docs/bpmax.md), checked on the set itself:
    the rectangle is split into two closed sub-rectangles (D and R1..R4), or its strand-1 (strand-2)
    ends pair and the rest is one, or it is one intermolecular pair; a strand alone is any secondary
    structure. Half-open intervals; ``inter`` pairs are (position in a, position in rb)."""
    partner1 = {x: y for p in intra1 for x, y in (p, p[::-1])}
    partner2 = {x: y for p in intra2 for x, y in (p, p[::-1])}
    across1, across2 = dict(inter), {y: x for x, y in inter}

    def stays(partner, across, own, other):
        """Every position of the interval ``own`` pairs inside it (``partner``) or inside ``other``
        (``across``), or not at all."""
        for x in range(*own):
            for table, (lo, hi) in ((partner, own), (across, other)):
                y = table.get(x)
                if y is not None and not lo <= y < hi:
                    return False
        return True

    def closed(a0, a1, b0, b1):
        return stays(partner1, across1, (a0, a1), (b0, b1)) and stays(partner2, across2, (b0, b1), (a0, a1))

    @lru_cache(maxsize=None)
    def valid(a0, a1, b0, b1):
        if a1 == a0 or b1 == b0 or not any(x in across1 for x in range(a0, a1)):
            return True                         # one strand, or no intermolecular pair: secondary structures
        if a1 - a0 == 1 and b1 - b0 == 1:
            return True
        if partner1.get(a0) == a1 - 1 and valid(a0 + 1, a1 - 1, b0, b1):
            return True
        if partner2.get(b0) == b1 - 1 and valid(a0, a1, b0 + 1, b1 - 1):
            return True
        for k1 in range(a0, a1 + 1):
            for k2 in range(b0, b1 + 1):
                if (k1, k2) in ((a0, b0), (a1, b1)):
                    continue
                if closed(a0, k1, b0, k2) and valid(a0, k1, b0, k2) and valid(k1, a1, k2, b1):
                    return True
        return False

    return valid(0, M, 0, N)


def joint_structures(a, b, au=0.5, gu=1.0):
    """Every joint structure of ``a`` and ``b`` (BPMax's structure space) as (intra1, intra2, inter,
    score): the sum of its pairs' scores."""
    rb = b[::-1]
    out = []
    for s1 in _secondary_structures(a, au, gu):
        for s2 in _secondary_structures(rb, au, gu):
            used1 = {x for p in s1 for x in p}
            used2 = {x for p in s2 for x in p}
            for inter in _inter_matchings(a, rb, au, gu):
                if any(x in used1 or y in used2 for x, y in inter):
                    continue
                if is_joint_structure(len(a), len(rb), s1, s2, inter):
                    score = sum(pair_score(a[x], a[y], au, gu) for x, y in s1) \
                        + sum(pair_score(rb[x], rb[y], au, gu) for x, y in s2) \
                        + sum(pair_score(a[x], rb[y], au, gu) for x, y in inter)
                    out.append((s1, s2, inter, score))
    return out


def brute_force(a, b, au=0.5, gu=1.0):
    """(QI, QI - Q0 Q1, Q0, Q1, best score) by enumerating every joint structure."""
    structures = joint_structures(a, b, au, gu)
    QI = sum(math.exp(s) for *_, s in structures)
    QX = sum(math.exp(s) for _, _, inter, s in structures if inter)
    Q0 = sum(math.exp(sum(pair_score(a[x], a[y], au, gu) for x, y in s))
             for s in _secondary_structures(a, au, gu))
    rb = b[::-1]
    Q1 = sum(math.exp(sum(pair_score(rb[x], rb[y], au, gu) for x, y in s))
             for s in _secondary_structures(rb, au, gu))
    return QI, QX, Q0, Q1, max(s for *_, s in structures)


# --- windows and binding (docs/bppart.md, "Windows") ------------------------------------------------

def spans(M, N, window_query=None, window_target=None):
    """(L1, L2): the window lengths in bases, as BPMax's (``W + 1``, clipped at the strand's length)."""
    return (M if window_query is None else min(M, window_query + 1),
            N if window_target is None else min(N, window_target + 1))


def _side(n, L):
    """(sign, start, end) of one strand's inclusion-exclusion: +1 for each window of L bases, -1 for the
    overlap of each two consecutive windows."""
    return [(1, s, s + L) for s in range(n - L + 1)] + [(-1, s, s + L - 1) for s in range(1, n - L + 1)]


def bppart_windows(a, b, au=0.5, gu=1.0, window_query=None, window_target=None):
    """(Z, X, Z_query, Z_target, windows) of the structures whose pairs all lie in one window pair:
    Z over all of them, X over those with an intermolecular pair, Z_query / Z_target over each strand's
    structures that fit one of its windows; ``windows[q, t]`` = (QI, QX) of the query window starting
    at q with the target window starting at t (original orientation). Inclusion-exclusion over the
    window boxes (reversed target coordinates) of the full tables."""
    M, N = len(a), len(b)
    L1, L2 = spans(M, N, window_query, window_target)
    QI, QX, Q0, Q1 = bppart_tables(a, b, au, gu)
    Z = X = 0.0
    for s1, a0, a1 in _side(M, L1):
        for s2, b0, b1 in _side(N, L2):
            Z += s1 * s2 * QI[a0, a1, b0, b1]
            X += s1 * s2 * QX[a0, a1, b0, b1]
    Zq = sum(s * Q0[i][e] for s, i, e in _side(M, L1))
    Zt = sum(s * Q1[i][e] for s, i, e in _side(N, L2))
    windows = {(q, t): (QI[q, q + L1, N - t - L2, N - t], QX[q, q + L1, N - t - L2, N - t])
               for q in range(M - L1 + 1) for t in range(N - L2 + 1)}
    return Z, X, Zq, Zt, windows


def binding_windows(a, b, au=0.5, gu=1.0, window_query=None, window_target=None):
    """P(target position t, original orientation, pairs with the query) in the ensemble of
    :func:`bppart_windows`: 1 - Z_t / Z, Z_t with t's intermolecular weights 0, each a constrained
    run of the whole recurrence."""
    M, N = len(a), len(b)
    L1, L2 = spans(M, N, window_query, window_target)
    Z = bppart_windows(a, b, au, gu, window_query, window_target)[0]
    out = []
    for t in range(N):
        QI = bppart_tables(a, b, au, gu, forbid=N - 1 - t)[0]
        Zt = sum(s1 * s2 * QI[a0, a1, b0, b1] for s1, a0, a1 in _side(M, L1) for s2, b0, b1 in _side(N, L2))
        out.append((Z - Zt) / Z)
    return out


def brute_force_windows(a, b, au=0.5, gu=1.0, window_query=None, window_target=None):
    """(Z, X, binding) by enumeration: every joint structure whose paired query bases lie in L1
    consecutive bases and paired target bases in L2 (then one window pair holds all of its pairs);
    ``binding[t]``: the share of them in which target base t (original orientation) pairs with the
    query."""
    M, N = len(a), len(b)
    L1, L2 = spans(M, N, window_query, window_target)
    Z = X = 0.0
    bound = [0.0] * N
    for s1, s2, inter, score in joint_structures(a, b, au, gu):
        used1 = [x for p in s1 for x in p] + [x for x, _ in inter]
        used2 = [y for p in s2 for y in p] + [y for _, y in inter]
        if (used1 and max(used1) - min(used1) >= L1) or (used2 and max(used2) - min(used2) >= L2):
            continue
        weight_ = math.exp(score)
        Z += weight_
        if inter:
            X += weight_
        for _, y in inter:
            bound[N - 1 - y] += weight_
    return Z, X, [x / Z for x in bound]
