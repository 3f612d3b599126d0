"""The windowed BPPart cross products' operands copied 16 bytes a cp.async or a row a bulk copy (v16, ``band_copy16``:
a band row's cells lie 8-byte aligned only, so each row segment is staged from its 16-byte aligned pair, one double to
the right where it starts 8 bytes off 16): against the CPU on random pairs with small tiles and NaN-filled fresh tables (target windows
of 1 to 13 bases: odd and even rows of W1 cells, so both parities of a row's start), at the production sizes and window
128, and every number equal to the production's (8-byte copies) to the last bit, launches of several lengths (the
tables' intervals S = (n + 1) W1 apart: both parities of an interval's start). Marker ``gpu``."""
import random

import numpy as np
import pytest

from bioaccel.interact import PartitionParams
from test_bppart_gpu_windows import (WEIGHTS, _cpu, _gpu, _random_pairs_equal_cpu, _same_windows,  # noqa: F401
                                     poisoned_tables, random_rna)

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("au, gu, rows, cols, chunk, ring, copy16, form, wn", [
    (*WEIGHTS[0], 16, 32, 8, 2, 1, -1, 32),      # .cg, chunks of 8, a ring of 2
    (*WEIGHTS[1], 16, 32, 8, 3, 2, -1, 32),      # .ca, a ring of 3
    (*WEIGHTS[0], 32, 64, 32, 2, 1, -1, 32),     # the production's 32 x 64 x 32 (dynamic ring of 2)
    (*WEIGHTS[1], 32, 64, 32, 2, 2, -1, 32),
    (*WEIGHTS[0], 16, 32, 32, 3, 1, 3, 16),      # the skip forms, warps of 16 columns, chunks of 32, a ring of 3
    (*WEIGHTS[1], 32, 64, 32, 2, 1, 1, 32),      # the skip a chunk at a time at 32 x 64 x 32
    (*WEIGHTS[0], 16, 32, 8, 2, 3, -1, 32),      # a row's band cells a bulk copy (zeros stored after), a ring of 2
    (*WEIGHTS[1], 32, 64, 32, 2, 3, -1, 32),     # ... at 32 x 64 x 32
    (*WEIGHTS[1], 16, 32, 32, 3, 3, 3, 16),      # ... with the skip forms, warps of 16 columns, a ring of 3
])
def test_gpu_windows_v16_copies16_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, ring, copy16,
                                            form, wn):
    """The cross ring with 16-byte copies (.cg, .ca) or a bulk copy a row against the CPU to 1e-12: queries of 1 to 12 nt, targets of 1 to
    150 nt in pieces of 40 bases, windows of 1 to 13 bases; with the skip forms and warps of 16 columns."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=ring,
                                              band_skip=form >= 0, band_skip_form=max(form, 0), band_streams=2,
                                              band_warp_cols=wn, band_copy16=copy16)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("copy16", [1, 2, 3])
def test_gpu_windows_v16_production_sizes_at_window_128(monkeypatch, copy16):
    """23 x 300 and 23 x 140 nt at --window-target 128, the production sizes with 16-byte or bulk copies: the CPU's."""
    from bioaccel.interact import _partition_launch

    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(band_copy16=copy16))
    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))


@pytest.mark.parametrize("variant", [
    dict(band_copy16=1), dict(band_copy16=2),
    dict(band_copy16=1, band_bases=400), dict(band_copy16=1, band_streams=1, band_bases=333),
    dict(band_copy16=1, band_chunk=16, band_blocks=4), dict(band_copy16=1, band_skip=True, band_skip_form=1),
    dict(band_copy16=3), dict(band_copy16=3, band_bases=400), dict(band_copy16=3, band_streams=1, band_bases=333),
    dict(band_copy16=3, band_ring=3, band_blocks=2),
])
def test_gpu_windows_v16_copies16_same_bits_as_production(monkeypatch, variant):
    """23 x 700 nt after a 333-nt target (and cut into launches of at most 400 or 333 bases: launches of other
    lengths), window 128: every log and window number of the 16-byte and bulk copies equal to the production's to the last
    bit (the production with the variant's launch lengths, so only the copies differ)."""
    from bioaccel.interact import _partition_launch

    rng = random.Random(13)
    q, t, other = random_rna(rng, 23), random_rna(rng, 700), random_rna(rng, 333)
    params = PartitionParams(window_target=128)
    same = {k: v for k, v in variant.items() if k in ("band_bases", "band_streams")}
    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(**same))
    production = _gpu(q, [other, t], params)
    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(**variant))
    for got, expected in zip(_gpu(q, [other, t], params), production):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
            assert getattr(got, name) == getattr(expected, name), name
        for name in ("log_zs", "log_zs_interaction", "probabilities"):
            assert np.array_equal(getattr(got, name), getattr(expected, name)), name


@pytest.mark.parametrize("au, gu, rows, cols, chunk, align", [
    (*WEIGHTS[0], 16, 32, 8, 16),       # a launch's matrices on 128-byte lines (n + 1 a multiple of 16)
    (*WEIGHTS[1], 32, 64, 32, 16),      # ... at 32 x 64 x 32
    (*WEIGHTS[0], 16, 32, 8, 7),        # ... n + 1 a multiple of 7 (odd and even n, any filler)
])
def test_gpu_windows_v16_aligned_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, align):
    """A launch's bases padded with filler after its last piece (v16, ``band_align``): the CPU's numbers."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=2, band_streams=2,
                                              band_align=align)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("variant", [dict(band_align=16), dict(band_align=16, band_bases=400),
                                     dict(band_align=16, band_streams=1, band_bases=333), dict(band_align=5)])
def test_gpu_windows_v16_aligned_same_bits_and_cpu(monkeypatch, variant):
    """The production with a launch's matrices aligned (``band_align``): 23 x 300 and 23 x 140 nt against the CPU, and
    23 x 700 after 333 nt (launches of other lengths) equal to the unaligned production's to the last bit."""
    from bioaccel.interact import _partition_launch

    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    base = _partition_launch.SIZES
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(**variant))
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))
    rng = random.Random(13)
    q, t, other = random_rna(rng, 23), random_rna(rng, 700), random_rna(rng, 333)
    got = _gpu(q, [other, t], params)
    same = {k: v for k, v in variant.items() if k in ("band_bases", "band_streams")}
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(**same))
    for g, expected in zip(got, _gpu(q, [other, t], params)):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
            assert getattr(g, name) == getattr(expected, name), name
        for name in ("log_zs", "log_zs_interaction", "probabilities"):
            assert np.array_equal(getattr(g, name), getattr(expected, name)), name
