"""What a scan needs of its motifs, laid out for the kernels: :class:`ScanPlan`.

Every motif is scanned on both strands: the reverse strand's windows are scored, on the forward text,
by the motif's reverse complement (columns reversed, A <-> T, C <-> G), so a palindromic site passes on
each strand where it passes. An *entry* is one motif on one strand. Scores are integer sums on the
motif's grid (:mod:`._integer`), exact in any order; an entry's threshold ``T`` is in the same units.

Each entry is also cut into *slices* of at most ``slice_len`` columns with one table of 4**L integer
scores per slice (Giraud & Varré's Slices Strategy: one look-up replaces L additions), evaluated in the
order ``slice_order`` gives; ``bound[s]`` is the most the slices after s can still add, so a window is
abandoned as soon as it cannot reach T (the look-ahead of MOODS).
"""
from dataclasses import dataclass

import numpy as np
from numba import njit, prange

from ..motif import Grid


def slice_bounds(m, length):
    """(offset, length) of each slice of m columns: L columns each, the last one shorter.

    >>> slice_bounds(10, 4)
    [(0, 4), (4, 4), (8, 2)]
    """
    return [(o, min(length, m - o)) for o in range(0, m, length)]


def slice_table(units, offset, length):
    """The 4**length grid scores of every word of columns offset .. offset + length - 1 (index: the
    word in base 4, first letter most significant).

    >>> slice_table(np.array([[1, 2, 3, 4], [10, 20, 30, 40]]), 0, 2).tolist()[:5]
    [11, 21, 31, 41, 12]
    """
    table = np.zeros(1, dtype=np.int64)
    for j in range(offset, offset + length):
        table = (table[:, None] + units[j][None, :]).ravel()
    return table


#: Entries (motif x strand) up to which the look-ahead opens with a slice of FIRST columns (and the
#: ``index`` variant scans by look-ahead alone).
FEW = 8
FIRST = 7


def _widest_window(units, width) -> int:
    """The offset of the ``width`` consecutive columns whose scores spread most (max - min, summed).

    >>> _widest_window(np.array([[0, 0, 0, 0], [0, 9, 0, 0], [0, 0, 9, 0], [1, 0, 0, 0]]), 2)
    1
    """
    spread = units.max(axis=1) - units.min(axis=1)
    sums = np.convolve(spread, np.ones(width, dtype=spread.dtype), mode="valid")
    return int(np.argmax(sums))


def _around(m, o, width, length):
    """Slices of at most ``length`` columns covering the m columns outside [o, o + width).

    >>> _around(12, 3, 7, 4)
    [(0, 3), (10, 2)]
    """
    return [(a, L) for a, L in slice_bounds(o, length)] + [(o + width + a, L) for a, L in
                                                           slice_bounds(m - o - width, length)]


@dataclass
class ScanPlan:
    """The entries (motif x strand) of a scan, as flat arrays.

    ``units_flat[units_start[e]:units_start[e] + length[e]]`` is entry e's (m, 4) grid matrix;
    ``threshold[e]`` its threshold in grid units; slices ``slice_start[e] .. slice_start[e+1] - 1`` in
    evaluation order, slice s covering columns ``slice_offset[s] ..`` (``slice_len[s]`` of them), its
    table at ``tables[table_start[s]:]``, ``bound[s]`` the largest sum the later slices can add.
    """

    motifs: list
    grids: list
    threshold: np.ndarray        # per entry, int64 grid units
    motif_of: np.ndarray         # per entry
    strand_of: np.ndarray        # per entry: 0 forward, 1 reverse complement
    length: np.ndarray           # per entry
    units_flat: np.ndarray
    units_start: np.ndarray
    slice_start: np.ndarray      # per entry, +1 at the end
    slice_offset: np.ndarray
    slice_len: np.ndarray
    table_start: np.ndarray
    bound: np.ndarray
    tables: np.ndarray
    natural_start: np.ndarray    # the same slices in column order, no bounds (the Slices Strategy)
    natural_offset: np.ndarray
    natural_len: np.ndarray
    natural_table: np.ndarray
    index_q: int = 8

    @property
    def index(self) -> "ScanIndex":
        """The q-gram index of the ``index`` variant, built on first use."""
        if getattr(self, "_index", None) is None:
            self._index = build_index(self, self.index_q)
        return self._index

    def keep_index(self, index: "ScanIndex") -> None:
        """Use ``index``, this plan's own (read back from the cache: :mod:`._index_store`), as :attr:`index`."""
        self._index = index

    @property
    def entries(self) -> int:
        return self.length.shape[0]

    @property
    def longest(self) -> int:
        return int(self.length.max()) if self.length.size else 0

    @classmethod
    def build(cls, motifs, thresholds, *, slice_len=4, strands=(0, 1), layouts=None):
        """The plan of ``motifs`` (PSSMs): ``thresholds[k]`` is motif k's threshold in grid units, one
        number for both strands or a (forward, reverse) pair, None on a strand where nothing can
        reach it (that entry is left out); ``strands``: 0 forward, 1 reverse complement. ``layouts``
        (from :func:`layouts`, for these motifs, strands and slice length) saves building the
        slices' tables here: :func:`._scan.prepare` builds them while the thresholds are searched.

        >>> from bioaccel.motif import PSSM
        >>> plan = ScanPlan.build([PSSM(np.eye(4)[:3])], [0], slice_len=2)
        >>> plan.entries, plan.length.tolist(), plan.natural_len.tolist()     # the Slices Strategy's
        (2, [3, 3], [2, 1, 2, 1])
        >>> plan.slice_len.tolist()          # the look-ahead's: few entries, one look-up of 3 columns
        [3, 3]
        """
        grids = [Grid.of(m) for m in motifs]
        strands_ = []
        thr = []
        for k, g in enumerate(grids):
            pair = thresholds[k] if isinstance(thresholds[k], (tuple, list)) else (thresholds[k],) * 2
            for strand in strands:
                if pair[strand] is None:
                    continue
                strands_.append((k, strand, _strand_units(g, strand)))
                thr.append(int(pair[strand]))
        strands = strands_
        n = len(strands)
        lengths = np.array([u.shape[0] for _, _, u in strands], dtype=np.int64)
        units_start = np.concatenate(([0], np.cumsum(lengths)[:-1])).astype(np.int64) if n else np.zeros(0, np.int64)
        units_flat = (np.concatenate([u for _, _, u in strands]) if n else np.zeros((0, 4), np.int64))
        thr = np.array(thr, dtype=np.int64)
        order_rows, natural_rows, tables = [], [], []
        slice_start, natural_start = [0], [0]
        offset = 0
        # a scan of a handful of entries opens each window with one look-up of its most spread FIRST
        # columns (a table of 4**FIRST scores), which settles nearly every window (as MOODS's 7-letter
        # window does); with many entries those tables would not stay in cache
        first = FIRST if n <= FEW else 0
        for k, strand, u in strands:
            natural, look = (layouts[k, strand] if layouts is not None and not first
                             else entry_layout(u, slice_len, first))
            local = []
            for o, L, t in natural:
                local.append((o, L, offset, int(t.max())))
                tables.append(t)
                offset += t.size
            natural_rows += [(o, L, start) for o, L, start, _ in local]
            natural_start.append(len(natural_rows))
            if look is not natural:
                local = []
                for o, L, t in look:
                    local.append((o, L, offset, int(t.max())))
                    tables.append(t)
                    offset += t.size
            # look-ahead order: the slices that spread scores most first (they abandon soonest)
            spread = [int(tables[-len(local) + i].max() - tables[-len(local) + i].min()) for i in range(len(local))]
            ranked = sorted(range(len(local)), key=lambda i: -spread[i])
            maxima = [local[i][3] for i in ranked]
            for rank, i in enumerate(ranked):
                o, L, start, _ = local[i]
                order_rows.append((o, L, start, sum(maxima[rank + 1:])))
            slice_start.append(len(order_rows))
        as_array = lambda rows, k: np.array([r[k] for r in rows], dtype=np.int64)  # noqa: E731
        return cls(
            motifs=list(motifs), grids=grids, threshold=thr,
            motif_of=np.array([k for k, _, _ in strands], dtype=np.int64),
            strand_of=np.array([s for _, s, _ in strands], dtype=np.int64), length=lengths,
            units_flat=np.ascontiguousarray(units_flat, dtype=np.int64), units_start=units_start,
            slice_start=np.array(slice_start, dtype=np.int64), slice_offset=as_array(order_rows, 0),
            slice_len=as_array(order_rows, 1), table_start=as_array(order_rows, 2), bound=as_array(order_rows, 3),
            tables=np.concatenate(tables) if tables else np.zeros(0, np.int64),
            natural_start=np.array(natural_start, dtype=np.int64), natural_offset=as_array(natural_rows, 0),
            natural_len=as_array(natural_rows, 1), natural_table=as_array(natural_rows, 2))


def _strand_units(grid, strand):
    """The grid matrix an entry scans: the motif's, or its reverse complement's (strand 1)."""
    return grid.units if strand == 0 else np.ascontiguousarray(grid.units[::-1, ::-1])


def entry_layout(units, slice_len, first=0):
    """The slices of one entry (grid matrix ``units``), each ``(offset, length, table)``: those of the
    Slices Strategy in column order, and those the look-ahead evaluates (the same list, unless
    ``first`` opens it with a table of the ``first`` most spread columns).

    >>> natural, look = entry_layout(np.eye(4, dtype=np.int64)[:3], 2)
    >>> [(o, L, t.size) for o, L, t in natural], look is natural
    ([(0, 2, 16), (2, 1, 4)], True)
    """
    m = units.shape[0]
    natural = [(o, L, slice_table(units, o, L)) for o, L in slice_bounds(m, slice_len)]
    if not (first and m > slice_len):
        return natural, natural
    o = _widest_window(units, min(first, m))
    spans = [(o, min(first, m))] + _around(m, o, min(first, m), slice_len)
    look = [(o2, L, slice_table(units, o2, L)) for o2, L in spans]
    return natural, look


def layouts(grids, strands, slice_len) -> dict:
    """:func:`entry_layout` of every (motif index, strand) of the motifs whose grids are ``grids``
    (:class:`._exact.Grid`), for :meth:`ScanPlan.build` with many entries (no opening table).

    >>> from bioaccel.motif import PSSM
    >>> sorted(layouts([Grid.of(PSSM(np.eye(4)[:3]))], (0, 1), 2))
    [(0, 0), (0, 1)]
    """
    return {(k, strand): entry_layout(_strand_units(g, strand), slice_len)
            for k, g in enumerate(grids) for strand in strands}


# ---- the q-gram index of the ``index`` variant -------------------------------------------------------

@dataclass
class ScanIndex:
    """For every q-gram g, the (entry, offset) pairs whose filter window it passes:
    ``gram_entry[gram_start[g]:gram_start[g + 1]]`` and ``gram_offset`` likewise. An entry's filter
    window is q of its columns starting at ``offset`` (all of them, padded with free letters, when it
    has fewer); a q-gram passes when, with the best letters everywhere else, the window could still
    reach the threshold. So every hit's filter window passes, and most other windows do not."""

    q: int
    gram_start: np.ndarray
    gram_entry: np.ndarray       # entry * 64 + offset, int32 (half the memory of two int64 arrays)


@njit(cache=True, nogil=True)
def _half_tables(u, o, q):
    """Scores of every word of the window's first q/2 columns (A) and last q - q/2 (B), B sorted with its
    words; columns past the matrix's end score 0 (free letters)."""
    m = u.shape[0]
    h = q // 2
    out = []
    for start, width in ((o, h), (o + h, q - h)):
        n = 1 << (2 * width)
        t = np.zeros(n, np.int64)
        for g in range(n):
            s = 0
            for k in range(width):
                if start + k < m:
                    s += u[start + k, (g >> (2 * (width - 1 - k))) & 3]
            t[g] = s
        out.append(t)
    order = np.argsort(out[1])
    return out[0], out[1][order], order


@njit(cache=True, nogil=True)
def _passing(A, Bs, t):
    """How many q-grams (a word of A then one of B) score at least t."""
    count = 0
    for a in range(A.shape[0]):
        count += Bs.shape[0] - np.searchsorted(Bs, t - A[a])
    return count


@njit(cache=True, nogil=True)
def _filter_window(u, T, q, candidates):
    """(offset, filter threshold, passing q-grams) of the most selective of up to ``candidates`` windows
    of q columns (the most informative first): the one fewest q-grams pass."""
    m = u.shape[0]
    colmax = np.empty(m, np.int64)
    spread = np.empty(m, np.float64)
    for j in range(m):
        colmax[j] = u[j].max()
        spread[j] = colmax[j] - (u[j, 0] + u[j, 1] + u[j, 2] + u[j, 3]) / 4.0
    total = colmax.sum()
    starts = max(1, min(m - q + 1, 64))         # offsets fit 6 bits (gram_entry)
    info = np.empty(starts, np.float64)
    for o in range(starts):
        info[o] = spread[o:o + q].sum()
    ranked = np.argsort(-info)
    best_o, best_t, best_count = 0, T, 1 << 62
    for r in range(min(candidates, starts)):
        o = ranked[r]
        t = T - (total - colmax[o:o + q].sum())
        A, Bs, _ = _half_tables(u, o, q)
        count = _passing(A, Bs, t)
        if count < best_count:
            best_o, best_t, best_count = o, t, count
    return best_o, best_t, best_count


@njit(cache=True, nogil=True, parallel=True)
def _index_arrays(units_flat, units_start, length, threshold, q, candidates):
    entries = length.shape[0]
    offsets = np.empty(entries, np.int64)
    cuts = np.empty(entries, np.int64)
    counts = np.empty(entries, np.int64)
    for e in prange(entries):
        u = units_flat[units_start[e]:units_start[e] + length[e]]
        offsets[e], cuts[e], counts[e] = _filter_window(u, threshold[e], q, candidates)
    first = np.zeros(entries + 1, np.int64)
    first[1:] = np.cumsum(counts)
    grams = np.empty(first[-1], np.int64)
    packed = np.empty(first[-1], np.int32)
    h = q - q // 2
    for e in prange(entries):                  # each entry's passing q-grams, a word of A then of B
        u = units_flat[units_start[e]:units_start[e] + length[e]]
        A, Bs, Bwords = _half_tables(u, offsets[e], q)
        k = first[e]
        for a in range(A.shape[0]):
            for b in range(np.searchsorted(Bs, cuts[e] - A[a]), Bs.shape[0]):
                grams[k] = (a << (2 * h)) | Bwords[b]
                packed[k] = e * 64 + offsets[e]
                k += 1
    start = np.zeros((1 << (2 * q)) + 1, np.int64)
    for k in range(grams.shape[0]):
        start[grams[k] + 1] += 1
    for g in range(1 << (2 * q)):
        start[g + 1] += start[g]
    # a counting sort by q-gram, stable: the order of a merge sort (Numba's took 1.5 s for the 2 million
    # pairs of all JASPAR 2024 CORE matrices, this 0.05 s)
    out = np.empty_like(packed)
    fill = start[:-1].copy()
    for k in range(grams.shape[0]):
        out[fill[grams[k]]] = packed[k]
        fill[grams[k]] += 1
    return start, out


def build_index(plan, q=8, candidates=3) -> ScanIndex:
    """The q-gram index of ``plan``'s entries (each entry's filter window chosen among its
    ``candidates`` most informative windows of q columns). Measured on the human chromosome 22 slice
    with every JASPAR 2024 CORE vertebrate matrix (bench/scan.py): q = 8 leaves about 19 candidates
    a position, most settled by one or two look-ups; leaving the long matrices (weak filters) to the
    look-ahead scan instead was slower.

    >>> from bioaccel.motif import PSSM
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[:2])], [2 << 44])
    >>> index = build_index(plan, q=3)
    >>> int(index.gram_start[-1])       # AC then any letter, forward; GT then any, reverse: 4 + 4
    8
    """
    start, packed = _index_arrays(plan.units_flat, plan.units_start, plan.length, plan.threshold, q, candidates)
    return ScanIndex(q, start, packed)
