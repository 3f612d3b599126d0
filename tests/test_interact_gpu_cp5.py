"""BPMax on the GPU, pairs_copy 1 (issue 29, helper bpmaxcp5): the products' paired copy of each level written by the
finish's segment store (kernels/bpmax.cu, bpmax_finish_roles<G, FORM, true>: segment_pairs) in place of the copy
kernel bpmax_pair_rows. The paired copy itself equals the copy kernel's word for word (every pair row, sentinels and
border slots included), the device tables equal pairs_copy 0's on the production band, on short windows and across
streamed pieces, and the window scores equal the CPU's.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import random
from dataclasses import replace

import numpy as np
import pytest

from bioaccel.interact import InteractParams, _gpu
from bioaccel.interact._gpu_launch import BPMaxSizes
from bioaccel.interact._gpu_paired import Paired
from bioaccel.interact._strands import strand_band
from test_interact_gpu import _equal_tiled_cell_by_cell, _same_tables_and_cpu, random_rna_codes

pytestmark = pytest.mark.gpu


def _paired_tables(monkeypatch, ca, rbs, params, change):
    """The paired copies (host arrays, one a launch) that window_scores with BPMaxSizes(**change) wrote."""
    made = []

    class Recorded(Paired):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            made.append(self)
    monkeypatch.setattr(_gpu, "Paired", Recorded)
    _gpu.window_scores(ca, strand_band(ca, params.fold_params, len(ca)), rbs, params, sizes=BPMaxSizes(**change))
    return [(p.by_finish, p.table.get()) for p in made]


def _same_paired_copy(monkeypatch, ca, rbs, params, change):
    """pairs_copy 1 with ``change`` writes the copy kernel's paired copy, word for word, by the finish."""
    old = _paired_tables(monkeypatch, ca, rbs, params, dict(change, pairs_copy=0))
    new = _paired_tables(monkeypatch, ca, rbs, params, dict(change, pairs_copy=1))
    assert len(old) == len(new) >= 1
    for (by0, t0), (by1, t1) in zip(old, new):
        assert not by0 and by1
        assert np.array_equal(t0, t1)


def test_finish_paired_copy_equals_the_copy_kernels(monkeypatch):
    """8 x 1,400 and 333 nt (window 128, the production band; finish forms 6 and 5, 8 and 4 diagonals, segments of
    the default rows, of 64 and of 33: pair rows straddling segments at even and odd rows), and windows of 5, 17 and
    40 nt against 700 and 95 nt (odd and even targets: row N in a pair row's low or high half), whole and as streamed
    pieces of 300 nt: the finish's paired copy is the copy kernel's, every word."""
    rng = random.Random(51)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    params = InteractParams(window_target=128)
    for change in (dict(), dict(finish_form=5), dict(finish_diagonals=4), dict(segment_rows=64),
                   dict(segment_rows=33)):
        _same_paired_copy(monkeypatch, ca, rbs, params, change)
    for window in (5, 17, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_paired_copy(monkeypatch, ca, rbs, params, dict())
        _same_paired_copy(monkeypatch, ca, rbs, params, dict(piece=300))


def test_finish_paired_copy_tables_equal_the_copy_kernels_and_cpu():
    """The device tables (every cell of F and S2) and window scores of pairs_copy 1 equal pairs_copy 0's and the
    CPU's: the production band (8 x 1,400 and 333 nt, window 128) and windows of 5 and 40 nt, whole and streamed."""
    rng = random.Random(52)
    ca = np.ascontiguousarray(random_rna_codes(rng, 8))
    rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (1400, 333)]
    _same_tables_and_cpu(ca, rbs, InteractParams(window_target=128), (dict(pairs_copy=0), dict(pairs_copy=1)))
    for window in (5, 40):
        params = InteractParams(window_target=window)
        ca = np.ascontiguousarray(random_rna_codes(rng, 10))
        rbs = [np.ascontiguousarray(random_rna_codes(rng, n)) for n in (700, 95)]
        _same_tables_and_cpu(ca, rbs, params, (dict(pairs_copy=0), dict(pairs_copy=1)))
        _same_tables_and_cpu(ca, rbs, params, (dict(pairs_copy=0, piece=300), dict(pairs_copy=1, piece=300)))


def test_finish_paired_copy_equals_tiled_cell_by_cell_on_random_pairs(small_launch_sizes):
    """pairs_copy 1 at the production sizes and at the tests' small tiles, cell by cell against the CPU."""
    small = replace(small_launch_sizes.bpmax, split_pairs=True, products_parts=2, pairs_step=2, pairs_stage=4)
    _equal_tiled_cell_by_cell("fused", (BPMaxSizes(pairs_copy=1), replace(small, pairs_copy=1),
                                        replace(small, pairs_copy=1, split_chunk=8)))
