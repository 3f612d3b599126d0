"""The completed items of a batch, kept on disk as they complete, so that nothing done is lost.

While a batch runs with ``-o FILE``, each completed item is appended to ``FILE.partial`` as one line of
JSON, flushed at once: its key (its place in input order) and what the family will write for it, or
the error it raised. When every item is done the family writes ``FILE`` from these lines in input order,
through the output layer (under a temporary name, renamed into place), and ``FILE.partial`` is removed.
A run that is killed, crashes or is stopped by Ctrl-C leaves ``FILE.partial`` behind; ``--resume``
reads it back, discards a last line cut short by the crash, skips the items it holds and computes only
the rest, so that the final file is the one an uninterrupted run writes. A key is written once: an item
that Dask runs again (its worker died), or that a resumed run meets again, is never written twice.

The first line names the run (a digest of its inputs and of the options that change its output):
``--resume`` with other inputs or options is refused rather than mixing two runs' results. Without a
file (standard output, a device) the entries are kept in memory.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "out.tsv.partial")
>>> journal = Journal(path, "run-1")
>>> journal.add(1, {"text": "b"}); journal.add(0, {"text": "a"}); journal.add(1, {"text": "again"})
True
True
False
>>> journal.close()
>>> with open(path, "ab") as f:
...     _ = f.write(b'{"key": 2, "ent')              # a line cut short by a crash
>>> resumed = Journal(path, "run-1", resume=True)
>>> sorted(resumed.done), resumed.entry(1)
([0, 1], {'text': 'b'})
>>> resumed.close()
>>> Journal(path, "run-2", resume=True)
Traceback (most recent call last):
...
bioaccel.errors.InvalidParameter: ...out.tsv.partial holds the results of another run (other inputs or options); ...
"""
import contextlib
import json
import os
from typing import BinaryIO

from .. import __version__
from ..errors import InputError, InvalidParameter, OutputError

SUFFIX = ".partial"


def _lock(handle, path):
    """One run at a time writes a journal (two would interleave their lines)."""
    try:
        import fcntl
    except ImportError:                # not on Windows: nothing to lock with
        return
    try:
        fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        handle.close()
        raise InvalidParameter(f"{path}: another bioaccel run is writing it; wait for it to end") from None


def append_or_cut(handle: BinaryIO, path: str, data, end: int, keep: bool) -> None:
    """Write ``data`` (bytes, or a tuple of pieces) to the journal ``handle`` (of ``path``) and flush it; where that fails (a full disk)
    the file goes back to its first ``end`` bytes, its whole lines (removed when ``keep`` is false:
    nothing in it to resume), the handle is closed and one :class:`OutputError` names the journal.

    >>> import io
    >>> class Full(io.BytesIO):
    ...     def flush(self):
    ...         raise OSError(28, "No space left on device")
    >>> append_or_cut(Full(), "/no/such/out.tsv.partial", b"x", 0, False)
    Traceback (most recent call last):
    ...
    bioaccel.errors.OutputError: /no/such/out.tsv.partial: cannot write the results so far (no space left on device)
    """
    try:
        for piece in data if isinstance(data, tuple) else (data,):
            handle.write(piece)
        handle.flush()
    except OSError as exc:
        with contextlib.suppress(OSError):     # what is still buffered cannot be written either
            handle.close()
        with contextlib.suppress(OSError):
            if keep:
                os.truncate(path, end)
            else:
                os.unlink(path)
        raise OutputError(f"{path}: cannot write the results so far ({(exc.strerror or str(exc)).lower()})") from None


def open_locked(path: str, mode: str) -> BinaryIO:
    """``path`` opened in ``mode`` (binary) for a journal and locked to this run; one that cannot be
    opened, or that another run is writing, is refused in one line.

    >>> import os, tempfile
    >>> folder = tempfile.mkdtemp()
    >>> with open_locked(os.path.join(folder, "out.partial"), "wb") as handle:
    ...     handle.write(b"{}\\n")
    3
    >>> open_locked(folder, "wb")
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: ...: cannot write the results so far (is a directory)
    """
    try:
        handle = open(path, mode)
    except OSError as exc:
        raise InvalidParameter(f"{path}: cannot write the results so far "
                               f"({(exc.strerror or str(exc)).lower()})") from None
    _lock(handle, path)
    return handle


class Journal:
    """The entries of one batch by key, in ``path`` (None: in memory). ``fingerprint`` names the run;
    ``resume``: read what ``path`` holds (when it exists) instead of starting over."""

    def __init__(self, path=None, fingerprint="", *, resume=False):
        self.path = path
        self.fingerprint = fingerprint
        self.failed = {}           # key -> the message of the error it last raised
        self._where = {}           # key -> (offset, length) of its line, or the entry itself (in memory)
        self._handle = None        # appending
        self._end = 0              # the end of its last whole line
        self._reader = None        # reading entries back
        if path is not None and resume and os.path.exists(path):
            self._load()

    @property
    def done(self) -> set:
        """The keys completed without error."""
        return set(self._where)

    def _header(self) -> bytes:
        return _line({"bioaccel": __version__, "batch": self.fingerprint})

    def _load(self):
        handle = open_locked(self.path, "r+b")
        data = handle.read()
        lines = data.split(b"\n")
        end = 0                                     # the end of the last whole line
        for number, text in enumerate(lines[:-1]):  # lines[-1]: after the last newline (cut short, or b"")
            try:
                entry = json.loads(text)
            except ValueError:
                if number == len(lines) - 2 and not lines[-1]:
                    break                           # the last line, garbled by a crash: done again
                handle.close()
                raise InputError(f"{self.path}: line {number + 1} is damaged; remove the file to start over") from None
            if number == 0:
                if entry != json.loads(self._header()):
                    handle.close()
                    raise InvalidParameter(f"{self.path} holds the results of another run (other inputs or options); "
                                           "run without --resume to start over")
            else:
                self._record(entry, (end, len(text) + 1))
            end += len(text) + 1
        if end == 0:                                # not even the header survived: start over
            handle.seek(0)
            handle.truncate()
            append_or_cut(handle, self.path, self._header(), 0, False)
        else:
            handle.truncate(end)
            handle.seek(end)
        self._end = handle.tell()
        self._handle = handle

    def _record(self, row, where):
        """Note ``row`` (``{"key", "entry"}`` or ``{"key", "error"}``), found at ``where``."""
        key = row["key"]
        if "error" in row:
            if key not in self._where:
                self.failed[key] = row["error"]
            return
        self.failed.pop(key, None)
        self._where[key] = where

    def add(self, key, entry=None, *, error=None) -> bool:
        """Keep ``entry`` (a dict of JSON values) for ``key``, or the message ``error`` of its failure;
        written and flushed at once. False (and nothing written) when ``key`` is already done."""
        if key in self._where:
            return False
        row = {"key": key, "error": str(error)} if error is not None else {"key": key, "entry": entry}
        if self.path is None:
            self._record(row, entry)
            return True
        if self._handle is None:
            handle = open_locked(self.path, "wb")
            append_or_cut(handle, self.path, self._header(), 0, False)
            self._handle, self._end = handle, handle.tell()
        offset = self._end
        text = _line(row)
        try:
            append_or_cut(self._handle, self.path, text, offset, bool(self._where))
        except OutputError:
            self._handle = None
            raise
        self._end = offset + len(text)
        self._record(row, (offset, len(text)))
        return True

    def entry(self, key) -> "dict | None":
        """The entry of ``key`` (None when it failed or was not done)."""
        where = self._where.get(key)
        if where is None or self.path is None:
            return where
        offset, length = where
        if self._reader is None:
            self._reader = open(self.path, "rb")
        self._reader.seek(offset)
        return json.loads(self._reader.read(length))["entry"]

    def close(self):
        for handle in (self._handle, self._reader):
            if handle is not None:
                handle.close()
        self._handle = self._reader = None

    def remove(self):
        """Close and delete the file (the final output holds everything now)."""
        self.close()
        if self.path is not None:
            try:
                os.unlink(self.path)
            except FileNotFoundError:
                pass


def _line(value) -> bytes:
    return (json.dumps(value, separators=(",", ":")) + "\n").encode("ascii")
