"""The Turner 2004 partition function on the GPU (fold/_turner_pf_gpu.py, kernels/turner_pf_batch.cu and
turner_pf.cuh) against the CPU's (fold/_turner_pf_cpu.py, itself checked against ViennaRNA and the
plain-Python reference tests/naive_mccaskill.py): ln Z within 1e-10 relative and every base-pair
probability within 1e-9 absolute (FP64; measured ~1e-14), the diversity and centroid distance summed on
the device, the listed pairs above a cutoff, the rescaling of a sequence whose scaled Z leaves range, and
``ensemble(backend="gpu")`` / ``bioaccel fold -p --backend gpu``.

The device cells are also built for the host with g++ (tests/turner_pf_host.cpp, no GPU needed) and
run serially against the CPU and the naive reference. Tests marked ``gpu`` skip only without a GPU.
"""
import ctypes
import math
import random
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from bioaccel.fold._turner_model import TurnerModel
from bioaccel.fold._turner_pf_cpu import partition as cpu_partition
from bioaccel.fold._turner_pf_params import boltzmann_tables
from bioaccel.fold._turner_tables import kernel_inputs, table_codes
from bioaccel.inputs.alphabet import encode

from naive_mccaskill import mccaskill

#: the stated bound: ln Z relative, every probability absolute
LOG_Z_TOL, P_TOL = 1e-10, 1e-9
MODELS = [TurnerModel(), TurnerModel(no_lp=True), TurnerModel(temperature=25), TurnerModel(no_gu=True)]
IDS = ["37C", "noLP", "25C", "noGU"]


def random_rnas(count, seed, longest=200):
    """Mixed lengths 0..longest: below the hairpin minimum, all unpaired, GC-rich, AU-only, with N."""
    rng = random.Random(seed)
    fixed = ["", "A", "GC", "GGGG", "GGGAC", "A" * 60, "GGGGAAACCCC", "GC" * 100, "ACGUACGUNNACGUACGUGGGAAAUCCC"]
    alphabets = ["ACGU", "GC", "AU", "ACGUN", "GGGCCCAU"]
    made = [("".join(rng.choice(alphabets[k % 5]) for _ in range(rng.randint(1, longest)))) for k in range(count)]
    return fixed + made


def cpu(seq, model):
    log_z, P = cpu_partition(encode(seq), model, want_bpp=True)
    return log_z, P


def sums(P):
    return 2.0 * float(np.sum(P * (1.0 - P))), float(np.sum(np.where(P > 0.5, 1.0 - P, P)))


# ---- the device cells on the host (g++), no GPU ------------------------------------------------------

@pytest.fixture(scope="module")
def host_pf(tmp_path_factory):
    if shutil.which("g++") is None:
        pytest.skip("no g++ on this machine")
    folder = tmp_path_factory.mktemp("pf_host")
    library = folder / "pf_host.so"
    source = Path(__file__).with_name("turner_pf_host.cpp")
    kernels = resources.files("bioaccel.fold.kernels")
    proc = subprocess.run(["g++", "-O2", "-std=c++17", "-shared", "-fPIC", "-DTURNER_HOST", f"-I{kernels}",
                           str(source), "-o", str(library)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lib = ctypes.CDLL(str(library))
    lib.pf_host.restype = ctypes.c_double

    def run(seq, model, ls):
        E, lxc, no_lp = kernel_inputs(model)
        B, kT = boltzmann_tables(model.temperature, model.no_gu)
        S = np.ascontiguousarray(table_codes(encode(seq)).astype(np.uint8))
        n = len(S)
        P = np.zeros((n, n))
        ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
        lz = lib.pf_host(ptr(np.ascontiguousarray(B)), ptr(np.ascontiguousarray(E, dtype=np.int32)), ptr(S), n,
                         int(no_lp), ctypes.c_double(ls), ctypes.c_double(kT), ctypes.c_double(lxc), ptr(P))
        return lz - n * ls, P

    run.library = lib
    return run


@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_host_build_of_the_cells_equals_the_cpu(host_pf, model):
    from bioaccel.fold._turner_pf_gpu import base_log_scale

    B, kT = boltzmann_tables(model.temperature, model.no_gu)
    for k, seq in enumerate(random_rnas(10, seed=3 + MODELS.index(model), longest=150)):
        ls = base_log_scale(model.temperature, kT) if k % 3 else random.Random(k).uniform(-2.0, 1.0)
        log_z, P = host_pf(seq, model, ls)
        want_z, want_P = cpu(seq, model)
        assert abs(log_z - want_z) <= LOG_Z_TOL * max(1.0, abs(want_z)), (seq, log_z, want_z)
        assert np.abs(P - want_P).max(initial=0.0) <= P_TOL, seq


def test_host_build_equals_the_naive_reference(host_pf):
    """Small RNAs against the plain-Python recurrences directly (every structure's loops, no tables)."""
    model = TurnerModel()
    B, kT = boltzmann_tables(37.0)
    for seq in ["GGGGAAACCCC", "GGGCUUCGGCCC", "ACGUACGUNNACGUACGUGGGAAAUCCC", "GGGAGAACUCCCAAAGGGAAGAUCCC"]:
        log_z, P = host_pf(seq, model, -0.3)
        want_z, want = mccaskill(encode(seq))
        assert abs(log_z - want_z) <= 1e-9 * max(1.0, abs(want_z))
        dense = np.zeros_like(P)
        for (i, j), p in want.items():
            dense[i, j] = p
        assert np.abs(P - dense).max() <= P_TOL


def _fake_gpu(host_library, monkeypatch):
    """A NumPy stand-in for CuPy and the kernel turner_pf emulated with the host build, item by item as
    the persistent grid takes them: the launcher's plan, rescaling, pair buffers and sort run as on the
    device."""
    from types import SimpleNamespace

    from bioaccel.fold import _turner_pf_gpu, _turner_pf_launch

    ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731

    def kernel(grid, block, args, shared_mem=0):
        (B, E, codes, starts, ids, scale, first, count, counter, tables, words, no_lp, kT, lxc, cutoff, want,
         zhat, sums, keys, probs, found, capacity) = args
        assert block[0] in (32, 64, 128, 256) and shared_mem > 0 and tables.size >= grid[0] * int(words)
        for item in range(int(count)):
            seq = int(ids[int(first) + item])
            S = np.ascontiguousarray(codes[starts[seq]:starts[seq + 1]])
            n = len(S)
            P = np.zeros((n, n))
            lz = host_library.pf_host(ptr(B), ptr(E), ptr(S), n, int(no_lp), ctypes.c_double(scale[seq]),
                                      ctypes.c_double(kT), ctypes.c_double(lxc), ptr(P))
            zhat[seq], sums[2 * seq], sums[2 * seq + 1] = lz, 0.0, 0.0
            if not abs(lz) < 500 or not want:
                continue
            sums[2 * seq:2 * seq + 2] = sums_of(P)
            for i, j in zip(*np.nonzero((P > 0) & (P >= cutoff))):
                if found[0] < capacity:
                    keys[found[0]] = (seq << 24) | (int(i) << 12) | int(j)
                    probs[found[0]] = P[i, j]
                found[0] += 1

    cuda = SimpleNamespace(Device=lambda: SimpleNamespace(id=0))
    cp = SimpleNamespace(asarray=lambda a, dtype=None: np.array(a, dtype=dtype), zeros=np.zeros, empty=np.empty,
                         concatenate=np.concatenate, argsort=np.argsort, searchsorted=np.searchsorted,
                         arange=np.arange, asnumpy=np.asarray, cuda=cuda)
    fake = SimpleNamespace(require_gpu=lambda: cp, free_memory=lambda: 1 << 30,
                           kernel=lambda package, filename, name, arguments: kernel)
    monkeypatch.setattr("bioaccel.runtime.gpu.require_gpu", fake.require_gpu)
    monkeypatch.setattr("bioaccel.runtime.gpu.free_memory", fake.free_memory)
    monkeypatch.setattr("bioaccel.runtime.gpu.multiprocessors", lambda: 4)
    monkeypatch.setattr("bioaccel.runtime.gpu.kernel", fake.kernel)
    return _turner_pf_gpu, _turner_pf_launch


def sums_of(P):
    return sums(P)


@pytest.fixture(scope="module")
def host_library(host_pf):
    return host_pf.library


@pytest.mark.parametrize("ls", [None, 3.0, -4.0])
def test_the_launcher_on_a_simulated_device(host_library, monkeypatch, ls):
    """The host side (plan, groups, a pair buffer that overflows and is redone in halves, the rescaling
    of a scale under which Z over- or underflows, the sort) with the kernel emulated by the host build."""
    module, launch = _fake_gpu(host_library, monkeypatch)
    monkeypatch.setattr(launch, "SIZES", launch.SIZES.replace(threads=32, group=5, pair_bytes=16 * 12_000))
    if ls is not None:
        monkeypatch.setattr(module, "base_log_scale", lambda temperature, kT: ls)
    seqs = random_rnas(8, seed=13, longest=90) + ["GC" * 45]
    batch = module.partition([encode(s) for s in seqs], TurnerModel())
    check_against_cpu(seqs, TurnerModel(), batch)


def test_partition_gpu_sends_the_long_ones_to_the_long_path(host_library, monkeypatch):
    """TurnerModel.partition_gpu: up to 4,000 nt in the batch (here on the simulated device), longer ones
    by the long path (here a recording stand-in), each result in its input place."""
    from bioaccel.fold import _turner_pf_long_gpu

    _fake_gpu(host_library, monkeypatch)
    sent = []

    def long_many(codes_list, model=None, *, want_bpp=True):
        sent.extend(len(c) for c in codes_list)
        return [(-1.0 * len(c), None) for c in codes_list]

    monkeypatch.setattr(_turner_pf_long_gpu, "partition_many", long_many)
    seqs = ["GGGGAAACCCC", "A" * 4001, "GGGAAAUCCC" * 3, "C" * 4500]
    got = TurnerModel().partition_gpu([encode(s) for s in seqs], True)
    assert sent == [4001, 4500] and [z for z, _ in got[1::2]] == [-4001.0, -4500.0]
    for (log_z, P), seq in zip(got[::2], seqs[::2]):
        want_z, want_P = cpu(seq, TurnerModel())
        assert abs(log_z - want_z) <= LOG_Z_TOL * max(1.0, abs(want_z)) and np.abs(P - want_P).max() <= P_TOL


# ---- the GPU -----------------------------------------------------------------------------------------

def gpu_batch(seqs, model, **keywords):
    from bioaccel.fold._turner_pf_gpu import partition

    return partition([encode(s) for s in seqs], model, **keywords)


def check_against_cpu(seqs, model, batch):
    for k, seq in enumerate(seqs):
        want_z, want_P = cpu(seq, model)
        got = float(batch.log_z[k])
        assert abs(got - want_z) <= LOG_Z_TOL * max(1.0, abs(want_z)), (seq, got, want_z)
        P = batch.dense(k, len(seq))
        assert np.abs(P - want_P).max(initial=0.0) <= P_TOL, seq
        div, dist = sums(want_P)
        assert abs(batch.diversity[k] - div) <= 1e-8 and abs(batch.centroid_distance[k] - dist) <= 1e-8


@pytest.mark.gpu
@pytest.mark.parametrize("model", MODELS, ids=IDS)
def test_gpu_equals_cpu_on_a_mixed_batch(model):
    seqs = random_rnas(40, seed=11 + MODELS.index(model))
    check_against_cpu(seqs, model, gpu_batch(seqs, model))


@pytest.mark.gpu
def test_small_launches_groups_and_pair_buffers(monkeypatch):
    """32-thread blocks, one-sequence groups and a pair buffer that overflows (redone in halves) give the
    same numbers."""
    from bioaccel.fold import _turner_pf_launch as launch

    monkeypatch.setattr(launch, "SIZES", launch.SIZES.replace(threads=32, group=5, pair_bytes=16 * 12_000,
                                                              table_bytes=6 << 20))
    seqs = random_rnas(14, seed=5, longest=120)
    check_against_cpu(seqs, TurnerModel(), gpu_batch(seqs, TurnerModel()))


@pytest.mark.gpu
@pytest.mark.parametrize("ls", [3.0, -4.0])
def test_a_scale_out_of_range_is_redone(monkeypatch, ls):
    """A first scale under which Z over- or underflows (e^+-3 per base) is corrected as on the CPU."""
    from bioaccel.fold import _turner_pf_gpu

    monkeypatch.setattr(_turner_pf_gpu, "base_log_scale", lambda temperature, kT: ls)
    seqs = ["GC" * 100, "A" * 200, random_rnas(1, seed=9, longest=200)[-1], "GGGGAAACCCC" * 18]
    check_against_cpu(seqs, TurnerModel(), gpu_batch(seqs, TurnerModel()))


@pytest.mark.gpu
def test_listed_pairs_above_a_cutoff():
    seqs = random_rnas(8, seed=21)
    batch = gpu_batch(seqs, TurnerModel(), cutoff=1e-3)
    for k, seq in enumerate(seqs):
        _, P = cpu(seq, TurnerModel())
        a, b = batch.offsets[k], batch.offsets[k + 1]
        listed = set(zip(batch.i[a:b].tolist(), batch.j[a:b].tolist()))
        sure = {(i, j) for i, j in zip(*np.nonzero(P >= 1e-3 + P_TOL))}
        maybe = {(i, j) for i, j in zip(*np.nonzero(P >= 1e-3 - P_TOL))}
        assert sure <= listed <= maybe
        assert list(zip(batch.i[a:b], batch.j[a:b])) == sorted(listed)    # by i, then j


@pytest.mark.gpu
def test_ln_z_only():
    seqs = random_rnas(6, seed=2)
    batch = gpu_batch(seqs, TurnerModel(), want_bpp=False)
    for k, seq in enumerate(seqs):
        assert math.isclose(batch.log_z[k], cpu(seq, TurnerModel())[0], rel_tol=LOG_Z_TOL, abs_tol=LOG_Z_TOL)
    assert len(batch.p) == 0


@pytest.mark.gpu
def test_ensemble_on_the_gpu_equals_the_cpu():
    from bioaccel.fold import ensemble

    seqs = random_rnas(12, seed=4, longest=150)
    for model in (TurnerModel(), TurnerModel(no_lp=True)):
        for c, g in zip(ensemble(seqs, params=model), ensemble(seqs, params=model, backend="gpu")):
            assert g.backend == "gpu"
            for name in ("structure", "energy", "centroid", "mea", "ensemble_line", "centroid_energy", "mea_energy"):
                assert getattr(g, name) == getattr(c, name), (name, c.sequence)
            for name in ("log_z", "ensemble_energy", "mfe_frequency", "ensemble_diversity", "centroid_distance",
                         "mea_accuracy"):
                assert math.isclose(getattr(g, name), getattr(c, name), rel_tol=1e-9, abs_tol=1e-9), name


@pytest.mark.gpu
def test_cli_partition_on_the_gpu(tmp_path):
    import io

    from bioaccel.cli.main import main

    seqs = random_rnas(6, seed=8, longest=120)
    fasta = tmp_path / "in.fa"
    fasta.write_text("".join(f">s{k}\n{s}\n" for k, s in enumerate(seqs)))
    out = {}
    for backend in ("cpu", "gpu"):
        bpp = tmp_path / f"{backend}.tsv"
        assert main(["fold", str(fasta), "-p", "--backend", backend, "--format", "json", "-o",
                     str(tmp_path / f"{backend}.jsonl"), "--bpp", str(bpp), "-q"], io.StringIO(), io.StringIO()) == 0
        rows = [line.split("\t") for line in bpp.read_text().splitlines()[1:]]
        out[backend] = {(r[0], int(r[1]), int(r[2])): float(r[3]) for r in rows}
    assert set(out["cpu"]) == set(out["gpu"])
    assert max(abs(out["cpu"][k] - out["gpu"][k]) for k in out["cpu"]) <= 1e-6


def test_refusals_up_front(tmp_path):
    from bioaccel.errors import InvalidParameter, ResourceError
    from bioaccel.fold._turner_pf_gpu import check_fits, check_lengths

    with pytest.raises(InvalidParameter, match="at most 4,000"):
        check_lengths([5000])
    with pytest.raises(ResourceError, match="needs about"):
        check_fits([3000], 100 << 20)
    check_fits([200] * 100_000, 80 << 30)
