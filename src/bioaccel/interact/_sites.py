"""Several binding sites per target (``--sites K``): the best non-overlapping target windows.

IntaRNA users expect more than the single best site of a long target. A site is a target window
[t, t + L2); two sites overlap when they share a base (|t - t'| < L2). Sites are picked greedily, as
IntaRNA lists suboptimal non-overlapping interactions: the best window first, then the best window
that overlaps none picked so far, and so on, until K are picked or none is left. Windows are ranked by
their score (the best over the query windows, BPMax's objective), or with ``rank="gain"`` by their
gain (score minus the folds of the two windows alone); among equal values the leftmost target window
comes first, and each site takes the leftmost query window holding its value, the same tie rule as
the single best window. The query windows of two sites may overlap (the query is the short strand
that binds at several places).

Why rank by gain: a window's score includes the target window's own folding, so the best-scoring
window of a long or strongly structured target is often the one that folds best alone, not the one
the query binds best (docs/bpmax-notes.md has measurements).

:func:`site_rows` turns a pair's window scores into its :class:`~bioaccel.interact.Interaction` rows,
one per site, on every backend.
"""
import numpy as np

from ..errors import InvalidParameter
from ..results.values import shown
from ._strands import window_folds


def check_sites(sites) -> int:
    """``sites`` if it is a whole number >= 1, else InvalidParameter.

    >>> check_sites(3)
    3
    >>> check_sites(0)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: sites must be a whole number >= 1, got 0
    """
    if isinstance(sites, bool) or not isinstance(sites, (int, np.integer)) or sites < 1:
        raise InvalidParameter(f"sites must be a whole number >= 1, got {shown(sites)}")
    return int(sites)


RANKS = ("score", "gain")


def check_rank(rank) -> str:
    """``rank`` if it is one of RANKS, else InvalidParameter.

    >>> check_rank("gain")
    'gain'
    """
    if rank not in RANKS:
        raise InvalidParameter(f"rank must be one of {', '.join(RANKS)}, got {shown(rank)}")
    return rank


def pick_sites(units: np.ndarray, target_window: int, count: int) -> list:
    """``(query start, target start)`` of up to ``count`` non-overlapping target windows, best first.

    ``units[q, t]``: the value ranked, of query window q with target window t (original orientation):
    the score, or the gain with ``rank="gain"`` (:func:`window_gains`).

    >>> pick_sites(np.array([[1, 5, 5, 2, 4, 0]]), 2, 3)     # 5 at t=1 blocks t=0..2, then 4 at t=4
    [(0, 1), (0, 4)]
    >>> pick_sites(np.array([[1, 3], [2, 3]]), 1, 5)          # ties: leftmost target, then query window
    [(0, 1), (1, 0)]
    """
    best = units.max(axis=0)
    query_of = units.argmax(axis=0)  # the first (leftmost) query window holding the maximum
    return greedy_sites(best.astype(np.int64), query_of, target_window, count)


def greedy_sites(best: np.ndarray, query_of: np.ndarray, target_window: int, count: int) -> list:
    """``(query_of[t], t)`` of up to ``count`` target windows t that share no base (|t - t'| >=
    ``target_window``), picked greedily by ``best[t]``: the highest first, ties to the leftmost.

    >>> greedy_sites(np.array([1, 5, 5, 2, 4, 0]), np.array([0, 0, 1, 0, 2, 0]), 2, 3)
    [(0, 1), (2, 4)]
    """
    order = np.lexsort((np.arange(best.shape[0]), -best))
    blocked = np.zeros(best.shape[0], dtype=bool)
    sites = []
    for t in order.tolist():
        if blocked[t]:
            continue
        sites.append((int(query_of[t]), t))
        if len(sites) == count:
            break
        blocked[max(0, t - target_window + 1):t + target_window] = True
    return sites


def window_gains(units: np.ndarray, query_folds: np.ndarray, target_folds: np.ndarray) -> np.ndarray:
    """Gain of every window pair: ``units[q, t] - query_folds[q] - target_folds[t]`` (int64).

    >>> window_gains(np.array([[9, 7]]), np.array([2]), np.array([5, 1])).tolist()
    [[2, 4]]
    """
    return units.astype(np.int64) - query_folds[:, None] - target_folds[None, :]


def site_rows(query, target, a, rb, S1, S2, win, reversed_folds, request) -> list:
    """The :class:`~bioaccel.interact.Interaction` rows of one pair (Records ``query``, ``target``;
    codes ``a`` and REVERSED ``rb``) from its window scores ``win[i1, i2]`` (reversed target rows,
    units) and ``reversed_folds[i2]``, the fold of each reversed target window alone, for ``request``
    (a :class:`~bioaccel.interact._request.Request`). ``S1``, ``S2``: the strands' bands; S2 may be
    None (the GPU keeps it): the traceback then folds the winning target window alone."""
    from ._result import Interaction
    from ._traceback import trace_site

    params, call = request.params, request.call
    M, N = len(a), len(rb)
    L1, L2 = params.spans(M, N)
    # target window t (original orientation) starts where the reversed window ends
    units = np.ascontiguousarray(win[:, ::-1]).astype(np.int64)
    query_folds = window_folds(S1, L1)
    target_folds = np.asarray(reversed_folds, dtype=np.int64)[::-1]  # a window folds alone as it does reversed
    window_scores = units / params.unit
    ranked = units if request.rank == "score" else window_gains(units, query_folds, target_folds)
    rows = []
    for site, (qs, ts) in enumerate(pick_sites(ranked, L2, request.sites), start=1):
        best, qf, tf = int(units[qs, ts]), int(query_folds[qs]), int(target_folds[ts])
        traced = trace_site(a, rb, S1, S2, params, qs, ts, L1, L2, best) if request.structure else (None,) * 4
        rows.append(Interaction(
            query=query.id, target=target.id, score=params.to_score(best), query_fold=params.to_score(qf),
            target_fold=params.to_score(tf), gain=params.to_score(best - qf - tf),
            query_start=qs, query_end=qs + L1, target_start=ts, target_end=ts + L2,
            query_window=L1, target_window=L2, window_scores=window_scores, structure=traced[0],
            intra_query=traced[1], intra_target=traced[2], inter=traced[3], target_length=N,
            variant=call.variant, backend=call.backend, site=site,
        ))
    return rows
