"""The windowed BPPart fill with a launch's bases padded by filler after its last piece (v16, ``band_align``: n + 1 a
multiple of it, so that the tables' matrices, S = (n + 1) W1 doubles apart, start on 128-byte lines at 16): against
the CPU on random pairs with small tiles and NaN-filled fresh tables (target windows of 1 to 13 bases), at the
production sizes and window 128, and every number equal to the unaligned production's to the last bit, launches of
several lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, align", [
    (*WEIGHTS[0], 16, 32, 8, 16),       # a launch's matrices on 128-byte lines (n + 1 a multiple of 16)
    (*WEIGHTS[1], 32, 64, 32, 16),      # ... at 32 x 64 x 32
    (*WEIGHTS[0], 16, 32, 8, 7),        # ... n + 1 a multiple of 7 (odd and even n, any filler)
])
def test_gpu_windows_v16_aligned_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, align):
    """A launch's bases padded with filler after its last piece (v16, ``band_align``): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2, band_streams=2,
                                              band_align=align)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_align=16), dict(band_align=16, band_bases=400),
                                     dict(band_align=16, band_streams=1, band_bases=333), dict(band_align=5)])
def test_gpu_windows_v16_aligned_same_bits_and_cpu(monkeypatch, variant):
    """The production with a launch's matrices aligned (``band_align``): 23 x 300 and 23 x 140 nt against the CPU, and
    23 x 700 after 333 nt (launches of other lengths) equal to the unaligned production's to the last bit (v25: aligned
    to 16 by default, so the reference names ``band_align`` 0)."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_align=0))
