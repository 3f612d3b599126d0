"""BPMax on the GPU, pairs_stage 4 at the launch sizes of issue 29's helper bpmaxreg (call 2): 64-row tiles (4 blocks
of 256 threads an SM) and fewer stages a k1 (chunk 136 at 8 blocks, 168 at 7; 96 at 7), equal to the CPU cell by cell on
random pairs, and to the default's device tables on the production band, on short windows and across streamed pieces.
(Call 1's bpmax_products_wide, 4 x 8 cells a thread, was reverted: commit 9801e52 has it and its tests.)

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: the settings of bench/bpmax_gpu_sizes.py's rows 67-70
SETTINGS = (dict(split_rows=64, pairs_blocks=4), dict(split_chunk=136), dict(split_chunk=168, pairs_blocks=7),
            dict(pairs_blocks=7))


def test_settings_equal_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS])


def test_settings_equal_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 43)


def test_settings_equal_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS, 44)
