"""The windowed BPPart fill with v21's cross-product forms (``band_ring_strip``: the ring's column tiles from the row
tile's first row; ``band_warp_rows`` 32: a warp's rows; ``band_sums_apart``: a block a sum): against the CPU on random
pairs with small tiles and NaN-filled fresh tables (target windows of 1 to 13 bases), with the skip forms, the mma
shapes and warps of 16 columns; at the production sizes and window 128 against the CPU, and every number equal to the
production's to the last bit, launches of several lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, wn, shape, strip, wm, apart", [
    (*WEIGHTS[0], 16, 32, 8, -1, 16, 1, True, 16, True),      # strips, a block a sum, m16n8k4, 16-column warps
    (*WEIGHTS[1], 32, 64, 16, 3, 32, 2, True, 32, False),     # strips of 32-row warps, the skip forms, m16n8k8
    (*WEIGHTS[0], 32, 64, 32, -1, 32, 3, False, 32, True),    # 32-row warps, a block a sum, m16n8k16
    (*WEIGHTS[1], 32, 160, 32, 1, 32, 3, True, 32, False),    # the bench's strips: 32 x 160 (5 warps), chunk skip
    (*WEIGHTS[0], 32, 160, 32, -1, 32, 0, True, 16, False),   # 32 x 160 strips of 10 warps (the As copies guarded)
])
def test_gpu_windows_v21_cross_forms_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip, wn,
                                               shape, strip, wm, apart):
    """The cross ring's strips, 32-row warps and one-sum blocks (v21): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_warp_cols=wn,
                                              band_mma_shape=shape, band_streams=2, band_ring_strip=strip,
                                              band_warp_rows=wm, band_sums_apart=apart)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


STRIPS = dict(band_ring_strip=True, band_warp_rows=32, band_cols=160, band_blocks=2, band_skip=True, band_skip_form=1)


@pytest.mark.parametrize("variant", [
    dict(band_sums_apart=True), dict(band_sums_apart=True, band_streams=1, band_bases=333),
    STRIPS, dict(STRIPS, band_bases=400), dict(STRIPS, band_blocks=1), dict(STRIPS, band_sums_apart=True),
    dict(band_rows=64, band_warp_rows=32, band_blocks=2)])
def test_gpu_windows_v21_cross_forms_same_bits_and_cpu(monkeypatch, variant):
    """The production with v21's cross forms (one-sum blocks; 32 x 160 strips of 32-row warps with the chunk skip;
    64 x 64 tiles of 32-row warps): 23 x 300 and 23 x 140 nt against the CPU, and 23 x 700 after 333 nt equal to the
    production's to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, {})
