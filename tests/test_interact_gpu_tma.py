"""BPMax on the GPU, pairs_stage 5 (issue 29, helper bpmaxtma): the products' stages as bulk copies (cp.async.bulk,
Hopper's TMA) issued by one warp's lanes onto an mbarrier (kernels/bpmax.cu, bulk_stage): each of a stage's A rows
and B's pair rows one contiguous run, its edges sentinels. The same staged words as pairs_stage 4, so equal to the
CPU cell by cell on random pairs (the production's 128-thread tiles, the tests' 16- and 64-thread ones: a lane of
the issuing warp owning one row, several or none), and to the default's (pairs_stage 4's) device tables on the
production band, on short windows and across streamed pieces (rows and pair rows at the band's and the target's
edges, where the runs are cut and sentinels stored).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
from dataclasses import replace

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: bench/bpmax_gpu_sizes.py's row 78 (the default with pairs_stage 5), chunk 64, 64-row tiles (256 threads: a lane
#: owns two A rows)
SETTINGS = (dict(pairs_stage=5), dict(pairs_stage=5, split_chunk=64),
            dict(pairs_stage=5, split_rows=64, pairs_blocks=4))


def test_bulk_stages_equal_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """pairs_stage 5 at the production tiles and at the tests' small ones (8 x 16 tiles of 16 threads: stages of
    one group and of two; 16 x 32 tiles of 64 threads, chunk 32)."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, products_parts=2, pairs_step=2, pairs_stage=5)
    _equal_tiled_cell_by_cell("fused", (
        *[BPMaxSizes(**change) for change in SETTINGS],
        *[replace(small, split_chunk=chunk) for chunk in (8, 16)],
        replace(small, split_rows=16, split_cols=32, split_chunk=32)))


def test_bulk_stages_equal_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 51)


def test_bulk_stages_equal_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS[:2], 52)
