"""COMPARE (seed 004, section 4.5): for two matrices with score thresholds alpha and beta, the
probability of the words scoring above both, above one only, and above neither.

Matrices of different lengths are compared at every shift: matrix 2's first column placed against
matrix 1's column ``shift`` (``-(m2 - 1) <= shift <= m1 - 1``), both padded with zero columns to the
union of their spans (the seed's footnote 3).

The joint distribution is the exact method's grid DP in two dimensions (each matrix's columns
rounded down to its own grid; the chain's last k letters carried as state). Each axis keeps exact
partial sums only while the word's side of its threshold is still open; partial sums certain to end
above or below collapse into two sentinel states. At the end each axis is *below* (true score
certainly < threshold), *above* (certainly >=) or *uncertain* (within the rounding error of the
threshold), and the 3 x 3 table gives certified lower and upper bounds of the four probabilities.
"""
from dataclasses import dataclass
import math

import numpy as np
from numba import njit, prange  # noqa: F401  (prange: parallel loops below)

from ..errors import InvalidParameter
from ._bucket import PARALLEL_WORDS, _renamed
from ._distribution import DEFAULT_RTOL, _chain, _round_down

MAX_CELLS = 1_000_000
_BIG = np.iinfo(np.int64).max // 4


@dataclass(frozen=True)
class CompareResult:
    """Probabilities (low, high) of words above both thresholds, above one only, above neither."""
    motif1: str
    motif2: str
    shift: int
    span: int
    alpha: float
    beta: float
    both: tuple
    only1: tuple
    only2: tuple
    neither: tuple

    @property
    def similarity(self):
        """both / (both + only1 + only2), from the middle of each interval (0 when nothing passes)."""
        mid = lambda t: 0.5 * (t[0] + t[1])  # noqa: E731
        union = mid(self.both) + mid(self.only1) + mid(self.only2)
        return mid(self.both) / union if union > 0 else 0.0

    def to_dict(self):
        d = {"motif1": self.motif1, "motif2": self.motif2, "shift": self.shift, "span": self.span,
             "alpha": self.alpha if math.isfinite(self.alpha) else None,
             "beta": self.beta if math.isfinite(self.beta) else None, "similarity": self.similarity}
        for key in ("both", "only1", "only2", "neither"):
            lo, hi = getattr(self, key)
            d[key] = 0.5 * (lo + hi)
            d[key + "_low"], d[key + "_high"] = lo, hi
        return d


@njit(cache=True)
def _axis_windows(q, cut_lo, cut_hi):
    L = q.shape[0]
    cmin = np.empty(L, np.int64)
    cmax = np.empty(L, np.int64)
    for j in range(L):
        cmin[j] = q[j].min()
        cmax[j] = q[j].max()
    pmin = np.zeros(L + 1, np.int64)
    pmax = np.zeros(L + 1, np.int64)
    rmin = np.zeros(L + 1, np.int64)
    rmax = np.zeros(L + 1, np.int64)
    for j in range(L):
        pmin[j + 1] = pmin[j] + cmin[j]
        pmax[j + 1] = pmax[j] + cmax[j]
    for j in range(L - 1, -1, -1):
        rmin[j] = rmin[j + 1] + cmin[j]
        rmax[j] = rmax[j + 1] + cmax[j]
    lo = np.empty(L + 1, np.int64)
    hi = np.empty(L + 1, np.int64)
    for j in range(L + 1):
        lo[j] = max(pmin[j], cut_lo - rmax[j])
        hi[j] = min(pmax[j], cut_hi - rmin[j] - 1)
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
        v1 = 0
        v2 = 0
        for j in range(start):
            letter = (kmer >> (2 * (order - 1 - j))) & 3
            v1 += q1[j, letter]
            v2 += q2[j, letter]
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
    nctx = transition.shape[0]
    out = np.zeros(4, np.float64)
    for w in range(4 ** L):
        a = 0.0
        b = 0.0
        prob = 1.0
        ctx = 0
        for j in range(L):
            x = (w >> (2 * (L - 1 - j))) & 3
            a += s1[j, x]
            b += s2[j, x]
            if j >= order:
                prob *= transition[ctx, x]
            ctx = (ctx * 4 + x) % nctx
            if j == order - 1:
                prob = initial[ctx]
        if L < order:       # marginal of the initial k-mer over the letters the span lacks
            prob = 0.0
            rest = order - L
            for tail in range(4 ** rest):
                prob += initial[(ctx << (2 * rest)) | tail]
        above1 = a >= alpha
        above2 = b >= beta
        out[0 if above1 and above2 else (1 if above1 else (2 if above2 else 3))] += prob
    return out


ENUMERATE_SPAN = 10    # spans this short are enumerated word by word: exact, no rounding band


def _cuts(threshold, step, err_units):
    """(smallest floor value not certainly below, smallest floor value certainly above)."""
    if not math.isfinite(threshold):
        return (_BIG, _BIG) if threshold > 0 else (-_BIG, -_BIG)
    return math.ceil(threshold / step - err_units - 1e-9), math.ceil(threshold / step + 1e-9)


def _bounds(table):
    """Certified (low, high) of both / only1 / only2 / neither from the 3 x 3 class table."""
    below, unsure, above = 0, 1, 2
    t = table
    not_below = [unsure, above]
    not_above = [below, unsure]
    both = (t[above, above], t[np.ix_(not_below, not_below)].sum())
    only1 = (t[above, below], t[np.ix_(not_below, not_above)].sum())
    only2 = (t[below, above], t[np.ix_(not_above, not_below)].sum())
    neither = (t[below, below], t[np.ix_(not_above, not_above)].sum())
    return tuple(tuple(float(min(1.0, v)) for v in pair) for pair in (both, only1, only2, neither))


def _padded(scores, offset, span):
    out = np.zeros((span, 4))
    out[offset:offset + scores.shape[0]] = scores
    return out


def compare_at_shift(pssm1, pssm2, alpha, beta, shift, *, rtol=DEFAULT_RTOL, cells=(256, 1024, 4096)):
    m1, m2 = pssm1.length, pssm2.length
    if not -(m2 - 1) <= shift <= m1 - 1:
        raise InvalidParameter(f"shift {shift} out of range: expected {-(m2 - 1)}..{m1 - 1}")
    start = min(0, shift)
    span = max(m1, shift + m2) - start
    s1 = _padded(pssm1.scores, -start, span)
    s2 = _padded(pssm2.scores, shift - start, span)
    initial, transition, order = _chain(pssm1.background)
    if span <= ENUMERATE_SPAN:
        both, only1, only2, neither = (float(v) for v in _enumerate_pair(s1, s2, alpha, beta, initial,
                                                                          transition, order))
        return CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, (both, both),
                             (only1, only1), (only2, only2), (neither, neither))
    result = None
    for n in cells:
        step1 = max(pssm1.max_score - pssm1.min_score, 1e-9) / n
        step2 = max(pssm2.max_score - pssm2.min_score, 1e-9) / n
        q1, e1 = _round_down(s1, step1)
        q2, e2 = _round_down(s2, step2)
        c1 = _cuts(alpha, step1, e1)
        c2 = _cuts(beta, step2, e2)
        w1 = _axis_windows(q1, *c1)
        w2 = _axis_windows(q2, *c2)
        widest = int((w1[1] - w1[0]).max() + 3) * int((w2[1] - w2[0]).max() + 3)
        if result is not None and transition.shape[0] * widest > MAX_CELLS:
            break
        table = _pair_dp(q1, q2, initial, transition, order, *c1, *c2)
        result = CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, *_bounds(table))
        gap = max(hi - lo for lo, hi in (result.both, result.only1, result.only2, result.neither))
        if gap <= rtol * max(result.both[1], 1e-300) or gap == 0.0:
            break
    return result


def compare(pssm1, pssm2, *, p=None, alpha=None, beta=None, shifts="all", method="exact",
            rtol=DEFAULT_RTOL, slices=4, buckets=3600):
    """COMPARE two matrices. Thresholds are ``alpha`` and ``beta``, or each matrix's threshold at
    P-value ``p`` by ``method``. ``shifts``: "all" (every overlap), or a list of shifts. ``method``:
    exact (the 2-D grid, or every word for spans up to 10) or bucket (2-D BUCKETSCOREDISTRIBUTION with
    ``slices`` slices and sqrt(``buckets``) buckets per axis). Returns one :class:`CompareResult` per
    shift, in shift order; every probability comes with certified (low, high) bounds."""
    if method not in ("exact", "bucket"):
        raise InvalidParameter(f"unknown method {method!r}; expected exact or bucket")
    if p is not None:
        from ._distribution import threshold

        options = {} if method == "exact" else {"slices": slices, "buckets": buckets}
        alpha = threshold(pssm1, p, method=method, **options).score if alpha is None else alpha
        beta = threshold(pssm2, p, method=method, **options).score if beta is None else beta
    if alpha is None or beta is None:
        raise InvalidParameter("compare needs a P-value or both score thresholds")
    if pssm1.background.order != pssm2.background.order or not (
            np.allclose(pssm1.background.transition, pssm2.background.transition)):
        raise InvalidParameter("compare: both matrices must be scored against the same background")
    if shifts == "all":
        shifts = range(-(pssm2.length - 1), pssm1.length)
    if method == "bucket":
        return [bucket_compare_at_shift(pssm1, pssm2, float(alpha), float(beta), int(s), slices=slices,
                                        buckets=buckets) for s in shifts]
    return [compare_at_shift(pssm1, pssm2, float(alpha), float(beta), int(s), rtol=rtol) for s in shifts]


# ---------------------------------------------------------------------------------------------
# COMPARE by BUCKETSCOREDISTRIBUTION (section 4.5): the same slices, enumeration and merges, with
# two-dimensional tables of sqrt(B) x sqrt(B) buckets (the seed's O(log N / sqrt(B)) error on words).

def _enumerate_pair_slice(q1, q2, qmin1, qmin2, scale1, scale2, nb, initial, transition, order, first):
    """out[in_ctx, out_ctx, b1, b2]: probability of the slice's words in bucket b1 of matrix 1 and
    b2 of matrix 2 (fixed-point sums, rounded down), in parallel over the first letter and context."""
    L = q1.shape[0]
    nctx = transition.shape[0]
    nin = 1 if first else nctx
    prefix_len = 1 if L > 1 else 0
    nchunks = 4 ** prefix_len
    hist = np.zeros((nchunks * nin, nctx, nb, nb), np.float64)
    for task in prange(nchunks * nin):
        a = task // nchunks
        pre = task % nchunks
        letters = np.zeros(L, np.int64)
        s1 = np.zeros(L + 1, np.int64)
        s2 = np.zeros(L + 1, np.int64)
        pw = np.ones(L + 1, np.float64)
        pc = np.zeros(L + 1, np.int64)
        if prefix_len:
            letters[0] = pre
        pc[0] = 0 if first else a
        start = 0
        while True:
            for j in range(start, L):
                x = letters[j]
                s1[j + 1] = s1[j] + q1[j, x]
                s2[j + 1] = s2[j] + q2[j, x]
                ctx = pc[j]
                pc[j + 1] = (ctx * 4 + x) % nctx
                if first and j < order:
                    pw[j + 1] = initial[pc[j + 1]] if j + 1 == order else 1.0
                else:
                    pw[j + 1] = pw[j] * transition[ctx, x]
            b1 = min(np.int64((s1[L] - qmin1) * scale1), nb - 1)
            b2 = min(np.int64((s2[L] - qmin2) * scale2), nb - 1)
            hist[task, pc[L], b1, b2] += pw[L]
            j = L - 1
            while j >= prefix_len and letters[j] == 3:
                letters[j] = 0
                j -= 1
            if j < prefix_len:
                break
            letters[j] += 1
            start = j
    out = np.zeros((nin, nctx, nb, nb), np.float64)
    for task in range(nchunks * nin):
        out[task // nchunks] += hist[task]
    return out


@njit(cache=True, nogil=True)
def _merge2d(ta, sa1, sa2, tb, sb1, sb2, nb):
    """Two-dimensional convolution of bucket tables, each axis rounded down as in ``_bucket._merge``."""
    nin, nmid = ta.shape[0], ta.shape[1]
    nout = tb.shape[1]
    st1, st2 = sa1 + sb1, sa2 + sb2
    inv1 = 1.0 / st1 if st1 > 0 else 0.0
    inv2 = 1.0 / st2 if st2 > 0 else 0.0
    out = np.zeros((nin, nout, nb, nb), np.float64)
    for pair in range(nin * nout):
        a = pair // nout
        c = pair % nout
        acc = out[a, c]
        for mid in range(nmid):
            for i1 in range(nb):
                for i2 in range(nb):
                    wa = ta[a, mid, i1, i2]
                    if wa == 0.0:
                        continue
                    for j1 in range(nb):
                        k1 = min(np.int64((i1 * sa1 + j1 * sb1) * inv1), nb - 1)
                        for j2 in range(nb):
                            wb = tb[mid, c, j1, j2]
                            if wb == 0.0:
                                continue
                            k2 = min(np.int64((i2 * sa2 + j2 * sb2) * inv2), nb - 1)
                            acc[k1, k2] += wa * wb
    return out


_pair_slice_parallel = njit(cache=True, parallel=True, nogil=True)(
    _renamed(_enumerate_pair_slice, "_pair_slice_parallel"))
_pair_slice_serial = njit(cache=True, nogil=True)(_renamed(_enumerate_pair_slice, "_pair_slice_serial"))


def bucket_compare_at_shift(pssm1, pssm2, alpha, beta, shift, *, slices=4, buckets=3600):
    """COMPARE at one shift by 2-D BUCKETSCOREDISTRIBUTION: certified (low, high) probabilities, each
    axis with the error (1 + ceil(log2 N)) * (max - min) / sqrt(B) of its matrix."""
    from ._bucket import fixed_point_shift, slice_bounds

    m1, m2 = pssm1.length, pssm2.length
    if not -(m2 - 1) <= shift <= m1 - 1:
        raise InvalidParameter(f"shift {shift} out of range: expected {-(m2 - 1)}..{m1 - 1}")
    start = min(0, shift)
    span = max(m1, shift + m2) - start
    s1 = _padded(pssm1.scores, -start, span)
    s2 = _padded(pssm2.scores, shift - start, span)
    nb = max(2, int(math.isqrt(int(buckets))))
    slices = max(1, min(int(slices), span))
    initial, transition, order = _chain(pssm1.background)
    bounds = slice_bounds(span, slices)
    if order and min(b - a for a, b in bounds) < order:
        raise InvalidParameter(f"a Markov background of order {order} needs slices of at least {order} columns")
    if max(b - a for a, b in bounds) > 13:
        raise InvalidParameter(f"COMPARE by buckets: slices of {max(b - a for a, b in bounds)} columns are too long "
                               f"to enumerate; use more --slices (at least {math.ceil(span / 13)})")
    shift1, shift2 = fixed_point_shift(s1), fixed_point_shift(s2)
    nodes = []
    for index, (a, b) in enumerate(bounds):
        q1 = np.floor(s1[a:b] * 2.0 ** shift1).astype(np.int64)
        q2 = np.floor(s2[a:b] * 2.0 ** shift2).astype(np.int64)
        axes = []
        for q, sh in ((q1, shift1), (q2, shift2)):
            qmin, qmax = int(q.min(axis=1).sum()), int(q.max(axis=1).sum())
            width = qmax - qmin
            unit = 2.0 ** -sh
            axes.append((qmin, nb / width if width > 0 else 0.0, qmin * unit, width * unit / nb,
                         width * unit / nb + (b - a) * unit))
        kernel = _pair_slice_parallel if 4 ** (b - a) >= PARALLEL_WORDS else _pair_slice_serial
        table = kernel(q1, q2, axes[0][0], axes[1][0], axes[0][1], axes[1][1], nb,
                                      initial, transition, order, index == 0)
        nodes.append((table, [axes[0][2], axes[1][2]], [axes[0][3], axes[1][3]], [axes[0][4], axes[1][4]]))

    def merge(items):
        if len(items) == 1:
            return items[0]
        half = (len(items) + 1) // 2
        (ta, oa, sa, ea), (tb, ob, sb, eb) = merge(items[:half]), merge(items[half:])
        table = _merge2d(ta, sa[0], sa[1], tb, sb[0], sb[1], nb)
        steps = [sa[0] + sb[0], sa[1] + sb[1]]
        return table, [oa[0] + ob[0], oa[1] + ob[1]], steps, [ea[0] + eb[0] + steps[0], ea[1] + eb[1] + steps[1]]

    table, offset, step, error = merge(nodes)
    grid = table.sum(axis=(0, 1))
    classes = []
    for axis, cut in ((0, alpha), (1, beta)):
        lower_edge = offset[axis] + step[axis] * np.arange(nb)
        cls = np.ones(nb, np.int64)                                       # uncertain
        if math.isinf(cut):
            cls[:] = 0 if cut > 0 else 2
        else:
            slack = 1e-9 * (1 + abs(cut))
            cls[lower_edge >= cut + slack] = 2                            # certainly above
            cls[lower_edge + error[axis] < cut - slack] = 0               # certainly below
        classes.append(cls)
    out = np.zeros((3, 3))
    np.add.at(out, (classes[0][:, None].repeat(nb, 1), classes[1][None, :].repeat(nb, 0)), grid)
    return CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, *_bounds(out))
