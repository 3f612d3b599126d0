"""Batches from the command line (--workers, --scheduler, --resume): the same bytes as the in-process
run for fold, interact and scan; a worker killed mid-batch, the whole process killed, Ctrl-C, each
followed by --resume, give the file of an uninterrupted run; a bad item is named and the rest written."""
import io
import os
import random
import signal
import subprocess
import sys
import threading
import time

import pytest

from bioaccel.cli.main import main

ROOT = os.path.join(os.path.dirname(__file__), "..")
EXAMPLES = os.path.join(ROOT, "examples")
MOTIFS = os.path.join(EXAMPLES, "motifs.meme")
GENOME = os.path.join(EXAMPLES, "sars-cov-2.fasta")


def nussinov(argv):
    """A fold command with Nussinov's model unless it names one: these tests are about batches, and its
    kernels compile in a fraction of the Turner model's time in each worker."""
    argv = list(argv)
    return [argv[0], "--model", "nussinov", *argv[1:]] if argv[:1] == ["fold"] and "--model" not in argv else argv


def run(argv, output=None):
    """``bioaccel ARGV`` here; (status, what it wrote: the file ``output`` or standard output, stderr)."""
    argv = nussinov(argv)
    out, err = io.StringIO(), io.StringIO()
    code = main([*argv, *(["-o", str(output)] if output else [])], stdout=out, stderr=err)
    written = open(output).read() if output and os.path.exists(output) else out.getvalue()
    return code, written, err.getvalue()


def random_rnas(path, count, length, seed):
    rng = random.Random(seed)
    with open(path, "w") as handle:
        for k in range(count):
            n = length if isinstance(length, int) else rng.randint(*length)
            handle.write(f">r{k} random\n" + "".join(rng.choice("ACGU") for _ in range(n)) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def scheduler(dask_client):
    return dask_client.scheduler.address


def same_as_in_process(argv, tmp_path, batch, quiet=True):
    """The in-process run's bytes (standard output) against the batch run's (-o FILE: journalled)."""
    argv = [*argv, *(["-q"] if quiet else [])]
    code, expected, err = run(argv)
    assert code == 0, err
    out = tmp_path / "batch.out"
    code, got, err_batch = run([*argv, *batch], out)
    assert code == 0, err_batch
    assert got == expected and expected
    assert not os.path.exists(str(out) + ".partial")            # the journal is gone once the file is whole
    return expected, err, err_batch


@pytest.mark.parametrize("options", [[], ["--format", "json"], ["--format", "ct", "--min-loop", "1", "--no-gu"],
                                     ["--noconv", "--format", "bpseq"]])
def test_fold_on_the_cluster(tmp_path, scheduler, options):
    rnas = random_rnas(tmp_path / "rnas.fa", 40, (1, 300), seed=len(options))
    same_as_in_process(["fold", rnas, *options], tmp_path, ["--scheduler", scheduler])


def test_turner_fold_on_the_cluster(tmp_path, scheduler):
    """The default model through the same batch path: the bytes of the in-process run."""
    rnas = random_rnas(tmp_path / "rnas.fa", 12, (1, 150), seed=5)
    same_as_in_process(["fold", rnas, "--model", "turner2004", "--format", "json"], tmp_path,
                       ["--scheduler", scheduler])


def test_fold_on_local_workers_and_resumable_here(tmp_path):
    rnas = os.path.join(EXAMPLES, "mirnas.fa")
    _, _, err = same_as_in_process(["fold", rnas], tmp_path, ["--workers", "2"], quiet=False)
    same_as_in_process(["fold", rnas], tmp_path, ["--resume"])          # this process, journalled


@pytest.mark.parametrize("options", [["--window-target", "128"],
                                     ["--window-target", "40", "--sites", "3", "--structure", "--format", "json"],
                                     ["--window-target", "60", "--window-query", "12", "--rank", "gain", "--au", "2"]])
def test_interact_on_the_cluster(tmp_path, scheduler, options):
    queries = os.path.join(EXAMPLES, "sars-cov-svrna.fa")
    targets = random_rnas(tmp_path / "targets.fa", 6, (60, 400), seed=len(options))
    same_as_in_process(["interact", queries, targets, *options], tmp_path, ["--scheduler", scheduler])


def test_interact_profile_on_the_cluster(tmp_path, scheduler):
    queries = os.path.join(EXAMPLES, "mirnas.fa")
    targets = random_rnas(tmp_path / "targets.fa", 4, 300, seed=3)
    argv = ["interact", queries, targets, "--window-target", "64", "-q"]
    assert run([*argv, "--profile", str(tmp_path / "a.bg")])[0] == 0
    assert run([*argv, "--profile", str(tmp_path / "b.bg"), "--scheduler", scheduler], tmp_path / "b.tsv")[0] == 0
    assert open(tmp_path / "a.bg").read() == open(tmp_path / "b.bg").read()


@pytest.fixture
def small_groups(monkeypatch):
    """Two motifs a group, so that five motifs make three items."""
    import bioaccel.scan._work as jobs

    monkeypatch.setattr(jobs, "GROUP_MOTIFS", 2)


@pytest.fixture(scope="module")
def genome_records(tmp_path_factory):
    """The genome cut into records: one named twice, a short one, Ns."""
    seq = "".join(line.strip() for line in open(GENOME) if not line.startswith(">"))
    path = tmp_path_factory.mktemp("scan") / "records.fa"
    path.write_text(f">g1\n{seq[:12000]}\n>tiny\nACG\n>g2 x\n{seq[12000:12100]}NNNN{seq[12100:20000]}\n"
                    f">g1\n{seq[20000:]}\n")
    return str(path)


@pytest.mark.parametrize("options", [["--pvalue", "1e-3"], ["--pvalue", "1e-3", "--max-stored-hits", "50"],
                                     ["--pvalue", "1e-3", "--text"], ["--threshold", "8", "--format", "bed"],
                                     ["--pvalue", "1e-3", "--norc", "--format", "gff"],
                                     ["--pvalue", "1e-3", "--background", "0.3,0.2,0.2,0.3", "--no-qvalue"],
                                     ["--pvalue", "0.7", "--qv-thresh", "--max-stored-hits", "20000"],
                                     ["--pvalue", "1e-3", "--best-per-motif", "3", "--format", "gff"]])
def test_scan_on_the_cluster(tmp_path, scheduler, small_groups, genome_records, options):
    _, err, err_batch = same_as_in_process(["scan", MOTIFS, genome_records, *options], tmp_path,
                                           ["--scheduler", scheduler])
    assert err_batch == err                             # the same notes (bounded P-values, dropped hits)


def test_scan_unique_names_and_unreachable_motifs(tmp_path, scheduler, small_groups):
    _, err, err_batch = same_as_in_process(["scan", MOTIFS, GENOME, "--pvalue", "1e-9"], tmp_path,
                                           ["--scheduler", scheduler], quiet=False)
    assert "cannot reach" in err and err_batch.startswith(err)


def test_a_bad_item_is_named_and_the_others_written(tmp_path):
    rnas = tmp_path / "rnas.fa"
    rnas.write_text(">ok1\nGGGAAAUCC\n>huge\n" + "A" * 2_000_000 + "\n>ok2\nGCGCAAAAGCGC\n")
    out = tmp_path / "out.txt"
    code, written, err = run(["fold", str(rnas), "--resume"], out)
    assert code == 1
    assert written == ">ok1\nGGGAAAUCC\n(((...))) ( 3)\n>ok2\nGCGCAAAAGCGC\n((((....)))) ( 4)\n"
    lines = err.splitlines()[1:]                        # after the estimate of the whole batch
    assert lines[0].startswith("bioaccel fold: record 'huge': ") and "memory" in lines[0]
    assert lines[1].startswith("bioaccel fold: 3 records, 1 failed (--resume runs them again)")
    assert os.path.exists(str(out) + ".partial")       # kept for --resume
    code, again, err = run(["fold", str(rnas), "--resume", "-q"], out)
    assert code == 1 and again == written and err.count("\n") == 1 and "'huge'" in err


def test_resume_refuses_other_inputs(tmp_path):
    rnas = tmp_path / "rnas.fa"
    rnas.write_text(">ok\nGGGAAAUCC\n>huge\n" + "A" * 2_000_000 + "\n")
    out = tmp_path / "out.txt"
    assert run(["fold", str(rnas), "--resume", "-q"], out)[0] == 1           # its journal is kept
    journal = open(str(out) + ".partial").read()
    rnas.write_text(">ok\nGGGAAAUCA\n>huge\n" + "A" * 2_000_000 + "\n")
    code, _, err = run(["fold", str(rnas), "--resume"], out)
    assert code == 2 and "holds the results of another run" in err and err.count("\n") == 1
    assert open(str(out) + ".partial").read() == journal


def test_resume_needs_a_file(tmp_path):
    rnas = random_rnas(tmp_path / "rnas.fa", 2, 20, seed=1)
    for output in (None, "-", "/dev/null"):
        code, _, err = run(["fold", rnas, "--resume", *(["-o", output] if output else [])])
        assert code == 2 and "--resume needs -o FILE" in err and err.count("\n") == 1


def _wait_for_entries(journal, count, process, limit=120):
    """Wait until ``journal`` holds ``count`` entries (its header aside), while ``process`` runs."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the run ended (status {process.returncode}) before it could be stopped: "
                                 f"{process.stderr.read()}")
        if os.path.exists(journal) and open(journal, "rb").read().count(b"\n") >= count + 1:
            return
        time.sleep(0.02)
    raise AssertionError("no entry in the journal")


def _start(argv):
    return subprocess.Popen([sys.executable, "-m", "bioaccel", *nussinov(argv)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True, start_new_session=True, cwd=ROOT)


@pytest.fixture(scope="module")
def long_batch(tmp_path_factory):
    """A fold batch of a few seconds, and its file from an uninterrupted run."""
    folder = tmp_path_factory.mktemp("long")
    rnas = random_rnas(folder / "rnas.fa", 48, 1100, seed=11)
    code, expected, err = run(["fold", rnas, "-q"])
    assert code == 0, err
    return rnas, expected


def test_resume_after_the_whole_process_is_killed(tmp_path, long_batch):
    rnas, expected = long_batch
    out = str(tmp_path / "out.txt")
    process = _start(["fold", rnas, "-o", out, "--workers", "2", "-q"])
    try:
        _wait_for_entries(out + ".partial", 1, process)
    finally:
        os.killpg(process.pid, signal.SIGKILL)          # the run and its workers, at once
        process.wait()
    assert not os.path.exists(out)
    done = open(out + ".partial", "rb").read().count(b"\n") - 1
    assert 0 < done < 48
    code, written, err = run(["fold", rnas, "--resume", "-q"], out)
    assert code == 0, err
    assert written == expected and not os.path.exists(out + ".partial")


def test_ctrl_c_leaves_a_journal_that_resume_completes(tmp_path, long_batch, scheduler):
    rnas, expected = long_batch
    out = str(tmp_path / "out.txt")
    process = _start(["fold", rnas, "-o", out, "--workers", "2"])
    try:
        _wait_for_entries(out + ".partial", 1, process)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
        assert process.stderr.read() == "bioaccel fold: interrupted\n"       # no Dask noise, no traceback
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert not os.path.exists(out)
    code, written, err = run(["fold", rnas, "--resume", "--scheduler", scheduler, "-q"], out)     # finished elsewhere
    assert code == 0, err
    assert written == expected


def test_ctrl_c_of_a_run_in_this_process_leaves_a_journal_too(tmp_path, long_batch):
    """No workers, no --resume: -o FILE alone keeps FILE.partial as the records complete, so a run stopped
    by Ctrl-C is finished by --resume into the file an uninterrupted run writes."""
    rnas, expected = long_batch
    out = str(tmp_path / "out.txt")
    process = _start(["fold", rnas, "-o", out])
    try:
        _wait_for_entries(out + ".partial", 1, process)
        process.send_signal(signal.SIGINT)
        assert process.wait(timeout=30) == 130
        assert process.stderr.read().splitlines()[-1] == "bioaccel fold: interrupted"
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
    assert not os.path.exists(out) and os.path.exists(out + ".partial")
    code, written, err = run(["fold", rnas, "--resume", "-q"], out)
    assert code == 0, err
    assert written == expected and not os.path.exists(out + ".partial")


def test_a_fresh_run_replaces_a_stale_journal(tmp_path):
    """A journal another run left (other inputs) does not stop a run without --resume, which starts over
    and removes it when done, so that a later --resume is not refused because of it."""
    rnas = random_rnas(tmp_path / "rnas.fa", 3, 40, seed=2)
    out = str(tmp_path / "out.txt")
    with open(out + ".partial", "w") as stale:
        stale.write('{"bioaccel": "0.1.0", "batch": "another run"}\n{"key": 0, "entry": {"-o": "x"}}\n')
    code, written, err = run(["fold", rnas, "-q"], out)
    assert code == 0, err
    assert written == run(["fold", rnas, "-q"])[1] and not os.path.exists(out + ".partial")


def test_a_worker_killed_mid_batch(tmp_path, long_batch, dask_client, scheduler):
    rnas, expected = long_batch
    out = str(tmp_path / "out.txt")
    midway = []

    def kill_one_worker():
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and not os.path.exists(out + ".partial"):
            time.sleep(0.01)
        victim = sorted(dask_client.scheduler_info()["workers"])[0]
        dask_client.run(_die_soon, workers=[victim])
        midway.append(not os.path.exists(out))          # the file appears only once the batch is done

    killer = threading.Thread(target=kill_one_worker)
    killer.start()
    code, written, err = run(["fold", rnas, "--scheduler", scheduler, "-q"], out)
    killer.join()
    assert code == 0, err
    assert midway == [True]
    assert written == expected                           # every record once, in input order
    dask_client.wait_for_workers(2, timeout=60)


def _die_soon():
    threading.Timer(0.05, os._exit, [1]).start()


@pytest.mark.gpu
def test_fold_on_gpu_workers(tmp_path):
    """One worker per GPU of this machine (pinned by CUDA_VISIBLE_DEVICES), and a mixed cluster whose
    CPU worker gets no GPU work: the same structures as the GPU here and the CPU."""
    rnas = random_rnas(tmp_path / "rnas.fa", 24, (1, 3000), seed=5)
    cpu = run(["fold", rnas, "-q"])[1]
    assert run(["fold", rnas, "--backend", "gpu", "-q"])[1] == cpu
    code, written, err = run(["fold", rnas, "--gpus", "all"], tmp_path / "a.txt")
    assert code == 0 and written == cpu and "GPU" in err.splitlines()[-1]
    code, written, err = run(["fold", rnas, "--gpus", "0", "--workers", "1"], tmp_path / "b.txt")
    assert code == 0 and written == cpu and err.splitlines()[-1].endswith("on 1 worker and 1 GPU")


@pytest.mark.gpu
def test_scan_on_gpu_workers(tmp_path, small_groups, genome_records):
    same_as_in_process(["scan", MOTIFS, genome_records, "--pvalue", "1e-3"], tmp_path, ["--gpus", "all"])
