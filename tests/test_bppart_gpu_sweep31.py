"""The windowed BPPart sweep's tiles in a pipeline (v31, ``band_near_pipe``: bppart_band_pipe), a block's 9th warp on
a tile's near part while its other 8 compute the next tile's far part: against the CPU on random pairs with small
launches and NaN-filled fresh tables (8- and 16-tiles, rings of 2 and 3, every diagonal or the full-chain ones only, the
last diagonal by the pipeline or by bppart_band_last; form 2 without a ring, ``band_near_pipe_ring`` 0:
bppart_band_pipe_direct), and at the production sizes and window 128 against the CPU and
equal to the production (bppart_band_tiles) to the last bit, in launches of several lengths on one stream. The tests
size the blocks as on one multiprocessor, so that their few tiles make blocks of several, and check that the pipeline
ran. The kernel the host picks (pure Python). Marker ``gpu`` on the GPU tests."""
import random

import pytest

from test_bppart_gpu_windows import (WEIGHTS, _cpu, _form_same_bits_and_cpu, _gpu, _same_windows,  # noqa: F401
                                     poisoned_tables, random_rna)
from bioaccel.interact import PartitionParams

#: the production's sweep (a block a tile)
A_TILE_A_BLOCK = dict(band_near_pipe=0)


def test_v31_pipe_picks_its_kernel_and_blocks():
    """The pipeline only around the production's sweep form; its blocks' tiles as even as whole waves allow, at most
    ``band_near_pipe``, on the full-chain diagonals (every d >= 1 with ``band_near_pipe_all``), at least 2."""
    from bioaccel.interact._partition_band_sizes import band_pipe_kernel, band_pipe_per
    from bioaccel.interact._partition_launch import SIZES

    sizes = SIZES.replace(band_near_pipe=8)
    assert band_pipe_kernel(SIZES) is None and band_pipe_per(SIZES, 129, 3, 15000, 132) == 0
    for other in (dict(band_split=False), dict(band_pipe=0), dict(band_far=1), dict(band_sweep="persistent"),
                  dict(band_near_pipe_ring=0, band_tile=8), dict(band_near_pipe_ring=0, band_far_shape=1)):
        assert band_pipe_kernel(sizes.replace(**other)) is None, other
    assert band_pipe_kernel(sizes.replace(band_near_pipe_ring=0))[0] == "bppart_band_pipe_direct"
    assert [band_pipe_per(sizes, 129, d, 15000, 132) for d in range(10)] == [0] + [8] * 7 + [0, 0]
    assert [band_pipe_per(sizes.replace(band_near_pipe_all=True), 129, d, 15000, 132) for d in (0, 8, 9)] == [0, 8, 8]
    for items in (800, 1250, 3000, 3169, 7000):
        per = band_pipe_per(sizes, 129, 4, items, 132)
        blocks = -(-items // per)
        assert 2 <= per <= 8 and per - 1 < items / (-(-blocks // 396) * 396) <= per, (items, per)


@pytest.fixture
def piped(monkeypatch):
    """The (tile diagonal, tiles a block) of each pipelined launch of the test, its blocks sized as on one
    multiprocessor (so that the tests' few tiles make blocks of several)."""
    from bioaccel.interact import _partition_band_tables
    from bioaccel.interact._partition_band_sizes import band_pipe_per

    runs = []

    def one_multiprocessor(sizes, L2, d, items, sms):
        per = band_pipe_per(sizes, L2, d, items, 1)
        if per:
            runs.append((d, per))
        return per

    monkeypatch.setattr(_partition_band_tables, "band_pipe_per", one_multiprocessor)
    return runs


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu, tile, blocks, shape, per, ring, every, lean, last", [
    (*WEIGHTS[0], 8, 16, 0, 2, 2, False, True, True),     # 8-tiles, the full-chain diagonals, blocks of 2
    (*WEIGHTS[1], 8, 16, 0, 3, 3, True, True, True),      # every diagonal, a ring of 3
    (*WEIGHTS[0], 16, 4, 3, 4, 2, True, False, True),     # 16-tiles (m16n8k16), the parked base (OUTER 0)
    (*WEIGHTS[1], 16, 4, 3, 8, 3, True, True, False),     # the last diagonal by the pipeline too
    (*WEIGHTS[0], 16, 4, 3, 3, 0, True, True, True),      # form 2: no ring, the far fragments from global memory
    (*WEIGHTS[1], 16, 4, 3, 2, 0, True, False, False),    # form 2, the parked base, the last diagonal by it
])
def test_gpu_windows_v31_pipe_equal_cpu(small_launch_sizes, monkeypatch, piped, au, gu, tile, blocks, shape, per, ring,
                                        every, lean, last):
    """The pipelined tiles: the CPU's numbers on random pairs (target windows of 8 to 48 bases, with and without a
    query window; fresh tables NaN; launches of a few pieces)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=tile,
                                              band_tile_blocks=blocks, band_lanes=True, band_trim=True, band_pipe=3,
                                              band_far=2, band_warp=True, band_far_shape=shape, band_lean=lean,
                                              band_last=last, band_near_pipe=per, band_near_pipe_ring=ring,
                                              band_near_pipe_all=every)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    rng = random.Random(int(au * 10 + gu * 100) + tile + per)
    for wq, wt in ((None, 8), (3, 31), (None, 48)):
        params = PartitionParams(au=au, gu=gu, window_query=wq, window_target=wt)
        targets = [random_rna(rng, n) for n in (150, 9, rng.randint(2, 60), 41, rng.randint(60, 200))]
        for q in (random_rna(rng, rng.randint(1, 12)), random_rna(rng, 12)):
            for t, got in zip(targets, _gpu(q, targets, params)):
                _same_windows(got, _cpu(q, t, params))
    assert piped and max(p for _, p in piped) >= 2


@pytest.mark.gpu
@pytest.mark.parametrize("variant", [
    dict(band_near_pipe=8),                                                     # the full-chain diagonals, ring of 2
    dict(band_near_pipe=4, band_near_pipe_ring=3, band_near_pipe_all=True),     # every diagonal but the last kernel's
    dict(band_near_pipe=8, band_near_pipe_all=True, band_last=False),           # the last diagonal by the pipeline
    dict(band_near_pipe=8, band_streams=1, band_bases=333),                     # launches of other lengths
    dict(band_near_pipe=8, band_near_pipe_ring=0),                              # form 2
    dict(band_near_pipe=8, band_near_pipe_ring=0, band_near_pipe_all=True, band_last=False),
    dict(band_near_pipe=8, band_near_pipe_ring=0, band_streams=1, band_bases=333),
])
def test_gpu_windows_v31_pipe_same_bits_and_cpu(monkeypatch, piped, variant):
    """The production with the pipelined tiles: 23 x 300 and 23 x 140 nt against the CPU, and 23 x 700 after 333 nt
    equal to a tile a block (bppart_band_tiles) to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, A_TILE_A_BLOCK)
    assert piped
