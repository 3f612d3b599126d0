"""What follows from the base-pair probabilities, as ViennaRNA computes it: the ensemble diversity
(``fc.mean_bp_distance()``), the centroid (``fc.centroid()``), the maximum expected accuracy structure
(``fc.MEA()``, gamma 1) and RNAfold -p's pseudo-bracket line (``vrna_db_from_probs``). ``P`` is an n x n
array, P[i, j] for i < j (0-based), zero elsewhere (the MEA reads its pairs from the upper triangle).

Genome-sized P (n = 30,000: 7.2 GB) is read in blocks of rows or by :mod:`._ensemble_derived_cpu`'s
Numba kernels, never copied: O(n^2) time, memory O(n + pairs) beyond P (the MEA's O(n^2 + n * pairs) time,
after ViennaRNA's MEA.c: rows kept one at a time, the traceback recomputing each interval's row). Each
result has the bits of the plain NumPy/Python code it replaced (tests/naive_ensemble_derived.py): NumPy's
pairwise sums are replayed in the same tree, RNAfold's float32 sums in the same order.

>>> P = np.zeros((6, 6)); P[0, 5] = 0.9; P[1, 4] = 0.3
>>> round(ensemble_diversity(P), 4)
0.6
>>> pair_to, d = centroid(P)
>>> pair_to.tolist(), round(d, 2)
([5, -1, -1, -1, -1, 0], 0.4)
"""
import numpy as np

from ._ensemble_derived_cpu import (SYMBOLS, above_half, line_codes, mea_fill, mea_traceback, pairwise_sum,
                                   probability_sums, scan_candidates)

#: values of P read per block of rows (32 MB of float64), whatever n
BLOCK_VALUES = 1 << 22


def _row_blocks(n):
    rows = max(1, BLOCK_VALUES // max(n, 1))
    return [(r0, min(n, r0 + rows)) for r0 in range(0, n, rows)]


def _replayable(P) -> bool:
    """Whether the kernels read P in NumPy's order: C-contiguous float64 (else the NumPy expressions run,
    with their n x n temporaries)."""
    return P.dtype == np.float64 and P.flags.c_contiguous


def ensemble_diversity(P: np.ndarray) -> float:
    """The mean base-pair distance of two structures of the ensemble: 2 * sum p (1 - p), summed as
    ``np.sum(P * (1 - P))`` sums (pairwise), without its n x n temporary.

    >>> P = np.zeros((4, 4)); P[0, 3] = 0.5
    >>> ensemble_diversity(P)
    0.5
    """
    if not _replayable(P):
        return float(2.0 * np.sum(P * (1.0 - P)))
    return float(2.0 * pairwise_sum(P))


def centroid(P: np.ndarray) -> "tuple[np.ndarray, float]":
    """``(pair_to, d)``: the pairs of probability above 0.5, and their expected distance to the
    ensemble, sum over pairs of 1 - p for those in it and p for the others (summed as
    ``np.sum(1 - P[P > 0.5]) + np.sum(P[~(P > 0.5)])``, without the n x n masks).

    >>> P = np.zeros((5, 5)); P[0, 4] = 0.8; P[1, 3] = 0.3
    >>> pair_to, d = centroid(P)
    >>> pair_to.tolist(), round(d, 2)
    ([4, -1, -1, -1, 0], 0.5)
    """
    n = P.shape[0]
    pair_to = np.full(n, -1, dtype=np.int64)
    if _replayable(P):
        i, j, chosen = above_half(P)
        pair_to[i] = j
        pair_to[j] = i
        return pair_to, float(np.sum(1.0 - chosen) + pairwise_sum(P, i * n + j))
    found = [(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0, P.dtype))]
    for r0, r1 in _row_blocks(n):
        block = P[r0:r1]
        a, b = np.nonzero(block > 0.5)
        found.append((a + r0, b, block[a, b]))
    i, j, chosen = (np.concatenate([f[t] for f in found]) for t in range(3))
    pair_to[i] = j
    pair_to[j] = i
    return pair_to, float(np.sum(1.0 - chosen) + np.sum(P[~(P > 0.5)]))


def candidate_pairs(P: np.ndarray, gamma: float = 1.0) -> tuple:
    """``(pu, indptr, ks, js, wa)``: the unpaired probabilities ViennaRNA's MEA uses (1 - the listed
    pairs' probabilities, those above 1e-4 / (1 + gamma)) and its candidate pairs (k, j), k < j, with
    2 gamma p > pu_k + pu_j, in CSR form by 3' end: ks[indptr[j]:indptr[j + 1]] ascending, wa = 2 gamma p.
    One pass over P; the sums are NumPy's (rows pairwise, columns one row at a time).

    >>> P = np.zeros((6, 6)); P[0, 5] = 0.9; P[1, 4] = 0.01
    >>> pu, indptr, ks, js, wa = candidate_pairs(P)
    >>> [round(x, 2) for x in pu.tolist()], indptr.tolist(), ks.tolist(), wa.tolist()
    ([0.1, 0.99, 1.0, 1.0, 0.99, 0.1], [0, 0, 0, 0, 0, 0, 1], [0], [1.8])
    """
    n = P.shape[0]
    threshold = 1e-4 / (1 + gamma)
    if _replayable(P):
        rowsum, colsum, i, j, p = scan_candidates(P, threshold)
    else:
        rowsum, colsum, i, j, p = _scan_blocks(P, threshold)
    pu = 1.0 - colsum - rowsum
    keep = 2 * gamma * p > pu[i] + pu[j]
    i, j, wa = i[keep], j[keep], 2 * gamma * p[keep]
    order = np.argsort(j, kind="stable")           # i stays ascending within each j (row-major finds)
    indptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(j, minlength=n), out=indptr[1:])
    return pu, indptr, i[order], j[order], np.ascontiguousarray(wa[order], dtype=np.float64)


def _scan_blocks(P, threshold):
    """:func:`scan_candidates` in NumPy, by blocks of rows, for P that is not C-contiguous float64."""
    n = P.shape[0]
    rowsum = np.zeros(n)
    colsum = np.zeros((1, n))
    found = [(np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0))]
    for r0, r1 in _row_blocks(n):
        block = P[r0:r1]
        listed = np.where(block > threshold, block, 0.0)
        rowsum[r0:r1] = listed.sum(axis=1)
        # the running column sums as a first row: NumPy adds the rows one at a time, as over all of P
        colsum = np.concatenate((colsum, listed)).sum(axis=0, keepdims=True)
        a, b = np.nonzero(listed)
        upper = b > a + r0
        a, b = a[upper], b[upper]
        found.append((a + r0, b, block[a, b]))
    i, j, p = (np.concatenate([f[t] for f in found]) for t in range(3))
    return rowsum, colsum[0], i, j, p


def mea(P: np.ndarray, gamma: float = 1.0) -> "tuple[np.ndarray, float]":
    """``(pair_to, value)``: ViennaRNA's MEA structure: the nested pairs maximising sum 2 gamma p_ij over
    its pairs + sum of the unpaired probabilities of its unpaired bases, among the pairs of probability
    above 1e-4 / (1 + gamma) with 2 gamma p > pu_i + pu_j. Of equal values (within 1e-12, relative),
    the traceback leaves the 3'-most base unpaired, else pairs it with its 5'-most partner. P of another
    dtype than float64 is converted first.

    >>> P = np.zeros((6, 6)); P[0, 5] = 0.9
    >>> pair_to, value = mea(P)
    >>> pair_to.tolist(), round(value, 2)
    ([5, -1, -1, -1, -1, 0], 5.8)
    """
    n = P.shape[0]
    if n == 0:
        return np.full(0, -1, dtype=np.int64), 0.0
    pu, indptr, ks, js, wa = candidate_pairs(np.asarray(P, dtype=np.float64), gamma)
    by_start = np.argsort(ks, kind="stable")
    start_ptr = np.zeros(n + 1, np.int64)
    np.cumsum(np.bincount(ks, minlength=n), out=start_ptr[1:])
    inner, value = mea_fill(n, pu, indptr, ks, js, wa, by_start, start_ptr)
    pair_to, ok = mea_traceback(n, pu, indptr, ks, wa, inner)
    if not ok:
        raise ArithmeticError("MEA traceback found no case")
    return pair_to, float(value)


def pseudo_bracket(P: np.ndarray) -> str:
    """RNAfold -p's ensemble line: per base, from its float32 sums of probabilities (unpaired,
    paired upstream, paired downstream), ``.`` ``(`` ``)`` above 0.667, ``{`` ``}`` ``|`` where paired
    dominates, ``,`` or ``:`` otherwise.

    >>> P = np.zeros((6, 6)); P[0, 5] = 0.9
    >>> pseudo_bracket(P)
    '(....)'
    """
    p0, p1, p2 = probability_sums(P)
    return np.frombuffer(SYMBOLS, np.uint8)[line_codes(p0, p1, p2)].tobytes().decode("ascii")
