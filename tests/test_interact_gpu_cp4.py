"""BPMax on the GPU: one decision of the paired copy (issue 29, helper bpmaxcp4). window_scores's memory estimate
and the launch both ask _gpu_launch.pairs_form, which takes the variant: the banded-library variant, which never
keeps the paired copy (its products are the product library's), no longer counts one, so that its launch groups
are as large as its memory allows.

The decision's tests run on the CPU; the launch's are marked ``gpu``: skipped, with the reason, where there is no
CUDA device (CI has none).
"""
import itertools
import random

import numpy as np
import pytest

from bioaccel.interact import InteractParams
from bioaccel.interact._gpu import MEMORY_MARGIN, bytes_per_base, window_scores
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


@pytest.mark.gpu
@pytest.mark.parametrize("variant, launches", [("banded-library", 2), ("fused", 4)])
def test_launch_groups_count_the_paired_copy_only_where_it_is_kept(variant, launches, monkeypatch):
    """Four targets of 400 nt (window 128) where the memory holds 900 target bases without the paired copy (about
    460 with it): the banded-library variant launches them two at a time (four launches before bpmaxcp4, its
    estimate counting a copy never made), the fused variant one at a time; the window scores equal the CPU's."""
    rng = random.Random(43)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, 400)) for _ in range(4)]
    M = len(ca)
    L1, L2 = params.spans(M, 400)
    single = bytes_per_base(M, L1, L2, np.int16)
    assert 2 * single > bytes_per_base(M, L1, L2, np.int16, paired=True) > 1.8 * single
    monkeypatch.setattr("bioaccel.runtime.gpu.free_memory", lambda: int(900.5 * single / MEMORY_MARGIN))
    S1 = strand_band(ca, params.fold_params, M)
    record = []
    found = window_scores(ca, S1, rbs, params, variant=variant, record=record)
    assert len(record) == launches
    for rb, (win, _) in zip(rbs, found):
        cpu = fill_tiled(ca, rb, S1, strand_band(rb, params.fold_params, L2), params)[0]
        assert np.array_equal(win, cpu[:, :len(rb) - L2 + 1])
