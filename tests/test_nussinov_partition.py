"""The Nussinov partition function and base-pair probabilities (FoldParams.partition_cpu, log_weight):
against every structure enumerated, the plain-Python recurrences in log space, plain doubles, the
log-space fill, BPPart's single strand and the Nussinov fold."""
import math
import random

import numpy as np
import pytest

from bioaccel.fold import FoldParams, nussinov
from bioaccel.fold._nussinov_partition import TINY, partition_many, partition_one
from bioaccel.fold._nussinov_partition_log import partition_log
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams, bppart
from bioaccel.runtime.parallel import threads
from naive_nussinov_partition import brute_force, log_partition

SETTINGS = [FoldParams(), FoldParams(min_loop=0, au=2, gc=3, gu=0), FoldParams(min_loop=1, au=0.5, gc=3, gu=1),
            FoldParams(min_loop=3, au=1.5, gc=2.25, gu=0.5), FoldParams(min_loop=0, au=1, gc=1, gu=1)]


def random_rna(rng, n, letters="ACGU"):
    return "".join(rng.choice(letters) for _ in range(n))


def tolerance(log_z):
    """1e-12 relative, plus the rounding of exp(x) for |x| up to |log Z| (probabilities are such exps)."""
    return 1e-12 + 1e-15 * abs(log_z)


def assert_matches(log_z, bpp, ref_log_z, ref_pairs, n):
    assert log_z == pytest.approx(ref_log_z, rel=1e-12, abs=1e-12)
    assert bpp.shape == (n, n)
    expected = np.zeros((n, n))
    for (i, j), p in ref_pairs.items():
        expected[i, j] = p
    assert np.all((bpp == 0) == (expected == 0))              # the same pairs possible, nothing below i < j
    mask = expected > 0
    rel = np.abs(bpp[mask] - expected[mask]) / expected[mask]
    assert rel.max(initial=0) <= tolerance(ref_log_z)


@pytest.mark.parametrize("params", SETTINGS, ids=str)
def test_every_structure_enumerated(params):
    rng = random.Random(SETTINGS.index(params))
    sequences = [random_rna(rng, n) for n in range(0, 15) for _ in range(2 if n < 12 else 1)]
    sequences += ["GGGGAAAACCCC", "GCGCGCGCGCGC", "AUAUAUAUAUAUAU"]
    codes = [encode(s) for s in sequences]
    for scaled in (True, False):
        results = partition_many(codes, params, True, scaled=scaled)
        for s, (log_z, bpp) in zip(sequences, results):
            ref_log_z, ref_pairs = brute_force(s, params.weights, params.min_loop)
            assert_matches(log_z, bpp, ref_log_z, ref_pairs, len(s))


@pytest.mark.parametrize("params", SETTINGS[:3], ids=str)
def test_the_recurrence_in_logs_on_longer_rnas(params):
    rng = random.Random(7 + SETTINGS.index(params))
    sequences = [random_rna(rng, n) for n in (15, 31, 47, 64, 80)]
    one_at_a_time = [partition_one(encode(s), params, True, workers=2) for s in sequences]
    for s, (log_z, bpp), (z1, bpp1) in zip(sequences, partition_many([encode(s) for s in sequences], params, True),
                                           one_at_a_time):
        ref_log_z, ref_pairs = log_partition(s, params.weights, params.min_loop)
        assert_matches(log_z, bpp, ref_log_z, ref_pairs, len(s))
        assert z1 == pytest.approx(log_z, rel=1e-13) and np.allclose(bpp1, bpp, rtol=1e-12, atol=0)


@pytest.mark.parametrize("params, sequence", [
    (FoldParams(gc=50, au=10, gu=1), "random 120"),             # log Z about 1,500: plain doubles overflow
    (FoldParams(gc=1000, au=1, gu=0), "random 80"),             # pairs of e^1000: the log-space fill
    (FoldParams(gc=40), "G" * 15 + "C" * 15 + "G" * 15 + "C" * 15),   # scaled values near e^-600: log space
    (FoldParams(gc=40), "A" * 20 + "G" * 20 + "A" * 10 + "C" * 20 + "U" * 10),
])
def test_no_range_limit(params, sequence):
    if sequence.startswith("random"):
        sequence = random_rna(random.Random(3), int(sequence.split()[1]))
    ref_log_z, ref_pairs = log_partition(sequence, params.weights, params.min_loop)
    assert ref_log_z > 710                                      # e^710 is past the double range
    for want_bpp in (True, False):
        log_z, bpp = params.partition_cpu([encode(sequence)], want_bpp)[0]
        if want_bpp:
            assert_matches(log_z, bpp, ref_log_z, ref_pairs, len(sequence))
        else:
            assert bpp is None and log_z == pytest.approx(ref_log_z, rel=1e-12)


def test_scaled_equals_plain_doubles():
    rng = random.Random(11)
    for params in SETTINGS:
        codes = [encode(random_rna(rng, n)) for n in (0, 1, 5, 20, 60, 150)]
        for (z1, p1), (z2, p2) in zip(partition_many(codes, params, True), partition_many(codes, params, True,
                                                                                          scaled=False)):
            assert z1 == pytest.approx(z2, rel=1e-13, abs=1e-14)
            assert np.allclose(p1, p2, rtol=1e-12, atol=1e-300)


def test_log_space_fill_equals_scaled():
    rng = random.Random(12)
    params = FoldParams(min_loop=1, au=2, gc=3, gu=1)
    table = params.pair_table()
    for n in (0, 1, 9, 70, 130):
        codes = encode(random_rna(rng, n))
        log_z, bpp = partition_one(codes, params, True)
        z2, p2 = partition_log(codes, table / params.unit, table > 0, params.min_loop, True)
        assert z2 == pytest.approx(log_z, rel=1e-13, abs=1e-14)
        assert np.allclose(p2, bpp, rtol=1e-12, atol=1e-300)


def test_rows_shared_by_threads_equal_one_thread():
    from bioaccel.fold._nussinov_partition import _weights
    from bioaccel.fold._nussinov_partition_fill import inside, inside_parallel, outside, outside_parallel

    rng = random.Random(17)
    for params in SETTINGS[:3]:
        logw, allowed = _weights(params)
        for n in (0, 1, 7, 150):
            codes = encode(random_rna(rng, n))
            M1, c1, P1 = np.empty((n + 1, n + 1)), np.zeros(n), np.zeros((n, n))
            low1 = inside(codes, logw, allowed, params.min_loop, True, M1, c1, np.empty(n + 1))
            outside(codes, logw, allowed, params.min_loop, M1, c1, np.empty((n + 1, n + 1)), P1, np.empty(n + 1))
            for workers in (2, 3):         # 3: more tasks a column than this machine's threads
                M2, c2, P2 = np.empty((n + 1, n + 1)), np.zeros(n), np.zeros((n, n))
                low2 = inside_parallel(codes, logw, allowed, params.min_loop, True, M2, c2, workers)
                outside_parallel(codes, logw, allowed, params.min_loop, M2, c2, np.empty((n + 1, n + 1)), P2, workers)
                # each cell is computed by the same code in the same order, whichever thread takes it
                assert low1 == low2 and np.array_equal(c1, c2) and np.array_equal(P1, P2)


def test_columns_swept_together_equal_one_at_a_time():
    from bioaccel.fold._nussinov_partition import _weights
    from bioaccel.fold._nussinov_partition_fill import inside, inside_sweep

    rng = random.Random(18)
    for params in SETTINGS[:3]:
        logw, allowed = _weights(params)
        for n in (0, 1, 2, 5, 9, 33, 101):
            codes = encode(random_rna(rng, n))
            for scaled in (True, False):
                M1, c1 = np.empty((n + 1, n + 1)), np.zeros(n)
                low1 = inside(codes, logw, allowed, params.min_loop, scaled, M1, c1, np.empty(n + 1))
                for width in (1, 2, 3, 4, 7):
                    M2, c2 = np.empty((n + 1, n + 1)), np.zeros(n)
                    low2 = inside_sweep(codes, logw, allowed, params.min_loop, scaled, M2, c2, width)
                    assert np.allclose(M1, M2, rtol=1e-12, atol=0) and np.allclose(c1, c2, rtol=1e-12, atol=1e-15)
                    assert low2 == pytest.approx(low1, rel=1e-12)


def test_repeats_fall_back_to_log_space_and_random_rnas_do_not():
    from bioaccel.fold import _nussinov_partition as module
    from bioaccel.fold._nussinov_partition_fill import inside

    params = FoldParams(gc=10)
    codes = [encode(random_rna(random.Random(5), 300)), encode("G" * 50 + "C" * 50 + "G" * 50 + "C" * 50)]
    lows = []
    for c in codes:
        n = len(c)
        logw, allowed = module._weights(params)
        lows.append(inside(c, logw, allowed, 3, True, np.empty((n + 1, n + 1)), np.zeros(n), np.empty(n + 1)))
    assert lows[0] > 1e-60 and lows[1] < TINY
    log_z, bpp = partition_one(codes[1], params, True)
    assert np.isfinite(bpp).all() and bpp.sum(axis=1).max() <= 1 + 1e-12 and bpp.max() > 0.1


def test_long_sequences_stay_finite():
    params = FoldParams(min_loop=3, au=2, gc=3, gu=1)
    with threads(1):
        log_z, _ = params.partition_cpu([encode("GC" * 1000)], False)[0]
        (z1, bpp), = params.partition_cpu([encode("GC" * 400 + "A" * 50)], True)
    assert math.isfinite(log_z) and log_z > 3 * 900           # Z is past e^2700: plain doubles overflow
    assert math.isfinite(z1) and np.isfinite(bpp).all() and bpp.max() > 0.01


def test_probabilities_of_a_base_sum_to_at_most_one():
    rng = random.Random(13)
    for params in SETTINGS:
        for log_z, bpp in params.partition_cpu([encode(random_rna(rng, n)) for n in (3, 40, 200)], True):
            per_base = bpp.sum(axis=0) + bpp.sum(axis=1)
            assert per_base.max(initial=0) <= 1 + 1e-12 and bpp.min(initial=0) >= 0
            assert np.all(np.tril(bpp) == 0)


def test_single_strand_equals_bppart():
    rng = random.Random(14)
    sequences = [random_rna(rng, n) for n in (0, 4, 5, 17, 40, 90)] + ["GGGAAACCCAGUCGAUCG"]
    # BPPart's single strand: GC 3, AU 0.5, GU 1, an intramolecular pair needs j - i >= 4
    params = FoldParams(min_loop=3, au=0.5, gc=3, gu=1)
    ours = params.partition_cpu([encode(s) for s in sequences], False)
    theirs = bppart(sequences, [""], params=PartitionParams(au=0.5, gu=1.0))
    for (log_z, _), partition in zip(ours, theirs):
        assert log_z == pytest.approx(partition.log_z_query, rel=1e-12, abs=1e-12)


def test_the_best_structure_is_one_term_of_z():
    rng = random.Random(15)
    for params in SETTINGS:
        sequences = [random_rna(rng, n) for n in (1, 8, 30, 120)]
        for s, result, (log_z, _) in zip(sequences, nussinov(sequences, params=params),
                                         params.partition_cpu([encode(s) for s in sequences], False)):
            pair_to = np.full(len(s), -1)
            stack = []
            for i, c in enumerate(result.structure):
                if c == "(":
                    stack.append(i)
                elif c == ")":
                    j = stack.pop()
                    pair_to[i], pair_to[j] = j, i
            units = params.evaluate(encode(s), pair_to)
            assert params.log_weight(units) == pytest.approx(result.score, rel=1e-15)
            assert params.log_weight(units) <= log_z
            # Z holds the best structure and at most 3^n others, none heavier
            assert log_z <= params.log_weight(units) + len(s) * math.log(3) + 1e-12


def test_letters_that_pair_with_nothing_and_empty_lists():
    params = FoldParams(gc=3)
    assert params.partition_cpu([], True) == []
    (z1, p1), (z2, p2) = params.partition_cpu([encode("GNNNC"), encode("GAAAC")], True)
    assert z1 == z2 == pytest.approx(math.log(1 + math.exp(3)), rel=1e-15) and np.array_equal(p1, p2)
    (z3, p3), = params.partition_cpu([encode("NNNNNNNN")], True)
    assert z3 == 0.0 and not p3.any()


def test_log_weight_is_the_score():
    assert FoldParams(au=1.5, gu=0.25).log_weight(0) == 0.0
    assert FoldParams(au=1.5, gu=0.25).log_weight(9) == 2.25


@pytest.mark.slow
def test_long_probabilities_in_parallel_equal_serial():
    params = FoldParams(min_loop=3, au=2, gc=3, gu=1)
    codes = encode(random_rna(random.Random(16), 1200))
    z1, p1 = partition_one(codes, params, True, workers=1)
    z2, p2 = partition_one(codes, params, True, workers=2)
    assert z1 == pytest.approx(z2, rel=1e-13) and np.allclose(p1, p2, rtol=1e-11, atol=1e-300)
    log_z, bpp = params.partition_cpu([encode("GC" * 1500)], True)[0]
    assert math.isfinite(log_z) and log_z > 3 * 1400 and np.isfinite(bpp).all()
