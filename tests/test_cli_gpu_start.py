"""The start of ``bioaccel interact --backend gpu`` (bioaccel.cli.gpu_start), with a stand-in device on
any machine: the CUDA context is begun before the warm-up, the garbage collector is paused from the
command's start until the GPU is ready and collects again from the first device computation on (also
after an error), and a command line builds only its own subcommand's parser."""
import subprocess
import sys

import pytest

from stand_in_gpu import WINDOW_SCORES

CHILD = r"""
import gc, io, sys, threading, types
import numpy as np
from bioaccel.runtime import gpu
from bioaccel.interact import _gpu
order, seen = [], {}
retain, warm_up = gpu.retain_primary_context, gpu.warm_up
def stamped_retain(ordinal=0):
    order.append("context")
    return retain(ordinal)
def stamped_warm_up(then=None):
    order.append("warm-up")
    return warm_up(then)
gpu.retain_primary_context, gpu.warm_up = stamped_retain, stamped_warm_up
def stand_in_cupy(context=False):
    seen.setdefault("collector during the warm-up", gc.isenabled())
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)))
gpu._checked_cupy = stand_in_cupy
def device_computation():
    seen.setdefault("collector at the first device computation", gc.isenabled())
""" + WINDOW_SCORES + r"""seen["collector after the command"] = gc.isenabled()
print(repr((code, order[:2], seen, len(out.getvalue().splitlines()))))
"""


def _fasta(path, records):
    path.write_text("".join(f">{name}\n{seq}\n" for name, seq in records))
    return str(path)


def _child(argv):
    done = subprocess.run([sys.executable, "-c", CHILD, *argv, "-q"], capture_output=True, text=True, check=True)
    return eval(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("output", [False, True])
def test_context_first_and_the_collector_paused_until_the_gpu_is_ready(tmp_path, output):
    bases = "GAGGAAGAAGAGGACGAUCCAUGCAUGCAUCGAUCGAUGCUUAGCGGGAAAUCCCAUGCAUGCAUCG"
    queries = _fasta(tmp_path / "q.fa", [("q1", bases[:22]), ("q2", bases[3:24])])
    targets = _fasta(tmp_path / "t.fa", [(f"t{k}", bases[k:k + 30 + 5 * k]) for k in range(4)])
    argv = ["interact", queries, targets, "--window-target", "16", "--backend", "gpu"]
    code, order, seen, lines = _child(argv + (["-o", str(tmp_path / "out.tsv")] if output else []))
    assert code == 0
    assert lines == (0 if output else 1 + 2 * 4)
    if output:
        assert len((tmp_path / "out.tsv").read_text().splitlines()) == 1 + 2 * 4
    assert order == ["context", "warm-up"]          # the driver's start begun before NumPy's import
    assert seen == {"collector during the warm-up": False, "collector at the first device computation": True,
                    "collector after the command": True}


def test_the_collector_runs_again_after_an_error(tmp_path):
    queries = _fasta(tmp_path / "q.fa", [("q1", "GGGAAACCCAGU")])
    targets = _fasta(tmp_path / "t.fa", [("t1", "GGGUUUCCCAGU"), ("t2", "GGXX")])
    code, order, seen, lines = _child(["interact", queries, targets, "--backend", "gpu"])
    assert code == 2 and lines == 0
    assert seen["collector after the command"] is True


def test_a_command_builds_only_its_own_parser():
    code = ("import sys; from bioaccel.cli.main import main; status = main(['interact', '--help']); "
            "print(status, sorted(m for m in ('bioaccel.cli.fold', 'bioaccel.cli.motif', 'bioaccel.cli.scan') "
            "if m in sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "QUERIES" in done.stdout and done.stdout.splitlines()[-1].split() == ["0", "[]"]


@pytest.mark.parametrize("argv", [["--help"], ["interct", "x"], []])
def test_the_whole_parser_where_no_command_is_named(argv, capsys):
    from bioaccel.cli.main import main

    main(argv)
    said = capsys.readouterr()
    text = said.out + said.err
    for command in ("fold", "interact", "motif", "scan"):
        assert command in text
