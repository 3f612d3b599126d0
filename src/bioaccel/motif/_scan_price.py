"""Pricing a batch of scan hits: each hit's exact P-value, on every core.

Values priced before are looked up (:class:`._scan_pvalues.PriceCache`). The rest are grouped by score
distribution (motif x strand), and each group's distinct values answered by one meet-in-the-middle
search (:func:`._scan_pvalues.hit_pvalues`), the groups on a pool of threads (the searches release the
GIL), costliest first: over a genome most of the time goes to a few dozen matrices of 16 columns and
more, whose searches take seconds each, and one of them starting last would leave the other threads
idle. (Cutting each long search into 16 parts by its first two letters, sharing one suffix table, was
measured slower on an H100 machine's 16 cores: docs/scan-notes.md.)
"""
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from .._parallel import resolve_threads
from ._scan_pvalues import hit_pvalues


def price(setup, hits, threads=0) -> None:
    """Fill ``hits.pvalue`` (see the module's docstring); ``threads``: 0 for all cores.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.motif._scan import prepare
    >>> from bioaccel.motif._scan_hits import Hits
    >>> setup = prepare([PSSM(np.eye(4)[:2])], threshold=2)
    >>> hits = Hits.empty(1)
    >>> price(setup, hits)                 # nothing to price
    >>> len(hits)
    0
    """
    if len(hits) == 0:
        return
    dist = setup.dist_index[hits.motif, hits.strand]
    p, missing = setup.priced.look_up(dist, hits.units)
    hits.pvalue[:] = p
    miss = np.flatnonzero(missing)
    if miss.size == 0:
        return
    small = dist[miss].astype(np.int16 if len(setup.dists) < (1 << 15) else np.int32)
    order = miss[np.argsort(small, kind="stable")]        # a radix sort for 16-bit keys
    groups = np.split(order, np.flatnonzero(np.diff(dist[order])) + 1)

    def one(group):
        d = int(dist[group[0]])
        grid, background = setup.dists[d]
        asked = np.unique(hits.units[group])
        return (group, d, asked, *hit_pvalues(grid, background, asked))

    cost = lambda group: (int(setup.dists[int(dist[group[0]])][0].units.shape[0]), len(group))  # noqa: E731
    workers = max(1, min(resolve_threads(threads), len(groups)))
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for group, d, asked, answer, exact, gap in pool.map(one, sorted(groups, key=cost, reverse=True)):
            hits.pvalue[group] = answer[np.searchsorted(asked, hits.units[group])]
            setup.priced.add(d, asked, answer)
            if not exact:
                k = int(hits.motif[group[0]])
                setup.inexact[k] = max(setup.inexact.get(k, 0.0), gap)
