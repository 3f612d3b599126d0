"""The windowed BPPart cross products with a block a run of query intervals (v28, ``band_cross_run`` T: at level l1 a
block takes max(1, T // (l1 - 1)) intervals one after the other through one ring, the levels where that is 1 the kernel
without runs): each interval's sums taken and stored as by a block of its own, so the numbers of the production (one
interval a block) to the last bit; against the CPU on random pairs with small tiles and NaN-filled fresh tables (the
query splits shared among blocks too, added atomically; two accumulator chains), at the production sizes and window
128, and in pieces on one stream. The runs' lengths and the grid they give (pure Python). Marker ``gpu`` on the GPU
tests."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     _variant_equals_cpu, poisoned_tables)


@pytest.mark.parametrize("run", [1, 4, 8, 24, 100])
def test_cross_run_covers_every_interval_once(run):
    """At every level of a 23-nt query, the blocks along grid y (ceil(mats / per)) and their runs of ``per`` intervals
    (the last one shorter) take each query interval once; ``band_cross_run`` 0 or the form's absence: one a block (the
    production's: 8 from v28, 16 from v30)."""
    from bioaccel.interact._partition_band_sizes import band_cross_run
    from bioaccel.interact._partition_launch import SIZES

    sizes = SIZES.replace(band_cross_run=run)
    for l1 in range(2, 24):
        mats = 24 - l1
        per = band_cross_run(sizes, l1, mats)
        assert 1 <= per <= mats and per == max(1, min(mats, run // (l1 - 1)))
        taken = [y * per + i for y in range(-(-mats // per)) for i in range(min(per, mats - y * per))]
        assert taken == list(range(mats))
    assert band_cross_run(SIZES.replace(band_cross_run=0), 2, 22) == 1 and band_cross_run(SIZES, 2, 22) == 16
    assert band_cross_run(sizes.replace(band_sums_apart=False), 2, 22) == 1
    assert band_cross_run(sizes.replace(band_group=4), 2, 22) == 1


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, wn, shape, chains, run, align", [
    (*WEIGHTS[0], 16, 32, 8, -1, 16, 1, 1, 4, 0),       # m16n8k4, 16-column warps, runs of up to 4; unaligned
    (*WEIGHTS[1], 32, 64, 16, 3, 32, 2, 2, 3, 16),      # the skip forms, m16n8k8, two chains
    (*WEIGHTS[0], 32, 64, 32, -1, 32, 3, 1, 100, 0),    # the production's tiles (dynamic ring): every interval a block
])
def test_gpu_windows_v28_cross_run_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip, wn,
                                            shape, chains, run, align):
    """The cross ring with a block a run of query intervals: the CPU's numbers (small launches: the query splits shared
    among blocks too, added atomically; fresh tables NaN, so a cell the runs leave unwritten shows; launches unaligned
    (``band_align`` 0), so that some end on a row tile's first row, a tile without products)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_warp_cols=wn,
                                              band_mma_shape=shape, band_chains=chains, band_streams=2,
                                              band_sums_apart=True, band_cross_run=run, band_align=align)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.gpu
@pytest.mark.parametrize("run", [4, 24])
def test_gpu_windows_v28_cross_run_same_bits_and_cpu(monkeypatch, run):
    """Runs of 4 (the levels l1 <= 5 in runs) and 24 (every level up to 13) at the production's sizes: 23 x 300 and
    23 x 140 against the CPU, and equal to the last bit to one interval a block at 23 x 700 after 333 nt."""
    _form_same_bits_and_cpu(monkeypatch, dict(band_cross_run=run), dict(band_cross_run=0))


@pytest.mark.gpu
def test_gpu_windows_v28_cross_run_in_pieces_equal_cpu(monkeypatch):
    """Runs of 8 in launches of 333 bases on one stream: the CPU's numbers to 1e-12."""
    _variant_equals_cpu(monkeypatch, dict(band_cross_run=8, band_bases=333, band_streams=1))
