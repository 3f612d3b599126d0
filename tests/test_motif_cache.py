"""The cache of a motif file's scored matrices (bioaccel.motif._motif_cache): read back, every field of
every PSSM is the one parsing and scoring gives, bit for bit; the key follows the file's text, format,
kind and scoring parameters (not its name); ``cache=False`` and ``--no-cache`` neither read nor write."""
import dataclasses
import sqlite3

import numpy as np
import pytest

from bioaccel.cli.main import main
from bioaccel.motif import MotifParams, read_motifs
from bioaccel.motif._threshold_cache import cache_path

JASPAR = """>MA0001.1 AGL3
A  [ 0  3 79 40 66 48 65 11 65  0 ]
C  [94 75  4  3  1  2  5  2  3  3 ]
G  [ 1  0  3  4  1  0  5  3 28 88 ]
T  [ 2 19 11 50 29 47 22 81  1  6 ]
>MA0002.1 RUNX1
A  [10 12  4  1  2  2  0  0  0  8 13 ]
C  [ 2  2  7  1  0  8  0  0  1  2  2 ]
G  [ 3  1  1  0 23  0 26 26  0  0  4 ]
T  [11 11 14 24  1 16  0  0 25 16  7 ]
"""

MEME = """MEME version 4

ALPHABET= ACGT

Background letter frequencies
A 0.3 C 0.2 G 0.2 T 0.3

MOTIF m1 first
letter-probability matrix: alength= 4 w= 3 nsites= 12
0.5 0.2 0.2 0.1
0.1 0.1 0.7 0.1
0.25 0.25 0.25 0.25
"""


def same(a, b) -> bool:
    """Every field of PSSMs ``a`` and ``b`` equal, arrays bit for bit."""
    for f in dataclasses.fields(a):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray) or isinstance(y, np.ndarray):
            if x is None or y is None or x.dtype != y.dtype or x.shape != y.shape or x.tobytes() != y.tobytes():
                return False
        elif f.name == "background":
            if not (np.array_equal(x.initial, y.initial) and np.array_equal(x.transition, y.transition)):
                return False
        elif type(x) is not type(y) or x != y:
            return False
    return True


def stored(path) -> int:
    """How many entries the cache's ``motifs`` table holds (0 when there is no cache file)."""
    if not path.exists():
        return 0
    with sqlite3.connect(str(path)) as db:
        tables = {row[0] for row in db.execute("SELECT name FROM sqlite_master")}
        return db.execute("SELECT COUNT(*) FROM motifs").fetchone()[0] if "motifs" in tables else 0


@pytest.mark.parametrize("name, text, params", [
    ("m.jaspar", JASPAR, MotifParams()),
    ("m.jaspar", JASPAR, MotifParams(background="0.3,0.2,0.2,0.3", preset="moods")),
    ("m.meme", MEME, MotifParams(preset="meme")),
    ("m.meme", MEME, MotifParams(preset="homer")),
], ids=["jaspar", "jaspar-moods-skewed", "meme", "meme-homer"])
def test_motifs_read_back_are_those_parsed_and_scored(cache_dir, tmp_path, name, text, params):
    path = tmp_path / name
    path.write_text(text)
    parsed = read_motifs(str(path), params=params)
    first = read_motifs(str(path), params=params, cache=True)      # parsed, then stored
    assert stored(cache_path()) == 1
    again = read_motifs(str(path), params=params, cache=True)      # read back
    assert len(parsed) == len(first) == len(again) > 0
    assert all(same(a, b) and same(a, c) for a, b, c in zip(parsed, first, again))


def test_the_key_is_the_text_and_the_scoring_not_the_name(cache_dir, tmp_path):
    a, b = tmp_path / "a.jaspar", tmp_path / "b.jaspar"
    a.write_text(JASPAR)
    b.write_text(JASPAR)
    read_motifs(str(a), cache=True)
    from_b = read_motifs(str(b), cache=True)
    assert stored(cache_path()) == 1 and {m.source for m in from_b} == {str(b)}
    a.write_text(JASPAR.replace("94 75", "93 75"))             # one count changed: read again
    changed = read_motifs(str(a), cache=True)
    assert stored(cache_path()) == 2 and changed[0].counts[0, 1] == 93
    moods = read_motifs(str(b), params=MotifParams(preset="moods"), cache=True)
    assert stored(cache_path()) == 3 and not np.array_equal(moods[0].scores, from_b[0].scores)


def test_without_the_cache_nothing_is_read_or_written(cache_dir, tmp_path, capsys):
    path = tmp_path / "m.jaspar"
    path.write_text(JASPAR)
    read_motifs(str(path))
    assert stored(cache_path()) == 0
    seq = tmp_path / "s.fa"
    seq.write_text(">s\nACGTTGCAAACCCGGGTTTACGATCGATCGTAGCTAGCTAGCTGATCGATCGA\n")
    assert main(["scan", str(path), str(seq), "--no-cache", "-q", "-o", str(tmp_path / "a.tsv")]) == 0
    assert stored(cache_path()) == 0
    assert main(["scan", str(path), str(seq), "-q", "-o", str(tmp_path / "b.tsv")]) == 0
    assert stored(cache_path()) == 1
    assert main(["scan", str(path), str(seq), "-q", "-o", str(tmp_path / "c.tsv")]) == 0     # read back
    assert (tmp_path / "a.tsv").read_bytes() == (tmp_path / "b.tsv").read_bytes() == (tmp_path / "c.tsv").read_bytes()


def test_a_damaged_entry_is_read_from_the_file_again(cache_dir, tmp_path):
    path = tmp_path / "m.jaspar"
    path.write_text(JASPAR)
    parsed = read_motifs(str(path), cache=True)
    with sqlite3.connect(str(cache_path())) as db:
        db.execute("UPDATE motifs SET value = ?", (b"\x05\x00\x00\x00\x00\x00\x00\x00[1,2",))
    again = read_motifs(str(path), cache=True)
    assert all(same(a, b) for a, b in zip(parsed, again))
