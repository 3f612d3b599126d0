"""BPMax on the GPU: every GPU variant (``fused``; ``banded-library``, Gildemaster 2021's design over the
product library of _maxplus_gpu) equal to the CPU default (``tiled``) cell by cell on random
pairs, windowed and not, both weight settings; the svRNAs against SARS-CoV-2 pieces (scores, profiles,
structures); many targets in one launch; the streamed path (a target cut into overlapping pieces) and
the finish of wide bands (tiled, and the older diagonal by diagonal one) forced on small cases and run
at its production tile on an unwindowed target of a few hundred bases.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none). Most checks run
with the small launch sizes of tests/conftest.py (8-row tiles, 8-row finish segments), so targets of a
few dozen bases cross many tiles and segments; the device table is poisoned before each fill.
"""
import random
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from bioaccel.inputs.fasta import Record, read_fasta
from bioaccel.interact import VARIANTS, InteractParams, bpmax, bpmax_work
from bioaccel.interact._gpu import window_scores
from bioaccel.interact._gpu_launch import BPMaxSizes
from bioaccel.interact._strands import strand_band, window_folds
from bioaccel.interact.tiled import fill_tiled
from test_interact import WEIGHTS, _random_cases, _tables, random_rna

pytestmark = pytest.mark.gpu
GPU_VARIANTS = VARIANTS.names("gpu")
DATA = Path(__file__).resolve().parents[1] / "examples"
#: Launch sizes by name: changes to the small test sizes, or None for the production sizes.
LAYOUTS = {
    "test sizes": {},
    "production sizes": None,
    "streamed": dict(piece=12),
    "global finish": dict(segment_rows=0, finish_bytes=1, wide_tile=8),
    "global finish, 16-tiles": dict(segment_rows=0, finish_bytes=1, wide_tile=16),
    "global finish, diagonals": dict(segment_rows=0, finish_bytes=1, wide_finish="diagonal"),
    "global finish, tiled (c22e9df)": dict(segment_rows=0, finish_bytes=1, wide_finish="tiled", wide_tile=8),
    "global finish, prefetch, 16-tiles": dict(segment_rows=0, finish_bytes=1, wide_finish="prefetch", wide_tile=16),
    "global finish, eager padded": dict(segment_rows=0, finish_bytes=1, wide_finish="eager-padded", wide_tile=8),
    "products without the skip": dict(products_parts=0, products_skip=False),
    "products packed (before the split)": dict(products_parts=0),
    # bpmax_products_split (two cells a word): the default products from bpmaxw to bpmaxpk
    "products split among 8 lanes": dict(products_parts=8, split_rows=8, split_cols=16, split_chunk=8,
                                          split_pairs=False),
    "products split among 4 lanes, long chunks": dict(products_parts=4, split_rows=8, split_cols=16, split_pairs=False),
    "products split, 1 lane, 16 x 32 tiles": dict(products_parts=1, split_rows=16, split_cols=32, split_chunk=16,
                                                  split_pairs=False),
    "products split among 4 lanes, prefetch": dict(products_parts=4, split_rows=8, split_cols=16, split_chunk=8,
                                                   split_prefetch=True, split_pairs=False),
    "products split among 8 lanes, prefetch, 32-chunks": dict(products_parts=8, split_rows=8, split_cols=16,
                                                              split_chunk=32, split_prefetch=True, split_pairs=False),
    "finish one diagonal at a time": dict(finish_diagonals=1, finish_split=1, finish_form=4),
    "finish 8 diagonals, 2 threads per row": dict(finish_diagonals=8, finish_split=2, finish_form=4),
    # issue 29 (bpmaxst): the segment finish's 16-byte loads (form 1), its shortened tails (form 2), and the
    # windowed band through the tiled finish of wide bands
    "finish 16-byte loads": dict(finish_form=1, finish_diagonals=4),
    "finish shortened tails": dict(finish_form=2, finish_diagonals=4),
    "finish shortened tails, 8 diagonals, 2 threads per row": dict(finish_form=2, finish_diagonals=8, finish_split=2),
    "finish shortened tails, 1 diagonal": dict(finish_form=2, finish_diagonals=1),
    "finish 16-byte stores, 8 diagonals": dict(finish_form=3, finish_diagonals=8),
    "finish 16-byte stores, 4 diagonals": dict(finish_form=3, finish_diagonals=4),
    "finish 16-byte stores, 8 diagonals, 2 threads per row": dict(finish_form=3, finish_diagonals=8, finish_split=2),
    "finish first diagonal of a group closed in the first phase": dict(finish_form=4, finish_diagonals=4),
    "finish first diagonal closed in the first phase, 8 diagonals": dict(finish_form=4, finish_diagonals=8),
    "finish first diagonal closed in the first phase, 8 diagonals, 2 threads per row": dict(
        finish_form=4, finish_diagonals=8, finish_split=2),
    "finish first diagonal closed in the first phase, 1 diagonal": dict(finish_form=4, finish_diagonals=1),
    # issue 29 (bpmaxfin): form 5, the next group's final splits run by bulk threads beside the tails of a group
    "finish bulk and tail threads": dict(finish_form=5, finish_diagonals=4),
    "finish bulk and tail threads, 8 diagonals": dict(finish_form=5, finish_diagonals=8),
    "finish bulk and tail threads, 2 diagonals": dict(finish_form=5, finish_diagonals=2),
    "finish as before issue 29's bpmaxst": dict(finish_form=0, finish_diagonals=4, split_own=False, split_pairs=False,
                                                products_parts=4),
    "products, each lane its own words": dict(split_own=True, split_pairs=False, products_parts=4),
    "products, each of 8 lanes its own words": dict(split_own=True, products_parts=8, split_pairs=False),
    "products, each lane its own words, prefetch": dict(split_own=True, split_prefetch=True, split_pairs=False,
                                                        products_parts=4),
    # issue 29 (bpmaxpk): the products with a word one cell, its halves over the even and the odd k2
    # (staging through band_vector, pairs_stage=0, as calls 1-2 of bpmaxpk; the default stages fixed rows)
    "products k2words, 2 lanes": dict(split_pairs=True, products_parts=2, pairs_stage=0, pairs_blocks=0),
    "products k2words, 4 lanes, one group an iteration, 16 x 32 tiles": dict(
        split_pairs=True, products_parts=4, pairs_step=1, split_rows=16, split_cols=32, split_chunk=32, pairs_stage=0,
        pairs_blocks=0),
    "products k2words, 1 lane, 16-chunks": dict(split_pairs=True, products_parts=1, split_chunk=16, pairs_stage=0,
                                                 pairs_blocks=0),
    "products k2words, rows staged fixed": dict(split_pairs=True, products_parts=2, pairs_stage=1),
    "products k2words, rows staged fixed, 4 lanes, one group an iteration": dict(
        split_pairs=True, products_parts=4, pairs_step=1, pairs_stage=1),
    "products k2words, rows staged fixed, 1 lane, 16 x 32 tiles": dict(
        split_pairs=True, products_parts=1, split_rows=16, split_cols=32, split_chunk=16, pairs_stage=1),
    # issue 29 (bpmaxcp2): A row-major by cp.async (STAGE 2), B's rows read together (3); 2 lanes, 16-chunks
    "products k2words, A by cp.async": dict(split_pairs=True, products_parts=2, pairs_stage=2, split_chunk=16),
    "products k2words, A by cp.async, B rows together": dict(split_pairs=True, products_parts=2, pairs_stage=3,
                                                             split_chunk=16),
    "windows through the tiled finish, 8-tiles": dict(window_tile=8),
    "windows through the tiled finish, 16-tiles": dict(window_tile=16),
}


def _gpu_table(record, target, M, L1, N, L2):
    """The dense (M, M, N, N) table of ``target`` from the recorded device arrays (-1 outside the domain): of the one
    launch group that holds it (targets of different bands, shorter than the window, are launched apart)."""
    (group, F, _S2, _RS), = [entry for entry in record if any(piece.target == target for piece in entry[0])]
    offset = 0
    for piece in group:
        if piece.target == target:
            break
        offset += len(piece.codes)
    out = np.full((M, M, N, N), -1, dtype=np.int32)
    m = 0
    for l1 in range(1, L1 + 1):
        for i1 in range(M - l1 + 1):
            for i2 in range(N):
                for e in range(min(L2, N - i2)):
                    out[i1, i1 + l1 - 1, i2, i2 + e] = F[m, offset + i2, e + 1]
            m += 1
    return out


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_every_gpu_variant_equals_tiled_cell_by_cell_on_random_pairs(variant, small_launch_sizes):
    """120 random pairs, lengths 1 to 12 (and 16 to 40 below), with and without windows, both weight
    settings; three targets of different lengths per launch."""
    small = small_launch_sizes.bpmax
    split = dict(split_pairs=False, products_parts=4)   # bpmax_products_split, the default before bpmaxpk
    _equal_tiled_cell_by_cell(variant, (
        small, BPMaxSizes(), BPMaxSizes(products_parts=0), replace(small, products_parts=0), BPMaxSizes(**split),
        BPMaxSizes(**split, split_chunk=32, split_prefetch=True),
        BPMaxSizes(products_parts=1, split_rows=64, split_cols=64, split_chunk=32, split_prefetch=True,
                   split_pairs=False),
        replace(small, products_parts=8, split_rows=8, split_cols=16, split_chunk=8, split_pairs=False),
        BPMaxSizes(finish_form=2), replace(small, finish_form=2), replace(small, finish_form=1),
        BPMaxSizes(window_tile=32), replace(small, window_tile=8),
        BPMaxSizes(**split, split_own=True, finish_form=2), replace(small, **split, split_own=True),
        replace(small, finish_form=3, finish_diagonals=8), replace(small, finish_form=3, finish_diagonals=4),
        BPMaxSizes(**split, finish_form=0, finish_diagonals=4, split_own=False),
        BPMaxSizes(finish_form=4, finish_diagonals=8), replace(small, finish_form=4),
        replace(small, finish_form=4, finish_diagonals=1),
        replace(small, products_parts=1, split_rows=16, split_cols=32, split_chunk=16, split_own=True,
                split_pairs=False)))


def test_k2words_products_equal_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """The products with a word one cell and its halves over the even and the odd k2 (bpmax_products_pairs),
    at the production tiles (2 and 4 lanes, one and two groups an iteration) and the tests' small ones."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, pairs_stage=0, pairs_blocks=0)
    calls_1_2 = dict(split_pairs=True, pairs_stage=0, pairs_blocks=0)   # staging through band_vector
    _equal_tiled_cell_by_cell("fused", (
        BPMaxSizes(**calls_1_2, products_parts=2), BPMaxSizes(**calls_1_2, products_parts=4),
        BPMaxSizes(**calls_1_2, products_parts=2, pairs_step=1, split_chunk=64),
        replace(small, products_parts=2), replace(small, products_parts=4, pairs_step=1),
        replace(small, products_parts=1, split_rows=16, split_cols=32, split_chunk=16),
        # the rows of A and columns of B a thread stages fixed (STAGE 1), at 8, 10 and 12 blocks an SM
        *[BPMaxSizes(split_pairs=True, products_parts=2, pairs_stage=1, pairs_blocks=n) for n in (8, 10, 12)],
        BPMaxSizes(split_pairs=True, products_parts=4, pairs_stage=1),
        BPMaxSizes(split_pairs=True, products_parts=2, pairs_step=1, split_chunk=64, pairs_stage=1),
        replace(small, products_parts=2, pairs_stage=1), replace(small, products_parts=4, pairs_step=1, pairs_stage=1),
        replace(small, products_parts=1, split_rows=16, split_cols=32, split_chunk=16, pairs_stage=1)))


def test_k2words_products_by_cp_async_equal_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """bpmax_products_pairs with A row-major by cp.async (pairs_stage 2) and also B's rows read together (3),
    at the production tiles (10, 9 and 8 blocks an SM, chunks 96 and 64) and the tests' small ones (a stage of
    one group, of two, of four)."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, products_parts=2, pairs_step=2)
    _equal_tiled_cell_by_cell("fused", (
        *[BPMaxSizes(split_pairs=True, products_parts=2, pairs_stage=stage, pairs_blocks=blocks)
          for stage in (2, 3) for blocks in (10, 9, 8)],
        BPMaxSizes(split_pairs=True, products_parts=2, pairs_stage=3, split_chunk=64),
        *[replace(small, pairs_stage=stage, split_chunk=chunk) for stage in (2, 3) for chunk in (8, 16)],
        replace(small, pairs_stage=2, split_rows=16, split_cols=32, split_chunk=32)))


def test_finish_roles_equal_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """finish_form 5 (bulk and tail threads a row each, bpmax_finish_roles) at the production sizes with groups of
    4, 8 and 2 diagonals, and at the tests' 8-row segments with groups of 4, 8, 2 and 3."""
    small = small_launch_sizes.bpmax
    _equal_tiled_cell_by_cell("fused", (
        *[BPMaxSizes(finish_form=5, finish_diagonals=g) for g in (4, 8, 2)],
        *[replace(small, finish_form=5, finish_diagonals=g) for g in (4, 8, 2, 3)]))


def test_finish_roles_equal_form_4_on_a_production_band():
    """8 x 1,400 and 333 nt, window 128 (the production band, 129 wide: 288-row segments, 7 of them): form 5,
    groups of 4 and 8 diagonals, gives form 4's device tables (every cell of F and S2), and the window scores equal
    the CPU's."""
    rng = random.Random(30)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(finish_form=4, finish_diagonals=4),
                                           dict(finish_form=5, finish_diagonals=4),
                                           dict(finish_form=5, finish_diagonals=8)))


def _same_tables_and_cpu(ca, rbs, params, changes):
    """Each of ``changes`` (BPMaxSizes fields) gives the first one's device tables (every cell of F and S2) and
    window scores for query ``ca`` against targets ``rbs``, and those equal the CPU's."""
    S1 = strand_band(ca, params.fold_params, len(ca))
    tables = []
    for change in changes:
        record = []
        found = window_scores(ca, S1, rbs, params, sizes=BPMaxSizes(**change), record=record)
        tables.append((found, record))
    (first, [(_, F0, S0, _)]) = tables[0]
    for found, [(_, F, S, _)] in tables[1:]:
        assert np.array_equal(F, F0) and np.array_equal(S, S0)
        for (w, f), (w0, f0) in zip(found, first):
            assert np.array_equal(w, w0) and np.array_equal(f, f0)
    for rb, (win, _) in zip(rbs, first):
        L1, L2 = params.spans(len(ca), len(rb))
        cpu = fill_tiled(ca, rb, S1, strand_band(rb, params.fold_params, L2), params)[0]
        assert np.array_equal(win, cpu[:, :len(rb) - L2 + 1])


def same_as_default_on_a_production_band(settings, seed):
    """8 x 1,400 and 333 nt, window 128 (the production band): each of ``settings`` (BPMaxSizes fields) gives the
    default's device tables (every cell of F and S2), and the window scores equal the CPU's."""
    rng = random.Random(seed)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, params, (dict(), *settings))


def same_as_default_on_short_windows_and_pieces(settings, seed):
    """Windows of 5, 17 and 40 nt against targets of 700 and 95 nt, whole and as streamed pieces of 300 nt
    (overlapping pieces back to back in one launch): each of ``settings`` gives the default's tables, and the CPU's
    window scores."""
    rng = random.Random(seed)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(), *settings))
        _same_tables_and_cpu(ca, rbs, params, (dict(piece=300), *[dict(change, piece=300) for change in settings]))


def _equal_tiled_cell_by_cell(variant, layouts):
    """Each of ``layouts`` equal to the CPU cell by cell on 120 random cases of a few bases (test_interact's (a, b, au,
    gu, w1, w2, rows); groups of three share the first's query and parameters)."""
    cases = _random_cases(120, seed=11)
    for index in range(0, len(cases), 3):
        group = cases[index:index + 3]
        a, _, au, gu, w1, w2, _ = group[0]
        params = InteractParams(au=au, gu=gu, window_query=w1, window_target=w2)
        ca, _, s1, _ = _tables(a, "A", params)
        targets = [b for _, b, *_ in group]
        rbs = [_tables(a, b, params)[1] for b in targets]
        M = len(a)
        for sizes in layouts:
            record = []
            found = window_scores(ca, strand_band(ca, params.fold_params, M), rbs, params, variant=variant,
                                  sizes=sizes, record=record)
            for t, (b, crb) in enumerate(zip(targets, rbs)):
                N = len(b)
                L1, L2 = params.spans(M, N)
                _, _, _, s2 = _tables(a, b, params)
                expected = np.full((M, M, N, N), -1, dtype=np.int32)
                win, *_ = fill_tiled(ca, crb, strand_band(ca, params.fold_params, L1), s2, params, record=expected)
                got = _gpu_table(record, t, M, L1, N, L2)
                assert np.array_equal(got, expected), (a, b, w1, w2, sizes)
                assert np.array_equal(found[t][0], win[:, :N - L2 + 1]), (a, b, w1, w2)
                assert np.array_equal(found[t][1], window_folds(s2, L2)), (a, b, w1, w2)


def _same_results(got, expected, variant="fused"):
    assert len(got) == len(expected)
    for x, y in zip(got, expected):
        dx, dy = x.to_dict(), y.to_dict()
        assert (dx.pop("backend"), dx.pop("variant")) == ("gpu", variant)
        dy.pop("backend"), dy.pop("variant")
        assert dx == dy
        assert np.array_equal(x.window_scores, y.window_scores)
        assert (x.intra_query, x.intra_target, x.inter) == (y.intra_query, y.intra_target, y.inter)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
@pytest.mark.parametrize("layout", list(LAYOUTS))
def test_api_equals_cpu_on_longer_pairs(layout, variant, monkeypatch, request):
    """Queries of 16 to 40 nt against targets of 1 to 300 nt, windowed and not, both weights, sites,
    structures: the GPU's rows equal the CPU's, through the API."""
    from bioaccel.interact import _gpu_launch

    if LAYOUTS[layout] is not None:
        small = request.getfixturevalue("small_launch_sizes").bpmax
        monkeypatch.setattr(_gpu_launch, "SIZES", replace(small, **LAYOUTS[layout]))
    rng = random.Random(5)
    for au, gu in WEIGHTS:
        for w1, w2 in ((None, None), (None, 16), (7, 30), (12, None)):
            queries = [(f"q{k}", random_rna(rng, rng.randint(16, 40))) for k in range(2)]
            longest = 300 if w2 else 60
            targets = [(f"t{k}", random_rna(rng, rng.choice([1, 5, rng.randint(6, longest)]))) for k in range(5)]
            params = InteractParams(au=au, gu=gu, window_query=w1, window_target=w2)
            options = dict(params=params, structure=True, sites=2)
            _same_results(bpmax(queries, targets, backend="gpu", variant=variant, **options),
                          bpmax(queries, targets, **options), variant)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_svrnas_against_sars_cov_2_pieces(variant):
    """The three svRNAs against 3 kb of SARS-CoV-2 and two shorter pieces, target window 128: scores,
    profiles, gains, three sites each and their structures equal to the CPU's."""
    genome = next(read_fasta(str(DATA / "sars-cov-2.fasta")))
    svrnas = list(read_fasta(str(DATA / "sars-cov-svrna.fa")))
    pieces = [Record("3kb", genome.sequence[26_000:29_000]), Record("800", genome.sequence[1_000:1_800]),
              Record("150", genome.sequence[5_000:5_150])]
    for rank in ("score", "gain"):
        options = dict(params=InteractParams(window_target=128), structure=True, sites=3, rank=rank)
        _same_results(bpmax(svrnas, pieces, backend="gpu", variant=variant, **options),
                      bpmax(svrnas, pieces, **options), variant)


def test_streamed_pieces_equal_one_launch():
    """A 2 kb target cut into pieces of 300 nt (window 128) gives every window score of one launch."""
    genome = next(read_fasta(str(DATA / "sars-cov-2.fasta")))
    query = next(read_fasta(str(DATA / "sars-cov-svrna.fa")))
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(query.codes)
    rb = np.ascontiguousarray(Record("t", genome.sequence[10_000:12_000]).codes[::-1])
    S1 = strand_band(ca, params.fold_params, len(ca))
    whole = window_scores(ca, S1, [rb], params)
    record = []
    streamed = window_scores(ca, S1, [rb], params, sizes=BPMaxSizes(piece=300), record=record)
    assert len(record[0][0]) > 6                      # the pieces of the target
    assert np.array_equal(whole[0][0], streamed[0][0]) and np.array_equal(whole[0][1], streamed[0][1])


def test_wide_band_finishes_equal_each_other_and_the_cpu():
    """Without a window, 12 x 300 nt: the band (300 wide) takes the wide-band finish; the eager tiled one
    (production 64-tiles, 32- and 16-tiles, several targets in one launch), the same kernel a launch per
    diagonal only, with padded or unpadded shared-memory rows (the default keeps row-tile operands in
    registers), c22e9df's tiled one, the diagonal one, the products without their skip of the
    tiles past the target and the products split among 4 lanes (two cells a word, and k2 pairs in a word, the
    default's 2 lanes) give the same device tables (every cell of F and S2), and the window scores
    equal the CPU's."""
    rng = random.Random(29)
    params = InteractParams()
    ca = np.ascontiguousarray(random_rna_codes(rng, 12))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (300, 180)]
    _same_tables_and_cpu(ca, rbs, params, (
        dict(), dict(wide_tile=32), dict(wide_tile=16), dict(wide_finish="prefetch"),
        dict(wide_finish="eager-padded"), dict(wide_finish="eager-padded", wide_tile=16),
        dict(wide_finish="eager-unpadded"), dict(wide_finish="eager-unpadded", wide_tile=16),
        dict(wide_finish="tiled"), dict(wide_finish="tiled", wide_tile=16), dict(wide_finish="diagonal"),
        dict(products_parts=0, products_skip=False),
        dict(products_parts=4, split_band=10_000, split_pairs=False), dict(split_band=10_000),
        dict(split_band=10_000, pairs_stage=1)))


def random_rna_codes(rng, n):
    from bioaccel.inputs.alphabet import encode

    return encode(random_rna(rng, n))


def test_a_too_long_target_without_window_is_refused_with_the_estimate():
    from bioaccel.errors import ResourceError

    with pytest.raises(ResourceError, match=r"iB of GPU memory without a target window"):
        bpmax("ACGU" * 6, "ACGU" * 20_000, backend="gpu")


def test_dask_items_on_the_gpu_path():
    """The batch layer's GPU items run the Work's function on the GPU path: equal to the CPU rows."""
    rng = random.Random(8)
    query = Record("q", random_rna(rng, 20))
    targets = [Record(f"t{k}", random_rna(rng, rng.randint(50, 400))) for k in range(6)]
    params = InteractParams(window_target=64)
    work = bpmax_work(query, targets, params=params, backend="gpu", variant="fused")
    got = work.function([item.payload for item in work.items])
    expected = bpmax(query, targets, params=params)
    _same_results([rows[0] for rows in got], expected)


@pytest.mark.parametrize("variant", GPU_VARIANTS)
def test_empty_strands_on_the_gpu_path(variant):
    """An empty query or target is a valid input on the GPU too (its pairs go to the CPU path, the
    device's launches needing a base on each strand): the same rows as the CPU's, in their places
    among pairs that do launch."""
    queries = [("e", ""), ("q", "GGGAAACCCAUGCAUGCAU")]
    targets = [("t", "GGGUUUCCCAAAGGGAUGCAUCCAUGGG"), ("none", "")]
    for params in (InteractParams(), InteractParams(window_target=8)):
        options = dict(params=params, structure=True, sites=2)
        _same_results(bpmax(queries, targets, backend="gpu", variant=variant, **options),
                      bpmax(queries, targets, **options), variant)
