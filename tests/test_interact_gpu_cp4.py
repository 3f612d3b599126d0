"""BPMax on the GPU: one decision of the paired copy (issue 29, helper bpmaxcp4). window_scores's memory estimate
and the launch both ask _gpu_launch.pairs_form, which takes the variant: the banded-library variant, which never
keeps the paired copy (its products are the product library's), no longer counts one; it counts instead the
product library's tile-major pool of every matrix that it does allocate (which neither estimate counted before).

The decision's tests run on the CPU; the launch's are marked ``gpu``: skipped, with the reason, where there is no
CUDA device (CI has none).
"""
import itertools
import random

import numpy as np
import pytest

from bioaccel.interact import InteractParams
from bioaccel.interact._gpu import (MEMORY_MARGIN, _library_layout, bytes_per_base, first_matrix, matrices,
                                   row_stride, window_scores)
from bioaccel.interact._gpu_launch import BPMaxSizes, paired_copy, pairs_form, pairs_stage
from bioaccel.interact._strands import strand_band
from bioaccel.interact.tiled import fill_tiled
from test_interact_gpu import random_rna_codes

GPU_VARIANTS = ("fused", "banded-library")


def test_the_paired_copy_is_the_fused_pairs_kernels_at_stage_4_only():
    """Every variant, cell type, band (inside and past split_band) and products layout: the launch keeps the
    paired copy exactly where the fused variant runs bpmax_products_pairs at pairs_stage 4."""
    layouts = [BPMaxSizes(products_parts=parts, split_pairs=split, pairs_stage=stage, pairs_step=step,
                          split_rows=rows)
               for parts, split, stage, step, rows in itertools.product((0, 1, 2, 4), (True, False), range(5),
                                                                      (1, 2), (32, 4))]
    for sizes, variant, short, width in itertools.product(layouts, GPU_VARIANTS, (True, False), (129, 300)):
        pairs = variant == "fused" and short and width <= sizes.split_band and sizes.products_parts > 0 \
            and sizes.split_pairs
        stage = pairs_stage(sizes, sizes.products_parts) if pairs else 0
        assert pairs_form(sizes, short, width, variant) == stage
        assert paired_copy(sizes, short, width, variant) == (stage == 4)
    assert not any(paired_copy(sizes, True, 129, "banded-library") for sizes in layouts)


def test_the_estimate_covers_what_a_launch_allocates():
    """Every variant, query length and target bases: bytes_per_base, as window_scores asks it, covers F and S2,
    the paired copy where the launch keeps it (Paired: N / 2 + 2 pair rows a matrix) and the banded-library pool
    (band_layout's cells a matrix), up to one tile row of each matrix."""
    sizes, width = BPMaxSizes(), 129
    for variant, M, N in itertools.product(GPU_VARIANTS, (8, 23), (100, 1000, 20_000)):
        n_mat, RS = matrices(M, M), row_stride(width)
        layout = _library_layout(np.int16, N, width, sizes)
        library = variant == "banded-library"
        paired = paired_copy(sizes, True, width, variant)
        assert paired == (not library)
        cells = (n_mat + 1) * (N + 1) * RS
        cells += paired * first_matrix(M, M) * (N // 2 + 2) * RS * 2
        cells += library * n_mat * layout.cells
        per_base = bytes_per_base(M, M, width, np.int16, paired, layout.tile if library else 0)
        assert 2 * cells <= (N + 1 + layout.tile) * per_base


@pytest.mark.gpu
def test_banded_library_launch_groups_follow_its_estimate(monkeypatch):
    """Four targets of 400 nt (window 128) where the memory holds 900 target bases by the banded-library variant's
    estimate: two launches of two targets each, and the window scores equal the fused variant's and the CPU's."""
    rng = random.Random(43)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, 400)) for _ in range(4)]
    M = len(ca)
    L1, L2 = params.spans(M, 400)
    tile = _library_layout(np.int16, 800, L2, BPMaxSizes()).tile
    per_base = bytes_per_base(M, L1, L2, np.int16, pool_tile=tile)
    monkeypatch.setattr("bioaccel.runtime.gpu.free_memory", lambda: int(900.5 * per_base / MEMORY_MARGIN))
    S1 = strand_band(ca, params.fold_params, M)
    record = []
    found = window_scores(ca, S1, rbs, params, variant="banded-library", record=record)
    assert [len(group) for group, *_ in record] == [2, 2]
    fused = window_scores(ca, S1, rbs, params)
    for rb, (win, folds), (win0, folds0) in zip(rbs, found, fused):
        assert np.array_equal(win, win0) and np.array_equal(folds, folds0)
        cpu = fill_tiled(ca, rb, S1, strand_band(rb, params.fold_params, L2), params)[0]
        assert np.array_equal(win, cpu[:, :len(rb) - L2 + 1])
