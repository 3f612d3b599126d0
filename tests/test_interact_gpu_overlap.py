"""BPMax on the GPU, the next level's interior products beside a level's finish (issue 29, helper bpmaxco;
``BPMaxSizes.overlap_products``, interact/_gpu_levels.py): bpmax_products_pairs in an interior and an edge pass from
level 4 on, on two streams. Equal to the CPU cell by cell on random pairs (queries of 1 to 12 bases: levels 4 to 12
split), and to the default's device tables bit for bit on the production band, on short windows and across streamed
pieces, at finish segments of 227, 170 and 140 KB (what bench/bpmax_gpu_sizes.py's rows 81-88 run), the interior
passes started after the level's edge pass too (overlap 2).

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random
from dataclasses import replace

import numpy as np
import pytest

from bioaccel.interact import InteractParams
from bioaccel.interact._gpu import window_scores
from bioaccel.interact._gpu_launch import BPMaxSizes
from bioaccel.interact._strands import strand_band
from test_interact_gpu import (_equal_tiled_cell_by_cell, random_rna_codes, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

#: the overlap at the finish segments of bench/bpmax_gpu_sizes.py's rows 81-83, row 84's segments without it, and
#: overlap 2 (the interior after the level's edge pass: rows 86-88)
SETTINGS = (dict(overlap_products=1), dict(overlap_products=1, finish_bytes=170 * 1024),
            dict(overlap_products=1, finish_bytes=140 * 1024), dict(finish_bytes=170 * 1024),
            dict(overlap_products=2, finish_bytes=170 * 1024))


def test_overlap_equals_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """At the production sizes and the tests' small ones (8 x 16 tiles, 8-row segments: many tiles a level)."""
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS[:2] + SETTINGS[4:]] +
                              [replace(small_launch_sizes.bpmax, overlap_products=mode) for mode in (1, 2)])


def test_overlap_equals_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 31)


def test_overlap_equals_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS[:3] + SETTINGS[4:], 32)


@pytest.mark.parametrize("overlap", [1, 2])
def test_overlap_timed_launch_by_launch_gives_the_same_scores_and_two_products_a_level(overlap):
    """With ``timings`` (each launch synchronised, the bench's --levels) the overlap's window scores are the
    default's, and its products are two launches a level from level 4 on (interior, then edge), one below."""
    rng = random.Random(33)
    params = InteractParams(window_target=40)
    ca = np.ascontiguousarray(random_rna_codes(rng, 9))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, 300))]
    S1 = strand_band(ca, params.fold_params, len(ca))
    expected = window_scores(ca, S1, rbs, params, sizes=BPMaxSizes())
    timings = {"launches": []}
    found = window_scores(ca, S1, rbs, params, sizes=BPMaxSizes(overlap_products=overlap), timings=timings)
    for (w, f), (w0, f0) in zip(found, expected):
        assert np.array_equal(w, w0) and np.array_equal(f, f0)
    products = sum(key == "products" for key, _ in timings["launches"])
    L1 = params.spans(len(ca), len(rbs[0]))[0]
    assert products == 3 + 2 * (L1 - 3)
