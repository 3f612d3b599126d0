"""bench/bpmax_query_inner_model.py: its terms are the recurrence's work, and its bulk/chain split of the splits is
the tile rule counted another way (cell by cell, from which tile each split's operands lie in)."""
import pytest

from bench_module import bench_module
from bioaccel.interact._model import work


@pytest.fixture(scope="module")
def model():
    return bench_module("bpmax_query_inner_model")


def test_the_row_terms_are_the_work(model):
    splits, cells = model.target_counts(20000, 129)
    assert splits * model.TERMS_A_SPLIT + cells * model.CLOSURE_TERMS == work(23, 20000, 23, 129) // 2


@pytest.mark.parametrize("T, band", [(8, 129), (4, 21), (8, 5), (3, 17)])
def test_chain_splits_by_their_operands_tiles(model, T, band):
    # rows 0 .. T - 1 of an unbounded target: a split k of cell (i, j) is the chain's when its left operand (i, k) or
    # its right one (k + 1, j) lies in the cell's own tile (i // T, j // T); the bulk's otherwise
    chain = bulk = 0
    for i in range(T):
        for e in range(band):
            j = i + e
            for k in range(i, j):
                own = (i // T, k // T) == (i // T, j // T) or ((k + 1) // T, j // T) == (i // T, j // T)
                chain += own
                bulk += not own
    counts = model.split_counts(T, band)
    assert counts["chain"] * T == chain
    assert counts["bulk"] * T == bulk
    assert counts["all"] * T == chain + bulk
