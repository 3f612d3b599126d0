"""The windowed BPPart sweep's last tile diagonal by a warp a tile (v22, ``band_last``: bppart_band_last) where its
tiles hold one band cell each (L2 = d B - (B - 1): target windows of 16, 32, 48 and 128 bases at 16-tiles): against the
CPU on random pairs with small launches and NaN-filled fresh tables, and at the production sizes and window 128 against
the CPU and equal to the production's (the whole tile by bppart_band_tiles) to the last bit, launches of several
lengths, after the far part by m16n8k16 (the production's) or m8n8k4. Each test checks that the new kernel ran.
Marker ``gpu``."""
import random

import pytest

from test_bppart_gpu_windows import (WEIGHTS, _cpu, _form_same_bits_and_cpu, _gpu, _same_windows,  # noqa: F401
                                     poisoned_tables, random_rna)
from bioaccel.interact import PartitionParams

pytestmark = pytest.mark.gpu


@pytest.fixture
def launched(monkeypatch):
    """The names of the sweep's kernels launched during the test (a list that fills as they are built)."""
    from bioaccel.interact import _partition_band_tables

    names, kernel = [], _partition_band_tables._kernel

    def recording(name, *arguments):
        names.append(name)
        return kernel(name, *arguments)

    monkeypatch.setattr(_partition_band_tables, "_kernel", recording)
    return names


@pytest.mark.parametrize("au, gu, bases, pipe, shape", [
    (*WEIGHTS[0], 40, 3, 3),       # pieces of 40 bases (window 16 only: the others need longer launches), m16n8k16
    (*WEIGHTS[1], 0, 3, 3),        # whole targets a launch
    (*WEIGHTS[0], 0, 2, 0),        # after a ring of 2, the far part by m8n8k4
])
def test_gpu_windows_v22_last_diagonal_equal_cpu(small_launch_sizes, monkeypatch, launched, au, gu, bases, pipe, shape):
    """The last tile diagonal by bppart_band_last (16-tiles, the split sweep in launches): the CPU's numbers, target
    windows of 16, 32 and 48 bases (one band cell a tile of the last diagonal), with and without a query window."""
    from bioaccel.interact import _partition_launch

    sizes = small_launch_sizes.bppart.replace(band_sweep="launches", band_split=True, band_tile=16, band_tile_blocks=4,
                                              band_lanes=True, band_trim=True, band_pipe=pipe, band_far=2,
                                              band_warp=True, band_far_shape=shape, band_bases=bases, band_last=True)
    monkeypatch.setattr(_partition_launch, "SIZES", sizes)
    rng = random.Random(int(au * 10 + gu * 100) + bases)
    for wq, wt in ((None, 16), (3, 32), (None, 48))[:1 if bases else 3]:
        params = PartitionParams(au=au, gu=gu, window_query=wq, window_target=wt)
        targets = [random_rna(rng, n) for n in (150, 9, rng.randint(2, 60), 41, rng.randint(60, 200))]
        for q in (random_rna(rng, rng.randint(1, 12)), random_rna(rng, 12)):
            for t, got in zip(targets, _gpu(q, targets, params)):
                _same_windows(got, _cpu(q, t, params))
    assert "bppart_band_last" in launched


@pytest.mark.parametrize("variant, reference", [
    (dict(band_last=True), dict(band_last=False)),                                  # the production's far part
    (dict(band_last=True, band_far_shape=0), dict(band_far_shape=0)),               # after m8n8k4
    (dict(band_last=True, band_streams=1, band_bases=333), dict(band_last=False)),  # launches of other lengths
])
def test_gpu_windows_v22_last_diagonal_same_bits_and_cpu(monkeypatch, launched, variant, reference):
    """The production with the last tile diagonal by a warp a tile (``band_last``): 23 x 300 and 23 x 140 nt against the
    CPU, and 23 x 700 after 333 nt equal to the whole tile's (bppart_band_tiles) to the last bit."""
    _form_same_bits_and_cpu(monkeypatch, variant, reference)
    assert "bppart_band_last" in launched
