"""Reading sequences: FASTA files (multi-record, gzip, ``-`` for stdin) and plain strings.

Every later subcommand reads its sequences through here, so every one reports bad input the same way:
one line naming the file, the record, the 1-based position in the record and the line of the file.
"""
import gzip
import io
import os
import sys
from dataclasses import dataclass, field

import numpy as np

from .alphabet import encode, first_invalid
from .errors import InputError


@dataclass
class Record:
    """One sequence: its id (first word of the header), the rest of the header, the letters as read
    (upper case, T kept as written), and its codes (see :mod:`bioaccel.alphabet`)."""

    id: str
    sequence: str
    description: str = ""
    codes: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        if self.codes is None:
            self.codes = encode(self.sequence, where=f"record {self.id!r}")

    def __len__(self):
        return len(self.sequence)


def _open_text(path):
    """Open ``path`` for reading text, ``-`` meaning stdin; gzip is detected by its magic bytes."""
    if str(path) == "-":
        raw = sys.stdin.buffer
        head = raw.peek(2)[:2] if hasattr(raw, "peek") else b""
        stream = gzip.GzipFile(fileobj=raw) if head == b"\x1f\x8b" else raw
        return io.TextIOWrapper(stream, encoding="ascii", errors="replace")
    try:
        with open(path, "rb") as probe:
            magic = probe.read(2)
        if magic == b"\x1f\x8b":
            return io.TextIOWrapper(gzip.open(path, "rb"), encoding="ascii", errors="replace")
        return open(path, encoding="ascii", errors="replace")
    except FileNotFoundError:
        raise InputError(f"{path}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{path}: is a directory, expected a FASTA file") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read ({exc.strerror or exc})") from None


def read_fasta(path):
    """Yield the :class:`Record` of each sequence in the FASTA file ``path`` (``-`` for stdin).

    Raises :class:`~bioaccel.errors.InputError` for a missing or unreadable file, text before the first
    header, an empty record, an invalid letter, or a file with no record at all.
    """
    name = "<stdin>" if str(path) == "-" else os.fspath(path)
    header = None
    header_line = 0
    chunks = []
    length = 0
    count = 0
    with _open_text(path) as handle:
        try:
            for lineno, line in enumerate(handle, start=1):
                line = line.strip()
                if not line:
                    continue
                if line.startswith(">"):
                    if header is not None:
                        yield _finish(name, header, header_line, chunks)
                        count += 1
                    header, header_line, chunks, length = line[1:].strip(), lineno, [], 0
                    continue
                if header is None:
                    raise InputError(f"{name}: line {lineno}: expected a FASTA header starting with '>'")
                line = "".join(line.split())
                bad = first_invalid(line)
                if bad >= 0:
                    ident = header.split()[0] if header.split() else ""
                    raise InputError(
                        f"{name}: record {ident!r}: invalid character {line[bad]!r} at position "
                        f"{length + bad + 1} (line {lineno}); expected A, C, G, U/T or an IUPAC code"
                    )
                chunks.append(line.upper())
                length += len(line)
        except (OSError, EOFError, gzip.BadGzipFile) as exc:
            raise InputError(f"{name}: cannot read ({exc})") from None
    if header is not None:
        yield _finish(name, header, header_line, chunks)
        count += 1
    if count == 0:
        raise InputError(f"{name}: no FASTA records (empty input)")


def _finish(name, header, header_line, chunks):
    parts = header.split(None, 1)
    if not parts:
        raise InputError(f"{name}: line {header_line}: FASTA header has no sequence id")
    ident = parts[0]
    sequence = "".join(chunks)
    if not sequence:
        raise InputError(f"{name}: record {ident!r} (line {header_line}) is empty")
    return Record(ident, sequence, parts[1] if len(parts) > 1 else "")


def as_records(sequences, *, allow_empty=True):
    """Normalise what the Python API accepts into a list of :class:`Record`.

    Accepts one string, a Record, or an iterable of strings, Records or ``(id, sequence)`` pairs.
    Strings get the ids ``seq1``, ``seq2``, ... An empty string is a valid (empty) sequence here.
    """
    if isinstance(sequences, (str, bytes, Record)):
        sequences = [sequences]
    records = []
    for index, item in enumerate(sequences, start=1):
        if isinstance(item, Record):
            records.append(item)
        elif isinstance(item, (str, bytes)):
            text = item.decode() if isinstance(item, bytes) else item
            records.append(Record(f"seq{index}", "".join(text.split()).upper()))
        elif isinstance(item, tuple) and len(item) == 2:
            records.append(Record(str(item[0]), "".join(str(item[1]).split()).upper()))
        else:
            raise InputError(f"sequence {index}: expected a string, a Record or an (id, sequence) pair")
        if not allow_empty and len(records[-1]) == 0:
            raise InputError(f"sequence {index} ({records[-1].id!r}) is empty")
    return records
