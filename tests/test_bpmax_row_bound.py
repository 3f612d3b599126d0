"""bench/bpmax_row_bound.py: its terms are the recurrence's work split by term, its halo factor the finish
segments' recomputed cells, its measured phases add up to the run's end to end."""
import doctest
import pathlib

import pytest

from bench_module import bench_module
from bioaccel.interact._model import work

ROOT = pathlib.Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bound():
    return bench_module("bpmax_row_bound")


@pytest.mark.parametrize("M, N, L1, L2", [(23, 20000, 23, 129), (5, 9, 5, 9), (7, 30, 3, 4)])
def test_terms_add_up_to_the_work(bound, M, N, L1, L2):
    assert sum(bound.terms(M, N, L1, L2).values()) * 2 == work(M, N, L1, L2)


def test_terms_against_a_count_cell_by_cell(bound):
    M, N, L1, L2 = 6, 11, 4, 5
    count = {"D": 0, "R3/R4": 0, "R1/R2": 0}
    for l1 in range(1, L1 + 1):
        for l2 in range(1, L2 + 1):
            cells = (M - l1 + 1) * (N - l2 + 1)
            count["D"] += cells * (l1 - 1) * (l2 - 1)
            count["R3/R4"] += cells * 2 * (l1 - 1)
            count["R1/R2"] += cells * 2 * (l2 - 1)
    assert bound.terms(M, N, L1, L2) == count


def test_the_halo_factor(bound):
    # a block of exactly one band's rows owns one row: all its other cells are the next segment's
    rows, band = 9, 4
    owned = sum(2 * e for e in range(band))
    done = sum(2 * e for r in range(rows) for e in range(band) if r + e < rows)
    assert bound.halo_factor(rows, band) == done / ((rows - band + 1) * owned)
    assert 1.0 < bound.halo_factor(416, 129) < 1.2


def test_the_measured_phases_and_the_doctests(bound, monkeypatch):
    monkeypatch.chdir(ROOT)
    m = bound.measured("docs/results/stop58_timeline/timeline.json")
    assert 0 < m["outside_s"] < m["finish_s"] < m["products_s"] < m["end_to_end_s"]
    assert doctest.testmod(bound).failed == 0
