import gzip
import io
import sys

import pytest

from bioaccel.errors import InputError
from bioaccel.inputs.fasta import Record, as_records, read_fasta


def test_multi_record_multi_line(tmp_fasta):
    path = tmp_fasta(">a first one\nACGU\nacgt\n\n>b\nGGGAAACCC\n")
    recs = list(read_fasta(path))
    assert [r.id for r in recs] == ["a", "b"]
    assert recs[0].description == "first one"
    assert recs[0].sequence == "ACGUacgt"          # as written: RNAfold prints the letters so
    assert recs[0].codes.tolist() == [0, 1, 2, 3, 0, 1, 2, 3]


def test_gzip(tmp_fasta):
    path = tmp_fasta(gzip.compress(b">g\nACGUN\n"), name="in.fa.gz")
    assert [r.sequence for r in read_fasta(path)] == ["ACGUN"]


def test_stdin(monkeypatch):
    fake = io.TextIOWrapper(io.BufferedReader(io.BytesIO(b">s\nGGGAAAUCC\n")))
    monkeypatch.setattr(sys, "stdin", fake)
    assert [r.id for r in read_fasta("-")] == ["s"]


@pytest.mark.parametrize(
    "text, message",
    [
        (">a\nACGU\nACXU\n", r"in\.fa: record 'a': invalid character 'X' at position 7 \(line 3\)"),
        ("", "no FASTA records"),
        ("@read1\nACGU\n", "line 1: expected a FASTA header"),
        (">\nACGU\n", "line 1: FASTA header has no sequence id"),
    ],
)
def test_bad_input_names_file_record_position(tmp_fasta, text, message):
    path = tmp_fasta(text)
    with pytest.raises(InputError, match=message):
        list(read_fasta(path))


def test_an_empty_record_is_an_empty_sequence(tmp_fasta):
    """A header without letters once was refused ("record 'a' (line 1) is empty"); one rule for every
    family now (issue 24): it is an empty sequence, which has the empty answer."""
    path = tmp_fasta(">a\n>b\nACGU\n>c x\n")
    assert [(r.id, r.sequence, r.description, len(r.codes)) for r in read_fasta(path)] == [
        ("a", "", "", 0), ("b", "ACGU", "", 4), ("c", "", "x", 0)]


def test_missing_file(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        list(read_fasta(tmp_path / "nope.fa"))


def test_as_records_from_strings_and_pairs():
    recs = as_records(["acgu", ("x", "GGG"), Record("r", "UU")])
    assert [(r.id, r.sequence) for r in recs] == [("seq1", "ACGU"), ("x", "GGG"), ("r", "UU")]
    assert as_records("ACGU")[0].sequence == "ACGU"
    with pytest.raises(InputError, match="record 'seq1': invalid character 'X' at position 2"):
        as_records(["AXG"])


def test_bare_sequences_are_records_one_a_line(tmp_fasta):
    """RNAfold's input without headers: each line one sequence, seq1, seq2, ..."""
    path = tmp_fasta("GGGAAAUCC\n\nacgu\n>named\nGG\nCC\n")
    assert [(r.id, r.sequence) for r in read_fasta(path)] == [("seq1", "GGGAAAUCC"), ("seq2", "acgu"),
                                                            ("named", "GGCC")]
