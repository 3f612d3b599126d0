"""``bioaccel motif``: show, pvalue, threshold, compare; JSON and text; plots; one-line errors."""
import io
import json
import os

import numpy as np
import pytest

from bioaccel.cli.main import main

DATA = os.path.join(os.path.dirname(__file__), "data", "motifs")
JASPAR = os.path.join(DATA, "two.jaspar")


def run(*argv):
    out, err = io.StringIO(), io.StringIO()
    code = main(["motif", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def json_lines(text):
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_show_json_and_text():
    code, out, err = run("show", JASPAR, "--format", "json")
    assert code == 0, err
    objs = json_lines(out)
    assert [o["motif_id"] for o in objs] == ["MA0004.1", "MA9999.1"]
    assert len(objs[0]["pssm"]) == 6 and len(objs[0]["pssm"][0]) == 4
    assert objs[0]["background"]["frequencies"] == {"A": 0.25, "C": 0.25, "G": 0.25, "T": 0.25}
    code, out, _ = run("show", JASPAR, "--background", "0.3,0.2,0.2,0.3", "--preset", "moods")
    assert code == 0 and out.startswith(">MA0004.1 Arnt") and "pos\tA\tC\tG\tT" in out


def test_threshold_and_pvalue_agree(tmp_path):
    code, out, err = run("threshold", JASPAR, "--pvalue", "1e-3", "--format", "json")
    assert code == 0, err
    first, second = json_lines(out)
    assert first["motif_id"] == "MA0004.1" and first["pvalue"] <= 1e-3
    assert second["score"] is None            # a 3-mer never reaches 1e-3 (4**-3 > 1e-3)
    code, out, err = run("pvalue", JASPAR, "--score", str(first["score"]), "--format", "json")
    assert code == 0, err
    back = json_lines(out)[0]
    assert back["pvalue_low"] <= 1e-3 and {"motif_id", "score", "pvalue"} <= set(back)
    assert back["pvalue"] == first["pvalue"] and back["exact"] and first["exact"]   # one answer, exact both ways
    code, out, err = run("threshold", JASPAR, "--pvalue", "1e-3", "--variant", "bucket", "--slices", "2")
    assert code == 0, err
    assert out.splitlines()[0].split("\t")[:6] == ["motif_id", "name", "length", "p", "score", "pvalue"]
    assert out.splitlines()[1].startswith("MA0004.1\tArnt\t6\t")
    assert out.splitlines()[1].split("\t")[-3:-1] == ["False", "bucket"]           # bucket: not exact, says so


def test_plot_and_output_file(tmp_path):
    image = tmp_path / "dist.png"
    table = tmp_path / "out.tsv"
    code, out, err = run("pvalue", JASPAR, "--score", "5", "--plot", str(image), "-o", str(table))
    assert code == 0, err
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert table.read_text().startswith("motif_id\t")
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".bioaccel")] == []


def test_compare_one_line_per_pair_and_all_shifts():
    meme = os.path.join(DATA, "two.meme")
    code, out, err = run("compare", JASPAR, meme, "--pvalue", "1e-2", "--format", "json")
    assert code == 0, err
    pairs = json_lines(out)
    assert len(pairs) == 4              # every pair once: its best shift and strand
    same = pairs[0]        # MA0004.1 from the JASPAR file against MA0004.1 from the MEME file
    assert same["motif1"] == same["motif2"] == "MA0004.1"
    assert same["shift"] == 0 and same["similarity"] > 0.5 and same["strand"] in "+-"
    code, out, err = run("compare", JASPAR, meme, "--pvalue", "1e-2", "--format", "json", "--all-shifts")
    rows = [r for r in json_lines(out) if r["motif1"] == r["motif2"] == "MA0004.1"]
    assert [(r["strand"], r["shift"]) for r in rows] == [(s, k) for s in "+-" for k in range(-5, 6)]
    code, out, err = run("compare", JASPAR, meme, "--forward-only")          # the default P-value (1e-3)
    assert code == 0, err
    header, *lines = out.splitlines()
    assert header.split("\t")[:4] == ["motif1", "motif2", "strand", "shift"] and len(lines) == 4
    assert all(line.split("\t")[2] == "+" for line in lines)


@pytest.mark.parametrize("argv,needle", [
    (["threshold", os.path.join(DATA, "broken_number.jaspar"), "--pvalue", "1e-3"], "line 3"),
    (["threshold", "missing.jaspar", "--pvalue", "1e-3"], "no such file"),
    (["threshold", JASPAR, "--pvalue", "2"], "--pvalue (P-value) must be in (0, 1]"),
    (["pvalue", JASPAR, "--score", "1", "--background", "0,0,0,1"], "the frequency of A must be a positive finite number, got 0"),
    (["threshold", JASPAR, "--pvalue", "1e-3", "--variant", "bucket", "--backend", "gpu"], "GPU"),
    (["threshold", "jaspar:MA0000.9", "--pvalue", "1e-3"], "no matrix"),
    (["pvalue", JASPAR, "--score", "1", "--plot", "x.gif"], "--plot"),
])
def test_errors_are_one_line_exit_2(argv, needle):
    code, out, err = run(*argv)
    if "gpu" in argv:
        from bioaccel.runtime.gpu import gpu_available

        if gpu_available():
            pytest.skip("a GPU is present")
    assert code == 2
    lines = err.strip().splitlines()
    # the prefix names the whole command the user typed, subcommand included
    assert len(lines) == 1 and lines[0].startswith(f"bioaccel motif {argv[0]}: error: ")
    assert needle in lines[0]


def test_list_variants_and_tsv_numbers():
    code, out, err = run("threshold", "--list-variants")
    assert code == 0, err
    assert "BUCKETSCOREDISTRIBUTION (Giraud & Varré)" in out and out.startswith("variant")
    code, out, _ = run("compare", "--list-variants")
    assert code == 0 and "exact" in out
    code, out, err = run("threshold", JASPAR, "--pvalue", "1e-3")
    assert code == 0, err
    first, second = (line.split("\t") for line in out.splitlines()[1:])
    assert len(first[5]) <= len("0.000123456") and second[4] == "NA"     # P-values to 6 digits; no threshold
    assert first[-1] == "-" and second[-1].startswith("no word reaches")   # the reason, in text too


@pytest.mark.parametrize("argv,needle", [
    (["compare", JASPAR, JASPAR, "--pvalue", "1e-2", "--backend", "gpu"], "invalid choice: 'gpu' (choose from 'cpu')"),
    (["threshold", JASPAR, "--pvalue", "1e-3", "--variant", "exact", "--backend", "gpu"], "not available on the gpu"),
    (["threshold", JASPAR, "--pvalue", "1e-3", "--variant", "magic"], "choose one of exact, bucket"),
    (["threshold", JASPAR, "--pvalue", "1e-3", "--preset", "bogus"], "--preset must be one of"),
    (["show", JASPAR, "--motif-format", "fasta"], "unknown motif format"),
    (["pvalue", JASPAR, "--score", "1", "--pseudocount", "nan"], "pseudocount"),
])
def test_more_one_line_errors(argv, needle):
    code, out, err = run(*argv)
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("bioaccel motif") and ": error: " in lines[0], lines
    assert needle in lines[0], lines


def test_pvalue_answers_every_score_and_word(tmp_path):
    scores = tmp_path / "scores.txt"
    scores.write_text("1.5, 2\n# a comment\n3\n")
    code, out, err = run("pvalue", JASPAR, "--score", "5", "--score", "6", "--scores", str(scores),
                         "--word", "CACGTG")
    assert code == 0, err
    header, *lines = out.splitlines()
    assert header.split("\t")[:5] == ["motif_id", "name", "length", "score", "word"]
    rows = [line.split("\t") for line in lines if line.startswith("MA0004.1")]
    assert [r[3] for r in rows[:5]] == ["5", "6", "1.5", "2", "3"] and rows[5][4] == "CACGTG"
    pvalues = [float(r[5]) for r in rows]
    assert pvalues[0] >= pvalues[1] and pvalues[2] >= pvalues[3] >= pvalues[4]
    assert abs(pvalues[5] - 4.0 ** -6) < 1e-9       # CACGTG, MA0004.1's one best word: its own score counts it (6 digits)
    assert not any(line.startswith("MA9999.1") and "CACGTG" in line for line in lines)   # a 3-column motif
    code, out, err = run("pvalue", JASPAR, "--word", "CACGTGA")
    assert code == 2 and "7 letters, but the motifs have 3, 6" in err


def test_meme_preset_shares_the_pseudocount_as_meme_does(tmp_path):
    """MEME and FIMO: p = (f * nsites + 0.1 * bg) / (nsites + 0.1), f the normalised frequencies."""
    import math

    from bioaccel.motif import MotifParams, read_motifs

    path = tmp_path / "one.meme"
    path.write_text("MEME version 4\n\nALPHABET= ACGT\n\nstrands: + -\n\nBackground letter frequencies\n"
                    "A 0.25 C 0.25 G 0.25 T 0.25\n\nMOTIF m1 one\nletter-probability matrix: alength= 4 w= 2 "
                    "nsites= 7 E= 0\n0.5 0.25 0.25 0.0\n0.1 0.2 0.3 0.4\n")
    got = read_motifs(str(path), params=MotifParams(preset="meme"))[0].scores
    freqs = [[0.5, 0.25, 0.25, 0.0], [0.1, 0.2, 0.3, 0.4]]
    want = [[math.log2((f * 7 + 0.1 * 0.25) / (7 + 0.1) / 0.25) for f in row] for row in freqs]
    assert np.allclose(got, want, rtol=0, atol=1e-12)
    # a count matrix: the first column's total is the motif's site count
    counts = read_motifs(JASPAR, params=MotifParams(preset="meme"))[0]
    total = counts.counts[0].sum()
    freq = counts.counts[1] / counts.counts[1].sum()
    assert np.allclose(counts.scores[1], [math.log2((f * total + 0.025) / (total + 0.1) / 0.25) for f in freq],
                       rtol=0, atol=1e-12)


def test_export_round_trips_through_meme_and_jaspar(tmp_path):
    from bioaccel.motif import MotifParams, read_motifs

    meme, jaspar = tmp_path / "m.meme", tmp_path / "m.jaspar"
    code, out, err = run("export", "jaspar:MA0066.1", "--format", "meme", "-o", str(meme))
    assert code == 0 and out == "" and err == "", err
    text = meme.read_text()
    assert text.startswith("MEME version 4") and "Background letter frequencies" in text and "MOTIF MA0066.1" in text
    code, out, err = run("export", "jaspar:MA0066.1", "-o", str(jaspar))
    assert code == 0, err
    params = MotifParams(preset="meme")
    source = read_motifs("jaspar:MA0066.1", params=params)[0]
    for path in (meme, jaspar):
        again = read_motifs(str(path), params=params)[0]
        assert again.motif_id == "MA0066.1"
        np.testing.assert_allclose(again.scores, source.scores, rtol=0, atol=1e-9)
    code, out, _ = run("export", os.path.join(DATA, "two.meme"), "--format", "jaspar")  # frequencies x nsites
    assert code == 0 and out.startswith(">MA0004.1")
    code, _, err = run("export", os.path.join(DATA, "logodds.txt"), "--kind", "logodds")
    assert code == 2 and "log-odds" in err


def test_one_jaspar_release_for_ids_and_collections():
    from bioaccel.cli import motif as cli
    from bioaccel.motif._jaspar import DEFAULT_RELEASE, fetch

    assert cli.DEFAULT_JASPAR_RELEASE == DEFAULT_RELEASE
    assert fetch("jaspar:MA0066.1")[0].source == fetch("jaspar:CORE/vertebrates")[0].source == "JASPAR2024"
    assert fetch("jaspar:2026/MA0066.1")[0].source == "JASPAR2026"


def test_motif_file_from_standard_input(monkeypatch):
    import sys

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(open(JASPAR, "rb").read()))))
    code, out, err = run("threshold", "-", "--pvalue", "1e-3")
    assert code == 0 and out.splitlines()[1].startswith("MA0004.1"), err


@pytest.mark.parametrize("argv,needle", [
    (["compare", "-", "-"], "M1 and M2 both read standard input"),
    (["show", "-", "--background", "-"], "MOTIF and --background both read standard input"),
    (["pvalue", JASPAR, "--score", "1", "--slices", "1000", "--variant", "bucket"], "MA0004.1 has 6 columns"),
    (["pvalue", JASPAR, "--score", "1", "--buckets", "10000000000", "--variant", "bucket"], "fewer buckets"),
    (["threshold", JASPAR, "--pvalue", "0", "--variant", "bucket"], "got 0"),
    (["threshold", JASPAR, "--pvalue", "nan"], "got nan"),
    (["pvalue", JASPAR, "--score", "1", "--precision", "nan"], "precision"),
    (["pvalue", JASPAR, "--score", "1", "--log-base", "inf"], "--log-base must be"),
    (["pvalue", JASPAR, "--score", "1", "--background-order", "2", "--background", "0.3,0.2,0.2,0.3"],
     "needs a FASTA file"),
    (["pvalue", JASPAR, "--score", "1", "--background-order", "1"], "needs a FASTA file"),
    (["pvalue", JASPAR, "--score", "1", "--background", "0.3,0.2,0.2"], "expected 4 frequencies (A,C,G,T), got 3"),
    (["pvalue", JASPAR, "--score", "1", "--background", "A=0.3,C=0.2,G=0.2,X=0.3"], "unknown letter 'X'"),
    (["pvalue", JASPAR, "--score", "1", "--background", "0.3,0.2,nan,0.3"], "frequency of G"),
    (["pvalue", JASPAR, "--word", "ACGNNN"], "found 'N'"),
    (["show", os.path.join(DATA, "logodds.txt")], "pass --kind logodds"),
    (["pvalue", JASPAR, "--score", "1", "--plot", "a.png", "-o", "a.png"], "name the same file"),
])
def test_refused_before_anything_is_written(argv, needle):
    code, out, err = run(*argv)
    assert code == 2 and out == "", out
    assert err.count("\n") == 1 and err.startswith("bioaccel motif") and needle in err, err
    assert "np.float64" not in err


def test_rna_jaspar_file_with_a_u_row(tmp_path):
    rna = tmp_path / "rna.jaspar"
    rna.write_text(open(JASPAR).read().replace("\nT ", "\nU "))
    assert run("show", str(rna))[1] == run("show", JASPAR)[1].replace(JASPAR, str(rna))


def test_the_kind_choices_are_the_readers():
    from bioaccel.cli.motif_options import MATRIX_KINDS
    from bioaccel.motif.io import KINDS

    assert MATRIX_KINDS == KINDS


def test_compare_plot_draws_both_sides(monkeypatch, tmp_path):
    """compare --plot draws the motifs of both files (it drew only the first file's), each once."""
    import bioaccel.motif

    drawn = []
    monkeypatch.setattr(bioaccel.motif, "plot_distributions",
                        lambda items, path, handle=None: drawn.extend(title for _, _, title in items))
    examples = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    code, out, err = run("compare", os.path.join(examples, "MA0066.1.jaspar"), os.path.join(examples, "motifs.meme"),
                         "--plot", str(tmp_path / "c.svg"))
    assert code == 0, err
    ids = [title.split()[0] for title in drawn]
    assert ids[0] == "MA0066.1" and len(ids) == len(set(ids)) and {"MA0004.1", "MA0028.2"} <= set(ids)


def test_a_meme_background_file_is_read_for_its_letter_frequencies(tmp_path):
    """FIMO's --bfile format (# comments, WORD frequency lines; the single letters are order 0) gives the
    thresholds of the same frequencies written out; it was read as FASTA before."""
    bfile = tmp_path / "genome.bg"
    bfile.write_text("# order 0\nA 3.000e-01\nC 2.000e-01\nG 2.000e-01\nT 3.000e-01\n# order 1\nAA 9.0e-02\n")
    from_file = run("threshold", JASPAR, "--pvalue", "1e-4", "--background", str(bfile))
    written = run("threshold", JASPAR, "--pvalue", "1e-4", "--background", "0.3,0.2,0.2,0.3")
    assert from_file[0] == written[0] == 0 and from_file[1] == written[1]
    code, out, err = run("threshold", JASPAR, "--pvalue", "1e-4", "--background", str(bfile),
                         "--background-order", "1")
    assert code == 2 and "MEME background file" in err


def test_help_says_in_words_what_the_papers_name():
    """Issue 25: help texts spoke the papers' jargon. Each paper's name comes after plain words."""
    from bioaccel.cli.main import _command, build_parser

    parser = build_parser()
    for prog, words, name in (("bioaccel", "how alike two motifs are", "COMPARE"),
                              ("bioaccel motif", "how likely a score is among random words", "BUCKETSCOREDISTRIBUTION"),
                              ("bioaccel motif compare", "How alike motifs are", "COMPARE"),
                              ("bioaccel motif threshold", "Columns: p (asked)", "PVALUETOSCORE")):
        text = " ".join(_command(parser, prog).format_help().split())
        assert words in text and (name not in text or text.index(words) < text.index(name))


@pytest.mark.parametrize("content", ["meme", "fasta"])
def test_a_background_through_a_named_pipe(tmp_path, content):
    """Issue 25: a MEME background file given as <(cat bg.txt) was read as FASTA (a pipe is read once).
    Now a pipe is copied once and read as the regular file would be, and named as the user gave it."""
    import tempfile
    import threading

    def copies():
        return {p for p in os.listdir(tempfile.gettempdir()) if p.startswith("bioaccel-background-")}

    before = copies()
    text = "# order 0\nA 0.3\nC 0.2\nG 0.2\nT 0.3\n" if content == "meme" else ">g\nAACGTTTGCA\n"
    plain = tmp_path / "bg.txt"
    plain.write_text(text)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    writer = threading.Thread(target=lambda: fifo.write_text(text))
    writer.start()
    code, out, err = run("show", "jaspar:MA0004.1", "--background", str(fifo), "--format", "json")
    writer.join()
    assert code == 0, err
    code, expected, _ = run("show", "jaspar:MA0004.1", "--background", str(plain), "--format", "json")
    piped, regular = json_lines(out)[0], json_lines(expected)[0]
    assert piped["pssm"] == regular["pssm"]
    assert piped["background"]["description"] == regular["background"]["description"].replace(str(plain), str(fifo))
    assert ("MEME background file" in piped["background"]["description"]) == (content == "meme")
    assert copies() <= before                    # the copy removed
