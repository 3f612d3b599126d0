"""A HOMER file's own thresholds (the log-odds detection threshold, the header's third column): with no
--pvalue or --threshold, ``bioaccel scan`` scores HOMER motifs as HOMER does (frequencies floored at
0.001, natural log against 0.25) and reports every window reaching the file's threshold, as HOMER's
scanMotifGenomeWide.pl / homer2 find do. The reference is plain Python: HOMER's adjustment and a sum of
logs per window, on both strands."""
import io
import math
import os
import random

import pytest

from bioaccel.cli.main import main
from bioaccel.cli.scan import HOMER_EXTENSIONS
from bioaccel.motif import MotifParams, read_motifs
from bioaccel.motif.io import _EXTENSIONS

EXAMPLES = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
DATA = os.path.join(os.path.dirname(__file__), "data", "motifs")


def homer_column(freqs):
    """HOMER's PSSM::adjustvalues for one column, in plain Python."""
    total = sum(freqs)
    p = [f / total for f in freqs]
    under = sum(1 for v in p if v < 0.001)
    over = sum(v for v in p if v >= 0.001)
    return [0.001 if v < 0.001 else v * (over - under * 0.001) / over for v in p]


def homer_score(columns, word):
    return sum(math.log(homer_column(col)["ACGT".index(x)] / 0.25) for col, x in zip(columns, word))


def revcomp(word):
    return word[::-1].translate(str.maketrans("ACGT", "TGCA"))


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    rng = random.Random(25)
    folder = tmp_path_factory.mktemp("homer")
    motifs = []
    lines = []
    for k, length in enumerate((6, 8, 10)):
        columns = []
        for _ in range(length):
            row = [rng.choice([0.0, 0.0005, 0.01, 0.1, 0.3, 0.7, 0.9]) for _ in range(4)]
            row[rng.randrange(4)] += 1.0
            columns.append(row)
        best = sum(max(math.log(v / 0.25) for v in homer_column(c)) for c in columns)
        threshold = round(best * 0.6, 6)
        motifs.append((f"m{k}", columns, threshold))
        lines.append(f">CONS{k}\tm{k}\t{threshold}\t-10.0\t0\tT:1.0(1%)")
        lines += ["\t".join(f"{v:.4f}" for v in col) for col in columns]
    path = folder / "mine.motif"
    path.write_text("\n".join(lines) + "\n")
    seq = "".join(rng.choice("ACGT") for _ in range(30_000))
    fasta = folder / "seq.fa"
    fasta.write_text(">s\n" + seq + "\n")
    return str(path), str(fasta), motifs, seq


def test_the_header_threshold_is_read_and_homer_scores_are_homers(case):
    path, _, motifs, _ = case
    read = read_motifs(path, params=MotifParams(preset="homer"))
    assert [m.motif_id for m in read] == [m for m, _, _ in motifs]
    assert [m.file_threshold for m in read] == [t for _, _, t in motifs]
    for m, (_, columns, _) in zip(read, motifs):
        for col, row in zip(columns, m.scores):
            assert row.tolist() == pytest.approx([math.log(v / 0.25) for v in homer_column(col)], abs=1e-12)
    assert read_motifs(path)[0].file_threshold == motifs[0][2]      # kept whatever the preset


def test_scan_cuts_at_the_files_thresholds(case):
    path, fasta, motifs, seq = case
    out, err = io.StringIO(), io.StringIO()
    assert main(["scan", path, fasta, "--max-stored-hits", "1000000"], stdout=out, stderr=err) == 0
    assert "HOMER file's log-odds threshold" in err.getvalue() and err.getvalue().count("\n") == 1
    got = {(f[0], int(f[3]), f[5]) for f in (row.split("\t") for row in out.getvalue().splitlines()[1:])}
    want = set()
    for name, columns, threshold in motifs:
        n = len(columns)
        for i in range(len(seq) - n + 1):
            word = seq[i:i + n]
            if homer_score(columns, word) >= threshold - 1e-9:
                want.add((name, i + 1, "+"))
            if homer_score(columns, revcomp(word)) >= threshold - 1e-9:
                want.add((name, i + 1, "-"))
    assert got == want and len(want) > 20
    scores = {(f[0], int(f[3]), f[5]): float(f[6]) for f in (r.split("\t") for r in out.getvalue().splitlines()[1:])}
    name, start, strand = sorted(want)[0]
    columns = dict((m, c) for m, c, _ in motifs)[name]
    word = seq[start - 1:start - 1 + len(columns)]
    assert scores[(name, start, strand)] == pytest.approx(
        homer_score(columns, word if strand == "+" else revcomp(word)), abs=1e-5)     # nats, 6 digits shown


def test_a_pvalue_or_another_source_keeps_the_pvalue_cut(case):
    path, fasta, _, _ = case
    runs = {}
    for name, extra in {"pvalue": ["--pvalue", "1e-4"], "fimo": ["--preset", "fimo"], "plain": ["--pvalue", "1e-4",
                                                                                                 "--preset", "fimo"],
                        "quiet": ["-q"]}.items():
        out, err = io.StringIO(), io.StringIO()
        assert main(["scan", path, fasta, *extra], stdout=out, stderr=err) == 0
        runs[name] = (out.getvalue(), err.getvalue())
    assert runs["pvalue"] == runs["fimo"] == runs["plain"]          # as before: FIMO's scores, P <= 1e-4
    assert "HOMER" not in runs["pvalue"][1] and runs["quiet"][1] == ""
    assert runs["quiet"][0] != runs["pvalue"][0]
    out, err = io.StringIO(), io.StringIO()               # a HOMER file with a MEME file: the P-value cut for all
    assert main(["scan", path, os.path.join(EXAMPLES, "motifs.meme"), fasta], stdout=out, stderr=err) == 0
    assert "HOMER" not in err.getvalue()


def test_the_api_takes_the_file_threshold_and_refuses_it_without_one():
    from bioaccel.errors import InvalidParameter
    from bioaccel.scan import FILE_THRESHOLD, scan

    hits = scan(read_motifs(os.path.join(DATA, "two.motif"), params=MotifParams(preset="homer")),
                [("s", "TTCACGTGTT")], threshold=FILE_THRESHOLD)
    assert hits["motif_id"].tolist() == ["Arnt(bHLH)/test", "Arnt(bHLH)/test"]   # CACGTG on both strands
    with pytest.raises(InvalidParameter, match="gives no threshold"):
        scan("jaspar:MA0004.1", [("s", "ACGT")], threshold=FILE_THRESHOLD)


def test_the_extensions_agree_with_the_reader():
    assert set(HOMER_EXTENSIONS) == {ext for ext, fmt in _EXTENSIONS.items() if fmt == "homer"}


def test_a_batch_cuts_at_the_files_thresholds_too(case, tmp_path):
    path, fasta, _, _ = case
    out = io.StringIO()
    assert main(["scan", path, fasta, "-q"], stdout=out, stderr=io.StringIO()) == 0
    target = tmp_path / "hits.tsv"
    assert main(["scan", path, fasta, "-q", "--resume", "-o", str(target)], stdout=io.StringIO(),
                stderr=io.StringIO()) == 0
    assert target.read_text() == out.getvalue() and out.getvalue().count("\n") > 20
