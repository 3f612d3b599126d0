"""The single-strand tables S1 and S2 of BPMax (weighted Nussinov, docs/bpmax.md) in band form.

A windowed run reads S only on intervals of at most L bases (L = W + 1, the window), so S is kept as
a band: ``band[i, d] = S(i, i + d)`` for ``d < L``; cells past the strand's end (``i + d >= n``) hold 0.
Filling the band alone costs ``n L^2 / 2`` max-plus steps and ``4 n L`` bytes, linear in the strand's
length, where the dense table of :func:`bioaccel.fold.fold_table` costs ``n^3 / 6`` and ``4 n^2``
(a 10 kb target: 4 s and 400 MB on the 2-core development machine, against 0.03 s and 5 MB for its
band of 129). S(i, j) depends only on shorter intervals inside [i, j], so the band holds exactly the
dense table's values on those intervals (tests/test_interact.py checks it against fold_table and the
plain-Python reference).

Without a window the band is the whole triangle; then the dense table of the fold wing's tiled,
parallel fill is the faster way to it and :func:`strand_band` takes that path, unless the strand is
short (at most SMALL_STRAND bases, a query): its band fill takes a millisecond, where the first call of
the parallel fill compiles it (seconds).

A strand of at most PYTHON_FILL_BASES (a screen's svRNA, 18-22 nt) is filled by the same function run
as Python (``_fill_band.py_func``: one recurrence, the same integers) while Numba's fill is not loaded
in this process, up to PYTHON_FILL_SECONDS in all: on lists of lists, 0.19 ms at 22 nt and 2.8 ms at 64 nt
on the 2-core development machine (0.39 and 7.0 ms on the arrays, measured in one run, stop 57), where a
process's first Numba function costs Numba's start (0.44 s here: its CPU target, then the cached function's
load; 0.44-0.5 s on the H100 host), all of it holding the GIL. So
the GPU's first launch, which waits for its query's fold, no longer waits for Numba, and a GPU screen
of short queries (their targets folded on the device, the sites in NumPy) never starts Numba. Past the
budget (many short queries) Numba's fill is loaded and used, so a process pays at most
PYTHON_FILL_SECONDS more than with Numba alone.
"""
import time

import numpy as np
from numba import njit

from ..fold import fold_table

#: Strands of at most this many bases get the band fill even as the whole triangle (n^3 / 2 steps: 0.03 s
#: at 500 bases), so that a run of short queries never compiles or loads the fold wing's parallel fill.
SMALL_STRAND = 500

#: Strands of at most this many bases are filled in Python (``_fill_band.py_func``) while Numba's fill
#: is not loaded: at most 3 ms each here (64 nt, the whole triangle), about 1/150 of Numba's start.
PYTHON_FILL_BASES = 64
#: Seconds of Python fills a process spends before it loads Numba's fill anyway (a run of many short
#: queries): a quarter of Numba's start, the most this path can cost a process.
PYTHON_FILL_SECONDS = 0.1
_python_fills = [0.0]      # seconds this process spent in Python fills


@njit(cache=True, nogil=True)
def _fill_band(codes, pairs, min_loop, band):
    """S over ``codes`` into ``band`` (n, L), rows bottom-up: row i reads only rows i+1 .. i+L-1.

    Within a row, S(i, i+x) is final once every split point below x has been pushed into it, so the
    splits are pushed forwards (x ascending): each is one scalar plus a contiguous row, which LLVM
    vectorises, instead of a reduction with a strided read per cell. Indexed a row at a time
    (``band[i][d]``, ``pairs[a][b]``), so that fold_band's Python path runs it on lists of lists,
    twice as fast as on arrays there (stop 57).
    """
    n = len(band)
    for i in range(n - 1, -1, -1):
        row = band[i]
        width = len(row)
        m = min(width, n - i)
        for d in range(width):
            row[d] = 0
        if m > min_loop + 1:
            inner = band[i + 1]
            weights = pairs[codes[i]]
            for d in range(min_loop + 1, m):  # the pair (i, i+d), at least min_loop bases inside
                inside = inner[d - 2] if d >= 2 else 0     # min_loop 0: (i, i+1) holds nothing
                row[d] = inside + weights[codes[i + d]]
        for x in range(m - 1):  # the split S(i, i+x) + S(i+x+1, i+d), d > x
            v = row[x]
            below = band[i + x + 1]
            for d in range(x + 1, m):
                t = v + below[d - x - 1]
                if t > row[d]:
                    row[d] = t


def single_strand_table(codes: np.ndarray, fold_params, threads: int = 0) -> np.ndarray:
    """The dense (n, n) int32 weighted-Nussinov table S of ``codes`` (upper triangle), in units, by the
    fold wing's tiled, parallel fill on ``threads`` threads.

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.fold import FoldParams
    >>> int(single_strand_table(encode("GGGAAACCC"), FoldParams.bpmax())[0, 8])   # 9 in half-units
    18
    """
    return np.asarray(fold_table(codes, params=fold_params, threads=threads), dtype=np.int32)


def fold_band(codes: np.ndarray, fold_params, width: int) -> np.ndarray:
    """The (n, width) int32 band of S over ``codes``: ``band[i, d] = S(i, i + d)``, in units.

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.fold import FoldParams
    >>> fold_band(encode("GGGAAACCC"), FoldParams.bpmax(), 9)[0].tolist()    # S(0, d) in half-units
    [0, 0, 0, 0, 0, 0, 6, 12, 18]
    >>> fold_band(encode("GGGAAACCC"), FoldParams.bpmax(), 7)[:, 6].tolist()   # every 7-base interval
    [6, 12, 6, 0, 0, 0, 0, 0, 0]
    """
    codes = np.ascontiguousarray(codes)
    band = np.zeros((codes.shape[0], max(int(width), 1)), dtype=np.int32)
    if python_fill(codes.shape[0]):
        start = time.perf_counter()
        rows = band.tolist()       # Python reads and writes lists' items faster than arrays'
        _fill_band.py_func(codes.tolist(), fold_params.pair_table().tolist(), fold_params.min_loop, rows)
        band[:] = np.array(rows, dtype=np.int32).reshape(band.shape)   # (an empty strand: no rows)
        _python_fills[0] += time.perf_counter() - start
    else:
        _fill_band(codes, fold_params.pair_table(), fold_params.min_loop, band)
    return band


def python_fill(n: int) -> bool:
    """Whether :func:`fold_band` fills a strand of ``n`` bases in Python now: a short strand (at most
    PYTHON_FILL_BASES) while Numba's fill is not loaded in this process and the Python fills have taken
    less than PYTHON_FILL_SECONDS in all. Either way the band holds the same integers.

    >>> python_fill(PYTHON_FILL_BASES + 1)
    False
    """
    return n <= PYTHON_FILL_BASES and not _fill_band.signatures and _python_fills[0] < PYTHON_FILL_SECONDS


def band_of_dense(dense: np.ndarray, width: int) -> np.ndarray:
    """The band of width ``width`` of a dense upper-triangular (n, n) table (cells past the end 0).

    >>> band_of_dense(np.array([[1, 2, 3], [0, 4, 5], [0, 0, 6]]), 2).tolist()
    [[1, 2], [4, 5], [6, 0]]
    """
    n = dense.shape[0]
    rows = np.arange(n)[:, None]
    cols = rows + np.arange(width)[None, :]
    inside = cols < n
    return np.where(inside, dense[rows, np.minimum(cols, n - 1)], 0).astype(np.int32)


def strand_band(codes: np.ndarray, fold_params, width: int, threads: int = 0, dense: bool = False) -> np.ndarray:
    """S over ``codes`` as a band of ``width`` (at most the strand's length): the band fill when the
    band is narrower than the strand or the strand short (SMALL_STRAND), else (or with ``dense``) the dense
    table of :func:`bioaccel.fold.fold_table` on ``threads`` threads, cut to the band.

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.fold import FoldParams
    >>> codes = encode("GGGAAACCCAUGCAUGC")
    >>> np.array_equal(strand_band(codes, FoldParams.bpmax(), 8),
    ...                strand_band(codes, FoldParams.bpmax(), 8, dense=True))
    True
    >>> np.array_equal(strand_band(codes, FoldParams.bpmax(), 17),      # the whole triangle
    ...                strand_band(codes, FoldParams.bpmax(), 17, dense=True))
    True
    """
    n = codes.shape[0]
    width = min(int(width), n)
    if (width < n or n <= SMALL_STRAND) and not dense:
        return fold_band(codes, fold_params, width)
    table = single_strand_table(codes, fold_params, threads)
    if width == n:  # the whole triangle: shift each row left in place (no second n x n array)
        for i in range(1, n):
            table[i, :n - i] = table[i, i:]
            table[i, n - i:] = 0
        return table
    return band_of_dense(table, width)


def band_bytes(n: int, width: int) -> int:
    """Bytes of the band of a strand of ``n`` bases (the dense table's when the band is the whole
    triangle: fold_table's n x n int32).

    >>> band_bytes(10_000, 129), band_bytes(100, 100)
    (5160000, 40000)
    """
    width = min(width, n)
    return 4 * n * (n if width == n else width)


def window_folds(band: np.ndarray, length: int) -> np.ndarray:
    """S(i, i + length - 1) for every window start i = 0 .. n - length (int64); 0 for every window of
    an empty strand's (``length`` 0: the one empty window, which folds to nothing).

    >>> window_folds(np.array([[0, 2, 5], [0, 1, 0], [0, 0, 0]]), 2).tolist()
    [2, 1]
    >>> window_folds(np.zeros((0, 0), dtype=np.int32), 0).tolist()
    [0]
    """
    n = band.shape[0]
    if length == 0:
        return np.zeros(n + 1, dtype=np.int64)
    return band[np.arange(n - length + 1), length - 1].astype(np.int64)


def sub_band(band: np.ndarray, start: int, length: int) -> np.ndarray:
    """The whole-triangle band (length, length) of the sub-strand [start, start + length), for a
    fill of that window alone (``length`` at most the band's width).

    >>> sub_band(np.array([[1, 2], [3, 4], [5, 0]]), 1, 2).tolist()
    [[3, 4], [5, 0]]
    """
    out = np.array(band[start:start + length, :length], dtype=np.int32)
    for i in range(1, length):
        out[i, length - i:] = 0
    return out


def dense_of_band(band: np.ndarray, start: int = 0, length: "int | None" = None) -> np.ndarray:
    """The dense (length, length) upper-triangular table of the intervals inside [start, start + length)
    that the band holds (0 elsewhere), for the traceback and the recurrence as written.

    >>> dense_of_band(np.array([[1, 2], [3, 4], [5, 0]])).tolist()
    [[1, 2, 0], [0, 3, 4], [0, 0, 5]]
    """
    length = band.shape[0] - start if length is None else length
    width = min(band.shape[1], length)
    out = np.zeros((length, length), dtype=np.int32)
    for i in range(length):
        m = min(width, length - i)
        out[i, i:i + m] = band[start + i, :m]
    return out
