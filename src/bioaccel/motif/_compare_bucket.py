"""COMPARE by the ``bucket`` variant (Giraud & Varré, section 4.5): the slices, enumeration and
balanced merge tree of BUCKETSCOREDISTRIBUTION (``_bucket``), with two-dimensional tables of
sqrt(B) x sqrt(B) buckets, one axis per matrix (the paper's O(log N / sqrt(B)) error on words).

Each axis's grid gives, for every bucket, whether its words are certainly below the axis's threshold,
certainly above it, or uncertain (within the axis's error of it); the 3 x 3 table of probabilities by
class gives certified (low, high) bounds (:func:`~bioaccel.motif._compare.class_bounds`).
"""
import math

import numpy as np
from numba import njit

from ..errors import InvalidParameter
from ._bucket import Node, SliceGrid, fixed_point_shift, merge_tree, slice_bounds, slice_table
from ._compare import ABOVE, BELOW, UNSURE, aligned, class_bounds
from ._result import CompareResult

MAX_SLICE = 13          # columns of one slice: 4**13 words, each with two buckets


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


def merge_tables_2d(ta, step_a, tb, step_b) -> np.ndarray:
    """Merge two two-matrix tables; ``step_a``/``step_b``: the two axes' bucket widths.

    >>> t = np.full((1, 1, 2, 2), 0.25)
    >>> float(merge_tables_2d(t, np.ones(2), t, np.ones(2)).sum())
    1.0
    """
    return _merge2d(ta, step_a[0], step_a[1], tb, step_b[0], step_b[1], ta.shape[-1])


def _classes(offset, step, error, cut, nb):
    """Each bucket's class on one axis: below (0), uncertain (1) or above (2) the threshold ``cut``."""
    lower_edge = offset + step * np.arange(nb)
    cls = np.full(nb, UNSURE, np.int64)
    if math.isinf(cut):
        cls[:] = BELOW if cut > 0 else ABOVE
    else:
        slack = 1e-9 * (1 + abs(cut))
        cls[lower_edge >= cut + slack] = ABOVE                      # certainly above
        cls[lower_edge + error < cut - slack] = BELOW               # certainly below
    return cls


def bucket_compare_at_shift(pssm1, pssm2, alpha, beta, shift, *, slices=4, buckets=3600, strand="+") -> CompareResult:
    """COMPARE at one shift by 2-D BUCKETSCOREDISTRIBUTION: certified (low, high) probabilities, each
    axis with the error (1 + ceil(log2 N)) * (max - min) / sqrt(B) of its matrix.

    >>> from bioaccel.motif import PSSM
    >>> a = PSSM(np.eye(4)[:2], motif_id="a")
    >>> bucket_compare_at_shift(a, a, 2.0, 2.0, 0, slices=2, buckets=100).both      # the word AA: 1/16
    (0.0, 0.0625)
    """
    s1, s2, span = aligned(pssm1, pssm2, shift)
    nb = max(2, int(math.isqrt(int(buckets))))
    slices = max(1, min(int(slices), span))
    order = pssm1.background.order
    bounds = slice_bounds(span, slices)
    if order and min(b - a for a, b in bounds) < order:
        raise InvalidParameter(f"a Markov background of order {order} needs slices of at least {order} columns")
    if max(b - a for a, b in bounds) > MAX_SLICE:
        raise InvalidParameter(f"COMPARE by buckets: slices of {max(b - a for a, b in bounds)} columns are too long "
                               f"to enumerate; use more slices (at least {math.ceil(span / MAX_SLICE)})")
    shift1, shift2 = fixed_point_shift(s1), fixed_point_shift(s2)
    q1 = np.floor(s1 * 2.0 ** shift1).astype(np.int64)
    q2 = np.floor(s2 * 2.0 ** shift2).astype(np.int64)
    nodes = []
    for index, (a, b) in enumerate(bounds):
        g1, g2 = SliceGrid(q1[a:b], shift1, nb), SliceGrid(q2[a:b], shift2, nb)
        table = slice_table([g1, g2], pssm1.background, index == 0)
        nodes.append(Node(table, np.array([g1.offset, g2.offset]), np.array([g1.step, g2.step]),
                          np.array([g1.error, g2.error])))
    root = merge_tree(nodes, merge_tables_2d)
    grid = root.table.sum(axis=(0, 1))
    c1 = _classes(root.offset[0], root.step[0], root.error[0], alpha, nb)
    c2 = _classes(root.offset[1], root.step[1], root.error[1], beta, nb)
    out = np.zeros((3, 3))
    np.add.at(out, (c1[:, None].repeat(nb, 1), c2[None, :].repeat(nb, 0)), grid)
    # one matrix twice (a motif against itself): both axes' grids are one grid, each word in the same
    # bucket on both, so none is above one threshold only
    same = np.array_equal(q1, q2) and shift1 == shift2 and alpha == beta
    return CompareResult(pssm1.motif_id, pssm2.motif_id, shift, span, alpha, beta, *class_bounds(out, same),
                         variant="bucket", strand=strand)
