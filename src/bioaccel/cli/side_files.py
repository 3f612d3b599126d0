"""Standard output's last line held back while a command also writes side files (``--bpp``,
``--plot``, ``--profile``, ``--windows``, ``--unpaired``).

The side files are written under temporary names and renamed into place when the whole run succeeds
(:class:`bioaccel.results.output.Outputs`); their last bytes reach the disk only then (a file's buffer
is flushed as it is closed), and a plot is drawn after the last row. Rows on standard output cannot
wait for that: they stream. So a full disk found at that last step left standard output complete
beside an error and no side file. Here the last line written to standard output is held until the
command has returned, its files all in place: a failure leaves no side file and standard output
without its last line (exit status 2 and one line saying why), never a complete-looking output.
"""
from typing import Optional

#: The options (``args`` attributes) that name a side file beside the rows of ``-o``.
SIDE_OPTIONS = ("bpp", "plot", "profile", "windows", "unpaired")


def side_files(args) -> bool:
    """Whether the command writes its rows to standard output and a side file too.

    >>> import argparse
    >>> side_files(argparse.Namespace(output=None, bpp="pairs.txt")), side_files(argparse.Namespace(output="x"))
    (True, False)
    """
    return getattr(args, "output", None) in (None, "-") and \
        any(getattr(args, option, None) is not None for option in SIDE_OPTIONS)


class HeldBack:
    """A text stream that passes on what is written to ``stream`` but its last line, until
    :meth:`release` (the command succeeded) writes it; a command that fails never releases it.

    >>> import io
    >>> out = io.StringIO()
    >>> held = HeldBack(out)
    >>> _ = held.write("a\\nb\\n"); out.getvalue()
    'a\\n'
    >>> _ = held.write("c"); out.getvalue()
    'a\\nb\\n'
    >>> held.release(); out.getvalue()
    'a\\nb\\nc'
    """

    def __init__(self, stream):
        from ..results.output import Guarded

        # through the output layer's guard: a full disk is one error naming standard output, and an
        # unbuffered stream's partial writes are completed, as for the rows written without this
        self._stream = Guarded(stream, "-o", "-")
        self._held = ""

    def write(self, text: str) -> int:
        data = self._held + text
        cut = data.rfind("\n", 0, len(data) - 1) + 1      # the start of the last line
        if cut:
            self._stream.write(data[:cut])
        self._held = data[cut:]
        return len(text)

    def flush(self) -> None:
        self._stream.flush()

    def release(self) -> None:
        """Write the line held back, and flush."""
        held, self._held = self._held, ""
        if held:
            self._stream.write(held)
        self._stream.flush()

    def __getattr__(self, name):
        if name == "buffer":      # the guard writes a raw buffer's bytes itself: not past what is held
            raise AttributeError(name)
        return getattr(self._stream, name)


def held_back(args, stdout) -> Optional[HeldBack]:
    """``stdout`` held back by a line where the command writes side files (:func:`side_files`), else
    None (the stream is written as it is).

    >>> import argparse, io
    >>> held_back(argparse.Namespace(output="-", plot=None), io.StringIO()) is None
    True
    """
    return HeldBack(stdout) if side_files(args) else None
