"""Writing results: atomically to a file, so that nothing half-written is ever left as if complete."""
import contextlib
import os
import sys
import tempfile

from .errors import InputError


def _umask():
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextlib.contextmanager
def open_output(path, mode="w", stdout=None):
    """Yield a handle for ``path``; ``None`` or ``-`` means ``stdout``.

    A file is written under a temporary name in the same folder and renamed into place only when the
    block finishes without an exception; on failure the temporary file is removed.
    """
    if path is None or str(path) == "-":
        yield stdout if stdout is not None else sys.stdout
        return
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise InputError(f"{path}: folder {folder} does not exist")
    fd, tmp = tempfile.mkstemp(prefix=".bioaccel-", suffix=".part", dir=folder)
    os.chmod(tmp, 0o666 & ~_umask())        # mkstemp makes 0600; give the mode a plain open() would
    try:
        with os.fdopen(fd, mode) as handle:
            yield handle
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
