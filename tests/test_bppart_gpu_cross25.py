"""The windowed BPPart fill with the cross products' steps walked chunk by chunk, each chunk's query splits inner (v25,
``band_cross_order`` 1: the blocks' rates over the splits even; another summation order): against the CPU on random
pairs with small tiles and NaN-filled fresh tables (target windows of 1 to 13 bases), and at the production sizes and
window 128 against the CPU (23 x 300 and 23 x 140 nt). Marker ``gpu``."""
import random

import pytest

from test_bppart_gpu_windows import (WEIGHTS, PartitionParams, _cpu, _gpu, _random_pairs_equal_cpu,  # noqa: F401
                                     _same_windows, poisoned_tables, random_rna)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, shape", [
    (*WEIGHTS[0], 16, 32, 8, -1, 1),      # small tiles, m16n8k4
    (*WEIGHTS[1], 32, 64, 16, 3, 2),      # the skip forms, m16n8k8
])
def test_gpu_windows_v25_splits_inner_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip,
                                                shape):
    """The cross ring walked chunk by chunk (v25): the CPU's numbers (small launches: the query splits shared among
    blocks too, added atomically)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 16 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_warp_cols=32,
                                              band_mma_shape=shape, band_streams=2, band_cross_order=1)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_cross_order=1), dict(band_cross_order=1, band_bases=333),
                                     dict(band_cross_order=1, band_outer_pair=2, band_align=16)])
def test_gpu_windows_v25_splits_inner_production_sizes(monkeypatch, variant):
    """23 x 300 and 23 x 140 nt at --window-target 128 with the production sizes and the splits inner (alone, in
    pieces of 333 bases, and with v15's R sums in the other order on aligned matrices): the CPU's numbers to 1e-12."""
    from bioaccel.interact import _partition_launch

    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(**variant))
    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))
