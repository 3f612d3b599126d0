"""The device code of the tiled Turner fill (fold/kernels/turner_tiled.cuh and the turner_fold.cuh /
turner_energy.cuh code it shares with the batch) built for the host with g++ (``-DTURNER_HOST``) and
driven as turner_tiled.cu drives it (tests/turner_tiled_host.cpp): every table cell, the energy and the
structure equal to the CPU fill's (fold/_turner_cpu.py), under each option, with tiles of 1 to 40,
exterior chunks of 1 to 64 positions, and 1 or 4 lanes a cell. No GPU needed; skipped where there is no g++.
"""
import ctypes
import random
import shutil
import subprocess
from importlib import resources
from pathlib import Path

import numpy as np
import pytest

from bioaccel.fold._turner_gpu import hairpin_sizes
from bioaccel.fold._turner_model import TurnerModel
from bioaccel.fold._turner_tables import INFINITE, kernel_inputs, table_codes
from bioaccel.inputs.alphabet import encode

pytestmark = pytest.mark.skipif(shutil.which("g++") is None, reason="no g++ on this machine")


@pytest.fixture(scope="module")
def host_fold(tmp_path_factory):
    folder = tmp_path_factory.mktemp("tiled_host")
    kernels = resources.files("bioaccel.fold.kernels")
    library = folder / "tiled_host.so"
    source = Path(__file__).with_name("turner_tiled_host.cpp")
    proc = subprocess.run(["g++", "-O2", "-std=c++17", "-shared", "-fPIC", "-DTURNER_HOST", f"-I{kernels}",
                           str(source), "-o", str(library)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    lib = ctypes.CDLL(str(library))
    lib.tiled_fold.restype = ctypes.c_int

    def fold(seq, model, tile, chunk, lanes):
        E, lxc, no_lp = kernel_inputs(model)
        S = np.ascontiguousarray(table_codes(encode(seq)).astype(np.uint8))
        n = len(S)
        hp = hairpin_sizes(E, lxc, max(n, 1))
        tables = [np.empty((n, n), dtype=np.int32) for _ in range(3)]
        f = np.empty(n + 1, dtype=np.int32)
        pair_to = np.empty(n, dtype=np.int32)
        ptr = lambda a: a.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
        status = lib.tiled_fold(ptr(np.ascontiguousarray(E, dtype=np.int32)), ptr(hp), ptr(S), n, int(no_lp), tile,
                                chunk, lanes, *map(ptr, tables), ptr(f), ptr(pair_to))
        return status, tables, int(f[n]), pair_to.astype(np.int64)

    return fold


def _cpu_tables(seq, model):
    """The CPU's three tables, energy and structure (the fill of _turner_cpu.mfe, serial, tile 7)."""
    from bioaccel.fold._turner_fill import exterior, fill_tile
    from bioaccel.fold._turner_traceback import trace_structure

    E, lxc, no_lp = kernel_inputs(model)
    S = np.ascontiguousarray(table_codes(encode(seq)))
    n = len(S)
    tables = [np.full((n, n), INFINITE, dtype=np.int32) for _ in range(3)]
    tiles = (n + 6) // 7
    for d in range(tiles):
        for t in range(tiles - d):
            fill_tile(E, lxc, S, no_lp, *tables, t, t + d, 7)
    f = exterior(E, S, tables[0])
    return tables, int(f[n]), trace_structure(E, lxc, S, no_lp, *tables, f)


def _sequences(count, seed, longest):
    rng = random.Random(seed)
    alphabets = ["ACGU", "ACGU", "ACGUN", "GC", "AU"]
    lengths = [5, 6, 9, 33, longest] + [rng.randint(5, longest) for _ in range(count)]
    return ["".join(rng.choice(alphabets[k % 5]) for _ in range(n)) for k, n in enumerate(lengths)]


@pytest.mark.parametrize("model", [TurnerModel(), TurnerModel(no_lp=True), TurnerModel(temperature=25),
                                   TurnerModel(no_gu=True)], ids=["37C", "noLP", "25C", "noGU"])
def test_every_table_cell_energy_and_structure_equal_to_the_cpu(host_fold, model):
    for k, seq in enumerate(_sequences(10, seed=7 + int(model.temperature) + model.no_lp, longest=150)):
        tile, chunk = [1, 3, 8, 16, 40][k % 5], [1, 4, 7, 64][k % 4]
        status, tables, energy, pair_to = host_fold(seq, model, tile, chunk, [1, 4][k % 2])
        want_tables, want_energy, want_pairs = _cpu_tables(seq, model)
        assert status == 0, (model, seq)
        for name, got, want in zip(("c", "fm", "m2"), tables, want_tables):
            assert np.array_equal(got, want), (name, model, tile, seq)
        assert energy == want_energy and np.array_equal(pair_to, want_pairs), (model, tile, seq)

