"""The MEA structure and RNAfold -p's ensemble line of :mod:`._ensemble_derived` compiled with Numba: the
same arithmetic in the same order (the Python functions there are the reference, and the tests hold these
equal to them bit for bit), about a hundred times faster, so that the host's share of a many-RNA ensemble
(``ensemble(..., backend="gpu")``: the GPU computes 100,000 partition functions of 200 nt in about 10 s)
is not milliseconds per record of pure-Python loops.

>>> import numpy as np
>>> P = np.zeros((6, 6)); P[0, 5] = 0.9; P[1, 4] = 0.3
>>> pair_to, value = mea(P)
>>> pair_to.tolist(), round(value, 2), pseudo_bracket(P)       # as _ensemble_derived's
([5, -1, -1, -1, -1, 0], 5.2, '(....)')
"""
import numpy as np
from numba import njit

_SYMBOLS = ".(){}|,:"


def mea(P, gamma: float = 1.0):
    """``(pair_to, value)`` of :func:`._ensemble_derived.mea` (ViennaRNA's MEA, gamma 1)."""
    n = P.shape[0]
    if n == 0:
        return np.full(0, -1, dtype=np.int64), 0.0
    cand = P > 1e-4 / (1 + gamma)
    listed = np.where(cand, P, 0.0)
    pu = 1.0 - listed.sum(axis=0) - listed.sum(axis=1)     # NumPy's sums, as the reference's
    ii, jj = np.nonzero(cand)
    keep = 2 * gamma * P[ii, jj] > pu[ii] + pu[jj]
    ii, jj = ii[keep], jj[keep]
    order = np.argsort(jj, kind="stable")                  # by j, then i (nonzero gives i-major order)
    ks = np.ascontiguousarray(ii[order], dtype=np.int64)
    weights = 2 * gamma * P[ii[order], jj[order]]
    by_j = np.zeros(n + 1, dtype=np.int64)
    np.cumsum(np.bincount(jj, minlength=n), out=by_j[1:])
    pair_to, value, ok = _mea(n, np.ascontiguousarray(pu), by_j, ks, np.ascontiguousarray(weights, dtype=np.float64))
    if not ok:
        raise ArithmeticError("MEA traceback found no case")
    return pair_to, float(value)


@njit(cache=True, nogil=True)
def _mea(n, pu, by_j, ks, weights):
    M = np.zeros((n + 1, n + 1))
    for i in range(n - 1, -1, -1):
        for j in range(i, n):
            best = (M[i, j - 1] if j > i else 0.0) + pu[j]
            for e in range(by_j[j], by_j[j + 1]):
                k = ks[e]
                if k >= i:
                    v = weights[e] + (M[i, k - 1] if k > i else 0.0) + (M[k + 1, j - 1] if j - 1 >= k + 1 else 0.0)
                    if v > best:
                        best = v
            M[i, j] = best
    pair_to = np.full(n, -1, dtype=np.int64)
    stack = np.zeros((n + 1, 2), dtype=np.int64)
    top = 1
    stack[0, 0], stack[0, 1] = 0, n - 1
    while top:
        top -= 1
        i, j = stack[top, 0], stack[top, 1]
        while j >= i:
            tol = 1e-12 * max(1.0, abs(M[i, j]))
            if M[i, j] <= (M[i, j - 1] if j > i else 0.0) + pu[j] + tol:
                j -= 1
                continue
            found = False
            for e in range(by_j[j], by_j[j + 1]):
                k = ks[e]
                if k >= i:
                    v = weights[e] + (M[i, k - 1] if k > i else 0.0) + (M[k + 1, j - 1] if j - 1 >= k + 1 else 0.0)
                    if M[i, j] <= v + tol:
                        pair_to[k], pair_to[j] = j, k
                        stack[top, 0], stack[top, 1] = k + 1, j - 1
                        top += 1
                        j = k - 1
                        found = True
                        break
            if not found:
                return pair_to, M[0, n - 1], False
    return pair_to, M[0, n - 1], True


def pseudo_bracket(P) -> str:
    """:func:`._ensemble_derived.pseudo_bracket`: per base, from float32 sums in ViennaRNA's order."""
    n = P.shape[0]
    if n == 0:
        return ""
    codes = _pseudo_bracket(np.ascontiguousarray(P, dtype=np.float32))
    return "".join(_SYMBOLS[c] for c in codes.tolist())


@njit(cache=True, nogil=True)
def _pseudo_bracket(P32):
    n = P32.shape[0]
    out = np.zeros(n, dtype=np.int64)
    for j in range(n):
        p0 = np.float32(1.0)
        p2 = np.float32(0.0)
        for k in range(j):
            p0 = np.float32(p0 - P32[k, j])
            p2 = np.float32(p2 + P32[k, j])
        p1 = np.float32(0.0)
        for k in range(j + 1, n):
            p0 = np.float32(p0 - P32[j, k])
            p1 = np.float32(p1 + P32[j, k])
        out[j] = _symbol(np.float64(p0), np.float64(p1), np.float64(p2))
    return out


@njit(cache=True, nogil=True)
def _symbol(p0, p1, p2):
    """The index in _SYMBOLS of :func:`._ensemble_derived._symbol`'s character."""
    if p0 > 0.667:
        return 0
    if p1 > 0.667:
        return 1
    if p2 > 0.667:
        return 2
    if p1 + p2 > p0:
        if p1 / (p1 + p2) > 0.667:
            return 3
        if p2 / (p1 + p2) > 0.667:
            return 4
        return 5
    if p0 > p1 + p2:
        return 6
    return 7
