"""The GPU path's pairs (bioaccel.interact._pairs_gpu): a query's targets go to the device in parts,
and the sites of one part are made in a second thread while the device computes the next. With a
stand-in for the device (on any machine) and on the GPU: the rows of every pair in the order given,
the same as each pair's alone, and errors of either thread raised in the caller's."""
import dataclasses
import threading

import numpy as np
import pytest

from bioaccel.inputs.fasta import Record
from bioaccel.interact import InteractParams, bpmax
from bioaccel.interact import _gpu, _pairs_gpu
from bioaccel.interact._request import check_request

PARAMS = InteractParams(window_target=8)
BASES = "GGGAAAUCCCAUGCAUGCAUCGAUCGAUGCUUAGC"


def _request(structure=False):
    request = check_request(PARAMS, "cpu", None, 1, structure, 2, "score")
    return dataclasses.replace(request, call=dataclasses.replace(request.call, backend="gpu", variant="fused"))


def _pairs():
    queries = [Record("q1", "GAGGAAGAAGAGGACGAU"), Record("q2", "AGGAACUGGCCCAGAAGC")]
    targets = [Record(f"t{k}", (BASES[k:] + BASES[:k])[: 12 + 3 * k]) for k in range(6)] + [Record("empty", "")]
    return [(t, q) for t in targets for q in queries]


def _device_stand_in(a, S1, rbs, params, variant="fused"):
    """Each target's window scores from the CPU's own pair (BPMax of the reversed target back in its
    orientation): what the device gives, made on any machine."""
    from bioaccel.interact._strands import strand_band, window_folds

    found = []
    for rb in rbs:
        M, N = len(a), len(rb)
        L1, L2 = params.spans(M, N)
        target = rb[::-1]
        wins = np.zeros((M - L1 + 1, N - L2 + 1), np.int32)
        for i1 in range(M - L1 + 1):
            for t in range(N - L2 + 1):
                q, w = _codes_text(a[i1:i1 + L1]), _codes_text(target[t:t + L2])
                wins[i1, N - L2 - t] = bpmax(q, w, params=dataclasses.replace(params, window_target=None))[0].score \
                    * params.unit
        folds = window_folds(strand_band(np.ascontiguousarray(rb), params.fold_params, L2), L2)
        found.append((wins, np.asarray(folds, np.int64)))
    return found


def _codes_text(codes):
    return "".join("ACGU"[c] for c in codes)


def _rows(out):
    return [[(r.query, r.target, r.score, r.query_fold, r.target_fold, r.target_start, r.query_start, r.site,
              r.structure) for r in rows] for rows in out]


@pytest.fixture
def stand_in(monkeypatch):
    monkeypatch.setattr(_gpu, "window_scores", _device_stand_in)


def test_parts_cover_every_item_once_in_order():
    lengths = [5, 1, 9, 2, 2, 2, 30, 1]
    for bases in (1, 3, 10, 100):
        ranges = _pairs_gpu.parts(lengths, bases)
        assert [i for a, b in ranges for i in range(a, b)] == list(range(len(lengths)))
        assert all(sum(lengths[a:b]) >= bases for a, b in ranges[:-1])
        assert all(sum(lengths[a:b - 1]) < bases for a, b in ranges)     # none holds more than it needs


@pytest.mark.parametrize("part_bases", [1, 20, 10 ** 6])
@pytest.mark.parametrize("structure", [False, True])
def test_rows_in_parts_are_each_pairs_own(stand_in, monkeypatch, part_bases, structure):
    monkeypatch.setattr(_pairs_gpu, "PART_BASES", part_bases)
    pairs = _pairs()
    out = _pairs_gpu.gpu_pairs(pairs, _request(structure))
    alone = [_pairs_gpu.gpu_pairs([pair], _request(structure))[0] for pair in pairs]
    assert _rows(out) == _rows(alone)
    assert [rows[0].target for rows in out] == [t.id for t, _ in pairs]
    assert any(len(rows) == 2 for rows in out)        # two sites where two fit


def test_the_sites_of_a_part_are_made_while_the_device_computes_the_next(monkeypatch):
    """The device's second part waits (up to 10 s) for the first part's sites to start: made one after
    the other, as before, it would wait in vain."""
    monkeypatch.setattr(_pairs_gpu, "PART_BASES", 1)
    started, calls, overlapped = threading.Event(), [], []
    site_rows = _pairs_gpu.site_rows

    def device(a, S1, rbs, params, variant="fused"):
        calls.append(len(rbs))
        if len(calls) == 2:
            overlapped.append(started.wait(10))
        return _device_stand_in(a, S1, rbs, params)

    def sites(*args, **kwargs):
        started.set()
        return site_rows(*args, **kwargs)

    monkeypatch.setattr(_gpu, "window_scores", device)
    monkeypatch.setattr(_pairs_gpu, "site_rows", sites)
    pairs = [pair for pair in _pairs() if pair[1].id == "q1" and len(pair[0])][:2]
    out = _pairs_gpu.gpu_pairs(pairs, _request())
    assert calls == [1, 1] and overlapped == [True]
    assert [rows[0].target for rows in out] == ["t0", "t1"]


def test_an_error_of_the_sites_is_raised_here(stand_in, monkeypatch):
    monkeypatch.setattr(_pairs_gpu, "PART_BASES", 1)
    seen = []

    def sites(query, target, *args):
        seen.append(target.id)
        if target.id == "t1":
            raise ValueError("bad window scores of t1")
        return []

    monkeypatch.setattr(_pairs_gpu, "site_rows", sites)
    with pytest.raises(ValueError, match="bad window scores of t1"):
        _pairs_gpu.gpu_pairs(_pairs(), _request())
    assert "t1" in seen and not any(t.name == "bioaccel-sites" for t in threading.enumerate())


def test_an_error_of_the_device_is_raised_and_the_sites_thread_ended(stand_in, monkeypatch):
    monkeypatch.setattr(_pairs_gpu, "PART_BASES", 1)
    calls = []

    def device(a, S1, rbs, params, variant="fused"):
        calls.append(1)
        if len(calls) == 3:
            raise MemoryError("out of device memory")
        return _device_stand_in(a, S1, rbs, params)

    monkeypatch.setattr(_gpu, "window_scores", device)
    with pytest.raises(MemoryError):
        _pairs_gpu.gpu_pairs(_pairs(), _request())
    assert not any(t.name == "bioaccel-sites" for t in threading.enumerate())


@pytest.mark.gpu
@pytest.mark.parametrize("part_bases", [1, 40, 10 ** 6])
def test_the_device_in_parts_gives_the_cpus_rows(monkeypatch, part_bases):
    monkeypatch.setattr(_pairs_gpu, "PART_BASES", part_bases)
    queries = ["GAGGAAGAAGAGGACGAU", "AGGAACUGGCCCAGAAGC"]
    targets = [(BASES[k:] + BASES[:k])[: 12 + 3 * k] for k in range(6)]
    options = dict(params=PARAMS, sites=2, structure=True)
    gpu = bpmax(queries, targets, backend="gpu", **options)
    cpu = bpmax(queries, targets, backend="cpu", **options)
    assert _rows([gpu]) == _rows([cpu])
