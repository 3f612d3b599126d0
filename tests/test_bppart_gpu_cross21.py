"""The windowed BPPart fill with a block a sum in the cross products (v21, ``band_sums_apart``: QIa's and QIm's
blocks apart in one launch, the production's since v21) and with both sums a block (v8 to v20): against the CPU on
random pairs with small tiles and NaN-filled fresh tables (target windows of 1 to 13 bases), with the skip forms, the
mma shapes, warps of 16 columns and the split among blocks; at the production sizes and window 128 against the CPU,
and every number of one form equal to the other's to the last bit, launches of several lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, wn, shape, apart", [
    (*WEIGHTS[0], 16, 32, 8, -1, 16, 1, True),      # a block a sum, m16n8k4, 16-column warps
    (*WEIGHTS[1], 32, 64, 16, 3, 32, 2, True),      # the skip forms, m16n8k8
    (*WEIGHTS[0], 32, 64, 32, -1, 32, 3, True),     # the production's tiles (dynamic ring), m16n8k16
    (*WEIGHTS[1], 32, 64, 32, 1, 32, 3, False),     # both sums a block (v8 to v20), the chunk skip
])
def test_gpu_windows_v21_sums_apart_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip, wn,
                                             shape, apart):
    """The cross ring with a block a sum (v21) or both (before): the CPU's numbers (small launches: the query splits
    shared among blocks too, added atomically)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_warp_cols=wn,
                                              band_mma_shape=shape, band_streams=2, band_sums_apart=apart)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_sums_apart=False), dict(band_sums_apart=False, band_bases=400),
                                     dict(band_sums_apart=False, band_streams=1, band_bases=333)])
def test_gpu_windows_v21_sums_apart_same_bits_and_cpu(monkeypatch, variant):
    """The production with both sums a block (v20's form, ``band_sums_apart`` False): 23 x 300 and 23 x 140 nt against
    the CPU, and 23 x 700 after 333 nt equal to the production's (a block a sum) to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_sums_apart=True))
