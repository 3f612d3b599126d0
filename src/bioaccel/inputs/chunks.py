"""Genome-sized FASTA in bounded memory: each record's letters as codes, in chunks that overlap.

A chunk holds the windows starting at ``start .. start + size - 1`` of its record, and the letters they
need: ``size + overlap`` letters (fewer at the record's end), so a window of up to ``overlap + 1``
letters lies whole in exactly one chunk and none is lost or reported twice at a border. Memory is
about ``size + overlap`` codes plus the reader's line buffer, whatever the record's length. Letters are
checked as :func:`bioaccel.inputs.fasta.read_fasta` checks them (the same one-line errors).
"""
from dataclasses import dataclass

import numpy as np

from .files import display_name, open_text
from .alphabet import describe_letter, encode, first_invalid
from ..errors import InputError

#: What a sequence line may hold beside letters and still take the fast path.
_LAYOUT = str.maketrans("", "", " \t\r\n")


def header_lines(block):
    r"""(start, end) of each header line of ``block``: ``>`` after nothing but spaces, tabs and carriage
    returns on its line (as :func:`bioaccel.inputs.fasta.read_fasta` reads one), to the line's end. Found by
    ``str.find`` (a C loop over the block), where a multi-line regular expression held the reading thread,
    and the interpreter's lock, 1.6 s of a 100 Mb scan on an H100 machine.

    >>> [(a, b) for a, b in header_lines(">r1 x\nACGT\n \t>r2\nAC>GT\n>")]
    [(0, 5), (11, 16), (23, 24)]
    """
    at = block.find(">")
    while at >= 0:
        line = block.rfind("\n", 0, at) + 1
        end = block.find("\n", at)
        end = len(block) if end < 0 else end
        if not block[line:at].strip(" \t\r"):
            yield line, end
        at = block.find(">", end)


def _letters(text):
    r"""``text`` without spaces, tabs and line ends: ``str.replace`` where only line ends are there (the
    usual FASTA; several times faster than ``str.translate``)."""
    if " " in text or "\t" in text or "\r" in text:
        return text.translate(_LAYOUT)
    return text.replace("\n", "")


#: Letters per chunk by default (plus the overlap): 4 MB of codes.
CHUNK = 1 << 22
#: The name of the one sequence of a file without headers.
BARE_RECORD = "seq1"


@dataclass
class Chunk:
    """``codes[k]`` is the letter at 0-based position ``start + k`` of record ``record``; windows starting
    at ``start`` .. ``start + windows - 1`` are this chunk's (a window must still fit in ``codes``);
    ``last``: the record's last chunk."""

    record: str
    description: str
    start: int
    codes: np.ndarray
    windows: int
    last: bool


def split_codes(record, description, codes, *, size=CHUNK, overlap=0):
    """The chunks of one sequence held in memory (``codes``), as :func:`read_chunks` cuts a file's.

    >>> [(c.start, c.windows, len(c.codes), c.last) for c in split_codes("r", "", np.arange(7), size=3, overlap=1)]
    [(0, 3, 4, False), (3, 3, 4, False), (6, 1, 1, True)]
    """
    if size < 1 or overlap < 0:
        raise ValueError("chunk size must be >= 1 and overlap >= 0")
    n = len(codes)
    for start in range(0, n, size):
        windows = min(size, n - start)
        yield Chunk(record, description, start, codes[start:start + windows + overlap], windows,
                    start + windows >= n)


def read_chunks(path, *, size=CHUNK, overlap=0):
    """Yield the :class:`Chunk` of every record of the FASTA file ``path`` (``-``: standard input).
    An empty record (a header and no letters) is an empty sequence: it has no window, so no chunk.
    Letters before the first header (a file without headers) are one sequence, ``seq1``: a genome's
    lines wrapped, not one sequence a line as RNAfold reads a list of RNAs.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">a\\nACGTACG\\nTA\\n>b\\nGG\\n")
    >>> [(c.record, c.start, c.windows, len(c.codes)) for c in read_chunks(f.name, size=4, overlap=2)]
    [('a', 0, 4, 6), ('a', 4, 5, 5), ('b', 0, 2, 2)]
    >>> with open(f.name, "w") as bare:
    ...     _ = bare.write("ACGT\\nAC\\n")
    >>> [(c.record, c.windows) for c in read_chunks(f.name)]
    [('seq1', 6)]
    """
    if size < 1 or overlap < 0:
        raise ValueError("chunk size must be >= 1 and overlap >= 0")
    name = display_name(path)
    record = None
    description = ""
    buffer = np.empty(size + overlap + (1 << 16), dtype=np.uint8)
    filled = 0          # codes held in buffer: letters from position `start` on
    start = 0           # record position of buffer[0]
    seen = 0            # letters of the record read so far
    records = 0

    def emit(final):
        """The chunks the buffer holds now (all of them when ``final``); keeps the overlap."""
        nonlocal filled, start
        out = []
        # a chunk is sent before the record ends only when a letter past its windows is held (filled >
        # size): with no overlap, a record of exactly `size` letters would otherwise end in a chunk not
        # marked `last`
        while (filled >= size + overlap and filled > size) or (final and filled > 0):
            windows = size if filled >= size + overlap else filled
            take = min(filled, windows + overlap)
            last = final and windows == filled
            out.append(Chunk(record, description, start, buffer[:take].copy(), windows, last))
            if last:
                filled = 0
                break
            buffer[:filled - windows] = buffer[windows:filled]
            filled -= windows
            start += windows
        return out

    def feed(codes):
        """Put a record's codes in the buffer, yielding the chunks that fill."""
        nonlocal filled, seen
        k = 0
        while k < codes.size:                     # more letters than the buffer's room go in pieces
            room = buffer.size - filled
            piece = codes[k:k + room]
            buffer[filled:filled + piece.size] = piece
            filled += piece.size
            k += piece.size
            yield from emit(False)
        seen += codes.size

    def lines_of(text, first_line):
        """Sequence lines one by one (exact messages for whatever the fast path would not take)."""
        for lineno, line in enumerate(text.split("\n"), start=first_line):
            line = line.strip(" \t\r")               # as read_fasta: only spaces and tabs are layout
            if not line:
                continue
            line = line.translate(_LAYOUT)
            bad = first_invalid(line)
            if bad >= 0:
                raise InputError(
                    f"{name}: record {record!r}: invalid character {describe_letter(line[bad])} at position "
                    f"{seen + bad + 1} (line {lineno}); expected A, C, G, U/T or an IUPAC code")
            yield from feed(encode(line))

    def sequence_text(text, first_line):
        """The lines between two headers: all at once when they hold only letters, spaces, tabs and
        line ends (the usual case), else line by line."""
        nonlocal record
        letters = _letters(text)
        if not letters:
            return
        if record is None:                        # letters before any header: one sequence, seq1
            stripped = text.lstrip(" \t\r\n")
            if first_invalid(stripped[:1]) == 0:  # not even one letter: not a sequence at all
                lineno = first_line + text[:len(text) - len(stripped)].count("\n")
                raise InputError(f"{name}: line {lineno}: expected a FASTA header starting with '>' or a sequence, "
                                 f"found {stripped.split(chr(10), 1)[0][:20]!r}")
            record = BARE_RECORD
        codes = None
        try:
            codes = encode(letters)
        except InputError:                        # said again, line by line, with the line's number
            pass
        yield from (feed(codes) if codes is not None else lines_of(text, first_line))

    with open_text(path, expected="a FASTA file") as handle:
        line_at = 1                               # the line number of the block's first line
        for block in handle.blocks():
            pos, pos_line = 0, line_at
            for head, head_end in header_lines(block):
                yield from sequence_text(block[pos:head], pos_line)
                lineno = pos_line + block.count("\n", pos, head)
                if record is not None:
                    yield from emit(True)
                    records += 1
                parts = block[head:head_end].strip(" \t\r")[1:].split(None, 1)
                if not parts:
                    raise InputError(f"{name}: line {lineno}: FASTA header has no sequence id")
                record, description = parts[0], parts[1] if len(parts) > 1 else ""
                filled, start, seen = 0, 0, 0
                pos, pos_line = head_end, lineno
            yield from sequence_text(block[pos:], pos_line)
            line_at += block.count("\n")
    if record is not None:
        yield from emit(True)
        records += 1
    if records == 0:
        raise InputError(f"{name}: no FASTA records (empty input)")
