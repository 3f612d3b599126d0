"""BPMax on the GPU, the finish's segments sized per level to fill whole waves (issue 29, helper bpmaxwave;
``BPMaxSizes.segment_fit``): equal to the CPU cell by cell on random pairs, and to the default's device tables on the
production band, on short windows and across streamed pieces (the finish's values do not depend on the segments).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random

import numpy as np
import pytest

from bioaccel.interact import InteractParams
from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import _equal_tiled_cell_by_cell, _same_tables_and_cpu, random_rna_codes

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
    """8 x 1,400 and 333 nt, window 128 (the production band): every setting gives the default's device tables (every
    cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(29)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(), *SETTINGS))


def test_fitted_segments_equal_the_default_on_short_windows_and_pieces():
    """Windows of 5, 17 and 40 nt against targets of 700 and 95 nt, whole and as streamed pieces of 300 nt
    (overlapping pieces back to back in one launch): the default's tables, and the CPU's window scores."""
    rng = random.Random(30)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(), *SETTINGS))
        _same_tables_and_cpu(ca, rbs, params, (dict(piece=300), *[dict(change, piece=300) for change in SETTINGS]))
