"""BPMax's products with part of their adds on the FMA pipe (``BPMaxSizes.pairs_mix``: kernels/bpmax.cu tile_step2, two
IMAD.IADD and one VIMNMX3 for two k-pairs of a cell, the staged B zero above the band top; issue 29, stop 58): equal
to the CPU cell by cell on random pairs, and to the default's device tables (every cell of F and S2) on the production
band, on short windows and across streamed pieces, for 4, 8 and 16 of a thread's 16 cells mixed.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""

import pytest

from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import (_equal_tiled_cell_by_cell, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

pytestmark = pytest.mark.gpu

SETTINGS = (dict(pairs_mix=4), dict(pairs_mix=8), dict(pairs_mix=16))


def test_mixed_products_equal_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS])


def test_mixed_products_equal_the_default_on_a_production_band():
    same_as_default_on_a_production_band(SETTINGS, 41)


def test_mixed_products_equal_the_default_on_short_windows_and_pieces():
    same_as_default_on_short_windows_and_pieces(SETTINGS, 42)
