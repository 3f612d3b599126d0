"""The ensemble's derived quantities of many records at once, from their base-pair probabilities listed
sparse (every non-zero P[i, j], row-major per record: the GPU batch's pair lists with cutoff 0, or the
CPU's P with its zeros left out), in one Numba call parallel over records (``prange``).

Each value has the bits :mod:`._ensemble_derived` gives from the dense P: a zero adds nothing to a sum
(x + 0 = x exactly), so NumPy's pairwise trees are replayed over the listed positions only (a subtree with
none listed sums to 0), the column sums and RNAfold's float32 sums in the same order (one row-major
pass). The MEA fill and traceback are :mod:`._ensemble_derived_cpu`'s.

>>> import numpy as np
>>> d = derive_sparse(np.array([6]), np.array([0, 2]), np.array([0, 1]), np.array([5, 4]), np.array([0.9, 0.3]))
>>> diversity, c_to, c_dist, m_to, m_acc, line, ok = d
>>> round(float(diversity[0]), 4), c_to.tolist(), round(float(c_dist[0]), 2), m_to.tolist(), line.tolist()
(0.6, [5, -1, -1, -1, -1, 0], 0.4, [5, -1, -1, -1, -1, 0], [1, 0, 0, 0, 0, 2])
"""
import numpy as np
from numba import njit, prange

from ._ensemble_derived_cpu import (PW_BLOCK, SYMBOLS, mea_fill, mea_traceback, symbol_code, tree_next, tree_push,
                                   tree_stack)


@njit(cache=True, nogil=True)
def _leaf(pos, val, e, stop, off, m):
    """NumPy's leaf sum of the m <= 128 values at flat positions [off, off + m) (those listed: pos[e:stop]
    ascending, values val; zero elsewhere): ``(sum, e past them)``."""
    end = off + m
    if m < 8:
        res = 0.0
        while e < stop and pos[e] < end:
            res += val[e]
            e += 1
        return res, e
    r = np.zeros(8)
    main = off + m - m % 8
    while e < stop and pos[e] < main:
        r[(pos[e] - off) % 8] += val[e]
        e += 1
    res = ((r[0] + r[1]) + (r[2] + r[3])) + ((r[4] + r[5]) + (r[6] + r[7]))
    while e < stop and pos[e] < end:
        res += val[e]
        e += 1
    return res, e


@njit(cache=True, nogil=True)
def sparse_pairwise(pos, val, e, stop, m):
    """NumPy's pairwise sum of m values zero but at the listed positions pos[e:stop] (ascending), walked
    with :func:`._ensemble_derived_cpu.tree_next`'s stack; a range with none listed is 0 without
    descending."""
    if m <= PW_BLOCK:
        return _leaf(pos, val, e, stop, 0, m)[0]
    offs, sizes, states, values = tree_stack(m)
    top, nvalues, off, part = tree_next(offs, sizes, states, values, 1, 0)
    while part:
        if e >= stop or pos[e] >= off + part:
            values[nvalues] = 0.0
            nvalues += 1
        elif part <= PW_BLOCK:
            values[nvalues], e = _leaf(pos, val, e, stop, off, part)
            nvalues += 1
        else:
            top = tree_push(offs, sizes, states, top, off, part)
        top, nvalues, off, part = tree_next(offs, sizes, states, values, top, nvalues)
    return values[0]


@njit(cache=True, nogil=True)
def _one(n, I, J, p, c_to, m_to, line):
    """Record of length n (its entries I, J, p, row-major): ``(diversity, centroid distance, MEA
    accuracy, ok)``; the centroid's and the MEA's partners (local) and the ensemble line's codes into
    c_to, m_to, line."""
    count = I.shape[0]
    if n == 0:
        return 0.0, 0.0, 0.0, True
    pos = I * n + J
    val = p * (1.0 - p)
    diversity = 2.0 * sparse_pairwise(pos, val, 0, count, n * n)
    # centroid: the entries above 0.5 (row-major), the others summed as P[~(P > 0.5)] (compacted)
    above = p > 0.5
    chosen = np.flatnonzero(above)
    c_to[:] = -1
    for t in chosen:                     # as NumPy assigns: every pair_to[i] = j, then every pair_to[j] = i
        c_to[I[t]] = J[t]
    for t in chosen:
        c_to[J[t]] = I[t]
    rest = np.flatnonzero(~above)
    shift = np.cumsum(above) - above
    one_minus = 1.0 - p[chosen]
    first = sparse_pairwise(np.arange(chosen.shape[0]), one_minus, 0, chosen.shape[0], chosen.shape[0])
    c_dist = first + sparse_pairwise(pos[rest] - shift[rest], p[rest], 0, rest.shape[0],
                                     n * n - chosen.shape[0])
    # the MEA's unpaired probabilities: rows pairwise, columns one row at a time, of p above threshold
    threshold = 1e-4 / 2.0
    listed = p > threshold
    rowsum = np.zeros(n)
    colsum = np.zeros(n)
    e = 0
    while e < count:
        row = I[e]
        f = e
        while f < count and I[f] == row:
            f += 1
        sel = np.flatnonzero(listed[e:f]) + e
        rowsum[row] = sparse_pairwise(J[sel], p[sel], 0, sel.shape[0], n)
        for t in sel:
            colsum[J[t]] += p[t]
        e = f
    pu = 1.0 - colsum - rowsum
    cand = np.flatnonzero(listed & (J > I))
    keep = cand[2.0 * p[cand] > pu[I[cand]] + pu[J[cand]]]
    k = keep.shape[0]
    indptr = np.zeros(n + 1, np.int64)
    for t in keep:
        indptr[J[t] + 1] += 1
    for c in range(n):
        indptr[c + 1] += indptr[c]
    fill = indptr[:n].copy()
    ks = np.empty(k, np.int64)
    js = np.empty(k, np.int64)
    wa = np.empty(k)
    for t in keep:                       # stable by j: i ascending within each j (row-major)
        at = fill[J[t]]
        ks[at], js[at], wa[at] = I[t], J[t], 2.0 * p[t]
        fill[J[t]] += 1
    start_ptr = np.zeros(n + 1, np.int64)
    for t in range(k):
        start_ptr[ks[t] + 1] += 1
    for c in range(n):
        start_ptr[c + 1] += start_ptr[c]
    fill = start_ptr[:n].copy()
    by_start = np.empty(k, np.int64)
    for t in range(k):                   # stable by k
        by_start[fill[ks[t]]] = t
        fill[ks[t]] += 1
    inner, value = mea_fill(n, pu, indptr, ks, js, wa, by_start, start_ptr)
    pair_to, ok = mea_traceback(n, pu, indptr, ks, wa, inner)
    m_to[:] = pair_to
    # the ensemble line: float32 sums per base, column before row (one row-major pass keeps both orders)
    p0 = np.ones(n, np.float32)
    p1 = np.zeros(n, np.float32)
    p2 = np.zeros(n, np.float32)
    for t in range(count):
        a, b = I[t], J[t]
        if b > a:
            v = np.float32(p[t])
            p0[b] = p0[b] - v
            p2[b] = p2[b] + v
            p0[a] = p0[a] - v
            p1[a] = p1[a] + v
    for c in range(n):
        line[c] = symbol_code(np.float64(p0[c]), np.float64(p1[c]), np.float64(p2[c]))
    return diversity, c_dist, value, ok


@njit(cache=True, parallel=True)
def derive_sparse(lengths, offsets, I, J, p):
    """``(diversity, centroid_to, centroid_distance, mea_to, mea_accuracy, line, ok)`` of each record:
    record r has lengths[r] bases and the entries offsets[r]:offsets[r + 1] of I, J (0-based), p; the
    partners (local to the record, -1 unpaired) and the ensemble line's codes flat over the records'
    bases (record r's at sum(lengths[:r])). Parallel over records."""
    count = lengths.shape[0]
    starts = np.zeros(count + 1, np.int64)
    for r in range(count):
        starts[r + 1] = starts[r] + lengths[r]
    total = starts[count]
    c_to = np.full(total, -1, np.int64)
    m_to = np.full(total, -1, np.int64)
    line = np.zeros(total, np.uint8)
    diversity = np.zeros(count)
    c_dist = np.zeros(count)
    m_acc = np.zeros(count)
    ok = np.ones(count, np.bool_)
    for r in prange(count):
        a, b = offsets[r], offsets[r + 1]
        s0, s1 = starts[r], starts[r + 1]
        d, c, m, good = _one(lengths[r], I[a:b].astype(np.int64), J[a:b].astype(np.int64), p[a:b],
                             c_to[s0:s1], m_to[s0:s1], line[s0:s1])
        diversity[r], c_dist[r], m_acc[r], ok[r] = d, c, m, good
    return diversity, c_to, c_dist, m_to, m_acc, line, ok


@njit(cache=True, nogil=True)
def _fill(P, at, I, J, p):
    """P's non-zero entries, row-major, into I, J, p from ``at``."""
    for a in range(P.shape[0]):
        for b in range(P.shape[1]):
            v = P[a, b]
            if v != 0.0:
                I[at], J[at], p[at] = a, b, v
                at += 1
    return at


def sparse_lists(dense: list) -> tuple:
    """``(offsets, i, j, p)``: the non-zero entries of each matrix, row-major (``np.nonzero``'s order),
    matrix r's at offsets[r]:offsets[r + 1], in one pass over each.

    >>> offsets, i, j, p = sparse_lists([np.array([[0.0, 0.5], [0.0, 0.0]]), np.zeros((0, 0))])
    >>> offsets.tolist(), i.tolist(), j.tolist(), p.tolist()
    ([0, 1, 1], [0], [1], [0.5])
    """
    offsets = np.zeros(len(dense) + 1, np.int64)
    np.cumsum([np.count_nonzero(P) for P in dense], out=offsets[1:])
    total = int(offsets[-1])
    i, j, p = np.empty(total, np.int64), np.empty(total, np.int64), np.empty(total)
    for r, P in enumerate(dense):
        if offsets[r + 1] > offsets[r]:
            _fill(np.ascontiguousarray(P, dtype=np.float64), int(offsets[r]), i, j, p)
    return offsets, i, j, p
