"""A tiled schedule of the BPMax finish (tests/bpmax_tiled_finish.py) computes the band's closure exactly as the
diagonal order does, on random cells, splits and pair scores, and issues the DPX bench/bpmax_finish_tiled_model.py
counts."""
import random

import pytest

from bench_module import bench_module
from bpmax_tiled_finish import direct, tiled


def random_band(rng, N, W):
    """E, S2 and pair scores of a random band (E and S2 in [0, 8), a pair score of 6, 12 or 20 on a third of the cells:
    large enough that pair terms win some cells)."""
    cells = [(i, j) for i in range(N) for j in range(i, min(i + W, N))]
    E = {c: rng.randrange(8) for c in cells}
    S2 = {c: rng.randrange(8) for c in cells}
    score = {c: rng.choice((6, 12, 20)) for c in cells if rng.random() < 1 / 3}
    return E, S2, score


@pytest.mark.parametrize("N, W, T", [(1, 1, 1), (7, 7, 2), (20, 5, 4), (23, 9, 3), (30, 17, 8), (33, 12, 16),
                                     (40, 40, 8), (45, 13, 5)])
def test_tiled_equals_the_diagonal_order(N, W, T):
    rng = random.Random(N * 1000 + W * 10 + T)
    for _ in range(3):
        E, S2, score = random_band(rng, N, W)
        assert tiled(E, S2, score, N, W, T)[0] == direct(E, S2, score, N, W)


def test_the_cases_exercise_splits_and_pair_terms():
    # the equality above could not fail were the closure E itself or blind to the pair scores
    rng = random.Random(5)
    E, S2, score = random_band(rng, 24, 9)
    F = direct(E, S2, score, 24, 9)
    assert sum(F[c] != E[c] for c in E) > len(E) // 2
    assert direct(E, S2, {}, 24, 9) != F
    assert tiled(E, S2, {}, 24, 9, 4)[0] != F


@pytest.mark.parametrize("T, W", [(4, 9), (8, 17), (8, 30), (16, 40), (3, 7)])
def test_issues_what_the_model_counts(T, W):
    model = bench_module("bpmax_finish_tiled_model")
    N = 2 * T + W   # rows 0 .. 2T - 1 have their whole band
    E, S2, score = random_band(random.Random(1), N, W)
    _, bulk, chain = tiled(E, S2, score, N, W, T)
    counted = model.split_dpx(T, W)
    assert sum(bulk[:2 * T]) / (2 * T) == counted["bulk"] and sum(chain[:2 * T]) / (2 * T) == counted["chain"]
