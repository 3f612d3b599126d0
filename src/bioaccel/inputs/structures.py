"""Reading sequences with a structure each, as RNAeval reads them and as ``bioaccel fold`` writes them
(vienna): a record is an optional ``>id`` header, its sequence (one or more lines), and a dot-bracket
line of the same length, optionally followed by a value in brackets (``((...)) ( -1.20)``), which is
ignored. Without headers, lines alternate sequence, structure (the records are ``seq1``, ``seq2``, ...).

Errors name the file, the record and the line, as :mod:`.fasta`'s do.
"""
import re
from typing import Iterator

from .fasta import Record
from .files import display_name, open_text
from ..errors import InputError

#: Letters of a structure line: pairs as brackets, unpaired positions as dots.
STRUCTURE_LETTERS = "()."
_STRUCTURE = re.compile(r"^([().]+)(?:\s+[(\[]\s*[-+0-9.eE]+\s*[)\]])?\s*$")


def read_structures(path) -> Iterator[tuple]:
    """Yield ``(Record, structure)`` for each record of ``path`` (``-``: standard input).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as f:
    ...     _ = f.write(">a first\\nGGGAAAUCC\\n(((...))) ( -1.20)\\nGGGGAAAACCCC\\n((((....))))\\n")
    >>> [(r.id, s) for r, s in read_structures(f.name)]
    [('a', '(((...)))'), ('seq2', '((((....))))')]
    """
    name = display_name(path)
    header, header_line, lines, count = None, 0, [], 0
    with open_text(path, expected="a file of sequences and structures") as handle:
        for lineno, raw in enumerate(handle, start=1):
            line = raw.strip()
            if not line:
                continue
            if line.startswith(">"):
                if header is not None or lines:
                    raise _missing(name, header, header_line or lineno, count)
                header, header_line = line[1:].strip(), lineno
                continue
            match = _STRUCTURE.match(line)
            if match is None:
                lines.append((lineno, "".join(line.split())))
                continue
            count += 1
            yield _record(name, header, header_line, count, lines, match.group(1), lineno)
            header, header_line, lines = None, 0, []
    if header is not None or lines:
        raise _missing(name, header, header_line or lines[0][0], count)
    if count == 0:
        raise InputError(f"{name}: no sequence with a structure (expected a sequence line, then a dot-bracket line)")


def _ident(header, count) -> str:
    words = (header or "").split()
    return words[0] if words else f"seq{count}"


def _missing(name, header, line, count):
    return InputError(f"{name}: record {_ident(header, count + 1)!r} (line {line}): no structure line after "
                      "its sequence (expected a line of '(', ')' and '.')")


def _record(name, header, header_line, count, lines, structure, structure_line):
    ident = _ident(header, count)
    if not lines:
        raise InputError(f"{name}: record {ident!r} (line {structure_line}): a structure with no sequence before it")
    sequence = "".join(text for _, text in lines)
    try:
        record = Record(ident, sequence, " ".join((header or "").split()[1:]))
    except InputError as exc:
        raise InputError(f"{name}: {exc} (line {lines[0][0]})") from None
    if len(structure) != len(sequence):
        raise InputError(f"{name}: record {ident!r} (line {structure_line}): the structure has {len(structure):,} "
                         f"positions, the sequence {len(sequence):,}")
    return record, structure
