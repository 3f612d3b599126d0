"""The windowed BPPart cross products with their in-band chunks copied without the band tests (v36,
docs/bppart-gpu-notes.md): ``band_cross_inband`` (FORM bit 20; measured slower, off in the production) copies a chunk whose every
element lies in the band and the table with no test or select a copy, at window 128 from one address and immediate
offsets. The same elements into the same places: equal to the last bit to the copies before v36 (``band_cross_inband``
False) at the production's tiles and the tests' small ones, at window 128 (the constant stride) and another window (the
old copies), both weight settings, on svRNA-like queries and random ones. The kernel the host picks (pure Python).
Marker ``gpu`` on the GPU tests."""
import random

import pytest

from test_bppart_gpu_sparse49 import SVRNA_LIKE, _same_bits
from test_bppart_gpu_windows import WEIGHTS, _gpu, random_rna


def test_v36_inband_sets_form_bit_20():
    """``band_cross_inband`` True adds FORM bit 20 to the production's cross launch (which is without it); without
    the runs' cursor (``band_cross_hoist`` 0) the bit is never set."""
    from bioaccel.interact._partition_band_sizes import band_cross_kernel
    from bioaccel.interact._partition_launch import SIZES

    base = SIZES.replace(band_cross_copy16=0)       # (v37c's pairs, the default since, are not taken with bit 20)
    form, before = band_cross_kernel(base.replace(band_cross_inband=True))[1][9], band_cross_kernel(base)[1][9]
    assert form & 1048576 and form - before == 1048576 and not SIZES.band_cross_inband
    assert not band_cross_kernel(SIZES.replace(band_cross_hoist=0, band_cross_inband=True))[1][9] & 1048576


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu", WEIGHTS)
@pytest.mark.parametrize("window", [128, 64])
def test_gpu_windows_v36_inband_same_bits_as_before(monkeypatch, au, gu, window):
    """At the production's sizes: svRNA-like queries and a random 23-mer against targets of 333, 700, 2,000, 140 and
    40 nt, to the last bit the copies before v36."""
    from bioaccel.interact import PartitionParams, _partition_launch

    base = _partition_launch.SIZES.replace(band_cross_inband=False)
    rng = random.Random(50)
    targets = [random_rna(rng, n) for n in (333, 700, 2000, 140, 40)]
    params = PartitionParams(au=au, gu=gu, window_target=window)
    for q in SVRNA_LIKE + [random_rna(rng, 23)]:
        monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_cross_inband=True))
        got = _gpu(q, targets, params)
        monkeypatch.setattr(_partition_launch, "SIZES", base)
        _same_bits(got, _gpu(q, targets, params))


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu", WEIGHTS)
def test_gpu_windows_v36_inband_small_tiles_same_bits(small_launch_sizes, monkeypatch, au, gu):
    """The tests' small launches (small tiles and pieces: chunks of 8, many of them wholly in the band) at window 128,
    to the last bit the copies before v36 (no sum split among blocks, cross_blocks=1: atomic adds in another order
    would differ in the last bits whatever the copies)."""
    from bioaccel.interact import PartitionParams, _partition_launch

    base = small_launch_sizes.bppart.replace(band_sweep="launches", band_cols=32, band_split=True, band_tile=8,
                                             band_tile_blocks=16, band_pipe=3, band_far=2, band_warp=True, band_ring=2,
                                             cross_blocks=1, band_cross_inband=False)
    rng = random.Random(36)
    targets = [random_rna(rng, n) for n in (300, 141, 57)]
    params = PartitionParams(au=au, gu=gu, window_target=128)
    for q in [SVRNA_LIKE[1], random_rna(rng, 23), random_rna(rng, 9)]:
        monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_cross_inband=True))
        got = _gpu(q, targets, params)
        monkeypatch.setattr(_partition_launch, "SIZES", base)
        _same_bits(got, _gpu(q, targets, params))
