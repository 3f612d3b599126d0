"""The windowed BPPart sweep's one-warp near part in the forms of v20 (``band_near_form``: bit 0, a step's loads of its
cell's values issued at the top of the step; bit 1, the near part by two warps, half of each sum's terms a warp; bit 2,
the near warp on a scheduler no other block of its multiprocessor has claimed; bit 3, one lane a cell, no shuffle): against
the CPU on random pairs with small launches and NaN-filled fresh tables (target windows of 1 to 13 bases), with 16- and
8-tiles, rings of 2 and 3, the sweep split or not; at the production sizes and window 128 against the CPU, and every
number equal to the production's (``band_near_form`` 0) to the last bit, launches of several lengths. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, form, tile, pipe, split", [
    (*WEIGHTS[0], 1, 16, 3, True),       # the cell's loads first, the production's sweep otherwise
    (*WEIGHTS[1], 2, 16, 3, True),       # two near warps
    (*WEIGHTS[0], 3, 16, 3, True),       # both
    (*WEIGHTS[1], 3, 16, 2, True),       # ... after a ring of 2
    (*WEIGHTS[0], 2, 16, 3, False),      # ... the sweep not split (the outer terms in it)
    (*WEIGHTS[1], 1, 8, 3, True),        # the cell's loads first at 8-tiles (two warps need 16-tiles)
    (*WEIGHTS[0], 4, 16, 3, True),       # a claimed scheduler
    (*WEIGHTS[1], 5, 16, 2, True),       # ... with the cell's loads first, after a ring of 2
    (*WEIGHTS[0], 8, 16, 3, True),       # one lane a cell
    (*WEIGHTS[1], 8, 8, 3, True),        # ... at 8-tiles
])
def test_gpu_windows_v20_near_forms_equal_cpu(small_launch_sizes, monkeypatch, au, gu, form, tile, pipe, split):
    """The one-warp near part's v20 forms (``band_near_form``): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=split, band_tile=tile,
                                              band_tile_blocks=4 if tile == 16 else 16, band_lanes=True,
                                              band_trim=True, band_pipe=pipe, band_far=2, band_warp=True,
                                              band_near_form=form, band_streams=2)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_near_form=1), dict(band_near_form=2), dict(band_near_form=3),
                                     dict(band_near_form=3, band_bases=400),
                                     dict(band_near_form=2, band_streams=1, band_bases=333),
                                     dict(band_near_form=3, band_pipe=2), dict(band_near_form=4),
                                     dict(band_near_form=5, band_bases=400), dict(band_near_form=8),
                                     dict(band_near_form=8, band_streams=1, band_bases=333)])
def test_gpu_windows_v20_near_forms_same_bits_and_cpu(monkeypatch, variant):
    """The production with the v20 near forms (``band_near_form``): 23 x 300 and 23 x 140 nt against the CPU, and
    23 x 700 after 333 nt equal to the production's to the last bit (with a ring of 2: to the production's after a ring
    of 2)."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_near_form=0, band_pipe=variant.get("band_pipe", 3)))
