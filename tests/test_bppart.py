"""BPPart: the plain-Python reference against brute force, the Numba fill against the reference and
against the original program's recorded values, scaled against plain arithmetic, the API and the
command line."""
import csv
import math
import random
from pathlib import Path

import numpy as np
import pytest

from bioaccel.errors import InvalidParameter, NotAvailable
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PARTITION_VARIANTS, Partition, PartitionParams, bppart, iter_bppart
from bioaccel.interact._partition import CPU_FILLS, cpu_fill, partition_logs
from naive_bppart import bppart as naive_bppart, brute_force

WEIGHTS = [(0.5, 1.0), (1.0, 1.5)]
ORIGINAL = Path(__file__).parent / "data" / "bppart_original.tsv"


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def _logs(QI, QX, Q0, Q1):
    return (math.log(QI), math.log(QX) if QX > 0 else -math.inf, math.log(Q0), math.log(Q1))


def _close(got, expected, rel):
    for x, y in zip(got, expected):
        if y == -math.inf:
            assert x == -math.inf
        else:
            assert abs(x - y) <= rel * max(1.0, abs(y)), (got, expected)


@pytest.mark.parametrize("au, gu", WEIGHTS)
def test_reference_equals_brute_force(au, gu):
    """Every joint structure of BPMax's space counted once: the recurrence is unambiguous and complete,
    and the best structure enumerated is BPMax's."""
    rng = random.Random(27)
    cases = [("", "GC"), ("G", "C"), ("GGGAAAC", "CUU"), ("AAAA", "UUUU")]
    cases += [(random_rna(rng, rng.randint(1, 6)), random_rna(rng, rng.randint(1, 6))) for _ in range(14)]
    for a, b in cases:
        QI, QX, Q0, Q1, best = brute_force(a, b, au, gu)
        got = naive_bppart(a, b, au, gu)
        for x, y in zip(got, (QI, QX, Q0, Q1)):
            assert abs(x - y) <= 1e-12 * y
        if a and b:
            result_max = bpmax_score_of(a, b, au, gu)
            assert best == result_max


def bpmax_score_of(a, b, au, gu):
    from bioaccel.interact import InteractParams, bpmax

    return bpmax(a, b, params=InteractParams(au=au, gu=gu))[0].score


@pytest.mark.parametrize("au, gu", WEIGHTS)
def test_fill_equals_reference_on_random_pairs(au, gu):
    rng = random.Random(int(au * 10 + gu))
    params = PartitionParams(au=au, gu=gu)
    lengths = [(1, 1), (1, 30), (30, 1), (5, 5), (6, 24)]
    for _ in range(5):   # the reference is slow, (M N)^3 / 36: M N stays at most 150
        M = rng.randint(1, 30)
        lengths.append((M, rng.randint(1, 150 // M)))
    for M, N in lengths:
        a, b = random_rna(rng, M), random_rna(rng, N)
        expected = _logs(*naive_bppart(a, b, au, gu))
        for variant in PARTITION_VARIANTS.names("cpu"):   # every CPU variant of the registry against the reference
            got = partition_logs(encode(a), np.ascontiguousarray(encode(b)[::-1]), params, variant)
            _close(got, expected, 1e-12)


def test_blocked_equals_matrices_across_tiles():
    """The blocked variant's tiles (4 target rows x 16 ends, rows padded) at lengths around their edges
    (15 to 17, 31 to 33 ends; M up to 9 so that the query's split points are many): equal to the
    matrices variant to rounding, at a chosen scale and in plain doubles."""
    rng = random.Random(31)
    for M, N in [(9, 15), (4, 16), (7, 17), (6, 31), (3, 32), (8, 33), (2, 47)]:
        a, rb = encode(random_rna(rng, M)), encode(random_rna(rng, N))
        for params in (PartitionParams(), PartitionParams(scale=0.0)):
            _close(partition_logs(a, rb, params, "blocked"), partition_logs(a, rb, params, "matrices"), 1e-13)


@pytest.mark.parametrize("wide", [True, False], ids=["eight-lane tiles", "four-lane tiles"])
def test_blocked_fill_reads_only_what_it_wrote(wide):
    """The blocked fill's tables are not zeroed by NumPy (np.empty; each query interval clears what it
    reads as zero): tables full of NaN before the fill give the matrices variant's logs, empty strands
    included (M = 0 read an uncleared QX once: probability 14.4), with the double sums in either tile
    width (eight lanes where the CPU has AVX-512, four where it has not)."""
    from bioaccel.interact._partition_blocked import _fill, blocked_tables

    weights = PartitionParams().weights()
    for M, N, a, rb, expected in nan_table_cases(41, 30):
        got = _fill(a, rb, weights, 0.4, 0.6, *blocked_tables(M, N, np.nan), wide)
        _close([float(x) for x in got], expected, 1e-12)


def nan_table_cases(seed: int, count: int):
    """The pairs on which a fill is run over tables full of NaN: empty strands, one base each, long thin
    targets, then ``count`` random small pairs; each as (M, N, query codes, reversed target codes, the
    matrices variant's four logs at scales 0.4 and 0.6 with the default weights)."""
    from bioaccel.interact._partition_cpu import fill_partition

    rng = random.Random(seed)
    weights = PartitionParams().weights()
    lengths = [(0, 0), (0, 7), (7, 0), (1, 1), (6, 70), (5, 101)] + [(rng.randint(0, 9), rng.randint(0, 35))
                                                                     for _ in range(count)]
    for M, N in lengths:
        a, rb = encode(random_rna(rng, M)), np.ascontiguousarray(encode(random_rna(rng, N)))
        yield M, N, a, rb, [float(x) for x in fill_partition(a, rb, weights, 0.4, 0.6)]


def test_blocked_tile_widths_give_the_same_sums():
    """The eight-lane and four-lane tiles add the same terms in the same order: equal logs (==)."""
    from bioaccel.interact._partition_blocked import _fill, blocked_tables

    rng = random.Random(43)
    weights = PartitionParams().weights()
    for M, N in [(23, 100), (9, 47), (4, 16), (12, 9)]:
        a, rb = encode(random_rna(rng, M)), np.ascontiguousarray(encode(random_rna(rng, N)))
        wide = _fill(a, rb, weights, 0.4, 0.6, *blocked_tables(M, N), True)
        narrow = _fill(a, rb, weights, 0.4, 0.6, *blocked_tables(M, N), False)
        assert [float(x) for x in wide] == [float(x) for x in narrow]


def test_cpu_fill_is_chosen_through_the_registry():
    """partition_logs fills with the registry's CPU variants: each has a fill, the default is the
    registry's, and a GPU variant or an unknown name is refused in one line."""
    assert set(CPU_FILLS) == set(PARTITION_VARIANTS.names("cpu"))
    assert cpu_fill() is cpu_fill(PARTITION_VARIANTS.resolve(None, "cpu"))
    a, rb = encode("GGGAAACCC"), encode("GGUUUCC")
    assert partition_logs(a, rb, PartitionParams()) == partition_logs(a, rb, PartitionParams(), "blocked")
    with pytest.raises(NotAvailable):
        cpu_fill("diagonals")
    with pytest.raises(InvalidParameter, match="unknown BPPart variant"):
        partition_logs(a, rb, PartitionParams(), "fastest")


def test_original_program_values():
    with open(ORIGINAL) as handle:
        rows = list(csv.DictReader((line for line in handle if not line.startswith("#")), delimiter="\t"))
    assert len(rows) == 42
    for row in rows:
        params = PartitionParams(au=float(row["au"]), gu=float(row["gu"]))
        r = bppart(row["query"], row["target"], params=params)[0]
        QI, Q0, Q1 = float(row["QI"]), float(row["Q0"]), float(row["Q1"])
        assert r.log_z == pytest.approx(math.log(QI), rel=1e-12)
        assert r.log_z_query == pytest.approx(math.log(Q0), rel=1e-12, abs=1e-12)
        assert r.log_z_target == pytest.approx(math.log(Q1), rel=1e-12, abs=1e-12)
        assert -r.log_z == pytest.approx(float(row["neg_log_QI"]), rel=1e-12, abs=1e-12)
        # the original subtracts QI - Q0 Q1 (cancellation: 1e-9 is what its doubles carry there)
        assert -r.log_z_interaction == pytest.approx(float(row["neg_log_QI_minus_Q0Q1"]), rel=1e-9)


def test_scaled_equals_plain():
    rng = random.Random(5)
    for M, N in [(1, 1), (3, 17), (9, 9), (14, 25)]:
        a, b = random_rna(rng, M), random_rna(rng, N)
        ca, crb = encode(a), np.ascontiguousarray(encode(b)[::-1])
        plain = partition_logs(ca, crb, PartitionParams(scale=0.0))
        for scale in (None, 0.7, 2.5):
            for variant in ("blocked", "matrices"):
                _close(partition_logs(ca, crb, PartitionParams(scale=scale), variant), plain, 1e-12)


def test_no_overflow_where_plain_doubles_overflow():
    """A 700-nt GC repeat: its Q alone is past the double range (e^1000 and more), the scaled fill is not,
    and two different scales agree."""
    a, b = "GC", "GC" * 350
    ca, crb = encode(a), np.ascontiguousarray(encode(b)[::-1])
    with pytest.raises(InvalidParameter, match="over- or underflow"):
        partition_logs(ca, crb, PartitionParams(scale=0.0))
    chosen = partition_logs(ca, crb, PartitionParams())
    assert chosen[0] > 709.8       # log of the largest double
    _close(partition_logs(ca, crb, PartitionParams(scale=1.6)), chosen, 1e-12)


def test_scale_of_a_long_random_strand():
    """A random 1,000-nt strand grows slower than the first scale tried (its Q underflowed there): the
    scale is still found, and the strand alone at it has Q near 1."""
    from bioaccel.interact._partition import choose_scales
    from bioaccel.interact._partition_cpu import single_strand_scaled

    rng = random.Random(2027)
    codes = encode(random_rna(rng, 1000))
    c = choose_scales(codes, codes[:0], PartitionParams())[0]
    q = single_strand_scaled(codes, PartitionParams().weights(), math.exp(-c))[0, 1000]
    assert 0 < c < 2.5 and abs(math.log(q)) < 1e-6


def test_api_shapes_and_errors():
    rows = bppart(["GGG", ("q2", "AAAA")], [("t1", "CCC"), "UUUU"])
    assert [(r.query, r.target) for r in rows] == [("seq1", "t1"), ("q2", "t1"), ("seq1", "seq2"), ("q2", "seq2")]
    assert all(isinstance(r, Partition) for r in rows)
    assert rows[1].probability == 0.0 and rows[1].log_z_interaction == -math.inf
    assert math.isclose(rows[3].log_z, math.log(204.33376738006737), rel_tol=1e-12)   # AAAA x UUUU
    assert sorted(rows[0].to_dict()) == sorted(["query", "target", "log_z", "log_z_query", "log_z_target",
                                                 "log_z_interaction", "probability", "query_length",
                                                 "target_length", "variant", "backend", "site", "query_start",
                                                 "query_end", "target_start", "target_end", "window_log_z",
                                                 "window_log_z_interaction", "window_probability"])
    assert (rows[0].query_end, rows[0].target_end, rows[0].window_log_z) == (3, 3, rows[0].log_z)
    empty = bppart("", "GGGAAACCC")[0]
    assert (empty.probability, empty.log_z) == (0.0, empty.log_z_target)
    assert [r.log_z for r in iter_bppart("G", ["C"], threads=1)] == [bppart("G", "C")[0].log_z]
    assert PARTITION_VARIANTS.resolve(None, "cpu") == "queued"
    assert bppart("GGGAC", "GUCCC", variant="matrices")[0].log_z == pytest.approx(bppart("GGGAC", "GUCCC")[0].log_z,
                                                                                  rel=1e-13)
    with pytest.raises(InvalidParameter):
        bppart("G", "C", variant="nope")
    with pytest.raises(InvalidParameter, match="BPPart variant 'tiled'"):
        bppart("G", "C", variant="tiled")   # a BPMax name, not BPPart's
    with pytest.raises(NotAvailable):
        bppart("G", "C", variant="matrices", backend="gpu")   # the CPU's variant; the GPU's is diagonals
    with pytest.raises(InvalidParameter):
        PartitionParams(au=float("nan"))


def _cli(argv):
    import io

    from bioaccel.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["interact", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def pair_files(tmp_path):
    queries, targets = tmp_path / "q.fa", tmp_path / "t.fa"
    queries.write_text(">q1\nGGGAAACCC\n>q2\nAAAA\n")
    targets.write_text(">t1\nGGGUUUCCC\n>t2\nUUUU\n")
    return str(queries), str(targets)


def test_cli_partition_tsv_and_json(pair_files):
    import json

    code, out, err = _cli([*pair_files, "--partition", "--quiet"])
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0] == ["query", "target", "log_z", "log_z_query", "log_z_target", "log_z_interaction",
                        "probability"]
    assert [row[:2] for row in lines[1:]] == [["q1", "t1"], ["q2", "t1"], ["q1", "t2"], ["q2", "t2"]]
    # the original's values of GGGAAACCC x GGGUUUCCC and AAAA x UUUU at its default AU 0.5, GU 1
    assert float(lines[1][2]) == pytest.approx(27.344543499832685, rel=1e-12)
    assert float(lines[4][2]) == pytest.approx(5.319754771474984, rel=1e-12)
    code, out, _ = _cli([*pair_files, "--partition", "--format", "json", "--au", "1", "--gu", "1.5", "--quiet"])
    rows = [json.loads(line) for line in out.splitlines()]
    expected = bppart("GGGAAACCC", "GGGUUUCCC", params=PartitionParams(au=1, gu=1.5))[0]
    assert code == 0 and rows[0]["log_z"] == expected.log_z and rows[0]["probability"] == expected.probability


@pytest.mark.parametrize("option", [["--structure"], ["--rank", "gain"], ["--variant", "tiled"],
                                    ["--window-target", "8", "--profile", "p.tsv", "--backend", "gpu"]])
def test_cli_partition_refuses_what_it_cannot_honour(pair_files, option):
    code, out, err = _cli([*pair_files, "--partition", "--quiet", *option])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1


def test_a_pair_that_will_not_fit_is_refused_before_any_row(tmp_path):
    """22 x 20,000 nt needs terabytes: one line with the estimate and the way out, exit status 2, nothing
    on standard output (the check runs before the header)."""
    import io
    import random

    from bioaccel.cli.main import main
    from bioaccel.errors import ResourceError
    from bioaccel.interact import check_partition_sizes

    with pytest.raises(ResourceError, match="TiB"):
        check_partition_sizes([22], [20_000])
    rng = random.Random(2)
    (tmp_path / "q.fa").write_text(">q\nGGGAAACCCUUU\n")
    (tmp_path / "t.fa").write_text(">t\n" + "".join(rng.choice("ACGU") for _ in range(20_000)) + "\n")
    out, err = io.StringIO(), io.StringIO()
    code = main(["interact", str(tmp_path / "q.fa"), str(tmp_path / "t.fa"), "--partition"], stdout=out, stderr=err)
    assert code == 2 and out.getvalue() == "" and err.getvalue().count("\n") == 1 and "--window-target" in err.getvalue()
