"""The skewed sub-wavefront schedule of the sub-tiled finish, checked cell by cell in plain Python (issue 29, helper
nbskew; bench/nussinov_skew_model.py): the schedule gives the cells of the finish done in dependency order, and the
checker catches a schedule that reads a cell too early (so that its passing means something)."""
import doctest

import pytest

from bench_module import bench_module


@pytest.fixture(scope="module")
def model():
    return bench_module("nussinov_skew_model")


@pytest.mark.parametrize("schedule", ["now", "skew16", "skew32"])
@pytest.mark.parametrize("side", [2, 4])
def test_schedule_gives_the_cells_of_the_finish_in_order(model, schedule, side):
    for seed in range(2):
        assert model.check(schedule, side, seed)["equal"]


def test_a_lag_of_15_steps_reads_a_cell_before_it_is_stored(model, monkeypatch):
    monkeypatch.setattr(model, "start_step", lambda schedule, G, a, b: 15 * ((G - 1 - a) + b))
    with pytest.raises(AssertionError, match="read before any store"):
        model.check("skew16", 4)


def test_the_left_neighbour_16_steps_ahead_needs_a_barrier_every_step(model, monkeypatch):
    skew16 = model.start_step
    monkeypatch.setattr(model, "start_step", lambda schedule, G, a, b: skew16("skew16", G, a, b))
    with pytest.raises(AssertionError):
        model.check("skew32", 4)                        # barriers only every phase across warps


def test_counts_of_the_batch_tile(model):
    now, skew = model.counts("now", 4), model.counts("skew16", 4)
    assert (now["chain_steps"], skew["chain_steps"]) == (217, 127)
    assert (now["warp_steps"], skew["warp_steps"]) == (496, 316)
    assert skew["products"] * 2 == now["products"]


def test_doctests(model):
    assert doctest.testmod(model).failed == 0


@pytest.mark.parametrize("side", [4, 8])
def test_a_warp_a_sub_tile_column_keeps_every_lane_busy(model, side):
    for b in range(side):
        walks = model.lane_walks(side, b)
        assert len(walks) == 32                          # 16 row lanes and 16 column lanes


@pytest.mark.parametrize("side", [2, 4, 8])
@pytest.mark.parametrize("cap", [0, 1, 3, 10, 100])
def test_the_kernels_ahead_split_does_every_product_block_once_after_its_source(model, side, cap):
    assert model.ahead_cover(side, cap) >= 0


@pytest.mark.parametrize("side", [2, 4, 8])
def test_the_kernels_skew16_lanes_take_the_cells_of_the_checked_schedule(model, side):
    for b in range(side):
        assert model.skew_kernel_walks(side, b) == model.lane_walks(side, b)


@pytest.mark.parametrize("side", [2, 4, 8])
def test_the_kernels_skew16_step_gives_the_cells_of_the_finish_in_order(model, side):
    assert model.skew_kernel_tile(side, seed=side)


@pytest.mark.parametrize("side", [2, 4, 8])
def test_skew16_with_a_warp_waiting_only_for_the_one_left_of_it(model, side):
    """SKEW_FLAGS: the schedule holds when warp b - k's steps are known done only up to step - k (no block barrier)."""
    assert model.check("skew16flags", side, seed=side)["equal"]
