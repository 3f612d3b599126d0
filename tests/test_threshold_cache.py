"""The threshold cache on disk (bioaccel.motif._threshold_cache): a second call reads what the first
computed, field for field equal to a computed answer; another P-value, background, matrix or precision
misses; cache=False and --no-cache bypass it; a cache that cannot be written or read never fails a run;
processes writing at once leave every entry whole; the command lines' second runs write the same bytes."""
import dataclasses
import io
import multiprocessing
import os
import sqlite3

import numpy as np
import pytest

from bioaccel.cli.main import main
from bioaccel.motif import PSSM, Background, MotifParams, Threshold, read_motifs, thresholds
from bioaccel.motif import _exact, _threshold_cache
from bioaccel.scan import scan

ROOT = os.path.join(os.path.dirname(__file__), "..")
MEME = os.path.join(ROOT, "examples", "motifs.meme")
THREE_PRIME = os.path.join(ROOT, "examples", "sars-cov-2-3prime.fa")


@pytest.fixture
def searched(monkeypatch):
    """The motifs the exact search ran on (every call of its batch), in order."""
    seen = []
    batch = _exact._batch_threshold

    def counting(pssms, ps, precision, report=None):
        seen.extend(m.motif_id for m in pssms)
        return batch(pssms, ps, precision, report)

    monkeypatch.setattr(_exact, "_batch_threshold", counting)
    return seen


def _motifs(count=12, seed=7):
    """Random matrices of 1 to 14 columns (an unreachable P-value for the shortest), plus the examples'."""
    rng = np.random.default_rng(seed)
    made = [PSSM(rng.normal(size=(int(rng.integers(1, 15)), 4)).round(3), motif_id=f"r{k}") for k in range(count)]
    return made + read_motifs(MEME)


def _fields(result):
    return [getattr(result, f.name) for f in dataclasses.fields(Threshold)]


def _same(a, b):
    """Equal on every field (hidden ones too), and bit for bit where a field is a float."""
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert _fields(x) == _fields(y)
        assert [v.hex() if isinstance(v, float) else v for v in _fields(x)] == \
               [v.hex() if isinstance(v, float) else v for v in _fields(y)]


def test_the_path_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("BIOACCEL_CACHE_DIR", str(tmp_path / "c"))
    assert _threshold_cache.cache_path() == tmp_path / "c" / "thresholds.sqlite3"
    assert _threshold_cache.cache_path({"HOME": "/h"}).parts[-3:] == (".cache", "bioaccel", "thresholds.sqlite3")


def test_a_second_call_reads_the_cache_and_gives_the_same_results(cache_dir, searched):
    motifs = _motifs()
    first = thresholds(motifs, [1e-3, 0.2])
    assert len(searched) == 2 * len(motifs)
    assert (cache_dir / "thresholds.sqlite3").exists()
    second = thresholds(motifs, [1e-3, 0.2])
    assert len(searched) == 2 * len(motifs)              # nothing searched again
    computed = thresholds(motifs, [1e-3, 0.2], cache=False)
    _same(first, second)
    _same(second, computed)
    assert any(not t.reachable for t in second) and any(t.pvalue_below is None for t in second)


def test_inexact_answers_are_kept_with_their_precision(cache_dir, searched):
    motifs = [PSSM(np.random.default_rng(3).normal(size=(16, 4)), motif_id="long")]
    first = thresholds(motifs, 1e-4, precision=0.5)
    second = thresholds(motifs, 1e-4, precision=0.5)
    assert len(searched) == 1
    assert not second[0].exact and second[0].why == "within_precision" and second[0].precision == 0.5
    _same(second, first)
    _same(second, thresholds(motifs, 1e-4, precision=0.5, cache=False))
    exact = thresholds(motifs, 1e-4)                     # another precision: another entry
    assert len(searched) == 3 and exact[0].precision is None


def test_another_pvalue_background_or_matrix_misses(cache_dir, searched):
    spec = "jaspar:MA0004.1"
    thresholds(spec, 1e-3)
    assert searched == ["MA0004.1"]
    thresholds(spec, 1e-3)
    assert len(searched) == 1
    thresholds(spec, 2e-3)
    assert len(searched) == 2
    skewed = MotifParams(background=Background.from_frequencies([0.3, 0.2, 0.2, 0.3]))
    _same(thresholds(spec, 1e-3, params=skewed), thresholds(spec, 1e-3, params=skewed, cache=False))
    assert len(searched) == 4
    pseudo = MotifParams(pseudocount=1.0)              # another matrix of the same counts
    thresholds(spec, 1e-3, params=pseudo)
    assert len(searched) == 5
    renamed = read_motifs(spec)[0]
    renamed.motif_id = "other"                          # the id is not in the key
    assert thresholds(renamed, 1e-3)[0].motif_id == "other" and len(searched) == 5


def test_the_key_holds_the_background_chain():
    grid = _exact.Grid.of(PSSM(np.eye(4)[:2]))
    uniform = _threshold_cache.background_digest(Background.uniform())
    chained = _threshold_cache.background_digest(Background.markov(np.full(4, 0.25), np.full((4, 4), 1.0)))
    assert _threshold_cache.threshold_key(grid, uniform, 0.1, None) != \
           _threshold_cache.threshold_key(grid, chained, 0.1, None)


def test_no_cache_neither_reads_nor_writes(cache_dir, searched):
    motifs = _motifs(4)
    thresholds(motifs, 1e-3, cache=False)
    assert not (cache_dir / "thresholds.sqlite3").exists()
    thresholds(motifs, 1e-3)
    thresholds(motifs, 1e-3, cache=False)
    assert len(searched) == 3 * len(motifs)


def test_cache_must_be_a_bool():
    from bioaccel.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="cache must be True or False"):
        thresholds(PSSM(np.eye(4)[:2]), 0.1, cache="no")
    with pytest.raises(InvalidParameter, match="cache must be True or False"):
        scan(PSSM(np.eye(4)[:2]), ["ACGT"], cache=None)


def test_an_unwritable_or_broken_cache_does_not_fail_the_run(tmp_path, monkeypatch, searched):
    motifs = _motifs(4)
    expected = thresholds(motifs, 1e-3, cache=False)
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("BIOACCEL_CACHE_DIR", str(blocker / "cache"))      # cannot be made, even by root
    _same(thresholds(motifs, 1e-3), expected)
    broken = tmp_path / "broken"
    broken.mkdir()
    (broken / "thresholds.sqlite3").write_bytes(b"this is not a database" * 100)
    monkeypatch.setenv("BIOACCEL_CACHE_DIR", str(broken))
    _same(thresholds(motifs, 1e-3), expected)
    _same(thresholds(motifs, 1e-3), expected)
    assert len(searched) == 4 * len(motifs)


def test_a_locked_cache_is_skipped(cache_dir, monkeypatch, searched):
    motifs = _motifs(3)
    thresholds(motifs[:1], 1e-3)
    monkeypatch.setattr(_threshold_cache, "TIMEOUT", 0.05)
    holder = sqlite3.connect(str(cache_dir / "thresholds.sqlite3"))
    holder.execute("BEGIN EXCLUSIVE")                   # another run writing: the new entries wait, then are dropped
    try:
        _same(thresholds(motifs, 1e-3), thresholds(motifs, 1e-3, cache=False))
    finally:
        holder.rollback()
        holder.close()
    thresholds(motifs, 1e-3)
    # r0 read while held, the rest searched (and not kept), all searched uncached, the rest searched again
    assert len(searched) == 1 + (len(motifs) - 1) + len(motifs) + (len(motifs) - 1)


def _entry(k):
    return Threshold(f"m{k}", 1e-3, k * 0.5, k * 1e-6, k * 1e-6, k * 1e-6, k * 0.25, exact=bool(k % 2),
                     pvalue_below=None if k % 3 else k * 2e-6)


def _write_many(path, worker):
    # each process writes its own keys and the keys every process writes, in many small transactions
    for start in range(0, 300, 10):
        entries = {f"k{k}".encode(): _entry(k) for k in range(start, start + 10)}
        entries.update({f"w{worker}-{k}".encode(): _entry(k) for k in range(start, start + 10)})
        assert _threshold_cache.write_entries(path, entries)


def test_processes_writing_at_once_leave_a_whole_cache(tmp_path):
    path = tmp_path / "shared" / "thresholds.sqlite3"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_write_many, args=(path, w)) for w in range(4)]
    for w in workers:
        w.start()
    for w in workers:
        w.join(timeout=60)
    assert [w.exitcode for w in workers] == [0] * 4
    keys = [f"k{k}".encode() for k in range(300)] + [f"w{w}-{k}".encode() for w in range(4) for k in range(300)]
    found = _threshold_cache.read_entries(path, keys)
    assert len(found) == len(keys)
    for key, value in found.items():
        k = int(key.decode().split("-")[-1].lstrip("k"))
        assert value == {name: getattr(_entry(k), name) for name in _threshold_cache.STORED}
    assert sqlite3.connect(str(path)).execute("PRAGMA integrity_check").fetchone() == ("ok",)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    assert main(argv, stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue()


def test_the_threshold_command_reads_the_cache_and_writes_the_same_bytes(cache_dir, searched, tmp_path):
    argv = ["motif", "threshold", MEME, "--pvalue", "1e-4"]
    first = _run(argv)
    count = len(searched)
    assert count == len(read_motifs(MEME))
    assert _run(argv) == first and len(searched) == count
    assert _run(argv + ["--no-cache"]) == first and len(searched) == 2 * count
    out = tmp_path / "t.tsv"
    _run(argv + ["-o", str(out)])
    assert out.read_text() == first and len(searched) == 2 * count


def test_the_scan_command_reads_the_cache_and_writes_the_same_bytes(cache_dir, searched, tmp_path):
    out = tmp_path / "hits.tsv"
    argv = ["scan", MEME, THREE_PRIME, "--pvalue", "1e-3", "-o", str(out), "-q"]
    _run(argv)
    first, count = out.read_bytes(), len(searched)
    assert count >= len(read_motifs(MEME)) and first.count(b"\n") > 1
    _run(argv)
    assert out.read_bytes() == first and len(searched) == count
    _run(argv + ["--no-cache"])
    assert out.read_bytes() == first and len(searched) == 2 * count


def test_the_scan_and_its_batch_read_the_cache(cache_dir, searched):
    from bioaccel.distribution.work import run_work
    from bioaccel.scan import scan_work

    first = scan(MEME, THREE_PRIME, pvalue=1e-3)
    count = len(searched)
    assert scan(MEME, THREE_PRIME, pvalue=1e-3).equals(first) and len(searched) == count
    assert scan(MEME, THREE_PRIME, pvalue=1e-3, cache=False).equals(first) and len(searched) == 2 * count
    for cache, searches in ((True, 0), (False, count)):
        described = scan_work(MEME, THREE_PRIME, pvalue=1e-3, cache=cache)
        before = len(searched)
        assert described.merge(run_work(described.work, None)).frame().equals(first)
        assert len(searched) - before == searches
