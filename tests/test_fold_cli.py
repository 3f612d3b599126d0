"""The ``bioaccel fold`` command line: formats, atomic output, plots and bad input."""
import io
import json
import os
import sys

import pytest

import naive
from bioaccel.cli.main import main
from bioaccel.fold import FoldParams

FASTA = ">hairpin first record\nGGGAAAUCC\n>two\nGGGGAAACCCCAUAUAUGCGCAAAAGCGC\n>n3\nacgun\n"
# (id, the letters as written, which the output keeps as RNAfold does)
RECORDS = [("hairpin", "GGGAAAUCC"), ("two", "GGGGAAACCCCAUAUAUGCGCAAAAGCGC"), ("n3", "acgun")]


def run(argv):
    """``bioaccel fold ARGV`` with Nussinov's model unless ARGV names one (the Turner model, the default,
    has tests of its own: test_fold_turner_cli.py)."""
    argv = list(argv) if "--model" in argv else ["--model", "nussinov", *argv]
    out, err = io.StringIO(), io.StringIO()
    code = main(["fold", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def expected(seq, params=FoldParams()):
    seq = seq.upper()
    return naive.nussinov_structure(seq, params), params.to_score(naive.nussinov_score(seq, params))


def test_vienna_is_the_default(tmp_fasta):
    code, out, err = run([tmp_fasta(FASTA)])
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert len(lines) == 9
    for k, (ident, seq) in enumerate(RECORDS):
        structure, score = expected(seq)
        assert lines[3 * k].split()[0] == f">{ident}"
        assert lines[3 * k + 1] == seq
        assert lines[3 * k + 2] == f"{structure} ({score:>2})"
    assert lines[2] == "(((...))) ( 3)" and lines[0] == ">hairpin first record"     # the header whole


def test_ct(tmp_fasta):
    code, out, _ = run([tmp_fasta(FASTA), "--format", "ct"])
    assert code == 0
    lines = out.splitlines()
    pos = 0
    for ident, seq in RECORDS:
        assert lines[pos].split() == [str(len(seq)), ident]
        rows = [line.split() for line in lines[pos + 1:pos + 1 + len(seq)]]
        structure, _ = expected(seq)
        partner = {int(r[0]): int(r[4]) for r in rows}
        for i, row in enumerate(rows, start=1):
            assert row[0] == row[5] == str(i) and row[1] == seq[i - 1]
            assert int(row[2]) == i - 1 and int(row[3]) == (i + 1 if i < len(seq) else 0)
            assert (partner[i] == 0) == (structure[i - 1] == ".")
            if partner[i]:
                assert partner[partner[i]] == i
        pos += 1 + len(seq)
    assert pos == len(lines)


def test_bpseq(tmp_fasta):
    code, out, _ = run([tmp_fasta(FASTA), "--format", "bpseq"])
    assert code == 0
    blocks = out.split("# ")[1:]
    assert [b.splitlines()[0] for b in blocks] == [r[0] for r in RECORDS]
    rows = [line.split() for line in blocks[0].splitlines()[1:]]
    assert rows == [[str(i), b, str(p)] for i, b, p in
                    zip(range(1, 10), "GGGAAAUCC", (9, 8, 7, 0, 0, 0, 3, 2, 1))]


def test_json_lines(tmp_fasta):
    code, out, _ = run([tmp_fasta(FASTA), "--format", "json", "--min-loop", "1", "--no-gu"])
    assert code == 0
    objects = [json.loads(line) for line in out.splitlines()]
    params = FoldParams(min_loop=1, gu=0)
    for obj, (ident, seq) in zip(objects, RECORDS):
        structure, score = expected(seq, params)
        assert obj["id"] == ident and obj["sequence"] == seq and obj["length"] == len(seq)
        assert (obj["structure"], obj["score"], obj["min_loop"]) == (structure, score, 1)
        assert obj["pairs"] == structure.count("(")
        assert (obj["variant"], obj["backend"]) == ("tiled", "cpu")


def test_weights_give_fractional_scores(tmp_fasta):
    code, out, _ = run([tmp_fasta(">w\nGAAAU\n"), "--au", "1", "--gc", "3", "--gu", "1.5"])
    assert code == 0
    assert out.splitlines()[2] == "(...) (1.5)"


@pytest.mark.parametrize("variant", ["naive", "cache", "naive-parallel", "cache-parallel", "tiled"])
def test_every_variant_gives_the_same_output(tmp_fasta, variant):
    path = tmp_fasta(FASTA)
    assert run([path, "--variant", variant, "--threads", "1"])[1] == run([path])[1]


def test_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FASTA.encode())))
    code, out, _ = run(["-", "--format", "json"])
    assert code == 0 and len(out.splitlines()) == 3


def test_output_file_is_written_atomically(tmp_fasta, tmp_path):
    target = tmp_path / "out" / "result.txt"
    target.parent.mkdir()
    code, out, _ = run([tmp_fasta(FASTA), "-o", str(target)])
    assert code == 0 and out == ""
    assert target.read_text() == run([tmp_fasta(FASTA)])[1]
    assert os.listdir(target.parent) == ["result.txt"]
    # a failure half way (bad letter in the second record) leaves neither the file nor a temporary
    bad = tmp_fasta(">ok\nGGGAAAUCC\n>bad\nGGXAA\n", name="bad.fa")
    other = target.parent / "other.txt"
    code, _, err = run([bad, "-o", str(other)])
    assert code == 2 and "'bad'" in err
    assert os.listdir(target.parent) == ["result.txt"]


@pytest.mark.parametrize("name", ["arcs.svg", "arcs.png"])
def test_plot(tmp_fasta, tmp_path, name):
    plot = tmp_path / name
    code, out, err = run([tmp_fasta(FASTA), "--plot", str(plot)])
    assert code == 0 and err == ""
    head = plot.read_bytes()[:200]
    assert (b"<svg" in head) if name.endswith(".svg") else head.startswith(b"\x89PNG")
    assert sorted(os.listdir(tmp_path)) == sorted(["in.fa", name])


def one_line_error(code, out, err, *fragments):
    assert code == 2
    assert err.count("\n") == 1 and err.startswith("bioaccel fold: error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


@pytest.mark.parametrize("text, fragments", [
    (">r1\nACGU\n>r2\nACJGU\n", ("'r2'", "'J'", "position 3")),
    ("", ("no FASTA records",)),
    ("@r1\nACGU\n", ("line 1", "header")),
])
def test_bad_input(tmp_fasta, text, fragments):
    one_line_error(*run([tmp_fasta(text)]), *fragments)


def test_missing_file(tmp_path):
    one_line_error(*run([str(tmp_path / "nope.fa")]), "nope.fa", "no such file")


def test_bad_options(tmp_fasta):
    path = tmp_fasta(FASTA)
    one_line_error(*run([path, "--variant", "warp"]), "'warp'", "tiled")
    one_line_error(*run([path, "--min-loop", "-2"]), "--min-loop must be")
    one_line_error(*run([path, "--no-gu", "--gu", "2"]), "--no-gu")
    one_line_error(*run([path, "--threads", "-1"]), "--threads")
    one_line_error(*run([path, "--plot", "arcs.bmp"]), ".svg")
    one_line_error(*run([path, "--backend", "gpu", "--variant", "warp"]), "warp")


def test_gpu_backend_without_a_gpu_says_not_available(tmp_fasta):
    from conftest import _gpu_reason

    if _gpu_reason() is None:
        pytest.skip("a CUDA GPU is present here")
    one_line_error(*run([tmp_fasta(FASTA), "--backend", "gpu"]), "not available")


def test_too_long_for_memory(tmp_fasta, monkeypatch):
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 2**20)
    one_line_error(*run([tmp_fasta(">long\n" + "ACGU" * 1000 + "\n")]), "4,000", "MiB", "--backend gpu")


def test_long_work_is_announced_before_the_first_record(tmp_fasta, monkeypatch):
    import bioaccel.fold._nussinov_cost as cost

    monkeypatch.setitem(cost.CPU_RATE_PER_THREAD, "tiled", 1.0)
    code, out, err = run([tmp_fasta(FASTA)])
    assert code == 0
    assert err.startswith("bioaccel fold: about") and "3 records of up to 29 nt" in err and "--backend gpu" in err
    assert err.count("\n") == 1
    assert run([tmp_fasta(FASTA), "-q"])[2] == ""


def test_progress_bar_only_on_a_terminal(tmp_fasta):
    class Terminal(io.StringIO):
        def isatty(self):
            return True

    err = Terminal()
    code = main(["fold", tmp_fasta(FASTA)], stdout=io.StringIO(), stderr=err)
    assert code == 0 and "seq" in err.getvalue()
    err = Terminal()
    assert main(["fold", tmp_fasta(FASTA), "--quiet"], stdout=io.StringIO(), stderr=err) == 0
    assert err.getvalue() == ""


def test_standard_input_is_announced_record_by_record(monkeypatch):
    import bioaccel.fold._nussinov_cost as cost

    monkeypatch.setitem(cost.CPU_RATE_PER_THREAD, "tiled", 1.0)
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(FASTA.encode())))
    code, out, err = run(["-"])
    assert code == 0 and len(out.splitlines()) == 9
    assert [line.split(" for ")[1].split(" (")[0] for line in err.splitlines()] == \
        ["1 record of up to 9 nt", "1 record of up to 29 nt", "1 record of up to 5 nt"]


def test_the_model_option_names_nussinov_and_lists_the_models(tmp_fasta):
    path = tmp_fasta(FASTA)
    out = io.StringIO()
    assert main(["fold", path], stdout=out) == 0                   # the default: Turner 2004, kcal/mol
    assert out.getvalue() == run([path, "--model", "turner2004"])[1] != run([path, "--model", "nussinov"])[1]
    code, out, err = run(["--list-models"])
    assert code == 0 and [line.split()[0] for line in out.splitlines()[1:]] == ["turner2004", "nussinov"]
    assert out.splitlines()[2].split()[:2] == ["nussinov", "tiled,"]
    one_line_error(*run([path, "--model", "turner1999"]), "invalid choice", "nussinov")


def test_a_partition_function_too_large_names_the_window_option(tmp_fasta, monkeypatch):
    """'fold shorter pieces (a window)' left a new user to guess that --window does it."""
    monkeypatch.setattr("bioaccel.runtime.memory.available_memory", lambda: 2**20)
    one_line_error(*run([tmp_fasta(">long\n" + "ACGU" * 1000 + "\n"), "-p", "--model", "turner2004"]), "4,000",
                   "--window 70 --bpp FILE")
