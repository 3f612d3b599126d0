"""``bioaccel interact --partition`` as a batch (--scheduler, --resume; --gpus on a GPU machine): the
same bytes as the in-process run, the --windows and --profile tables too, and the API's
``partition_work`` equal to ``bppart``."""
import io
import math
import os
import random

import pytest

from bioaccel.cli.main import main
from bioaccel.distribution.work import run_work
from bioaccel.interact import PartitionParams, bppart, partition_work

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def _run(argv, output=None):
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv, *(["-o", str(output)] if output else [])], stdout=out, stderr=err)
    written = open(output).read() if output and os.path.exists(output) else out.getvalue()
    return code, written, err.getvalue()


def _targets(path, count, lengths, seed):
    rng = random.Random(seed)
    with open(path, "w") as handle:
        for k in range(count):
            handle.write(f">t{k}\n" + "".join(rng.choice("ACGU") for _ in range(rng.randint(*lengths))) + "\n")
    return str(path)


def test_partition_work_equals_bppart():
    queries, targets = ["GGGAAAC", "AUGC"], [("t1", "GGGUUUCCCAGC"), ("t2", "CCCA"), ("t3", "")]
    params = PartitionParams(window_target=5)
    made = partition_work(queries, targets, params=params, sites=2)
    expected = bppart(queries, targets, params=params, sites=2)
    got = [row for rows in run_work(made, None) for row in rows]
    assert [item.label for item in made.items][:2] == ["pair 'seq1' x 't1'", "pair 'seq2' x 't1'"]
    assert [(r.query, r.target, r.site, r.log_z, r.window_probability) for r in got] == \
        [(r.query, r.target, r.site, r.log_z, r.window_probability) for r in expected]


@pytest.mark.parametrize("options", [["--window-target", "16", "--sites", "2"], ["--format", "json"]])
def test_partition_resumable_here_and_on_the_cluster(tmp_path, dask_client, options):
    """--resume (the batch layer in this process) and a Dask cluster: every output file byte for byte."""
    queries = os.path.join(EXAMPLES, "mirnas.fa")
    targets = _targets(tmp_path / "targets.fa", 4, (20, 60), seed=len(options))
    argv = ["interact", "--partition", queries, targets, "-q", *options]
    tables = ["--windows"] if "--window-target" in options else []
    code, expected, err = _run([*argv, *[x for t in tables for x in (t, str(tmp_path / "a.tsv"))]])
    assert code == 0 and expected, err
    for k, batch in enumerate((["--resume"], ["--scheduler", dask_client.scheduler.address])):
        out = tmp_path / f"batch{k}.out"
        extra = [x for t in tables for x in (t, str(tmp_path / f"b{k}.tsv"))]
        code, got, err = _run([*argv, *extra, *batch], out)
        assert code == 0, err
        assert got == expected
        for _ in tables:
            assert (tmp_path / f"b{k}.tsv").read_text() == (tmp_path / "a.tsv").read_text()
        assert not os.path.exists(str(out) + ".partial")


def test_partition_profile_in_a_batch(tmp_path):
    targets = _targets(tmp_path / "targets.fa", 2, (10, 20), seed=4)
    argv = ["interact", "--partition", "-q", os.path.join(EXAMPLES, "mirnas.fa"), targets, "--window-target", "6"]
    assert _run([*argv, "--profile", str(tmp_path / "a.tsv")])[0] == 0
    code, _, err = _run([*argv, "--profile", str(tmp_path / "b.tsv"), "--resume"], tmp_path / "b.out")
    assert code == 0, err
    assert (tmp_path / "b.tsv").read_text() == (tmp_path / "a.tsv").read_text()


@pytest.mark.gpu
def test_partition_on_gpu_workers(tmp_path):
    """--gpus all: the GPU's windows (one query's pairs of a task share launches) against the GPU here."""
    queries = os.path.join(EXAMPLES, "sars-cov-svrna.fa")
    targets = _targets(tmp_path / "targets.fa", 6, (100, 600), seed=6)
    argv = ["interact", "--partition", queries, targets, "--window-target", "128", "-q"]
    code, here, err = _run([*argv, "--backend", "gpu"])
    assert code == 0, err
    code, batch, err = _run([*argv, "--gpus", "all"], tmp_path / "b.out")
    assert code == 0, err
    rows_here, rows_batch = [x.split("\t") for x in here.splitlines()], [x.split("\t") for x in batch.splitlines()]
    assert len(rows_here) == len(rows_batch) > 1 and rows_here[0] == rows_batch[0]
    for a, b in zip(rows_here[1:], rows_batch[1:]):
        assert a[:2] == b[:2]
        for x, y in zip(a[2:], b[2:]):
            assert math.isclose(float(x), float(y), rel_tol=1e-12, abs_tol=1e-12)
