"""BPMax on the GPU, the host's work around the kernels (issue 29, helper bpmaxhost): the tables' poisoning fill by
runtime.gpu.filled (BPMaxSizes.table_fill 1, the default since stop 57: 16-byte stores) writes the sentinel into every
cell, and a run with it gives cupy.full's (table_fill 0) device tables and the CPU's window scores even where the pool
hands it memory full of garbage;
and, on any machine, the order the host queues a launch group's work in (a recording stand-in for CuPy): the table's
fill first, the query's arrays uploaded once behind it, one copy back a group.

The GPU tests are marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random
from types import SimpleNamespace

import numpy as np
import pytest

from bioaccel.interact import InteractParams, _gpu, _gpu_finish, _gpu_paired
from bioaccel.interact._gpu_launch import BPMaxSizes
from bioaccel.interact._model import sentinel
from bioaccel.interact._strands import strand_band
from bioaccel.runtime import gpu as runtime_gpu
from test_interact_gpu import (random_rna_codes, same_as_default_on_a_production_band,
                               same_as_default_on_short_windows_and_pieces)

FILL = dict(table_fill=1)
CUPY_FULL = dict(table_fill=0)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", [np.int16, np.int32])
def test_fill_kernel_writes_the_sentinel_into_every_cell(dtype):
    """BPMax's tables (table_fill 1) of a few vectors to a few million cells, over memory holding garbage: every cell
    the sentinel, as cupy.full makes it, also in the cells past the last whole 16-byte vector."""
    import cupy as cp

    for cells in (8, 56, 8 * 1001, (1 << 22) + 8, 3, 1001, 0):
        garbage = cp.full(cells + 64, 0x5A5A, dtype=dtype)
        del garbage                                             # the pool hands its block to the table below
        table = runtime_gpu.filled(cells, sentinel(dtype), dtype)   # as interact/_gpu.py's _launch fills F and S2
        assert table.shape == (cells,) and table.dtype == dtype
        assert bool((table == sentinel(dtype)).all()), (dtype, cells)


@pytest.mark.gpu
def test_table_fill_kernel_equals_the_default_over_garbage():
    """8 x 1,400 and 333 nt, window 128: with the pool's memory full of garbage before the run, table_fill 1 gives
    cupy.full's (table_fill 0) device tables (every recorded cell of F and S2) and window scores."""
    import cupy as cp

    rng = random.Random(37)
    params = InteractParams(window_target=128)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    S1 = strand_band(ca, params.fold_params, len(ca))
    runs = []
    for change in (CUPY_FULL, FILL):
        cp.get_default_memory_pool().free_all_blocks()
        garbage = cp.full(1 << 28, 0x3A7F, dtype=np.int16)       # 512 MB of large positive cells, then freed
        del garbage
        record = []
        runs.append((_gpu.window_scores(ca, S1, rbs, params, sizes=BPMaxSizes(**change), record=record), record))
    (found0, [(_, F0, S0, _)]), (found, [(_, F, S, _)]) = runs
    assert np.array_equal(F, F0) and np.array_equal(S, S0)
    for (w, f), (w0, f0) in zip(found, found0):
        assert np.array_equal(w, w0) and np.array_equal(f, f0)


@pytest.mark.gpu
def test_cupy_full_equals_the_default_and_the_cpu():
    same_as_default_on_a_production_band([CUPY_FULL], 35)
    same_as_default_on_short_windows_and_pieces([CUPY_FULL], 36)


class Recorder:
    """A stand-in for CuPy and the kernels under interact/_gpu.py: device arrays are NumPy arrays, kernels do nothing,
    and every operation that queues device work is logged in order as (what, size)."""

    def __init__(self):
        self.log = []

    def full(self, n, value, dtype=None):
        self.log.append(("fill", n))
        return np.full(n, value, dtype=dtype)

    def filled(self, n, value, dtype, *, by_cell=False):   # runtime.gpu.filled: either fill is one queued fill
        return self.full(n, value, dtype)

    def empty(self, n, dtype=None):
        return np.zeros(n, dtype=dtype)

    def asarray(self, array):
        self.log.append(("upload", np.asarray(array).size))
        return np.array(array)

    def asnumpy(self, array):
        self.log.append(("copy back", array.size))
        return np.array(array)

    def to_host(self, array):
        return self.asnumpy(array)

    def kernel(self, name, *arguments):
        def launch(grid, block, args, **kwargs):
            self.log.append(("launch", name))
        return Launch(launch)


class Launch:
    """A stand-in kernel: calls log, attributes (the shared-memory limit) are kept."""

    def __init__(self, launch):
        self.launch = launch

    def __call__(self, *args, **kwargs):
        self.launch(*args, **kwargs)


@pytest.mark.parametrize("change", [CUPY_FULL, FILL])
def test_a_group_queues_its_fill_first_and_the_query_uploads_once(monkeypatch, change):
    """Two launch groups (a 300 nt target, window 40, and a 4 nt one: bands too unlike to share a launch): each
    group's first device work is its tables' fill, the query's three arrays go up once (behind the first group's
    fill), each group copies its scores back once, and the results have the shapes of every window score."""
    cp = Recorder()
    runtime = SimpleNamespace(require_gpu=lambda: cp, cupy=lambda: cp, free_memory=lambda: 1 << 34,
                              to_host=cp.to_host, multiprocessors=lambda: 132, filled=cp.filled)
    for module in (_gpu, _gpu_paired, _gpu_finish):
        monkeypatch.setattr(module, "_gpu", runtime)
    monkeypatch.setattr(_gpu, "_kernel", cp.kernel)
    monkeypatch.setattr(_gpu_finish, "kernel", cp.kernel)
    rng = random.Random(3)
    params = InteractParams(window_target=40)
    a = random_rna_codes(rng, 12)
    targets = [random_rna_codes(rng, n) for n in (300, 4)]
    found = _gpu.window_scores(a, strand_band(a, params.fold_params, 12), targets, params,
                               sizes=BPMaxSizes(**change))
    groups = [i for i, (what, _) in enumerate(cp.log) if what == "fill" and (i == 0 or cp.log[i - 1][0] != "fill")]
    assert len(groups) == 2 and groups[0] == 0
    for start in groups:
        assert [what for what, _ in cp.log[start:start + 2]] == ["fill", "fill"]     # F, then S2
    uploads = [size for what, size in cp.log if what == "upload"]
    assert uploads[:3] == [12, 12 * 12, 25] and len(uploads) == 3 + 2 * 2   # a, S1, pairs; each group rb and span
    assert [what for what, _ in cp.log].count("copy back") == 2
    for rb, (win, folds) in zip(targets, found):
        L2 = params.spans(12, len(rb))[1]
        assert win.shape == (1, len(rb) - L2 + 1) and folds.shape == (len(rb) - L2 + 1,)
