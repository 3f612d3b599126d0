"""Every CPU variant of Nussinov folding against the plain-Python reference in tests/naive.py."""
import functools
import itertools

import numpy as np
import pytest

import naive
from bioaccel.inputs.alphabet import encode
from bioaccel.errors import InvalidParameter, ResourceError
from bioaccel.fold import VARIANTS as REGISTRY
from bioaccel.fold import FoldParams, fold_one, fold_table, nussinov
from bioaccel.fold import _cpu, _dense_cpu, _packed_cpu, _tiled_cpu
from bioaccel.fold._traceback import dot_bracket, traceback_pairs

VARIANTS = REGISTRY.names("cpu")
SMALL_TILES = (1, 3, 4, 7, 16)  # tiny inputs cross many tiles; 7 and 3 do not divide most lengths

PARAMS = [
    FoldParams(min_loop=ml, gu=gu, **weights)
    for ml, gu, weights in itertools.product((0, 1, 3), (0, 1), ({}, {"gc": 3, "au": 2}))
] + [FoldParams.bpmax(), FoldParams(min_loop=1, au=1.5, gc=3, gu=0.5)]


def _random_cases(count=240, seed=20260521):
    rng = np.random.default_rng(seed)
    lengths = [0, 1, 2, 3, 4, 5] + rng.integers(0, 91, count - 6).tolist()
    cases = []
    for index, n in enumerate(lengths):
        # a few IUPAC 'N' (pairs with nothing) and lower case and T among the letters
        letters = rng.choice(list("ACGUACGUACGUN"), n)
        seq = "".join(letters)
        if index % 7 == 3:
            seq = seq.lower().replace("u", "t")
        cases.append((seq, PARAMS[index % len(PARAMS)]))
    return cases


CASES = _random_cases()


@functools.lru_cache(maxsize=None)
def _reference(case_index):
    seq, params = CASES[case_index]
    table = naive.nussinov_table(seq, params)
    return table, naive.nussinov_structure(seq, params, table)


def _upper(table, base, n):
    """The upper triangle (i <= j) read through the table's accessor, as one flat array."""
    i, j = np.triu_indices(n)
    return np.asarray(table)[np.asarray(base)[i] + j]


def _ref_upper(ref, n):
    i, j = np.triu_indices(n)
    return np.array(ref, dtype=np.int64).reshape(n, n)[i, j] if n else np.zeros(0, np.int64)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_table_value_equals_the_reference(variant):
    tiles = SMALL_TILES if variant == "tiled" else (_tiled_cpu.TILE,)
    for index, (seq, params) in enumerate(CASES):
        ref, _ = _reference(index)
        codes, pairs = encode(seq), params.pair_table()
        for tile in tiles:
            table, base = _cpu.fill_table(codes, params, variant, tile=tile)
            assert np.array_equal(_upper(table, base, len(seq)), _ref_upper(ref, len(seq))), \
                (variant, tile, seq, params)


@pytest.mark.parametrize("variant", VARIANTS)
def test_traceback_is_valid_optimal_and_follows_the_shared_rule(variant):
    for index, (seq, params) in enumerate(CASES):
        ref, ref_structure = _reference(index)
        codes, pairs = encode(seq), params.pair_table()
        table, base = _cpu.fill_table(codes, params, variant, tile=3)
        structure = dot_bracket(traceback_pairs(table, base, codes, pairs, params.min_loop))
        optimum = ref[0][-1] if seq else 0
        assert naive.structure_score(seq, structure, params) == optimum, (variant, seq, params)
        # the same rule everywhere: identical to the reference's traceback, so to every other variant's
        assert structure == ref_structure, (variant, seq, params)


@pytest.mark.parametrize("parallel_work", [0, float("inf")], ids=["parallel kernel", "serial kernel"])
def test_batch_of_short_sequences_equals_one_at_a_time(monkeypatch, parallel_work):
    monkeypatch.setattr(_packed_cpu, "PARALLEL_WORK", parallel_work)
    for params in (PARAMS[0], FoldParams(), FoldParams.bpmax()):
        chosen = [seq for seq, p in CASES[:50]]
        folded = _packed_cpu.fold_list([encode(s) for s in chosen], params, tile=5)
        for seq, (units, pair_to) in zip(chosen, folded):
            table = naive.nussinov_table(seq, params)
            assert units == (table[0][-1] if seq else 0)
            assert dot_bracket(pair_to) == naive.nussinov_structure(seq, params, table)
        scores_only = _packed_cpu.fold_list([encode(s) for s in chosen], params, tile=5, traceback=False)
        assert [s for s, _ in scores_only] == [s for s, _ in folded]
        assert all(p is None for _, p in scores_only)


def test_api_batches_and_single_sequences_give_the_same_results(monkeypatch):
    seqs = [seq for seq, _ in CASES[:60]]
    one_by_one = [nussinov([s])[0] for s in seqs]
    monkeypatch.setattr("bioaccel.fold._stream.CHUNK_MAX_WORK", 5e4)  # many small batches
    batched = nussinov(seqs)
    assert [r.structure for r in batched] == [r.structure for r in one_by_one]
    assert [r.score for r in batched] == [r.score for r in one_by_one]
    assert [r.score for r in batched[:20]] == [naive.nussinov_score(s, FoldParams()) for s in seqs[:20]]
    assert [r.id for r in batched] == [f"seq{k}" for k in range(1, 61)]


def test_realistic_lengths_with_the_default_tile_equal_cpu1():
    rng = np.random.default_rng(7)
    pairs = FoldParams().pair_table()
    for n in (97, 300, 577):
        codes = rng.integers(0, 4, n).astype(np.uint8)
        expected = _dense_cpu.fill_naive(codes, pairs, 3)
        for variant in ("tiled", "cache-parallel"):
            assert np.array_equal(np.triu(fold_table(codes, variant=variant)), expected)
        table, base = _tiled_cpu.fill_tiled(codes, pairs, 3, np.int32, parallel=False)  # the int32 path
        assert np.array_equal(_upper(table, base, n), expected[np.triu_indices(n)])


def test_table_dtype_is_int16_while_scores_fit_then_int32():
    params = FoldParams()
    assert params.cell_dtype(2000) == np.int16
    assert params.cell_dtype(65534) == np.int16
    assert params.cell_dtype(70000) == np.int32
    assert FoldParams.bpmax().cell_dtype(20000) == np.int32  # GC = 6 half-units


def test_structures_and_scores_through_the_api():
    result = nussinov("GGGAAAUCC")[0]
    assert (result.structure, result.score, result.pairs) == ("(((...)))", 3, 3)
    assert result.base_pairs() == [(0, 8), (1, 7), (2, 6)]
    assert result.pair_to.tolist() == [8, 7, 6, -1, -1, -1, 2, 1, 0]
    assert (result.variant, result.backend, result.length, result.min_loop) == ("tiled", "cpu", 9, 3)
    nussinov_model = FoldParams()
    assert fold_one("gggaaatcc", params=nussinov_model) == ("(((...)))", 3)  # lower case, T read as U
    assert fold_one("GGGAAAUCC", params=FoldParams(gu=0)) == ("((.....))", 2)
    assert fold_one("GGGAUCC", params=FoldParams(min_loop=1)) == ("(((.)))", 3)
    assert fold_one("GGGAUCC", params=nussinov_model) == ("((...))", 2)
    assert fold_one("", params=nussinov_model) == ("", 0)
    assert fold_one("NNNNNNNN", params=nussinov_model) == ("........", 0)
    # BPMax weights in half-units: GC = 3, GU = 1.5
    structure, score = fold_one("GAAAU", params=FoldParams.bpmax(au=1, gu=1.5))
    assert (structure, score) == ("(...)", 1.5)
    no_tb = nussinov([("x", "GGGAAAUCC")], traceback=False)[0]
    assert (no_tb.id, no_tb.structure, no_tb.pair_to, no_tb.score) == ("x", None, None, 3)


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_variant_through_the_api(variant):
    seqs = [seq for seq, _ in CASES[100:130]]
    results = nussinov(seqs, variant=variant, params=FoldParams(min_loop=1), threads=1)
    expected = [naive.nussinov_structure(s, FoldParams(min_loop=1)) for s in seqs]
    assert [r.structure for r in results] == expected
    assert all(r.variant == variant for r in results)


def test_unknown_variant_and_backend_name_the_choices():
    with pytest.raises(InvalidParameter, match="naive-parallel"):
        nussinov("ACGU", variant="fastest")
    with pytest.raises(InvalidParameter, match="cpu, gpu"):
        nussinov("ACGU", backend="tpu")
    with pytest.raises(InvalidParameter, match="min_loop"):
        nussinov("ACGU", params=FoldParams(min_loop=-1))


def test_a_table_that_does_not_fit_is_refused_before_allocating(monkeypatch):
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 10 * 2**20)  # 10 MiB
    codes = np.zeros(5000, dtype=np.uint8)
    with pytest.raises(ResourceError, match=r"needs about [\d.]+ MiB but only 10.0 MiB.*--backend gpu or a shorter sequence"):
        _cpu.fill_table(codes, FoldParams(), "tiled")
    with pytest.raises(ResourceError, match="5,000"):
        nussinov("A" * 5000, variant="naive")


@pytest.mark.slow
def test_a_few_thousand_nt_of_sars_cov_2_agree_across_variants():
    from bioaccel.inputs.fasta import read_fasta

    record = next(read_fasta("examples/sars-cov-2.fasta"))
    seq = record.sequence[:3000]
    params = FoldParams()
    results = {v: nussinov([seq], variant=v)[0] for v in ("tiled", "cache-parallel", "naive-parallel")}
    assert len({(r.structure, r.score) for r in results.values()}) == 1
    tiled = results["tiled"]
    assert naive.structure_score(seq, tiled.structure, params) == tiled.score_units > 0
