"""The windowed BPPart fill with v25's defaults for the outer terms (``band_align`` 16: a launch's matrices aligned;
``band_outer_pair`` 2: the levels in pairs with R's sums in the other order): at the production sizes and window 128
against the CPU (23 x 300 and 23 x 140 nt; alone, in pieces, on one stream), and the unaligned matrices equal to the
aligned to the last bit. (v25's other form, the cross products' steps chunk by chunk, lost and was reverted:
docs/bppart-gpu-notes.md.) Marker ``gpu``."""
import random

import pytest

from test_bppart_gpu_windows import PartitionParams, _cpu, _form_same_bits_and_cpu, _gpu, _same_windows, random_rna

pytestmark = pytest.mark.gpu


@pytest.mark.parametrize("variant", [{}, dict(band_bases=333), dict(band_streams=1, band_bases=400)])
def test_gpu_windows_v25_outer_defaults_equal_cpu(monkeypatch, variant):
    """23 x 300 and 23 x 140 nt at --window-target 128 with the production sizes (v25's outer terms), alone, in pieces
    of 333 bases and on one stream in pieces of 400: the CPU's numbers to 1e-12."""
    from bioaccel.interact import _partition_launch

    monkeypatch.setattr(_partition_launch, "SIZES", _partition_launch.SIZES.replace(**variant))
    rng = random.Random(7)
    q, targets = random_rna(rng, 23), [random_rna(rng, 300), random_rna(rng, 140)]
    params = PartitionParams(window_target=128)
    for t, got in zip(targets, _gpu(q, targets, params)):
        _same_windows(got, _cpu(q, t, params))


def test_gpu_windows_v25_unaligned_same_bits_and_cpu(monkeypatch):
    """The production with unaligned matrices (``band_align`` 0) and R's sums in the production's order: against the
    CPU, and 23 x 700 after 333 nt equal to the aligned production's to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, dict(band_align=0), {})
