"""The windowed BPPart cross products with their copies by pairs of doubles (v37, v38; docs/bppart-gpu-notes.md):
``band_cross_copy16`` (1: As's, FORM bit 21; 2: Bs's, bit 22; 3: both; 10: Bs's in the rows k - c0 even, v37c; v37b's
+ 4, As's rows KC + 2 apart, was removed) copies two band cells with one 16-byte cp.async. v38: the tables' rows an odd
pitch apart (a zero pad a row at even windows), so every row's pairs (col even) are aligned: Bs unshifted, As shifted a
column in every row where the block's first index is odd. The same elements into the same places: equal to the last bit
to the 8-byte copies (``band_cross_copy16`` 0) at the production's tiles and the tests' small ones, at windows 128 and
64 and an odd window (where the host keeps the 8-byte copies), both weight settings, on svRNA-like queries and random
ones, every table filled with NaN first (a pad left unzeroed, or a cell read unwritten, shows). The kernel the host
picks (pure Python). Marker ``gpu`` on the GPU tests."""
import random

import pytest

from test_bppart_gpu_sparse49 import SVRNA_LIKE, _same_bits
from test_bppart_gpu_windows import WEIGHTS, _gpu, poisoned_tables, random_rna  # noqa: F401 (NaN tables)


def test_v37_copy16_sets_form_bits_21_22():
    """``band_cross_copy16`` 1, 2 and 3 add FORM bit 21, 22 and both to the cross launch without them, 10 bits 22 and 24;
    without the runs' cursor (``band_cross_hoist`` 0) or with v36's in-band copies they are never set; v37b's + 4 (bit
    23, removed) and any other value are refused."""
    from bioaccel.interact._partition_band_sizes import band_cross_kernel
    from bioaccel.interact._partition_launch import SIZES

    before = band_cross_kernel(SIZES.replace(band_cross_copy16=0))[1][9]
    assert not before & (3 << 21)
    for pairs in (1, 2, 3):
        assert band_cross_kernel(SIZES.replace(band_cross_copy16=pairs))[1][9] - before == pairs << 21
    assert not band_cross_kernel(SIZES.replace(band_cross_hoist=0, band_cross_copy16=3))[1][9] & (3 << 21)
    assert not band_cross_kernel(SIZES.replace(band_cross_inband=True, band_cross_copy16=3))[1][9] & (3 << 21)
    assert band_cross_kernel(SIZES.replace(band_cross_copy16=10))[1][9] - before == (1 << 22) + (1 << 24)
    for removed in (4, 5, 7, 14, 11):
        with pytest.raises(ValueError, match="band_cross_copy16"):
            band_cross_kernel(SIZES.replace(band_cross_copy16=removed))


def _both(monkeypatch, base, q, targets, params, pairs=3):
    """The bits with the pairs' copies (``band_cross_copy16`` ``pairs``) and without them (launch sizes ``base``)."""
    from bioaccel.interact import _partition_launch

    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_cross_copy16=pairs))
    got = _gpu(q, targets, params)
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_cross_copy16=0))
    return got, _gpu(q, targets, params)


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu", WEIGHTS)
@pytest.mark.parametrize("window, pairs", [(128, 1), (128, 2), (128, 3), (64, 3), (128, 10), (64, 10)])
def test_gpu_windows_v37_copy16_same_bits_as_before(monkeypatch, au, gu, window, pairs):
    """At the production's sizes, As's pairs, Bs's or both (10: Bs's pairs in the rows they start, v37c): svRNA-like
    queries and a random 23-mer against targets of
    333, 700, 2,000, 140 and 40 nt, to the last bit the 8-byte copies."""
    from bioaccel.interact import PartitionParams, _partition_launch

    rng = random.Random(51)
    targets = [random_rna(rng, n) for n in (333, 700, 2000, 140, 40)]
    params = PartitionParams(au=au, gu=gu, window_target=window)
    for q in SVRNA_LIKE + [random_rna(rng, 23)]:
        _same_bits(*_both(monkeypatch, _partition_launch.SIZES, q, targets, params, pairs))


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu", WEIGHTS)
@pytest.mark.parametrize("window", [128, 64, 63])
@pytest.mark.parametrize("pairs", [3, 10])
def test_gpu_windows_v37_copy16_small_tiles_same_bits(small_launch_sizes, monkeypatch, au, gu, window, pairs):
    """The tests' small launches (small tiles and pieces: chunks of 8, rows shifted and not, pairs at the table's end)
    at windows 128 and 64, and 63 (L2 even: the host keeps the 8-byte copies), to the last bit the 8-byte copies (no
    sum split among blocks, cross_blocks=1: atomic adds in another order would differ whatever the copies)."""
    from bioaccel.interact import PartitionParams

    base = small_launch_sizes.bppart.replace(band_sweep="launches", band_cols=32, band_split=True, band_tile=8,
                                             band_tile_blocks=16, band_pipe=3, band_far=2, band_warp=True, band_ring=2,
                                             cross_blocks=1)
    rng = random.Random(37)
    targets = [random_rna(rng, n) for n in (300, 141, 57, 2000)]
    params = PartitionParams(au=au, gu=gu, window_target=window)
    for q in [SVRNA_LIKE[1], random_rna(rng, 23), random_rna(rng, 9)]:
        _same_bits(*_both(monkeypatch, base, q, targets, params, pairs))
