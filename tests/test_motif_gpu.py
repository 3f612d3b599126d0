"""The GPU bucket kernel against the CPU enumeration (marker ``gpu``: skipped, with the reason, where
there is no CUDA device). Launch sizes are switched to the small ones of tests/conftest.py so that
small slices still cross many blocks."""
import dataclasses
import math

import numpy as np
import pytest

from bioaccel.errors import InvalidParameter
from bioaccel.motif import PSSM, Background
from bioaccel.motif import _gpu as motif_gpu
from bioaccel.motif import _launch
from bioaccel.motif._bucket import bucket_distribution, bucket_leaves_cpu, slice_grids

pytestmark = pytest.mark.gpu

SKEWED = Background.from_frequencies([0.1, 0.4, 0.3, 0.2])


def random_pssm(rng, m, background=None):
    return PSSM(rng.normal(size=(m, 4)) * 2, background=background or Background.uniform())


@pytest.mark.parametrize("small_launch", [False, True])
@pytest.mark.parametrize("background", [None, SKEWED], ids=["uniform", "skewed"])
def test_gpu_slice_tables_equal_cpu(request, small_launch, background):
    if small_launch:    # 32 threads, 3 fixed letters: a slice of 8 columns runs 2 blocks of 32 threads
        request.getfixturevalue("small_launch_sizes")
    rng = np.random.default_rng(7)
    for m, slices, buckets in [(1, 1, 7), (5, 2, 50), (12, 3, 3600), (16, 4, 1000), (24, 4, 3600), (30, 3, 257)]:
        pssm = random_pssm(rng, m, background)
        grids, _ = slice_grids(pssm, slices, buckets)
        cpu = bucket_leaves_cpu(pssm, grids)
        gpu = motif_gpu.bucket_leaves_gpu(pssm, grids)
        for c, g in zip(cpu, gpu):
            assert c.shape == g.shape
            if background is None:     # integer counts times 4**-L: bit for bit
                assert np.array_equal(c, g)
            else:
                np.testing.assert_allclose(g, c, rtol=1e-12, atol=1e-300)


def test_gpu_distribution_and_threshold_equal_cpu():
    rng = np.random.default_rng(8)
    pssm = random_pssm(rng, 28)
    cpu = bucket_distribution(pssm, slices=4, buckets=3600, backend="cpu")
    gpu = bucket_distribution(pssm, slices=4, buckets=3600, backend="gpu")
    assert np.array_equal(cpu.mass, gpu.mass)
    assert dataclasses.replace(cpu.threshold(1e-4), backend="gpu") == gpu.threshold(1e-4)


@pytest.mark.parametrize("order", [1, 2])
@pytest.mark.parametrize("small_launch", [False, True])
def test_gpu_markov_tables_equal_cpu(request, monkeypatch, order, small_launch):
    if small_launch:    # three inner letters, less the order: the Markov kernel's shared-memory loop runs
        small = request.getfixturevalue("small_launch_sizes").motif
        monkeypatch.setattr(_launch, "SIZES", small.replace(inner_letters=3))
    rng = np.random.default_rng(20 + order)
    bg = Background.markov(rng.dirichlet(np.ones(4 ** order)), rng.dirichlet(np.ones(4), size=4 ** order))
    for m, slices, buckets in [(order, 1, 9), (5, 2, 50), (12, 3, 3600), (22, 2, 700), (26, 4, 3600)]:
        pssm = random_pssm(rng, m, bg)
        grids, _ = slice_grids(pssm, slices, buckets)
        cpu = bucket_leaves_cpu(pssm, grids)
        gpu = motif_gpu.bucket_leaves_gpu(pssm, grids)
        for c, g in zip(cpu, gpu):
            assert c.shape == g.shape
            np.testing.assert_allclose(g, c, rtol=1e-11, atol=1e-300)
    dist_cpu = bucket_distribution(pssm, slices=4, backend="cpu")
    dist_gpu = bucket_distribution(pssm, slices=4, backend="gpu")
    np.testing.assert_allclose(dist_gpu.mass, dist_cpu.mass, rtol=1e-9, atol=1e-300)


def test_gpu_refuses_markov_order_three():
    rng = np.random.default_rng(1)
    bg = Background.markov(rng.dirichlet(np.ones(64)), rng.dirichlet(np.ones(4), size=64))
    with pytest.raises(InvalidParameter, match="order 3"):
        bucket_distribution(random_pssm(rng, 8, bg), slices=2, backend="gpu")


def test_gpu_length_65_four_slices():
    """Giraud & Varré's largest case: 65 columns in 4 slices (4**17 words in the longest). How fast it
    runs is bench/pvalue.py's business, not a unit test's."""
    rng = np.random.default_rng(65)
    pssm = PSSM.from_counts(rng.dirichlet(np.full(4, 0.5), size=65) * 20.0)
    dist = bucket_distribution(pssm, slices=4, buckets=3600, backend="gpu")
    assert math.isfinite(dist.threshold(1e-4).score)
    assert abs(dist.mass.sum() - 1.0) < 1e-9
