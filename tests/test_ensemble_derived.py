"""What follows from the base-pair probabilities (src/bioaccel/fold/_ensemble_derived.py and its Numba
kernels) equals, bit for bit, the plain NumPy/Python code it replaced (tests/naive_ensemble_derived.py):
on random probability matrices (ties included: few distinct values), on real ones (the Turner ensemble
of random RNAs), in many blocks of rows, and on P that is not C-contiguous float64."""
import random

import numpy as np
import pytest

import naive_ensemble_derived as naive
from bioaccel.fold import _ensemble_derived as derived
from bioaccel.fold._turner_pf_cpu import partition
from bioaccel.inputs.alphabet import encode


def random_P(n, rng, *, levels=None, density=0.3, near=False):
    """A random upper-triangular P whose rows + columns sum to at most 1 (a probability matrix's
    shape): levels, if given, draws values from a few (ties); near puts pairs with j = i + 1 too."""
    P = np.zeros((n, n))
    for i in range(n):
        for j in range(i + (1 if near else 4), n):
            if rng.random() < density:
                P[i, j] = rng.choice(levels) if levels else rng.random() ** 3
    total = P.sum(axis=0) + P.sum(axis=1)              # each base's pairs sum to at most 1
    P = P / max(1.0, float(total.max(initial=0.0)))
    if levels is not None:
        P = np.floor(P * 64) / 64                        # coarse values: many equal sums
    return np.triu(P, 1)


def real_P(n, seed):
    rng = random.Random(seed)
    seq = "".join(rng.choice("ACGU") for _ in range(n))
    return partition(encode(seq), None, want_bpp=True)[1]


def same_everything(P, P_mea=None):
    assert derived.ensemble_diversity(P) == naive.ensemble_diversity(P)
    (c, d), (c0, d0) = derived.centroid(P), naive.centroid(P)
    assert np.array_equal(c, c0) and d == d0
    (m, v), (m0, v0) = derived.mea(P), naive.mea(P if P_mea is None else P_mea)
    assert np.array_equal(m, m0) and v == v0
    assert derived.pseudo_bracket(P) == naive.pseudo_bracket(P)


@pytest.mark.parametrize("seed", range(12))
def test_random_matrices(seed):
    rng = random.Random(seed)
    n = rng.choice([0, 1, 2, 3, 5, 9, 17, 30, 47, 64])
    levels = [0.05, 0.1, 0.2, 0.25, 0.5] if seed % 3 == 0 else None
    same_everything(random_P(n, rng, levels=levels, density=rng.choice([0.05, 0.3, 0.8]), near=seed % 2 == 1))


@pytest.mark.parametrize("seed", range(6))
def test_ties(seed):
    """Matrices of few values, with many structures of equal expected accuracy: the same one is traced."""
    rng = random.Random(100 + seed)
    n = rng.randint(8, 40)
    P = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            if rng.random() < 0.5:
                P[i, j] = rng.choice([0.125, 0.25, 0.375])
    total = P.sum(axis=0) + P.sum(axis=1)
    P = P / (2 ** np.ceil(np.log2(max(1.0, float(total.max())))))     # exact: a power of two
    m, v = derived.mea(P)
    m0, v0 = naive.mea(P)
    assert np.array_equal(m, m0) and v == v0


@pytest.mark.parametrize("n,seed", [(60, 1), (120, 2), (200, 3)])
def test_real_matrices(n, seed):
    same_everything(real_P(n, seed))


def test_many_blocks_and_gamma(monkeypatch):
    """Blocks of a few rows give the same sums (rows pairwise, columns one row at a time) and pairs."""
    P = real_P(150, 7)
    monkeypatch.setattr(derived, "BLOCK_VALUES", 3 * 150 + 7)
    same_everything(P)
    for gamma in (0.5, 2.0):
        (m, v), (m0, v0) = derived.mea(P, gamma), naive.mea(P, gamma)
        assert np.array_equal(m, m0) and v == v0


def test_unpaired_probabilities_large():
    """pu as NumPy sums it over all of P, at a size where the rows' pairwise trees have many levels."""
    rng = np.random.default_rng(3)
    n = 1500
    P = np.triu(rng.random((n, n)) ** 12 / 40, 1)
    pu = derived.candidate_pairs(P)[0]
    listed = np.where(P > 1e-4 / 2, P, 0.0)
    assert np.array_equal(pu, 1.0 - listed.sum(axis=0) - listed.sum(axis=1))
    assert derived.ensemble_diversity(P) == naive.ensemble_diversity(P)
    P[rng.integers(0, n, 50), rng.integers(0, n, 50)] = 0.75          # a few above 0.5, anywhere
    (c, d), (c0, d0) = derived.centroid(P), naive.centroid(P)
    assert np.array_equal(c, c0) and d == d0
    assert derived.pseudo_bracket(P) == naive.pseudo_bracket(P)


def test_not_contiguous_or_float32():
    P = real_P(80, 4)
    wider = np.zeros((83, 83))
    wider[:80, :80] = P
    for Q in (np.asfortranarray(P), wider[:80, :80]):
        same_everything(Q)
    P32 = P.astype(np.float32)
    same_everything(P32, P32.astype(np.float64))          # the MEA converts to float64 first


def test_candidate_pairs_csr():
    """Candidate pairs grouped by 3' end, 5' ends ascending, each with 2 gamma p."""
    P = real_P(100, 9)
    pu, indptr, ks, js, wa = derived.candidate_pairs(P)
    assert indptr[0] == 0 and indptr[-1] == ks.shape[0] and np.all(np.diff(indptr) >= 0)
    for j in range(100):
        k = ks[indptr[j]:indptr[j + 1]]
        assert np.all(np.diff(k) > 0) and np.all(js[indptr[j]:indptr[j + 1]] == j)
        assert np.array_equal(wa[indptr[j]:indptr[j + 1]], 2 * P[k, j])
        assert np.all(2 * P[k, j] > pu[k] + pu[j])


def test_scans_agree(monkeypatch):
    """The one-pass Numba scan and the NumPy blocks (run for P that is not C-contiguous) find the same
    sums and pairs on the same P, blocks of a few rows included."""
    P = real_P(90, 11)
    monkeypatch.setattr(derived, "BLOCK_VALUES", 7 * 90)
    for a, b in zip(derived.scan_candidates(P, 1e-4 / 1.7), derived._scan_blocks(P, 1e-4 / 1.7)):
        assert np.array_equal(a, b)


@pytest.mark.parametrize("n", [1, 3, 12, 40, 301])
def test_sums_with_many_values_above_half(n):
    """NumPy's pairwise tree replayed while leaving out many values above 0.5 (runs of them, the first
    and the last entry too), and over p (1 - p) of all."""
    rng = np.random.default_rng(n)
    P = rng.random((n, n)) ** 3
    P[0, 0] = P[-1, -1] = 0.9
    P[n // 2, :] = 0.7
    assert derived.pairwise_sum(P, np.flatnonzero(P > 0.5)) == np.sum(P[~(P > 0.5)])
    assert derived.pairwise_sum(P) == np.sum(P * (1.0 - P))
    (c, d), (c0, d0) = derived.centroid(P), naive.centroid(P)
    assert np.array_equal(c, c0) and d == d0


@pytest.mark.slow
def test_real_matrix_long():
    same_everything(real_P(1200, 5))
