"""The windowed BPPart cross products' runs with their copies issued from a cursor (v30, docs/bppart-gpu-notes.md):
``band_cross_hoist`` 1, the runs' kernel with FORM bit 17; 2 (the production's since v30), that kernel at every level, a
run of one interval where ``band_cross_run`` gives 1; with runs of T = 16 (the production's since v30), 8 and 4. Each to
the last bit one interval a block (the kernels before v28), and the CPU's numbers: on random pairs with small tiles and
NaN-filled fresh tables (the query splits shared among blocks too, added atomically; two accumulator chains; unaligned
launches), at the production sizes and window 128, and in pieces on one stream. The kernels the host picks (pure
Python). Marker ``gpu`` on the GPU tests."""
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _form_same_bits_and_cpu, _random_pairs_equal_cpu,  # noqa: F401
                                     _variant_equals_cpu, poisoned_tables)

#: one interval a block, the one-interval kernel at every level (before v28)
ONE_A_BLOCK = dict(band_cross_hoist=0, band_cross_run=0)


def test_v30_forms_pick_their_kernels():
    """``band_cross_hoist`` sets FORM bit 17 only on the runs' kernel (the one-interval kernel stays v28's), 2 launches
    it at every level; without runs (``band_cross_run`` 0 or blocks of both sums) neither."""
    from bioaccel.interact._partition_band_sizes import band_cross_kernel, band_cross_runs_everywhere
    from bioaccel.interact._partition_launch import SIZES

    base = SIZES.replace(band_cross_copy16=0)       # (v37c's pairs, the default since, need the cursor: bits apart)
    before = base.replace(band_cross_hoist=0)
    for hoist in (1, 2):
        sizes = base.replace(band_cross_hoist=hoist)
        assert band_cross_kernel(sizes)[1][9] == band_cross_kernel(before)[1][9] | 131072
        assert band_cross_kernel(sizes.replace(band_cross_run=0)) == band_cross_kernel(before.replace(band_cross_run=0))
        assert band_cross_runs_everywhere(sizes) == (hoist == 2)
    assert not band_cross_runs_everywhere(before)
    assert not band_cross_runs_everywhere(SIZES.replace(band_cross_run=0))
    assert not band_cross_runs_everywhere(SIZES.replace(band_sums_apart=False))


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu, rows, cols, chunk, skip, wn, shape, chains, run, hoist, align", [
    (*WEIGHTS[0], 16, 32, 8, -1, 16, 1, 1, 4, 2, 0),      # m16n8k4, 16-column warps, runs of 4 and 1; unaligned
    (*WEIGHTS[1], 32, 64, 16, 3, 32, 2, 2, 3, 1, 16),     # the skip forms, m16n8k8, two chains, runs over 1 only
    (*WEIGHTS[0], 32, 64, 32, -1, 32, 3, 1, 100, 2, 0),   # the production's tiles: every interval a block
])
def test_gpu_windows_v30_cross_hoist_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, skip, wn,
                                              shape, chains, run, hoist, align):
    """The runs' copies from a cursor: the CPU's numbers (small launches: the query splits shared among blocks, added
    atomically; fresh tables NaN; launches unaligned (``band_align`` 0), so that some end on a row tile's first row, a
    tile without products)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2 if chunk < 32 else 3,
                                              band_skip=skip >= 0, band_skip_form=max(skip, 0), band_warp_cols=wn,
                                              band_mma_shape=shape, band_chains=chains, band_streams=2,
                                              band_sums_apart=True, band_cross_run=run, band_cross_hoist=hoist,
                                              band_align=align)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.gpu
@pytest.mark.parametrize("variant", [dict(), dict(band_cross_hoist=2, band_cross_run=8),
                                     dict(band_cross_hoist=1, band_cross_run=8),
                                     dict(band_cross_hoist=0, band_cross_run=4)])
def test_gpu_windows_v30_same_bits_and_cpu(monkeypatch, variant):
    """The production (hoisted runs of 16 at every level) and the other v30 forms at the production's sizes: 23 x 300
    and 23 x 140 against the CPU, and equal to the last bit to one interval a block at 23 x 700 after 333 nt."""
    _form_same_bits_and_cpu(monkeypatch, variant, ONE_A_BLOCK)


@pytest.mark.gpu
def test_gpu_windows_v30_in_pieces_equal_cpu(monkeypatch):
    """The production's hoisted runs in launches of 333 bases on one stream: the CPU's numbers to 1e-12."""
    _variant_equals_cpu(monkeypatch, dict(band_bases=333, band_streams=1))
