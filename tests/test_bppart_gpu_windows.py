"""BPPart with target windows on the GPU (kernels/bppart_band.cu) against the CPU's sweep
(_partition_band, itself checked against the naive reference and brute force in test_bppart_windows.py):
every log and every window's log Z and probability equal to 1e-12 relative, on random pairs with the
tests' small launch sizes (16 x 8 product tiles split among blocks, 8-cell sweep tiles, targets cut into
pieces of 40 bases: many pieces and launches, the pieces of several targets in one launch), at the
production sizes on a longer pair, scaled (a given scale: the CPU's scales) and plain, the API's sites
and the command line. Marker ``gpu``: skipped where there is no CUDA device."""
import io
import math
import random

import numpy as np
import pytest

from bioaccel.errors import NotAvailable
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams, bppart
from bioaccel.interact._partition_windows import windowed_partition

pytestmark = pytest.mark.gpu


@pytest.fixture(autouse=True)
def poisoned_tables(monkeypatch):
    """Every launch group's fresh device tables filled with NaN (the production leaves them unset): a cell
    read before its launch writes it would make a log or a probability NaN, or differ from the CPU."""
    from bioaccel.interact import _partition_band_gpu

    monkeypatch.setattr(_partition_band_gpu, "FRESH_FILL", math.nan)

WEIGHTS = [(0.5, 1.0), (1.0, 1.5)]


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def _close(x, y, rel=1e-12):
    if y == -math.inf:
        assert x == -math.inf, (x, y)
    else:
        assert math.isfinite(x) and abs(x - y) <= rel * max(1.0, abs(y)), (x, y)


def _same_windows(got, expected):
    """Every log of two Windowed (or of a GPU row and a CPU Windowed) to 1e-12, the per-window arrays too."""
    for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
        _close(getattr(got, name), getattr(expected, name))
    assert got.log_zs.shape == expected.log_zs.shape
    finite = np.isfinite(expected.log_zs_interaction)
    assert (np.isfinite(got.log_zs_interaction) == finite).all()
    scale = np.maximum(1.0, np.abs(expected.log_zs))
    assert (np.abs(got.log_zs - expected.log_zs) <= 1e-12 * scale).all()
    assert (np.abs(got.log_zs_interaction[finite] - expected.log_zs_interaction[finite])
            <= 1e-12 * np.maximum(1.0, np.abs(expected.log_zs_interaction[finite]))).all()
    assert (np.abs(got.probabilities - expected.probabilities) <= 1e-12).all()


def _cpu(q, t, params):
    a, rb = encode(q), np.ascontiguousarray(encode(t)[::-1])
    L1, L2 = params.spans(len(a), len(rb))
    return windowed_partition(a, rb, params, L1, L2, 1, False)


def _gpu(q, targets, params):
    from bioaccel.interact._partition_band_gpu import gpu_windows

    return gpu_windows(encode(q), [np.ascontiguousarray(encode(t)[::-1]) for t in targets], params)


@pytest.mark.parametrize("au, gu, sweep, prefetch, cols, strip, split, tile, blocks, lanes, trim, pipe, far, warp, dynamic", [
    (*WEIGHTS[0], "persistent", True, 32, False, True, 8, 16, True, True, 0, 0, False, False),   # tensor cores, split, lanes
    (*WEIGHTS[1], "launches", False, 8, False, False, 8, 0, False, False, 0, 0, False, False),   # FMA products, first sweep
    (*WEIGHTS[1], "launches", True, 32, False, True, 16, 0, True, True, 0, 0, False, False),     # split sweep of 16-tiles
    (*WEIGHTS[0], "launches", True, 8, False, True, 8, 16, False, True, 0, 0, False, False),     # FMA, split, a thread a cell
    (*WEIGHTS[1], "launches", True, 32, False, True, 8, 16, True, True, 3, 0, False, False),     # far part: cp.async ring of 3
    (*WEIGHTS[0], "launches", True, 32, False, True, 8, 16, True, True, 2, 1, False, False),     # ring of 2, two-k row loads
    (*WEIGHTS[1], "launches", True, 32, False, True, 8, 16, True, True, 3, 2, False, False),     # ring of 3, tensor cores
    (*WEIGHTS[0], "launches", True, 32, False, True, 16, 4, True, True, 3, 1, False, False),     # 16-tiles, ring of 3, two-k
    (*WEIGHTS[1], "launches", True, 32, False, True, 16, 4, True, True, 2, 2, False, False),     # 16-tiles, ring of 2, tensor
    # the near part by one warp (v7): after a ring of 2 on tensor cores (call 1's production), a ring of 3, registers
    # a step ahead, persistent grids, the first sweep (not split, not trimmed)
    (*WEIGHTS[0], "launches", True, 32, False, True, 16, 4, True, True, 2, 2, True, False),
    (*WEIGHTS[1], "launches", True, 32, False, True, 8, 16, True, True, 2, 2, True, False),
    (*WEIGHTS[0], "launches", True, 32, False, True, 8, 16, True, True, 3, 1, True, False),
    (*WEIGHTS[1], "launches", True, 32, False, True, 16, 4, True, True, 0, 0, True, False),
    (*WEIGHTS[1], "persistent", True, 32, False, True, 8, 8, False, False, 0, 0, True, False),
    (*WEIGHTS[0], "launches", False, 8, False, False, 16, 0, False, False, 0, 0, True, False),
    # rings of 3 and 2 in dynamic shared memory (rows padded to B + 4), one warp's near part or lanes
    (*WEIGHTS[0], "launches", True, 32, False, True, 16, 4, True, True, 3, 2, True, True),
    (*WEIGHTS[1], "launches", True, 32, False, True, 8, 16, True, True, 3, 2, False, True),
])
def test_gpu_windows_equal_cpu_on_random_pairs(small_launch_sizes, monkeypatch, au, gu, sweep, prefetch, cols, strip,
                                               split, tile, blocks, lanes, trim, pipe, far, warp, dynamic):
    """Queries of 1 to 12 nt against a batch of targets of 1 to 150 nt (pieces of 40 bases: a long target
    in several launches, short ones together), target windows of 1 to 13 bases, query windows too; the
    sweep persistent or a launch per tile diagonal, split (bppart_band_outer first) or not, its near part
    a thread a cell, a group of lanes or one warp, its far part on whole tiles or trimmed to the band's rows and
    columns, its far part's tiles loaded a step ahead into registers or copied by cp.async into a ring of
    2 or 3 stages (its products' row operands read one or two k at a time, or on tensor cores), the cross products on tensor cores (16 x 32 tiles) or FMA (16 x 8), their loads
    prefetched or not. Fresh tables hold NaN (tests/conftest.py): a cell read before it is written shows."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep=sweep, band_prefetch=prefetch, band_cols=cols,
                                              band_strip=strip, band_split=split, band_tile=tile, band_tile_blocks=blocks,
                                              band_lanes=lanes, band_trim=trim, band_pipe=pipe,
                                              band_far=far, band_warp=warp, band_dynamic=dynamic)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("au, gu, ring, skip, streams, group", [
    (*WEIGHTS[0], 2, False, 1, 0),       # the cross products' ring (v8) of 2 chunks across the query splits
    (*WEIGHTS[1], 3, True, 1, 0),        # a ring of 3, warps skipping steps without band products
    (*WEIGHTS[0], 4, True, 2, 0),        # a ring of 4; launches on two streams, each with its tables
    (*WEIGHTS[1], 0, False, 3, 0),       # v7's cross products on three streams
    (*WEIGHTS[0], 2, False, 2, 0),       # the production (v8): a ring of 2 on two streams
    (*WEIGHTS[1], 2, False, 2, 2),       # a launch per sum and 2 query splits, the sums so far reloaded
    (*WEIGHTS[0], 3, True, 1, 1),        # ... one query split a launch
])
def test_gpu_windows_v8_equal_cpu_on_random_pairs(small_launch_sizes, monkeypatch, au, gu, ring, skip, streams, group):
    """As above with the tensor-core cross products (16 x 32 tiles) through a ring of chunks (bppart_band_cross_ring),
    in one launch or a launch per sum and group of query splits, and the launch groups on several streams (pieces of 40
    bases: many launches a stream)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_cols=32, band_split=True, band_tile=8,
                                              band_tile_blocks=16, band_pipe=3, band_far=2, band_warp=True,
                                              band_ring=ring, band_skip=skip, band_streams=streams, band_group=group)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("au, gu, rows, cols, blocks, ring", [
    (*WEIGHTS[0], 32, 64, 1, 2),         # chunks of 32 at 32 x 64: the ring (53 KB) in dynamic shared memory (v11)
    (*WEIGHTS[1], 16, 32, 1, 3),         # chunks of 32 at 16 x 32, a ring of 3 (static)
])
def test_gpu_windows_v11_chunks_of_32_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, blocks, ring):
    """As above with the cross products' ring in chunks of 32 indices (v11; half the steps of the production's 16)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=32,
                                              band_blocks=blocks, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=ring, band_streams=2)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("au, gu, rows, cols, chunk, form, ring, wn, chains", [
    (*WEIGHTS[0], 16, 32, 8, 3, 2, 32, 1),      # the warps' skip a chunk at a time, roles rotated by the block (v12)
    (*WEIGHTS[1], 16, 32, 32, 1, 3, 32, 1),     # ... a chunk at a time, chunks of 32, a ring of 3 (static)
    (*WEIGHTS[0], 32, 64, 32, 3, 2, 32, 1),     # ... both at the production's 32 x 64 x 32 (dynamic ring of 2)
    (*WEIGHTS[1], 16, 32, 8, -1, 2, 16, 1),     # warps of 16 columns (v12), no skip
    (*WEIGHTS[0], 16, 32, 32, 3, 3, 16, 1),     # ... skipping a chunk at a time, roles rotated, a ring of 3
    (*WEIGHTS[1], 32, 64, 32, -1, 2, 16, 1),    # ... at 32 x 64 x 32 (8 warps; dynamic ring of 2)
    (*WEIGHTS[0], 16, 32, 8, -1, 2, 32, 2),     # two accumulator chains a cell (v12; another summation order)
    (*WEIGHTS[1], 32, 64, 32, -1, 2, 32, 2),    # ... at 32 x 64 x 32
    (*WEIGHTS[0], 16, 32, 32, 3, 3, 16, 2),     # ... with the skip forms and warps of 16 columns, a ring of 3
])
def test_gpu_windows_v12_skip_forms_equal_cpu(small_launch_sizes, monkeypatch, au, gu, rows, cols, chunk, form, ring,
                                              wn, chains):
    """As above with the cross ring's warps skipping the steps without band products a chunk at a time and their
    roles rotated by the block (v12, ``band_skip_form``; ``form`` -1: no skip), with warps of 16 columns (v12,
    ``band_warp_cols``) and with two accumulator chains a cell (v12, ``band_chains``)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_rows=rows, band_cols=cols, band_chunk=chunk,
                                              band_blocks=1, band_split=True, band_tile=8, band_tile_blocks=16,
                                              band_pipe=3, band_far=2, band_warp=True, band_ring=ring,
                                              band_skip=form >= 0, band_skip_form=max(form, 0), band_streams=2,
                                              band_warp_cols=wn, band_chains=chains)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("au, gu, tile, blocks, split, lean, late", [
    (*WEIGHTS[0], 8, 16, True, True, False),     # QF's base computed by the sweep, not parked by the outer terms (v13)
    (*WEIGHTS[1], 16, 4, True, True, False),     # ... at 16-tiles, 4 blocks (the production's sweep)
    (*WEIGHTS[0], 16, 4, True, False, False),    # ... parked (v12's production)
    (*WEIGHTS[0], 16, 4, False, False, False),   # the production's sweep not split: the outer terms in it (v13)
    (*WEIGHTS[1], 8, 16, False, False, False),   # ... at 8-tiles
    (*WEIGHTS[1], 16, 4, False, False, True),    # ... the outer terms summed after the far part
    (*WEIGHTS[0], 8, 16, False, False, True),
])
def test_gpu_windows_v13_outer_forms_equal_cpu(small_launch_sizes, monkeypatch, au, gu, tile, blocks, split, lean,
                                               late):
    """As above with the sweep computing QF's base itself after bppart_band_outer_lean (v13, ``band_lean``), or the
    sweep (one warp's near part after a ring of 3 on tensor cores) not split (``band_split`` False), its outer terms
    summed before or after the far part (``band_outer_late``)."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=split, band_tile=tile,
                                              band_tile_blocks=blocks, band_pipe=3, band_far=2, band_warp=True,
                                              band_lanes=True, band_trim=True, band_lean=lean, band_streams=2,
                                              band_outer_late=late)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


@pytest.mark.parametrize("au, gu, tile, blocks, pair", [(*WEIGHTS[0], 8, 16, 1), (*WEIGHTS[1], 16, 4, 1),
                                                       (*WEIGHTS[1], 8, 16, 2), (*WEIGHTS[0], 16, 4, 2)])
def test_gpu_windows_v15_outer_pairs_equal_cpu(small_launch_sizes, monkeypatch, au, gu, tile, blocks, pair):
    """As above with the outer terms' levels in pairs (v15, ``band_outer_pair``: the second level's sums of T0 and
    AUX0 taken by the first from its own loads, parked in the second's cells; 2: R's sum too, in the other order), on
    NaN-filled fresh tables."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=tile,
                                              band_tile_blocks=blocks, band_pipe=3, band_far=2, band_warp=True,
                                              band_lanes=True, band_trim=True, band_lean=True, band_streams=2,
                                              band_outer_pair=pair)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    _random_pairs_equal_cpu(au, gu)


def _random_pairs_equal_cpu(au, gu):
    rng = random.Random(int(au * 10 + gu * 100))
    for wq, wt in ((None, 4), (None, 12), (3, 7), (None, 1), (5, 30)):
        params = PartitionParams(au=au, gu=gu, window_query=wq, window_target=wt)
        targets = [random_rna(rng, n) for n in (150, 1, 9, rng.randint(2, 60), 41, rng.randint(2, 90))]
        for q in (random_rna(rng, rng.randint(1, 12)), random_rna(rng, 12)):
            for t, got in zip(targets, _gpu(q, targets, params)):
                _same_windows(got, _cpu(q, t, params))


def _variant_equals_cpu(monkeypatch, variant: dict) -> None:
    """The production with launch-size fields ``variant`` (left in place): 23 x 300 and 23 x 140 nt against the CPU."""
    from bioaccel.interact import _partition_launch

    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(**variant))
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))


def _form_same_bits_and_cpu(monkeypatch, variant: dict, reference: dict) -> None:
    """The production with launch-size fields ``variant`` (v16, v17): 23 x 300 and 23 x 140 nt against the CPU, and
    23 x 700 after 333 nt (launches of other lengths) equal to the last bit to the production with ``reference``
    (and the variant's own ``band_bases`` and ``band_streams``)."""
    from bioaccel.interact import _partition_launch

    base = _partition_launch.SIZES
    _variant_equals_cpu(monkeypatch, variant)
    params = PartitionParams(window_target=128)
    rng = random.Random(13)
    q, t, other = random_rna(rng, 23), random_rna(rng, 700), random_rna(rng, 333)
    got = _gpu(q, [other, t], params)
    same = {k: v for k, v in variant.items() if k in ("band_bases", "band_streams")}
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(**reference, **same))
    for g, expected in zip(got, _gpu(q, [other, t], params)):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
            assert getattr(g, name) == getattr(expected, name), name
        for name in ("log_zs", "log_zs_interaction", "probabilities"):
            assert np.array_equal(getattr(g, name), getattr(expected, name)), name


def test_gpu_windows_scaled_take_the_cpu_scales(small_launch_sizes):
    """A given scale: the GPU fills at the CPU's scales and agrees with the CPU, and with the plain fill."""
    rng = random.Random(5)
    q, targets = random_rna(rng, 10), [random_rna(rng, 70), random_rna(rng, 33)]
    scaled = PartitionParams(scale=0.7, window_target=9)
    plain = PartitionParams(window_target=9)
    for t, got, unscaled in zip(targets, _gpu(q, targets, scaled), _gpu(q, targets, plain)):
        _same_windows(got, _cpu(q, t, scaled))
        _same_windows(unscaled, got)


@pytest.mark.parametrize("variant", [{}, dict(band_chains=2), dict(band_chains=2, band_warp_cols=16),
                                     pytest.param(dict(band_outer_pair=1), id="v15_outer_pair_1"),
                                     pytest.param(dict(band_bases=333), id="v25_pieces"),
                                     pytest.param(dict(band_streams=1, band_bases=400), id="v25_one_stream_pieces")])
def test_gpu_windows_production_sizes_at_window_128(monkeypatch, variant):
    """23 x 300 and 23 x 140 nt at --window-target 128 with the production launch sizes, and with the cross products'
    two accumulator chains a cell (v12: another summation order, so compared with the CPU, not by ``==``), with the
    outer terms' R sums in the order before v25 (v15's ``band_outer_pair`` 1; the production's 2 since v25), and
    with v25's outer terms in pieces of 333 bases and on one stream in pieces of 400."""
    from bioaccel.interact import _partition_launch

    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(**variant))
    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))


def test_gpu_windows_same_bits_whatever_shares_the_launch(monkeypatch):
    """At the production sizes a target's numbers are the same to the last bit alone, after another
    target in its launch, and cut into pieces (as when a batch runs on one GPU or two, or with more or
    less free memory): each piece starts on a multiple of the tiles' side, and no sum is split."""
    from bioaccel.interact import _partition_launch

    rng = random.Random(11)
    q, t, other = random_rna(rng, 23), random_rna(rng, 700), random_rna(rng, 333)
    params = PartitionParams(window_target=128)
    alone = _gpu(q, [t], params)[0]
    after = _gpu(q, [other, t], params)[1]
    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(band_bases=300))
    in_pieces = _gpu(q, [other, t], params)[1]
    for got in (after, in_pieces):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
            assert getattr(got, name) == getattr(alone, name), name
        for name in ("log_zs", "log_zs_interaction", "probabilities"):
            assert np.array_equal(getattr(got, name), getattr(alone, name)), name
    _same_windows(alone, _cpu(q, t, params))


#: the cross products' shape before v11 (chunks of 16, 4 blocks): the kernels the rows of v8 to v10 measured
V10 = dict(band_chunk=16, band_blocks=4)


@pytest.mark.parametrize("variant", [
    dict(band_warp=False, band_pipe=2, band_dynamic=False),              # v6's production: ring of 2, lanes
    {**V10, **dict(band_cols=32, band_blocks=8, band_pipe=0, band_far=0, band_warp=False)},   # v5's: m32x32, no ring
    dict(band_far=1, band_warp=False, band_dynamic=False),               # a ring of 3, row operands two k at a time
    dict(band_warp=False, band_dynamic=False),                           # a ring of 3, tensor cores, lanes
    dict(band_far=0, band_warp=False, band_dynamic=False),               # a ring of 3, a thread a cell
    dict(band_dynamic=True),                                             # one warp's near part, dynamic ring of 3
    dict(band_pipe=2, band_dynamic=False),                               # ... after a ring of 2
    dict(band_pipe=0, band_far=0),                                       # ... after registers a step ahead
    # v8: the cross products through a ring of chunks across the query splits, warps skipping empty steps; the
    # launches on two or three streams (a launch's share of the memory); v7's production
    {**V10, **dict(band_ring=3, band_skip=False)}, {**V10, **dict(band_ring=3, band_skip=True)},
    {**V10, **dict(band_ring=4, band_chunk=8, band_skip=True)},
    {**V10, **dict(band_ring=2, band_skip=True)}, {**V10, **dict(band_group=1)}, {**V10, **dict(band_group=2)},
    {**V10, **dict(band_group=4)},
    {**V10, **dict(band_rows=64, band_cols=64, band_blocks=2)},
    {**V10, **dict(band_cols=32, band_blocks=8)}, dict(band_streams=1), dict(band_streams=2, band_bases=400), dict(band_streams=3),
    {**V10, **dict(band_ring=0, band_skip=False, band_streams=1)},      # v7's production
    # v9: every tile and cell computed (no skip past a piece's bases); v8's production
    dict(band_ends=False), {**V10, **dict(band_ends=False, band_queries=False)},
    # v9: L2 hints on the copies of the cross products and of the sweep's far part, evict-first loads of the outer terms
    {**V10, **dict(band_hint_cross=1)}, {**V10, **dict(band_hint_cross=2)}, {**V10, **dict(band_hint_cross=3)},
    dict(band_hint_sweep=2),
    dict(band_hint_sweep=3), dict(band_outer_cs=True),
    # v11 (production: chunks of 32, the ring in dynamic shared memory, 3 blocks): 4 blocks; 32 x 32 tiles (static);
    # v10's production (chunks of 16, 4 blocks, static)
    dict(band_blocks=4), dict(band_cols=32, band_blocks=6), V10,
    # v12: the warps' skip at chunks of 32, a step at a time (v8's), a chunk at a time, roles rotated, both
    dict(band_skip=True), dict(band_skip=True, band_skip_form=1), dict(band_skip=True, band_skip_form=2),
    dict(band_skip=True, band_skip_form=3),
    # v12: warps of 16 columns (8 a tile) at 3, 2 and 4 blocks, chunks of 16 at 4, a ring of 3 at 2
    dict(band_warp_cols=16), dict(band_warp_cols=16, band_blocks=2), dict(band_warp_cols=16, band_blocks=4),
    dict(band_warp_cols=16, band_chunk=16, band_blocks=4), dict(band_warp_cols=16, band_ring=3, band_blocks=2),
    # v12: two accumulator chains a cell (another order: against the production's sizes with two chains) with warps of
    # 16 columns, with the skip a chunk at a time
    dict(band_chains=2, band_warp_cols=16), dict(band_chains=2, band_skip=True, band_skip_form=1),
    # v13 (production: QF's base computed by the sweep after bppart_band_outer_lean): v12's production (the base parked).
    # (The unsplit sweep adds s0 and both in another order: compared with the CPU in the v13 test, not here.)
    dict(band_lean=False),
    # v15 (production: the outer terms' levels in pairs, the second's sums of T0 and AUX0 parked by the first): v14's
    # production (no pairs)
    pytest.param(dict(band_outer_pair=0), id="v15_outer_pair"),
    # v25 (production: matrices aligned to 16 bases, band_outer_pair 2, whose R sums add in another order, so every row
    # here is compared with the production at band_outer_pair 1): the unaligned matrices (v24's production)
    pytest.param(dict(band_align=0), id="v25_unaligned"),
    # v17 (production: the cross ring on m16n8k16): v16's production (m8n8k4)
    pytest.param(dict(band_mma_shape=0), id="v17_m8n8k4"),
    # v18 (production: the sweep's far part on m16n8k16): v17's production (m8n8k4), and m16n8k8
    pytest.param(dict(band_far_shape=0), id="v18_far_m8n8k4"), pytest.param(dict(band_far_shape=2), id="v18_far_k8"),
])
def test_gpu_windows_variants_same_bits_as_production(monkeypatch, variant):
    """Other variants at the production sizes and window 128 (23 x 700 nt, after a 333-nt target in the
    launch; the production: m32x64 cross through a ring of 2 chunks of 32, two streams, the sweep's far part through a ring
    of 3 on tensor cores (m16n8k16 since v18), its near part by one warp): every log and window number equal to the production's to the
    last bit. The cross products' accumulator chains (v12's ``band_chains``: each count its own summation order) are
    the variant's in both runs: one chain unless it names two. The base: the production with the outer terms' R sums in
    the order before v25 (``band_outer_pair`` 1: the bits of the forms these rows pin)."""
    from bioaccel.interact import _partition_launch

    rng = random.Random(13)
    q, t, other = random_rna(rng, 23), random_rna(rng, 700), random_rna(rng, 333)
    params = PartitionParams(window_target=128)
    base = _partition_launch.SIZES.replace(band_chains=variant.get("band_chains", 1), band_outer_pair=1)
    monkeypatch.setattr(_partition_launch, "SIZES", base)
    production = _gpu(q, [other, t], params)
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(**variant))
    for got, expected in zip(_gpu(q, [other, t], params), production):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
            assert getattr(got, name) == getattr(expected, name), name
        for name in ("log_zs", "log_zs_interaction", "probabilities"):
            assert np.array_equal(getattr(got, name), getattr(expected, name)), name


@pytest.mark.parametrize("streams, ends", [(2, True), (1, True), (3, False)])
def test_gpu_windows_round_equals_each_query(small_launch_sizes, monkeypatch, streams, ends):
    """A round's queries in one schedule (v9, band_queries; queries of other lengths need other tables, a stream's
    tables serve the next query of their size): every query's windows equal to the CPU's to 1e-12, and to the bit
    equal to the same query alone (no sum split among blocks: cross_blocks=1)."""
    from bioaccel.interact import _partition_launch
    from bioaccel.interact._partition_band_gpu import gpu_windows_round

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_cols=32, band_split=True, band_tile=8,
                                              band_tile_blocks=16, band_pipe=3, band_far=2, band_warp=True,
                                              band_ring=2, band_streams=streams, band_ends=ends, cross_blocks=1)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    rng = random.Random(17 + streams)
    params = PartitionParams(window_target=12)
    queries = [random_rna(rng, 12), random_rna(rng, 7), random_rna(rng, 12), random_rna(rng, 1)]
    targets = [random_rna(rng, n) for n in (150, 1, 9, 61, 41, 90)]
    rbs = [np.ascontiguousarray(encode(t)[::-1]) for t in targets]
    together = gpu_windows_round([encode(q) for q in queries], rbs, params)
    for q, found in zip(queries, together):
        alone = _gpu(q, targets, params)
        for t, got, expected in zip(targets, found, alone):
            _same_windows(got, _cpu(q, t, params))
            for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
                assert getattr(got, name) == getattr(expected, name), name
            for name in ("log_zs", "log_zs_interaction", "probabilities"):
                assert np.array_equal(getattr(got, name), getattr(expected, name)), name


@pytest.mark.parametrize("streams, bases", [(2, 400), (1, 400), (3, 300)])
def test_gpu_windows_v14_launch_trace(monkeypatch, streams, bases):
    """v14's launch trace (``gpu_windows_round(trace=...)``, bench --screen-trace) at the production sizes and window
    128, a round of two queries (two table sizes) against targets in several launches (``band_bases``): a dict a
    launch (its stream, rows, device start before its end) and one of the call's seconds, and every log and window
    number equal to the untraced call's to the last bit, and to the CPU. (In v14's calls this test also ran with the
    host forms BALANCE and AHEAD, not kept: docs/bppart-gpu-notes.md, v14.)"""
    from bioaccel.interact import _partition_launch
    from bioaccel.interact._partition_band_gpu import gpu_windows_round

    rng = random.Random(19)
    queries = [random_rna(rng, 23), random_rna(rng, 18)]
    targets = [random_rna(rng, n) for n in (333, 700, 150, 260, 90)]
    rbs = [np.ascontiguousarray(encode(t)[::-1]) for t in targets]
    params = PartitionParams(window_target=128)
    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(band_streams=streams,
                                                                                    band_bases=bases))
    plain = gpu_windows_round([encode(q) for q in queries], rbs, params)
    trace = []
    traced = gpu_windows_round([encode(q) for q in queries], rbs, params, trace=trace)
    launches = [x for x in trace if "call_s" not in x]
    assert len(trace) == len(launches) + 1 and len(launches) >= 4 and trace[-1]["call_s"] > 0
    assert all(0 <= x["start_ms"] <= x["end_ms"] and x["rows"] > 0 and x["stream"] < streams for x in launches)
    assert {x["stream"] for x in launches} == set(range(streams))
    for q, found, expected in zip(queries, traced, plain):
        for t, got, want in zip(targets, found, expected):
            for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target"):
                assert getattr(got, name) == getattr(want, name), name
            for name in ("log_zs", "log_zs_interaction", "probabilities"):
                assert np.array_equal(getattr(got, name), getattr(want, name)), name
        _same_windows(found[1], _cpu(q, targets[1], params))


def test_gpu_window_rows_are_the_cpu_rows(small_launch_sizes, tmp_path):
    """The API's rows (sites, window coordinates) and the command line's output on both backends."""
    from bioaccel.cli.main import main

    rng = random.Random(9)
    queries = [("q1", random_rna(rng, 9)), ("q2", "")]
    targets = [("t1", random_rna(rng, 80)), ("t2", random_rna(rng, 6)), ("t3", "")]
    params = PartitionParams(window_target=8)
    cpu = bppart(queries, targets, params=params, sites=3)
    gpu = bppart(queries, targets, params=params, sites=3, backend="gpu")
    assert [(r.query, r.target, r.site, r.target_start, r.query_start) for r in gpu] == \
        [(r.query, r.target, r.site, r.target_start, r.query_start) for r in cpu]
    for g, c in zip(gpu, cpu):
        for name in ("log_z", "log_z_interaction", "log_z_query", "log_z_target", "window_log_z",
                     "window_log_z_interaction"):
            _close(getattr(g, name), getattr(c, name))
        assert abs(g.window_probability - c.window_probability) <= 1e-12
    with pytest.raises(NotAvailable, match="binding"):
        bppart("GGG", "CCC", params=params, backend="gpu", binding=True)
    outputs = []
    (tmp_path / "q.fa").write_text(">q\nGGGAAACCCAUGC\n")
    (tmp_path / "t.fa").write_text(">t\nGGGUUUCCCAAAAAGGGUUUCCAGAGAGCUCUC\n")
    for backend in ("cpu", "gpu"):
        out, err = io.StringIO(), io.StringIO()
        code = main(["interact", "--partition", "--window-target", "8", "--quiet", "--backend", backend,
                     "--sites", "2", str(tmp_path / "q.fa"), str(tmp_path / "t.fa")], stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        outputs.append([line.split("\t") for line in out.getvalue().splitlines()])
    assert len(outputs[0]) == len(outputs[1]) == 3
    for c, g in zip(outputs[0][1:], outputs[1][1:]):
        assert c[:3] == g[:3] and c[-2:] == g[-2:]
        for x, y in zip(g[3:-2], c[3:-2]):
            _close(float(x), float(y))
