"""The windowed BPPart cross products' bench bounds for form D (v35, docs/bppart-gpu-notes.md): ``band_cross_skip_open``
1 skips QIa's query splits whose left interval cannot close (FORM bit 18), 2 walks them with their copies zero-filled
from no memory (bit 19). Neither computes the production's products (they are a bench's bounds on what form D could
give); what is tested is their walk: with every split marked closing, each is the production to the last bit (and the
CPU's numbers); with the query's own marks the two are the same numbers to the last bit (an open split's products
zeros, c + 0 = c), and only lose terms (log Z no larger than the production's). The kernels the host picks (pure
Python). Marker ``gpu`` on the GPU tests."""
import math
import random

import numpy as np
import pytest

from test_bppart_gpu_windows import _form_same_bits_and_cpu, _gpu, random_rna  # noqa: F401


def test_v35_bounds_pick_their_kernels():
    """``band_cross_skip_open`` 1 and 2 add FORM bits 18 and 19 to the production's runs' kernel; 0 is the production;
    without the cursor (``band_cross_hoist`` 0) nothing changes."""
    from bioaccel.interact._partition_band_sizes import band_cross_kernel
    from bioaccel.interact._partition_launch import SIZES

    assert SIZES.band_cross_skip_open == 0
    base = SIZES.replace(band_cross_copy16=0)       # (v37c's pairs, the default since, are not taken with the bounds)
    name, arguments, threads = band_cross_kernel(base)
    for skip, bit in ((1, 262144), (2, 524288)):
        got = band_cross_kernel(base.replace(band_cross_skip_open=skip))
        assert got == (name, arguments[:9] + (arguments[9] | bit,) + arguments[10:], threads)
        before = SIZES.replace(band_cross_hoist=0)
        assert band_cross_kernel(before.replace(band_cross_skip_open=skip)) == band_cross_kernel(before)


def test_v35_closing_words_mark_the_closing_intervals():
    """Bit o of start x: [x, x + o + 1) has at least 5 bases and end bases that pair (v32's can_close)."""
    from bioaccel.interact._partition_band_tables import _closing_words

    rng = random.Random(50)
    w = np.zeros((5, 5))
    for x, y in ((0, 3), (3, 0), (1, 2), (2, 1), (2, 3), (3, 2)):
        w[x, y] = 1.0
    a = np.array([rng.randrange(4) for _ in range(23)])
    words = _closing_words(a, w).view(np.uint32)
    for x in range(23):
        for o in range(23 - x):
            assert bool(words[x] >> o & 1) == (o + 1 >= 5 and w[a[x], a[x + o]] > 0), (x, o)


@pytest.fixture
def every_split_closes(monkeypatch):
    """Every query split marked closing: the bounds' walks are then the production's."""
    from bioaccel.interact import _partition_band_tables

    monkeypatch.setattr(_partition_band_tables, "_closing_words", lambda a, weights: np.full(len(a), -1, np.int32))


@pytest.mark.gpu
@pytest.mark.parametrize("skip", [1, 2])
def test_gpu_windows_v35_bounds_with_every_split_closing_same_bits(monkeypatch, every_split_closes, skip):
    """With every split closing, the skipped walk (the cursor over each run's closing splits) and the walk without
    open splits' copies are the production: the CPU's numbers at 23 x 300 and 23 x 140, and its bits at 23 x 700."""
    _form_same_bits_and_cpu(monkeypatch, dict(band_cross_skip_open=skip), {})


@pytest.mark.gpu
def test_gpu_windows_v35_skipped_open_splits_only_lose_terms(monkeypatch):
    """With the query's own marks, skipping QIa's open splits drops nonnegative terms: log Z finite and no larger than
    the production's (a bound, not the production's numbers); their zero-filled copies give the same bits."""
    from bioaccel.interact import PartitionParams, _partition_launch

    rng = random.Random(35)
    q, t = random_rna(rng, 23), random_rna(rng, 700)
    params = PartitionParams(window_target=128)
    base = _partition_launch.SIZES
    (production,) = _gpu(q, [t], params)
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_cross_skip_open=1))
    (skipped,) = _gpu(q, [t], params)
    assert math.isfinite(skipped.log_z) and skipped.log_z <= production.log_z + 1e-12
    monkeypatch.setattr(_partition_launch, "SIZES", base.replace(band_cross_skip_open=2))
    (zeros,) = _gpu(q, [t], params)
    assert zeros.log_z == skipped.log_z and np.array_equal(zeros.probabilities, skipped.probabilities)
