"""BPMax on the GPU, finish_form 8 (issue 29, helper bpmaxfin3): bpmax_finish_roles with a bulk thread's two rows at one
absolute split point (row r's split k and row r + 1's split k - 1 share G - 1 of their column words) where a group lies
whole in the band and the segment, form 7's code a row a thread elsewhere: the same splits of the same cells, so equal to
the CPU cell by cell on random pairs, and to the default's (form 7's) device tables on the production band (where the
pairs run for most rows), on short windows and across streamed pieces (where the single rows run too).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: bench/bpmax_gpu_sizes.py's row 79 (form 8 with the default's 8-diagonal groups at 896 threads), 4-diagonal groups,
#: and 1,024 threads a block
SETTINGS = (dict(finish_form=8), dict(finish_form=8, finish_diagonals=4), dict(finish_form=8, finish_bound=1024))
#: the tests' 8-row segments: the even groups form 8 takes (and 3, which runs form 7)
SMALL = tuple(dict(finish_form=8, segment_rows=8, finish_diagonals=g) for g in (8, 4, 2, 3))


def test_row_pairs_finish_equals_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + SMALL])


def test_row_pairs_finish_equals_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 35)


def test_row_pairs_finish_equals_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS + SMALL[2:], 36)
