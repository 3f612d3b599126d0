"""The GPU batch's shared-memory Nussinov kernels (fold/kernels/nussinov_batch.cu: batch_fold_x2, a thread a
cell, and batch_fold_x2t, a 2 x 2 tile of cells a thread; nussinov_batch_x4t.cu: batch_fold_x4t, a 4 x 4 tile)
built for the host with g++
(tests/nussinov_batch_host.cpp: a std::thread per GPU thread, std::barrier for __syncthreads): every cell of
the table and the score equal to the CPU fill's, at the edges of their chunked layouts (lengths around
multiples of 8 and 16, up to the 256 nt they take), int8 and int16 cells, the production block widths and
32-thread blocks (x2t and x4t then fold a diagonal of tiles in rounds), the blocks that take turns at which
warp folds the first tiles (x2tr, x4tr) at several turns, and nothing written past the dynamic shared
memory the host sizes (fold/_gpu_batch.py); in one-thread blocks also the traceback's dot-brackets (x2t5 keeps
its stack in the row copy), and the warp's walk (x2t5w) in the production's and 32-thread blocks, its ballots and
shuffles emulated. The kernels' logic is checked on every run, without a GPU;
tests/test_fold_gpu.py runs them on the device. Skipped where there is no g++.
"""
import ctypes
import random
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from bioaccel.fold import FoldParams, fold_table
from bioaccel.fold import _gpu_batch, _launch
from bioaccel.inputs.alphabet import encode

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on this machine")

#: tests/nussinov_batch_host.cpp's number of each kernel of fold/_gpu_batch.py SHORT_KERNELS
KERNELS = {"x2": 0, "x2t": 1, "x2tr": 1, "x4t": 2, "x4tr": 2, "x2t5": 3, "x2t5w": 4}
LENGTHS = [2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 63, 64, 65, 120, 200, 255, 256]
PARAMS = [FoldParams(), FoldParams(min_loop=1, au=2, gc=3, gu=1), FoldParams(min_loop=0),
          FoldParams(min_loop=0, au=127, gc=127, gu=127)]     # the last: past int8 cells at every length


@pytest.fixture(scope="module")
def host_fold(tmp_path_factory):
    library = tmp_path_factory.mktemp("nussinov_batch_host") / "nussinov_batch_host.so"
    kernels = resources.files("bioaccel.fold.kernels")
    source = Path(__file__).with_name("nussinov_batch_host.cpp")
    proc = subprocess.run(["g++", "-O2", "-std=c++20", "-shared", "-fPIC", "-pthread", f"-I{kernels}", str(source),
                           "-o", str(library)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lib = ctypes.CDLL(str(library))

    def fold(name, seq, params, narrow, turn=-1, walk=False):
        """The kernel's table V(i, c) of half-open intervals, (n + 1) x (n + 1), and its score; with ``walk``
        (a one-thread block, but for the warp's walk) its dot-bracket too."""
        n = len(seq)
        codes = np.ascontiguousarray(encode(seq).astype(np.uint8))
        pm = np.ascontiguousarray(np.append(params.pair_table().ravel(), params.min_loop).astype(np.int32))
        score_bound = (n // 2) * int(params.pair_table().max())
        cell = "signed char" if score_bound <= _gpu_batch.X2_MAX_SCORE[0] else "short"
        shared = _gpu_batch.short_shared_bytes(name, n, cell)
        threads = int(_gpu_batch.short_threads(name, np.array([n]), _launch.SIZES)[0])
        table = np.zeros((n + 1) * (n + 1), dtype=np.int32)
        score = np.zeros(1, dtype=np.int32)
        letters = np.zeros(max(n, 1), dtype=np.uint8)
        block_walk = _gpu_batch.SHORT_KERNELS[name][5] == "block"
        threads = 1 if walk and block_walk else 32 if narrow else threads
        past = lib.fold(KERNELS[name], int(cell == "short"), codes.ctypes.data_as(ctypes.c_void_p), n,
                        pm.ctypes.data_as(ctypes.c_void_p), shared, threads,
                        turn if _gpu_batch.SHORT_KERNELS[name][4] else -1,
                        table.ctypes.data_as(ctypes.c_void_p), score.ctypes.data_as(ctypes.c_void_p),
                        letters.ctypes.data_as(ctypes.c_void_p) if walk else None)
        assert past != -2, "the block did not take one turn"
        assert past != -3, f"the walk found no split reproducing a cell (n = {n}, {cell})"
        assert past == -1, f"byte {past} written past the {shared} bytes of shared memory (n = {n}, {cell})"
        if walk:
            return table.reshape(n + 1, n + 1), int(score[0]), letters[:n].tobytes()
        return table.reshape(n + 1, n + 1), int(score[0])

    def walk(seq, params, threads, cell=(-1, -1), raise_by=0):
        """x2t5's fill, its column copy's V(cell) raised by ``raise_by``, then walk_structure_warp (``threads``
        threads) or walk_structure (1) alone: (the status it set, its dot-bracket)."""
        n = len(seq)
        codes = np.ascontiguousarray(encode(seq).astype(np.uint8))
        pm = np.ascontiguousarray(np.append(params.pair_table().ravel(), params.min_loop).astype(np.int32))
        letters = np.zeros(max(n, 1), dtype=np.uint8)
        status = lib.walk(0, codes.ctypes.data_as(ctypes.c_void_p), n, pm.ctypes.data_as(ctypes.c_void_p),
                          _gpu_batch.short_shared_bytes("x2t5", n, "signed char"), threads, *cell, raise_by,
                          letters.ctypes.data_as(ctypes.c_void_p))
        assert status != -4, "the fill failed"
        return status, letters[:n].tobytes()

    fold.walk = walk
    return fold


def _cpu_half_open(seq, params):
    """The CPU fill as V(i, c) over half-open [i, c): C[i][c - 1] where the interval holds two bases or more."""
    n = len(seq)
    C = fold_table(seq, params=params)
    want = np.zeros((n + 1, n + 1), dtype=np.int32)
    for i in range(n):
        want[i, i + 2:] = C[i, i + 1:n]
    return want


@pytest.mark.parametrize("name", list(KERNELS))
@pytest.mark.parametrize("narrow", [False, True], ids=["production-block", "32-threads"])
@pytest.mark.parametrize("params", PARAMS, ids=["default", "weights-2-3-1", "min-loop-0", "int16-cells"])
def test_host_kernel_table_equals_cpu(host_fold, name, narrow, params):
    rng = random.Random(29 + KERNELS[name])
    lengths = LENGTHS if name != "x2" else [n for n in LENGTHS if n <= 65] + [200]   # x2: fewer (a thread a cell)
    if name.endswith("r") and narrow:
        lengths = [n for n in LENGTHS if n >= 64]           # (one warp: no turn to take)
    for n in lengths + [rng.randint(2, 256) for _ in range(2)]:
        seq = "GC" * (n // 2) if n in (200, 256) else "".join(rng.choice("ACGUN") for _ in range(n))
        want = _cpu_half_open(seq, params)
        got, score = host_fold(name, seq, params, narrow, turn=1 + n % 7)
        assert score == want[0, n], (n, score, want[0, n])
        assert np.array_equal(got, want), (n, np.argwhere(got != want)[:5].tolist())


@pytest.mark.parametrize("name,narrow", [("x2t", False), ("x2t5", False), ("x2", False), ("x4t", False),
                                         ("x2t5w", False), ("x2t5w", True)])
@pytest.mark.parametrize("params", PARAMS[::3], ids=["default", "int16-cells"])
def test_host_kernel_walk_equals_cpu(host_fold, name, narrow, params):
    """The block's traceback after its fill (one thread: the walk's block-shared state; x2t5w: warp 0 of the
    production's block, or of a 32-thread one) gives the CPU's dot-bracket, and its stack stays inside the sized
    shared memory and off the column copy it reads (the table read after the walk is still the CPU's): after C
    (x2t, x2, x4t) or at the start of R, over the rows the fill no longer reads (x2t5, x2t5w). The lengths and
    sequences give scans that find m in a later round of 32 (poly-GC at 200 and 256 nt)."""
    from bioaccel.fold import nussinov_batch

    rng = random.Random(5)
    lengths = [2, 3, 16, 17, 33, 64, 120, 200, 256] + [rng.randint(2, 256) for _ in range(2)]
    seqs = ["GC" * (n // 2) if n == 256 else "".join(rng.choice("ACGUN") for _ in range(n)) for n in lengths]
    seqs += ["GC" * 100, "G" * 100 + "C" * 100, "GGGAAAUCC" * 22]
    cpu = nussinov_batch(seqs, params=params)
    for k, seq in enumerate(seqs):
        table, score, letters = host_fold(name, seq, params, narrow, walk=True)
        assert score == cpu.scores[k] and letters == cpu.structures[k], (len(seq), letters, cpu.structures[k])
        assert np.array_equal(table, _cpu_half_open(seq, params)), len(seq)


def test_host_warp_walk_sets_status_on_a_corrupt_table_as_the_block_walk_does(host_fold):
    """A table that no split reproduces (V(0, n) raised by one) makes the warp's walk set status 1, as
    walk_structure does; with V(i, j + 1) of a pair (i, j) of the structure raised, or a random cell raised or
    lowered (the walk may pass it, take another path, or stop there), both walks end with the same status and the
    same letters (some of them status 1 past the first interval); with none changed both give the CPU's
    dot-bracket with status 0."""
    from bioaccel.fold import nussinov_batch

    rng = random.Random(11)
    params = FoldParams()
    stopped = 0                                      # corruptions past V(0, n) that set status 1
    for n in (17, 64, 200):
        seq = "".join(rng.choice("ACGU") for _ in range(n))
        cpu = nussinov_batch([seq], params=params)
        for threads in (32, 128):
            assert host_fold.walk(seq, params, threads) == (0, cpu.structures[0])
            assert host_fold.walk(seq, params, threads, (0, n), 1)[0] == 1
        assert host_fold.walk(seq, params, 1, (0, n), 1)[0] == 1
        opened = [i for i, letter in enumerate(cpu.structures[0].decode()) if letter == "("]
        pairs = [(i, next(j for j in range(i + 1, n) if _closes(cpu.structures[0], i, j)) + 1) for i in opened]
        changes = [(cell, 1) for cell in rng.sample(pairs, min(6, len(pairs)))]
        for change in (1, -1, 1, -1, 1, -1):
            i = rng.randrange(0, n - 1)
            changes.append(((i, rng.randrange(i + 2, n + 1)), change))
        for cell, change in changes:
            warp = host_fold.walk(seq, params, 128, cell, change)
            assert warp == host_fold.walk(seq, params, 1, cell, change), (n, cell, change)
            stopped += warp[0]
    assert stopped > 0


def _closes(structure, i, j):
    """Whether the ")" at j closes the "(" at i of a dot-bracket (bytes)."""
    depth = 0
    for k in range(i, j + 1):
        depth += {40: 1, 41: -1}.get(structure[k], 0)
        if depth == 0:
            return k == j and structure[k] == 41
    return False


def test_a_batch_of_the_same_starts_is_planned_once(monkeypatch):
    """fold_packed's plan (fold/_gpu_batch.py _plan: the launches, the one upload's arrays, the ids folded
    alone) is kept per starts, model and sizes: the same batch gets the same plan back, equal to one made
    afresh; other starts, another model or other sizes get their own; past PLAN_CACHE_MAX sequences none
    is kept. No GPU: the plan is NumPy only."""
    monkeypatch.setattr(_gpu_batch, "_plans", type(_gpu_batch._plans)())
    lengths = [0, 1, 2, 150, 255, 300, 1000, 999, 7000, 300]       # shared, tiled (two bins), alone
    starts = np.concatenate([[0], np.cumsum(lengths)]).astype(np.int64)
    params, sizes = FoldParams(), _launch.SIZES
    plan = _gpu_batch._plan(starts, params, sizes)
    assert _gpu_batch._plan(starts.copy(), params, sizes) is plan
    monkeypatch.setattr(_gpu_batch, "PLAN_CACHE_MAX", 0)
    fresh = _gpu_batch._plan(starts, params, sizes)
    assert fresh is not plan and len(_gpu_batch._plans) == 1
    launches, (packed, layout), alone = plan.launches, plan.packed, plan.alone
    launches2, (packed2, layout2), alone2 = fresh.launches, fresh.packed, fresh.alone
    assert plan.on_device == {} and fresh.on_device is None         # only a kept plan keeps its uploads
    assert [(k, str(a), str(b), m) for k, a, b, m in launches] == [(k, str(a), str(b), m) for k, a, b, m in launches2]
    assert np.array_equal(packed, packed2) and layout == layout2
    assert alone.tolist() == alone2.tolist() == [8]
    kinds = [(kind, longest) for kind, _, _, longest in launches]
    assert ("tiled", 1000) in kinds and ("tiled", 300) in kinds and any(k == "shared" for k, _ in kinds)
    uploads = [packed[offset:].view(dtype)[:size] for dtype, size, offset in layout]     # as the device views
    assert uploads[0][2:].tolist() == [0, 0] + [-1] * 8 and np.array_equal(uploads[1], starts)
    assert sorted(np.concatenate(uploads[3:]).tolist()) == [2, 3, 4, 5, 6, 7, 9]       # every id >= 2 nt once
    assert uploads[2].tolist() == list(_gpu_batch._pair_model(params)[1])
    monkeypatch.setattr(_gpu_batch, "PLAN_CACHE_MAX", 65_536)
    other = starts.copy()
    other[-1] += 1
    assert _gpu_batch._plan(other, params, sizes) is not plan
    assert _gpu_batch._plan(starts, FoldParams(min_loop=0), sizes) is not plan
    assert _gpu_batch._plan(starts, params, sizes.replace(batch_tile=32)) is not plan
    assert _gpu_batch._plan(starts, params, sizes) is plan and len(_gpu_batch._plans) == 4
