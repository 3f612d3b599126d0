"""The paths a user's shell takes: named pipes, full disks, Ctrl-C while Dask workers run.

Each test runs the real ``bioaccel`` executable in a subprocess, since these are about file
descriptors, signals and the interpreter's exit, which ``main([...])`` in-process does not see.
"""
import io
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RNAS = ROOT / "examples" / "rnas.fa"


def bioaccel(*args, stdout=subprocess.PIPE):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    return subprocess.run([sys.executable, "-m", "bioaccel", *map(str, args)], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT)


def piped(tmp_path, source: Path, *argv):
    """``bioaccel ARGV`` with ``{fifo}`` a named pipe that ``source`` is written into, as a shell's
    ``<(cat source)``."""
    fifo = tmp_path / "input.fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_bytes(source.read_bytes()))
    writer.start()
    done = bioaccel(*[str(fifo) if a == "{fifo}" else a for a in argv])
    writer.join()
    return done


@pytest.mark.parametrize("argv", [
    ["fold", "{fifo}"],
    ["interact", str(ROOT / "examples" / "mirnas.fa"), "{fifo}"],
])
def test_a_named_pipe_is_read_like_a_file(tmp_path, argv):
    """``bioaccel fold <(cat x.fa)``: a FIFO cannot be read twice, so no length pre-scan reads it first."""
    done = piped(tmp_path, RNAS, *argv)
    assert done.returncode == 0, done.stderr
    assert done.stdout == bioaccel(*[str(RNAS) if a == "{fifo}" else a for a in argv]).stdout
    assert done.stdout.count("tRNA-Phe_yeast") >= 1


def test_scan_reads_a_named_pipe(tmp_path):
    genome = ROOT / "examples" / "sars-cov-2.fasta"
    motif = ROOT / "examples" / "MA0066.1.jaspar"
    done = piped(tmp_path, genome, "scan", motif, "{fifo}")
    assert done.returncode == 0, done.stderr
    assert done.stdout == bioaccel("scan", motif, genome).stdout and done.stdout.count("\n") > 1


def test_a_bare_sequence_on_standard_input_is_folded_as_rnafold_does():
    done = subprocess.run([sys.executable, "-m", "bioaccel", "fold", "-"], input="GGGGAAACCCC\nacguacgu\n",
                          capture_output=True, text=True, env=dict(os.environ, PYTHONPATH=str(ROOT / "src")))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [">seq1", "GGGGAAACCCC", "((((...)))) ( -4.50)", ">seq2", "acguacgu",
                                        "........ (  0.00)"]


def test_fold_without_a_file_reads_the_pipe_as_rnafold_does():
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    done = subprocess.run([sys.executable, "-m", "bioaccel", "fold"], input="GGGGAAACCCC\n", capture_output=True,
                          text=True, env=env)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [">seq1", "GGGGAAACCCC", "((((...)))) ( -4.50)"]
    empty = subprocess.run([sys.executable, "-m", "bioaccel", "fold"], stdin=subprocess.DEVNULL,
                           capture_output=True, text=True, env=env)
    assert empty.returncode == 2 and empty.stderr.count("\n") == 1 and "no FASTA records" in empty.stderr


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="no /dev/full on this system")
@pytest.mark.parametrize("how", ["-o", ">"])
def test_a_full_disk_is_one_line_and_status_2(how):
    if how == "-o":
        done = bioaccel("fold", RNAS, "-o", "/dev/full")
    else:
        with open("/dev/full", "w") as full:
            done = bioaccel("fold", RNAS, stdout=full)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith("bioaccel fold: error: ") and "no space left on device" in lines[0]
    assert ("/dev/full" in lines[0]) == (how == "-o")


def test_ctrl_c_with_workers_is_one_line(tmp_path):
    """SIGINT while local Dask workers run: status 130, one line, no traceback, no warning from the
    workers' resource tracker; the output file is not created. (How long the exit takes is measured,
    not asserted: about 0.3 s on the 2-core machine, where the interpreter's own exit took 4-6 s.)"""
    out = tmp_path / "screen.tsv"
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    run = subprocess.Popen([sys.executable, "-m", "bioaccel", "interact", "examples/sars-cov-svrna.fa",
                            "examples/targets.fa", "--window-target", "128", "-o", str(out), "--workers", "2",
                            "--quiet"], cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                           text=True)
    time.sleep(6)            # the cluster started and working
    assert run.poll() is None, run.communicate()[1]
    run.send_signal(signal.SIGINT)
    err = run.communicate(timeout=60)[1]
    assert run.returncode == 130
    assert err.strip().splitlines() == ["bioaccel interact: interrupted"], err
    assert not out.exists()


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_a_first_compile_is_announced_once_on_a_terminal():
    """The notice comes from Numba's own compile event: a kernel compiled inside the block says so once
    (two kernels, one line); a kernel already compiled, or a stream no person watches, says nothing."""
    from numba import njit

    from bioaccel.cli.progress import compile_notice

    def make():
        return njit(lambda x: x + 1), njit(lambda x: x * 2)

    first, second = make()
    shown = _Terminal()
    with compile_notice("bioaccel demo", shown):
        first(1), second(2)
    assert shown.getvalue().splitlines() == [
        "bioaccel demo: compiling kernels for this machine (first run only: they are cached)"]
    again = _Terminal()
    with compile_notice("bioaccel demo", again):
        first(3)
    assert again.getvalue() == ""
    piped = io.StringIO()
    third, _ = make()
    with compile_notice("bioaccel demo", piped):
        third(1)
    assert piped.getvalue() == ""


def _capped(limit):
    """A child's files may grow to ``limit`` bytes, no further (RLIMIT_FSIZE: the write past it is cut
    short, the next one fails with EFBIG, as a disk that fills up; Python ignores SIGXFSZ)."""
    import resource

    return lambda: resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))


def _many_records(path, count=1200, length=40):
    import random

    rng = random.Random(25)
    path.write_text("".join(f">r{i}\n{''.join(rng.choice('ACGU') for _ in range(length))}\n" for i in range(count)))
    return path


def _full_run(argv, limit, stdout=subprocess.PIPE, unbuffered=False):
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"))
    env.pop("PYTHONUNBUFFERED", None)
    if unbuffered:
        env["PYTHONUNBUFFERED"] = "1"
    return subprocess.run([sys.executable, "-m", "bioaccel", *map(str, argv), "-q"], stdout=stdout,
                          stderr=subprocess.PIPE, text=True, env=env, cwd=ROOT, preexec_fn=_capped(limit))


@pytest.mark.parametrize("limit, kept", [(60, 0), (400, 1), (700, 2)])
def test_a_disk_that_fills_while_the_journal_is_written(tmp_path, limit, kept):
    """The journal FILE.partial is written first: a disk full under it is one line and status 2 (it was
    a traceback and status 1), the journal cut back to its whole lines (none left where none was
    done), and --resume finishes the run once there is room."""
    out = tmp_path / "out.txt"
    done = _full_run(["fold", RNAS, "-o", out], limit)
    assert done.returncode == 2, done.stderr
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bioaccel fold: error: ") and "Traceback" not in done.stderr
    assert "cannot write the results so far (file too large)" in lines[0], lines[0]
    partial = tmp_path / "out.txt.partial"
    assert not out.exists() and sorted(os.listdir(tmp_path)) == (["out.txt.partial"] if kept else [])
    if kept:
        assert f"the {kept} item{'s' if kept > 1 else ''} done {'are' if kept > 1 else 'is'} kept in" in lines[0]
        assert partial.read_text().count("\n") == 1 + kept           # the header and whole entries
        again = bioaccel("fold", RNAS, "-o", out, "--resume", "-q")
        assert again.returncode == 0, again.stderr
        assert out.read_text() == bioaccel("fold", RNAS).stdout and not partial.exists()


def test_a_disk_that_fills_under_many_records(tmp_path):
    """The array path (many short records) keeps its chunks in FILE.partial too: the same promise."""
    many = _many_records(tmp_path / "many.fa")
    out = tmp_path / "out" / "many.txt"
    out.parent.mkdir()
    done = _full_run(["fold", many, "--model", "nussinov", "-o", out], 20_000)
    assert done.returncode == 2 and done.stderr.count("\n") == 1, done.stderr
    assert "many.txt.partial: cannot write the results so far (file too large)" in done.stderr
    assert os.listdir(out.parent) == []


@pytest.mark.parametrize("argv", [["fold", "{many}", "--model", "nussinov"], ["fold", RNAS]])
def test_unbuffered_standard_output_on_a_disk_that_fills(tmp_path, argv):
    """Under PYTHONUNBUFFERED=1 standard output's text layer drops what its file did not take of a
    write; a disk that filled mid-write then ended in status 0 with the output cut short. Now: one
    line, status 2."""
    many = _many_records(tmp_path / "many.fa")
    full = bioaccel(*[many if a == "{many}" else a for a in argv]).stdout
    with open(tmp_path / "stdout.txt", "w") as handle:
        done = _full_run([many if a == "{many}" else a for a in argv], len(full) // 2, stdout=handle,
                         unbuffered=True)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip().splitlines() == ["bioaccel fold: error: standard output: cannot write (file too large)"]


def test_a_first_run_whose_kernel_cache_cannot_be_written(tmp_path):
    """An empty compile cache on a disk that cannot take the kernels (here a file size limit): Numba's
    cache write raised out of the compile, a traceback and status 1 before the first record. Now the
    kernels run from memory (compiled again next time), with the output of a cached run."""
    env = dict(os.environ, PYTHONPATH=str(ROOT / "src"), NUMBA_CACHE_DIR=str(tmp_path / "cache"))
    argv = [sys.executable, "-m", "bioaccel", "fold", str(RNAS), "--model", "nussinov", "-q"]
    done = subprocess.run(argv, capture_output=True, text=True, env=env, cwd=ROOT, preexec_fn=_capped(2048))
    assert done.returncode == 0 and done.stderr == "", done.stderr[-2000:]
    assert done.stdout == bioaccel("fold", RNAS, "--model", "nussinov").stdout


@pytest.mark.parametrize("argv", [["fold", str(RNAS)], ["scan", str(ROOT / "examples" / "MA0066.1.jaspar"), str(RNAS),
                                                          "--resume"]])
def test_a_folder_that_cannot_be_written_is_refused_before_the_first_item(tmp_path, monkeypatch, argv):
    """-o FILE in a folder this user may not write: said when the journal was first written, after the
    first item was computed (a long one: minutes lost). Now before any work, as for the other outputs.
    (Simulated: the tests may run as root, whom no folder refuses.)"""
    import bioaccel.cli.batch_run as batch_run
    from bioaccel.cli.main import main

    folder = tmp_path / "read-only"
    folder.mkdir()
    real = os.access
    monkeypatch.setattr(batch_run.os, "access", lambda path, mode: False if str(path) == str(folder) else
                        real(path, mode))
    err = io.StringIO()
    code = main([*argv, "-o", str(folder / "out.txt"), "-q"], stdout=io.StringIO(), stderr=err)
    assert code == 2 and err.getvalue() == f"bioaccel {argv[0]}: error: -o {folder / 'out.txt'}: cannot create a " \
                                           f"file in folder {folder} (permission denied)\n", err.getvalue()
    assert os.listdir(folder) == []
