"""Plain-Python references of what follows from the base-pair probabilities: the code of
src/bioaccel/fold/_ensemble_derived.py before its Numba kernels (a full (n + 1)^2 MEA table, one NumPy call
per base for the pseudo-bracket line, n x n temporaries for the diversity and the centroid). The fast
versions are checked equal to these, bit for bit, by tests/test_ensemble_derived.py.
"""
import numpy as np


def ensemble_diversity(P) -> float:
    """The mean base-pair distance of two structures of the ensemble: 2 * sum p (1 - p)."""
    return float(2.0 * np.sum(P * (1.0 - P)))


def centroid(P):
    """``(pair_to, d)``: the pairs of probability above 0.5, and their expected distance to the
    ensemble, sum over pairs of 1 - p for those in it and p for the others."""
    n = P.shape[0]
    pair_to = np.full(n, -1, dtype=np.int64)
    i, j = np.nonzero(P > 0.5)
    pair_to[i] = j
    pair_to[j] = i
    chosen = P > 0.5
    d = float(np.sum(1.0 - P[chosen]) + np.sum(P[~chosen]))
    return pair_to, d


def mea(P, gamma: float = 1.0):
    """``(pair_to, value)``: ViennaRNA's MEA structure: the nested pairs maximising sum 2 gamma p_ij over
    its pairs + sum of the unpaired probabilities of its unpaired bases, among the pairs of probability
    above 1e-4 / (1 + gamma) with 2 gamma p > pu_i + pu_j.
    """
    n = P.shape[0]
    cand = P > 1e-4 / (1 + gamma)
    listed = np.where(cand, P, 0.0)          # ViennaRNA's unpaired probabilities count the listed pairs only
    pu = 1.0 - listed.sum(axis=0) - listed.sum(axis=1)
    ii, jj = np.nonzero(cand)
    keep = 2 * gamma * P[ii, jj] > pu[ii] + pu[jj]
    ii, jj = ii[keep], jj[keep]
    ending = [[] for _ in range(n)]              # ending[j]: (i, 2 gamma p) of candidate pairs (i, j)
    for i, j in zip(ii.tolist(), jj.tolist()):
        ending[j].append((i, 2 * gamma * float(P[i, j])))
    # M[i][j]: best over [i, j]; rows from the 3' end so that M[i + 1] is ready
    M = np.zeros((n + 1, n + 1))
    for i in range(n - 1, -1, -1):
        row = M[i]
        for j in range(i, n):
            best = (row[j - 1] if j > i else 0.0) + pu[j]
            for k, a in ending[j]:
                if k >= i:
                    v = a + (row[k - 1] if k > i else 0.0) + (M[k + 1][j - 1] if j - 1 >= k + 1 else 0.0)
                    if v > best:
                        best = v
            row[j] = best
    pair_to = np.full(n, -1, dtype=np.int64)
    stack = [(0, n - 1)] if n else []
    while stack:
        i, j = stack.pop()
        while j >= i:
            tol = 1e-12 * max(1.0, abs(M[i][j]))
            if M[i][j] <= (M[i][j - 1] if j > i else 0.0) + pu[j] + tol:
                j -= 1
                continue
            for k, a in ending[j]:
                if k >= i:
                    v = a + (M[i][k - 1] if k > i else 0.0) + (M[k + 1][j - 1] if j - 1 >= k + 1 else 0.0)
                    if M[i][j] <= v + tol:
                        pair_to[k], pair_to[j] = j, k
                        stack.append((k + 1, j - 1))
                        j = k - 1
                        break
            else:
                raise ArithmeticError("MEA traceback found no case")
    return pair_to, float(M[0][n - 1]) if n else 0.0


def pseudo_bracket(P) -> str:
    """RNAfold -p's ensemble line: per base, from its float32 sums of probabilities (unpaired,
    paired upstream, paired downstream), ``.`` ``(`` ``)`` above 0.667, ``{`` ``}`` ``|`` where paired
    dominates, ``,`` or ``:`` otherwise.
    """
    n = P.shape[0]
    P32 = P.astype(np.float32)
    out = []
    for j in range(n):
        down = P32[:j, j]
        up = P32[j, j + 1:]
        # sequential float32 sums in ViennaRNA's order (np.cumsum adds one element at a time)
        p0 = np.cumsum(np.concatenate(([np.float32(1.0)], -down, -up)), dtype=np.float32)[-1]
        p2 = np.cumsum(down, dtype=np.float32)[-1] if j else np.float32(0.0)
        p1 = np.cumsum(up, dtype=np.float32)[-1] if j < n - 1 else np.float32(0.0)
        out.append(_symbol(float(p0), float(p1), float(p2)))
    return "".join(out)


def _symbol(p0, p1, p2):
    if p0 > 0.667:
        return "."
    if p1 > 0.667:
        return "("
    if p2 > 0.667:
        return ")"
    if p1 + p2 > p0:
        if p1 / (p1 + p2) > 0.667:
            return "{"
        if p2 / (p1 + p2) > 0.667:
            return "}"
        return "|"
    if p0 > p1 + p2:
        return ","
    return ":"
