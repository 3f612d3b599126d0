"""The windowed BPPart sweep's near part with its loads of zero terms left out and the launches mode's loops as one
pass (v19, ``band_near_form``: bit 0, the one-warp near part loads and multiplies only the terms that can be nonzero;
bit 1, one pass; bit 2, only an invalid cell's lanes' loads made a broadcast): against the CPU on random pairs with 8- and 16-tiles, small launches and NaN-filled fresh tables
(target windows of 1 to 13 bases); at the production sizes and window 128 against the CPU, and every number equal to
the production's to the last bit, launches of several lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, tile, blocks, form, pipe, split", [
    (*WEIGHTS[0], 16, 4, 1, 3, True),     # the zero terms left out, the production's sweep otherwise
    (*WEIGHTS[1], 16, 4, 3, 3, True),     # ... and the loops as one pass
    (*WEIGHTS[0], 16, 4, 2, 3, True),     # one pass only
    (*WEIGHTS[1], 16, 4, 6, 3, True),     # an invalid cell's loads a broadcast, one pass
    (*WEIGHTS[1], 8, 16, 3, 3, True),     # 8-tiles (lanes 16 .. 31 idle; m8n8k4 far part)
    (*WEIGHTS[0], 16, 4, 3, 2, True),     # after a ring of 2
    (*WEIGHTS[1], 16, 4, 3, 3, False),    # the sweep not split (the outer terms in it)
])
def test_gpu_windows_v19_near_forms_equal_cpu(small_launch_sizes, monkeypatch, au, gu, tile, blocks, form, pipe,
                                              split):
    """The near part's zero terms not loaded and the loops as one pass (v19, ``band_near_form``): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=split, band_tile=tile,
                                              band_tile_blocks=blocks, band_lanes=True, band_trim=True, band_pipe=pipe,
                                              band_far=2, band_warp=True, band_near_form=form, band_streams=2)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_near_form=1), dict(band_near_form=2), dict(band_near_form=3),
                                     dict(band_near_form=3, band_bases=400),
                                     dict(band_near_form=3, band_streams=1, band_bases=333),
                                     dict(band_near_form=3, band_pipe=2), dict(band_near_form=6)])
def test_gpu_windows_v19_near_forms_same_bits_and_cpu(monkeypatch, variant):
    """The production with the near part's zero terms left out and / or the loops as one pass (``band_near_form``):
    23 x 300 and 23 x 140 nt against the CPU, and 23 x 700 after 333 nt equal to the production's (v18's) to the last
    bit (with a ring of 2: to the production's after a ring of 2)."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_near_form=0, band_pipe=variant.get("band_pipe", 3)))
