"""The windowed BPPart cross products with a block a run of query intervals (v28, ``band_cross_run`` T: at level l1 a
block takes max(1, T // (l1 - 1)) intervals one after the other through one ring), and with the grid's column places
cut to the last one that holds band cells (``band_cross_places``): each interval's sums taken and stored as by a block
of its own, so the numbers of the production (one interval a block, every place) to the last bit; against the CPU on
random pairs with small tiles and NaN-filled fresh tables (the query splits shared among blocks too, added atomically;
two accumulator chains), at the production sizes and window 128, and in pieces on one stream. The runs' lengths, the
grid they give and the last place (pure Python). Marker ``gpu`` on the GPU tests."""
import random

import pytest

from test_bppart_gpu_windows import (WEIGHTS, PartitionParams, _cpu, _form_same_bits_and_cpu, _gpu,  # noqa: F401
                                     _random_pairs_equal_cpu, _same_windows, poisoned_tables, random_rna)


@pytest.mark.parametrize("run", [1, 4, 8, 24, 100])
def test_cross_run_covers_every_interval_once(run):
    """At every level of a 23-nt query, the blocks along grid y (ceil(mats / per)) and their runs of ``per`` intervals
    (the last one shorter) take each query interval once; ``band_cross_run`` 0 or the form's absence: one a block."""
    from bioaccel.interact._partition_band_sizes import band_cross_run
    from bioaccel.interact._partition_launch import SIZES

    sizes = SIZES.replace(band_cross_run=run)
    for l1 in range(2, 24):
        mats = 24 - l1
        per = band_cross_run(sizes, l1, mats)
        assert 1 <= per <= mats and per == max(1, min(mats, run // (l1 - 1)))
        taken = [y * per + i for y in range(-(-mats // per)) for i in range(min(per, mats - y * per))]
        assert taken == list(range(mats))
    assert band_cross_run(SIZES, 2, 22) == 1
    assert band_cross_run(sizes.replace(band_sums_apart=False), 2, 22) == 1
    assert band_cross_run(sizes.replace(band_group=4), 2, 22) == 1


@pytest.mark.parametrize("rows, cols", [(32, 64), (16, 32), (16, 8), (64, 32), (32, 32), (64, 64)])
def test_cross_last_place_holds_every_band_tile(rows, cols):
    """Every (row tile, place) whose tile holds a band cell (column - row in 0 .. L2, brute force over its cells) lies
    at a place up to band_cross_last_place, and some row tile's tile at that place holds one."""
    from bioaccel.interact._partition_band_sizes import band_cross_last_place

    for L2 in (0, 1, 4, 12, 30, 31, 32, 33, 63, 64, 128, 129, 200):
        D = band_cross_last_place(rows, cols, L2)
        seen = set()
        for I in range(2 * cols):
            r0 = I * rows
            for place in range((rows + L2 - 1) // cols + 3):
                c0 = (r0 // cols + place) * cols
                if any(0 <= c - r <= L2 for r in range(r0, r0 + rows) for c in range(c0, c0 + cols)):
                    seen.add(place)
        assert max(seen) == D, (rows, cols, L2)
        assert D <= (rows + L2 - 1) // cols + 1


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, wn, shape, chains, run, places, align", [
    (*WEIGHTS[0], 16, 32, 8, -1, 16, 1, 1, 4, False, 0),     # m16n8k4, 16-column warps, runs of up to 4; unaligned
    (*WEIGHTS[1], 32, 64, 16, 3, 32, 2, 2, 3, True, 16),     # the skip forms, m16n8k8, two chains; no empty place
    (*WEIGHTS[0], 32, 64, 32, -1, 32, 3, 1, 100, True, 0),   # the production's tiles (dynamic ring): every interval a block
    (*WEIGHTS[1], 16, 32, 8, -1, 32, 1, 1, 0, True, 16),     # one interval a block, no empty place
])
def test_gpu_windows_v28_cross_run_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip, wn,
                                            shape, chains, run, places, align):
    """The cross ring with a block a run of query intervals: the CPU's numbers (small launches: the query splits shared
    among blocks too, added atomically; fresh tables NaN, so a cell the runs leave unwritten shows; launches unaligned
    (``band_align`` 0), so that some end on a row tile's first row, a tile without products)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_warp_cols=wn,
                                              band_mma_shape=shape, band_chains=chains, band_streams=2,
                                              band_sums_apart=True, band_cross_run=run, band_cross_places=places,
                                              band_align=align)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", [dict(band_cross_run=4), dict(band_cross_run=24, band_cross_places=True),
                                     dict(band_cross_places=True)])
def test_gpu_windows_v28_cross_run_same_bits_and_cpu(monkeypatch, variant):
    """Runs of 4 (the levels l1 <= 5 in runs) and 24 (every level up to 13), the grid without its empty place, at the
    production's sizes: 23 x 300 and 23 x 140 against the CPU, and equal to the last bit to one interval a block with
    every place at 23 x 700 after 333 nt."""
    _form_same_bits_and_cpu(monkeypatch, variant, dict(band_cross_run=0, band_cross_places=False))


@pytest.mark.gpu
def test_gpu_windows_v28_cross_run_in_pieces_equal_cpu(monkeypatch):
    """Runs of 8 without the empty place in launches of 333 bases on one stream: the CPU's numbers to 1e-12."""
    from bioaccel.interact import _partition_launch

    sizes = _partition_launch.SIZES.replace(band_cross_run=8, band_cross_places=True, band_bases=333, band_streams=1)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))
