"""The windowed BPPart outer terms without the loads of query intervals that cannot close (v33,
docs/bppart-gpu-notes.md): ``band_outer_open``, bppart_band_outer_pair's OPEN, skips a level's AUX0 sum and QX's
inner cell where w1 of the query interval's end bases is 0 (s0 and both are 0 whatever they hold), and role 1 parks
the next level's AUX0 sum only where that level's interval can close (the production's since v33). Equal to the last
bit to the kernel before v33 (``band_outer_open`` False) at several target lengths, both weight settings and pair scores of 0, on svRNA-like
purine-rich queries (most intervals open) and a query half of whose intervals can close; the CPU's numbers on random pairs
with small launches and NaN-filled fresh tables (a skipped park read back would show). The kernel the host picks
(pure Python). Marker ``gpu`` on the GPU tests."""
import random

import numpy as np
import pytest

from test_bppart_gpu_windows import (WEIGHTS, _gpu, _random_pairs_equal_cpu, _variant_equals_cpu,  # noqa: F401
                                     poisoned_tables, random_rna)

#: purine-rich queries like the SARS-CoV svRNAs (examples/sars-cov-svrna.fa: 82-94% of their splits open)
SVRNA_LIKE = ["GAGGAAGAAGAGGACGAT", "GAGGAAGAAGAAGAGGAAGACT", "AGGAACTGGCCCAGAAGCTTC"]
#: a query whose intervals of every even length can close (G at even places, C or U at odd ones: half its intervals)
CLOSING = "GCGUGCGUGCGUGCGUGCGUGCG"


def test_v33_open_picks_its_kernel():
    """``band_outer_open`` (the production's) sets the pairs' kernel's OPEN, with R's sum in either order, and leaves
    the levels' roles; without pairs it picks none."""
    from bioaccel.interact._partition_band_sizes import band_outer_kernel, band_outer_role
    from bioaccel.interact._partition_launch import SIZES

    before = SIZES.replace(band_outer_open=False)
    assert band_outer_kernel(SIZES) == ("bppart_band_outer_pair", (True, True))
    assert band_outer_kernel(before) == ("bppart_band_outer_pair", (True, False))
    for pair in (1, 2):
        sizes = SIZES.replace(band_outer_open=True, band_outer_pair=pair)
        assert band_outer_kernel(sizes) == ("bppart_band_outer_pair", (pair == 2, True))
        assert [band_outer_role(sizes, l1, 23) for l1 in range(1, 24)] == \
            [band_outer_role(before.replace(band_outer_pair=pair), l1, 23) for l1 in range(1, 24)]
    assert band_outer_kernel(SIZES.replace(band_outer_open=True, band_outer_pair=0)) == ("bppart_band_outer_lean", ())


def _same_bits(got, expected):
    """Every log and window array of two lists of GPU rows equal to the last bit."""
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
            assert getattr(g, name) == getattr(e, name), name
        for name in ("log_zs", "log_zs_interaction", "probabilities"):
            assert np.array_equal(getattr(g, name), getattr(e, name)), name


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu", [*WEIGHTS, (0.0, 0.0)])
@pytest.mark.parametrize("pair", [2, 1])
def test_gpu_windows_v33_open_same_bits_as_before(monkeypatch, au, gu, pair):
    """At the production's sizes and window 128: svRNA-like queries, the closing query and a random 23-mer against
    targets of 700 (after 333 nt: launches of other lengths), 140 and 40 nt, to the last bit the kernel's before v33."""
    from bioaccel.interact import PartitionParams, _partition_launch

    base = _partition_launch.SIZES.replace(band_outer_pair=pair, band_outer_open=False)
    rng = random.Random(49)
    targets = [random_rna(rng, 333), random_rna(rng, 700), random_rna(rng, 140), random_rna(rng, 40)]
    params = PartitionParams(au=au, gu=gu, window_target=128)
    for q in SVRNA_LIKE + [CLOSING, random_rna(rng, 23)]:
        monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_outer_open=True))
        got = _gpu(q, targets, params)
        monkeypatch.setattr(_partition_launch, "SIZES", base)
        _same_bits(got, _gpu(q, targets, params))


@pytest.mark.gpu
@pytest.mark.parametrize("au, gu, tile, blocks, pair", [(*WEIGHTS[0], 8, 16, 2), (*WEIGHTS[1], 16, 4, 1),
                                                       (0.0, 0.0, 16, 4, 2)])
def test_gpu_windows_v33_open_equal_cpu(small_launch_sizes, monkeypatch, au, gu, tile, blocks, pair):
    """Small launches (pieces of 40 bases, several launches a target), the outer terms' levels in pairs with OPEN, on
    random pairs and NaN-filled fresh tables: the CPU's numbers to 1e-12."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=tile,
                                              band_tile_blocks=blocks, band_pipe=3, band_far=2, band_warp=True,
                                              band_lanes=True, band_trim=True, band_lean=True, band_streams=2,
                                              band_outer_pair=pair, band_outer_open=True)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.gpu
@pytest.mark.parametrize("open_", [True, False])
def test_gpu_windows_v33_open_production_sizes_equal_cpu(monkeypatch, open_):
    """The production's sizes with OPEN and without: 23 x 300 and 23 x 140 nt at window 128 against the CPU."""
    _variant_equals_cpu(monkeypatch, dict(band_outer_open=open_))
