"""What makes a second scan and a first run fast, each giving the output it gave before: the hits' P-values
kept on disk (bioaccel.scan._price_store: a second scan searches nothing and writes the same bytes,
exact answers and bounds alike; --no-cache neither reads nor writes; the keys tell distributions,
backgrounds and sets of values apart), the NumPy forms of the pricing's grouping and look-up (the same
arrays as the Numba kernels), and the first run's warming child (bioaccel.scan._warm)."""
import io
import os
import sqlite3
import threading

import numpy as np
import pytest

from bioaccel.cli.main import main
from bioaccel.motif import PSSM, Background, Grid
from bioaccel.scan import _index_store, _plan, _price, _price_cache, _price_store, _warm

ROOT = os.path.join(os.path.dirname(__file__), "..")
MEME = os.path.join(ROOT, "examples", "motifs.meme")
MA0066 = os.path.join(ROOT, "examples", "MA0066.1.jaspar")
GENOME = os.path.join(ROOT, "examples", "sars-cov-2.fasta")


@pytest.fixture
def searches(monkeypatch):
    """The distributions searched (every call of the pricing's search)."""
    seen = []
    search = _price.tails_of

    def counting(grid, background, asked, **kw):
        seen.append(asked.size)
        return search(grid, background, asked, **kw)

    monkeypatch.setattr(_price, "tails_of", counting)
    return seen


def _scan(*argv):
    out, err = io.StringIO(), io.StringIO()
    assert main(["scan", *argv, "-q"], stdout=out, stderr=err) == 0, err.getvalue()
    return out.getvalue(), err.getvalue()


def _stored(cache_dir):
    with sqlite3.connect(str(cache_dir / "thresholds.sqlite3")) as db:
        return db.execute("SELECT count(*) FROM pvalues").fetchone()[0]


@pytest.mark.parametrize("extra", [[], ["--background", "0.3,0.2,0.2,0.3"], ["--format", "bed", "--pvalue", "1e-3"]])
def test_a_second_scan_reads_the_pvalues_and_writes_the_same_bytes(cache_dir, searches, extra, monkeypatch):
    indexes = []                                   # the q-gram indexes kept beside them (._index_store)
    build = _index_store.build_index
    monkeypatch.setattr(_index_store, "build_index", lambda *a: indexes.append(1) or build(*a))
    first = _scan(MEME, GENOME, *extra)
    assert searches and _stored(cache_dir) == len(searches) + len(indexes)
    done = len(searches)
    second = _scan(MEME, GENOME, *extra)
    assert len(searches) == done                   # nothing searched again
    assert second == first
    assert _scan(MEME, GENOME, *extra, "--no-cache") == first
    assert len(searches) == 2 * done


def test_bounds_come_back_bit_for_bit(cache_dir, searches):
    """MA0066.1 at 1e-3 over the genome is over the exact search's budget: its P-values are bounds, and
    the stored bounds give the same output and the same note."""
    first = _scan(MA0066, GENOME, "--pvalue", "1e-3")
    assert "certified upper bounds" in first[1]
    second = _scan(MA0066, GENOME, "--pvalue", "1e-3")
    assert second == first and len(searches) == 1
    setup_answers = _price_store.decode(_price_store.encode(np.array([0.1, 2.0 ** -60]), False, 0.25), 2)
    assert setup_answers[0].tolist() == [0.1, 2.0 ** -60] and setup_answers[1:] == (False, 0.25)


def test_no_cache_neither_reads_nor_writes(cache_dir, searches):
    _scan(MEME, GENOME, "--no-cache")
    assert not (cache_dir / "thresholds.sqlite3").exists()


def test_keys_tell_apart_what_the_answer_depends_on():
    pssm = PSSM(np.random.default_rng(3).normal(size=(9, 4)).round(3))
    skewed = Background.from_frequencies([0.3, 0.2, 0.2, 0.3])
    g = Grid.of(pssm)
    store = _price_store.PriceStore([(g, pssm.background), (g, skewed), (Grid.of(pssm.reverse_complement()),
                                                                        pssm.background)])
    asked = np.array([10, 20, 30])
    keys = {store.key(0, asked), store.key(1, asked), store.key(2, asked), store.key(0, asked[:2]),
            store.key(0, asked + 1)}
    assert len(keys) == 5
    assert store.key(0, asked) == _price_store.PriceStore([(Grid.of(pssm), Background.uniform())]).key(0, asked)


def test_writers_at_once_leave_every_entry_whole(cache_dir):
    entries = {bytes([k]) * 32: _price_store.encode(np.arange(k + 1) / 7.0, bool(k % 2), k / 3.0) for k in range(60)}
    from bioaccel.motif import read_cache_values, write_cache_values

    threads = [threading.Thread(target=write_cache_values, args=(entries,)) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert read_cache_values(list(entries)) == entries


def test_numpy_grouping_and_look_up_equal_the_kernels():
    rng = np.random.default_rng(11)
    for _ in range(60):
        n, groups = int(rng.integers(1, 300)), int(rng.integers(1, 9))
        units = rng.integers(-4, 25, n).astype(np.int64) << 40
        dist = rng.integers(0, groups, n)
        miss = np.flatnonzero(rng.random(n) < 0.8)
        if miss.size == 0:
            continue
        order = miss[np.argsort(dist[miss], kind="stable")]
        bounds = np.concatenate([[0], np.flatnonzero(np.diff(dist[order])) + 1, [order.size]]).astype(np.int64)
        for a, b in zip(_price._distinct_by_group(units, order, bounds), _price.distinct_by_group(units, order, bounds)):
            assert a.dtype == b.dtype and np.array_equal(a, b)
        cache = _price_cache.PriceCache(groups)
        for d in range(groups):
            known = np.unique(rng.integers(-4, 25, int(rng.integers(0, 7)))).astype(np.int64) << 40
            if known.size:
                cache.add(d, known, rng.random(known.size))
        a = _price_cache._look_up(*cache._tables(), dist.astype(np.int64), units)
        b = _price_cache._look_up_small(*cache._tables(), dist.astype(np.int64), units)
        assert np.array_equal(a[1], b[1]) and np.array_equal(a[0], b[0], equal_nan=True)


def test_the_warming_child_scans_its_best_words(monkeypatch, tmp_path):
    monkeypatch.setattr(_warm, "cold", lambda: True)
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    motifs = [PSSM(np.eye(4)[[0, 1, 2, 3, 0]] * 2, motif_id="m1"), PSSM(np.eye(4)[[3, 3, 1]], motif_id="m2")]
    warming = _warm.start(motifs, fmt="fimo", text=False, strands=(0, 1), slice_length=4, backend="cpu",
                          variant="index")
    assert warming is not None
    assert warming.process.wait(timeout=300) == 0
    warming.stop()
    assert not os.path.exists(warming.folder)
    assert _warm.start(motifs, fmt="fimo", text=False, strands=(0, 1), slice_length=4, backend="gpu",
                       variant="fused") is None

    def no_interpreter(*a, **k):
        raise OSError("no such file")

    monkeypatch.setattr(_warm.subprocess, "Popen", no_interpreter)          # the scan goes on without it
    assert _warm.start(motifs, fmt="fimo", text=False, strands=(0, 1), slice_length=4, backend="cpu",
                       variant="index") is None


def test_words_at_least_bounds_the_count_of_every_word():
    """The Python form of the hopeless-search test (its grid_dp shared with the threshold search) still
    bounds the true count from above: checked against every word of small random matrices."""
    import itertools

    from bioaccel.scan._coarse import words_at_least

    rng = np.random.default_rng(5)
    for _ in range(20):
        m = int(rng.integers(1, 6))
        Q = rng.integers(-(1 << 20), 1 << 20, size=(m, 4)).astype(np.int64)
        scores = np.array([sum(Q[j, x] for j, x in enumerate(word)) for word in itertools.product(range(4), repeat=m)])
        for low in rng.choice(scores, 4).tolist() + [int(scores.max()) + 1]:
            bound = words_at_least(Q, int(low))
            assert np.count_nonzero(scores >= low) <= bound <= 4.0 ** m


def test_a_second_scan_reads_the_qgram_index_back(cache_dir, monkeypatch, tmp_path):
    """The index variant's q-gram index is kept on disk (bioaccel.scan._index_store): the same arrays as
    built, read back by a second scan (which builds nothing); --no-cache builds it again."""
    built = []
    build = _plan.build_index

    def counting(plan, q=8, candidates=3):
        built.append(q)
        return build(plan, q, candidates)

    monkeypatch.setattr(_index_store, "build_index", counting)
    monkeypatch.setattr(_plan, "build_index", counting)
    rng = np.random.default_rng(5)
    motifs = [PSSM(rng.normal(size=(m, 4)).round(2), motif_id=f"M{m}") for m in (6, 9, 12, 15, 8, 10)]
    path = tmp_path / "m.jaspar"                    # counts of the same shapes, JASPAR's format
    path.write_text("".join(f">M{k} m{k}\n" + "".join(f"{b} [ {' '.join(str(c) for c in rng.integers(0, 30, m.length))} ]\n"
                                                       for b in "ACGT") for k, m in enumerate(motifs)))
    first = _scan(str(path), GENOME)
    assert built == [8] and first[0].count("\n") > 10
    assert _scan(str(path), GENOME) == first and built == [8]
    assert _scan(str(path), GENOME, "--no-cache") == first and built == [8, 8]
    plan = _plan.ScanPlan.build(motifs, [(1 << 44, 2 << 44)] * len(motifs))
    fresh, stored = build(plan, 6), _index_store.stored_index(plan, q=6)
    again = _index_store.stored_index(plan, q=6)
    for index in (stored, again):
        assert index.q == fresh.q and np.array_equal(index.gram_start, fresh.gram_start)
        assert np.array_equal(index.gram_entry, fresh.gram_entry) and index.gram_entry.dtype == np.int32
    assert built == [8, 8, 6]                       # the second stored_index read it
    assert _index_store.decode(b"short") is None and _index_store.decode(_index_store.encode(fresh) + b"x") is None
