"""The register-tiled form of the query-inner triangle product (issue 29; tests/bpmax_query_inner.py's
``triangle_product``), in plain Python, so that a kernel's loop structure is proven before the device.

The n x n extended operands (n = M + 1 = 24 for a 23-nt query) are cut into 4 x 4 output tiles (a, b), a <= b: rows
i in [4a, 4a + 4), columns j' in [4b, 4b + 4), one thread's registers. A tile's m loop runs [4a, 4b + 4) in three
parts, each term L[i][m] + R[m][j'] issued only where i <= m <= j':
- the ROW EDGE m = 4a + s (s = 0..3): rows r = i - 4a <= s only, all four columns;
- the MIDDLE m in [4a + 4, 4b): all 16 cells;
- the COLUMN EDGE m = 4b + s: columns c = j' - 4b >= s only, all four rows.
A diagonal tile (a == b) has only m = 4a + s, rows r <= s and columns c >= s. Issued terms: 64 (b - a) + 16 a tile
for a < b, 20 for a == b (its 4 cells j' = i among them, which are no output), 2,600 in all for n = 24 against the
2,576 of the outputs.
"""
from functools import lru_cache
from math import gcd

import numpy as np

from bpmax_query_inner import NEG

TILE = 4


def tiles(n: int) -> list:
    """The output tiles (a, b), a <= b, of an n x n extended triangle, by tile row.

    >>> len(tiles(24)), tiles(8)
    (21, [(0, 0), (0, 1), (1, 1)])
    """
    count = n // TILE
    return [(a, b) for a in range(count) for b in range(a, count)]


def tile_terms(a: int, b: int) -> list:
    """The terms (i, m, j') tile (a, b) issues, in the kernel's order: row edge, middle, column edge (a < b), or the
    diagonal tile's single part (a == b).

    >>> len(tile_terms(0, 0)), len(tile_terms(0, 1)), len(tile_terms(1, 5))
    (20, 80, 272)
    """
    row0, col0 = TILE * a, TILE * b
    if a == b:
        return [(row0 + r, row0 + s, col0 + c) for s in range(TILE) for r in range(s + 1) for c in range(s, TILE)]
    row_edge = [(row0 + r, row0 + s, col0 + c) for s in range(TILE) for r in range(s + 1) for c in range(TILE)]
    middle = [(row0 + r, m, col0 + c) for m in range(row0 + TILE, col0) for r in range(TILE) for c in range(TILE)]
    column_edge = [(row0 + r, col0 + s, col0 + c) for s in range(TILE) for r in range(TILE) for c in range(s, TILE)]
    return row_edge + middle + column_edge


def tiled_triangle_product(L: np.ndarray, R: np.ndarray, terms: "list | None" = None) -> np.ndarray:
    """C of ``triangle_product`` (at every output j' > i, i <= n - 2) as the 4 x 4 register tiles compute it: each
    tile's 16 accumulators start at NEG, take its terms, and are stored whole (the cells j' = i of a diagonal tile
    hold L[i][i] + R[i][i]; its cells below the diagonal NEG). ``terms``, when given, gets each issued (i, m, j').

    >>> L = np.triu(np.arange(64).reshape(8, 8)); R = np.triu(np.ones((8, 8), dtype=int))
    >>> C = tiled_triangle_product(L, R)
    >>> int(C[0, 7]), int(C[2, 5])      # max over m of L[i][m] + 1
    (8, 22)
    """
    n = L.shape[0]
    assert n % TILE == 0, f"{n} x {n} operands are not whole 4 x 4 tiles"
    left, right = L.tolist(), R.tolist()
    C = np.full((n, n), NEG, dtype=np.int64)
    for a, b in tiles(n):
        acc = [[NEG] * TILE for _ in range(TILE)]   # one thread's registers
        for i, m, j in tile_terms(a, b):
            r, c = i - TILE * a, j - TILE * b
            acc[r][c] = max(acc[r][c], left[i][m] + right[m][j])
        if terms is not None:
            terms.extend(tile_terms(a, b))
        C[TILE * a:TILE * a + TILE, TILE * b:TILE * b + TILE] = acc
    return C


def balanced_warps(n_warps: int, n: int = 24) -> list:
    """An assignment of the tiles of an n x n triangle to ``n_warps`` lists (one a warp) minimising the largest sum
    of issued terms: the smallest capacity, in steps of the terms' common divisor, that a packing by tile kinds (the
    tiles of one b - a issue the same count) fits into n_warps warps. Lists by decreasing sum.

    >>> warps = balanced_warps(7)
    >>> [sum(len(tile_terms(*tile)) for tile in warp) for warp in warps]
    [376, 372, 372, 372, 372, 368, 368]
    >>> sorted(tile for warp in warps for tile in warp) == tiles(24)
    True
    """
    issued = {tile: len(tile_terms(*tile)) for tile in tiles(n)}
    kinds = sorted(set(issued.values()), reverse=True)
    counts = tuple(sum(count == kind for count in issued.values()) for kind in kinds)
    step = 0
    for kind in kinds:
        step = gcd(step, kind)
    capacity = max(kinds[0], -(-sum(issued.values()) // n_warps))
    capacity = -(-capacity // step) * step
    while (plan := _packing(kinds, counts, capacity, n_warps)) is None:
        capacity += step
    waiting = {kind: [tile for tile in issued if issued[tile] == kind] for kind in kinds}
    warps = [[waiting[kind].pop(0) for kind, count in zip(kinds, pattern) for _ in range(count)] for pattern in plan]
    warps += [[] for _ in range(n_warps - len(warps))]
    return sorted(warps, key=lambda warp: -sum(issued[tile] for tile in warp))


def _packing(kinds: list, counts: tuple, capacity: int, n_warps: int) -> "list | None":
    """The fewest warps' patterns (tiles of each kind a warp) holding ``counts`` tiles of the ``kinds`` within
    ``capacity`` each, when at most n_warps; else None. Exact: every warp holding the heaviest tile left is tried with
    every pattern that fits (a memoised search over the counts left)."""
    def patterns(left: tuple, first: int) -> list:
        found = [()]
        for kind, count in zip(kinds, left):
            found = [p + (k,) for p in found for k in range(count + 1)]
        return [p for p in found if p[first] and sum(k * kind for k, kind in zip(p, kinds)) <= capacity]

    @lru_cache(maxsize=None)
    def fewest(left: tuple) -> tuple:
        if not any(left):
            return 0, ()
        first = next(index for index, count in enumerate(left) if count)
        best = (len(kinds) * sum(left) + 1, ())
        for pattern in patterns(left, first):
            used, rest = fewest(tuple(c - p for c, p in zip(left, pattern)))
            if used + 1 < best[0]:
                best = (used + 1, (pattern,) + rest)
        return best

    used, plan = fewest(counts)
    return list(plan) if used <= n_warps else None


SPLIT_TILES = [(0, 3), (1, 4), (2, 5), (0, 4), (1, 5), (0, 5)]   # lanes 21 .. 26: the second halves of these


def lane_spans() -> list:
    """The chain's balanced lanes (bench/bpmax_query_inner.cu, lane_span): for each of 32 lanes (a, b, q0, n,
    partner): query tile (a, b), its blocks q0 .. q0 + n - 1 of the m loop, untrimmed, and the lane whose accumulators
    it takes the maximum with at the cell's end. Lane l < 21 holds tile l (block_index order) whole when it is 1 to 3
    blocks long, else its first ceil(L / 2) blocks; lanes 21 .. 26 the rest of SPLIT_TILES; lanes 27 .. 31 nothing.
    At most 3 blocks a lane (the trimmed tile loop: up to 6 and four edge forms the warp runs one after the other).

    >>> spans = lane_spans()
    >>> spans[0], spans[5], spans[26], spans[31]
    ((0, 0, 0, 1, 0), (0, 5, 0, 3, 26), (0, 5, 3, 3, 26), (0, 0, 0, 0, 31))
    >>> sum(n for _, _, _, n, _ in spans), max(n for _, _, _, n, _ in spans)
    (56, 3)
    """
    spans = []
    for a, b in tiles(24):
        L = b - a + 1
        spans.append((a, b, a, (L + 1) // 2 if L >= 4 else L, 21 + SPLIT_TILES.index((a, b)) if L >= 4 else len(spans)))
    for k, (a, b) in enumerate(SPLIT_TILES):
        L = b - a + 1
        spans.append((a, b, a + (L + 1) // 2, L - (L + 1) // 2, 21 + k))
    return spans + [(0, 0, 0, 0, lane) for lane in range(27, 32)]


def balanced_lane_product(L: np.ndarray, R: np.ndarray) -> np.ndarray:
    """The chain's product of two 24 x 24 int16 vectors (NEG16 = -16384 below the diagonal and past the query) as the
    balanced lanes compute it: each lane every term of its blocks (no trimming; a term with a NEG16 operand sums to
    at most -16384 + the other, never above a true term, and two NEG16 to -32768, no wrap), int16 sums wrapped as
    the DPX's; then each lane's maximum with its partner's. Returns the 24 x 24 outputs of lanes 0 .. 20.

    >>> L = np.triu(np.full((24, 24), 5)) + np.tril(np.full((24, 24), -16384), -1)
    >>> C = balanced_lane_product(L, L)
    >>> int(C[0, 23]), int(C[3, 3])
    (10, 10)
    """
    def wrap(x):
        return (x + 32768) % 65536 - 32768

    acc = {}
    for lane, (a, b, q0, n, _) in enumerate(lane_spans()):
        rows, cols = slice(4 * a, 4 * a + 4), slice(4 * b, 4 * b + 4)
        out = np.full((4, 4), -16384, dtype=np.int64)
        for m in range(4 * q0, 4 * (q0 + n)):
            out = np.maximum(out, wrap(L[rows, m][:, None].astype(np.int64) + R[m, cols][None, :]))
        acc[lane] = out
    C = np.full((24, 24), -16384, dtype=np.int64)
    for lane, (a, b, _, _, partner) in enumerate(lane_spans()[:21]):
        C[4 * a:4 * a + 4, 4 * b:4 * b + 4] = np.maximum(acc[lane], acc[partner])
    return C
