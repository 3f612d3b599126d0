"""The fold command's array path (cli/fold_arrays.py) writes, byte for byte, what the per-record path
writes: random FASTA files of awkward records (descriptions, odd spacing, non-ASCII and JSON-escaped
headers, lower case, T, N, empty sequences, wrapped and blank lines), both models, vienna and JSON
Lines, --noconv, standard output and -o FILE, chunks forced small so that many are crossed; and its
journal resumes as the per-record one does."""
import io
import os
import random

import numpy as np
import pytest

from bioaccel.cli import fold_arrays
from bioaccel.cli.main import main
from bioaccel.inputs.fasta import read_fasta
from bioaccel.inputs.fasta_bulk import read_fasta_arrays

HEADS = ["", " a description", "   two  spaces\t", "\tcaf\xe9 au lait", ' q"uote\\back', "\x0bvt", " \xa0nbsp"]


def awkward_fasta(path, count, seed, longest=60):
    rng = random.Random(seed)
    with open(path, "w", encoding="latin-1") as handle:
        for k in range(count):
            n = rng.choice([0, 1, 2, 4, 5, 9, 17, rng.randint(0, longest)])
            letters = "".join(rng.choice("ACGUTNacgutnRy") for _ in range(n))
            ident = rng.choice([f"r{k}", f"id\xe9{k}", f'q"{k}', f"b\\{k}"])
            handle.write(rng.choice([">", " >", ">  "]) + ident + rng.choice(HEADS) + rng.choice(["", " ", "\t"]) + "\n")
            width = rng.choice([7, 30, 80])
            for i in range(0, n, width):
                handle.write(letters[i:i + width] + rng.choice(["", " ", "\r"]) + "\n")
            if rng.random() < 0.2:
                handle.write(rng.choice(["\n", "  \n", "\t\n"]))
    return str(path)


@pytest.fixture
def small_chunks(monkeypatch):
    """The array path for any file, in chunks of 7 records."""
    monkeypatch.setattr(fold_arrays, "MIN_BYTES", 0)
    monkeypatch.setattr(fold_arrays, "MIN_RECORDS", 0)
    monkeypatch.setattr(fold_arrays, "CHUNK_RECORDS", 7)


def fold(argv, arrays, monkeypatch):
    """``(status, stdout, stderr, whether the array path wrote it)``."""
    taken = []
    run = fold_arrays.run

    def spy(*args, **kwargs):
        status = "raised"                  # an error inside: the array path had the run
        try:
            status = run(*args, **kwargs)
            return status
        finally:
            taken.append(status is not None)

    with monkeypatch.context() as patch:
        patch.setattr(fold_arrays, "run", spy)
        if not arrays:
            patch.setattr(fold_arrays, "applies", lambda args: False)
        out, err = io.StringIO(), io.StringIO()
        code = main(["fold", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue(), any(taken)


def test_bulk_reader_reads_what_read_fasta_reads(tmp_path):
    for seed in range(6):
        path = awkward_fasta(tmp_path / f"r{seed}.fa", 60, seed)
        arrays = read_fasta_arrays(path)
        records = list(read_fasta(path))
        assert len(arrays) == len(records)
        heads = arrays.headers.tobytes()
        for k, record in enumerate(records):
            header = heads[arrays.hstarts[k]:arrays.hstarts[k + 1]].decode("utf-8")
            assert header == (f"{record.id} {record.description}" if record.description else record.id)
            assert header[:len(header.encode("utf-8")[:arrays.id_bytes[k]].decode("utf-8"))] == record.id
            letters = arrays.letters[arrays.starts[k]:arrays.starts[k + 1]].tobytes().decode("ascii")
            assert letters == record.sequence
            assert arrays.codes[arrays.starts[k]:arrays.starts[k + 1]].tolist() == record.codes.tolist()


def test_bulk_reader_reads_compressed_files_and_a_byte_order_mark(tmp_path):
    import gzip

    text = "\ufeff>a x\r\nACGU\rGG\n>b\n".encode("utf-8")
    for name, data in (("plain.fa", text), ("packed.fa.gz", gzip.compress(text))):
        path = tmp_path / name
        path.write_bytes(data)
        arrays = read_fasta_arrays(str(path))
        assert [r.sequence for r in read_fasta(str(path))] == ["ACGUGG", ""]
        assert arrays.letters.tobytes() == b"ACGUGG" and arrays.headers.tobytes() == b"a xb"
        assert arrays.starts.tolist() == [0, 6, 6] and not arrays.has_t


@pytest.mark.parametrize("text", [">a\nACGX\n", "ACGU\n>a\nAC\n", ">\nACGU\n", "", "\n\n", ">a\nAC\n> \nGG\n"])
def test_bulk_reader_leaves_what_needs_a_message_to_read_fasta(tmp_path, text):
    path = tmp_path / "odd.fa"
    path.write_text(text)
    assert read_fasta_arrays(str(path)) is None


@pytest.mark.parametrize("model", ["nussinov", "turner2004"])
@pytest.mark.parametrize("fmt", ["vienna", "json"])
def test_array_path_writes_the_per_record_bytes(tmp_path, monkeypatch, small_chunks, model, fmt):
    path = awkward_fasta(tmp_path / "in.fa", 90, seed=hash((model, fmt)) % 1000)
    for noconv in ([], ["--noconv"]):
        argv = [path, "--model", model, "--format", fmt, *noconv]
        new, old = fold(argv, True, monkeypatch), fold(argv, False, monkeypatch)
        assert new[3] and not old[3]
        assert new[:3] == old[:3]
        for name, arrays in (("a.out", True), ("b.out", False)):
            code, _, err, _ = fold(argv + ["-o", str(tmp_path / name)], arrays, monkeypatch)
            assert code == 0, err
        assert (tmp_path / "a.out").read_bytes() == (tmp_path / "b.out").read_bytes()
        assert not any(name.endswith(".partial") for name in os.listdir(tmp_path))


def test_model_options_and_fractional_weights(tmp_path, monkeypatch, small_chunks):
    monkeypatch.setattr(fold_arrays, "GROUP", {"cpu": 3, "gpu": 3})      # chunks folded three at a time
    path = awkward_fasta(tmp_path / "in.fa", 40, seed=5)
    for options in (["--model", "nussinov", "--gu", "0.5", "--min-loop", "1"], ["--model", "nussinov", "--no-gu"],
                    ["--no-lp", "-T", "25"]):
        for fmt in ("vienna", "json"):
            argv = [path, "--format", fmt, *options]
            new, old = fold(argv, True, monkeypatch), fold(argv, False, monkeypatch)
            assert new[3] and new[:3] == old[:3]


def test_what_the_array_path_leaves_to_the_per_record_one(tmp_path, monkeypatch, small_chunks):
    bad = tmp_path / "bad.fa"
    bad.write_text(">a\nACGU\n>b\nACXU\n")
    new, old = fold([str(bad)], True, monkeypatch), fold([str(bad)], False, monkeypatch)
    assert new[:3] == old[:3] and new[0] == 2 and not new[3]
    good = awkward_fasta(tmp_path / "in.fa", 20, seed=3)
    for options in (["--format", "ct"], ["--model", "nussinov", "--variant", "naive"]):
        assert not fold([good, *options], True, monkeypatch)[3]
    monkeypatch.setattr(fold_arrays, "MAX_LENGTH", 10)
    assert not fold([good], True, monkeypatch)[3]


def _failing_after(monkeypatch, chunks):
    """fold_packed raising KeyboardInterrupt once ``chunks`` chunks are done (a Ctrl-C mid-run)."""
    import bioaccel.fold as fold_wing

    real = fold_wing.fold_packed
    calls = []

    def fold_packed(*args, **kwargs):
        calls.append(1)
        if len(calls) > chunks:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(fold_wing, "fold_packed", fold_packed)
    return calls


def test_resume_finishes_a_stopped_run(tmp_path, monkeypatch, small_chunks):
    path = awkward_fasta(tmp_path / "in.fa", 60, seed=8)
    out = str(tmp_path / "out.txt")
    expected = fold([path], False, monkeypatch)[1]
    with monkeypatch.context() as patch:
        calls = _failing_after(patch, 3)
        assert fold([path, "-o", out, "-q"], True, patch)[:3] == (130, "", "bioaccel fold: interrupted\n")
    assert not os.path.exists(out) and os.path.exists(out + ".partial")
    with open(out + ".partial", "ab") as handle:          # a chunk cut short by the crash
        handle.write(b'{"chunk":3,"bytes":500}\n>r1\nAC')
    with monkeypatch.context() as patch:
        calls = _failing_after(patch, 100)
        code, _, err, taken = fold([path, "-o", out, "--resume", "-q"], True, patch)
    assert code == 0 and taken, err
    assert len(calls) == -(-60 // 7) - 3                 # only the chunks not kept are folded
    assert open(out).read() == expected and not os.path.exists(out + ".partial")
    # another run's journal: refused, as the per-record path refuses it
    (tmp_path / "out.txt.partial").write_text('{"bioaccel":"0","batch":"other"}\n')
    code, _, err, _ = fold([path, "-o", out, "--resume", "-q"], True, monkeypatch)
    assert code == 2 and "holds the results of another run" in err


def test_resume_of_a_per_record_journal_is_finished_by_that_path(tmp_path, monkeypatch, small_chunks):
    path = awkward_fasta(tmp_path / "in.fa", 30, seed=9)
    out = str(tmp_path / "out.txt")
    expected = fold([path], False, monkeypatch)[1]
    from bioaccel.cli import journal

    with monkeypatch.context() as patch:
        added = []
        real = journal.Journal.add

        def add(self, key, entry=None, *, error=None):
            if len(added) == 5:
                raise KeyboardInterrupt
            added.append(key)
            return real(self, key, entry, error=error)

        patch.setattr(journal.Journal, "add", add)
        assert fold([path, "-o", out, "-q"], False, patch)[0] == 130
    code, _, err, taken = fold([path, "-o", out, "--resume", "-q"], True, monkeypatch)
    assert code == 0 and not taken, err
    assert open(out).read() == expected


def test_unwritable_output_is_one_line(tmp_path, monkeypatch, small_chunks):
    path = awkward_fasta(tmp_path / "in.fa", 30, seed=10)
    code, _, err, taken = fold([path, "-o", "/dev/full"], True, monkeypatch)
    assert code == 2 and err.count("\n") == 1 and "/dev/full" in err and taken


def test_text_of_empty_and_single_records():
    from bioaccel.fold import FoldParams, TurnerModel, packed_text
    from bioaccel.inputs.fasta_bulk import FastaArrays

    records = FastaArrays(np.zeros(0, np.uint8), np.array([0, 0]), np.frombuffer(b"e", np.uint8),
                          np.array([0, 1]), np.array([1]))
    for params, value in ((FoldParams(), " 0"), (TurnerModel(), "  0.00")):
        text = packed_text("vienna", records, np.array([0]), np.zeros(0, np.uint8), params=params, variant="v",
                           backend="cpu")
        assert text.tobytes() == f">e\n\n ({value})\n".encode()


@pytest.mark.gpu
@pytest.mark.parametrize("model", ["nussinov", "turner2004"])
def test_gpu_array_path_writes_the_per_record_bytes(tmp_path, monkeypatch, small_chunks, model):
    path = awkward_fasta(tmp_path / "in.fa", 200, seed=12, longest=300)
    for fmt in ("vienna", "json"):
        argv = [path, "--model", model, "--format", fmt, "--backend", "gpu"]
        new, old = fold(argv, True, monkeypatch), fold(argv, False, monkeypatch)
        assert new[3] and new[:3] == old[:3]
        cpu = fold([path, "--model", model, "--format", "vienna"], True, monkeypatch)
        if fmt == "vienna":
            assert cpu[1] == new[1]
