"""BPMax on the GPU, the segment finish compiled for at most 896 threads a block (``BPMaxSizes.finish_bound``, the
default: bpmax_finish_roles<G, FORM, 896>, 72 registers without spill) or 1,024 (64 registers and a spill): equal to the
CPU cell by cell on random pairs, and to the default's device tables on the production band (416 rows of segment and
halo, under the bound's 448), on short windows and across streamed pieces.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: bench/bpmax_gpu_sizes.py's rows 75 (896, the default since stop 54) and 76 (1,024, the default before), with the
#: 4-diagonal groups and the segments of at most 8 rows beside them
SETTINGS = (dict(finish_bound=896), dict(finish_bound=1024), dict(finish_bound=896, finish_diagonals=4))
SMALL = (dict(finish_bound=896, segment_rows=8), dict(finish_bound=896, finish_form=5),
         dict(finish_bound=1024, segment_rows=8))


def test_bounded_finish_equals_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + SMALL])


def test_bounded_finish_equals_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 31)


def test_bounded_finish_equals_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS, 32)
