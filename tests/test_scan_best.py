"""``bioaccel scan --best-per-motif N``: each motif's N hits of smallest P-value, those tied at a motif's
cut kept or dropped together (as --max-stored-hits cuts), one note saying what was dropped; the same
bytes from a batch (--resume) as in process. The reference is plain Python over the plain run's hits."""
import io
import os

import pytest

from bioaccel.cli.main import main
from bioaccel.scan import scan

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
MOTIFS = os.path.join(EXAMPLES, "motifs.meme")
GENOME = os.path.join(EXAMPLES, "sars-cov-2.fasta")


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def every_hit():
    return scan(MOTIFS, GENOME, pvalue=1e-3)


def best_keys(frame, keep):
    """The (motif, start, strand) of each motif's best ``keep`` hits by exact P-value, a tie at the cut
    dropping every hit of that P-value; and the hits each motif lost."""
    kept, lost = set(), {}
    for motif, group in frame.groupby("motif_id", sort=False):
        rows = sorted(group[["p-value", "start", "strand"]].itertuples(index=False))
        cut = rows[keep][0] if len(rows) > keep else float("inf")
        good = [r for r in rows if r[0] < cut]
        kept |= {(motif, start, strand) for _, start, strand in good}
        if len(rows) > len(good):
            lost[motif] = len(rows) - len(good)
    return kept, lost


@pytest.mark.parametrize("keep", [1, 3, 10])
def test_each_motif_keeps_its_best_and_ties_go_together(every_hit, keep):
    code, plain, _ = run(MOTIFS, GENOME, "--pvalue", "1e-3", "-q")
    assert code == 0
    code, out, err = run(MOTIFS, GENOME, "--pvalue", "1e-3", "--best-per-motif", str(keep))
    assert code == 0, err
    kept, lost = best_keys(every_hit, keep)
    rows = plain.splitlines()

    def key(row):
        f = row.split("\t")
        return (f[0], int(f[3]), f[5])
    # the plain run's rows (FIMO's order, the same q-values: over every window tested), those kept
    assert out.splitlines() == [rows[0]] + [row for row in rows[1:] if key(row) in kept]
    assert lost, "the example must lose hits to the cut"
    note = [line for line in err.splitlines() if "--best-per-motif" in line]
    assert len(note) == 1
    assert note[0].startswith(f"bioaccel scan: note: --best-per-motif {keep} dropped {sum(lost.values()):,} hits of "
                              f"{len(lost)} motif")
    short = [m for m in lost if sum(1 for k in kept if k[0] == m) < keep]
    assert (f"kept fewer than {keep}" in note[0]) == bool(short)
    assert all(m in note[0] for m in short)


def test_ties_at_the_cut_drop_together(every_hit):
    """MA0004.1 (a 6-mer) has several hits of its best P-value: one asked, none written."""
    ties = every_hit[every_hit["motif_id"] == "MA0004.1"]["p-value"]
    assert (ties == ties.min()).sum() > 1
    code, out, err = run(MOTIFS, GENOME, "--pvalue", "1e-3", "--best-per-motif", "1", "--motif", "MA0004.1")
    assert code == 0 and out.count("\n") == 1
    assert "1 kept fewer than 1 (MA0004.1): hits tied at a motif's cut are dropped together" in err


def test_bed_is_the_same_hits_by_position_and_a_batch_writes_the_same_bytes(tmp_path):
    code, fimo, _ = run(MOTIFS, GENOME, "--pvalue", "1e-3", "--best-per-motif", "2", "-q")
    code, bed, _ = run(MOTIFS, GENOME, "--pvalue", "1e-3", "--best-per-motif", "2", "--format", "bed", "-q")
    assert code == 0
    fimo_keys = sorted((f[0], int(f[3]) - 1, f[5]) for f in (r.split("\t") for r in fimo.splitlines()[1:]))
    bed_rows = [r.split("\t") for r in bed.splitlines()]
    assert sorted((f[3], int(f[1]), f[5]) for f in bed_rows) == fimo_keys
    assert [int(f[1]) for f in bed_rows] == sorted(int(f[1]) for f in bed_rows)       # by position
    out = tmp_path / "hits.bed"
    assert main(["scan", MOTIFS, GENOME, "--pvalue", "1e-3", "--best-per-motif", "2", "--format", "bed", "-q",
                 "--resume", "-o", str(out)], stdout=io.StringIO(), stderr=io.StringIO()) == 0
    assert out.read_text() == bed


@pytest.mark.parametrize("argv, words", [(["--best-per-motif", "0"], "--best-per-motif"),
                                         (["--best-per-motif", "2", "--text"], "--text"),
                                         (["--best-per-motif", "x"], "--best-per-motif")])
def test_refused_in_one_line(argv, words):
    code, out, err = run(MOTIFS, GENOME, *argv)
    assert code == 2 and out == "" and err.count("\n") == 1 and words in err


def test_the_api_checks_it():
    import pytest as _pytest

    from bioaccel.errors import InvalidParameter
    from bioaccel.scan import write_scan

    for bad in (0, 2.5, True):
        with _pytest.raises(InvalidParameter, match="best_per_motif"):
            write_scan(io.StringIO(), MOTIFS, GENOME, best_per_motif=bad)
