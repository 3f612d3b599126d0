"""The windowed BPPart fill with the cross products' steps on Hopper's larger FP64 mma (v17, ``band_mma_shape``: 1
m16n8k4, 2 m16n8k8, 3 m16n8k16 in place of m8n8k4): against the CPU on random pairs with small tiles and NaN-filled
fresh tables (target windows of 1 to 13 bases), with the skip forms and two chains; at the production sizes and window
128 against the CPU, and every number equal to m8n8k4's (v16's production) to the last bit, launches of several
lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, chains, wn, shape", [
    (*WEIGHTS[0], 16, 32, 8, 3, 1, 32, 1),      # m16n8k4, the warps' skip forms, a ring of 2
    (*WEIGHTS[1], 16, 32, 16, 3, 2, 16, 2),     # m16n8k8, the skip forms, two chains, warps of 16 columns
    (*WEIGHTS[0], 16, 32, 32, 3, 1, 32, 3),     # m16n8k16, the skip forms
    (*WEIGHTS[1], 32, 64, 32, -1, 1, 32, 1),    # each at the production's 32 x 64 x 32 (dynamic ring)
    (*WEIGHTS[0], 32, 64, 32, -1, 1, 16, 2),
    (*WEIGHTS[1], 32, 64, 32, -1, 1, 32, 3),
])
def test_gpu_windows_v17_mma_shapes_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip, chains,
                                              wn, shape):
    """The cross ring's steps by m16n8k4, m16n8k8 or m16n8k16 (v17, ``band_mma_shape``): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_chains=chains,
                                              band_warp_cols=wn, band_mma_shape=shape, band_streams=2)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_mma_shape=1), dict(band_mma_shape=1, band_bases=400),
                                     dict(band_mma_shape=1, band_streams=1, band_bases=333),
                                     dict(band_mma_shape=2), dict(band_mma_shape=3)])
def test_gpu_windows_v17_mma_shapes_same_bits_and_cpu(monkeypatch, variant):
    """The production with the cross products on m16n8k4, m16n8k8 or m16n8k16 (``band_mma_shape``; 3 is v17's
    production): 23 x 300 and 23 x 140 nt against the CPU, and 23 x 700 after 333 nt equal to m8n8k4's to the last
    bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_mma_shape=0))
