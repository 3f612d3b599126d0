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
def progress(total=None, *, unit="it", desc="", enabled=None, stream=None, scale=False, initial=0):
    """A tqdm bar over ``total`` units (None: a counter with a rate), or a silent one when ``enabled`` is
    False (None: :func:`wanted`). ``scale``: show 1.2M instead of 1234567; ``initial``: units already
    done (a resumed batch: they count in the bar, not in the rate)."""
    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = wanted(stream=stream)
    if not enabled:
        yield _Silent()
        return
    from tqdm import tqdm

    bar = tqdm(total=total, unit=unit, desc=desc, file=stream, unit_scale=scale, dynamic_ncols=True,
               leave=False, mininterval=0.5, initial=initial)
    try:
        yield bar
    finally:
        bar.close()


@contextlib.contextmanager
def compile_notice(prog, stream=None, quiet=False):
    """While the block runs, the first time Numba compiles a kernel (its cache on disk is empty: the
    first run after installing, or after an upgrade) say so in one line on ``stream``, when a person
    watches it (:func:`wanted`), so that a first run of 10-20 s does not look like a hang. Cached
    kernels load without a word.

    >>> import io
    >>> with compile_notice("bioaccel fold", io.StringIO()):
    ...     pass
    """
    stream = sys.stderr if stream is None else stream
    if not wanted(quiet, stream):
        yield
        return
    from numba.core import event

    class Notice(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                print(f"{prog}: compiling kernels for this machine (first run only: they are cached)",
                      file=stream, flush=True)

        def on_end(self, ev):
            pass

    with event.install_listener("numba:compile", Notice()):
        yield


#: Work expected to take longer than this (seconds) is announced on one line before it starts.
ANNOUNCE_SECONDS = 10.0


def format_duration(seconds) -> str:
    """A rough duration for a person: seconds, minutes, hours or days.

    >>> [format_duration(s) for s in (0.4, 42, 600, 5400, 3e5)]
    ['under a second', 'about 42 s', 'about 10 min', 'about 1.5 h', 'about 3.5 days']
    """
    if seconds < 1:
        return "under a second"
    if seconds < 90:
        return f"about {seconds:.0f} s"
    if seconds < 90 * 60:
        return f"about {seconds / 60:.0f} min"
    if seconds < 48 * 3600:
        return f"about {seconds / 3600:.2g} h"
    return f"about {seconds / 86400:.2g} days"


def announce(stream, prog, seconds, what, way_out=None, *, quiet=False) -> bool:
    """Before long work: one line on ``stream`` (stderr) when ``seconds`` passes ANNOUNCE_SECONDS and
    the user did not ask for ``--quiet``: ``prog: about 8 min for WHAT; WAY_OUT``. Returns whether it
    printed.

    >>> import io
    >>> err = io.StringIO()
    >>> announce(err, "bioaccel fold", 480, "3 records of up to 40,000 nt", "--backend gpu would take 1 s")
    True
    >>> err.getvalue()
    'bioaccel fold: about 8 min for 3 records of up to 40,000 nt; --backend gpu would take 1 s\\n'
    """
    if quiet or seconds is None or seconds < ANNOUNCE_SECONDS:
        return False
    line = f"{prog}: {format_duration(seconds)} for {what}" + (f"; {way_out}" if way_out else "")
    print(line, file=stream, flush=True)
    return True
