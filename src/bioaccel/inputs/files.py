"""Opening input files: one opener for every reader, plain or compressed, ``-`` for standard input.

gzip (bgzip too), bzip2 and xz are recognised by their magic bytes, not by the file name. Every error,
from a missing file to a deflate stream broken half-way through, becomes one
:class:`~bioaccel.errors.InputError` naming the file. Text is decoded as Latin-1, which maps every byte
to one character, so a reader can name a bad byte by its value instead of a replacement mark; a UTF-8
byte-order mark at the start is skipped.
"""
import bz2
import contextlib
import gzip
import io
import lzma
import os
import stat
import sys
import zlib

from ..errors import InputError

_MAGIC = ((b"\x1f\x8b", "gzip"), (b"BZh", "bzip2"), (b"\xfd7zXZ\x00", "xz"))
_BOM = "\xef\xbb\xbf"  # UTF-8's byte-order mark as Latin-1 text
#: What a broken compressed stream raises while it is read.
DECODE_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def display_name(path) -> str:
    """How messages name ``path``: ``<stdin>`` for ``-``.

    >>> display_name("-"), display_name("a.fa")
    ('<stdin>', 'a.fa')
    """
    return "<stdin>" if str(path) == "-" else os.fspath(path)


def is_regular_file(path) -> bool:
    """Whether ``path`` is a regular file, which can be read twice (not ``-``, a named pipe such as a
    shell's ``<(zcat x.fa.gz)``, a socket or a device).

    >>> is_regular_file("-"), is_regular_file("/dev/null")
    (False, False)
    """
    if str(path) == "-":
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True             # missing or unreadable: the reader says which, once


#: what a file's name says it is compressed with
_SUFFIXES = {".gz": "gzip", ".bz2": "bzip2", ".xz": "xz"}


def _compression(head: bytes):
    for magic, name in _MAGIC:
        if head.startswith(magic):
            return name
    return None


def _decompressor(raw, kind):
    if kind == "gzip":
        return gzip.GzipFile(fileobj=raw)
    if kind == "bzip2":
        return bz2.BZ2File(raw)
    return lzma.LZMAFile(raw)


class TextLines:
    """The lines of a text file (any line ending), with read errors turned into one InputError."""

    def __init__(self, path, raw, kind):
        self.name = display_name(path)
        self.kind = kind
        stream = _decompressor(raw, kind) if kind else raw
        self._raw = raw
        self._text = io.TextIOWrapper(stream, encoding="latin-1", newline=None)
        self._first = True

    def _fail(self, exc):
        what = f"corrupt or truncated {self.kind} data" if self.kind else "read error"
        detail = getattr(exc, "strerror", None) or str(exc) or exc.__class__.__name__
        raise InputError(f"{self.name}: cannot read: {what} ({detail})") from None

    def _texts(self, pieces):
        """``pieces`` (lines, or blocks of lines) without the byte-order mark; read errors one InputError."""
        try:
            for piece in pieces:
                if self._first:
                    self._first = False
                    if piece.startswith(_BOM):
                        piece = piece[len(_BOM):]
                yield piece
        except DECODE_ERRORS as exc:
            self._fail(exc)

    def __iter__(self):
        return self._texts(self._text)

    def blocks(self, size: int = 1 << 22):
        """The text in blocks of whole lines, about ``size`` characters each (far fewer Python steps
        than line by line, for genome-sized files)."""
        def whole_lines():
            while True:
                block = self._text.read(size)
                if not block:
                    return
                yield block if block.endswith("\n") else block + self._text.readline()

        return self._texts(whole_lines())

    def read(self) -> str:
        return "".join(self)

    def read_bytes(self) -> bytearray:
        """The whole (decompressed) text as bytes (a bytearray: the caller may rewrite it in place), as
        the lines read it: every line ending (``\\r\\n``, ``\\r``) as ``\\n``, a leading byte-order
        mark left out; no per-line step, for files of millions of records."""
        stream = self._text.buffer
        try:
            data = None
            if not self.kind:                   # a plain file: read once into a buffer of its size
                try:
                    size = os.fstat(stream.fileno()).st_size - stream.tell()
                except (AttributeError, OSError, ValueError):
                    size = -1
                if size >= 0:
                    data = bytearray(size)
                    got = stream.readinto(data)
                    rest = stream.read()        # a file that grew meanwhile
                    del data[got:]
                    data += rest
            if data is None:
                data = bytearray(stream.read())
        except DECODE_ERRORS as exc:
            self._fail(exc)
        if data.startswith(_BOM.encode("latin-1")):
            del data[:len(_BOM)]
        if b"\r" in data:
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        return data

    def close(self):
        with contextlib.suppress(Exception):
            self._text.close()
        if self._raw is not sys.stdin.buffer:
            with contextlib.suppress(Exception):
                self._raw.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _stdin_binary():
    raw = sys.stdin.buffer
    if not hasattr(raw, "peek"):
        raw = io.BufferedReader(raw)
    return raw


def open_text(path, *, expected="a file") -> TextLines:
    """Open ``path`` (``-``: standard input) for reading lines; ``expected`` says what it should be
    ("a FASTA file", "a motif file") in the message when it is a folder.

    >>> import tempfile, gzip as gz
    >>> with tempfile.NamedTemporaryFile(suffix=".gz", delete=False) as f:
    ...     _ = f.write(gz.compress(b">a\\nACGU\\n"))
    >>> with open_text(f.name) as lines:
    ...     list(lines)
    ['>a\\n', 'ACGU\\n']
    """
    name = display_name(path)
    if str(path) == "-":
        raw = _stdin_binary()
        return TextLines(path, raw, _compression(raw.peek(6)[:6]))
    try:
        raw = open(path, "rb")
    except FileNotFoundError:
        raise InputError(f"{name}: no such file") from None
    except IsADirectoryError:
        raise InputError(f"{name}: is a folder, expected {expected}") from None
    except OSError as exc:
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    try:
        head = raw.peek(6)[:6]
    except OSError as exc:
        raw.close()
        raise InputError(f"{name}: cannot read ({exc.strerror or exc})") from None
    kind = _compression(head)
    named = _SUFFIXES.get(os.path.splitext(str(path))[1].lower())
    if named is not None and kind is None:      # a cut or fake stream would otherwise read as plain text
        raw.close()
        raise InputError(f"{name}: the name says {named}, but the file is not {named}-compressed (cut short, "
                         "or renamed)")
    return TextLines(path, raw, kind)


def read_text(path, *, expected="a file") -> str:
    """The whole text of ``path`` (plain or compressed, ``-`` for standard input)."""
    with open_text(path, expected=expected) as lines:
        return lines.read()
