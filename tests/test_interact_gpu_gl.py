"""BPMax on the GPU, the products trimmed (issue 29, helper bpmaxgl): a warp's first k2 by one pair instead of a whole
group of 8 (pairs_trim bit 1), the warps' squares rotated by the block (bit 2), pairs_stage 6 (pairs_stage 4
double-buffered, one barrier a stage; chunks 96, 80 and 64), 7 (pairs_stage 4's copies without a branch) and 8 (both).
Each equal to the CPU cell by cell on random pairs, and to the current form's (pairs_stage 4, pairs_trim 0) device
tables on the production band, on short windows and across streamed pieces.

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

#: the forms at the production tile (BPMaxSizes fields), the current form first
CURRENT = dict(pairs_stage=4, pairs_trim=0)
FORMS = (dict(pairs_trim=1), dict(pairs_trim=2), dict(pairs_trim=3),
         dict(pairs_stage=6, pairs_blocks=6), dict(pairs_stage=6, pairs_blocks=6, pairs_trim=3),
         dict(pairs_stage=6, split_chunk=64, pairs_trim=3),
         dict(pairs_stage=7), dict(pairs_stage=7, pairs_trim=1), dict(pairs_stage=7, pairs_trim=3),
         dict(pairs_stage=8, pairs_blocks=6, pairs_trim=3), dict(pairs_stage=8, split_chunk=64, pairs_trim=3))
#: the forms of the cell-by-cell comparison and of the short windows (one of each kernel form)
SOME = (dict(pairs_trim=3), dict(pairs_stage=6, pairs_blocks=6, pairs_trim=3),
        dict(pairs_stage=6, split_chunk=64, pairs_trim=3), dict(pairs_stage=7),
        dict(pairs_stage=7, pairs_trim=3), dict(pairs_stage=8, pairs_blocks=6, pairs_trim=3),
        dict(pairs_stage=8, split_chunk=64, pairs_trim=3))


def test_trimmed_products_equal_tiled_cell_by_cell_at_production_tiles():
    """One of each kernel form at the production tile (32 x 32, 2 lanes), cell by cell against the CPU."""
    _equal_tiled_cell_by_cell("fused", [BPMaxSizes(**form) for form in SOME])


@pytest.mark.parametrize("stages", [(4, 6), (7, 8)])
def test_trimmed_products_equal_tiled_cell_by_cell_at_small_tiles(small_launch_sizes, stages):
    """pairs_trim 3 at pairs_stage 4, 6, 7 and 8, and 6 to 8 alone, at the tests' small tiles: stages of one group,
    of two (8 x 16 tiles), of four (16 x 32 tiles: two squares a tile, so the rotation moves them)."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, products_parts=2, pairs_step=2)
    _equal_tiled_cell_by_cell("fused", [
        replace(small, pairs_stage=stage, pairs_trim=trim, split_chunk=chunk)
        for stage in stages for trim in (0, 3) if (stage, trim) != (4, 0) for chunk in (8, 16)] + [
        replace(small, split_rows=16, split_cols=32, split_chunk=32, pairs_stage=stage, pairs_trim=trim)
        for stage, trim in ((4, 1), (4, 2), (6, 3), (7, 3), (8, 3)) if stage in stages])


def test_trimmed_products_equal_the_current_form_on_a_production_band():
    """8 x 1,400 and 333 nt, window 128 (the production band): every form gives the current form's device tables
    (every cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(43)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (CURRENT, *FORMS))


def test_trimmed_products_equal_the_current_form_on_short_windows_and_pieces():
    """Windows of 5, 17 and 40 nt against targets of 700 and 95 nt, whole and as streamed pieces of 300 nt
    (overlapping pieces back to back in one launch): the current form's tables and the CPU's window scores."""
    rng = random.Random(44)
    forms = (CURRENT, *SOME)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, forms)
        _same_tables_and_cpu(ca, rbs, params, tuple(dict(form, piece=300) for form in forms))
