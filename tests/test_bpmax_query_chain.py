"""The query-inner chain by pushes (tests/bpmax_query_chain.py): the whole fill by tiles, bulk then pushes, equals
fill_naive cell by cell on random pairs and tile sizes; the schedule applies every own split of a tile exactly once,
never before its operands are final, and its counts are bench/bpmax_query_inner_model.py's."""
import doctest
import random
from collections import Counter

import numpy as np
import pytest

import bpmax_query_chain
from bench_module import bench_module
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import InteractParams
from bioaccel.interact._naive import fill_naive
from bioaccel.interact._strands import single_strand_table
from bpmax_query_chain import fill_query_chain, own_operands, own_splits, tile_cells, tile_schedule
from test_interact import WEIGHTS

split_counts = bench_module("bpmax_query_inner_model").split_counts


def problem(a: str, b: str, params: InteractParams) -> tuple:
    """fill_naive's arguments for query ``a`` and target ``b``."""
    ca, crb = encode(a), np.ascontiguousarray(encode(b)[::-1])
    S1, S2 = single_strand_table(ca, params.fold_params), single_strand_table(crb, params.fold_params)
    return (ca, crb, params.pair_table(), S1, S2, *params.spans(len(a), len(b)))


def random_cases(count: int, seed: int) -> list:
    """Seeded (query, target, params, T): queries 0 to 9 nt, targets 0 to 40, windows None or 1 to 16 on the
    target (1 to 8 on the query), both weight sets, tiles of 2, 4 and 8."""
    rng = random.Random(seed)
    cases = []
    for _ in range(count):
        a = "".join(rng.choice("ACGU") for _ in range(rng.randint(0, 9)))
        b = "".join(rng.choice("ACGU") for _ in range(rng.randint(0, 40)))
        au, gu = rng.choice(WEIGHTS)
        params = InteractParams(au=au, gu=gu, window_query=rng.choice([None, rng.randint(1, 8)]),
                                window_target=rng.choice([None, rng.randint(1, 16)]))
        cases.append((a, b, params, rng.choice([2, 4, 8])))
    return cases


def check_log(log: list, N: int, L2: int, T: int) -> None:
    """Every split (i2, j2, k2) of the band applied exactly once; by the chain exactly where it reads the cell's
    own tile (k2 < T I + T - 1 or k2 >= T J), else by the bulk."""
    applied = Counter((i2, j2, k2) for _, i2, j2, k2 in log)
    expected = {(i2, i2 + e, k2) for e in range(min(L2, N)) for i2 in range(N - e) for k2 in range(i2, i2 + e)}
    assert set(applied) == expected and set(applied.values()) <= {1}
    for part, i2, j2, k2 in log:
        I, J = i2 // T, j2 // T
        assert part == ("chain" if k2 < T * I + T - 1 or k2 >= T * J else "bulk"), (part, i2, j2, k2, T)


@pytest.mark.parametrize("a, b, params, T", random_cases(40, 29))
def test_the_fill_by_pushes_equals_the_dense_reference_cell_by_cell(a, b, params, T):
    args = problem(a, b, params)
    log = []
    chain, naive = fill_query_chain(*args, T=T, log=log), fill_naive(*args)
    differ = np.argwhere(chain != naive)
    assert chain.shape == naive.shape and differ.size == 0, (a, b, args[-2:], T, differ[:3])
    check_log(log, len(b), args[-1], T)


def test_a_long_pair_with_windows_takes_many_values():
    # 9 x 40 nt, target window 20 and query window 6 (spans 21 and 7), tiles of 4: the values are not trivial,
    # cells past the windows stay 0, and the chain holds a good part of the splits
    rng = random.Random(7)
    a, b = ("".join(rng.choice("ACGU") for _ in range(n)) for n in (9, 40))
    args = problem(a, b, InteractParams(au=2, gu=1, window_query=6, window_target=20))
    log = []
    chain = fill_query_chain(*args, T=4, log=log)
    assert np.array_equal(chain, fill_naive(*args))
    assert len(np.unique(chain)) > 15 and not chain[0, 7:].any() and not chain[:, :, 0, 21:].any()
    assert 0.25 < sum(part == "chain" for part, *_ in log) / len(log) < 0.75


def tile_kinds() -> list:
    """(delta, T, cells) of tiles cut every way: diagonal and not, whole, past the band's edge, past the target end."""
    kinds = []
    for T in (2, 4, 8):
        for delta in range(4):
            for L2 in (1, 3, T, T + 1, 2 * T + 3, 100):
                for N in (T * (delta + 1) - T + 1, T * (delta + 1) - 1, 100):
                    cells = tile_cells(0, delta, T, N, L2)
                    if cells:
                        kinds.append((delta, T, cells))
    return kinds


@pytest.mark.parametrize("delta, T, cells", tile_kinds())
def test_the_schedule_pushes_every_own_split_once_from_final_cells(delta, T, cells):
    steps = tile_schedule(delta, T, cells)
    closed = {cell: s for s, step in enumerate(steps) for cell in step.close}
    assert sorted(closed) == sorted(cells) and sum(len(step.close) for step in steps) == len(cells)
    pushed = Counter((push.target, push.k) for step in steps for push in step.pushes)
    assert set(pushed.values()) <= {1}
    assert set(pushed) == {(cell, k) for cell in cells for k in own_splits(cell, delta, T)}
    for s, step in enumerate(steps):
        for push in step.pushes:
            A, B = own_operands(push.target, push.k, delta, T)
            assert push.source == (A if push.role == "A" else B) and closed[push.source] == s
            assert all(closed[op] <= s for op in (A, B) if op is not None)   # its operands are final
            assert closed[push.target] > s                                   # the target is still open
        assert all(not step.pushes or step.close for step in steps)


@pytest.mark.parametrize("T", [2, 4, 8])
def test_a_whole_tile_closes_on_its_anti_diagonals_with_at_most_two_pushes_into_a_cell_a_step(T):
    for delta in (0, 1, 3):
        steps = tile_schedule(delta, T, tile_cells(5, 5 + delta, T, 1000, 1000))
        assert len(steps) == (2 * T - 1 if delta else T)
        for s, step in enumerate(steps):
            assert all((T - 1 - u + v if delta else v - u) == s for u, v in step.close)
            into = Counter(push.target for push in step.pushes)
            assert max(into.values(), default=0) <= 2
        assert sum(len(step.pushes) for step in steps) == (T * T * (T - 1) if delta else T * (T * T - 1) // 6)


@pytest.mark.parametrize("T, band", [(2, 5), (4, 12), (8, 20), (8, 129)])
def test_the_pushes_of_a_tile_row_are_the_models_chain_splits(T, band):
    # the tiles of one tile row, every delta up to the band's edge: their pushes are split_counts' chain splits
    # (a row's mean over the tile's T rows)
    pushes = sum(len(step.pushes) for delta in range(band // T + 2)
                 for step in tile_schedule(delta, T, tile_cells(0, delta, T, 10 ** 6, band)))
    assert pushes == T * split_counts(T, band)["chain"]


def test_the_fills_chain_splits_a_tile_row_are_the_models():
    rng = random.Random(3)
    a, b = ("".join(rng.choice("ACGU") for _ in range(n)) for n in (3, 40))
    args = problem(a, b, InteractParams(window_target=12))
    log = []
    fill_query_chain(*args, T=4, log=log)
    chain = sum(part == "chain" and 8 <= i2 < 12 for part, i2, _, _ in log)
    bulk = sum(part == "bulk" and 8 <= i2 < 12 for part, i2, _, _ in log)
    counts = split_counts(4, args[-1])     # the band: L2 = 13
    assert (chain, bulk) == (4 * counts["chain"], 4 * counts["bulk"])


def test_a_push_run_before_its_source_closes_is_caught():
    def early(delta: int, T: int, cells: list) -> list:   # step 1's pushes moved into step 0
        steps = tile_schedule(delta, T, cells)
        if len(steps) > 1 and steps[1].pushes:
            steps[0] = steps[0]._replace(pushes=steps[0].pushes + steps[1].pushes)
            steps[1] = steps[1]._replace(pushes=[])
        return steps

    args = problem("GGCAU", "GGGAAACCCAUGC", InteractParams())
    with pytest.raises(AssertionError, match="not final"):
        fill_query_chain(*args, T=4, schedule=early)


def test_a_dropped_push_is_caught():
    def dropped(delta: int, T: int, cells: list) -> list:
        steps = tile_schedule(delta, T, cells)
        if steps[0].pushes:
            steps[0] = steps[0]._replace(pushes=steps[0].pushes[1:])
        return steps

    args = problem("GGCAU", "GGGAAACCCAUGC", InteractParams())
    log = []
    fill_query_chain(*args, T=4, schedule=dropped, log=log)
    with pytest.raises(AssertionError):
        check_log(log, 13, args[-1], 4)


@pytest.mark.parametrize("T, band", [(8, 129), (4, 21), (8, 20)])
def test_the_counts_each_way(T, band):
    # bench/bpmax_query_chain_counts.py: both ways close the same cells a step and run the same own splits; the
    # pushes' rounds on 8 warps lie between their lower bounds and the pull's
    counts = bench_module("bpmax_query_chain_counts")
    for _, delta in counts.tile_kinds(T, band):
        rows = counts.step_counts(delta, T, band, 8)
        own = sum(row["pushes"] for row in rows)
        assert own == sum(row["pull_splits"] for row in rows)
        # a cell closing at step s + 1 took its last pushes (one or two) at step s
        assert all(after["closes"] <= row["urgent"] <= 2 * after["closes"] for row, after in zip(rows, rows[1:]))
        assert all(row["push_max"] <= 2 for row in rows)
        pushed = sum(row["push_rounds"] for row in rows)
        assert -(-own // 8) <= counts.deferred_rounds(delta, T, band, 8)[0] <= pushed
        assert sum(row["push_max"] for row in rows) <= pushed <= sum(row["pull_rounds"] for row in rows)


def test_doctests():
    assert doctest.testmod(bpmax_query_chain).failed == 0
    assert doctest.testmod(bench_module("bpmax_query_chain_counts")).failed == 0
