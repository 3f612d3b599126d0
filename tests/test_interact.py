"""BPMax: test vectors, every variant cell by cell against tests/naive_bpmax.py, windows, tracebacks,
the API's forms (many pairs, streaming, Dask) and its thread count."""
import os
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.errors import InputError, InvalidParameter, ResourceError
from bioaccel.inputs.fasta import Record, read_fasta
from bioaccel.fold import fold_one
from bioaccel.interact import VARIANTS, InteractParams, bpmax, iter_bpmax
from bioaccel.interact import check_sizes
from bioaccel.interact._memory import plan_bytes
from bioaccel.interact._naive import fill_naive
from bioaccel.interact._pairs_cpu import pair_sites
from bioaccel.interact._request import check_request
from bioaccel.interact._strands import band_of_dense, dense_of_band, fold_band, single_strand_table, strand_band
from bioaccel.interact._traceback import dot_bracket
from bioaccel.interact.tiled import StreamPlan, fill_tiled
from naive_bpmax import bpmax_score, bpmax_tables, single_strand, structure_units, window_scores

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



def test_strand_bands_equal_fold_table_and_the_reference():
    """The band fill gives S exactly where the band holds it: against the fold wing's dense table and
    the plain-Python reference, lengths 1 to 40 and 300, widths 1 to the whole strand; cells past the
    strand's end hold 0."""
    rng = random.Random(41)
    fold = InteractParams(au=2, gu=1).fold_params
    cases = [(random_rna(rng, n), w) for n in (1, 2, 3, 5, 9, 17, 40) for w in (1, 2, 5, 6, 16, 39, 41)]
    cases += [(random_rna(rng, 300), w) for w in (1, 7, 64, 129, 299, 300)]
    for seq, width in cases:
        codes, n = encode(seq), len(seq)
        band = fold_band(codes, fold, width)
        dense = single_strand_table(codes, fold)
        assert np.array_equal(band, band_of_dense(dense, width)), (n, width)
        assert np.array_equal(strand_band(codes, fold, width), strand_band(codes, fold, width, dense=True))
        if n <= 40:
            reference = single_strand(seq, 2, 1, 1)
            assert all(band[i, d] == (reference[i][i + d] if i + d < n else 0)
                       for i in range(n) for d in range(width)), (seq, width)


def _record(name, sequence):
    return Record(name, sequence)


def _interaction(query, target, params, variant, structure, threads, sites=1, rank="score", dense=False):
    """The rows of one pair on the CPU path (``dense``: the strands folded in full, as before the bands)."""
    return pair_sites(query, target, check_request(params, "cpu", variant, threads, structure, sites, rank), dense)


def _same_sites(got, expected, what):
    def row(r):
        return {k: v for k, v in r.to_dict().items() if k != "variant"}

    assert [row(r) for r in got] == [row(r) for r in expected], what
    for x, y in zip(got, expected):
        assert np.array_equal(x.window_scores, y.window_scores), what
        assert np.array_equal(x.profile(), y.profile()), what
        assert (x.intra_query, x.intra_target, x.inter) == (y.intra_query, y.intra_target, y.inter), what


def test_band_path_equals_dense_path_and_naive_on_random_pairs():
    """120 random pairs (lengths 1 to 14), query and target windows of several sizes, both weight
    settings, three sites with structures: the band path (S as bands), the dense path (S from the
    dense fold_table, as before the bands) and the recurrence as written give identical scores, folds,
    gains, sites, per-window scores, profiles and structures; window scores equal the plain-Python
    reference's."""
    rng = random.Random(43)
    for index in range(120):
        a, b = random_rna(rng, rng.randint(1, 14)), random_rna(rng, rng.randint(1, 14))
        au, gu = WEIGHTS[index % 2]
        w1 = rng.choice([None, None, rng.randint(1, 6)])
        w2 = rng.choice([None, rng.randint(1, 3), rng.randint(1, 8), rng.randint(4, 13)])
        params = InteractParams(au=au, gu=gu, window_query=w1, window_target=w2)
        query, target = _record("q", a), _record("t", b)
        rank = ("score", "gain")[index % 3 == 2]
        band = _interaction(query, target, params, "tiled", True, 0, 3, rank)
        what = (a, b, au, gu, w1, w2, rank)
        _same_sites(band, _interaction(query, target, params, "tiled", True, 0, 3, rank, dense=True), what)
        _same_sites(band, _interaction(query, target, params, "naive", True, 0, 3, rank), what)
        F, _, _, unit = bpmax_tables(a, b, au, gu, w1, w2)
        M, N = len(a), len(b)
        L1, L2 = params.spans(M, N)
        expect = np.array([[F[q, q + L1 - 1, N - t - L2, N - t - 1] for t in range(N - L2 + 1)]
                           for q in range(M - L1 + 1)]) / unit
        assert np.array_equal(band[0].window_scores, expect), what
        for site in band:
            _check_structure(a, b, site, au, gu)


def test_band_path_equals_dense_path_on_longer_targets():
    """Targets of 150 to 700 nt (the 64-column kernels, rings of rows that wrap, int16 and int32
    cells), target windows 8 to 129, with and without a query window."""
    rng = random.Random(47)
    for M, N, w1, w2 in ((12, 700, None, 128), (6, 400, 3, 64), (9, 150, None, 8), (20, 300, 7, 100)):
        params = InteractParams(window_query=w1, window_target=w2)
        query, target = _record("q", random_rna(rng, M)), _record("t", random_rna(rng, N))
        band = _interaction(query, target, params, "tiled", True, 0, 4)
        _same_sites(band, _interaction(query, target, params, "tiled", True, 0, 4, dense=True), (M, N, w1, w2))
        assert len(band) == 4 or all(any(abs(t - r.target_start) <= w2 for r in band) for t in range(N - w2))


def test_folds_and_gain_are_those_of_the_reported_windows():
    """query_fold and target_fold are the folds of the reported windows alone (an independent fold of
    the window's letters, by the fold wing), and gain = score - query_fold - target_fold >= 0."""
    rng = random.Random(53)
    fold_params = InteractParams().fold_params
    for _ in range(40):
        a, b = random_rna(rng, rng.randint(4, 16)), random_rna(rng, rng.randint(20, 60))
        params = InteractParams(window_query=rng.choice([None, rng.randint(2, 8)]),
                                window_target=rng.randint(4, 19))
        for r in bpmax(a, b, params=params, sites=3):
            assert r.target_fold == fold_one(b[r.target_start:r.target_end], params=fold_params)[1]
            assert r.query_fold == fold_one(a[r.query_start:r.query_end], params=fold_params)[1]
            assert r.gain == r.score - r.query_fold - r.target_fold >= 0
    # a real case: the N svRNA against 1 kb of the SARS-CoV-2 3' end, window 128
    root = os.path.join(os.path.dirname(__file__), "..", "examples")
    query = [r for r in read_fasta(os.path.join(root, "sars-cov-svrna.fa")) if r.id == "N"][0]
    target = next(read_fasta(os.path.join(root, "sars-cov-2-3prime.fa")))
    r = bpmax(query, target, params=InteractParams(window_target=128))[0]
    window = target.sequence[r.target_start:r.target_end]
    assert r.target_fold == fold_one(window, params=fold_params)[1] < fold_one(target.sequence, params=fold_params)[1]
    assert r.gain == r.score - r.query_fold - r.target_fold > 0


def _greedy_sites(scores, L2, count):
    """The documented rule, written out: best score first, ties to the leftmost target window; skip a
    window sharing a base with one already taken; the leftmost query window holding its score."""
    best = scores.max(axis=0)
    taken = []
    for t in sorted(range(len(best)), key=lambda t: (-best[t], t)):
        if len(taken) < count and all(abs(t - u) >= L2 for u in taken):
            taken.append(t)
    return [(int(np.flatnonzero(scores[:, t] == best[t])[0]), t) for t in taken]


def test_sites_are_the_best_non_overlapping_target_windows():
    rng = random.Random(59)
    for index in range(60):
        a = random_rna(rng, rng.randint(3, 10))
        # repeats make ties, which the rule breaks to the left
        b = random_rna(rng, rng.randint(10, 25)) * rng.choice([1, 1, 2, 3])
        w1 = rng.choice([None, rng.randint(1, 4)])
        params = InteractParams(window_query=w1, window_target=rng.randint(1, 9))
        count = rng.randint(1, 6)
        sites = bpmax(a, b, params=params, sites=count, structure=index % 3 == 0)
        L2 = sites[0].target_window
        expect = _greedy_sites(sites[0].window_scores, L2, count)
        assert [(r.query_start, r.target_start) for r in sites] == expect
        assert [r.site for r in sites] == list(range(1, len(sites) + 1))
        assert all(x.score >= y.score for x, y in zip(sites, sites[1:]))
        assert all(abs(x.target_start - y.target_start) >= L2 for x in sites for y in sites if x is not y)
        assert (len(sites) == count or
                all(any(abs(t - r.target_start) < L2 for r in sites) for t in range(len(b) - L2 + 1)))
        first = bpmax(a, b, params=params, structure=index % 3 == 0)
        assert len(first) == 1 and first[0].to_dict() == sites[0].to_dict()
        for r in sites:
            assert r.score == r.window_scores[r.query_start, r.target_start] == r.window_scores[:, r.target_start].max()
            if r.structure is not None:
                _check_structure(a, b, r, 1, 1.5)
    # ranked by gain: the same rule on score - query window fold - target window fold, the folds
    # computed independently by the fold wing
    fold_params = InteractParams().fold_params
    for index in range(30):
        a, b = random_rna(rng, rng.randint(3, 10)), random_rna(rng, rng.randint(12, 40))
        w1 = rng.choice([None, rng.randint(1, 4)])
        params = InteractParams(window_query=w1, window_target=rng.randint(4, 11))
        count = rng.randint(1, 4)
        sites = bpmax(a, b, params=params, sites=count, rank="gain")
        r0 = sites[0]
        L1, L2 = r0.query_window, r0.target_window
        qf = np.array([fold_one(a[q:q + L1], params=fold_params)[1] for q in range(len(a) - L1 + 1)])
        tf = np.array([fold_one(b[t:t + L2], params=fold_params)[1] for t in range(len(b) - L2 + 1)])
        gains = r0.window_scores - qf[:, None] - tf[None, :]
        assert [(r.query_start, r.target_start) for r in sites] == _greedy_sites(gains, L2, count)
        assert [r.gain for r in sites] == [gains[r.query_start, r.target_start] for r in sites]
        assert r0.gain == gains.max() >= bpmax(a, b, params=params)[0].gain
    with pytest.raises(InvalidParameter, match="rank"):
        bpmax("ACGU", "ACGU", rank="energy")
    # without a target window the one window is the whole target: one site however many are asked
    assert len(bpmax("GGGAAACCC", "GGGUUUCCC", sites=5)) == 1
    with pytest.raises(InvalidParameter, match="sites"):
        bpmax("ACGU", "ACGU", sites=0)


def test_a_windowed_long_target_takes_memory_linear_in_its_length(monkeypatch):
    """With window 128 the estimate grows linearly (the dense fold of a 100 kb target alone was
    37 GiB), a 100 kb target fits in 1 GiB, and without a window it is refused with the window that
    fits."""
    params = InteractParams(window_target=128)
    sizes = {N: plan_bytes(20, N, params, "tiled") for N in (10_000, 100_000, 1_000_000)}
    assert sizes[100_000] < 2 ** 30
    assert 9.9 < (sizes[1_000_000] - sizes[100_000]) / (sizes[100_000] - sizes[10_000]) < 10.1
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 2 ** 31)
    check_sizes([20], [100_000], params=params)
    with pytest.raises(ResourceError, match=r"--window-target \d+"):
        check_sizes([20], [100_000])


@pytest.mark.parametrize("small_work", [2e11, -1], ids=["python-threads", "prange"])
def test_tiled_equals_naive_cell_by_cell_at_vector_widths(monkeypatch, small_work):
    """Targets of 100-300 nt reach the 64-column register kernels (four vectors wide, partial chunks on
    the left), several tasks per anti-diagonal and the ring of rows; naive is checked against the
    plain-Python reference above. Both ways of running the workers: Python threads (small fills) and
    the ``prange`` kernel (the others)."""
    import bioaccel.interact.tiled.fill as tiled_fill

    monkeypatch.setattr(tiled_fill, "SMALL_WORK", small_work)
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
    with pytest.raises(InvalidParameter, match="BPMax variant 'naive' is not available on the gpu backend"):
        bpmax("ACGU", "ACGU", backend="gpu", variant="naive")
    with pytest.raises(InputError):
        bpmax("AC#", "ACGU")


@pytest.mark.parametrize("variant", VARIANTS.names("cpu"))
def test_an_empty_strand_leaves_the_other_strand_folded_alone(variant):
    """The one rule for an empty sequence: a valid input whose pairs score what the recurrence's
    empty-interval border gives (docs/bpmax.md's compact form), the other strand folded alone, window
    by window. An empty query or target (or both), windowed and not, both weight settings, with
    structures: the window scores equal the plain-Python reference's, the score the fold wing's fold
    of the reported window, no intermolecular pair, and the structure re-scores to the score."""
    rng = random.Random(61)
    cases = [("", random_rna(rng, n)) for n in (0, 1, 4, 9, 23)] + [(random_rna(rng, n), "") for n in (1, 5, 14)]
    cases += [("", "GGGUUUCCC"), ("GGGAAACCC", "")]
    for index, (a, b) in enumerate(cases):
        au, gu = WEIGHTS[index % 2]
        fold_params = InteractParams(au=au, gu=gu).fold_params
        for w1, w2 in ((None, None), (None, 4), (3, None), (2, 6)):
            params = InteractParams(au=au, gu=gu, window_query=w1, window_target=w2)
            what = (a, b, w1, w2, variant)
            sites = bpmax(a, b, params=params, variant=variant, structure=True, sites=2)
            r = sites[0]
            unit = params.unit
            assert np.array_equal(r.window_scores * unit, np.array(window_scores(a, b, au, gu, w1, w2))), what
            M, N = len(a), len(b)
            if w1 is None and w2 is None:
                assert r.score * unit == bpmax_score(a, b, au, gu), what
            window = a[r.query_start:r.query_end] + b[r.target_start:r.target_end]   # one of them is empty
            assert r.score == fold_one(window, params=fold_params)[1], what
            assert (r.query_fold, r.target_fold, r.gain) == ((r.score, 0, 0) if N == 0 else (0, r.score, 0)), what
            assert (r.query_window, r.target_window) == params.spans(M, N), what
            assert r.inter == [] and r.intermolecular == [], what
            assert r.structure.count("&") == 1 and r.structure.startswith("&") == (M == 0), what
            for site in sites:
                _check_structure(a, b, site, au, gu)
            assert len(r.profile()) == N, what
    # as the first of several inputs, through the stream and a Work, in their places
    rows = bpmax(["GGGAAACCC", ""], ["", "GGGUUUCCC"])
    assert [(r.query, r.target, r.score) for r in rows] == [("seq1", "seq1", 9), ("seq2", "seq1", 0),
                                                            ("seq1", "seq2", 21), ("seq2", "seq2", 9)]
    assert [r.to_dict() for r in iter_bpmax(["GGGAAACCC", ""], iter(["", "GGGUUUCCC"]))] == [r.to_dict() for r in rows]


def test_too_large_is_refused_with_a_window_that_fits(monkeypatch):
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 2 * 10**8)
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
    local = bpmax(queries, targets, params=params, structure=True, sites=2)
    assert len(local) > len(queries) * len(targets)   # several sites for some pairs
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, \
            Client(cluster) as client:
        remote = bpmax(queries, targets, params=params, structure=True, sites=2, client=client)
    _same(remote, local)


def test_gpu_matrix_numbering_is_the_cpu_layouts():
    """The GPU path numbers its target matrices as StreamPlan.mat_id does (pure Python, no GPU needed)."""
    from bioaccel.interact._gpu import first_matrix, matrices

    for M in (1, 5, 23):
        for window in (None, *range(1, M)):
            ids = StreamPlan(M, 50, InteractParams(window_query=window)).mat_id()
            L1 = ids.shape[1]
            assert [first_matrix(M, l1) for l1 in range(1, L1 + 1)] == ids[0].tolist()
            assert matrices(M, L1) == ids.max() + 1
