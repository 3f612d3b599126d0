"""``bioaccel fold --format json`` carries each FASTA header's description (the text after the id; ""
where there is none) in a ``description`` field after ``id``, as the vienna layout carries it in its
header: the per-record writer, the packed path of many records (the same bytes), the ensemble's
(--partition) JSON and the batch path (-o)."""
import io
import json

import pytest

from bioaccel.cli.main import main

HEADERS = ["r1 a plain description", "r2", 'r3 quote " and back\\slash', "r4 tab\there", "r5   spaced  out "]


def _fasta(path, count, seed=3):
    import random

    rng = random.Random(seed)
    lines = []
    for k in range(count):
        header = HEADERS[k % len(HEADERS)].replace(HEADERS[k % len(HEADERS)].split()[0], f"r{k}", 1)
        lines.append(f">{header}\n{''.join(rng.choice('ACGU') for _ in range(rng.randint(20, 60)))}\n")
    path.write_text("".join(lines))
    return str(path)


def _rows(argv):
    out = io.StringIO()
    assert main([*argv, "--format", "json", "-q"], stdout=out) == 0
    return [json.loads(line) for line in out.getvalue().splitlines()]


def _expected(path):
    from bioaccel.inputs.fasta import read_fasta

    return [(r.id, r.description) for r in read_fasta(path)]


@pytest.mark.parametrize("options", [[], ["--model", "nussinov"], ["--partition"]])
def test_fold_json_has_the_description_after_the_id(tmp_path, options):
    path = _fasta(tmp_path / "few.fa", 5)
    rows = _rows(["fold", path, *options])
    assert [(r["id"], r["description"]) for r in rows] == _expected(path)
    assert all(list(r)[:2] == ["id", "description"] for r in rows)
    assert rows[0]["description"] == "a plain description" and rows[1]["description"] == ""


def test_fold_json_to_a_file_has_the_description(tmp_path):
    path = _fasta(tmp_path / "few.fa", 5)
    target = tmp_path / "out.json"
    assert main(["fold", path, "--format", "json", "-q", "-o", str(target)]) == 0
    rows = [json.loads(line) for line in target.read_text().splitlines()]
    assert [(r["id"], r["description"]) for r in rows] == _expected(path)


def test_packed_json_of_many_records_is_the_per_record_text(tmp_path):
    import os

    from bioaccel.cli.fold_arrays import MIN_BYTES, MIN_RECORDS
    from bioaccel.cli.fold_batch import written
    from bioaccel.fold import FoldWriter, fold
    from bioaccel.inputs.fasta import read_fasta

    path = _fasta(tmp_path / "many.fa", MIN_RECORDS + 5)
    assert os.path.getsize(path) >= MIN_BYTES           # the packed path's sizes
    out = io.StringIO()
    assert main(["fold", path, "--format", "json", "-q"], stdout=out) == 0
    expected = io.StringIO()
    FoldWriter(expected, "json").write(written(fold(list(read_fasta(path))), noconv=False))
    assert out.getvalue() == expected.getvalue()
    rows = [json.loads(line) for line in out.getvalue().splitlines()]
    assert [(r["id"], r["description"]) for r in rows] == _expected(path)


def test_packed_text_descriptions_directly():
    import numpy as np

    from bioaccel.fold import FoldParams, packed_text
    from bioaccel.inputs.fasta_bulk import FastaArrays

    heads = b'a say "hi"b' + b"c x"
    records = FastaArrays(np.frombuffer(b"GGGAAACCCGGAACU", np.uint8), np.array([0, 9, 11, 15]),
                          np.frombuffer(heads, np.uint8), np.array([0, 10, 11, 14]), np.array([1, 1, 1]))
    text = packed_text("json", records, np.array([3, 0, 0]), np.frombuffer(b"(((...)))......", np.uint8),
                       params=FoldParams(), variant="tiled", backend="cpu")
    rows = [json.loads(line) for line in text.tobytes().decode().splitlines()]
    assert [(r["id"], r["description"]) for r in rows] == [("a", 'say "hi"'), ("b", ""), ("c", "x")]
