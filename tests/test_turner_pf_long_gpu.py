"""The partition function of one long RNA on the GPU (fold/_turner_pf_long_gpu.py, kernels/turner_pf_long.cu):
ln Z within 1e-10 (relative) and every base-pair probability within 1e-9 of the CPU's
(:func:`bioaccel.fold._turner_pf_cpu.partition`) on random and GC-rich RNAs of 300 to 2,000 nt, with
production tiles and with small ones (many tile-diagonals), per-base scales forced on both, the rescue of a
scale that overflows, the model's options, and ``ensemble(..., backend="gpu")``.

The first tests need no GPU: the kernels' recurrences as tests/naive_pf_long.py writes them (the same
tables, tile order and split of each sum between product and finish) equal the plain-Python McCaskill
(tests/naive_mccaskill.py). The GPU tests are marked ``gpu``: skipped, with the reason, where there is no
CUDA device.
"""
import math
import random

import numpy as np
import pytest

from bioaccel.errors import ResourceError
from bioaccel.fold import _turner_pf_long_gpu as long_gpu
from bioaccel.fold._turner_model import TurnerModel
from bioaccel.fold._turner_pf_cpu import partition as cpu_partition
from bioaccel.inputs.alphabet import encode
from naive_mccaskill import mccaskill
from naive_pf_long import tiled_partition

LOG_Z_RELATIVE, P_ABSOLUTE = 1e-10, 1e-9


def _rna(n, seed, letters="ACGU"):
    rng = random.Random(seed)
    return "".join(rng.choice(letters) for _ in range(n))


@pytest.mark.parametrize("n, tile, no_lp, scaled", [(30, 8, False, False), (45, 8, False, True), (40, 16, True, False)])
def test_kernel_recurrences_equal_mccaskill(n, tile, no_lp, scaled):
    """The kernels' recurrences (S and its adjoint OS, the products' k ranges and the finishes' rest),
    modelled in plain Python, give McCaskill's ln Z and probabilities."""
    codes = encode(_rna(n, n, "GGCCAU"))
    log_scale = np.random.default_rng(n).uniform(-2, 2, n) if scaled else None
    log_z, P = tiled_partition(codes, tile=tile, log_scale=log_scale, no_lp=no_lp)
    ref_z, ref_P = mccaskill(codes, no_lp=no_lp)
    assert abs(log_z - ref_z) <= 1e-12 * abs(ref_z)
    for i in range(n):
        for j in range(i + 1, n):
            assert abs(P[i, j] - ref_P.get((i, j), 0.0)) < 1e-12, (i, j)


def test_refused_up_front_when_it_will_not_fit():
    with pytest.raises(ResourceError, match="length 40,000 on the GPU needs about 59.7 GiB"):
        long_gpu.check_fits(40_000, 40 << 30)


def _compare(codes, model=None, log_scale=None, **kwargs):
    """GPU against CPU: ln Z and every probability; returns the GPU's phases."""
    phases = {}
    log_z, P = long_gpu.partition(codes, model, log_scale=log_scale, phases=phases, **kwargs)
    ref_z, ref_P = cpu_partition(codes, model, log_scale=log_scale, parallel=False)
    assert abs(log_z - ref_z) <= LOG_Z_RELATIVE * abs(ref_z), (log_z, ref_z)
    assert P.shape == ref_P.shape
    err = float(np.max(np.abs(P - ref_P)))
    assert err <= P_ABSOLUTE, err
    assert float((P.sum(axis=0) + P.sum(axis=1)).max()) <= 1.0 + 1e-9       # each base paired at most once
    return phases


@pytest.mark.gpu
@pytest.mark.parametrize("n, letters, seed", [(300, "ACGU", 1), (777, "ACGU", 2), (1_000, "GGGCCCAU", 3),
                                              (2_000, "GGCCAU", 4)])
def test_gpu_equals_cpu(n, letters, seed):
    """Random and GC-rich RNAs, production tiles (the default scale from the GPU MFE)."""
    _compare(encode(_rna(n, seed, letters)))


@pytest.mark.gpu
def test_small_tiles_equal_cpu(monkeypatch):
    """16 x 16 tiles: 300 nt crosses 19 tile-diagonals, products over many finished tiles."""
    from host_kernels import TEST_PF_LONG

    monkeypatch.setattr(long_gpu, "SIZES", TEST_PF_LONG)
    _compare(encode(_rna(300, 5, "GGCCAU")), TurnerModel(no_lp=True))
    _compare(encode(_rna(333, 6)), TurnerModel(temperature=50))


@pytest.mark.gpu
def test_forced_scales_equal_cpu():
    """Random per-base scales (e^-3 .. e^3 each), the same on both: the unscaled numbers agree."""
    codes = encode(_rna(400, 7))
    log_scale = np.random.default_rng(7).uniform(-3, 3, 400)
    phases = _compare(codes, log_scale=log_scale)
    assert phases["fills"] == 1


@pytest.mark.gpu
def test_rescue_of_a_scale_out_of_range():
    """A start far off (the scaled Z overflows, then lies far from 1) is corrected by refills."""
    codes = encode(_rna(600, 8, "GGGCCCAU"))
    for estimate in (50_000.0, -500_000.0):
        phases = _compare(codes, estimate=estimate)
        assert phases["fills"] > 1


@pytest.mark.gpu
def test_ensemble_on_the_gpu():
    from bioaccel.fold import ensemble

    sequence = _rna(500, 9)
    gpu, cpu = ensemble([sequence], backend="gpu")[0], ensemble([sequence])[0]
    assert gpu.backend == "gpu"
    assert math.isclose(gpu.log_z, cpu.log_z, rel_tol=1e-10)
    assert (gpu.structure, gpu.energy, gpu.centroid, gpu.mea) == (cpu.structure, cpu.energy, cpu.centroid, cpu.mea)
    assert float(np.max(np.abs(gpu.bpp - cpu.bpp))) <= P_ABSOLUTE
