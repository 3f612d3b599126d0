"""The windowed BPPart fill's outer terms with the sums of T0 and R shared by groups of levels (v29,
``band_outer_group`` G: bppart_band_outer_group<G, BLOCKS, LEAD>, a group's first level in its own kernel): against the
CPU, and equal to the production's (v25's pairs with R's sums in the other order, ``band_outer_pair`` 2) to the last
bit. Fresh tables hold NaN (the fixture of test_bppart_gpu_windows.py): a parked partial sum read before it is written
shows. Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu
from test_bppart_gpu_windows import poisoned_tables  # noqa: F401  (autouse here too)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("group, blocks", [(4, 5), (2, 5), (3, 4), (5, 5)])
def test_gpu_windows_v29_outer_groups_same_bits_and_cpu(monkeypatch, group, blocks):
    """Groups of 2 to 5 levels (the levels 5 .. 23 of a 23-nt query: whole groups and a last one cut short): 23 x 300
    and 23 x 140 nt against the CPU, and 23 x 700 after 333 nt equal to the production's to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, dict(band_outer_group=group, band_outer_blocks=blocks), {})


@pytest.mark.parametrize("au, gu, tile, blocks, group, outer_blocks",
                         [(*WEIGHTS[0], 8, 16, 3, 4), (*WEIGHTS[1], 16, 4, 4, 5)])
def test_gpu_windows_v29_outer_groups_equal_cpu(small_launch_sizes, monkeypatch, au, gu, tile, blocks, group,
                                                outer_blocks):
    """As v15's pairs' test (queries of 1 to 12 nt, query windows of 3 and 5: groups cut by the last level) with the
    levels in groups of 3 and 4."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=tile,
                                              band_tile_blocks=blocks, band_pipe=3, band_far=2, band_warp=True,
                                              band_lanes=True, band_trim=True, band_lean=True, band_streams=2,
                                              band_outer_pair=2, band_outer_group=group,
                                              band_outer_blocks=outer_blocks)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)
