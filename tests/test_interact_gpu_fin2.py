"""BPMax on the GPU, finish_form 6 (issue 29, helper bpmaxfin2): the segment finish's tail passes with their
operands read a pass ahead (kernels/bpmax.cu, bpmax_finish_roles<G, 6>), equal to the CPU cell by cell on random
pairs and to form 5's device tables on the production band and on short windows.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random
from dataclasses import replace

import numpy as np
import pytest

from bioaccel.interact import InteractParams
from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import _equal_tiled_cell_by_cell, _same_tables_and_cpu, random_rna_codes

pytestmark = pytest.mark.gpu


def test_finish_form_6_equals_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """Form 6 at the production sizes with groups of 4, 8 and 2 diagonals, and at the tests' 8-row segments with
    groups of 4, 8, 2 and 3 (a group's passes cut short by the band's end and by the segment's last rows)."""
    small = small_launch_sizes.bpmax
    _equal_tiled_cell_by_cell("fused", (
        *[BPMaxSizes(finish_form=6, finish_diagonals=g) for g in (4, 8, 2)],
        *[replace(small, finish_form=6, finish_diagonals=g) for g in (4, 8, 2, 3)]))


def test_finish_form_6_equals_form_5_on_a_production_band():
    """8 x 1,400 and 333 nt, window 128 (the production band, 129 wide: 288-row segments): form 6, groups of 4 and
    8 diagonals, gives form 5's device tables (every cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(31)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(finish_form=5, finish_diagonals=4),
                                           dict(finish_form=6, finish_diagonals=4),
                                           dict(finish_form=6, finish_diagonals=8)))


def test_finish_form_6_equals_form_5_on_short_windows():
    """Windows of 5, 17 and 40 nt (bands of 6, 18 and 41: groups cut by the band's end at every G) against targets
    of 700 and 95 nt: form 6 with groups of 4, 8, 2 and 3 gives form 5's tables, and the CPU's window scores."""
    rng = random.Random(32)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(finish_form=5, finish_diagonals=4), *[
            dict(finish_form=6, finish_diagonals=g) for g in (4, 8, 2, 3)]))

