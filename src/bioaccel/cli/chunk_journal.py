"""The journal ``FILE.partial`` of a run whose items are chunks of output text (``bioaccel fold``'s
array path, :mod:`.fold_arrays`): the same promise as :mod:`.journal` (nothing done is lost; a run
killed, crashed or stopped by Ctrl-C is finished with ``--resume``; a run with other inputs or options
is refused), with each chunk's text kept as raw bytes rather than a JSON string, so that a million
records cost two copies of their text, not a JSON encoding and decoding of each.

Layout: the header line of :mod:`.journal` (``{"bioaccel": version, "batch": fingerprint}``), then per
chunk, in order, one line ``{"chunk": k, "bytes": n}`` followed by the n bytes of its text. A chunk cut
short by a crash is dropped on ``--resume`` and done again.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "out.txt.partial")
>>> journal = ChunkJournal(path, "run-1")
>>> journal.add(b"first\\n"); journal.add(b"second\\n"); journal.close()
>>> with open(path, "ab") as f:
...     _ = f.write(b'{"chunk":2,"bytes":99}\\nthird')          # cut short by a crash
>>> resumed = ChunkJournal(path, "run-1", resume=True)
>>> resumed.done
2
>>> import io
>>> out = io.BytesIO(); resumed.copy_to(out.write); out.getvalue()
b'first\\nsecond\\n'
>>> resumed.remove(); os.path.exists(path)
False
"""
import json
import os

from .. import __version__
from ..errors import InputError, InvalidParameter, OutputError
from .journal import append_or_cut, open_locked

#: bytes copied from the journal to the output at a time
COPY_BYTES = 1 << 24


def _header(fingerprint) -> bytes:
    return (json.dumps({"bioaccel": __version__, "batch": fingerprint}, separators=(",", ":")) + "\n").encode("ascii")


def another_run(path, fingerprint) -> bool:
    """Whether ``path`` is a journal (of either kind) whose header names another run than ``fingerprint``.

    >>> import os, tempfile
    >>> path = os.path.join(tempfile.mkdtemp(), "x.partial")
    >>> another_run(path, "a"), ChunkJournal(path, "a").add(b"t"), another_run(path, "a"), another_run(path, "b")
    (False, None, False, True)
    """
    try:
        with open(path, "rb") as handle:
            first = handle.readline()
    except OSError:
        return False
    return first.endswith(b"\n") and first != _header(fingerprint)


class ChunkJournal:
    """The chunks done so far, in ``path``; ``fingerprint`` names the run (or a function that gives it,
    called when the first chunk is kept: the digest of a large input is computed while it folds);
    ``resume``: keep what ``path`` holds (when it exists) instead of starting over."""

    def __init__(self, path, fingerprint, *, resume=False):
        self.path = path
        self.fingerprint = fingerprint
        self.spans = []            # (offset, size) of each chunk's text, in order
        self._handle = None
        self._end = 0              # the end of the last whole chunk
        if resume and os.path.exists(path):
            self._load()

    @property
    def done(self) -> int:
        """How many chunks (the first ones) are kept."""
        return len(self.spans)

    def _header(self) -> bytes:
        if callable(self.fingerprint):
            self.fingerprint = self.fingerprint()
        return _header(self.fingerprint)

    def _load(self):
        handle = open_locked(self.path, "r+b")
        size = os.fstat(handle.fileno()).st_size
        first = handle.readline()
        if first.endswith(b"\n"):
            try:
                header = json.loads(first)
            except ValueError:
                handle.close()
                raise InputError(f"{self.path}: line 1 is damaged; remove the file to start over") from None
            if header != json.loads(self._header()):
                handle.close()
                raise InvalidParameter(f"{self.path} holds the results of another run (other inputs or options); "
                                       "run without --resume to start over")
            end = len(first)
            while True:
                line = handle.readline()
                try:
                    row = json.loads(line) if line.endswith(b"\n") else None
                except ValueError:
                    row = None
                if not row or row.get("chunk") != len(self.spans):
                    break
                offset = end + len(line)
                if offset + row["bytes"] > size:            # cut short: done again
                    break
                self.spans.append((offset, row["bytes"]))
                end = offset + row["bytes"]
                handle.seek(end)
        else:
            end = 0                                           # not even the header survived
        handle.seek(end)
        handle.truncate(end)
        if end == 0:
            append_or_cut(handle, self.path, self._header(), 0, False)
        self._end = handle.tell()
        self._handle = handle

    def add(self, text) -> None:
        """Keep the text (bytes, or a uint8 array) of the next chunk; written and flushed at once."""
        if self._handle is None:
            handle = open_locked(self.path, "wb")
            append_or_cut(handle, self.path, self._header(), 0, False)
            self._handle, self._end = handle, handle.tell()
        data = memoryview(text).cast("B")
        line = json.dumps({"chunk": len(self.spans), "bytes": data.nbytes}, separators=(",", ":")).encode() + b"\n"
        try:
            append_or_cut(self._handle, self.path, (line, data), self._end, bool(self.spans))
        except OutputError:
            self._handle = None
            raise
        self._end += len(line) + data.nbytes
        self.spans.append((self._end - data.nbytes, data.nbytes))

    def copy_to(self, write, handle=None) -> None:
        """Hand every chunk's text to ``write`` (a binary handle's write), in order; with ``handle`` (that
        binary file, when it has a descriptor) the kernel copies file to file."""
        self.close()
        with open(self.path, "rb") as source:
            for offset, size in self.spans:
                if handle is not None:
                    done = _copied(source, handle, offset, size)
                    offset, size = offset + done, size - done
                source.seek(offset)
                while size > 0:
                    piece = source.read(min(size, COPY_BYTES))
                    if not piece:
                        raise InputError(f"{self.path}: cut short while it was copied; run again without --resume")
                    write(piece)
                    size -= len(piece)

    def close(self):
        if self._handle is not None:
            self._handle.close()
            self._handle = None

    def remove(self):
        """Close and delete the file (the final output holds everything now)."""
        self.close()
        try:
            os.unlink(self.path)
        except FileNotFoundError:
            pass


def _copied(source, handle, offset, size) -> int:
    """Bytes of ``source`` (``size`` from ``offset``) appended to ``handle`` by ``os.copy_file_range``,
    file to file; fewer (0) where the system stops or cannot, and the caller copies the rest through
    memory (whose write names a full disk as the output layer does)."""
    if not hasattr(os, "copy_file_range"):
        return 0
    try:
        target = handle.fileno()
        handle.flush()
    except (AttributeError, OSError, ValueError):
        return 0
    done = 0
    try:
        while done < size:
            step = os.copy_file_range(source.fileno(), target, size - done, offset + done)
            if step <= 0:
                break
            done += step
    except OSError:
        pass
    return done
