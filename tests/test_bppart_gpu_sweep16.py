"""The windowed BPPart sweep with its far part on Hopper's larger FP64 mma (v18, ``band_far_shape``: 1 m16n8k4, 2
m16n8k8, 3 m16n8k16 in place of m8n8k4, a warp a 16 x 8 block of a sum): against the CPU on random pairs with 16-tiles,
small launches and NaN-filled fresh tables (target windows of 1 to 13 bases), with rings of 2 and 3, the near part by
lanes or one warp, the sweep split or not; at the production sizes and window 128 against the CPU, and every number
equal to m8n8k4's (v17's production) to the last bit, launches of several lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, shape, pipe, warp, split", [
    (*WEIGHTS[0], 1, 3, True, True),      # m16n8k4 after a ring of 3, one warp's near part (the production's sweep)
    (*WEIGHTS[1], 2, 3, True, True),      # m16n8k8
    (*WEIGHTS[0], 3, 3, True, True),      # m16n8k16
    (*WEIGHTS[1], 3, 2, True, True),      # ... after a ring of 2
    (*WEIGHTS[0], 1, 3, False, True),     # ... the near part by lanes
    (*WEIGHTS[1], 3, 3, True, False),     # ... the sweep not split (the outer terms in it)
])
def test_gpu_windows_v18_far_shapes_equal_cpu(small_launch_sizes, monkeypatch, au, gu, shape, pipe, warp, split):
    """The sweep's far part by m16n8k4, m16n8k8 or m16n8k16 (v18, ``band_far_shape``; 16-tiles, as the shapes need
    16-row blocks): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=split, band_tile=16, band_tile_blocks=4,
                                              band_lanes=True, band_trim=True, band_pipe=pipe, band_far=2,
                                              band_warp=warp, band_far_shape=shape, band_streams=2)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_far_shape=1), dict(band_far_shape=2), dict(band_far_shape=3),
                                     dict(band_far_shape=3, band_bases=400),
                                     dict(band_far_shape=3, band_streams=1, band_bases=333),
                                     dict(band_far_shape=3, band_pipe=2)])
def test_gpu_windows_v18_far_shapes_same_bits_and_cpu(monkeypatch, variant):
    """The production with the sweep's far part on m16n8k4, m16n8k8 or m16n8k16 (``band_far_shape``): 23 x 300 and
    23 x 140 nt against the CPU, and 23 x 700 after 333 nt equal to m8n8k4's to the last bit (with a ring of 2: to
    m8n8k4's after a ring of 2)."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_far_shape=0, band_pipe=variant.get("band_pipe", 3)))
