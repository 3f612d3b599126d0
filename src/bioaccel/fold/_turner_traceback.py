"""One optimal structure of the Turner 2004 tables that :mod:`._turner_fill` filled: the traceback, with
Numba, by the tie-break of docs/turner.md (the tables' layout is described in :mod:`._turner_fill`)."""
import numpy as np
from numba import njit

from ._turner_energy import RTYPE, ext_stem_energy, hairpin_energy, interior_energy, ml_stem_energy
from ._turner_tables import MAX_LOOP, ML_BASE, ML_CLOSING, PAIR_TYPE, STACK
from ._turner_tables import INFINITE as INF

# traceback stack entries
_PAIR, _PAIR_STACKED, _MULTI = 0, 1, 2


@njit(cache=True, nogil=True)
def trace_structure(E, lxc, S, no_lp, c, fm, m2, f):
    """One optimal structure (pair_to, int64, -1 unpaired) by the tie-break of docs/turner.md;
    pair_to[0] = -2 if some value is reproduced by no case (a corrupt table).

    Exterior loop, from the 3' end: j unpaired if f keeps its value, else the stem (k, j) with the
    smallest k. A pair (i, j): the hairpin, then the interior loops by p ascending then q descending,
    then the multiloop with the smallest split (with no_lp: C(i, j) is always the stack on (i + 1, j - 1),
    and CC tries those cases before that stack). FML(i, j): the stem (i, j), then i unpaired, then j
    unpaired, then the smallest split.
    """
    n = S.shape[0]
    pair_to = np.empty(n, dtype=np.int64)
    for k in range(n):
        pair_to[k] = -1
    stack = np.empty((2 * n + 4, 3), dtype=np.int64)
    top = 0
    t = n
    while t > 0:
        if f[t] == f[t - 1]:
            t -= 1
            continue
        j = t - 1
        k = 0
        while k <= j - 4:
            v = c[k, j]
            if v < INF:
                s5 = S[k - 1] if k > 0 else -1
                s3 = S[j + 1] if j < n - 1 else -1
                if f[k] + v + ext_stem_energy(E, np.int64(E[PAIR_TYPE + S[k] * 5 + S[j]]), s5, s3) == f[t]:
                    break
            k += 1
        if k > j - 4:
            pair_to[0] = -2
            return pair_to
        stack[top, 0] = _PAIR
        stack[top, 1] = k
        stack[top, 2] = j
        top += 1
        t = k
    while top > 0:
        top -= 1
        kind = stack[top, 0]
        i = stack[top, 1]
        j = stack[top, 2]
        tp = np.int64(E[PAIR_TYPE + S[i] * 5 + S[j]])
        if kind == _MULTI:
            v = fm[i, j]
            if c[i, j] < INF and np.int64(c[i, j]) + ml_stem_energy(
                    E, tp, S[i - 1] if i > 0 else -1, S[j + 1] if j < n - 1 else -1) == v:
                stack[top, 0] = _PAIR
                top += 1
            elif fm[i + 1, j] + np.int64(E[ML_BASE]) == v:
                stack[top, 1] = i + 1
                top += 1
            elif fm[i, j - 1] + np.int64(E[ML_BASE]) == v:
                stack[top, 2] = j - 1
                top += 1
            else:
                k = i + 4
                while k <= j - 5 and np.int64(fm[i, k]) + fm[k + 1, j] != v:
                    k += 1
                if k > j - 5:
                    pair_to[0] = -2
                    return pair_to
                stack[top, 0] = _MULTI
                stack[top, 1] = k + 1
                stack[top, 2] = j
                stack[top + 1, 0] = _MULTI
                stack[top + 1, 1] = i
                stack[top + 1, 2] = k
                top += 2
            continue
        pair_to[i] = j
        pair_to[j] = i
        if kind == _PAIR and no_lp:  # C(i, j) = CC(i + 1, j - 1) + stack
            stack[top, 0] = _PAIR_STACKED
            stack[top, 1] = i + 1
            stack[top, 2] = j - 1
            top += 1
            continue
        target = np.int64(c[i, j]) if kind == _PAIR else np.int64(m2[j, i])
        # the loop closed by (i, j): hairpin, interior loops, multiloop
        if hairpin_energy(E, lxc, S, i, j, tp) == target:
            continue
        found = False
        umax = min(MAX_LOOP, j - i - 6)
        for u1 in range(0, umax + 1):
            p = i + 1 + u1
            for u2 in range(0, umax - u1 + 1):
                q = j - 1 - u2
                v = c[p, q]
                if v < INF and v + interior_energy(
                        E, lxc, S, i, j, p, q, tp, RTYPE[E[PAIR_TYPE + S[p] * 5 + S[q]]]) == target:
                    stack[top, 0] = _PAIR
                    stack[top, 1] = p
                    stack[top, 2] = q
                    top += 1
                    found = True
                    break
            if found:
                break
        if found:
            continue
        closing = ml_stem_energy(E, RTYPE[tp], S[j - 1], S[i + 1]) + E[ML_CLOSING]
        for k in range(i + 5, j - 5):
            if np.int64(fm[i + 1, k]) + fm[k + 1, j - 1] + closing == target:
                stack[top, 0] = _MULTI
                stack[top, 1] = k + 1
                stack[top, 2] = j - 1
                stack[top + 1, 0] = _MULTI
                stack[top + 1, 1] = i + 1
                stack[top + 1, 2] = k
                top += 2
                found = True
                break
        if found:
            continue
        if kind == _PAIR_STACKED:  # CC(i, j) = CC(i + 1, j - 1) + stack: the helix goes on
            t_in = E[PAIR_TYPE + S[i + 1] * 5 + S[j - 1]]
            if t_in and j - i >= 6 and m2[j - 1, i + 1] < INF and \
                    np.int64(m2[j - 1, i + 1]) + E[STACK + tp * 8 + RTYPE[t_in]] == target:
                stack[top, 0] = _PAIR_STACKED
                stack[top, 1] = i + 1
                stack[top, 2] = j - 1
                top += 1
                continue
        pair_to[0] = -2
        return pair_to
    return pair_to


