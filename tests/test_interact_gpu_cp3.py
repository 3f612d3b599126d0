"""BPMax on the GPU, pairs_stage 4 (issue 29, helper bpmaxcp3; the default since its call 2): the products' B by
cp.async from a paired copy of each level (kernels/bpmax.cu, bpmax_pair_rows and copy_pair_rows), equal to the CPU
cell by cell on random pairs, and to pairs_stage 2's device tables on the production band, on short windows and
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


def test_paired_b_products_equal_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """pairs_stage 4 at the production tiles (8, 9 and 10 blocks an SM, chunks 96 and 64) and at the tests' small
    tiles (stages of one group, of two, of four; 8 x 16 and 16 x 32 tiles)."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, products_parts=2, pairs_step=2, pairs_stage=4)
    _equal_tiled_cell_by_cell("fused", (
        *[BPMaxSizes(pairs_stage=4, pairs_blocks=blocks) for blocks in (8, 9, 10)],
        BPMaxSizes(pairs_stage=4, split_chunk=64),
        *[replace(small, split_chunk=chunk) for chunk in (8, 16)],
        replace(small, split_rows=16, split_cols=32, split_chunk=32)))


def test_paired_b_equals_stage_2_on_a_production_band():
    """8 x 1,400 and 333 nt, window 128 (the production band): pairs_stage 4 at 8 and 10 blocks an SM and chunk 64
    gives pairs_stage 2's device tables (every cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(41)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(pairs_stage=2), dict(pairs_stage=4),
                                           dict(pairs_stage=4, pairs_blocks=10),
                                           dict(pairs_stage=4, split_chunk=64)))


def test_paired_b_equals_stage_2_on_short_windows_and_pieces():
    """Windows of 5, 17 and 40 nt against targets of 700 and 95 nt (odd and even lengths: the paired copy's last
    pair row half outside the matrix), whole and as streamed pieces of 300 nt (overlapping pieces back to back in
    one launch): pairs_stage 4 gives pairs_stage 2's tables, and the CPU's window scores."""
    rng = random.Random(42)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(pairs_stage=2), dict(pairs_stage=4)))
        _same_tables_and_cpu(ca, rbs, params, (dict(pairs_stage=2, piece=300), dict(pairs_stage=4, piece=300)))
