"""``bioaccel interact``: formats, windows, structure, profile, and one-line errors for bad input."""
import io
import json
import os

import pytest

from bioaccel.cli.main import main
from naive_bpmax import bpmax_score

QUERIES = ">q1 first\nGGGAAACCC\n>q2\nAAAA\n"
TARGETS = ">t1\nGGGUUUCCC\n>t2 second\nUUUUAAAAGGGCCCAUGC\n"


def run(argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["interact", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture
def files(tmp_fasta):
    return tmp_fasta(QUERIES, "q.fa"), tmp_fasta(TARGETS, "t.fa")


def test_tsv_every_query_against_every_target(files):
    code, out, err = run(list(files))
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0] == ["query", "target", "score", "query_fold", "target_fold", "gain"]
    rows = {(r[0], r[1]): r for r in lines[1:]}
    assert len(rows) == 4
    assert rows["q1", "t1"][2:] == ["21", "9", "9", "3"]  # bpmax.md's first test vector, gain 21 - 9 - 9
    expected = bpmax_score("AAAA", "UUUUAAAAGGGCCCAUGC") / 2
    assert float(rows["q2", "t2"][2]) == expected and rows["q2", "t2"][3] == "0"


def test_weights_change_scores(files):
    code, out, _ = run([*files, "--au", "2", "--gu", "1"])
    assert code == 0
    assert out.splitlines()[1].split("\t")[2:] == ["24", "9", "9", "6"]


def test_windowed_json_lines_with_structure(files):
    code, out, err = run([*files, "--window-target", "5", "--structure", "--format", "json",
                          "--variant", "naive"])
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert len(records) == 4
    for rec in records:
        assert set(rec) == {"query", "target", "score", "query_fold", "target_fold", "gain", "target_start",
                            "target_end", "structure", "intermolecular"}
        assert rec["gain"] == rec["score"] - rec["query_fold"] - rec["target_fold"]
        assert rec["target_end"] - rec["target_start"] == 6  # W + 1 bases
        left, _, right = rec["structure"].partition("&")
        qlen = {"q1": 9, "q2": 4}[rec["query"]]
        assert len(left) == qlen and len(right) == 6
        for q, t in rec["intermolecular"]:
            assert 0 <= q < qlen and rec["target_start"] <= t < rec["target_end"]


def test_tsv_windowed_columns_and_output_file(files, tmp_path):
    target = str(tmp_path / "out.tsv")
    code, out, _ = run([*files, "--window-target", "4", "--window-query", "3", "--structure",
                        "-o", target])
    assert code == 0 and out == ""
    with open(target) as handle:
        header = handle.readline().rstrip("\n").split("\t")
        rows = [line.rstrip("\n").split("\t") for line in handle]
    assert header == ["query", "target", "score", "query_fold", "target_fold", "gain", "query_start",
                      "query_end", "target_start", "target_end", "structure", "intermolecular"]
    assert len(rows) == 4 and all(len(r) == len(header) for r in rows)
    assert all(int(r[7]) - int(r[6]) == 4 for r in rows)


def test_profile_bedgraph(files, tmp_path):
    path = str(tmp_path / "p.bedgraph")
    code, out, _ = run([*files, "--window-target", "5", "--profile", path])
    assert code == 0
    with open(path) as handle:
        lines = handle.read().splitlines()
    tracks = [i for i, line in enumerate(lines) if line.startswith("track")]
    assert len(tracks) == 4
    # the last track (q2 vs t2) covers t2 (18 nt) with merged, contiguous, 0-based half-open runs
    runs = [line.split("\t") for line in lines[tracks[-1] + 1:]]
    assert runs[0][0] == "t2" and runs[0][1] == "0" and runs[-1][2] == "18"
    assert all(a[2] == b[1] for a, b in zip(runs, runs[1:]))
    assert all(a[3] != b[3] for a, b in zip(runs, runs[1:]))


def test_sites_one_row_each_and_one_profile_track_per_pair(files, tmp_path):
    path = str(tmp_path / "p.bedgraph")
    code, out, err = run([*files, "--window-target", "4", "--sites", "3", "--structure", "--profile", path])
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0] == ["query", "target", "site", "score", "query_fold", "target_fold", "gain", "target_start",
                        "target_end", "structure", "intermolecular"]
    rows = [dict(zip(lines[0], line)) for line in lines[1:]]
    by_pair = {}
    for row in rows:
        by_pair.setdefault((row["query"], row["target"]), []).append(row)
    # the API's sites, row for row; t1 (9 nt) holds at most two disjoint windows of 5 nt
    from bioaccel.interact import InteractParams, bpmax

    expected = bpmax([("q1", "GGGAAACCC"), ("q2", "AAAA")], [("t1", "GGGUUUCCC"), ("t2", "UUUUAAAAGGGCCCAUGC")],
                     params=InteractParams(window_target=4), sites=3)
    assert [(r["query"], r["target"], r["site"], r["target_start"]) for r in rows] == [
        (e.query, e.target, str(e.site), str(e.target_start)) for e in expected]
    assert len(by_pair["q1", "t1"]) <= 2 and len(by_pair["q1", "t2"]) == 3
    for sites in by_pair.values():
        assert [int(r["site"]) for r in sites] == list(range(1, len(sites) + 1))
        scores = [float(r["score"]) for r in sites]
        assert scores == sorted(scores, reverse=True)
        starts = [int(r["target_start"]) for r in sites]
        assert all(abs(x - y) >= 5 for x in starts for y in starts if x != y) and len(set(starts)) == len(starts)
        for r in sites:
            assert float(r["gain"]) == float(r["score"]) - float(r["query_fold"]) - float(r["target_fold"])
    with open(path) as handle:
        assert sum(line.startswith("track") for line in handle) == 4   # one per pair, not per site
    code, out, err = run([*files, "--window-target", "4", "--sites", "1"])
    assert code == 0 and out.splitlines()[0].split("\t")[2] == "score"     # no site column for one
    code, out, err = run([*files, "--window-target", "4", "--rank", "gain", "--format", "json"])
    assert code == 0, err
    best = {(r["query"], r["target"]): r for r in map(json.loads, out.splitlines())}
    expected = bpmax([("q1", "GGGAAACCC"), ("q2", "AAAA")], [("t1", "GGGUUUCCC"), ("t2", "UUUUAAAAGGGCCCAUGC")],
                     params=InteractParams(window_target=4), rank="gain")
    assert [best[e.query, e.target]["gain"] for e in expected] == [e.gain for e in expected]


@pytest.mark.parametrize("argv_tail, message", [
    (["--window-target", "0"], "--window-target must be"),
    (["--au", "-1"], "AU"),
    (["--variant", "fast"], "unknown BPMax variant"),
    (["--backend", "gpu", "--variant", "naive"], "BPMax variant 'naive' is not available on the gpu backend"),
    (["--threads", "-2"], "--threads"),
    (["--sites", "0"], "sites must be a whole number >= 1, got 0"),
    (["--sites", "2.5"], "--sites"),
    (["--rank", "energy"], "invalid choice: 'energy'"),
])
def test_bad_options_fail_in_one_line(files, argv_tail, message):
    code, out, err = run([*files, *argv_tail])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("bioaccel interact: error:") and message in err


def test_bad_input_files_fail_in_one_line(tmp_fasta, tmp_path):
    good = tmp_fasta(QUERIES, "q.fa")
    bad = tmp_fasta(">t\nACGUXZ\n", "bad.fa")
    for argv, message in (([good, str(tmp_path / "missing.fa")], "no such file"),
                          ([good, bad], "invalid character"),
                          ([tmp_fasta("@r1\nACGU\n", "nohead.fa"), good], "header")):
        code, out, err = run(argv)
        assert code == 2 and err.count("\n") == 1 and message in err, err


def test_failed_run_leaves_no_output_file(tmp_fasta, tmp_path):
    good = tmp_fasta(QUERIES, "q.fa")
    bad = tmp_fasta(">t1\nACGU\n>t2\nAC!U\n", "bad.fa")
    target = tmp_path / "out.tsv"
    code, _, _ = run([good, bad, "-o", str(target)])
    assert code == 2
    assert not target.exists() and not [p for p in os.listdir(tmp_path) if p.startswith(".bioaccel")]


@pytest.mark.slow
def test_svrna_against_real_sars_cov_2_target(tmp_fasta):
    """Gildemaster 2021's setting on real data: 3 viral small RNAs x 3 kb of SARS-CoV-2, target window 128."""
    root = os.path.join(os.path.dirname(__file__), "..", "examples")
    queries, genome = os.path.join(root, "sars-cov-svrna.fa"), os.path.join(root, "sars-cov-2.fasta")
    if not (os.path.exists(queries) and os.path.exists(genome)):
        pytest.skip("examples/sars-cov-svrna.fa or examples/sars-cov-2.fasta is missing")
    from bioaccel.inputs.fasta import read_fasta

    sequence = next(read_fasta(genome)).sequence[26000:29000]
    targets = tmp_fasta(f">cov2_26000_29000\n{sequence}\n", "t.fa")
    code, out, err = run([queries, targets, "--window-target", "128", "--structure", "--format", "json"])
    assert code == 0, err
    records = [json.loads(line) for line in out.splitlines()]
    assert [r["query"] for r in records] == [r.id for r in read_fasta(queries)]
    from bioaccel.interact import bpmax, InteractParams
    from naive_bpmax import structure_units

    for rec, query in zip(records, read_fasta(queries)):
        assert rec["target_end"] - rec["target_start"] == 129 and len(rec["structure"]) == len(query) + 130
        assert rec["intermolecular"]
        # the API gives the same best window, and its structure re-scores to the optimum
        result = bpmax(query, ("t", sequence), params=InteractParams(window_target=128), structure=True)[0]
        assert (result.score, result.target_start) == (rec["score"], rec["target_start"])
        units = structure_units(query.sequence, sequence, result.intra_query, result.intra_target,
                                result.inter)
        assert units == round(2 * result.score)


def test_a_batch_that_will_not_fit_is_refused_before_the_first_pair(tmp_fasta, monkeypatch):
    """18 queries x a 10,000 nt target without a window: about 16.7 GiB per pair. Refused before any
    pair runs (not after the first), naming the target window that fits."""
    import random

    rng = random.Random(1)
    queries = "".join(f">q{k}\n{''.join(rng.choice('ACGU') for _ in range(18))}\n" for k in range(18))
    target = ">t\n" + "".join(rng.choice("ACGU") for _ in range(10_000)) + "\n"
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 8 * 2**30)
    computed = []
    import bioaccel.interact._pairs_cpu as cpu

    real = cpu._compute
    monkeypatch.setattr(cpu, "_compute", lambda *a, **k: computed.append(1) or real(*a, **k))
    code, out, err = run([tmp_fasta(queries, "q.fa"), tmp_fasta(target, "t.fa")])
    assert code == 2 and out == "" and computed == []
    assert err.count("\n") == 1 and "18 x 10,000 nt" in err and "GiB" in err and "--window-target" in err, err


def test_long_work_is_announced_with_the_way_out(files, tmp_fasta, monkeypatch):
    import bioaccel.interact._estimate as estimate

    monkeypatch.setitem(estimate.CPU_RATE_PER_THREAD, "tiled", 1.0)     # everything looks long
    monkeypatch.setitem(estimate.CPU_RATE_PER_THREAD, "naive", 0.01)      # 100 times slower, as measured
    long_target = tmp_fasta(">t\n" + "GGGAAACCCU" * 30 + "\n", "long.fa")
    code, out, err = run([files[0], long_target, "--window-target", "20"])
    assert code == 0 and err.startswith("bioaccel interact: about") and "2 pairs" in err
    code, out, err = run([files[0], long_target, "--window-target", "20", "--quiet"])
    assert code == 0 and err == ""
    code, out, err = run([files[0], long_target, "--variant", "naive", "--window-target", "20"])
    assert "--variant tiled would take" in err


def test_targets_from_standard_input_are_checked_one_by_one(files, monkeypatch):
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TARGETS.encode())))
    code, out, err = run([files[0], "-"])
    assert code == 0 and len(out.splitlines()) == 5 and err == ""
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 1000)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(TARGETS.encode())))
    code, out, err = run([files[0], "-"])
    assert code == 2 and err.count("\n") == 1 and "t1" not in out, err


def test_list_variants_shows_bppart_too():
    """An unknown --partition variant says '--list-variants shows them all', which listed BPMax's only."""
    code, out, err = run(["--list-variants"])
    assert code == 0 and out.startswith("BPMax:\n") and "\n--partition (BPPart):\n" in out
    for name in ("tiled", "fused", "naive", "matrices", "diagonals"):
        assert f"\n{name} " in out, name
    code, out, err = run(["x.fa", "y.fa", "--partition", "--variant", "tiled"])
    assert code == 2 and "choose one of matrices, diagonals" in err


@pytest.mark.parametrize("extra", [[], ["--window-target", "4", "--profile", "{tmp}/p.tsv"], ["--resume", "-o", "{tmp}/o.tsv"]])
def test_a_long_partition_run_is_announced(files, tmp_path, monkeypatch, extra):
    """BPPart (--partition) ran for minutes or hours (the genome with --profile: about 16 h) without a
    word, where BPMax says how long first. Now the same line, with the way out; -q silences it."""
    import bioaccel.cli.progress as progress

    monkeypatch.setattr(progress, "ANNOUNCE_SECONDS", 0.0)        # every run is long here
    extra = [a.replace("{tmp}", str(tmp_path)) for a in extra]
    code, out, err = run([*files, "--partition", *extra])
    assert code == 0, err
    line = err.splitlines()[0]
    assert line.startswith("bioaccel interact: ") and " for 4 pairs (2 x 2; up to 9 x 18 nt" in line, err
    assert ("with the binding profile); without --profile" in line) == ("--profile" in extra)
    assert run([*files, "--partition", *extra, "-q"])[2] == ""
