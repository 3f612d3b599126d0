"""Numba kernels of :mod:`._ensemble_derived`: the MEA fill and traceback over candidate pairs in CSR form
(memory O(n + pairs), after ViennaRNA's MEA.c), RNAfold -p's float32 sums per base in one row-major sweep,
and NumPy's pairwise summation replayed over P without its n x n temporaries. Each gives the bits of the
NumPy/Python code it replaces (tests/naive_ensemble_derived.py).

>>> import numpy as np
>>> P = np.zeros((6, 6)); P[0, 5] = 0.9; P[1, 4] = 0.3
>>> round(2.0 * pairwise_sum(P), 4)           # the ensemble diversity, 2 sum p (1 - p)
0.6
>>> p0, p1, p2 = probability_sums(P)
>>> [round(float(x), 2) for x in p0], round(float(p1[0]), 2), round(float(p2[5]), 2)
([0.1, 0.7, 1.0, 1.0, 0.7, 0.1], 0.9, 0.9)
"""
import numpy as np
from numba import njit

#: NumPy's pairwise summation: blocks of at most 128 values summed with 8 accumulators, larger ranges
#: halved (at a multiple of 8); numpy/_core/src/umath/loops_utils.h.src
PW_BLOCK = 128


#: what a pairwise sum adds of each value p of P: p (1 - p); p, those above 0.5 left out; p above a
#: threshold, else 0
PRODUCTS, AT_MOST_HALF, ABOVE = 0, 1, 2


@njit(cache=True, nogil=True, inline="always")
def _term(p, mode, threshold):
    if mode == PRODUCTS:
        return p * (1.0 - p)
    if mode == ABOVE:
        return p if p > threshold else 0.0
    return p


@njit(cache=True, nogil=True)
def _leaf(src, off, m, mode, threshold):
    """NumPy's sum of the terms of the m <= 128 values src[off:off + m] (one leaf of its pairwise
    tree: 8 accumulators, then the rest one at a time)."""
    if m < 8:
        res = 0.0
        for t in range(off, off + m):
            res += _term(src[t], mode, threshold)
        return res
    r0, r1 = _term(src[off], mode, threshold), _term(src[off + 1], mode, threshold)
    r2, r3 = _term(src[off + 2], mode, threshold), _term(src[off + 3], mode, threshold)
    r4, r5 = _term(src[off + 4], mode, threshold), _term(src[off + 5], mode, threshold)
    r6, r7 = _term(src[off + 6], mode, threshold), _term(src[off + 7], mode, threshold)
    t = 8
    while t < m - m % 8:
        r0 += _term(src[off + t], mode, threshold)
        r1 += _term(src[off + t + 1], mode, threshold)
        r2 += _term(src[off + t + 2], mode, threshold)
        r3 += _term(src[off + t + 3], mode, threshold)
        r4 += _term(src[off + t + 4], mode, threshold)
        r5 += _term(src[off + t + 5], mode, threshold)
        r6 += _term(src[off + t + 6], mode, threshold)
        r7 += _term(src[off + t + 7], mode, threshold)
        t += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while t < m:
        res += _term(src[off + t], mode, threshold)
        t += 1
    return res


@njit(cache=True, nogil=True)
def _next_leaf(flat, m, mode, threshold, cursor, buf, skipped):
    """The sum of the next m <= 128 terms from flat[cursor[0]:] (AT_MOST_HALF: of the next m values not
    above 0.5, whose flat positions are skipped[cursor[1]:], ascending); cursor advances past them."""
    c = cursor[0]
    if mode != AT_MOST_HALF or cursor[1] == skipped.shape[0] or skipped[cursor[1]] >= c + m:
        cursor[0] = c + m
        return _leaf(flat, c, m, mode, threshold)
    s = cursor[1]
    for t in range(m):                          # the rare leaf with a value above 0.5: gather the rest
        while s < skipped.shape[0] and skipped[s] == c:
            c += 1
            s += 1
        buf[t] = flat[c]
        c += 1
    while s < skipped.shape[0] and skipped[s] == c:         # the next leaf starts past skipped values
        c += 1
        s += 1
    cursor[0], cursor[1] = c, s
    return _leaf(buf, 0, m, mode, threshold)


@njit(cache=True, nogil=True, inline="always")
def tree_stack(m):
    """``(offs, sizes, states, values)``: the stack of a walk over NumPy's pairwise tree of m values, the
    open ranges' offsets, sizes and states (0: left half next, 1: right half next, 2: both summed), and
    the sums found; the whole range [0, m) open (Numba's recursive calls cost ~150 ns each)."""
    offs = np.empty(64, np.int64)
    sizes = np.empty(64, np.int64)
    states = np.empty(64, np.int64)
    values = np.empty(64)
    offs[0], sizes[0], states[0] = 0, m, 0
    return offs, sizes, states, values


@njit(cache=True, nogil=True, inline="always")
def tree_next(offs, sizes, states, values, top, nvalues):
    """``(top, nvalues, off, size)``: the next half range to sum (into values[nvalues]) or to open
    (:func:`tree_push`), ranges above 128 values halved at a multiple of 8; the ranges whose halves are
    both summed closed on the way (left + right); size 0 once the whole sum is values[0]."""
    while top:
        off, size, state = offs[top - 1], sizes[top - 1], states[top - 1]
        half = size // 2
        half -= half % 8
        if state == 2:
            top -= 1
            values[nvalues - 2] = values[nvalues - 2] + values[nvalues - 1]
            nvalues -= 1
            continue
        states[top - 1] = state + 1
        if state == 0:
            return top, nvalues, off, half
        return top, nvalues, off + half, size - half
    return top, nvalues, 0, 0


@njit(cache=True, nogil=True, inline="always")
def tree_push(offs, sizes, states, top, off, size):
    """Opens the range [off, off + size) on the stack: the new top."""
    offs[top], sizes[top], states[top] = off, size, 0
    return top + 1


@njit(cache=True, nogil=True)
def _pairwise(flat, m, mode, threshold, cursor, buf, skipped):
    """NumPy's pairwise sum of the next m terms (:func:`_next_leaf`): ranges above 128 values halved at
    a multiple of 8, left + right, walked with :func:`tree_next`'s stack."""
    if m <= PW_BLOCK:
        return _next_leaf(flat, m, mode, threshold, cursor, buf, skipped)
    offs, sizes, states, values = tree_stack(m)
    top, nvalues, off, part = tree_next(offs, sizes, states, values, 1, 0)
    while part:
        if part <= PW_BLOCK:
            values[nvalues] = _next_leaf(flat, part, mode, threshold, cursor, buf, skipped)
            nvalues += 1
        else:
            top = tree_push(offs, sizes, states, top, off, part)
        top, nvalues, off, part = tree_next(offs, sizes, states, values, top, nvalues)
    return values[0]


def pairwise_sum(P: np.ndarray, skipped: "np.ndarray | None" = None) -> float:
    """``np.sum(P * (1 - P))`` (skipped None) or ``np.sum(P[~(P > 0.5)])`` (skipped: the flat positions of
    the entries above 0.5, ascending), bit for bit, for a C-contiguous float64 P, with no temporary.

    >>> P = np.array([[0.0, 0.7], [0.2, 0.1]])
    >>> bool(pairwise_sum(P, np.array([1])) == np.sum(P[~(P > 0.5)]))
    True
    """
    flat = P.reshape(-1)
    skip = np.zeros(0, np.int64) if skipped is None else np.asarray(skipped, dtype=np.int64)
    m = flat.shape[0] - skip.shape[0]
    if m == 0:
        return 0.0
    mode = PRODUCTS if skipped is None else AT_MOST_HALF
    cursor = np.zeros(2, np.int64)
    return float(_pairwise(flat, m, mode, 0.0, cursor, np.empty(PW_BLOCK), skip))


@njit(cache=True, nogil=True)
def above_half(P):
    """``(i, j, p)`` of P's entries above 0.5, in row-major order (``np.nonzero``'s)."""
    found_j = np.empty(P.shape[1], np.int64)    # one row's, appended after the row (one pass over P)
    found_p = np.empty(P.shape[1], P.dtype)
    ii = np.empty(16, np.int64)
    jj = np.empty(16, np.int64)
    pp = np.empty(16, P.dtype)
    count = 0
    for i in range(P.shape[0]):
        here = 0
        for c in range(P.shape[1]):
            v = P[i, c]
            if v > 0.5:
                found_j[here] = c
                found_p[here] = v
                here += 1
        if here:
            ii, jj, pp, count = _appended(ii, jj, pp, count, i, found_j, found_p, here)
    return ii[:count].copy(), jj[:count].copy(), pp[:count].copy()


@njit(cache=True, nogil=True)
def scan_candidates(P, threshold):
    """``(rowsum, colsum, i, j, p)``: the sums of each row and column of P's values above threshold, as
    NumPy sums ``np.where(P > threshold, P, 0)`` over an axis (rows pairwise, columns one row at a
    time), and the values above threshold in the upper triangle, row-major, in one pass over P."""
    n = P.shape[0]
    rowsum = np.zeros(n)
    colsum = np.zeros(n)
    cursor = np.zeros(2, np.int64)
    buf = np.empty(PW_BLOCK)
    nothing = np.zeros(0, np.int64)
    found_j = np.empty(n, np.int64)             # one row's pairs, appended after the row: growing the
    found_p = np.empty(n)                       # output inside the hot loop made it 50x slower
    ii = np.empty(1024, np.int64)
    jj = np.empty(1024, np.int64)
    pp = np.empty(1024)
    count = 0
    for i in range(n):
        row = P[i]
        cursor[0] = 0
        rowsum[i] = _pairwise(row, n, ABOVE, threshold, cursor, buf, nothing)
        for c in range(i + 1):
            v = row[c]
            if v > threshold:
                colsum[c] += v
        here = 0
        for c in range(i + 1, n):
            v = row[c]
            if v > threshold:
                colsum[c] += v
                found_j[here] = c
                found_p[here] = v
                here += 1
        ii, jj, pp, count = _appended(ii, jj, pp, count, i, found_j, found_p, here)
    return rowsum, colsum, ii[:count].copy(), jj[:count].copy(), pp[:count].copy()


@njit(cache=True, nogil=True)
def _grown(a, size):
    b = np.empty(size, a.dtype)
    b[:a.shape[0]] = a
    return b


@njit(cache=True, nogil=True)
def _appended(ii, jj, pp, count, i, found_j, found_p, here):
    """``(ii, jj, pp, count)`` with row i's ``here`` pairs found_j, found_p appended after the first
    count entries (the arrays doubled when full)."""
    if count + here > ii.shape[0]:
        size = max(2 * ii.shape[0], count + here)
        ii, jj, pp = _grown(ii, size), _grown(jj, size), _grown(pp, size)
    ii[count:count + here] = i
    jj[count:count + here] = found_j[:here]
    pp[count:count + here] = found_p[:here]
    return ii, jj, pp, count + here



@njit(cache=True, nogil=True)
def probability_sums(P):
    """``(p0, p1, p2)`` float32 per base as RNAfold -p sums them: unpaired 1 - sum of its pairs, paired
    downstream (row j), paired upstream (column j), each added one value at a time in ViennaRNA's order
    (column before row for p0). Row-major: column j's sums grow as the rows i < j go by; four rows at
    a time past their own corner, so that their eight sums advance side by side (each in its order)."""
    n = P.shape[0]
    p0 = np.ones(n, np.float32)
    p1 = np.zeros(n, np.float32)
    p2 = np.zeros(n, np.float32)
    g0 = 0
    while g0 < n:
        g1 = min(n, g0 + 4)
        for i in range(g0, g1):                 # the group's corner, one row after the other
            a0 = p0[i]
            a1 = np.float32(0.0)
            for c in range(i + 1, g1):
                v = np.float32(P[i, c])
                a0 = a0 - v
                a1 = a1 + v
                p0[c] = p0[c] - v
                p2[c] = p2[c] + v
            p0[i] = a0
            p1[i] = a1
        if g1 - g0 == 4:
            b0, b1, b2, b3 = p0[g0], p0[g0 + 1], p0[g0 + 2], p0[g0 + 3]
            c0, c1, c2, c3 = p1[g0], p1[g0 + 1], p1[g0 + 2], p1[g0 + 3]
            for c in range(g1, n):
                v0, v1 = np.float32(P[g0, c]), np.float32(P[g0 + 1, c])
                v2, v3 = np.float32(P[g0 + 2, c]), np.float32(P[g0 + 3, c])
                b0, b1, b2, b3 = b0 - v0, b1 - v1, b2 - v2, b3 - v3
                c0, c1, c2, c3 = c0 + v0, c1 + v1, c2 + v2, c3 + v3
                p0[c] = p0[c] - v0 - v1 - v2 - v3
                p2[c] = p2[c] + v0 + v1 + v2 + v3
            p0[g0], p0[g0 + 1], p0[g0 + 2], p0[g0 + 3] = b0, b1, b2, b3
            p1[g0], p1[g0 + 1], p1[g0 + 2], p1[g0 + 3] = c0, c1, c2, c3
        g0 = g1
    return p0, p1, p2


#: the ensemble line's characters by the codes of :func:`symbol_code`
SYMBOLS = b".(){}|,:"


@njit(cache=True, nogil=True)
def symbol_code(p0, p1, p2):
    """RNAfold -p's ensemble-line character (its code in SYMBOLS) of a base with unpaired, paired upstream
    and paired downstream probabilities p0, p1, p2 (float64 of RNAfold's float32 sums): ``.`` ``(``
    ``)`` above 0.667, ``{`` ``}`` ``|`` where paired dominates, ``,`` or ``:`` otherwise."""
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


@njit(cache=True, nogil=True)
def line_codes(p0, p1, p2):
    """:func:`symbol_code` of every base (float32 sums, compared in float64 as RNAfold's doubles)."""
    out = np.empty(p0.shape[0], dtype=np.uint8)
    for k in range(p0.shape[0]):
        out[k] = symbol_code(np.float64(p0[k]), np.float64(p1[k]), np.float64(p2[k]))
    return out


@njit(cache=True, nogil=True)
def _row(row, i, j, pu, indptr, ks, wa, inner):
    """M[i][i..j] into row[i..j]: base j unpaired, or paired with k in [i, j) (pairs ending at j,
    ascending k, so that the walk down stops at k < i). The max is the same whatever the order."""
    prev = 0.0                                  # row[c - 1] kept in a register: it is the critical path
    for c in range(i, j + 1):
        best = (prev if c > i else 0.0) + pu[c]
        for e in range(indptr[c + 1] - 1, indptr[c] - 1, -1):
            k = ks[e]
            if k < i:
                break
            v = wa[e] + (row[k - 1] if k > i else 0.0) + inner[e]
            if v > best:
                best = v
        row[c] = best
        prev = best


@njit(cache=True, nogil=True)
def mea_fill(n, pu, indptr, ks, js, wa, by_start, start_ptr):
    """``(inner, value)``: M[k + 1][j - 1] of each candidate pair (k, j) (0 where j - 1 < k + 1) and
    M[0][n - 1], filling rows i from the 3' end in one row buffer: before row i overwrites it, the
    pairs starting at i read row i + 1. CSR by 3' end (indptr, ks ascending, js, wa = 2 gamma p);
    by_start[start_ptr[i]:start_ptr[i + 1]]: the pairs starting at i."""
    row = np.zeros(n + 1)
    inner = np.zeros(ks.shape[0])
    for i in range(n - 1, -1, -1):
        for s in range(start_ptr[i], start_ptr[i + 1]):
            e = by_start[s]
            inner[e] = row[js[e] - 1] if js[e] - 1 >= i + 1 else 0.0
        _row(row, i, n - 1, pu, indptr, ks, wa, inner)
    return inner, (row[n - 1] if n else 0.0)


@njit(cache=True, nogil=True)
def mea_traceback(n, pu, indptr, ks, wa, inner):
    """``(pair_to, ok)`` of the MEA structure; ok False where a cell matches no case. Each interval's row is
    recomputed (its values equal the full table's), then traced as the Python reference does: base j
    unpaired when M[i][j] is within 1e-12 (relative, at least absolute) of that case, else the pair (k, j)
    of the smallest such k."""
    pair_to = np.full(n, -1, np.int64)
    row = np.zeros(n + 1)
    stack_i = np.empty(n + 1, np.int64)
    stack_j = np.empty(n + 1, np.int64)
    top = 0
    if n:
        stack_i[0], stack_j[0] = 0, n - 1
        top = 1
    while top:
        top -= 1
        i, j = stack_i[top], stack_j[top]
        if j < i:
            continue
        _row(row, i, j, pu, indptr, ks, wa, inner)
        while j >= i:
            mij = row[j]
            tol = 1e-12 * max(1.0, abs(mij))
            if mij <= (row[j - 1] if j > i else 0.0) + pu[j] + tol:
                j -= 1
                continue
            found = False
            for e in range(indptr[j], indptr[j + 1]):
                k = ks[e]
                if k < i:
                    continue
                v = wa[e] + (row[k - 1] if k > i else 0.0) + inner[e]
                if mij <= v + tol:
                    pair_to[k], pair_to[j] = j, k
                    stack_i[top], stack_j[top] = k + 1, j - 1
                    top += 1
                    j = k - 1
                    found = True
                    break
            if not found:
                return pair_to, False
    return pair_to, True
