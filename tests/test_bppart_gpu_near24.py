"""The windowed BPPart sweep's one-warp near part with each step's terms but one read and summed a step early (v24,
``band_near_ahead``: bppart_near_warp_ahead; the late term, the previous step's cell, from registers or a shuffle):
against the CPU on random pairs with small launches and NaN-filled fresh tables (16- and 8-tiles, with the last tile
diagonal by a warp a tile), and at the production sizes against the CPU and equal to the production's to the last bit
(after m16n8k16 and m8n8k4, launches of other lengths, the unsplit sweep). Marker ``gpu``."""
import random

import pytest

from test_bppart_gpu_windows import (WEIGHTS, _cpu, _form_same_bits_and_cpu, _gpu,  # noqa: F401
                                     _random_pairs_equal_cpu, _same_windows, poisoned_tables, random_rna)
from bioaccel.interact import PartitionParams

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, tile, last", [(*WEIGHTS[1], 16, False), (*WEIGHTS[0], 16, True),
                                                (*WEIGHTS[1], 8, False)])
def test_gpu_windows_v24_near_ahead_equal_cpu(small_launch_sizes, monkeypatch, au, gu, tile, last):
    """The near part's terms read a step ahead (``band_near_ahead``; 16- and 8-tiles): the CPU's numbers (target
    windows of 1 to 30 bases, and 16, 32, 48 with the last diagonal by a warp a tile)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=tile,
                                              band_tile_blocks=4 if tile == 16 else 16, band_lanes=True, band_trim=True,
                                              band_pipe=3, band_far=2, band_warp=True, band_near_ahead=True,
                                              band_last=last, band_bases=0 if last else 40)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    if not last:
        _random_pairs_equal_cpu(au, gu)
        return
    rng = random.Random(24)
    for wt in (16, 32, 48):
        params = PartitionParams(au=au, gu=gu, window_target=wt)
        targets = [random_rna(rng, n) for n in (150, 41, rng.randint(60, 200))]
        q = random_rna(rng, 12)
        for t, got in zip(targets, _gpu(q, targets, params)):
            _same_windows(got, _cpu(q, t, params))


@pytest.mark.parametrize("variant, reference", [
    (dict(band_near_ahead=True), dict(band_near_ahead=False)),                        # the production's far part
    (dict(band_near_ahead=True, band_far_shape=0), dict(band_far_shape=0)),           # after m8n8k4
    (dict(band_near_ahead=True, band_last=False, band_streams=1, band_bases=333), dict(band_last=False)),
    (dict(band_near_ahead=True, band_split=False), dict(band_split=False)),            # the unsplit sweep
])
def test_gpu_windows_v24_near_ahead_same_bits_and_cpu(monkeypatch, variant, reference):
    """The production with the near part's terms read a step ahead: 23 x 300 and 23 x 140 nt against the CPU, 23 x 700
    equal to the production's to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, reference)
