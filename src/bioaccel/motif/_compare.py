"""COMPARE (Giraud & Varré, section 4.5) by the ``exact`` variant: for two matrices with score thresholds
alpha and beta, the probability of the words scoring above both, above one only, and above neither.

Matrices of different lengths are compared at every shift: matrix 2's first column placed against
matrix 1's column ``shift`` (``-(m2 - 1) <= shift <= m1 - 1``), both padded with zero columns to the
union of their spans (the paper's footnote 3; :func:`aligned`).

The joint distribution is the exact variant's grid DP in two dimensions (each matrix's columns
rounded down to its own grid; the chain's last k letters carried as state). Each axis keeps exact
partial sums only while the word's side of its threshold is still open; partial sums certain to end
above or below collapse into two sentinel states. At the end each axis is *below* (true score
certainly < threshold), *above* (certainly >=) or *uncertain* (within the rounding error of the
threshold), and the 3 x 3 table gives certified lower and upper bounds of the four probabilities
(:func:`class_bounds`). Spans up to ``MITM_SPAN`` columns are exact instead (see
:func:`compare_at_shift`), and so is a matrix laid against the same matrix (a motif against itself at
shift 0 on its own strand: :func:`_one_matrix`), whose words score alike under both, so that its
similarity is 1 as the measure says (the 2-D grid cannot tell that the words it leaves uncertain on
one axis are the ones uncertain on the other, and gave MA0066.1 against itself 0.84).
"""
import math

import numpy as np
from numba import njit

from ..errors import InvalidParameter
from ._exact import DEFAULT_RTOL, FIRST_CELLS, NODE_CAP, SUFFIX_COLUMNS, Grid
from ._exact import MAX_CELLS as MAX_CELLS_1D
from ._exact_kernels import tail_kernel
from .coarse_grid import partial_windows
from .tails import word_scores
from ._grid import chain, round_down
from ._integer import to_units
from ._joint import joint_tail
from ._result import CompareResult

MAX_CELLS = 1_000_000
ENUMERATE_SPAN = 10    # spans this short are enumerated word by word: exact
MITM_SPAN = 16         # spans this short: the joint tail by meet in the middle, exact
_BIG = np.iinfo(np.int64).max // 4


@njit(cache=True)
def _axis_windows(q, cut_lo, cut_hi):
    lo, hi, _ = partial_windows(q, cut_lo, cut_hi)
    for j in range(lo.shape[0]):
        if hi[j] < lo[j] - 1:
            hi[j] = lo[j] - 1
    return lo, hi


@njit(cache=True)
def _index(v, lo, hi):
    """0: certainly below; 1..W: exact partial sum lo..hi; W + 1: certainly above."""
    if v < lo:
        return 0
    if v > hi:
        return hi - lo + 2
    return v - lo + 1


@njit(cache=True, nogil=True)
def _pair_dp(q1, q2, initial, transition, order, c1lo, c1hi, c2lo, c2hi):
    """3 x 3 probabilities of (class of matrix 1, class of matrix 2), classes below/uncertain/above."""
    L = q1.shape[0]
    nctx = transition.shape[0]
    lo1, hi1 = _axis_windows(q1, c1lo, c1hi)
    lo2, hi2 = _axis_windows(q2, c2lo, c2hi)
    start = min(order, L)
    n1 = hi1[start] - lo1[start] + 3
    n2 = hi2[start] - lo2[start] + 3
    cur = np.zeros((nctx, n1, n2), np.float64)
    for kmer in range(nctx):
        # the first `start` letters of the k-mer (all `order` of them unless the span is shorter)
        v1, v2, _, _ = word_scores(kmer >> (2 * (order - start)), start, q1, q2, initial, transition, order)
        cur[kmer, _index(v1, lo1[start], hi1[start]), _index(v2, lo2[start], hi2[start])] += initial[kmer]
    for j in range(start, L):
        m1 = hi1[j + 1] - lo1[j + 1] + 3
        m2 = hi2[j + 1] - lo2[j + 1] + 3
        nxt = np.zeros((nctx, m1, m2), np.float64)
        map1 = np.empty(n1, np.int64)
        map2 = np.empty(n2, np.int64)
        for x in range(4):
            map1[0] = 0
            map1[n1 - 1] = m1 - 1
            for i in range(1, n1 - 1):
                map1[i] = _index(lo1[j] + i - 1 + q1[j, x], lo1[j + 1], hi1[j + 1])
            map2[0] = 0
            map2[n2 - 1] = m2 - 1
            for i in range(1, n2 - 1):
                map2[i] = _index(lo2[j] + i - 1 + q2[j, x], lo2[j + 1], hi2[j + 1])
            for ctx in range(nctx):
                prob = transition[ctx, x]
                ctx2 = (ctx * 4 + x) % nctx
                for i1 in range(n1):
                    t1 = map1[i1]
                    for i2 in range(n2):
                        w = cur[ctx, i1, i2]
                        if w != 0.0:
                            nxt[ctx2, t1, map2[i2]] += w * prob
        cur = nxt
        n1, n2 = m1, m2
    out = np.zeros((3, 3), np.float64)
    for ctx in range(nctx):
        for i1 in range(n1):
            a = 0 if i1 == 0 else (2 if i1 == n1 - 1 else 1)
            for i2 in range(n2):
                b = 0 if i2 == 0 else (2 if i2 == n2 - 1 else 1)
                out[a, b] += cur[ctx, i1, i2]
    return out


@njit(cache=True, nogil=True)
def _enumerate_pair(s1, s2, alpha, beta, initial, transition, order):
    """Every word of the span, exactly: (both, only1, only2, neither)."""
    L = s1.shape[0]
    out = np.zeros(4, np.float64)
    for w in range(4 ** L):
        a, b, prob, ctx = word_scores(w, L, s1, s2, initial, transition, order)
        if L < order:       # marginal of the initial k-mer over the letters the span lacks
            prob = 0.0
            rest = order - L
            for tail in range(4 ** rest):
                prob += initial[(ctx << (2 * rest)) | tail]
        above1 = a >= alpha
        above2 = b >= beta
        out[0 if above1 and above2 else (1 if above1 else (2 if above2 else 3))] += prob
    return out


def _cuts(threshold, step, err_units):
    """(smallest floor value not certainly below, smallest floor value certainly above)."""
    if not math.isfinite(threshold):
        return (_BIG, _BIG) if threshold > 0 else (-_BIG, -_BIG)
    return math.ceil(threshold / step - err_units - 1e-9), math.ceil(threshold / step + 1e-9)


BELOW, UNSURE, ABOVE = 0, 1, 2


def class_bounds(table, same=False) -> tuple:
    """Certified (low, high) of both / only1 / only2 / neither from the 3 x 3 table of probabilities
    by class (below, uncertain, above) of matrix 1 (rows) and matrix 2 (columns). ``same``: the two
    axes are one matrix and one threshold on one grid (a motif against itself), so a word uncertain on
    both is above both or below both, never above one only.

    >>> t = np.zeros((3, 3)); t[ABOVE, ABOVE] = 0.1; t[UNSURE, ABOVE] = 0.2; t[BELOW, BELOW] = 0.7
    >>> class_bounds(t)[0], class_bounds(t)[2]
    ((0.1, 0.30000000000000004), (0.0, 0.2))
    >>> t = np.zeros((3, 3)); t[ABOVE, ABOVE] = 0.1; t[UNSURE, UNSURE] = 0.2; t[BELOW, BELOW] = 0.7
    >>> class_bounds(t)[1], class_bounds(t, same=True)[1]
    ((0.0, 0.2), (0.0, 0.0))
    """
    t = table
    not_below = [UNSURE, ABOVE]
    not_above = [BELOW, UNSURE]
    both = (t[ABOVE, ABOVE], t[np.ix_(not_below, not_below)].sum())
    diagonal = t[UNSURE, UNSURE] if same else 0.0
    only1 = (t[ABOVE, BELOW], t[np.ix_(not_below, not_above)].sum() - diagonal)
    only2 = (t[BELOW, ABOVE], t[np.ix_(not_above, not_below)].sum() - diagonal)
    neither = (t[BELOW, BELOW], t[np.ix_(not_above, not_above)].sum())
    return tuple(tuple(float(min(1.0, v)) for v in pair) for pair in (both, only1, only2, neither))


def aligned(pssm1, pssm2, shift) -> tuple:
    """``(scores1, scores2, span)``: both matrices padded with zero columns to the ``span`` columns
    they cover when matrix 2's first column lies at matrix 1's column ``shift``.

    >>> from bioaccel.motif import PSSM
    >>> s1, s2, span = aligned(PSSM(np.ones((3, 4))), PSSM(np.ones((2, 4))), -1)
    >>> span, s1[:, 0].tolist(), s2[:, 0].tolist()
    (4, [0.0, 1.0, 1.0, 1.0], [1.0, 1.0, 0.0, 0.0])
    """
    m1, m2 = pssm1.length, pssm2.length
    if not -(m2 - 1) <= shift <= m1 - 1:
        raise InvalidParameter(f"shift {shift} out of range: expected {-(m2 - 1)}..{m1 - 1}")
    start = min(0, shift)
    span = max(m1, shift + m2) - start

    def padded(scores, offset):
        out = np.zeros((span, 4))
        out[offset:offset + scores.shape[0]] = scores
        return out

    return padded(pssm1.scores, -start), padded(pssm2.scores, shift - start), span


def _exact_classes(both, p1, p2):
    """(both, only1, only2, neither) as exact (low, high) pairs from P(both) and the two tails."""
    only1, only2 = max(p1 - both, 0.0), max(p2 - both, 0.0)
    neither = max(1.0 - p1 - p2 + both, 0.0)
    return tuple((v, v) for v in (both, only1, only2, neither))


def _one_matrix(Q, A, B, initial, transition, order):
    """The classes of two aligned matrices with the same grid scores ``Q`` (a motif against itself at
    shift 0, on its own strand, or against a copy): every word scores the same under both, so the joint
    distribution is the one matrix's and the classes are its tails, P(S >= A) and P(S >= B), exact
    (bounds where a tail outgrows the exact search): both = the higher cut's tail, the one motif only
    between the cuts, neither below both.

    >>> from bioaccel.motif import Background
    >>> uniform = chain(Background.uniform())
    >>> Q = np.eye(4, dtype=np.int64)[:2]                   # 1 for the right letter: AC scores 2
    >>> _one_matrix(Q, 2, 2, *uniform)[:3]                  # both: AC; only1, only2: none
    ((0.0625, 0.0625), (0.0, 0.0), (0.0, 0.0))
    >>> _one_matrix(Q, 1, 2, *uniform)[1]                   # above 1, not 2: 6 words of 16
    (0.375, 0.375)
    """
    def tail(T):
        _, low, high = tail_kernel(Q, initial, transition, order, T, 0.0, FIRST_CELLS, MAX_CELLS_1D, NODE_CAP,
                                   SUFFIX_COLUMNS)
        return float(low), float(high)

    low_cut, high_cut = tail(min(A, B)), tail(max(A, B))
    both = high_cut
    between = (max(0.0, low_cut[0] - high_cut[1]), max(0.0, low_cut[1] - high_cut[0]))     # one motif only
    none = (0.0, 0.0)
    only1, only2 = (between, none) if A < B else ((none, between) if B < A else (none, none))
    neither = (max(0.0, 1.0 - low_cut[1]), 1.0 - low_cut[0])
    return both, only1, only2, neither


def compare_at_shift(pssm1, pssm2, alpha, beta, shift, *, rtol=DEFAULT_RTOL, cells=(256, 1024, 4096),
                     strand="+") -> CompareResult:
    """COMPARE at one shift by the exact variant. Scores are summed on each motif's integer grid and a
    word is above a threshold when its score is (so a threshold that is a word's own score counts that
    word): spans of up to ``ENUMERATE_SPAN`` columns enumerate every word, up to ``MITM_SPAN`` the
    meet-in-the-middle sweep of :mod:`._joint` gives the joint tail exactly; longer spans use the 2-D
    grid, refined through ``cells`` steps per score range until the widest bound is within ``rtol`` of
    ``both``'s upper bound (or the grid would exceed ``MAX_CELLS``).

    >>> from bioaccel.motif import PSSM
    >>> a = PSSM(np.eye(4)[:2], motif_id="a")
    >>> compare_at_shift(a, a, 2.0, 2.0, 0).both            # the one word AA
    (0.0625, 0.0625)
    """
    s1, s2, span = aligned(pssm1, pssm2, shift)
    initial, transition, order = chain(pssm1.background)
    if span <= MITM_SPAN:
        g1, g2 = Grid.of(pssm1), Grid.of(pssm2)
        Q1, Q2 = to_units(s1, g1.bits), to_units(s2, g2.bits)
        A, B = g1.admits(alpha), g2.admits(beta)
        if span <= ENUMERATE_SPAN:
            classes = [float(v) for v in _enumerate_pair(Q1, Q2, A, B, initial, transition, order)]
            bounds = tuple((v, v) for v in classes)
        else:
            both = joint_tail(Q1, Q2, initial, transition, order, A, B, SUFFIX_COLUMNS)
            p1 = tail_kernel(Q1, initial, transition, order, A, 0.0, FIRST_CELLS, MAX_CELLS_1D, NODE_CAP,
                             SUFFIX_COLUMNS)[2]
            p2 = tail_kernel(Q2, initial, transition, order, B, 0.0, FIRST_CELLS, MAX_CELLS_1D, NODE_CAP,
                             SUFFIX_COLUMNS)[2]
            bounds = _exact_classes(float(both), float(p1), float(p2))
        return CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, *bounds, strand=strand)
    g1, g2 = Grid.of(pssm1), Grid.of(pssm2)
    if g1.bits == g2.bits:
        Q1, Q2 = to_units(s1, g1.bits), to_units(s2, g2.bits)
        if np.array_equal(Q1, Q2):          # one matrix twice: its own tails, exact (the 2-D grid is not)
            bounds = _one_matrix(Q1, g1.admits(alpha), g2.admits(beta), initial, transition, order)
            return CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, *bounds, strand=strand)
    result = None
    for n in cells:
        step1 = max(pssm1.max_score - pssm1.min_score, 1e-9) / n
        step2 = max(pssm2.max_score - pssm2.min_score, 1e-9) / n
        q1, e1 = round_down(s1, step1)
        q2, e2 = round_down(s2, step2)
        c1 = _cuts(alpha, step1, e1)
        c2 = _cuts(beta, step2, e2)
        w1 = _axis_windows(q1, *c1)
        w2 = _axis_windows(q2, *c2)
        widest = int((w1[1] - w1[0]).max() + 3) * int((w2[1] - w2[0]).max() + 3)
        if result is not None and transition.shape[0] * widest > MAX_CELLS:
            break
        table = _pair_dp(q1, q2, initial, transition, order, *c1, *c2)
        result = CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, *class_bounds(table),
                               strand=strand)
        gap = max(hi - lo for lo, hi in (result.both, result.only1, result.only2, result.neither))
        if gap <= rtol * max(result.both[1], 1e-300) or gap == 0.0:
            break
    return result
