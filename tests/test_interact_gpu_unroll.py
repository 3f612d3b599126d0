"""BPMax on the GPU, finish_form 7 (issue 29, helper bpmaxunroll): bpmax_finish_roles with form 6's loops on
compile-time offsets (the bulk's next-group splits 4 at a time, the first phase's last G - 1 splits unrolled where the
group lies whole in the band and the segment, the tails' passes from two bases a group with an INSIDE copy): the same
splits of the same cells, so equal to the CPU cell by cell on random pairs, and to form 6's device tables (the
default until stop 57, form 7 since) on the production band (where the unrolled copies run for most rows), on short
windows and across streamed pieces (where the bounds' copies run too).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: form 6 (the default before stop 57: the default's tables, form 7's since then, must equal it), form 7 with 4-diagonal
#: groups, and with 1,024 threads a block
SETTINGS = (dict(finish_form=6), dict(finish_form=7, finish_diagonals=4), dict(finish_form=7, finish_bound=1024))
#: the tests' 8-row segments: every G the kernel takes (G = 2 and 3: the bulk's 4-split loop with a rest)
SMALL = tuple(dict(finish_form=7, segment_rows=8, finish_diagonals=g) for g in (8, 4, 2, 3))


def test_unrolled_finish_equals_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + SMALL])


def test_unrolled_finish_equals_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 33)


def test_unrolled_finish_equals_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS + SMALL[2:], 34)
