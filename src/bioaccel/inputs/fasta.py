"""Reading sequences: FASTA files (multi-record, gzip, ``-`` for stdin) and plain strings.

Every later subcommand reads its sequences through here, so every one reports bad input the same way:
one line naming the file, the record, the 1-based position in the record and the line of the file.
"""
import os
from dataclasses import dataclass, field

import numpy as np

from .files import display_name, is_regular_file, open_text
from .alphabet import IUPAC_OTHER, describe_letter, encode, first_invalid
from ..errors import InputError


@dataclass
class Record:
    """One sequence: its id (first word of the header), the rest of the header, the letters as read
    (a file's as written, case and T kept; the API's strings in upper case), and its codes (see
    :mod:`bioaccel.inputs.alphabet`: lower case reads as upper case).

    >>> Record("r1", "ACGUN").codes.tolist()
    [0, 1, 2, 3, 4]
    """

    id: str
    sequence: str
    description: str = ""
    codes: np.ndarray = field(default=None, repr=False)

    def __post_init__(self):
        if self.codes is None:
            self.codes = encode(self.sequence, where=f"record {self.id!r}")

    def __len__(self):
        return len(self.sequence)


_BLANK = " \t\r\n"
_DROP = str.maketrans("", "", _BLANK)
# every letter a sequence may hold, deleted: a line that translates to "" needs no closer look
_LETTERS = "ACGTU" + IUPAC_OTHER
_DROP_LETTERS = str.maketrans("", "", _LETTERS + _LETTERS.lower())


def read_fasta(path):
    """Yield the :class:`Record` of each sequence in the FASTA file ``path`` (``-`` for stdin).

    Lines before the first header are bare sequences, one per line, as RNAfold reads them: the records
    ``seq1``, ``seq2``, ... (numbered by their place among all records). Raises
    :class:`~bioaccel.errors.InputError` for a missing or unreadable file, an invalid letter (a line
    that is no sequence at all is named as such), or a file with no record at all.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">r1 first\\nACGU\\n>r2\\nGGGAAAUCC\\n")
    >>> [(r.id, len(r)) for r in read_fasta(f.name)]
    [('r1', 4), ('r2', 9)]
    >>> with open(f.name, "w") as bare:
    ...     _ = bare.write("GGGAAAUCC\\nacgu\\n")
    >>> [(r.id, r.sequence) for r in read_fasta(f.name)]
    [('seq1', 'GGGAAAUCC'), ('seq2', 'acgu')]
    """
    name = display_name(path)
    header = None
    header_line = 0
    chunks = []
    length = 0
    count = 0
    with open_text(path, expected="a FASTA file") as handle:
        for lineno, line in enumerate(handle, start=1):
            line = line.strip(_BLANK)
            if not line:
                continue
            if line.startswith(">"):
                if header is not None:
                    yield _finish(name, header, header_line, chunks)
                    count += 1
                header, header_line, chunks, length = line[1:].strip(), lineno, [], 0
                continue
            if header is None:                  # a bare sequence: the whole line is one record
                yield _bare(name, line, lineno, count + 1)
                count += 1
                continue
            line = line.translate(_DROP)        # spaces and tabs inside a line; any other byte is checked
            bad = first_invalid(line) if line.translate(_DROP_LETTERS) else -1
            if bad >= 0:
                ident = header.split()[0] if header.split() else ""
                raise InputError(
                    f"{name}: record {ident!r}: invalid character {describe_letter(line[bad])} at position "
                    f"{length + bad + 1} (line {lineno}); expected A, C, G, U/T or an IUPAC code"
                )
            chunks.append(line)                # the letters as written: RNAfold prints them so
            length += len(line)
    if header is not None:
        yield _finish(name, header, header_line, chunks)
        count += 1
    if count == 0:
        raise InputError(f"{name}: no FASTA records (empty input)")


def scan_lengths(path):
    """The length of each record of the FASTA file ``path``, read quickly (letters are not checked:
    :func:`read_fasta` does that); None for standard input, a named pipe (``<(zcat x.fa.gz)``) or any
    other file that is not a regular one, since those cannot be read twice. Used to estimate the time
    and memory of a whole batch before its first record.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">r1\\nACGU\\nAC\\n>r2\\nGGG\\n")
    >>> scan_lengths(f.name), scan_lengths("-")
    ([6, 3], None)
    """
    if not is_regular_file(path):
        return None
    lengths, headed = [], False
    with open_text(path, expected="a FASTA file") as handle:
        for block in handle.blocks():
            for line in block.split("\n"):
                if line.startswith(">"):
                    lengths.append(0)
                    headed = True
                elif headed:
                    lengths[-1] += len(line.translate(_DROP))
                elif line.strip(_BLANK):             # a bare sequence before any header: a record each
                    lengths.append(len(line.translate(_DROP)))
    return lengths


def checked_lengths(path):
    """The length of each record of the FASTA file ``path``, every letter checked as :func:`read_fasta`
    checks it, so that a command whose rows are costly can refuse bad input before it writes its first
    row; None where the file cannot be read twice (see :func:`scan_lengths`).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">r1\\nACGU\\n>r2\\nGGX\\n")
    >>> checked_lengths(f.name)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InputError: ...: record 'r2': invalid character 'X' at position 3 (line 4); expected A, C, G, U/T or an IUPAC code
    """
    if not is_regular_file(path):
        if str(path) != "-" and os.path.isdir(path):
            open_text(path, expected="a FASTA file").close()     # refused now, not after the header row
        return None
    return [len(record) for record in read_fasta(path)]


def _bare(name, line, lineno, number):
    """The record ``seq<number>`` of a line without a header (RNAfold's input without FASTA headers)."""
    letters = line.translate(_DROP)
    bad = first_invalid(letters) if letters.translate(_DROP_LETTERS) else -1
    if bad == 0:
        raise InputError(f"{name}: line {lineno}: expected a FASTA header starting with '>' or a sequence, "
                         f"found {line[:20]!r}")
    if bad > 0:
        raise InputError(f"{name}: record 'seq{number}' (a sequence without a header): invalid character "
                         f"{describe_letter(letters[bad])} at position {bad + 1} (line {lineno}); expected A, C, "
                         "G, U/T or an IUPAC code")
    return Record(f"seq{number}", letters)


def _finish(name, header, header_line, chunks):
    parts = header.split(None, 1)
    if not parts:
        raise InputError(f"{name}: line {header_line}: FASTA header has no sequence id")
    return Record(parts[0], "".join(chunks), parts[1] if len(parts) > 1 else "")


def is_pair(item) -> bool:
    """Whether ``item`` is one ``(id, sequence)`` pair: a tuple of exactly two strings."""
    return isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item)


def as_records(sequences, *, allow_empty=True):
    """Normalise what the Python API accepts into a list of :class:`Record`.

    Accepts one string, a Record, one ``(id, sequence)`` pair (a tuple of two strings), or an iterable
    of strings, Records or pairs. Strings get the ids ``seq1``, ``seq2``, ... An empty string is a
    valid (empty) sequence here.

    >>> [(r.id, r.sequence) for r in as_records(("x", "acgu"))]
    [('x', 'ACGU')]
    >>> [r.id for r in as_records(["ACGU", ("y", "GG")])]
    ['seq1', 'y']
    """
    if isinstance(sequences, (str, bytes, Record)) or is_pair(sequences):
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
