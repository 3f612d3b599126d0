"""BPMax on the GPU, finish_form 14 (issue 29, helper bpmaxsplit): bpmax_finish_roles with each first phase's range B
(the splits k in [e0 - G + 1, e0) of cells 1 .. G - 1) run by the tail threads from the closures they keep in
registers, folded into their passes, and form 15 (14 with range A's splits k in [c + G - 1, 2G - 2) in the rest
before): the same cells as form 7, so equal to the CPU cell by cell on random pairs (the
tests' few-base cases, and windows of 5, 17, 40 and 128 nt on targets whose lengths are not multiples of 8, some
shorter than the window, at segments of 8 and 40 rows and the production's, groups of 8 and 4 diagonals), and to the
default's device tables on the production band, on short windows and across streamed pieces.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact import WEIGHTS, random_rna
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: bench/bpmax_gpu_sizes.py's rows 81-82 (forms 14 and 15 at the production sizes), form 14 with the largest segments
#: at every level, and both with groups of 4 diagonals
SETTINGS = (*[dict(finish_form=form) for form in (14, 15)], dict(finish_form=14, segment_fit=0),
            *[dict(finish_form=form, finish_diagonals=4) for form in (14, 15)])
#: segments of at most 8 and 40 rows: a target crosses many segments, rows near its end cut the halo
SMALL = tuple(dict(finish_form=form, segment_rows=rows) for form in (14, 15) for rows in (8, 40))
#: (target window, target lengths): bands of 6, 18, 41 and 129 cells (the last the production's), targets not a
#: multiple of 8 long, the first of the two widest windows shorter than the window
WINDOWS = ((5, (23, 61, 95)), (17, (23, 61, 95)), (40, (23, 61, 150)), (128, (61, 150, 333)))


def _windowed_cases(seed):
    """test_interact's case tuples, three targets a window sharing one random query."""
    rng = random.Random(seed)
    cases = []
    for index, (window, lengths) in enumerate(WINDOWS):
        a, (au, gu) = random_rna(rng, rng.randint(5, 9)), WEIGHTS[index % 2]
        cases += [(a, random_rna(rng, n), au, gu, None, window, 1) for n in lengths]
    return cases


def test_split_finish_equals_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + SMALL])


def test_split_finish_equals_tiled_cell_by_cell_on_windows():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + SMALL], _windowed_cases(45))


def test_split_finish_equals_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 46)


def test_split_finish_equals_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS + SMALL, 47)
