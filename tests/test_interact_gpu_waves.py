"""BPMax on the GPU, the finish's segments sized per level to fill whole waves (issue 29, helper bpmaxwave;
``BPMaxSizes.segment_fit``): equal to the CPU cell by cell on random pairs, and to the default's device tables on the
production band, on short windows and across streamed pieces (the finish's values do not depend on the segments).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: the settings of bench/bpmax_gpu_sizes.py's rows 71-74 (74: the largest segments at every level, the default before)
SETTINGS = (dict(segment_fit=224), dict(segment_rows=224, segment_fit=0), dict(segment_rows=152, segment_fit=0),
            dict(segment_fit=0))
#: the fit at short segments (at most 8 and 40 rows: a level's segments 1 to 8 rows on the random pairs' targets of a
#: few dozen bases), with 4-diagonal groups and with the older finish (bpmax_finish_packed, form 4)
SMALL = (dict(segment_fit=224, segment_rows=8, finish_diagonals=4), dict(segment_fit=1, segment_rows=8),
         dict(segment_fit=224, segment_rows=8, finish_form=4), dict(segment_fit=224, segment_rows=40))


def test_fitted_segments_equal_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + SMALL])


def test_fitted_segments_equal_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 29)


def test_fitted_segments_equal_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS, 30)
