"""``bioaccel scan``: FIMO, BED and GFF3 coordinates on a planted site, the same hits as the API on the
shipped examples, gzip and standard input, --threshold, --text, --max-stored-hits, -o written only on
success, P-values equal to ``bioaccel motif pvalue``'s, and bad input as one line with exit status 2."""
import gzip
import io
import json
import os
import sys

import numpy as np
import pytest

from bioaccel.cli.main import main
from bioaccel.motif import MotifParams
from bioaccel.scan import scan

ROOT = os.path.join(os.path.dirname(__file__), "..")
MEME = os.path.join(ROOT, "examples", "motifs.meme")
JASPAR = os.path.join(ROOT, "examples", "MA0066.1.jaspar")
GENOME = os.path.join(ROOT, "examples", "sars-cov-2.fasta")
THREE_PRIME = os.path.join(ROOT, "examples", "sars-cov-2-3prime.fa")
COMPLEMENT = str.maketrans("ACGT", "TGCA")
#: The P-value of the scans of the genome: 80 hits of 5 motifs, every P-value exact (at 1e-3 the
#: 20-column MA0066.1's are certified bounds, and take longer).
P = "5e-4"

#: One motif, the word AAGTG (letter probabilities 1 and 0), in MEME's format.
PLANTED_MEME = """MEME version 4

ALPHABET= ACGT

strands: + -

Background letter frequencies
A 0.25 C 0.25 G 0.25 T 0.25

MOTIF AAGTG planted
letter-probability matrix: alength= 4 w= 5 nsites= 20 E= 0
1 0 0 0
1 0 0 0
0 0 1 0
0 0 0 1
0 0 1 0
"""
#: AAGTG at 0-based 4 on the forward strand; CACTT (AAGTG read on the reverse strand) at 0-based 15.
PLANTED_TEXT = "CCCC" + "AAGTG" + "CCCCCC" + "CACTT" + "CCCC"
PLANTED_FASTA = f">chr1 a planted site\n{PLANTED_TEXT}\n"


def run(*argv, stdin=None, monkeypatch=None):
    if stdin is not None:
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    out, err = io.StringIO(), io.StringIO()
    code = main(["scan", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def table(text):
    """Rows of a TSV (header dropped) as lists of strings."""
    lines = text.splitlines()
    assert lines[0].startswith("motif_id\t")
    return [line.split("\t") for line in lines[1:]]


@pytest.fixture
def planted(tmp_path):
    (tmp_path / "site.meme").write_text(PLANTED_MEME)
    (tmp_path / "site.fa").write_text(PLANTED_FASTA)
    return str(tmp_path / "site.meme"), str(tmp_path / "site.fa")


# ---- coordinates ---------------------------------------------------------------------------------

def test_fimo_coordinates_are_one_based_inclusive(planted):
    code, out, err = run(*planted, "--pvalue", "1e-3")          # only the best word: P = 1/1024
    assert code == 0 and err == ""
    rows = table(out)
    score = f"{np.log2((20 + 0.1 * 0.25) / 20.1 / 0.25) * 5:.6g}"   # FIMO's pseudocount 0.1, bits
    # 20 windows x 2 strands tested; both hits 1/1024: q = 1/1024 x 40 / 2
    assert rows == [["AAGTG", "planted", "chr1", "5", "9", "+", score, "0.000977", "0.0195", "AAGTG"],
                    ["AAGTG", "planted", "chr1", "16", "20", "-", score, "0.000977", "0.0195", "AAGTG"]]
    assert PLANTED_TEXT[5 - 1:9] == "AAGTG" and PLANTED_TEXT[16 - 1:20].translate(COMPLEMENT)[::-1] == "AAGTG"


def test_bed_coordinates_are_zero_based_half_open(planted):
    code, out, err = run(*planted, "--pvalue", "1e-3", "--format", "bed")
    assert code == 0, err
    assert out == "chr1\t4\t9\tAAGTG\t1000\t+\nchr1\t15\t20\tAAGTG\t1000\t-\n"
    assert PLANTED_TEXT[4:9] == "AAGTG" and PLANTED_TEXT[15:20] == "CACTT"


def test_gff3_has_its_header_and_one_based_coordinates(planted):
    code, out, err = run(*planted, "--pvalue", "1e-3", "--format", "gff")
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "##gff-version 3" and len(lines) == 3
    fields = [line.split("\t") for line in lines[1:]]
    assert [f[:5] + f[6:8] for f in fields] == [["chr1", "bioaccel", "TF_binding_site", "5", "9", "+", "."],
                                               ["chr1", "bioaccel", "TF_binding_site", "16", "20", "-", "."]]
    attributes = dict(pair.split("=") for pair in fields[1][8].split(";"))
    assert attributes == {"Name": "AAGTG", "Alias": "planted", "ID": "AAGTG-chr1-16-m", "pvalue": "0.000977",
                          "qvalue": "0.0195", "sequence": "AAGTG"}


def test_one_strand_and_a_score_threshold(planted):
    code, out, _ = run(*planted, "--pvalue", "1e-3", "--norc")
    assert code == 0 and [r[5] for r in table(out)] == ["+"]
    code, out, _ = run(*planted, "--threshold", "5", "--format", "bed")      # the best word only scores ~9.7
    assert code == 0 and out.count("\n") == 2
    code, out, _ = run(*planted, "--threshold", "-100")                    # every window, both strands
    rows = table(out)
    assert code == 0 and len(rows) == 40 and len({(r[3], r[5]) for r in rows}) == 40


# ---- the shipped examples --------------------------------------------------------------------------

def test_the_command_writes_the_api_hits():
    code, out, err = run(MEME, GENOME, "--pvalue", P)
    assert code == 0, err
    rows = table(out)
    frame = scan(MEME, GENOME, pvalue=float(P))
    assert len(rows) == len(frame) > 50 and err == ""
    for row, hit in zip(rows, frame.itertuples(index=False)):
        assert row[:6] == [hit.motif_id, hit.motif_alt_id, hit.sequence_name, str(hit.start), str(hit.stop),
                           hit.strand]
        assert row[6:9] == [f"{hit.score:.6g}", f"{hit._7:.3g}", f"{hit._8:.3g}"] and row[9] == hit.matched_sequence
    assert len({row[0] for row in rows}) >= 3 and len({row[6] for row in rows}) > 10


def test_every_cpu_variant_slice_length_and_chunk_size_writes_the_same_bytes():
    """MA0076.2 (11 columns) at P = 1e-3: 24 hits, every P-value found at once."""
    code, expected, err = run("jaspar:MA0076.2", GENOME, "--pvalue", "1e-3")
    assert code == 0 and len(table(expected)) > 20, err
    for options in (["--variant", "index", "--slice-length", "2"], ["--variant", "lookahead", "--slice-length", "1"],
                    ["--variant", "lookahead", "--slice-length", "7"], ["--variant", "slices", "--slice-length", "3"],
                    ["--variant", "slices", "--slice-length", "8"], ["--variant", "naive", "--chunk-size", "999"],
                    ["--chunk-size", "19", "--threads", "1"]):
        code, out, err = run("jaspar:MA0076.2", GENOME, "--pvalue", "1e-3", *options)
        assert code == 0 and out == expected, (options, err)


@pytest.mark.parametrize("preset", ["fimo", "meme", "moods"])
@pytest.mark.parametrize("background", ["uniform", "0.3,0.2,0.2,0.3", THREE_PRIME])
def test_hit_pvalues_are_what_motif_pvalue_says(preset, background):
    """Presets fimo, meme and moods; uniform, skewed and Markov (order 1, estimated from a FASTA file)
    backgrounds."""
    order = 1 if background == THREE_PRIME else 0
    options = ["--preset", preset, "--background", background, "--background-order", str(order)]
    params = MotifParams(preset=preset, background=background, background_order=order)
    frame = scan(JASPAR, GENOME, pvalue=1e-4, params=params)
    code, out, err = run(JASPAR, GENOME, "--pvalue", "1e-4", *options)
    assert code == 0 and err == ""               # no note: the P-values are exact
    assert [r[7] for r in table(out)] == [f"{p:.3g}" for p in frame["p-value"]]
    plus = frame[frame.strand == "+"]
    assert len(plus) > 0
    argv = ["motif", "pvalue", JASPAR, *options, "--format", "json"]
    for score in plus.score:
        argv += ["--score", repr(float(score))]
    stdout, stderr = io.StringIO(), io.StringIO()
    assert main(argv, stdout=stdout, stderr=stderr) == 0, stderr.getvalue()
    answers = [json.loads(line) for line in stdout.getvalue().splitlines()]
    assert all(a["exact"] for a in answers)
    assert plus["p-value"].tolist() == pytest.approx([a["pvalue"] for a in answers], rel=1e-12)


def test_gzip_standard_input_and_many_records_give_the_same_output(tmp_path, monkeypatch):
    genome = open(GENOME).read().split("\n", 1)[1].replace("\n", "")
    records = "".join(f">part{k} piece {k}\n{genome[k * 7000:(k + 1) * 7000 + 3]}\n" for k in range(3))
    plain = tmp_path / "parts.fa"
    plain.write_text(records)
    with gzip.open(tmp_path / "parts.fa.gz", "wt") as handle:
        handle.write(records)
    code, expected, err = run(MEME, str(plain), "--pvalue", P)
    assert code == 0, err
    assert {r[2] for r in table(expected)} == {"part0", "part1", "part2"}
    assert run(MEME, str(tmp_path / "parts.fa.gz"), "--pvalue", P)[1] == expected
    code, out, err = run(MEME, "-", "--pvalue", P, stdin=records.encode(), monkeypatch=monkeypatch)
    assert code == 0 and out == expected, err
    code, out, err = run("-", str(plain), "--pvalue", P, stdin=open(MEME, "rb").read(), monkeypatch=monkeypatch)
    assert code == 0 and out == expected, err


def test_text_output_is_the_stored_output_without_qvalues():
    code, stored, _ = run(MEME, GENOME, "--pvalue", P)
    assert code == 0
    streamed = {}
    for variant in ("index", "lookahead", "slices", "naive"):
        code, out, err = run(MEME, GENOME, "--pvalue", P, "--text", "--variant", variant)
        assert code == 0, err
        streamed[variant] = out
    assert len(set(streamed.values())) == 1                   # found in one order, whatever the variant
    without_q = sorted(r[:8] + [""] + r[9:] for r in table(stored))
    assert sorted(table(streamed["index"])) == without_q
    assert all(r[8] != "" for r in table(stored))
    code, out, _ = run(MEME, GENOME, "--pvalue", P, "--no-qvalue")
    assert code == 0 and out == stored.split("\n", 1)[0] + "\n" + "".join(
        "\t".join(r[:8] + [""] + r[9:]) + "\n" for r in table(stored))


def test_max_stored_hits_drops_the_worst_with_one_warning():
    code, full, _ = run(MEME, GENOME, "--pvalue", P)
    code, out, err = run(MEME, GENOME, "--pvalue", P, "--max-stored-hits", "10", "--quiet")
    assert code == 0
    kept, every = table(out), table(full)
    assert 0 < len(kept) <= 10
    lines = [line for line in err.splitlines() if "warning" in line]      # (and a note: MA0066.1's P-values)
    assert len(lines) == 1 and lines[0].startswith("bioaccel scan: warning: more than 10 hits: the ")
    assert f"the {len(every) - len(kept):,} of P-value" in lines[0] and "--max-stored-hits" in lines[0]
    # fewer than N kept: the warning says how many and why (hits tied at the cut go together); N kept: no word
    assert (f"so {len(kept)} were kept, not 10: the cut fell among hits tied" in lines[0]) == (len(kept) < 10)
    worst_kept = max(float(r[7]) for r in kept)
    dropped = [r for r in every if r[:6] not in [k[:6] for k in kept]]
    assert min(float(r[7]) for r in dropped) >= worst_kept


@pytest.mark.parametrize("limit", ["26", "50"])
def test_a_cut_among_ties_says_how_many_were_kept(limit):
    """Issue 25: '--max-stored-hits 100,000' wrote 77,185 hits without a word. The five example motifs at
    P 1e-3 tie at the 26th hit (two of P 1.98e-4 straddle it), not at the 50th."""
    code, out, err = run(MEME, GENOME, "--pvalue", "1e-3", "--max-stored-hits", limit)
    kept = len(table(out))
    warning, = [line for line in err.splitlines() if "warning" in line]
    if limit == "26":
        assert kept == 25 and "so 25 were kept, not 26: the cut fell among hits tied at that P-value" in warning
    else:
        assert kept == 50 and "were kept" not in warning


def test_output_file_is_written_only_when_the_run_succeeds(tmp_path, planted):
    out = tmp_path / "hits.tsv"
    bad = tmp_path / "bad.fa"
    bad.write_text(PLANTED_FASTA + ">chr2\nACGTACGT\nACGT!ACG\n")        # a hit, then a bad letter
    code, stdout, err = run(planted[0], str(bad), "--pvalue", "1e-3", "-o", str(out))
    assert code == 2 and stdout == "" and len(err.splitlines()) == 1 and "'!'" in err
    assert not out.exists() and sorted(os.listdir(tmp_path)) == ["bad.fa", "site.fa", "site.meme"]
    out.write_text("kept\n")
    assert run(planted[0], str(bad), "--pvalue", "1e-3", "-o", str(out))[0] == 2
    assert out.read_text() == "kept\n"
    code, stdout, err = run(*planted, "--pvalue", "1e-3", "-o", str(out), "--format", "bed")
    assert code == 0 and stdout == "" and out.read_text().count("\n") == 2


# ---- bad input ---------------------------------------------------------------------------------------

BAD = {
    "broken motif file": (["{meme_broken}", "{fasta}"], "broken.meme"),
    "bad letter": (["{meme}", "{fasta_bad}"], "'@'"),
    "no header": (["{meme}", "{fasta_headless}"], "header"),
    "pvalue 0": (["{meme}", "{fasta}", "--pvalue", "0"], "0"),
    "pvalue -1": (["{meme}", "{fasta}", "--pvalue", "-1"], "-1"),
    "pvalue 1.5": (["{meme}", "{fasta}", "--pvalue", "1.5"], "1.5"),
    "pvalue abc": (["{meme}", "{fasta}", "--pvalue", "abc"], "abc"),
    "threshold nan": (["{meme}", "{fasta}", "--threshold", "nan"], "--threshold must be a finite score"),
    "both cuts": (["{meme}", "{fasta}", "--threshold", "1", "--pvalue", "0.1"], "--threshold"),
    "unknown variant": (["{meme}", "{fasta}", "--variant", "fastest"], "fastest"),
    "gpu variant on cpu": (["{meme}", "{fasta}", "--variant", "fused"], "fused"),
    "slice length": (["{meme}", "{fasta}", "--slice-length", "9"], "--slice-length must be a whole"),
    "chunk size": (["{meme}", "{fasta}", "--chunk-size", "0"], "0"),
    "max stored hits": (["{meme}", "{fasta}", "--max-stored-hits", "-3"], "-3"),
    "missing motif file": (["{tmp}/nothing.meme", "{fasta}"], "nothing.meme"),
    "missing fasta": (["{meme}", "{tmp}/nothing.fa"], "nothing.fa"),
    "a folder": (["{meme}", "{tmp}"], "folder"),
    "both stdin": (["-", "-"], "standard input"),
    "bad format": (["{meme}", "{fasta}", "--format", "sam"], "sam"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_input_is_one_line_and_status_2(name, tmp_path, planted):
    files = {"tmp": str(tmp_path), "meme": planted[0], "fasta": planted[1]}
    for key, text in (("meme_broken", "MEME version 4\n\nMOTIF x\nletter-probability matrix: w= 2\n0.5 0.5\n"),
                      ("fasta_bad", ">r\nACGT@A\n"), ("fasta_headless", "@r1\nACGTACGT\n")):
        files[key] = str(tmp_path / ("broken.meme" if key == "meme_broken" else key + ".fa"))
        with open(files[key], "w") as handle:
            handle.write(text)
    argv, needle = BAD[name]
    out = tmp_path / "never.tsv"
    code, stdout, err = run(*[a.format(**files) for a in argv], "-o", str(out))
    assert code == 2, err
    assert len(err.splitlines()) == 1 and err.startswith("bioaccel scan") and "Traceback" not in err, err
    assert needle in err and stdout == "" and not out.exists()


def test_variants_are_listed():
    code, out, _ = run("--list-variants")
    assert code == 0
    assert [line.split()[0] for line in out.splitlines()[1:]] == ["index", "lookahead", "slices", "naive", "fused",
                                                                  "segments"]


def test_a_headerless_genome_is_one_sequence(tmp_path):
    """Letters without a header (a genome's wrapped lines) are one sequence, seq1: the same hits as the
    same letters under a header named seq1."""
    import os

    root = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    genome = "".join(line for line in open(os.path.join(root, "sars-cov-2.fasta")) if not line.startswith(">"))
    bare, named = tmp_path / "bare.txt", tmp_path / "named.fa"
    bare.write_text(genome)
    named.write_text(">seq1\n" + genome)
    motif = os.path.join(root, "MA0066.1.jaspar")
    outputs = []
    for path in (bare, named):
        out = io.StringIO()
        assert main(["scan", motif, str(path), "--pvalue", "1e-4"], stdout=out, stderr=io.StringIO()) == 0
        outputs.append(out.getvalue())
    assert outputs[0] == outputs[1] and outputs[0].count("\tseq1\t") > 5


@pytest.mark.parametrize("fmt", ["bed", "gff"])
def test_bed_and_gff_are_sorted_by_position(fmt, tmp_path):
    """Genome tools (bedtools, IGV's indexers) expect BED and GFF rows by sequence and start; FIMO's TSV
    stays in FIMO's order (motif, then P-value). The rows are the same either way."""
    import os

    root = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    argv = ["scan", os.path.join(root, "motifs.meme"), os.path.join(root, "sars-cov-2.fasta"), "--pvalue", "1e-3"]
    out = io.StringIO()
    assert main([*argv, "--format", fmt], stdout=out, stderr=io.StringIO()) == 0
    rows = [line.split("\t") for line in out.getvalue().splitlines() if not line.startswith("#")]
    start = 1 if fmt == "bed" else 3
    starts = [int(row[start]) for row in rows]
    assert len(rows) > 50 and starts == sorted(starts)
    text = io.StringIO()              # --text streams hits by position without q-values: the same sites
    assert main([*argv, "--text", "--format", fmt], stdout=text, stderr=io.StringIO()) == 0
    streamed = [line.split("\t") for line in text.getvalue().splitlines() if not line.startswith("#")]
    site = (lambda r: (r[0], r[1], r[2], r[5], r[3])) if fmt == "bed" else (lambda r: (r[0], r[3], r[4], r[6]))
    assert sorted(map(site, streamed)) == sorted(map(site, rows))


def test_qv_thresh_keeps_the_hits_of_small_q_value(tmp_path):
    """FIMO's --qv-thresh: --pvalue bounds the q-value; the rows are those of the plain run whose q-value is
    at most the bound (best words planted in a random sequence give some, the background none)."""
    import os
    import random

    import numpy as np

    from bioaccel.motif import read_motifs

    examples = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    motif = os.path.join(examples, "MA0066.1.jaspar")
    pssm = read_motifs(motif)[0]
    best = "".join("ACGT"[k] for k in np.argmax(np.asarray(pssm.scores), axis=1))
    rng = random.Random(4)
    text = "".join(rng.choice("ACGT") for _ in range(20_000))
    for at in range(500, 20_000, 1_000):
        text = text[:at] + best + text[at + len(best):]
    genome = tmp_path / "g.fa"
    genome.write_text(">g\n" + text + "\n")
    plain, bounded = io.StringIO(), io.StringIO()
    assert main(["scan", motif, str(genome), "--pvalue", "0.01"], stdout=plain, stderr=io.StringIO()) == 0
    assert main(["scan", motif, str(genome), "--pvalue", "0.01", "--qv-thresh"], stdout=bounded,
                stderr=io.StringIO()) == 0
    rows = plain.getvalue().splitlines()
    kept = [rows[0]] + [row for row in rows[1:] if float(row.split("\t")[8]) <= 0.01]
    assert bounded.getvalue().splitlines() == kept and 20 <= len(kept) - 1 < len(rows) - 1
    code = main(["scan", motif, str(genome), "--qv-thresh", "--no-qvalue"], stdout=io.StringIO(),
                stderr=(err := io.StringIO()))
    assert code == 2 and "--no-qvalue" in err.getvalue()


def test_motif_picks_motifs_of_the_file_by_id():
    """--motif ID (repeatable), as FIMO's: only those motifs are scanned; an id the file does not hold is
    one line naming the ids it does."""
    import os

    examples = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    argv = ["scan", os.path.join(examples, "motifs.meme"), os.path.join(examples, "sars-cov-2.fasta"), "--pvalue",
            "1e-3"]
    every, some = io.StringIO(), io.StringIO()
    assert main(argv, stdout=every, stderr=io.StringIO()) == 0
    assert main([*argv, "--motif", "MA0028.2", "--motif", "MA0066.1"], stdout=some, stderr=io.StringIO()) == 0
    kept = [r for r in every.getvalue().splitlines()[1:] if r.split("\t")[0] in ("MA0028.2", "MA0066.1")]
    assert some.getvalue().splitlines()[1:] == kept and kept
    err = io.StringIO()
    assert main([*argv, "--motif", "MA9999.1"], stdout=io.StringIO(), stderr=err) == 2
    assert err.getvalue().count("\n") == 1 and "holds no motif of that id" in err.getvalue()


def test_several_motif_sources_are_scanned_together():
    """MOTIFS may be several sources (a second was 'unrecognized arguments' before): the rows are each
    source's own rows, in the sources' order (q-values are per motif)."""
    import os

    examples = os.path.join(os.path.dirname(__file__), os.pardir, "examples")
    genome = os.path.join(examples, "sars-cov-2.fasta")
    sources = [os.path.join(examples, "MA0066.1.jaspar"), "jaspar:MA0028.2"]
    outs = []
    for argv in ([sources[0]], [sources[1]], sources):
        out = io.StringIO()
        assert main(["scan", *argv, genome, "--pvalue", "1e-3"], stdout=out, stderr=io.StringIO()) == 0
        outs.append(out.getvalue().splitlines())
    assert outs[2] == outs[0] + outs[1][1:] and len(outs[0]) > 1 and len(outs[1]) > 1


def test_a_fresh_scan_clears_another_runs_journal(tmp_path):
    """Issue 25: after a refused --resume (FILE.partial of another run) and a fresh run, later --resume
    calls were refused until the journal was deleted by hand. A plain scan that writes FILE removes it."""
    out = tmp_path / "hits.tsv"
    journal = tmp_path / "hits.tsv.partial"
    journal.write_text('{"bioaccel":"0","batch":"another run"}\n')
    argv = [MEME, GENOME, "-o", str(out), "-q"]
    code, _, err = run(*argv, "--resume")
    assert code == 2 and "another run" in err and journal.exists()
    assert run(*argv)[0] == 0 and not journal.exists()
    first = out.read_text()
    code, _, err = run(*argv, "--resume")
    assert code == 0 and err == "" and out.read_text() == first and not journal.exists()


@pytest.mark.parametrize("fmt", ["fimo", "bed", "text"])
def test_a_batch_of_motifs_short_and_over_32_columns(tmp_path, monkeypatch, fmt):
    """A batch (here --resume, in this process; --workers the same) scans groups of motifs apart, and a
    group's matched words are packed 32 letters to a column: a group with a motif over 32 columns and
    one without could not be merged (a NumPy traceback, e.g. jaspar:CORE/vertebrates with --resume).
    Now the output is the in-process scan's, byte for byte."""
    import bioaccel.scan._work as jobs

    monkeypatch.setattr(jobs, "GROUP_MOTIFS", 1)
    rng = np.random.default_rng(25)
    genome = "".join(rng.choice(list("ACGT"), 3000))
    long_word = genome[100:140]                                  # a 40-column motif planted on it
    short = genome[2000:2008]
    text = "".join(f">{name}\n" + "".join(f"{b} [ " + " ".join("20" if c == b else "1" for c in word) + " ]\n"
                                          for b in "ACGT") for name, word in (("L", long_word), ("S", short)))
    motifs, seqs = tmp_path / "m.jaspar", tmp_path / "g.fa"
    motifs.write_text(text)
    seqs.write_text(f">g\n{genome}\n")
    extra = ["--text"] if fmt == "text" else ["--format", fmt]
    argv = ["scan", str(motifs), str(seqs), "--pvalue", "2e-5", *extra, "-q"]
    here = io.StringIO()
    assert main(argv, stdout=here, stderr=io.StringIO()) == 0
    out, err = tmp_path / "out.txt", io.StringIO()
    assert main([*argv, "-o", str(out), "--resume"], stdout=io.StringIO(), stderr=err) == 0, err.getvalue()
    rows = here.getvalue().splitlines()[0 if fmt == "bed" else 1:]          # BED has no header line
    assert out.read_text() == here.getvalue() and {"L", "S"} == {row.split("\t")[3 if fmt == "bed" else 0]
                                                                  for row in rows}
