"""BPMax on the GPU, finish_form 7 (issue 29, helper bpmaxunroll): bpmax_finish_roles with form 6's loops on
compile-time offsets (the bulk's next-group splits 4 at a time, the first phase's last G - 1 splits unrolled where the
group lies whole in the band and the segment, the tails' passes from two bases a group with an INSIDE copy); and
finish_form 8 (helper bpmaxfin3): form 7 with a bulk thread's two rows at one absolute split point (row r's split k and
row r + 1's split k - 1 share G - 1 of their column words) where a group lies whole in the band and the segment, form
7's code a row a thread elsewhere; form 9: form 8 with a pair's next-group splits shared by two bulk threads; and
form 10 (helper bpmaxfin4): form 8 with a warp's pairs swizzled on its lanes (for the banks of its 8-byte loads).
All run the same splits of the same cells, so each equals the CPU cell by cell on
random pairs, and the default's device tables on the production band (where the unrolled copies and the row pairs run
for most rows), on short windows and across streamed pieces (where the bounds' copies and the single rows run too).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

FORMS = pytest.mark.parametrize("form", [7, 8, 9, 10], ids=["form7", "form8", "form9", "form10"])


def settings(form):
    """bench/bpmax_gpu_sizes.py's row 77, 79, 80 or 81 (form 7, 8, 9 or 10 with the default's 8-diagonal groups at 896 threads),
    4-diagonal groups, and 1,024 threads a block."""
    return (dict(finish_form=form), dict(finish_form=form, finish_diagonals=4),
            dict(finish_form=form, finish_bound=1024))


def small(form):
    """The tests' 8-row segments: every G the kernel takes (G = 2 and 3: the bulk's 4-split loop with a rest; forms 8
    to 10 take the even ones, 3 runs form 7)."""
    return tuple(dict(finish_form=form, segment_rows=8, finish_diagonals=g) for g in (8, 4, 2, 3))


@FORMS
def test_unrolled_finish_equals_tiled_cell_by_cell_on_random_pairs(form):
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in settings(form) + small(form)])


@FORMS
def test_unrolled_finish_equals_the_default_on_a_production_band(form):
    same_as_default_on_a_production_band(settings(form), 33 + 2 * (form - 7))


@FORMS
def test_unrolled_finish_equals_the_default_on_short_windows_and_pieces(form):
    same_as_default_on_short_windows_and_pieces(settings(form) + small(form)[2:], 34 + 2 * (form - 7))
