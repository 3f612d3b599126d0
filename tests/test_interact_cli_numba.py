"""``bioaccel interact --backend gpu`` with a stand-in device (any machine): a screen of short queries
reaches its first device computation without Numba's start (their folds are made in Python), a longer
query starts Numba in the command's thread before it (as before)."""
import subprocess
import sys

import pytest

from stand_in_gpu import WINDOW_SCORES

from bioaccel.interact import _strands

CHILD = r"""
import io, sys, threading, types
import numpy as np
from numba.core import cpu
started = []
refresh = cpu.CPUContext.refresh
def stamped(self):
    started.append(threading.current_thread().name)
    return refresh(self)
cpu.CPUContext.refresh = stamped
from bioaccel.runtime import gpu
from bioaccel.interact import _gpu
gpu._checked_cupy = lambda context=False: types.SimpleNamespace(
    cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)))
first = []
def device_computation():
    first.append(list(started)) if not first else None
""" + WINDOW_SCORES + r"""print(repr((code, first[0] if first else None, len(out.getvalue().splitlines()))))
"""


def _fasta(path, records):
    path.write_text("".join(f">{name}\n{seq}\n" for name, seq in records))
    return str(path)


@pytest.mark.parametrize("query_length, numba_before", [(22, False), (_strands.PYTHON_FILL_BASES + 1, True)])
def test_numba_starts_before_the_first_device_computation_only_for_long_queries(tmp_path, query_length,
                                                                                  numba_before):
    bases = "GAGGAAGAAGAGGACGAUCCAUGCAUGCAUCGAUCGAUGCUUAGCGGGAAAUCCCAUGCAUGCAUCGAUCGAUG" * 2
    queries = _fasta(tmp_path / "q.fa", [("q1", bases[:query_length]), ("q2", bases[3:3 + query_length])])
    targets = _fasta(tmp_path / "t.fa", [(f"t{k}", bases[k:k + 40 + 5 * k]) for k in range(5)])
    done = subprocess.run([sys.executable, "-c", CHILD, "interact", queries, targets, "--window-target", "16",
                           "--backend", "gpu", "-q"], capture_output=True, text=True, check=True)
    code, started, lines = eval(done.stdout.strip().splitlines()[-1])
    assert code == 0 and lines == 1 + 2 * 5
    assert bool(started) == numba_before, started
    if numba_before:                # in the command's thread, while the warm-up's waits for the context
        assert started[0] != "bioaccel-gpu-warm-up"
