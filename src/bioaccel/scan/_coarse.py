"""Certified bounds on the tails of a motif's score distribution from one coarse grid (each entry of the
motif's integer grid shifted right by r bits: :func:`bioaccel.motif.coarse_grid.grid_dp`): what a scan's
P-value is where the exact search would be over its budget (:func:`._pvalues.hit_pvalues`), and the
bounds a scan's floors are made of (:mod:`._bounds`).
"""
import numpy as np
from numba import njit

from ..motif.coarse_grid import ceil_shift, grid_dp, grid_dp_wide, max_remainder, score_range


@njit(cache=True, nogil=True)
def _coarse(Q, span, cells):
    """Q on a coarser grid of about ``cells`` cells over ``span`` units: (r, E, Q >> r, its best score),
    each entry shifted right by r bits and E the most the shifts can lose in one word."""
    r = 0
    while (span >> r) > cells:
        r += 1
    q = Q >> r
    ctop = 0
    for j in range(Q.shape[0]):
        ctop += q[j].max()
    return r, max_remainder(Q, r), q, ctop


@njit(cache=True, nogil=True)
def coarse_tails(Q, initial, transition, order, vlow, cells):
    """The tails of the coarse sum C on a grid of about ``cells`` cells over [vlow, top] (each entry
    shifted right by r bits): (tail, base, r, E), tail[i] = P(C >= base + i) for i in [0, n) and tail[n]
    the mass above every cell; a word's grid score lies in [C 2**r, C 2**r + E] (:func:`tail_cell`).
    :func:`_coarse_tails_wide` is the same with grid_dp on every core (millions of cells)."""
    top = score_range(Q)[1]
    r, E, q, ctop = _coarse(Q, top - vlow, cells)
    dist, base, lumped = grid_dp(q, initial, transition, order, (vlow - E) >> r, ctop + 1)
    return _tails(dist, lumped), base, r, E


@njit(cache=True, nogil=True)
def _coarse_tails_wide(Q, initial, transition, order, vlow, cells):
    """:func:`coarse_tails` by :func:`bioaccel.motif.coarse_grid.grid_dp_wide` (the same bits)."""
    top = score_range(Q)[1]
    r, E, q, ctop = _coarse(Q, top - vlow, cells)
    dist, base, lumped = grid_dp_wide(q, initial, transition, order, (vlow - E) >> r, ctop + 1)
    return _tails(dist, lumped), base, r, E


@njit(cache=True, nogil=True)
def _tails(dist, lumped):
    n = dist.shape[0]
    tail = np.zeros(n + 1, np.float64)
    tail[n] = lumped
    for i in range(n - 1, -1, -1):
        tail[i] = tail[i + 1] + dist[i]
    return tail


@njit(cache=True, nogil=True)
def tail_cell(v, slack, r, base, n):
    """The cell of :func:`coarse_tails`' tail bounding P(S >= v): with ``slack`` = E an upper bound (a
    word may reach v when C >= ceil((v - E) / 2**r)), with 0 a lower bound (it surely does when
    C >= ceil(v / 2**r))."""
    return min(max(ceil_shift(v - slack, r) - base, 0), n)


@njit(cache=True, nogil=True)
def bounded_tails(Q, initial, transition, order, v, cells):
    """Certified upper bounds on P(S >= v[k]) from one coarse grid of about ``cells`` cells (each
    entry shifted right by r bits), and the largest relative gap to the matching lower bounds."""
    K = v.shape[0]
    out = np.zeros(K, np.float64)
    if K == 0:
        return out, 0.0
    tail, base, r, E = _coarse_tails_wide(Q, initial, transition, order, v[0], cells)
    n = tail.shape[0] - 1
    gap = 0.0
    for k in range(K):
        hi_i = tail_cell(v[k], E, r, base, n)
        lo_i = tail_cell(v[k], 0, r, base, n)
        out[k] = tail[hi_i]
        if out[k] > 0:
            gap = max(gap, (tail[hi_i] - tail[lo_i]) / out[k])
    return out, gap


def words_at_least(Q, low) -> float:
    """An upper bound on how many words score at least ``low``: 4**m x P(score >= low) for uniformly
    drawn words, from a coarse grid of about 65,536 cells (a float: it can pass 2**63).

    Python around the Numba pieces (not a kernel of its own): its grid_dp is the one the threshold search
    compiles, so a first run compiles no second copy inside another kernel. The cells are summed in order
    from the first (``np.add.accumulate``, as a Numba loop sums them: the same float).

    >>> words_at_least(np.array([[0, 1, 1, 1], [0, 0, 0, 1]], dtype=np.int64) << 10, 2 << 10)   # ?T: C, G, T
    3.0
    """
    m = Q.shape[0]
    bottom, top = score_range(Q)
    if low > top:
        return 0.0
    r, E, q, ctop = _coarse(Q, int(top - bottom), 65536)
    dist, base, lumped = grid_dp(q, np.ones(1), np.full((1, 4), 0.25), 0, (int(low) - int(E)) >> int(r),
                                 int(ctop) + 1)
    total = float(np.add.accumulate(dist)[-1]) if dist.size else 0.0
    return (total + float(lumped)) * 4.0 ** m
