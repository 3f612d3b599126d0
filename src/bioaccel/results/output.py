"""Writing results: every output path checked before any work starts, every file committed together.

One run's outputs (``-o``, ``--profile``, ``--plot``) form one :class:`Outputs` transaction:

* the paths are checked up front (:func:`check_outputs`): an empty name, a folder, a name ending in
  ``/``, a folder that does not exist or where nothing can be created, two options naming the same
  file (through symbolic links too) are each one error naming the option;
* each file is written under a temporary name next to its final place, created at once (so a folder
  where nothing can be created is refused before the work), and all are renamed into place only when
  the whole run succeeds; on an error, an interruption or SIGTERM the temporary files are removed
  (:func:`abort_all` removes those of every open transaction) and existing files are left as they were;
* special files are written through, not replaced: ``-`` is standard output; a character device, FIFO
  or socket (``/dev/null``, a terminal, ``/dev/stdout`` and anything else under ``/dev`` or ``/proc``)
  is opened and written directly; a symbolic link to a file is followed: the file it points to is
  replaced, and the link stays a link.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> with Outputs({"-o": os.path.join(folder, "a.txt")}) as outputs:
...     _ = outputs["-o"].write("hello\\n")
>>> open(os.path.join(folder, "a.txt")).read()
'hello\\n'
>>> check_outputs({"-o": folder})
Traceback (most recent call last):
...
bioaccel.errors.InvalidParameter: -o ...: is a folder; give a file name
"""
import contextlib
import io
import os
import stat
import sys
import tempfile
import threading

from ..errors import InputError, InvalidParameter, OutputError

STDOUT = "-"
_LOCK = threading.RLock()
_OPEN = set()          # transactions not yet committed or aborted (SIGTERM removes their files)


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _strerror(exc):
    return (exc.strerror or str(exc)).lower() if isinstance(exc, OSError) else str(exc)


class Guarded:
    """A handle whose write errors (a full disk, a closed device) become one :class:`OutputError` naming
    the option and the path, so the command line says so in one line and the transaction is aborted.

    >>> import io
    >>> class Full(io.StringIO):
    ...     def write(self, text):
    ...         raise OSError(28, "No space left on device")
    >>> Guarded(Full(), "-o", "/dev/full").write("x")
    Traceback (most recent call last):
    ...
    bioaccel.errors.OutputError: -o /dev/full: cannot write (no space left on device)
    """

    def __init__(self, handle, option, path):
        self.handle, self.option, self.path = handle, option, path

    def _failed(self, exc):
        where = "standard output" if self.path == STDOUT else f"{self.option} {self.path}"
        return OutputError(f"{where}: cannot write ({_strerror(exc)})")

    def _guarded(self, method, *args):
        try:
            return method(*args)
        except BrokenPipeError:             # `bioaccel ... | head`: the reader has all it wanted
            raise
        except OSError as exc:
            raise self._failed(exc) from None

    def write(self, data):
        raw = getattr(self.handle, "buffer", None)
        if isinstance(data, str) and isinstance(raw, io.RawIOBase) and os.linesep == "\n":
            # An unbuffered text stream (standard output under PYTHONUNBUFFERED=1) passes on what its
            # file took of a piece and drops the rest without an error (a nearly full disk): its bytes
            # go to the file here until all are taken, or the file's error is raised
            self.flush()
            view = memoryview(data.encode(self.handle.encoding, self.handle.errors or "strict"))
            while view:
                taken = self._guarded(raw.write, view)
                if not taken:
                    raise self._failed(OSError(0, "the file took nothing"))
                view = view[taken:]
            return len(data)
        return self._guarded(self.handle.write, data)

    def flush(self):
        self._guarded(self.handle.flush)

    def close(self):
        self._guarded(self.handle.close)

    def __getattr__(self, name):            # name, mode, fileno, seek ...: the handle's own
        return getattr(self.handle, name)


class Target:
    """Where one option writes: ``kind`` is "stdout", "direct" (a device, FIFO, socket, or a path under
    /dev or /proc: opened and written as it is) or "file" (a temporary file renamed onto ``final``)."""

    def __init__(self, option, path, kind, final=None):
        self.option, self.path, self.kind, self.final = option, path, kind, final

    def __repr__(self):
        return f"Target({self.option!r}, {self.path!r}, {self.kind!r})"


def _special(path):
    """Whether ``path`` is written through rather than replaced."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return False
    if stat.S_ISCHR(mode) or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode) or stat.S_ISBLK(mode):
        return True
    # /dev/stdout or /proc/self/fd/1 on a regular file (a shell redirection): write through the
    # descriptor's file, never rename over it
    absolute = os.path.abspath(path)
    return absolute.startswith(("/dev/", "/proc/"))


def check_outputs(named) -> dict:
    """Check every output path of one run before any work; ``named``: {option: path or None}.

    Returns {option: :class:`Target`} for the paths given. Raises InvalidParameter naming the option.

    >>> sorted(check_outputs({"-o": "-", "--profile": None}))
    ['-o']
    >>> check_outputs({"-o": ""})
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: -o: the file name is empty (give a file name, or '-' for standard output)
    """
    targets, seen = {}, {}
    for option, path in named.items():
        if path is None:
            continue
        path = os.fspath(path)
        if path == "":
            raise InvalidParameter(f"{option}: the file name is empty (give a file name, or '-' for standard output)")
        if "\x00" in path:
            raise InvalidParameter(f"{option} {path!r}: a file name cannot hold a NUL character")
        if path == STDOUT:
            target = Target(option, path, "stdout")
            key = ("stdout",)
        elif _special(path):
            if os.path.isdir(path):
                raise InvalidParameter(f"{option} {path}: is a folder; give a file name")
            if not os.access(path, os.W_OK):
                raise InvalidParameter(f"{option} {path}: not writable (permission denied)")
            target = Target(option, path, "direct")
            key = None                                   # /dev/null twice is harmless
        else:
            if path.endswith(os.sep) or (os.altsep and path.endswith(os.altsep)):
                raise InvalidParameter(f"{option} {path}: names a folder (ends with '{path[-1]}'); give a file name")
            if os.path.isdir(path):
                raise InvalidParameter(f"{option} {path}: is a folder; give a file name")
            final = os.path.realpath(path)              # a symbolic link: the file it points to
            folder = os.path.dirname(final) or "."
            if not os.path.isdir(folder):
                shown = os.path.dirname(path) or "."
                raise InvalidParameter(f"{option} {path}: folder {shown} does not exist")
            if os.path.isdir(final):
                raise InvalidParameter(f"{option} {path}: is a folder; give a file name")
            if os.path.lexists(final) and not os.access(final, os.W_OK):
                raise InvalidParameter(f"{option} {path}: the file is read-only")
            target = Target(option, path, "file", final)
            key = ("file", final)
        if key is not None:
            if key in seen:
                other = seen[key]
                if key == ("stdout",):     # -o - is also the default: say what takes standard output
                    raise InvalidParameter(f"{option} -: standard output already takes the output of {other.option}; "
                                           f"give {option} a file name (or {other.option} FILE)")
                raise InvalidParameter(f"{other.option} {other.path} and {option} {path} name the same file; "
                                       "give each output its own file")
            seen[key] = target
        targets[option] = target
    return targets


class Outputs:
    """The output files of one run: ``outputs[option]`` is the handle to write (None when the option
    was not given); all are committed (renamed into place) when the ``with`` block ends without an
    exception, or by :meth:`commit`; otherwise their temporary files are removed.

    ``named``: {option: path or None}; ``modes``: {option: "w" or "wb"} (default "w", UTF-8 text);
    ``stdout``: the stream ``-`` means (default ``sys.stdout``).
    """

    def __init__(self, named, *, modes=None, stdout=None):
        self.targets = check_outputs(named)
        self.stdout = stdout if stdout is not None else sys.stdout
        self.handles = {}
        self._temps = {}            # option -> temporary path
        self.state = "open"         # then "committed" or "aborted"
        modes = modes or {}
        with _LOCK:
            _OPEN.add(self)
        try:
            for option, target in self.targets.items():
                self.handles[option] = Guarded(self._open(target, modes.get(option, "w")), option, target.path)
        except BaseException:
            self.abort()
            raise

    def _open(self, target, mode):
        binary = "b" in mode
        if target.kind == "stdout":
            if binary:
                raise InvalidParameter(f"{target.option} -: this output is binary; give a file name")
            return self.stdout
        if target.kind == "direct":
            try:
                return open(target.path, "ab" if binary else "a", **({} if binary else {"encoding": "utf-8"}))
            except OSError as exc:
                raise InvalidParameter(f"{target.option} {target.path}: cannot write ({_strerror(exc)})") from None
        folder = os.path.dirname(target.final) or "."
        try:
            fd, tmp = tempfile.mkstemp(prefix=".bioaccel-", suffix=".part", dir=folder)
        except OSError as exc:
            raise InvalidParameter(f"{target.option} {target.path}: cannot create a file in folder "
                                   f"{os.path.dirname(target.path) or '.'} ({_strerror(exc)})") from None
        self._temps[target.option] = tmp
        try:
            existing = os.stat(target.final).st_mode if os.path.exists(target.final) else None
            os.chmod(tmp, stat.S_IMODE(existing) if existing is not None else 0o666 & ~_umask())
        except OSError:
            pass
        if binary:
            return os.fdopen(fd, "wb")
        return os.fdopen(fd, "w", encoding="utf-8", newline="\n")

    def __getitem__(self, option):
        return self.handles.get(option)

    def __contains__(self, option):
        return option in self.handles

    def commit(self):
        """Close every file and rename each into place (all, or none when the run was aborted)."""
        with _LOCK:
            if self.state == "committed":
                return
            if self.state == "aborted":
                raise InterruptedError("the run was interrupted; nothing written")
            try:
                for option, handle in self.handles.items():
                    if self.targets[option].kind == "stdout":
                        handle.flush()
                    else:
                        handle.close()
                for option, tmp in self._temps.items():
                    target = self.targets[option]
                    try:
                        os.replace(tmp, target.final)
                    except OSError as exc:
                        raise InputError(f"{option} {target.path}: cannot write ({_strerror(exc)})") from None
                self._temps.clear()
            except BaseException:
                self.abort()
                raise
            self.state = "committed"
            _OPEN.discard(self)

    def abort(self):
        """Remove the temporary files; the final paths keep what they held."""
        with _LOCK:
            if self.state != "open":
                return
            for option, handle in self.handles.items():
                if self.targets[option].kind != "stdout":
                    with contextlib.suppress(Exception):
                        handle.close()
            for tmp in self._temps.values():
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
            self._temps.clear()
            self.state = "aborted"
            _OPEN.discard(self)

    def __enter__(self):
        return self

    def __exit__(self, kind, value, trace):
        if kind is None:
            self.commit()
        else:
            self.abort()


def abort_all():
    """Abort every open transaction (SIGINT, SIGTERM): their temporary files are removed, and a commit
    that comes later writes nothing."""
    with _LOCK:
        for outputs in list(_OPEN):
            outputs.abort()


@contextlib.contextmanager
def open_output(path, mode="w", stdout=None, option="-o"):
    """Yield a handle for ``path`` (``None`` or ``-``: ``stdout``): one-output :class:`Outputs`.

    A file is written under a temporary name in the same folder and renamed into place only when the
    block finishes without an exception; on failure the temporary file is removed.
    """
    if path is None:
        path = STDOUT
    with Outputs({option: path}, modes={option: mode}, stdout=stdout) as outputs:
        yield outputs[option]
