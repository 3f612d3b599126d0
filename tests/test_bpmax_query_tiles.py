"""The register-tiled triangle product of the query-inner BPMax order (tests/bpmax_query_tiles.py) issues
64 (b - a) + 16 terms a tile (20 on the diagonal), 2,600 in all for 24 x 24 extended operands, each output's terms
exactly once, and equals tests/bpmax_query_inner.py's triangle_product at every output (and, in its place, gives
the recurrence's whole table); its warp assignment is a partition of the 21 tiles no assignment beats."""
import doctest
import random
from collections import Counter

import numpy as np
import pytest

import bpmax_query_tiles
from bioaccel.interact import InteractParams
from bpmax_query_inner import NEG, triangle_product
from bpmax_query_tiles import TILE, balanced_warps, tile_terms, tiled_triangle_product, tiles
from test_bpmax_query_inner import WEIGHTS, both_fills, random_triangles

N = 24   # the extended index of a 23-nt query


def test_issued_terms_per_tile_and_in_all():
    terms = []
    tiled_triangle_product(*random_triangles(np.random.default_rng(0), N), terms)
    per_tile = Counter((i // TILE, j // TILE) for i, _, j in terms)
    assert sorted(per_tile) == tiles(N) and len(per_tile) == 21
    assert all(count == (64 * (b - a) + 16 if a < b else 20) for (a, b), count in per_tile.items())
    assert len(terms) == 2600 == len(set(terms))


def test_each_output_gets_its_terms_once_and_nothing_else():
    """Every (i, m, j') with i <= m <= j', j' > i, i <= 22, issued once; beyond them only m = i = j' (the diagonal
    tiles' cells j' = i, 24 of them)."""
    issued = [term for tile in tiles(N) for term in tile_terms(*tile)]
    outputs = {(i, m, j) for i in range(N - 1) for j in range(i + 1, N) for m in range(i, j + 1)}
    extra = set(issued) - outputs
    assert len(issued) == len(set(issued)) and outputs <= set(issued)
    assert extra == {(i, i, i) for i in range(N)}


@pytest.mark.parametrize("seed", range(4))
def test_tiled_equals_the_triangle_product(seed):
    L, R = random_triangles(np.random.default_rng(seed), N)
    if seed % 2:   # query windows: NEG inside the triangles too, past the window
        window = np.triu(np.ones((N, N), dtype=bool), 9 + seed)
        L[window], R[window] = NEG, NEG
    tiled, plain = tiled_triangle_product(L, R), triangle_product(L, R)
    outputs = np.triu(np.ones((N, N), dtype=bool), 1)
    assert np.array_equal(tiled[outputs], plain[outputs])
    assert (tiled[outputs] != NEG).sum() > 100   # the cases are not all sentinels


@pytest.mark.parametrize("seed", range(3))
def test_the_recurrence_with_tiled_products_equals_the_dense_reference(seed):
    """Queries of 3, 7 and 11 nt (extended operands of 4, 8, 12: whole tiles) against targets of 0 to 9 nt, with and
    without windows, both weight sets: fill_query_inner with the tiled products equals fill_naive cell by cell."""
    rng = random.Random(seed)
    for M in (3, 7, 11):
        for _ in range(4):
            a, b = (''.join(rng.choice("ACGU") for _ in range(n)) for n in (M, rng.randint(0, 9)))
            au, gu = rng.choice(WEIGHTS)
            windows = [rng.choice([None, rng.randint(1, 8)]) for _ in range(2)]
            params = InteractParams(au=au, gu=gu, window_query=windows[0], window_target=windows[1])
            tiled, naive = both_fills(a, b, params, tiled_triangle_product)
            assert np.array_equal(tiled, naive), (a, b, windows)


def fits(weights: list, n_warps: int, capacity: int) -> bool:
    """Whether the tiles' issued terms (decreasing) fit n_warps warps of ``capacity``: a plain depth-first search,
    independent of balanced_warps' packing by tile kinds (a tile tried once on warps of equal load)."""
    loads = [0] * n_warps

    def place(k: int) -> bool:
        if k == len(weights):
            return True
        if sum(weights[k:]) > sum(capacity - load for load in loads):
            return False
        tried = set()
        for warp, load in enumerate(loads):
            if load + weights[k] <= capacity and load not in tried:
                tried.add(load)
                loads[warp] += weights[k]
                if place(k + 1):
                    return True
                loads[warp] -= weights[k]
        return False

    return place(0)


@pytest.mark.parametrize("n_warps", [1, 2, 3, 5, 6, 7, 8, 21])
def test_balanced_warps_is_a_partition_that_no_assignment_beats(n_warps):
    warps = balanced_warps(n_warps)
    assert len(warps) == n_warps and sorted(tile for warp in warps for tile in warp) == tiles(N)
    weights = sorted((len(tile_terms(*tile)) for tile in tiles(N)), reverse=True)
    largest = max(sum(len(tile_terms(*tile)) for tile in warp) for warp in warps)
    assert fits(weights, n_warps, largest) and not fits(weights, n_warps, largest - 1)


def test_doctests():
    assert doctest.testmod(bpmax_query_tiles).failed == 0


@pytest.mark.parametrize("seed", range(6))
def test_balanced_lanes_equal_the_triangle_product(seed):
    """The chain's balanced lanes (untrimmed blocks, int16 sums, a partner's maximum) give triangle_product at every
    output i < j' <= M of vectors in the device's layout (NEG16 below the diagonal and past M), for M of 3 to 23."""
    from bpmax_query_tiles import balanced_lane_product, lane_spans

    rng = np.random.default_rng(seed)
    M = int(rng.integers(3, 24))
    spans = lane_spans()
    assert sorted((a, b, q) for a, b, q0, n, _ in spans for q in range(q0, q0 + n)) == sorted(
        (a, b, q) for a, b in tiles(N) for q in range(a, b + 1))     # every block of every tile once
    ops = []
    for _ in range(2):
        V = np.triu(rng.integers(0, 4000, size=(N, N)))
        V[np.tril_indices(N, -1)] = -16384
        V[M + 1:, :] = -16384
        V[:, M + 1:] = -16384
        ops.append(V)
    want = triangle_product(*ops)
    got = balanced_lane_product(*ops)
    x, y = np.triu_indices(M + 1, 1)
    assert np.array_equal(got[x, y], want[x, y])
    assert (want[x, y] >= 0).all() and len(np.unique(want[x, y])) > 10
