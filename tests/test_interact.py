"""BPMax: test vectors, every variant cell by cell against tests/naive_bpmax.py, windows, tracebacks,
the API's forms (many pairs, streaming, Dask) and its thread count."""
import random

import numba
import numpy as np
import pytest

from bioaccel.alphabet import encode
from bioaccel.errors import InputError, InvalidParameter, ResourceError
from bioaccel.interact import VARIANTS, InteractParams, bpmax, iter_bpmax
from bioaccel.interact._cpu import fill_tiled
from bioaccel.interact._naive import fill_naive
from bioaccel.interact._strands import dense_of_band, strand_band
from bioaccel.interact._traceback import dot_bracket
from naive_bpmax import bpmax_tables, structure_units

# bpmax.md, checked against the original program: (a, b, (F, S1, S2) at AU=1 GU=1.5, same at AU=2 GU=1)
VECTORS = [
    ("GGGAAACCC", "GGGUUUCCC", (21, 9, 9), (24, 9, 9)),
    ("ACGUACGU", "ACGUACGU", (16, 4, 4), (20, 5, 5)),
    ("GCAUGCAUGC", "AUGCAUGCAUGCAU", (24, 7, 9), (30, 8, 12)),
    ("AAAA", "UUUU", (4, 0, 0), (8, 0, 0)),
    ("UGUUGGCC", "CAGUGUGAAUC", (17, 3, 6), (19, 3, 6)),
    ("ACCGCCGTCTTCGAGGAAAG", "CCCGGCTGCTAGCTAGGAGAAATCGCGCATTT", (52, 15, 22), (59, 15, 26)),
    ("CGCGCTGGATAAATATAGGACCAGGAAT", "GCTCGGATAGAGCTAGGAGAAATCGCGCCGCTAGA", (52.5, 17.5, 26.5), (59, 19, 27)),
]
WEIGHTS = [(1, 1.5), (2, 1)]


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


@pytest.mark.parametrize("variant", VARIANTS.names("cpu"))
@pytest.mark.parametrize("a, b, first, second", VECTORS)
def test_vectors_both_weight_settings(variant, a, b, first, second):
    for (au, gu), expected in zip(WEIGHTS, (first, second)):
        result = bpmax(a, b, params=InteractParams(au=au, gu=gu), variant=variant)[0]
        assert (result.score, result.query_fold, result.target_fold) == expected
        assert (result.target_start, result.target_end) == (0, len(b))


def _tables(a, b, params):
    """Codes of the query and of the reversed target, and their S bands as wide as the windows."""
    ca = encode(a)
    crb = np.ascontiguousarray(encode(b)[::-1])
    fold = params.fold_params
    L1, L2 = params.spans(len(a), len(b))
    return ca, crb, strand_band(ca, fold, L1), strand_band(crb, fold, L2)


def _random_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    for index in range(count):
        M, N = rng.randint(1, 12), rng.randint(1, 12)
        au, gu = WEIGHTS[(index // 4) % 2]
        rows = rng.choice([1, 2, 3, 16])
        if index % 4 == 0:
            w1, w2 = None, None
        elif index % 4 == 1:  # small windows, one row per task: the ring of rows wraps around
            w1, w2, rows = rng.randint(1, 2), rng.randint(1, 3), 1
        else:
            w1, w2 = rng.choice([None, rng.randint(1, 11)]), rng.choice([None, rng.randint(1, 11)])
        cases.append((random_rna(rng, M), random_rna(rng, N), au, gu, w1, w2, rows))
    return cases


def test_every_variant_equals_reference_cell_by_cell():
    """240 random pairs, lengths 1 to 12, with and without windows, both weight settings."""
    wrapped = 0
    for a, b, au, gu, w1, w2, rows in _random_cases(240, seed=3):
        params = InteractParams(au=au, gu=gu, window_query=w1, window_target=w2)
        F, S1, S2, unit = bpmax_tables(a, b, au, gu, w1, w2)
        ca, crb, s1, s2 = _tables(a, b, params)
        M, N = len(a), len(b)
        L1, L2 = params.spans(M, N)
        assert all(s1[i, j - i] == S1[i][j] for i in range(M) for j in range(i, min(M, i + L1)))
        assert all(s2[i, j - i] == S2[i][j] for i in range(N) for j in range(i, min(N, i + L2)))
        dense_naive = fill_naive(ca, crb, params.pair_table(), dense_of_band(s1), dense_of_band(s2), L1, L2)
        record = np.full((M, M, N, N), -1, dtype=np.int32)
        win, plan, *_ = fill_tiled(ca, crb, s1, s2, params, record=record, rows_per_task=rows)
        wrapped += plan.wraps
        for (i1, j1, i2, j2), value in F.items():
            if j1 - i1 < L1 and j2 - i2 < L2:
                assert record[i1, j1, i2, j2] == value, (a, b, w1, w2, (i1, j1, i2, j2))
                assert dense_naive[i1, j1, i2, j2] == value, (a, b, w1, w2, (i1, j1, i2, j2))
                if j1 - i1 == L1 - 1 and j2 == min(i2 + L2 - 1, N - 1):
                    assert win[i1, i2] == value
        # cells outside the windows are never written
        outside = [(i1, j1, i2, j2) for (i1, j1, i2, j2) in F if j1 - i1 >= L1 or j2 - i2 >= L2]
        assert all(record[c] == -1 for c in outside)
    # the ring-of-rows path was exercised: more than 10 cases (each case was filled twice, with the
    # no-op ``prune`` on and off, when this said ``> 20`` fills)
    assert wrapped > 10



def test_tiled_equals_naive_cell_by_cell_at_vector_widths():
    """Targets of 100-300 nt reach the 64-column register kernels (four vectors wide, partial chunks on
    the left), several tasks per anti-diagonal and the ring of rows; naive is checked against the
    plain-Python reference above."""
    rng = random.Random(17)
    for M, N, w1, w2 in ((4, 150, None, None), (6, 230, None, 70), (5, 300, 3, 100), (3, 129, None, 64)):
        a, b = random_rna(rng, M), random_rna(rng, N)
        params = InteractParams(au=rng.choice([1, 2]), gu=rng.choice([1, 1.5]), window_query=w1, window_target=w2)
        ca, crb, s1, s2 = _tables(a, b, params)
        L1, L2 = params.spans(M, N)
        expect = fill_naive(ca, crb, params.pair_table(), dense_of_band(s1), dense_of_band(s2), L1, L2)
        record = np.full((M, M, N, N), -1, dtype=np.int32)
        fill_tiled(ca, crb, s1, s2, params, record=record)
        i1, j1, i2, j2 = np.indices((M, M, N, N))
        inside = (j1 >= i1) & (j2 >= i2) & (j1 - i1 < L1) & (j2 - i2 < L2)
        assert np.array_equal(record[inside], expect[inside]), (M, N, w1, w2)
        assert np.all(record[~inside & (j1 >= i1) & (j2 >= i2)] == -1)

def test_window_scores_positions_and_profile():
    rng = random.Random(11)
    for _ in range(30):
        a, b = random_rna(rng, rng.randint(3, 9)), random_rna(rng, rng.randint(6, 14))
        w1 = rng.choice([None, rng.randint(1, 5)])
        w2 = rng.randint(1, 7)
        params = InteractParams(window_query=w1, window_target=w2)
        result = bpmax(a, b, params=params)[0]
        F, _, _, unit = bpmax_tables(a, b, 1, 1.5, w1, w2)
        M, N = len(a), len(b)
        L1, L2 = params.spans(M, N)
        # window (q, t) of the original strands is F over a[q:q+L1] and reversed b[t:t+L2]
        expect = np.array([[F[q, q + L1 - 1, N - t - L2, N - t - 1] for t in range(N - L2 + 1)]
                           for q in range(M - L1 + 1)]) / unit
        assert np.array_equal(result.window_scores, expect)
        assert result.score == expect.max()
        assert result.target_end - result.target_start == L2 and result.query_end - result.query_start == L1
        # the best window is the leftmost along the target (then the query) holding the maximum
        ts = int(np.flatnonzero(expect.max(axis=0) == expect.max())[0])
        assert result.target_start == ts
        # an independent check of the coordinates: the best window pair alone, without windows
        alone = bpmax(a[result.query_start:result.query_end], b[result.target_start:result.target_end])[0]
        assert alone.score == result.score
        profile = result.profile()
        for pos in range(N):
            covering = [expect[:, t].max() for t in range(N - L2 + 1) if t <= pos < t + L2]
            assert profile[pos] == max(covering)


def _check_structure(a, b, result, au, gu):
    units = structure_units(a, b, result.intra_query, result.intra_target, result.inter, au, gu)
    assert units == round(result.score * InteractParams(au=au, gu=gu).unit)
    q0, t0 = result.query_start, result.target_start
    text = result.structure
    assert len(text) == (result.query_end - q0) + 1 + (result.target_end - t0) and text.count("&") == 1
    for kind in ("()", "[]"):
        depth = 0
        for ch in text:
            depth += (ch == kind[0]) - (ch == kind[1])
            assert depth >= 0
        assert depth == 0
    assert text.count("(") + text.count("[") == (len(result.intra_query) + len(result.intra_target)
                                                 + len(result.inter))


@pytest.mark.parametrize("variant", VARIANTS.names("cpu"))
def test_tracebacks_are_valid_and_score_the_optimum(variant):
    rng = random.Random(7)
    cases = [(a, b, au, gu, None) for a, b, _, _ in VECTORS[:5] for au, gu in WEIGHTS]
    cases += [(random_rna(rng, rng.randint(1, 12)), random_rna(rng, rng.randint(1, 12)), *WEIGHTS[k % 2],
               rng.choice([None, rng.randint(1, 6)])) for k in range(60)]
    for a, b, au, gu, w2 in cases:
        result = bpmax(a, b, params=InteractParams(au=au, gu=gu, window_target=w2), variant=variant,
                       structure=True)[0]
        _check_structure(a, b, result, au, gu)


def test_traceback_is_deterministic_and_longer_pair():
    a, b = VECTORS[5][0], VECTORS[5][1]
    first = bpmax(a, b, structure=True)[0]
    assert first.score == 52
    _check_structure(a, b, first, 1, 1.5)
    again = bpmax(a, b, structure=True)[0]
    assert (again.structure, again.inter) == (first.structure, first.inter)


def test_dot_bracket_uses_rnacofold_brackets_unless_pairs_cross():
    # no intramolecular loop encloses an intermolecular pair: RNAcofold style
    assert dot_bracket(3, 3, [], [], [(0, 2), (2, 0)]) == "(.(&).)"
    # a query hairpin whose loop pairs with the target: intermolecular pairs become [ ]
    assert dot_bracket(6, 2, [(0, 5)], [], [(2, 1)]) == "(.[..)&.]"


def test_target_coordinates_are_unreversed():
    # GGG pairs only with the CCC at the target's end (0-based 6..9)
    result = bpmax("GGG", "AAAAAACCC", structure=True)[0]
    assert sorted(t for _, t in result.inter) == [6, 7, 8]
    assert all(q + t == 8 for q, t in result.inter)  # antiparallel: query 0 with target 8


def test_int32_tables_for_scores_beyond_int16():
    params = InteractParams()
    assert params.cell_dtype(20, 200) == np.int16
    assert params.cell_dtype(40, 12000) == np.int32
    assert InteractParams(window_target=128).cell_dtype(40, 12000) == np.int16


def test_params_and_inputs_are_checked():
    with pytest.raises(InvalidParameter, match="window target"):
        InteractParams(window_target=0)
    with pytest.raises(InvalidParameter):
        InteractParams(au=-1)
    with pytest.raises(InvalidParameter, match="variant"):
        bpmax("ACGU", "ACGU", variant="fast")
    with pytest.raises(InvalidParameter, match="BPMax is not available on the gpu backend"):
        bpmax("ACGU", "ACGU", backend="gpu")
    with pytest.raises(InputError):
        bpmax("", "ACGU")
    with pytest.raises(InputError):
        bpmax("AC#", "ACGU")


def test_too_large_is_refused_with_a_window_that_fits(monkeypatch):
    monkeypatch.setattr("bioaccel._memory.available_memory", lambda: 2 * 10**8)
    with pytest.raises(ResourceError, match=r"--window-target \d+"):
        bpmax("ACGU" * 8, "ACGU" * 500)
    with pytest.raises(ResourceError, match="naive"):
        bpmax("ACGU" * 8, "ACGU" * 100, variant="naive")


def _pairs_for_api(seed):
    rng = random.Random(seed)
    queries = [("q1", random_rna(rng, 7)), ("q2", random_rna(rng, 12)), ("q3", random_rna(rng, 3))]
    targets = [("t1", random_rna(rng, 30)), ("t2", random_rna(rng, 9)), ("t3", random_rna(rng, 41))]
    return queries, targets


def _same(got, expected):
    assert [r.to_dict() for r in got] == [r.to_dict() for r in expected]
    for x, y in zip(got, expected):
        assert np.array_equal(x.window_scores, y.window_scores)
        assert (x.intra_query, x.intra_target, x.inter) == (y.intra_query, y.intra_target, y.inter)


def test_many_pairs_targets_outer_and_the_stream_gives_the_same():
    queries, targets = _pairs_for_api(29)
    params = InteractParams(window_target=8)
    results = bpmax(queries, targets, params=params, structure=True)
    assert [(r.target, r.query) for r in results] == [(t, q) for t, _ in targets for q, _ in queries]
    for r in results:  # each the same as the pair alone
        q, t = dict(queries)[r.query], dict(targets)[r.target]
        assert r.to_dict() == bpmax((r.query, q), (r.target, t), params=params, structure=True)[0].to_dict()
    stream = iter_bpmax(queries, iter(targets), params=params, structure=True)
    assert not isinstance(stream, list)
    _same(list(stream), results)


def test_threads_leave_numbas_thread_count_unchanged():
    before = numba.get_num_threads()
    result = bpmax("GGGAAACCC", "GGGUUUCCC", threads=1)[0]
    assert result.score == 21 and numba.get_num_threads() == before
    stream = iter_bpmax("GGGAAACCC", ["GGGUUUCCC", "AAAA"], threads=1)
    next(stream)
    assert numba.get_num_threads() == before  # also between the results of a stream
    with pytest.raises(InvalidParameter, match="threads"):
        bpmax("ACGU", "ACGU", threads=-1)
    assert numba.get_num_threads() == before


def test_dask_client_gives_the_same_results_in_the_same_order():
    from dask.distributed import Client, LocalCluster

    queries, targets = _pairs_for_api(31)
    params = InteractParams(au=2, gu=1, window_target=10)
    local = bpmax(queries, targets, params=params, structure=True)
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        remote = bpmax(queries, targets, params=params, structure=True, client=client)
    _same(remote, local)
