"""A whole FASTA file as a few flat arrays, for commands that fold a million records: no Python object
per record.

:func:`read_fasta_arrays` reads the records :func:`~bioaccel.inputs.fasta.read_fasta` reads, in one
compiled pass over the file's bytes: the letters as written (case and T kept) back to back with their
offsets, and each header as :func:`read_fasta`'s record shows it (the id, then one space and the
description when there is one) back to back in UTF-8 (what a text output writes), with offsets and
the byte length of each id. A file that holds anything only :func:`read_fasta` explains (an invalid
letter, a header without an id, sequences before the first header, no record at all) gives None: the
caller reads it record by record, and the error, when there is one, is the same message.
"""
from typing import NamedTuple

import numpy as np
from numba import njit

from .alphabet import _CODE_OF_BYTE, _CODE_TABLE
from .files import open_text

OK, UNUSUAL = 0, 1
#: bytes that Python's str.strip() and str.split() take for whitespace in Latin-1 text (read_fasta
#: splits a header with them)
_SPACE = np.array([chr(b).isspace() for b in range(256)], dtype=np.bool_)


class FastaArrays(NamedTuple):
    """Records as arrays. Record k: letters ``letters[starts[k]:starts[k + 1]]`` (uint8, as written;
    ``codes`` gives their codes, :mod:`bioaccel.inputs.alphabet`), header ``headers[hstarts[k]:hstarts[k + 1]]`` (UTF-8: the id, and " description" when there is
    one), its id the first ``id_bytes[k]`` bytes of it.

    >>> r = FastaArrays(np.frombuffer(b"ACGUgg", np.uint8), np.array([0, 4, 6]),
    ...                 np.frombuffer(b"a descb", np.uint8), np.array([0, 6, 7]), np.array([1, 1]))
    >>> len(r), r.lengths.tolist(), r.part(1, 2).letters.tobytes(), r.part(1, 2).headers.tobytes()
    (2, [4, 2], b'gg', b'b')
    """

    letters: np.ndarray
    starts: np.ndarray
    headers: np.ndarray
    hstarts: np.ndarray
    id_bytes: np.ndarray
    #: whether a letter is T or t (False: writing T as U changes nothing)
    has_t: bool = True

    def __len__(self):
        return len(self.starts) - 1

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.starts)

    def part(self, first: int, last: int) -> "FastaArrays":
        """Records first..last-1, offsets from 0 (views of these arrays, no copy of the letters)."""
        s, h = self.starts[first:last + 1], self.hstarts[first:last + 1]
        return FastaArrays(self.letters[s[0]:s[-1]], s - s[0], self.headers[h[0]:h[-1]], h - h[0],
                           self.id_bytes[first:last], self.has_t)

    @property
    def codes(self) -> np.ndarray:
        """The letters' codes (:mod:`bioaccel.inputs.alphabet`, uint8), made now (a chunk at a time:
        the codes of a whole file would be one more array of its size to fill)."""
        return np.frombuffer(self.letters.tobytes().translate(_CODE_TABLE), dtype=np.uint8)


@njit(cache=True, nogil=True)
def _parse(data, space, code_of, starts, headers, hstarts, id_bytes):
    """One pass over the text (newlines already \\n), the letters moved to its start, in place:
    ``(status, records, letters, header bytes, T or t letters)``."""
    n = data.shape[0]
    tees = 0
    count = 0
    nl = 0
    hl = 0
    i = 0
    while i < n:
        end = i
        while end < n and data[end] != 10:
            end += 1
        a, b = i, end
        i = end + 1
        while a < b and (data[a] == 32 or data[a] == 9 or data[a] == 13):
            a += 1
        while b > a and (data[b - 1] == 32 or data[b - 1] == 9 or data[b - 1] == 13):
            b -= 1
        if a == b:
            continue
        if data[a] == 62:                         # '>': a header
            a += 1
            while a < b and space[data[a]]:
                a += 1
            while b > a and space[data[b - 1]]:
                b -= 1
            if a == b:
                return UNUSUAL, count, nl, hl, 0  # no id: read_fasta names the line
            starts[count] = nl
            hstarts[count] = hl
            e = a
            while e < b and not space[data[e]]:
                headers[hl] = data[e]
                hl += 1
                e += 1
            id_bytes[count] = e - a
            while e < b and space[data[e]]:
                e += 1
            if e < b:
                headers[hl] = 32
                hl += 1
                while e < b:
                    headers[hl] = data[e]
                    hl += 1
                    e += 1
            count += 1
            continue
        if count == 0:
            return UNUSUAL, count, nl, hl, 0      # a sequence before any header (RNAfold's bare lines)
        for x in range(a, b):
            c = data[x]
            if c == 32 or c == 9 or c == 13:
                continue
            if code_of[c] == 255:
                return UNUSUAL, count, nl, hl, 0  # read_fasta names the letter, record and line
            if c == 84 or c == 116:
                tees += 1
            data[nl] = c                          # in place: nl < x, the letters only ever move back
            nl += 1
    starts[count] = nl
    hstarts[count] = hl
    return (OK if count else UNUSUAL), count, nl, hl, tees


def _utf8(headers, hstarts, id_bytes):
    """Latin-1 header bytes as UTF-8 (each byte over 127 becomes two), offsets moved to match."""
    high = headers >= 128
    if not high.any():
        return headers, hstarts, id_bytes
    before = np.concatenate(([0], np.cumsum(high)))
    id_ends = hstarts[:-1] + id_bytes
    text = headers.tobytes().decode("latin-1").encode("utf-8")
    return (np.frombuffer(text, dtype=np.uint8), hstarts + before[hstarts],
            id_bytes + before[id_ends] - before[hstarts[:-1]])


def read_fasta_arrays(path) -> "FastaArrays | None":
    """The records of the FASTA file ``path`` (plain or compressed) as :class:`FastaArrays`, or None
    where :func:`~bioaccel.inputs.fasta.read_fasta` must read it (an error to name, bare sequences).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">r1  first one \\nACGU\\nac\\n>r2\\n\\n>r3\\nGGX\\n")
    >>> read_fasta_arrays(f.name) is None                 # X: read_fasta names it
    True
    >>> with open(f.name, "w") as g:
    ...     _ = g.write(">r1  first one \\nACGU\\nac\\n>r2\\n")
    >>> r = read_fasta_arrays(f.name)
    >>> r.headers.tobytes(), r.starts.tolist(), r.letters.tobytes(), r.id_bytes.tolist()
    (b'r1 first oner2', [0, 6, 6], b'ACGUac', [2, 2])
    """
    with open_text(path, expected="a FASTA file") as handle:
        raw = handle.read_bytes()
    data = np.frombuffer(raw, dtype=np.uint8)            # writable: a bytearray
    most = raw.count(b">") + 1
    headers = np.empty(data.shape[0], dtype=np.uint8)
    starts = np.zeros(most + 1, dtype=np.int64)
    hstarts = np.zeros(most + 1, dtype=np.int64)
    id_bytes = np.zeros(most, dtype=np.int64)
    status, count, nl, hl, tees = _parse(data, _SPACE, _CODE_OF_BYTE, starts, headers, hstarts, id_bytes)
    if status != OK:
        return None
    headers, hstarts, ids = _utf8(headers[:hl], hstarts[:count + 1], id_bytes[:count])
    return FastaArrays(data[:nl], starts[:count + 1], headers, hstarts, ids, tees > 0)
