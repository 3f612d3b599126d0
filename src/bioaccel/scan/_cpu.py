"""SCAN and MULTIPLESCAN on all CPU cores (Numba): every window of a chunk of sequence scored by every
entry (motif x strand) of a :class:`~bioaccel.scan._plan.ScanPlan`; the windows whose integer
score reaches the entry's threshold are the hits.

Variants (``--variant``), all exact, all giving the same hits:

``naive``      Giraud & Varré's plain SCAN: one window and one matrix at a time, a column at a time, the
               matrices in parallel (:mod:`bioaccel.runtime.window_scores`, which ``PSSM.search`` runs too).
``slices``     their Slices Strategy: the score of each slice of L columns looked up in a precomputed
               table (one look-up replaces L additions), every slice summed; the windows of a block of
               sequence scored by every matrix in turn (MULTIPLESCAN), blocks in parallel.
``lookahead``  bioaccel's (the default): the slices of each matrix taken most selective first, and a
               window abandoned as soon as it cannot reach the threshold any more (MOODS's look-ahead
               filtration): most windows cost one or two look-ups.

A window that holds a letter other than A, C, G, T/U is never a hit (as in FIMO and MOODS). Hits are
(entry, window start in the chunk, score); a kernel writes them through a shared counter and says how
many it found, so a caller whose buffer was too small calls again with a larger one.
"""
import numpy as np
from numba import njit, prange

from ..runtime.window_scores import record_hit, scan_naive
from ._plan import FEW

#: Windows per block of the slices and lookahead kernels: the block's indices stay in cache while
#: every entry's tables are taken in turn.
BLOCK = 8192


@njit(cache=True, nogil=True, parallel=True)
def prepare(codes, slice_len):
    """(indices, bad): ``indices[L-1, i]`` = the L letters from i on as a base-4 number (other letters
    read as A; 0 where fewer than L letters are left), for L = 1 .. slice_len; ``bad[i]`` = letters
    other than A, C, G, T before position i."""
    n = codes.shape[0]
    idx = np.zeros((slice_len, n), np.uint16)
    for i in prange(n):                           # every position on its own: all cores
        w = 0
        for L in range(min(slice_len, n - i)):
            c = codes[i + L]
            w = w * 4 + (c if c <= 3 else 0)
            idx[L, i] = w
    bad = np.zeros(n + 1, np.int64)
    for i in range(n):
        bad[i + 1] = bad[i] + (1 if codes[i] > 3 else 0)
    return idx, bad


@njit(cache=True, nogil=True)
def gram_codes(codes, q):
    """The q letters from each position on as a base-4 number (other letters, and letters past the end,
    read as A)."""
    n = codes.shape[0]
    out = np.zeros(n, np.int64)
    g = 0
    mask = (1 << (2 * q)) - 1
    for i in range(n + q - 1):
        c = codes[i] if i < n else 0
        g = ((g << 2) | (c if c <= 3 else 0)) & mask
        j = i - q + 1
        if j >= 0:
            out[j] = g
    return out


@njit(cache=True, nogil=True, inline="always")
def _block_entry(b, e, windows, n, length, threshold):
    """Entry e on block b of the slices and lookahead kernels: (the first window, the end of the
    windows it scores there: those of the block that fit in the ``n`` letters, its length, its
    threshold)."""
    lo = b * BLOCK
    m = length[e]
    return lo, min(windows, lo + BLOCK, n - m + 1), m, threshold[e]


@njit(cache=True, nogil=True, parallel=True)
def scan_slices(codes, windows, idx, bad, threshold, length, slice_start, slice_offset, slice_len, table_start,
                tables, out_entry, out_pos, out_score, counter):
    """The Slices Strategy, every slice summed: blocks of windows in parallel, every entry per block."""
    n = codes.shape[0]
    for b in prange((windows + BLOCK - 1) // BLOCK):
        for e in range(threshold.shape[0]):
            lo, end, m, T = _block_entry(b, e, windows, n, length, threshold)
            for i in range(lo, end):
                s = 0
                for sl in range(slice_start[e], slice_start[e + 1]):
                    s += tables[table_start[sl] + idx[slice_len[sl] - 1, i + slice_offset[sl]]]
                if s >= T and bad[i + m] == bad[i]:
                    record_hit(counter, out_entry, out_pos, out_score, e, i, s)


@njit(cache=True, nogil=True, inline="always")
def _word(codes, i, L):
    """The L letters from i on as a base-4 number (other letters read as A)."""
    w = 0
    for k in range(L):
        c = codes[i + k]
        w = w * 4 + (c if c <= 3 else 0)
    return w


@njit(cache=True, nogil=True)
def _clean(codes, i, m):
    """Whether the window of m letters at i holds only A, C, G, T."""
    for k in range(m):
        if codes[i + k] > 3:
            return False
    return True


@njit(cache=True, nogil=True, parallel=True)
def scan_lookahead(codes, windows, threshold, length, slice_start, slice_offset, slice_len, table_start,
                   bound, tables, out_entry, out_pos, out_score, counter):
    """Slices in their look-ahead order, each window abandoned once it cannot reach the threshold. The
    slices' words are read straight from the letters (no index arrays: one byte of memory traffic a
    position, which is what a scan of one or a few motifs costs), N windows refused at the end."""
    n = codes.shape[0]
    for b in prange((windows + BLOCK - 1) // BLOCK):
        for e in range(threshold.shape[0]):
            lo, end, m, T = _block_entry(b, e, windows, n, length, threshold)
            first = slice_start[e]
            stop = slice_start[e + 1]
            # the first slice alone settles most windows: its test hoisted out of the slice loop
            t0 = table_start[first]
            o0 = slice_offset[first]
            l0 = slice_len[first]
            need0 = T - bound[first]
            mask = (1 << (2 * l0)) - 1
            # the first slice's word rolls along the block: one letter read a window
            w = _word(codes, lo + o0, l0 - 1) if lo < end else 0
            for i in range(lo, end):
                c = codes[i + o0 + l0 - 1]
                w = ((w << 2) | (c if c <= 3 else 0)) & mask
                s = tables[t0 + w]
                if s < need0:
                    continue
                ok = True
                for sl in range(first + 1, stop):
                    s += tables[table_start[sl] + _word(codes, i + slice_offset[sl], slice_len[sl])]
                    if s + bound[sl] < T:
                        ok = False
                        break
                if ok and _clean(codes, i, m):
                    record_hit(counter, out_entry, out_pos, out_score, e, i, s)


@njit(cache=True, nogil=True)
def _score_lookahead(idx, i, T, first, stop, slice_offset, slice_len, table_start, bound, tables):
    """The score of the window at i by the look-ahead slices, or a value below T once it cannot reach T."""
    s = 0
    for sl in range(first, stop):
        s += tables[table_start[sl] + idx[slice_len[sl] - 1, i + slice_offset[sl]]]
        if s + bound[sl] < T:
            return T - 1
    return s


@njit(cache=True, nogil=True, parallel=True)
def scan_index(codes, windows, idx, idx_q, q, bad, threshold, length, slice_start, slice_offset, slice_len,
               table_start, bound, tables, gram_start, gram_entry, out_entry, out_pos, out_score, counter):
    """bioaccel's MULTIPLESCAN: the q letters at each position looked up once in the index of every
    entry's filter window (:func:`~bioaccel.scan._plan.build_index`); only the (entry, window)
    pairs it names are scored, by look-ahead."""
    n = codes.shape[0]
    reach = min(n, windows + 64)        # a filter window starts at most 63 columns into its window
    # (blocks reach past `windows` only for the index; 64 > any offset build_index allows)
    for b in prange((max(windows, reach) + BLOCK - 1) // BLOCK):
        lo = b * BLOCK
        for i in range(lo, min(lo + BLOCK, reach)):
            g = idx_q[i]
            for k in range(gram_start[g], gram_start[g + 1]):
                packed = gram_entry[k]
                e = packed >> 6
                w = i - (packed & 63)                   # the window whose filter columns start at i
                m = length[e]
                if w < 0 or w >= windows or w + m > n:
                    continue
                T = threshold[e]
                s = _score_lookahead(idx, w, T, slice_start[e], slice_start[e + 1], slice_offset, slice_len,
                                     table_start, bound, tables)
                if s >= T and bad[w + m] == bad[w]:
                    record_hit(counter, out_entry, out_pos, out_score, e, w, s)


def _by_index(plan, codes, windows, idx, bad, out):
    index = plan.index
    scan_index(codes, windows, idx, gram_codes(codes, index.q), index.q, bad, plan.threshold, plan.length,
               plan.slice_start, plan.slice_offset, plan.slice_len, plan.table_start, plan.bound, plan.tables,
               index.gram_start, index.gram_entry, *out)


def _by_naive(plan, codes, windows, idx, bad, out):
    scan_naive(codes, windows, bad, plan.threshold, plan.length, plan.units_flat, plan.units_start, *out)


def _by_slices(plan, codes, windows, idx, bad, out):
    scan_slices(codes, windows, idx, bad, plan.threshold, plan.length, plan.natural_start, plan.natural_offset,
                plan.natural_len, plan.natural_table, plan.tables, *out)


def _by_lookahead(plan, codes, windows, idx, bad, out):
    scan_lookahead(codes, windows, plan.threshold, plan.length, plan.slice_start, plan.slice_offset, plan.slice_len,
                   plan.table_start, plan.bound, plan.tables, *out)


#: Each CPU variant's kernel call: (plan, codes, windows, indices, bad letters, (entry, start, score,
#: counter) arrays out). The look-ahead reads the letters themselves (no indices).
KERNELS = {"index": _by_index, "naive": _by_naive, "slices": _by_slices, "lookahead": _by_lookahead}


def uses_index(plan, variant: str) -> bool:
    """Whether a CPU scan of ``plan`` with ``variant`` reads its q-gram index: the ``index`` variant on more
    than FEW entries (a handful of matrices: the index pass and gram codes cost more than the windows they
    skip, bench/scan.py, and the plan opened their look-ahead with a 7-column slice; they are scanned by
    look-ahead).

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._plan import ScanPlan
    >>> uses_index(ScanPlan.build([PSSM(np.eye(4)[:2])], [2 << 44]), "index")
    False
    """
    return variant == "index" and plan.entries > FEW


def scan_chunk(plan, codes, windows, variant, *, capacity=1 << 16):
    """The hits of every entry of ``plan`` in the first ``windows`` windows of ``codes``:
    ``(entry, start, score)`` arrays (any order).

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._plan import ScanPlan
    >>> from bioaccel.inputs.alphabet import encode
    >>> plan = ScanPlan.build([PSSM(np.eye(4)[:2])], [2 << 44])      # threshold: score 2 (grid 2**44)
    >>> entry, start, score = scan_chunk(plan, encode("TTACGT"), 6, "lookahead")
    >>> sorted(zip(entry.tolist(), start.tolist()))      # AC at 2 (forward); GT at 4 is AC reversed
    [(0, 2), (1, 4)]
    """
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    slice_len = int(plan.slice_len.max()) if plan.slice_len.size else 1
    if variant == "index" and not uses_index(plan, variant):
        variant = "lookahead"
    idx = bad = None
    if variant != "lookahead":
        idx, bad = prepare(codes, max(slice_len, int(plan.natural_len.max()) if plan.natural_len.size else 1))
    while True:
        out = (np.empty(capacity, np.int64), np.empty(capacity, np.int64), np.empty(capacity, np.int64),
               np.zeros(1, np.int64))
        KERNELS[variant](plan, codes, windows, idx, bad, out)
        found = int(out[3][0])
        if found <= capacity:
            return out[0][:found], out[1][:found], out[2][:found]
        capacity = found + (found >> 2) + 1024
