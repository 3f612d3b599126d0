"""Plain-Python references for the Turner 2004 model (no Numba, no vectorised NumPy): slow and short, so
that they can be read against ViennaRNA's rules line by line.

- the loop energies, written from ViennaRNA's C rules (eval/hairpin.h, eval/internal.h, multibranch,
  exterior) and reading the parameter tables as nested lists;
- ``naive_eval``: the energy of a structure, loop by loop;
- ``naive_mfe``: Zuker's recurrences cell by cell (C, FML, f; with no_lp ViennaRNA's C/CC pair), no
  tiles, no precomputed terms, every split and interior loop tried in full;
- ``brute_force_mfe``: every secondary structure enumerated and evaluated with ``naive_eval`` (for a
  dozen or so bases): the reference of the references.

Positions are 0-based; bases are the tables' codes (N=0, A=1, C=2, G=3, U=4).
"""
import functools
import math

from bioaccel.fold._turner_model import TurnerModel
from bioaccel.fold._turner_tables import MAX_LOOP

#: The model settings every Turner reference is checked under (RNAfold's default, --noLP, --noGU, -T)
MODELS = {
    "default": TurnerModel(),
    "noLP": TurnerModel(no_lp=True),
    "noGU": TurnerModel(no_gu=True),
    "25C": TurnerModel(temperature=25.0),
    "50C": TurnerModel(temperature=50.0),
}

INF = 10_000_000
CODE = {"A": 1, "C": 2, "G": 3, "U": 4, "T": 4}
PAIR = {(2, 3): 1, (3, 2): 2, (3, 4): 3, (4, 3): 4, (1, 4): 5, (4, 1): 6}
RTYPE = [0, 2, 1, 4, 3, 6, 5, 7]


class Params:
    """The model's tables as plain nested lists, plus the special hairpins as a dict by sequence."""

    def __init__(self, model):
        t = model.tables()
        for name in t._fields:
            value = getattr(t, name)
            setattr(self, name, value.tolist() if hasattr(value, "tolist") else value)
        self.no_gu = model.no_gu
        self.no_lp = model.no_lp
        self.special = {}
        for loops, energies in ((t.tetraloops, t.tetraloop_energy), (t.triloops, t.triloop_energy),
                                (t.hexaloops, t.hexaloop_energy)):
            for codes, energy in zip(loops.tolist(), energies.tolist()):
                if energy < INF:
                    self.special[tuple(codes)] = energy

    def pair(self, a, b):
        t = PAIR.get((a, b), 0)
        return 0 if self.no_gu and t in (3, 4) else t


@functools.lru_cache(maxsize=None)
def params(model):
    return Params(model)


def codes_of(sequence):
    return [CODE.get(ch, 0) for ch in sequence.upper()]


def extra(P, size):
    return int(P.lxc * math.log(size / 30.0)) if size > 30 else 0


def hairpin(P, S, i, j):
    t = PAIR[(S[i], S[j])]
    size = j - i - 1
    e = P.hairpin[min(size, 30)] + extra(P, size)
    if size in (3, 4, 6) and tuple(S[i:j + 1]) in P.special:
        return P.special[tuple(S[i:j + 1])]
    if size == 3:
        return e + (P.terminal_au if t > 2 else 0)
    return e + P.mismatch_hairpin[t][S[i + 1]][S[j - 1]]


def interior(P, S, i, j, p, q):
    t1 = PAIR[(S[i], S[j])]
    t2 = PAIR[(S[q], S[p])]  # the inner pair read from inside the loop
    n1, n2 = p - i - 1, j - q - 1
    nl, ns = max(n1, n2), min(n1, n2)
    si, sj, sp, sq = S[i + 1], S[j - 1], S[p - 1], S[q + 1]
    if nl == 0:
        return P.stack[t1][t2]
    if ns == 0:
        e = P.bulge[min(nl, 30)] + extra(P, nl)
        if nl == 1:
            return e + P.stack[t1][t2]
        return e + (P.terminal_au if t1 > 2 else 0) + (P.terminal_au if t2 > 2 else 0)
    if ns == 1 and nl == 1:
        return P.int11[t1][t2][si][sj]
    if ns == 1 and nl == 2:
        if n1 == 1:
            return P.int21[t1][t2][si][sq][sj]
        return P.int21[t2][t1][sq][si][sp]
    if ns == 1:
        e = P.interior[min(nl + 1, 30)] + extra(P, nl + 1) + min(P.max_ninio, (nl - ns) * P.ninio)
        return e + P.mismatch_interior_1n[t1][si][sj] + P.mismatch_interior_1n[t2][sq][sp]
    if ns == 2 and nl == 2:
        return P.int22[t1][t2][si][sp][sq][sj]
    if ns == 2 and nl == 3:
        e = P.interior[5] + P.ninio
        return e + P.mismatch_interior_23[t1][si][sj] + P.mismatch_interior_23[t2][sq][sp]
    e = P.interior[min(nl + ns, 30)] + extra(P, nl + ns) + min(P.max_ninio, (nl - ns) * P.ninio)
    return e + P.mismatch_interior[t1][si][sj] + P.mismatch_interior[t2][sq][sp]


def stem(P, t, s5, s3, mismatch):
    """A stem's dangles-2 term (mismatch, or a dangle at a sequence end) plus its terminal penalty."""
    if s5 >= 0 and s3 >= 0:
        e = mismatch[t][s5][s3]
    elif s5 >= 0:
        e = P.dangle5[t][s5]
    elif s3 >= 0:
        e = P.dangle3[t][s3]
    else:
        e = 0
    return e + (P.terminal_au if t > 2 else 0)


def ml_stem(P, t, s5, s3):
    return stem(P, t, s5, s3, P.mismatch_multi) + P.ml_intern


def ext_stem(P, t, s5, s3):
    return stem(P, t, s5, s3, P.mismatch_exterior)


def naive_eval(sequence, pair_to, model=None):
    """Energy of a (valid) structure: exterior stems, then each pair's loop by its number of branches."""
    P = params(model or TurnerModel())
    S = codes_of(sequence)
    n = len(S)
    e = 0
    i = 0
    while i < n:
        if pair_to[i] > i:
            j = pair_to[i]
            e += ext_stem(P, PAIR[(S[i], S[j])], S[i - 1] if i > 0 else -1, S[j + 1] if j < n - 1 else -1)
            i = j + 1
        else:
            i += 1
    for i in range(n):
        j = pair_to[i]
        if j <= i:
            continue
        branches, unpaired, k = [], 0, i + 1
        while k < j:
            if pair_to[k] > k:
                branches.append((k, pair_to[k]))
                k = pair_to[k] + 1
            else:
                unpaired += 1
                k += 1
        if not branches:
            e += hairpin(P, S, i, j)
        elif len(branches) == 1:
            e += interior(P, S, i, j, *branches[0])
        else:
            e += P.ml_closing + unpaired * P.ml_base + ml_stem(P, RTYPE[PAIR[(S[i], S[j])]], S[j - 1], S[i + 1])
            for p, q in branches:
                e += ml_stem(P, PAIR[(S[p], S[q])], S[p - 1], S[q + 1])
    return e


def naive_mfe(sequence, model=None):
    """Minimum free energy by Zuker's recurrences, cell by cell (docs/turner.md)."""
    model = model or TurnerModel()
    P = params(model)
    S = codes_of(sequence)
    n = len(S)
    C = [[INF] * n for _ in range(n)]
    CC = [[INF] * n for _ in range(n)]  # no_lp: (i, j) closing anything, stacked on from outside
    FML = [[INF] * n for _ in range(n)]
    for d in range(4, n):
        for i in range(0, n - d):
            j = i + d
            t = P.pair(S[i], S[j])
            if t:
                best = hairpin(P, S, i, j)
                for p in range(i + 1, j):
                    for q in range(j - 1, p + 3, -1):
                        if (p - i - 1) + (j - q - 1) <= MAX_LOOP and C[p][q] < INF:
                            best = min(best, interior(P, S, i, j, p, q) + C[p][q])
                closing = P.ml_closing + ml_stem(P, RTYPE[t], S[j - 1], S[i + 1])
                for k in range(i + 1, j - 1):
                    if FML[i + 1][k] < INF and FML[k + 1][j - 1] < INF:
                        best = min(best, FML[i + 1][k] + FML[k + 1][j - 1] + closing)
                if model.no_lp:
                    stacked = INF
                    if P.pair(S[i + 1], S[j - 1]) and CC[i + 1][j - 1] < INF:
                        stacked = CC[i + 1][j - 1] + interior(P, S, i, j, i + 1, j - 1)
                    CC[i][j] = min(best, stacked)
                    C[i][j] = stacked
                else:
                    C[i][j] = best
            best = INF
            if C[i][j] < INF:
                best = C[i][j] + ml_stem(P, t, S[i - 1] if i > 0 else -1, S[j + 1] if j < n - 1 else -1)
            best = min(best, FML[i + 1][j] + P.ml_base, FML[i][j - 1] + P.ml_base)
            for k in range(i, j):
                best = min(best, FML[i][k] + FML[k + 1][j])
            FML[i][j] = min(best, INF)
    f = [0] * (n + 1)
    for end in range(1, n + 1):
        j = end - 1
        f[end] = f[end - 1]
        for k in range(0, j - 3):
            if C[k][j] < INF:
                t = P.pair(S[k], S[j])
                e = f[k] + C[k][j] + ext_stem(P, t, S[k - 1] if k > 0 else -1, S[j + 1] if j < n - 1 else -1)
                f[end] = min(f[end], e)
    return f[n]


def all_structures(sequence, model=None):
    """Every secondary structure (pair_to lists) the model allows: canonical pairs (no GU with no_gu),
    hairpins of at least 3 unpaired bases, no isolated pair with no_lp. (For the short sequences this is
    run on, no interior loop can exceed MAX_LOOP.)"""
    model = model or TurnerModel()
    P = params(model)
    S = codes_of(sequence)
    n = len(S)

    def pairs_in(lo, hi):
        """Every list of nested pairs inside [lo, hi]: lo unpaired, or lo paired with some j."""
        if hi - lo < 4:
            yield []
            return
        yield from pairs_in(lo + 1, hi)
        for j in range(lo + 4, hi + 1):
            if P.pair(S[lo], S[j]):
                for inside in pairs_in(lo + 1, j - 1):
                    for rest in pairs_in(j + 1, hi):
                        yield [(lo, j)] + inside + rest

    for pairs in pairs_in(0, n - 1):
        pair_to = [-1] * n
        for i, j in pairs:
            pair_to[i], pair_to[j] = j, i
        isolated = any(not ((pair_to[i + 1] == j - 1) or (i > 0 and j < n - 1 and pair_to[i - 1] == j + 1))
                       for i, j in pairs)
        if model.no_lp and isolated:
            continue
        yield pair_to


def brute_force_mfe(sequence, model=None):
    """The lowest naive_eval over every structure of all_structures (0: the open chain)."""
    return min(naive_eval(sequence, pair_to, model) for pair_to in all_structures(sequence, model))
