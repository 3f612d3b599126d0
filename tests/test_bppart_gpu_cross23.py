"""The windowed BPPart fill with the cross products' row tiles in pairs (v23, ``band_cross_pairs``: row tiles 2 P and
2 P + 1 of a column tile as a thread-block cluster of 2 blocks in step, each B chunk copied from memory once, half by
each block, the other half read from the peer's shared memory; the cluster barrier's arrival released (1) or relaxed
(2)): against the CPU on random pairs with small tiles and NaN-filled fresh tables (target windows of 1 to 30 bases:
pairs whose chunks line up and pairs that run alone), with both sums a block and the split among blocks; at the
production sizes and window 128 against the CPU, and every number equal to the production's (blocks alone) to the last
bit, in launches of several lengths (odd numbers of row tiles: a pair's second tile empty). Marker ``gpu``."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     poisoned_tables)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, wn, shape, apart, pairs", [
    (*WEIGHTS[0], 16, 32, 16, 16, 1, True, 1),      # 16 x 32 tiles, 16-column warps, m16n8k4, a block a sum
    (*WEIGHTS[1], 16, 32, 8, 32, 0, False, 2),      # chunks of 8, m8n8k4, both sums a block, relaxed arrival
    (*WEIGHTS[0], 32, 64, 32, 32, 3, True, 2),      # the production's tiles (dynamic ring), m16n8k16
    (*WEIGHTS[1], 32, 64, 32, 32, 3, False, 1),     # the same, both sums a block
])
def test_gpu_windows_v23_pairs_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, wn, shape, apart,
                                         pairs):
    """The cross ring with row tiles in pairs (v23): the CPU's numbers (small launches: the query splits shared among
    blocks too, added atomically)."""
    from bioaccel.interact import _partition_launch
    from bioaccel.interact._partition_band_sizes import band_cross_paired

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=False, band_warp_cols=wn, band_mma_shape=shape,
                                              band_streams=2, band_sums_apart=apart, band_cross_pairs=pairs)
    assert band_cross_paired(sizes)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_cross_pairs=1), dict(band_cross_pairs=2),
                                     dict(band_cross_pairs=2, band_bases=400),
                                     dict(band_cross_pairs=1, band_streams=1, band_bases=333),
                                     dict(band_cross_pairs=2, band_sums_apart=False)])
def test_gpu_windows_v23_pairs_same_bits_and_cpu(monkeypatch, variant):
    """The production with row tiles in pairs: 23 x 300 and 23 x 140 nt against the CPU, and 23 x 700 after 333 nt
    equal to the production's (blocks alone) to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_cross_pairs=0))
