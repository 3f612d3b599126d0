"""Every window of an encoded sequence scored by integer matrices (Numba, every core): the plain scan,
Giraud & Varré's SCAN, that both the scan wing (its ``naive`` variant, and the reference its faster
ones are tested against) and ``PSSM.search`` of the motif wing run, so that neither wing imports the
other's private code.

Codes are those of :mod:`bioaccel.inputs.alphabet` (A, C, G, T/U 0-3, anything else 4); a window
holding a 4 is never a hit. Scores are sums of int64 entries (a motif's integer grid): exact in any
order. Hits are (entry, window start, score), written through a shared counter (:func:`record_hit`),
so a caller whose buffers were too small calls again with larger ones.

>>> from bioaccel.inputs.alphabet import encode
>>> codes = encode("TTACGN")
>>> units = np.array([[1, 0, 0, 0], [0, 1, 0, 0]], np.int64)              # AC scores 2
>>> out = [np.zeros(4, np.int64) for _ in range(3)] + [np.zeros(1, np.int64)]
>>> scan_naive(codes, 5, bad_letters(codes), np.array([2]), np.array([2]), units, np.array([0]), *out)
>>> int(out[3][0]), int(out[1][0])                                        # one hit, at 2
(1, 2)
"""
import numpy as np
from numba import njit, prange

from .parallel import fetch_add


def bad_letters(codes) -> np.ndarray:
    """``bad[i]``: the letters other than A, C, G, T before position i (n + 1 of them): a window
    [i, i + m) holds only A, C, G, T when ``bad[i + m] == bad[i]``.

    >>> bad_letters(np.array([0, 4, 1, 4], np.uint8)).tolist()
    [0, 0, 1, 1, 2]
    """
    bad = np.zeros(codes.shape[0] + 1, np.int64)
    np.cumsum(np.asarray(codes) > 3, out=bad[1:])
    return bad


@njit(cache=True, nogil=True)
def record_hit(counter, out_entry, out_pos, out_score, e, i, s):
    """Write hit (entry ``e``, start ``i``, score ``s``) at the next place of the shared ``counter``
    (counted even where the buffers are full, so the caller knows the size they need)."""
    k = fetch_add(counter, 0, 1)
    if k < out_entry.shape[0]:
        out_entry[k] = e
        out_pos[k] = i
        out_score[k] = s


@njit(cache=True, nogil=True, parallel=True)
def scan_naive(codes, windows, bad, threshold, length, units_flat, units_start, out_entry, out_pos, out_score,
               counter):
    """The plain SCAN: every entry e (the matrix ``units_flat[units_start[e]:][:length[e]]``, in parallel)
    over the first ``windows`` windows of ``codes``, column by column; a window is a hit when its score
    reaches ``threshold[e]`` and it holds only A, C, G, T (``bad``: :func:`bad_letters`)."""
    n = codes.shape[0]
    for e in prange(threshold.shape[0]):
        m = length[e]
        T = threshold[e]
        u0 = units_start[e]
        for i in range(min(windows, n - m + 1)):
            s = 0
            for j in range(m):
                c = codes[i + j]
                s += units_flat[u0 + j, c if c <= 3 else 0]
            if s >= T and bad[i + m] == bad[i]:
                record_hit(counter, out_entry, out_pos, out_score, e, i, s)
