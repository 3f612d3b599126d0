"""Motif readers: one file of each format, broken files (one-line errors naming file and line), the
PSSM model's presets and backgrounds, and the JASPAR database inside pyjaspar."""
import math
import os

import numpy as np
import pytest

from bioaccel.errors import InputError, InvalidParameter
from bioaccel.motif import PRESETS, PSSM, Background, read_motifs, read_raw

DATA = os.path.join(os.path.dirname(__file__), "data", "motifs")
ARNT_COUNTS = np.array([[4, 16, 0, 0], [19, 0, 1, 0], [0, 20, 0, 0], [0, 0, 20, 0], [0, 0, 0, 20],
                        [0, 0, 20, 0]], dtype=float)


def path(name):
    return os.path.join(DATA, name)


@pytest.mark.parametrize("name,fmt,ids,kind", [
    ("two.jaspar", "jaspar", ["MA0004.1", "MA9999.1"], "counts"),
    ("arnt.pfm", "matrix", ["arnt"], "counts"),
    ("two.meme", "meme", ["MA0004.1", "M2"], "frequencies"),
    ("arnt.transfac", "transfac", ["M00001"], "counts"),
    ("two.motif", "homer", ["Arnt(bHLH)/test", "polyA"], "frequencies"),
])
def test_each_format_reads_arnt(name, fmt, ids, kind):
    raws = read_raw(path(name))
    assert [r.motif_id for r in raws] == ids
    assert raws[0].kind == kind
    first = raws[0].values
    counts = first * 20 if kind == "frequencies" else first
    np.testing.assert_allclose(counts, ARNT_COUNTS, atol=1e-9)
    assert read_raw(path(name), fmt=fmt)[0].values.shape == (6, 4)


def test_plain_log_odds_and_frequency_matrices():
    logodds = read_motifs(path("logodds.txt"), kind="logodds")[0]
    with pytest.raises(InputError, match="pass --kind logodds"):
        read_motifs(path("logodds.txt"))
    np.testing.assert_allclose(logodds.scores[0], [1.0, -2.0, -2.0, -2.0])
    assert logodds.counts is None
    freq = read_raw(path("frequencies.txt"))[0]
    assert freq.kind == "frequencies"
    np.testing.assert_allclose(freq.values[0], [0.7, 0.1, 0.1, 0.1])     # rows A, C, G, T -> positions


@pytest.mark.parametrize("name,line,what", [
    ("broken_number.jaspar", 3, "'2x' is not a number"),
    ("broken_rows.jaspar", 4, "row G has 5 numbers"),
    ("broken.meme", 6, "expected 4 numbers"),
    ("broken.transfac", 5, "'zero' is not a number"),
    ("broken.motif", 3, "expected 4 numbers"),
    ("broken_matrix.txt", 2, "expected 4 numbers"),
])
def test_broken_files_name_file_and_line(name, line, what):
    with pytest.raises(InputError) as err:
        read_raw(path(name))
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"{path(name)}: line {line}: ")
    assert what in message


def test_missing_and_empty_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        read_raw(str(tmp_path / "nope.jaspar"))
    empty = tmp_path / "empty.txt"
    empty.write_text("\n")
    with pytest.raises(InputError, match="empty file"):
        read_raw(str(empty))


def test_presets_reproduce_fimo_and_moods_formulas():
    counts = ARNT_COUNTS
    bg = Background.from_frequencies([0.3, 0.2, 0.2, 0.3])
    f = bg.letter_frequencies
    for preset, ps, base in (("fimo", 0.1, 2.0), ("moods", 0.01, math.e)):
        assert PRESETS[preset] == {"pseudocount": ps, "log_base": base, "sites": "column"}
        pssm = PSSM.from_counts(counts, background=bg, preset=preset)
        expected = np.log((counts + ps * f) / (counts.sum(axis=1, keepdims=True) + ps) / f) / math.log(base)
        np.testing.assert_allclose(pssm.scores, expected)
    custom = PSSM.from_counts(counts, pseudocount=1.0, log_base=10)
    np.testing.assert_allclose(custom.scores[0, 0], math.log10((4 + 0.25) / 21 / 0.25))
    with pytest.raises(InvalidParameter, match="infinite"):
        PSSM.from_counts(counts, pseudocount=0.0)


def test_backgrounds(tmp_fasta):
    fa = tmp_fasta(">a\nAACGTN\n>b\nAC\n")
    bg0 = Background.from_fasta(fa, pseudocount=1.0)
    # letters: A 3, C 2, G 1, T 1 (N skipped), plus 1 each
    np.testing.assert_allclose(bg0.letter_frequencies, np.array([4, 3, 2, 2]) / 11)
    bg1 = Background.from_fasta(fa, order=1, pseudocount=1.0)
    assert bg1.order == 1 and bg1.transition.shape == (4, 4)
    # pairs: AA, AC, CG, GT (TN skipped), AC -> after A: A 1, C 2 (+1 each): 2/7, 3/7, 1/7, 1/7
    np.testing.assert_allclose(bg1.transition[0], np.array([2, 3, 1, 1]) / 7)
    np.testing.assert_allclose(Background.parse("A=0.3,C=0.2,G=0.2,T=0.3").letter_frequencies, [0.3, 0.2, 0.2, 0.3])
    assert Background.parse("uniform").order == 0
    with pytest.raises(InvalidParameter):
        Background.from_frequencies([0.5, 0.5, 0.0, 0.0])


def test_jaspar_database_specs():
    one = read_raw_spec("jaspar:MA0066.1")
    assert one[0].motif_id == "MA0066.1" and one[0].values.shape == (20, 4)
    assert read_raw_spec("jaspar:2024/MA0066")[0].motif_id == "MA0066.2"      # the latest version
    vertebrates = read_raw_spec("jaspar:2024/CORE/vertebrates")
    assert len(vertebrates) > 500
    assert len({m.motif_id.split(".")[0] for m in vertebrates}) == len(vertebrates)
    core = read_raw_spec("jaspar:2024/CORE")
    assert len(core) > len(vertebrates)
    with pytest.raises(InputError, match="no matrix"):
        read_raw_spec("jaspar:MA9999999.1")
    with pytest.raises(InputError, match="taxonomic group"):
        read_raw_spec("jaspar:2024/CORE/martians")
    with pytest.raises(InputError, match="unknown release"):
        read_raw_spec("jaspar:1999/CORE")


def read_raw_spec(spec):
    from bioaccel.motif._jaspar import fetch

    return fetch(spec)


def test_from_biopython_motif_and_pssm():
    from Bio import motifs

    with open(path("two.jaspar")) as handle:
        bio = list(motifs.parse(handle, "jaspar"))[0]
    ours = PSSM.from_biopython(bio)
    assert ours.motif_id == "MA0004.1"
    np.testing.assert_allclose(ours.counts, ARNT_COUNTS)
    bio.pseudocounts = 0.5
    kept = PSSM.from_biopython(bio.pssm, motif_id="arnt")
    np.testing.assert_allclose(kept.scores[0, 0], bio.pssm["A"][0])
    threshold = kept.distribution("exact").threshold_fpr(1e-3)     # Bio.motifs' spelling
    assert kept.min_score < threshold <= kept.max_score


@pytest.mark.parametrize("compress,suffix", [("gzip", ".gz"), ("bz2", ".bz2"), ("lzma", ".xz")])
def test_compressed_files_read_like_plain(tmp_path, compress, suffix):
    import importlib

    data = open(path("two.jaspar"), "rb").read()
    packed = tmp_path / ("two.jaspar" + suffix)
    packed.write_bytes(importlib.import_module(compress).compress(data))
    raws = read_raw(str(packed))
    assert [r.motif_id for r in raws] == ["MA0004.1", "MA9999.1"]
    np.testing.assert_allclose(raws[0].values, ARNT_COUNTS)
    broken = tmp_path / ("broken.jaspar" + suffix)
    broken.write_bytes(packed.read_bytes()[:-8])
    with pytest.raises(InputError, match="cannot read"):
        read_raw(str(broken))


def test_standard_input_and_bytes_that_are_not_text(tmp_path, monkeypatch):
    import io
    import sys

    data = open(path("two.jaspar"), "rb").read()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    assert [r.motif_id for r in read_raw("-")] == ["MA0004.1", "MA9999.1"]
    bad = tmp_path / "latin1.jaspar"
    bad.write_bytes(b">MA1 caf\xe9\nA [ 1 ]\nC [ 0 ]\nG [ 0 ]\nT [ 0 ]\n")
    with pytest.raises(InputError) as err:
        read_raw(str(bad))
    assert str(err.value) == f"{bad}: line 1: not a text file (byte 0xe9)"
    folder = tmp_path / "dir.jaspar"
    folder.mkdir()
    with pytest.raises(InputError, match="is a folder, expected a motif file"):
        read_raw(str(folder))
