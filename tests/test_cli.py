"""``bioaccel``'s main: bare commands, warnings, output files of failed runs, Ctrl-C and SIGTERM."""
import io
import os
import signal
import subprocess
import sys
import textwrap
import time
import warnings

import pytest

from bioaccel.cli.main import main

FASTA = ">a\nGGGAAAUCC\n>b\nGCGCAAAAGCGC\n"


def run(*argv, stdin=None):
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize("argv", [["fold"], ["interact"], ["motif", "threshold"], ["motif", "export"]])
def test_a_bare_command_prints_its_usage_and_reads_nothing(monkeypatch, argv):
    monkeypatch.setattr(sys, "stdin", None)           # reading it would fail loudly
    code, out, err = run(*argv)
    assert code == 2 and out == ""
    assert err.startswith(f"usage: bioaccel {' '.join(argv)}") and "'-' reads standard input" in err


def test_dash_reads_standard_input(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FASTA.encode())))
    code, out, err = run("fold", "-")
    assert code == 0 and out.startswith(">a\nGGGAAAUCC\n......... (  0.00)\n>b\nGCGCAAAAGCGC\n((((....)))) ( -5.10)")


def test_a_missing_input_argument_is_one_line(monkeypatch):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    monkeypatch.setattr(sys, "stdin", Terminal())      # nothing piped in: fold has nothing to read
    code, out, err = run("fold", "--min-loop", "2")
    assert code == 2 and err.count("\n") == 1 and "no input: give a FASTA file" in err
    code, out, err = run("interact", "x.fa")
    assert code == 2 and err.count("\n") == 1 and "required: TARGETS" in err


def test_warnings_never_reach_the_user(monkeypatch, tmp_path):
    import numpy as np

    import bioaccel.cli.fold as fold_cli

    def noisy(args, stdout, stderr):
        np.log(np.zeros(1))                           # RuntimeWarning: divide by zero
        warnings.warn("a library's note", UserWarning)
        return 0

    monkeypatch.setattr(fold_cli, "run", noisy)
    with warnings.catch_warnings():
        warnings.simplefilter("default")
        code, out, err = run("fold", "x.fa")
    assert code == 0 and err == ""


def test_a_failed_plot_leaves_the_output_as_it_was(monkeypatch, tmp_fasta, tmp_path):
    import bioaccel.fold

    def broken(*args, **kwargs):
        raise plot_error

    from bioaccel.errors import InputError

    plot_error = InputError("the plot failed")
    monkeypatch.setattr(bioaccel.fold, "plot_arcs", broken)
    target = tmp_path / "out.txt"
    target.write_text("before\n")
    code, out, err = run("fold", tmp_fasta(FASTA), "-o", str(target), "--plot", str(tmp_path / "arcs.svg"))
    assert code == 2 and "the plot failed" in err and err.count("\n") == 1
    assert target.read_text() == "before\n"
    # the folds done are kept beside the output, and the error says so: --resume only writes them out
    assert "kept in " + str(target) + ".partial" in err and "--resume" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fa", "out.txt", "out.txt.partial"]
    monkeypatch.undo()
    code, out, err = run("fold", tmp_fasta(FASTA), "-o", str(target), "--plot", str(tmp_path / "arcs.svg"), "--resume")
    assert code == 0 and target.read_text().startswith(">"), err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["arcs.svg", "in.fa", "out.txt"]


def test_plot_without_matplotlib_is_refused_before_any_work(monkeypatch, tmp_fasta, tmp_path):
    monkeypatch.setitem(sys.modules, "matplotlib", None)          # import matplotlib raises ImportError
    target = tmp_path / "out.txt"
    code, out, err = run("fold", tmp_fasta(FASTA), "-o", str(target), "--plot", str(tmp_path / "a.png"))
    assert code == 2 and err.count("\n") == 1 and "matplotlib" in err and "bioaccel[plot]" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.fa"]


def test_noconv_and_t_written_as_u(tmp_fasta):
    path = tmp_fasta(">t\nGGGAAATCC\n")
    assert run("fold", path)[1].splitlines()[1] == "GGGAAAUCC"
    assert run("fold", path, "--noconv")[1].splitlines()[1] == "GGGAAATCC"


def test_help_texts_name_papers_not_seeds_and_every_option_has_help():
    from bioaccel.cli.main import _subparsers, build_parser

    parser = build_parser()
    todo = [parser]
    while todo:
        node = todo.pop()
        text = node.format_help()
        assert "seed 0" not in text.lower() and "svrna study" not in text.lower(), node.prog
        for action in node._actions:
            if action.option_strings or action.dest not in ("command", "motif_command"):
                assert action.help, f"{node.prog} {action.option_strings or action.dest}: no help text"
        todo.extend(_subparsers(node).values())
    usage = _subparsers(parser)["interact"].format_usage()
    assert "--backend {cpu,gpu}" in usage


def _long_fasta(tmp_path, n=16000):
    import random

    rng = random.Random(5)
    path = tmp_path / "long.fa"
    path.write_text(">long\n" + "".join(rng.choice("ACGU") for _ in range(n)) + "\n")
    return str(path)


#: ``bioaccel`` whose CPU fill says on standard error when it returns: a process that waited for the
#: kernel before exiting would say so.
FILL_SAYS_WHEN_DONE = textwrap.dedent("""
    import sys
    import bioaccel.fold._cpu as cpu
    from bioaccel.cli.main import console_main

    fill = cpu.fill_table

    def fill_then_say(*args, **kwargs):
        table = fill(*args, **kwargs)
        print("bioaccel fold: the fill returned", file=sys.stderr, flush=True)
        return table

    cpu.fill_table = fill_then_say
    sys.argv = ["bioaccel", *sys.argv[1:]]
    console_main()
""")


@pytest.mark.parametrize("sig, code, word", [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])
def test_a_signal_stops_a_long_fold_at_once_and_leaves_no_file(tmp_path, sig, code, word):
    """16,000 nt on one thread: about a minute of one kernel; the signal is honoured at once (the
    kernel releases the GIL and the main thread only waits), temporary files removed. No clock is
    read: the process exits while the fill is still running, so the line the fill prints when it
    returns never comes."""
    fasta = _long_fasta(tmp_path)
    out = tmp_path / "out" / "folded.txt"
    out.parent.mkdir()
    env = dict(os.environ, PYTHONWARNINGS="ignore")
    proc = subprocess.Popen([sys.executable, "-c", FILL_SAYS_WHEN_DONE, "fold", fasta, "--threads", "1",
                             "-o", str(out)], stderr=subprocess.PIPE, text=True, env=env)
    first = proc.stderr.readline()                  # the estimate, printed just before the fold starts
    assert first.startswith("bioaccel fold: about"), first
    time.sleep(1.0)                                 # into the fill (not a measurement)
    assert proc.poll() is None
    proc.send_signal(sig)
    rest = proc.stderr.read()                       # until the process exits
    proc.wait(timeout=30)
    assert proc.returncode == code and rest.strip() == f"bioaccel fold: {word}"
    assert os.listdir(out.parent) == []
