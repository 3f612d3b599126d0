"""The query's fold S1 filled in Python (bioaccel.interact._strands: ``_fill_band.py_func`` for short
strands while Numba's fill is not loaded, on arrays and on lists of lists as fold_band runs it) holds the same
integers as Numba's fill and as the plain reference, for every weight setting and min_loop; the choice of path
follows its rules; and the GPU path's first launch (a device stand-in) comes without Numba's start for a screen of
short queries."""
import subprocess
import sys

import numpy as np
import pytest

import naive

from bioaccel.fold import FoldParams
from bioaccel.interact import _strands

WEIGHTS = [dict(au=1, gc=3, gu=1.5), dict(au=2, gc=3, gu=1), dict(au=1, gc=1, gu=0), dict(au=0.5, gc=3, gu=0.25),
           dict(au=3, gc=2, gu=2)]


@pytest.mark.parametrize("weights", WEIGHTS)
@pytest.mark.parametrize("min_loop", [0, 1, 2, 3, 4])     # BPMax's is 3
def test_python_fill_equals_numba_fill_on_random_strands(weights, min_loop):
    params = FoldParams(min_loop=min_loop, **weights)
    pairs = params.pair_table()
    rng = np.random.default_rng(min_loop * 100 + len(WEIGHTS))
    for n in list(range(1, 65, 3)) + [64]:
        codes = rng.integers(0, 4, n).astype(np.int8)
        for width in sorted({1, max(1, n // 3), n}):
            numba_band = np.zeros((n, width), np.int32)
            python_band = np.zeros((n, width), np.int32)
            _strands._fill_band(codes, pairs, min_loop, numba_band)
            _strands._fill_band.py_func(codes, pairs, min_loop, python_band)
            rows = np.zeros((n, width), np.int32).tolist()      # as fold_band runs it: on lists of lists
            _strands._fill_band.py_func(codes.tolist(), pairs.tolist(), min_loop, rows)
            assert python_band.dtype == numba_band.dtype
            assert (python_band == numba_band).all(), (n, width)
            assert rows == numba_band.tolist(), (n, width)
        if n <= 30:       # and both as the recurrence as written (whole triangle)
            S = naive.nussinov_table("".join("ACGU"[c] for c in codes), params)
            assert [[S[i][i + d] if i + d < n else 0 for d in range(n)] for i in range(n)] == python_band.tolist()


def test_fold_band_takes_the_python_fill_by_its_rules(monkeypatch):
    params = FoldParams.bpmax()
    codes = np.random.default_rng(5).integers(0, 4, _strands.PYTHON_FILL_BASES).astype(np.int8)
    calls = []
    numba_fill = _strands._fill_band
    original = numba_fill.py_func

    def counted(*args):
        calls.append(len(args[0]))
        return original(*args)

    class Unloaded:            # Numba's fill as in a process that has not loaded it
        signatures = []
        py_func = staticmethod(counted)

        def __call__(self, *args):
            calls.append("numba")
            return numba_fill(*args)

    fill = Unloaded()
    monkeypatch.setattr(_strands, "_fill_band", fill)
    monkeypatch.setattr(_strands, "_python_fills", [0.0])
    first = _strands.fold_band(codes, params, 20)
    assert calls == [len(codes)]
    _strands.fold_band(np.concatenate([codes, codes[:1]]), params, 20)        # one base too long
    assert calls[-1] == "numba"
    monkeypatch.setattr(_strands, "_python_fills", [_strands.PYTHON_FILL_SECONDS])      # the budget spent
    again = _strands.fold_band(codes, params, 20)
    assert calls[-1] == "numba" and (again == first).all()
    monkeypatch.setattr(_strands, "_python_fills", [0.0])
    Unloaded.signatures = ["loaded"]                                             # Numba's fill loaded
    _strands.fold_band(codes, params, 20)
    assert calls[-1] == "numba"


def test_a_screen_of_short_queries_reaches_the_device_without_numba_start():
    """In a fresh process, with the device stood in for: the GPU path's pairs of 20-nt queries (and the
    warm-up's tiny pair) run without Numba's CPU target ever starting, and their rows are the CPU's."""
    code = r"""
import numpy as np
from numba.core import cpu
started = []
refresh = cpu.CPUContext.refresh
def stamped(self):
    started.append(1)
    return refresh(self)
cpu.CPUContext.refresh = stamped
import dataclasses
from bioaccel.inputs.fasta import Record
from bioaccel.interact import InteractParams, _gpu, _pairs_gpu
from bioaccel.interact._request import check_request
from bioaccel.interact._strands import window_folds
calls = []
def stand_in(a, S1, rbs, params, variant="fused"):
    calls.append(len(started))
    M = len(a)
    out = []
    for rb in rbs:
        L1, L2 = params.spans(M, len(rb))
        wins = (np.arange((M - L1 + 1) * (len(rb) - L2 + 1), dtype=np.int32) % 7).reshape(M - L1 + 1, -1)
        out.append((wins, np.zeros(len(rb) - L2 + 1, np.int64)))
    return out
_gpu.window_scores = stand_in
params = InteractParams(window_target=8)
request = check_request(params, "cpu", None, 1, False, 1, "score")
request = dataclasses.replace(request, call=dataclasses.replace(request.call, backend="gpu", variant="fused"))
queries = [Record("q%d" % k, "GAGGAAGAAGAGGACGAUCC"[k:] + "ACGU"[:k]) for k in range(3)]
targets = [Record("t%d" % k, "GGGAAAUCCCAUGCAUGCAUCGAUCGAUGCUUAGC"[k:]) for k in range(4)]
rows = _pairs_gpu.gpu_pairs([(t, q) for t in targets for q in queries], request)
print(len(started), calls, sum(len(r) for r in rows))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    started, calls, rows = done.stdout.split(maxsplit=1)[0], done.stdout.split("]")[0] + "]", done.stdout.split()[-1]
    assert started == "0", done.stdout
    assert calls.split(maxsplit=1)[1] == "[0, 0, 0]"
    assert rows == "12"
