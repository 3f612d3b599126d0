"""Progress bars for long work (tqdm), shown only where a person watches: stderr is a terminal and the
user did not ask for ``--quiet``.

>>> with progress(total=3, unit="seq", enabled=False) as bar:
...     bar.update(3)
"""
import contextlib
import sys


class _Silent:
    """A bar that shows nothing (the same methods as tqdm's)."""

    def update(self, n=1):
        pass

    def set_postfix_str(self, text):
        pass

    def close(self):
        pass


def wanted(quiet=False, stream=None) -> bool:
    """Whether to draw a bar: not ``quiet``, and ``stream`` (stderr) is a terminal.

    >>> import io
    >>> wanted(stream=io.StringIO())
    False
    """
    stream = sys.stderr if stream is None else stream
    return not quiet and hasattr(stream, "isatty") and stream.isatty()


@contextlib.contextmanager
def progress(total=None, *, unit="it", desc="", enabled=None, stream=None, scale=False):
    """A tqdm bar over ``total`` units (None: a counter with a rate), or a silent one when ``enabled`` is
    False (None: :func:`wanted`). ``scale``: show 1.2M instead of 1234567."""
    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = wanted(stream=stream)
    if not enabled:
        yield _Silent()
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, desc=desc, file=stream, unit_scale=scale, dynamic_ncols=True,
               leave=False, mininterval=0.5)
    try:
        yield bar
    finally:
        bar.close()
