"""Pricing a batch of scan hits: each hit's exact P-value, on every core.

Values priced before are looked up (:class:`._scan_pvalues.PriceCache`). The rest are grouped by score
distribution (motif x strand), and each group's distinct values answered by one meet-in-the-middle
search (:mod:`._scan_pvalues`). Over a genome most of the time goes to a few dozen long matrices (16
columns and more), whose searches take seconds each: those are cut into 16 parts by their first two
letters, the parts sharing one suffix table, so that they spread over the threads instead of leaving
one thread working alone at the end. A part that runs over its budget stops the others, and the
matrix's P-values come from the certified bounds instead. At most ``2 x threads`` long searches hold their tables at once
(tens of MB each).
"""
import itertools
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

import numpy as np

from .._parallel import resolve_threads
from ._scan_pvalues import (BOUND_CELLS, NODE_CAP, bounded_tails, hit_pvalues, search_table, searchable,
                            suffix_columns, tails_part)

#: Columns from which a matrix's search is cut into parts; letters fixed per part (4**2 = 16 parts).
LONG = 16
PART_LETTERS = 2


def _groups(dist, miss, distributions):
    """The missing hits' indices grouped by distribution."""
    small = dist[miss].astype(np.int16 if distributions < (1 << 15) else np.int32)
    order = miss[np.argsort(small, kind="stable")]        # a radix sort for 16-bit keys
    return np.split(order, np.flatnonzero(np.diff(dist[order])) + 1)


class _Long:
    """One long matrix's search in parts: the table, the parts' sum, whether every part finished."""

    def __init__(self, group, d, asked):
        self.group, self.d, self.asked = group, d, asked
        self.table = None
        self.tails = 0.0
        self.left = 4 ** PART_LETTERS
        self.ok = True
        self.stop = np.zeros(1, np.int64)      # set by the first part that runs over its budget


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
    workers = max(1, resolve_threads(threads))

    def answer(group, d, asked, tails, exact, gap):
        tails = np.minimum(tails, 1.0)
        hits.pvalue[group] = tails[np.searchsorted(asked, hits.units[group])]
        setup.priced.add(d, asked, tails)
        if not exact:
            k = int(hits.motif[group[0]])
            setup.inexact[k] = max(setup.inexact.get(k, 0.0), float(gap))

    short, long_ = [], []
    for group in _groups(dist, miss, len(setup.dists)):
        d = int(dist[group[0]])
        grid, _ = setup.dists[d]
        asked = np.unique(hits.units[group])
        if grid.units.shape[0] >= LONG and searchable(grid, asked - grid.tol):
            long_.append(_Long(group, d, asked))
        else:
            short.append((group, d, asked))
    long_.sort(key=lambda s: -setup.dists[s.d][0].units.shape[0])

    def whole(group, d, asked):
        grid, background = setup.dists[d]
        return hit_pvalues(grid, background, asked)

    def build(s):
        grid, background = setup.dists[s.d]
        transition = np.ascontiguousarray(background.transition, dtype=np.float64)
        return search_table(grid.units, background.order, transition,
                            suffix_columns(grid.units.shape[0], transition.shape[0]))

    def part(s, fixed):
        grid, background = setup.dists[s.d]
        initial = np.ascontiguousarray(background.initial, dtype=np.float64)
        transition = np.ascontiguousarray(background.transition, dtype=np.float64)
        # each part may search a quarter of a whole search's budget (parts are uneven); once one runs
        # over, the others stop and the motif's P-values are bounds: whether a motif is exact depends
        # only on its parts' sizes, never on the threads' timing
        cap = NODE_CAP // 4 if len(fixed) else NODE_CAP
        return tails_part(grid.units, initial, transition, background.order, s.asked - grid.tol, cap, *s.table,
                          np.array(fixed, np.int64), s.stop)

    def bound(s):
        grid, background = setup.dists[s.d]
        initial = np.ascontiguousarray(background.initial, dtype=np.float64)
        transition = np.ascontiguousarray(background.transition, dtype=np.float64)
        return bounded_tails(grid.units, initial, transition, background.order, s.asked - grid.tol, BOUND_CELLS)

    with ThreadPoolExecutor(max_workers=workers) as pool:
        running = {}
        queue = iter(long_)

        def start_long():
            s = next(queue, None)
            if s is not None:
                running[pool.submit(build, s)] = ("build", s, None)

        for _ in range(2 * workers):                      # tables held at once: bounded
            start_long()
        for group, d, asked in short:
            running[pool.submit(whole, group, d, asked)] = ("whole", (group, d, asked), None)
        while running:
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                kind, s, fixed = running.pop(future)
                result = future.result()
                if kind == "whole":
                    answer(*s, *result)
                elif kind == "build":
                    s.table = result
                    if s.table[0] < PART_LETTERS + 1:     # too few prefix columns to cut: one part
                        s.left = 1
                        running[pool.submit(part, s, [])] = ("part", s, [])
                    else:
                        for prefix in itertools.product(range(4), repeat=PART_LETTERS):
                            running[pool.submit(part, s, prefix)] = ("part", s, prefix)
                elif kind == "part":
                    tails, ok = result
                    s.ok &= bool(ok)
                    s.tails = s.tails + tails
                    s.left -= 1
                    if s.left == 0:
                        s.table = None                    # its memory back
                        if s.ok:
                            answer(s.group, s.d, s.asked, s.tails, True, 0.0)
                            start_long()
                        else:
                            running[pool.submit(bound, s)] = ("bound", s, None)
                else:                                     # bound
                    tails, gap = result
                    answer(s.group, s.d, s.asked, tails, False, gap)
                    start_long()
