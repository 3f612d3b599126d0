"""BPMax on the GPU, bpmax_products_pairs with EDGE (issue 29, helper bpmaxband; ``BPMaxSizes.pairs_edge``): the warp
squares cut by the band's edge give their thread tiles 3 to 8 lanes each (1), a warp whose square has no cell runs half
of the heaviest square's groups (2), both (3); equal to the CPU cell by cell on random pairs, and to the default's
device tables on the production band, on short windows and across streamed pieces.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random

import numpy as np
import pytest

from bioaccel.interact import InteractParams
from bioaccel.interact._gpu_launch import BPMaxSizes
from test_interact_gpu import _equal_tiled_cell_by_cell, _same_tables_and_cpu, random_rna_codes

pytestmark = pytest.mark.gpu

#: the settings of bench/bpmax_gpu_sizes.py's rows 71-74
SETTINGS = (dict(pairs_edge=1), dict(pairs_edge=2), dict(pairs_edge=3), dict(pairs_edge=3, pairs_blocks=7))
#: EDGE at other tiles (tests/host_kernels.py): 2 warps of 16 x 16 squares a block (chunks of 2 and 4 groups), 8
#: warps, and 16-thread blocks (no warp square: EDGE runs the old code)
TILES = (dict(pairs_edge=3, split_rows=16, split_chunk=32), dict(pairs_edge=3, split_rows=16, split_chunk=16),
         dict(pairs_edge=1, split_rows=16, split_chunk=32), dict(pairs_edge=2, split_rows=16, split_chunk=16),
         dict(pairs_edge=3, split_rows=64, pairs_blocks=4), dict(pairs_edge=3, split_rows=8, split_cols=16,
                                                                 split_chunk=8))


def test_edges_equal_tiled_cell_by_cell_on_random_pairs():
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**change) for change in SETTINGS + TILES])


def test_edges_equal_the_default_on_a_production_band():
    """8 x 1,400 and 333 nt, window 128 (the production band): every setting gives the default's device tables (every
    cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(48)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(), *SETTINGS, *TILES[:2]))


def test_edges_equal_the_default_on_short_windows_and_pieces():
    """Windows of 5, 17 and 40 nt against targets of 700 and 95 nt, whole and as streamed pieces of 300 nt
    (overlapping pieces back to back in one launch): the default's tables, and the CPU's window scores."""
    rng = random.Random(49)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(), *SETTINGS, TILES[0]))
        _same_tables_and_cpu(ca, rbs, params, (dict(piece=300), *[dict(change, piece=300) for change in SETTINGS]))
