"""The Nussinov partition function and base-pair probabilities in log space: the same recurrences and
layout as :mod:`._nussinov_partition` (docs/nussinov-partition.md), every value its natural log.

About ten times slower than the scaled fill (and on one thread: it is rare), and without its limit: it is what the scaled fill falls
back to for the probabilities of a sequence whose scaled inside values leave the range where the
outside is safe (long near-perfect repeats, very large pair weights; see the module above).
"""
import math

import numpy as np
from numba import njit

_FLAGS = {"contract"}   # no reassociation: -inf (an empty sum) must stay -inf


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _log_inside(codes, logw, allowed, min_loop, L, lb):
    """Fill ``L`` ((n+1) x (n+1)): log Q[i, e] above the diagonal and its mirror below. ``lb``: scratch."""
    n = codes.shape[0]
    for e in range(n + 1):
        L[e, e] = 0.0
    for e in range(1, n + 1):
        j = e - 1
        cj = codes[j]
        last = j - 1 - min_loop
        for k in range(last + 1):
            lb[k] = logw[codes[k], cj] + L[j, k + 1] if allowed[codes[k], cj] else -np.inf
        for i in range(e):
            top = L[i, j]
            for k in range(i, last + 1):
                top = max(top, L[i, k] + lb[k])
            s = math.exp(L[i, j] - top)
            for k in range(i, last + 1):
                s += math.exp(L[i, k] + lb[k] - top)
            L[i, e] = top + math.log(s)
        for i in range(e):
            L[e, i] = L[i, e]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _log_outside(codes, logw, allowed, min_loop, L, LO, P, lbo, lbrow):
    """Fill ``LO`` (log of the outside of every Q[i, e], mirrored) and ``P[k, l]`` (k < l), the
    probability that k pairs l. ``lbo``, ``lbrow``: scratch of n + 1 doubles."""
    n = codes.shape[0]
    log_z = L[0, n]
    for i in range(n + 1):
        LO[i, n] = -np.inf
        LO[n, i] = -np.inf
    LO[0, n] = 0.0
    LO[n, 0] = 0.0
    for e in range(n - 1, -1, -1):
        ce = codes[e]
        last = e - 1 - min_loop
        for k in range(last + 1):
            if allowed[codes[k], ce]:
                top = -np.inf
                for i in range(k + 1):
                    top = max(top, LO[e + 1, i] + L[k, i])
                if top == -np.inf:
                    lbo[k] = -np.inf
                else:
                    s = 0.0
                    for i in range(k + 1):
                        s += math.exp(LO[e + 1, i] + L[k, i] - top)
                    lbo[k] = top + math.log(s) + logw[codes[k], ce]
                P[k, e] = math.exp(lbo[k] + L[e, k + 1] - log_z)
            else:
                lbo[k] = -np.inf
        first = e + 1 + min_loop
        for j in range(first, n):
            lbrow[j] = logw[ce, codes[j]] + L[e + 1, j] if allowed[ce, codes[j]] else -np.inf
        for i in range(e + 1):
            top = LO[i, e + 1]
            for j in range(first, n):
                top = max(top, LO[i, j + 1] + lbrow[j])
            inner = lbo[i - 1] if 1 <= i <= last + 1 else -np.inf
            top = max(top, inner)
            if top == -np.inf:
                LO[i, e] = -np.inf
                continue
            s = math.exp(LO[i, e + 1] - top) + math.exp(inner - top)
            for j in range(first, n):
                s += math.exp(LO[i, j + 1] + lbrow[j] - top)
            LO[i, e] = top + math.log(s)
        for i in range(e + 1):
            LO[e, i] = LO[i, e]


def partition_log(codes, logw, allowed, min_loop: int, want_bpp: bool) -> tuple:
    """``(log Z, P or None)`` of one sequence in log space, on this thread; ``logw``/``allowed``: 5 x 5
    pair log weights and whether letters pair.

    >>> w = np.zeros((5, 5)); ok = np.zeros((5, 5), dtype=np.bool_); w[2, 1] = w[1, 2] = 3.0
    >>> ok[2, 1] = ok[1, 2] = True
    >>> log_z, P = partition_log(np.array([2, 0, 0, 0, 1], dtype=np.uint8), w, ok, 3, True)
    >>> bool(abs(log_z - math.log(1 + math.exp(3))) < 1e-12), round(float(P[0, 4]), 4)
    (True, 0.9526)
    """
    n = codes.shape[0]
    L = np.empty((n + 1, n + 1))
    lb = np.empty(n + 1)
    _log_inside(codes, logw, allowed, min_loop, L, lb)
    log_z = float(L[0, n])
    if not want_bpp:
        return log_z, None
    P = np.zeros((n, n))
    if n:
        _log_outside(codes, logw, allowed, min_loop, L, np.empty((n + 1, n + 1)), P, lb, np.empty(n + 1))
    return log_z, P
