"""The offset encoding of the GPU's tiled table (int16 cells over an int32 base per tile, for sequences
whose scores pass int16), checked on the CPU: no GPU needed.

:func:`offset_fill` does, tile by tile and in NumPy's 16-bit wrapping arithmetic, what
kernels/nussinov_tiled.cu does (bulk_tile's frames and skipped products, finish_tile's frame R and
renormalisation), and asserts at every step the bounds its comments claim (every int16 value where
the kernel keeps it, no wrap in a max). Its table must equal the CPU's on random and adversarial
sequences, including weights at the edge of what :func:`cell_encoding` allows.
"""
import math

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.fold import FoldParams
from bioaccel.fold._gpu_tiled import INT16_MAX, cell_encoding, skip_below
from bioaccel.fold._dense_cpu import fill_naive

POISON = -1


def _wrap16(x):
    return ((np.asarray(x, dtype=np.int64) + 32768) % 65536 - 32768).astype(np.int64)


def offset_fill(codes, params, T, skip=None):
    """The table V(i, c) (dense, (n+1) x (n+1), int64) as the offset-encoded GPU fill computes it, and
    the number of products skipped."""
    n = len(codes)
    N = n + 1
    nt = math.ceil(N / T)
    pairs = params.pair_table()
    w = int(pairs.max())
    skip = skip_below(params, T) if skip is None else skip
    padded = np.full(nt * T, 4, dtype=np.int64)
    padded[:n] = codes
    stored, base = {}, {}                      # (I, J) -> T x T int64 (int16 values), int
    skipped = 0

    def absolute(i, c):                        # V(i, c) of a finished tile
        if c - i <= 1:
            return 0
        return int(stored[i // T, c // T][i % T, c % T]) + base[i // T, c // T]

    for d in range(nt):
        for I in range(nt - d):
            J = I + d
            R = base[I + 1, J - 1] if d >= 2 else 0
            acc = np.zeros((T, T), dtype=np.int64)         # frame R + frame
            frame = 0
            for K in range(I + 1, J):
                off = base[I, K] + base[K, J] - R
                assert off <= 2 * T * w
                if off < skip:
                    skipped += 1
                    continue
                acc = _wrap16(acc + (frame - off))
                frame = off
                A, B = stored[I, K], stored[K, J]
                sums = (A[:, :, None] + B[None, :, :]).max(axis=1)
                assert sums.max() <= INT16_MAX and sums.min() >= -32768   # the DPX add does not wrap
                acc = np.maximum(acc, sums)
            acc = _wrap16(acc + frame)
            X = acc.copy()                                   # frame R from here
            rows, cols = np.arange(T) + I * T, np.arange(T) + J * T
            for diff in range(1 if d == 0 else -(T - 1), T):
                for r in range(T):
                    q = r + diff
                    i, c = rows[r], (cols[q] if 0 <= q < T else -1)
                    if not (0 <= q < T and c < N and i < N and c > i):
                        continue
                    best = 0 if d == 0 else max(0, int(X[r, q]))
                    if d == 0:
                        for m in range(r + 1, q):
                            best = max(best, X[r, m] + X[m, q])
                    else:
                        A, B = stored[I, I], stored[J, J]
                        for m in range(r + 1, T):
                            best = max(best, A[r, m] + X[m, q])
                        for m in range(q):
                            best = max(best, X[r, m] + B[m, q])
                    wt = pairs[padded[i], padded[c - 1]] if (c - 1) - i - 1 >= params.min_loop else 0
                    if wt > 0:
                        if c - i <= 3:
                            inner = -R
                        elif r + 1 < T and q >= 1:
                            inner = X[r + 1, q - 1]
                        else:
                            inner = absolute(i + 1, c - 1) - R
                        best = max(best, inner + wt)
                    assert 0 <= best <= 4 * T * w, (I, J, r, q, best)
                    X[r, q] = best
            low = 0 if d == 0 else int(X[T - 1, 0])
            valid = (rows[:, None] < N) & (cols[None, :] < N) & (cols[None, :] > rows[:, None])
            tile = np.where(valid, X - low, POISON)
            if d > 0:
                assert tile[valid].min() >= 0 and tile[valid].max() <= 2 * (T - 1) * w
            stored[I, J], base[I, J] = tile, R + low
    V = np.zeros((N, N), dtype=np.int64)
    for i in range(N):
        for c in range(i + 2, N):
            V[i, c] = absolute(i, c)
    return V, skipped


def _half_open(codes, params):
    n = len(codes)
    V = np.zeros((n + 1, n + 1), dtype=np.int64)
    if n:
        V[:n, 1:] = np.triu(fill_naive(codes, params.pair_table(), params.min_loop))
    return np.triu(V, k=2)


def _cases():
    rng = np.random.default_rng(14)
    random = ["".join(rng.choice(list("ACGUN"), n)) for n in (0, 1, 2, 7, 8, 9, 40, 77, 100)]
    helix = "G" * 30 + "".join(rng.choice(list("ACGU"), 20)) + "C" * 30          # far-apart halves pair
    nested = ("GGGGAAAACCCC" * 4 + "A" * 10) * 2
    return random + [helix, nested, "A" * 50 + "U" * 50]


@pytest.mark.parametrize("params", [FoldParams(), FoldParams(min_loop=0), FoldParams.bpmax(),
                                    FoldParams(min_loop=1, au=2, gc=3, gu=0)], ids=["default", "min_loop 0",
                                                                                    "bpmax", "weighted"])
@pytest.mark.parametrize("T", [4, 8])
def test_offset_fill_equals_cpu(params, T):
    for seq in _cases():
        codes = encode(seq)
        got, _ = offset_fill(codes, params, T)
        assert np.array_equal(np.triu(got, k=2), _half_open(codes, params)), seq


def test_skipped_products_and_largest_weight():
    """A helix whose two halves lie in far tiles makes products of far-below sums: with the tightest
    valid threshold (-(4 T w)) some are skipped, and the table stays exact; weights at the largest
    that the encoding allows keep every value inside int16."""
    T = 4
    seq = "G" * 40 + "A" * 8 + "C" * 40
    codes = encode(seq)
    params = FoldParams()
    got, skipped = offset_fill(codes, params, T, skip=-4 * T * int(params.pair_table().max()))
    assert skipped > 0
    assert np.array_equal(np.triu(got, k=2), _half_open(codes, params))
    T = 8
    heavy = FoldParams(gc=INT16_MAX // (8 * T), au=1, gu=0)        # 8 T w <= 32767, just
    assert cell_encoding(100_000, heavy, T) == "offset"
    assert cell_encoding(100_000, FoldParams(gc=INT16_MAX // (8 * T) + 1), T) == "int32"
    got, _ = offset_fill(codes, heavy, T)
    assert np.array_equal(np.triu(got, k=2), _half_open(codes, heavy))


def test_encoding_choice():
    assert cell_encoding(65_000, FoldParams(), 128) == "int16"
    assert cell_encoding(100_000, FoldParams(), 128) == "offset"
    assert cell_encoding(20_000, FoldParams.bpmax(), 128) == "offset"       # GC = 6 half-units
    assert cell_encoding(20_000, FoldParams(gc=40), 128) == "int32"
