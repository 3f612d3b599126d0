"""Progress of ``bioaccel motif threshold`` and ``pvalue`` over many motifs: each motif reported as the
parallel search finishes it (not when the whole batch returns), weighted by its estimated work so that
the time left is honest (issue 25: the bar sat at 0/879, then read 1 h 15 min just before finishing)."""
import io
import os

import pytest

from bioaccel.cli import progress as progress_module
from bioaccel.cli.main import main
from bioaccel.motif import iter_pvalues, iter_thresholds, read_motifs, search_work
from bioaccel.motif import _exact

DATA = os.path.join(os.path.dirname(__file__), "data", "motifs")
JASPAR = os.path.join(DATA, "two.jaspar")


@pytest.fixture(scope="module")
def motifs():
    return read_motifs("jaspar:CORE/vertebrates")[:40]


class Terminal(io.StringIO):
    def isatty(self):
        return True


def test_each_motif_reported_once_before_the_batch_returns(motifs, monkeypatch, cache_dir):
    monkeypatch.setattr(_exact, "POLL_SECONDS", 0.001)
    events = []
    stream = iter_thresholds(motifs, 1e-4, cache=True, on_answer=lambda m, searched: events.append((m, searched)))
    first = next(stream)
    reported = list(events)             # everything the batch reported before its first answer was yielded
    rest = list(stream)
    assert [t.motif_id for t in [first, *rest]] == [m.motif_id for m in motifs]
    assert len(events) == len(reported) == len(motifs)          # each once, all while the batch ran
    assert sorted(id(m) for m, _ in events) == sorted(id(m) for m in motifs)
    assert all(searched for _, searched in events)
    # a second run reads every threshold from the cache, and says so
    again = []
    assert [t.score for t in iter_thresholds(motifs, 1e-4, on_answer=lambda m, s: again.append(s))] == \
        [t.score for t in [first, *rest]]
    assert again == [False] * len(motifs)


def test_pvalues_and_bucket_report_every_answer(motifs):
    events = []
    assert len(list(iter_pvalues(motifs[:5], [5.0, 8.0], on_answer=lambda m, s: events.append(m.motif_id)))) == 10
    assert sorted(events) == sorted([m.motif_id for m in motifs[:5]] * 2)
    events.clear()
    list(iter_thresholds(motifs[:3], 1e-3, variant="bucket", slices=2, on_answer=lambda m, s: events.append(s)))
    assert events == [True] * 3
    with pytest.raises(Exception, match="on_answer must be a function"):
        iter_thresholds(motifs[:1], 1e-3, on_answer=3)


def test_work_estimate_grows_with_length_and_stops_at_the_budget(motifs):
    by_length = sorted(motifs, key=lambda m: m.length)
    works = [search_work(m) for m in by_length]
    assert works == sorted(works) and works[-1] > works[0]
    longest = max(motifs, key=lambda m: m.length)
    assert search_work(longest) <= 2.0 ** (0.8 * 14)


def test_the_bar_advances_per_motif_by_work(motifs, monkeypatch):
    """The command line's bar: a count of motifs and a percentage by estimated work, every motif done
    once; the rows written are those of a run without a bar."""
    calls = []
    real = progress_module.work_progress

    def recording(work, items, unit, **kw):
        calls.append(("open", work, items))
        manager = real(work, items, unit, **kw)

        class Wrap:
            def __enter__(self):
                bar = manager.__enter__()
                done = bar.done

                def spy(w, worked=True, finished=1):
                    calls.append(("done", w, finished))
                    done(w, worked, finished)
                bar.done = spy
                return bar

            def __exit__(self, *exc):
                return manager.__exit__(*exc)
        return Wrap()

    monkeypatch.setattr(progress_module, "work_progress", recording)
    out, err = io.StringIO(), Terminal()
    assert main(["motif", "threshold", "jaspar:2024/CORE/vertebrates", "--pvalue", "1e-4", "--no-cache"],
                stdout=out, stderr=err) == 0
    opened = [c for c in calls if c[0] == "open"]
    done = [c for c in calls if c[0] == "done"]
    assert len(opened) == 1 and opened[0][2] == 879
    assert sum(f for _, _, f in done) == 879
    assert abs(sum(w for _, w, _ in done) - opened[0][1]) < 1e-6 * opened[0][1]
    assert "0/879 motifs]" in err.getvalue()
    plain = io.StringIO()
    assert main(["motif", "threshold", "jaspar:2024/CORE/vertebrates", "--pvalue", "1e-4"], stdout=plain,
                stderr=io.StringIO()) == 0
    assert plain.getvalue() == out.getvalue()


def test_pvalue_words_count_each_motif_once(monkeypatch):
    seen = []
    real = progress_module.WorkBar.done

    def spy(self, work, worked=True, finished=1):
        seen.append(finished)
        real(self, work, worked, finished)

    monkeypatch.setattr(progress_module.WorkBar, "done", spy)
    out, err = io.StringIO(), Terminal()
    code = main(["motif", "pvalue", JASPAR, "--score", "3", "--word", "CACGTG", "--word", "ACG"], stdout=out,
                stderr=err)
    assert code == 0, err.getvalue()
    assert len(out.getvalue().splitlines()) == 1 + 4 and len(seen) == 4 and sum(seen) == 2


def test_threshold_rows_are_short_and_mean_what_the_full_numbers_mean():
    """Issue 25: threshold rows printed 16-digit scores, and pvalue and pvalue_below alike (0.001 both).
    The score written selects the same words (its P-value is the row's), the three P-values read apart."""
    from bioaccel.motif import pvalues, thresholds

    def rows(spec):
        out = io.StringIO()
        assert main(["motif", "threshold", spec, "--pvalue", "1e-3", "-q"], stdout=out, stderr=io.StringIO()) == 0
        return [line.split("\t") for line in out.getvalue().splitlines()[1:]]

    meme = os.path.join(os.path.dirname(__file__), os.pardir, "examples", "motifs.meme")
    written = rows("jaspar:MA0066.1")
    assert written[0][3:6] == ["0.001", "-1.31927726", "0.000999999968"] and written[0][9] == "0.00100000003"
    checked = 0
    for p in (1e-3, 1e-2):
        out = io.StringIO()
        assert main(["motif", "threshold", meme, "--pvalue", str(p), "-q"], stdout=out, stderr=io.StringIO()) == 0
        every = read_motifs(meme)
        for row, t, m in zip([r.split("\t") for r in out.getvalue().splitlines()[1:]], thresholds(every, p), every):
            assert row[0] == m.motif_id
            if t.exact and t.pvalue_below is not None and t.score != float("inf"):
                checked += 1
                assert len(row[4]) <= max(9, len(repr(t.score)) - 4)
                assert pvalues(m, float(row[4]))[0].pvalue == t.pvalue          # the same words
                assert len({row[3], row[5], row[9]}) == 3                        # p, pvalue, pvalue_below apart
                assert float(row[5]) <= p < float(row[9])
    assert checked >= 6
