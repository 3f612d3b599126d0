"""McCaskill's partition function of the Turner 2004 model against ViennaRNA's RNAfold -p (the oracle)
and the plain-Python reference: ln Z and every base-pair probability, at 37 C, -T 25 and 50, --noLP,
--noGU, with N, special hairpins and small interior loops; scaled arithmetic equal to plain; the
parallel fill equal to the serial."""
import math
import random

import numpy as np
import pytest

from bioaccel.fold._turner_pf_cpu import partition
from bioaccel.fold._turner_pf_params import kt_cal
from bioaccel.inputs.alphabet import encode

from naive_mccaskill import mccaskill
from naive_turner import MODELS

import RNA  # noqa: E402  (ViennaRNA, a [test] extra: the reference of the Turner model)

#: ln Z to 1e-9 (ensemble energy ~ 6e-10 kcal/mol; measured ~1e-13), probabilities to 1e-9 (asked: 1e-6)
LOG_Z_TOL, P_TOL = 1e-9, 1e-9
SPECIAL = [
    "GGGCUUCGGCCC",                          # tetraloop cUUCGg
    "CAACGGAAAAAAAAA", "ACAGUGCUCGCAAAAAA",    # tetraloop at an end; hexaloop ACAGUGCU... listed
    "GGGGACGCAAGUCCCC", "CGGAGGGGAAACCCCUCCG",
    "GGGACUUCGGUCCCAAAGGGACAUCGUCCC",         # 1x1 and 1x2 loops in helices
    "GGGAGAACUCCCAAAGGGAAGAUCCC", "GGGCGAAGCCUUCGGGCUUCGGCCC",  # 2x2, 2x3
    "ACGUACGUNNACGUACGUGGGAAAUCCC", "NNNNNNNNNN", "GUGUGUGUACACACAC",
    "GCGGAUUUAGCUCAGUUGGGAGAGCGCCAGACUGAAGAUCUGGAGGUCCUGUGUUCGAUCCACAGAAUUCGCACCA",  # tRNA-Phe
]


def vienna(sequence, model, want_bpp=True):
    md = RNA.md()
    md.temperature = model.temperature
    md.noLP = int(model.no_lp)
    md.noGU = int(model.no_gu)
    fc = RNA.fold_compound(sequence, md)
    fc.pf()
    log_z = -math.log(fc.pr_structure("." * len(sequence)))   # 1 / Z in double precision
    P = np.array(fc.bpp())[1:, 1:] if want_bpp else None
    return log_z, P


def random_rna(rng, n, alphabet="ACGU"):
    return "".join(rng.choice(alphabet) for _ in range(n))


def check(sequence, model, **kw):
    ref_z, ref_p = vienna(sequence, model)
    log_z, P = partition(encode(sequence), model, want_bpp=True, **kw)
    assert abs(log_z - ref_z) <= LOG_Z_TOL, (sequence, log_z, ref_z)
    if len(sequence) >= 5:
        assert np.abs(P - ref_p).max() <= P_TOL, sequence
    return log_z, P


@pytest.mark.parametrize("name", MODELS)
def test_random_rnas_equal_vienna(name):
    rng = random.Random(hash(name) % 1000)
    lengths = [1, 2, 5, 8, 13, 21, 34, 55, 89, 140]
    for n in lengths:
        for alphabet in ("ACGU", "ACGUN", "GC"):
            check(random_rna(rng, n, alphabet), MODELS[name])


@pytest.mark.parametrize("sequence", SPECIAL)
def test_special_loops_equal_vienna(sequence):
    for model in MODELS.values():
        check(sequence, model)


def test_ensemble_energy_units():
    log_z, _ = partition(encode("GGGGAAACCCC"), None, want_bpp=False)
    assert abs(-log_z * kt_cal(37.0) / 1000 - RNA.fold_compound("GGGGAAACCCC").pf()[1]) < 1e-5


@pytest.mark.parametrize("name", ["default", "noLP", "25C"])
def test_naive_reference_equal(name):
    rng = random.Random(7)
    model = MODELS[name]
    for n in (0, 4, 9, 17, 26, 33):
        seq = random_rna(rng, n, "ACGU" if n % 2 else "GCAU")
        ref_z, ref_p = mccaskill(encode(seq), model.temperature, model.no_lp, model.no_gu)
        log_z, P = partition(encode(seq), model, want_bpp=True)
        assert abs(log_z - ref_z) < 1e-10
        dense = np.zeros((n, n))
        for (i, j), p in ref_p.items():
            dense[i, j] = p
        assert n == 0 or np.abs(P - dense).max() < 1e-10


def test_scaled_equal_plain():
    """Forced per-base scales (random, 1e-3 .. 1e3 each) change nothing but rounding."""
    rng = random.Random(3)
    nrng = np.random.default_rng(3)
    for n in (6, 30, 120):
        seq = random_rna(rng, n)
        plain = partition(encode(seq), None, log_scale=np.zeros(n))
        for log_scale in (nrng.uniform(-7, 7, n), np.full(n, -3.0), np.full(n, 2.5)):
            log_z, P = partition(encode(seq), None, log_scale=log_scale)
            assert abs(log_z - plain[0]) < 1e-9
            assert np.abs(P - plain[1]).max() < 1e-12


@pytest.mark.parametrize("tile", [1, 7, 64, 1000])
def test_tiled_parallel_equal_serial(tile):
    rng = random.Random(4)
    for n in (9, 150):
        seq = random_rna(rng, n)
        a = partition(encode(seq), MODELS["noLP"], parallel=False)
        b = partition(encode(seq), MODELS["noLP"], parallel=True, tile=tile)
        assert abs(a[0] - b[0]) < 1e-12 and np.abs(a[1] - b[1]).max() < 1e-14


def test_probabilities_are_probabilities():
    rng = random.Random(5)
    _, P = partition(encode(random_rna(rng, 200)), None)
    assert P.min() >= 0 and (P.sum(axis=0) + P.sum(axis=1)).max() <= 1 + 1e-12
    assert np.all(np.tril(P) == 0)


@pytest.mark.slow
@pytest.mark.parametrize("n", [250, 400])
def test_long_random_rnas_equal_vienna(n):
    rng = random.Random(n)
    for name in ("default", "noLP", "50C"):
        check(random_rna(rng, n), MODELS[name])


@pytest.mark.slow
def test_long_sequence_does_not_overflow():
    """5,000 GC-rich bases: ViennaRNA's scale from its -0.185 kcal/mol-per-base guess would overflow
    doubles; the scale is corrected and ln Z is finite."""
    rng = random.Random(6)
    seq = random_rna(rng, 3000, "GGCCA")
    log_z, _ = partition(encode(seq), None, want_bpp=False)
    assert math.isfinite(log_z) and log_z > 0
