"""Light line-by-line checks of motif files, run before Biopython parses them, so that a malformed file
is reported on one line naming the file and the 1-based line (Biopython's own errors rarely say where).
"""
import re

import numpy as np

from ..errors import InputError

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
NUM_RE = re.compile(_NUMBER)


def fail(path, lineno, message):
    raise InputError(f"{path}: line {lineno}: {message}")


def check_numeric_row(path, lineno, line, expect=None, strip=None):
    body = strip(line) if strip else line
    tokens = body.replace("[", " ").replace("]", " ").replace(":", " ").split()
    try:
        values = [float(t) for t in tokens]
    except ValueError:
        bad = next(t for t in tokens if not NUM_RE.fullmatch(t))
        fail(path, lineno, f"{bad!r} is not a number")
    if expect is not None and len(values) != expect:
        fail(path, lineno, f"expected {expect} numbers, found {len(values)}")
    if not all(np.isfinite(values)):
        fail(path, lineno, "not a finite number")
    return values


def check_jaspar(path, text):
    """'>ID name' then rows 'A [ n n ... ]' for A, C, G, T, all of one length."""
    lines = text.splitlines()
    i, n = 0, len(lines)
    seen = 0
    while i < n:
        line = lines[i].strip()
        if not line or line.startswith("#"):
            i += 1
            continue
        if not line.startswith(">"):
            fail(path, i + 1, f"expected a '>ID name' header, found {line[:30]!r}")
        header_line = i + 1
        i += 1
        width = None
        for letter in "ACGT":
            while i < n and not lines[i].strip():
                i += 1
            if i >= n:
                fail(path, i, f"motif at line {header_line}: missing the {letter} row")
            row = lines[i].strip()
            if not row.upper().startswith(letter) and not (letter == "T" and row.upper().startswith("U")):
                fail(path, i + 1, f"expected the {letter} row, found {row[:30]!r}")
            values = check_numeric_row(path, i + 1, row[1:])
            if width is None:
                width = len(values)
                if width == 0:
                    fail(path, i + 1, "empty row")
            elif len(values) != width:
                fail(path, i + 1, f"row {letter} has {len(values)} numbers, row A has {width}")
            if any(v < 0 for v in values):
                fail(path, i + 1, "negative count")
            i += 1
        seen += 1
    if not seen:
        raise InputError(f"{path}: no motif found")


def check_transfac(path, text):
    lines = text.splitlines()
    in_matrix = False
    found = False
    for i, raw in enumerate(lines):
        line = raw.rstrip()
        key = line[:2]
        if key in ("P0", "PO"):
            in_matrix = True
            found = True
            cols = line.split()[1:]
            if [c.upper() for c in cols[:4]] not in (list("ACGT"), list("ACGU")):
                fail(path, i + 1, f"expected the columns A C G T, found {' '.join(cols)!r}")
            continue
        if in_matrix:
            if re.match(r"^\d+\s", line):
                fields = line.split()
                values = check_numeric_row(path, i + 1, " ".join(fields[1:5]), expect=4)
                if len(fields) < 5:
                    fail(path, i + 1, f"expected 4 numbers, found {len(fields) - 1}")
                if any(v < 0 for v in values):
                    fail(path, i + 1, "negative count")
                continue
            if key in ("XX", "//") or not line.strip():
                in_matrix = False
                continue
            fail(path, i + 1, f"expected a matrix row 'NN a c g t', found {line[:30]!r}")
    if not found:
        raise InputError(f"{path}: no matrix (no 'P0' line) found")


def check_homer(path, text):
    lines = text.splitlines()
    seen = False
    rows = 0
    for i, line in enumerate(lines):
        if not line.strip():
            continue
        if line.startswith(">"):
            if seen and rows == 0:
                fail(path, i + 1, "motif without matrix rows before this header")
            seen, rows = True, 0
            continue
        if not seen:
            fail(path, i + 1, f"expected a '>' header, found {line[:30]!r}")
        values = check_numeric_row(path, i + 1, line, expect=4)
        if any(v < 0 for v in values):
            fail(path, i + 1, "negative probability")
        rows += 1
    if not seen:
        raise InputError(f"{path}: no motif found")
    if rows == 0:
        fail(path, len(lines), "motif without matrix rows")
