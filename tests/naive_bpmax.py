"""Plain-Python BPMax, written straight from docs/bpmax.md. No Numba, no NumPy.

Scores are integers in units of ``1 / unit`` (half-units for the default weights). Strand 2 is used
reversed (``rb = b[::-1]``), exactly as bpmax.md says. Slow on purpose: for tests on short strands.
"""
from fractions import Fraction

PAIR_NAMES = {frozenset("AU"): "au", frozenset("GC"): "gc", frozenset("GU"): "gu"}


def unit_of(au, gu):
    """Smallest integer making GC=3, AU and GU whole."""
    unit = 1
    for value in (au, gu):
        den = Fraction(value).limit_denominator(1000).denominator
        unit = unit * den // _gcd(unit, den)
    return unit


def _gcd(a, b):
    while b:
        a, b = b, a % b
    return a


def score(x, y, au, gu, unit):
    """score(x, y) of bpmax.md in units: GC 3, AU au, GU gu, else 0."""
    x, y = x.upper().replace("T", "U"), y.upper().replace("T", "U")
    if x == y:
        return 0
    name = PAIR_NAMES.get(frozenset(x + y))
    weight = {"gc": 3, "au": au, "gu": gu}.get(name, 0)
    return round(weight * unit)


def single_strand(s, au, gu, unit):
    """S[i][j] of bpmax.md (weighted Nussinov, pairs need j - i >= 4)."""
    n = len(s)
    S = [[0] * n for _ in range(n)]
    for span in range(4, n):
        for i in range(n - span):
            j = i + span
            best = S[i + 1][j - 1] + score(s[i], s[j], au, gu, unit)
            for k in range(i, j):
                best = max(best, S[i][k] + S[k + 1][j])
            S[i][j] = best
    return S


def bpmax_tables(a, b, au=1.0, gu=1.5, w1=None, w2=None):
    """Return (F, S1, S2, unit): F as a dict {(i1, j1, i2, j2): value} over the (windowed) domain.

    ``w1`` / ``w2``: windows; only cells with j1 - i1 <= w1 and j2 - i2 <= w2 exist (None: no limit).
    """
    unit = unit_of(au, gu)
    rb = b[::-1]
    M, N = len(a), len(rb)
    S1 = single_strand(a, au, gu, unit)
    S2 = single_strand(rb, au, gu, unit)
    L1 = M if w1 is None else min(M, w1 + 1)
    L2 = N if w2 is None else min(N, w2 + 1)
    F = {}
    for i1 in range(M):
        for i2 in range(N):
            F[i1, i1, i2, i2] = score(a[i1], rb[i2], au, gu, unit)
    for l1 in range(1, L1 + 1):
        for l2 in range(1, L2 + 1):
            for i1 in range(M - l1 + 1):
                j1 = i1 + l1 - 1
                for i2 in range(N - l2 + 1):
                    j2 = i2 + l2 - 1
                    best = F.get((i1, j1, i2, j2), 0)
                    for k1 in range(i1, j1):
                        for k2 in range(i2, j2):
                            best = max(best, F[i1, k1, i2, k2] + F[k1 + 1, j1, k2 + 1, j2])
                    for k1 in range(i1, j1):
                        best = max(best, F[i1, k1, i2, j2] + S1[k1 + 1][j1])
                        best = max(best, S1[i1][k1] + F[k1 + 1, j1, i2, j2])
                    for k2 in range(i2, j2):
                        best = max(best, F[i1, j1, i2, k2] + S2[k2 + 1][j2])
                        best = max(best, S2[i2][k2] + F[i1, j1, k2 + 1, j2])
                    if j1 - i1 >= 4:
                        best = max(best, score(a[i1], a[j1], au, gu, unit) + F[i1 + 1, j1 - 1, i2, j2])
                    if j2 - i2 >= 4:
                        best = max(best, score(rb[i2], rb[j2], au, gu, unit) + F[i1, j1, i2 + 1, j2 - 1])
                    F[i1, j1, i2, j2] = best
    return F, S1, S2, unit


def cell(F, S1, S2, i1, j1, i2, j2):
    """F(i1, j1, i2, j2) with bpmax.md's empty-interval border (its compact form): an empty interval on
    one strand leaves the other strand's interval folded alone, F(i1, j1, i2, i2-1) = S1(i1, j1) and
    F(i1, i1-1, i2, j2) = S2(i2, j2); both empty, 0."""
    if j1 < i1 and j2 < i2:
        return 0
    if j2 < i2:
        return S1[i1][j1]
    if j1 < i1:
        return S2[i2][j2]
    return F[i1, j1, i2, j2]


def bpmax_score(a, b, au=1.0, gu=1.5):
    """F(0, M-1, 0, N-1) in units (an empty strand: the other one folded alone)."""
    F, S1, S2, _ = bpmax_tables(a, b, au, gu)
    return cell(F, S1, S2, 0, len(a) - 1, 0, len(b) - 1)


def window_scores(a, b, au=1.0, gu=1.5, w1=None, w2=None):
    """The score in units of every window pair: ``[q][t]`` for the query window [q, q + L1) and the
    target window [t, t + L2) (target as given), read from F with the empty-interval border (an empty
    strand has one window, of length 0)."""
    F, S1, S2, _ = bpmax_tables(a, b, au, gu, w1, w2)
    M, N = len(a), len(b)
    L1 = M if w1 is None else min(M, w1 + 1)
    L2 = N if w2 is None else min(N, w2 + 1)
    return [[cell(F, S1, S2, q, q + L1 - 1, N - t - L2, N - t - 1) for t in range(N - L2 + 1)]
            for q in range(M - L1 + 1)]


def structure_units(a, b, intra_a, intra_b, inter, au=1.0, gu=1.5):
    """Score in units of a joint structure, asserting that it is valid.

    ``intra_a``: pairs (p, q) of query positions; ``intra_b``: pairs (p, q) of ORIGINAL target positions;
    ``inter``: pairs (query position, original target position). Checks: every base in at most one pair,
    every pair allowed, intramolecular hairpins of at least 3, intramolecular pairs nested in each strand,
    intermolecular pairs antiparallel and non-crossing.
    """
    unit = unit_of(au, gu)
    used_a, used_b, total = set(), set(), 0
    for p, q in intra_a:
        assert p < q and q - p >= 4, f"query pair {(p, q)} encloses fewer than 3 bases"
        w = score(a[p], a[q], au, gu, unit)
        assert w > 0, f"query pair {(p, q)} {a[p]}{a[q]} is not allowed"
        assert p not in used_a and q not in used_a, f"query base paired twice in {(p, q)}"
        used_a |= {p, q}
        total += w
    for p, q in intra_b:
        assert p < q and q - p >= 4, f"target pair {(p, q)} encloses fewer than 3 bases"
        w = score(b[p], b[q], au, gu, unit)
        assert w > 0, f"target pair {(p, q)} {b[p]}{b[q]} is not allowed"
        assert p not in used_b and q not in used_b, f"target base paired twice in {(p, q)}"
        used_b |= {p, q}
        total += w
    for p, t in inter:
        w = score(a[p], b[t], au, gu, unit)
        assert w > 0, f"intermolecular pair {(p, t)} {a[p]}{b[t]} is not allowed"
        assert p not in used_a and t not in used_b, f"base paired twice in intermolecular {(p, t)}"
        used_a.add(p)
        used_b.add(t)
        total += w
    for pairs in (intra_a, intra_b):
        for p, q in pairs:
            for r, s in pairs:
                assert not (p < r < q < s), f"pairs {(p, q)} and {(r, s)} cross"
    for p, t in inter:
        for r, u in inter:
            assert not (p < r and t <= u), f"intermolecular pairs {(p, t)} and {(r, u)} cross"
    return total
