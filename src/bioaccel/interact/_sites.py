"""Several binding sites per target (``--sites K``): the best non-overlapping target windows.

IntaRNA users expect more than the single best site of a long target. A site is a target window
[t, t + L2); two sites overlap when they share a base (|t - t'| < L2). Sites are picked greedily, as
IntaRNA lists suboptimal non-overlapping interactions: the best window first, then the best window
that overlaps none picked so far, and so on, until K are picked or none is left. Windows are ranked by
their score (the best over the query windows, BPMax's objective); among equal scores the leftmost
target window comes first, and each site takes the leftmost query window holding its score, the same
tie rule as the single best window. The query windows of two sites may overlap (the query is the
short strand that binds at several places).
"""
import numpy as np

from .._results import shown
from ..errors import InvalidParameter


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


def pick_sites(units: np.ndarray, target_window: int, count: int) -> list:
    """``(query start, target start)`` of up to ``count`` non-overlapping target windows, best first.

    ``units[q, t]``: score of query window q with target window t (original orientation).

    >>> pick_sites(np.array([[1, 5, 5, 2, 4, 0]]), 2, 3)     # 5 at t=1 blocks t=0..2, then 4 at t=4
    [(0, 1), (0, 4)]
    >>> pick_sites(np.array([[1, 3], [2, 3]]), 1, 5)          # ties: leftmost target, then query window
    [(0, 1), (1, 0)]
    """
    best = units.max(axis=0)
    query_of = units.argmax(axis=0)  # the first (leftmost) query window holding the maximum
    order = np.lexsort((np.arange(best.shape[0]), -best.astype(np.int64)))
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
