"""BPMax on the GPU, the products with 4 x 8 cells a thread (issue 29, helper bpmaxreg; ``pairs_cols=8``):
kernels/bpmax.cu's bpmax_products_wide, pairs_stage 4's staging with 4 lanes a cell, equal to the CPU cell by cell on
random pairs, and to pairs_stage 4's device tables (``pairs_cols=4``) on the production band, on short windows and
across streamed pieces.

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


def test_wide_products_equal_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """pairs_cols 8 at the production tiles (6, 7 and 8 blocks an SM, chunks 96 and 64) and at the tests' small
    tiles (stages of one group, of two, of four; 8 x 16 and 16 x 32 tiles)."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, products_parts=2, pairs_step=2, pairs_stage=4,
                    pairs_cols=8)
    _equal_tiled_cell_by_cell("fused", (
        *[BPMaxSizes(pairs_cols=8, pairs_blocks=blocks) for blocks in (6, 7, 8)],
        BPMaxSizes(pairs_cols=8, split_chunk=64),
        *[replace(small, split_chunk=chunk) for chunk in (8, 16)],
        replace(small, split_rows=16, split_cols=32, split_chunk=32)))


def test_wide_products_equal_pairs_stage_4_on_a_production_band():
    """8 x 1,400 and 333 nt, window 128 (the production band): pairs_cols 8 at 6, 7 and 8 blocks an SM and chunk 64
    gives pairs_stage 4's device tables (every cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(43)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(), *[dict(pairs_cols=8, pairs_blocks=blocks) for blocks in (6, 7, 8)],
                                           dict(pairs_cols=8, split_chunk=64)))


def test_wide_products_equal_pairs_stage_4_on_short_windows_and_pieces():
    """Windows of 5, 17 and 40 nt against targets of 700 and 95 nt, whole and as streamed pieces of 300 nt
    (overlapping pieces back to back in one launch): pairs_cols 8 gives pairs_cols 4's tables, and the CPU's window
    scores."""
    rng = random.Random(44)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(), dict(pairs_cols=8)))
        _same_tables_and_cpu(ca, rbs, params, (dict(piece=300), dict(pairs_cols=8, piece=300)))
