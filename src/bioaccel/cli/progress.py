"""Progress bars for long work (tqdm), shown only where a person watches: stderr is a terminal and the
user did not ask for ``--quiet``.

>>> with progress(total=3, unit="seq", enabled=False) as bar:
...     bar.update(3)
"""
import contextlib
import sys


class _Silent:
    """A bar that shows nothing (the same methods as tqdm's)."""

    n = total = 0

    def update(self, n=1):
        pass

    def set_postfix_str(self, text, refresh=True):
        pass

    def refresh(self):
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


class WorkBar:
    """A bar over items of unequal work (a motif's exact search takes from microseconds to a tenth of a
    second): its percentage and time left go by the work done, each item weighing an estimate of its
    work, so that the time left is honest when the costliest come first; its count says how many items
    are done. Work done without its cost (read from a cache) leaves the work left smaller instead.

    >>> import io
    >>> with work_progress(10.0, 2, "motif", enabled=True, stream=io.StringIO()) as bar:
    ...     bar.done(8.0)
    ...     bar.done(2.0, worked=False)
    ...     (bar.items, bar.bar.n, bar.bar.total)
    (2, 8.0, 8.0)
    """

    def __init__(self, bar, items, unit):
        self.bar, self.total, self.unit = bar, items, unit
        self.items = 0

    def done(self, work, worked=True, finished=1):
        """``work`` done (an estimate), ``finished`` items with it (0: part of an item); ``worked``
        False: done without its cost (a cache)."""
        self.items += finished
        self.bar.set_postfix_str(f"{self.items:,}/{self.total:,} {self.unit}{'s' if self.total != 1 else ''}",
                                 refresh=False)
        if not worked:
            self.bar.total = max(self.bar.n, self.bar.total - work)
        self.bar.update(work if worked else 0)        # drawn at most every mininterval


@contextlib.contextmanager
def work_progress(work, items, unit, *, desc="", enabled=None, stream=None):
    """A :class:`WorkBar` over ``items`` weighing ``work`` in all, or one that shows nothing when
    ``enabled`` is False (None: :func:`wanted`)."""
    stream = sys.stderr if stream is None else stream
    if enabled is None:
        enabled = wanted(stream=stream)
    if not enabled:
        yield WorkBar(_Silent(), items, unit)
        return
    from tqdm import tqdm

    bar = tqdm(total=work, desc=desc, file=stream, dynamic_ncols=True, leave=False, mininterval=0.5,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| [{elapsed}<{remaining}{postfix}]",
               postfix=f"0/{items:,} {unit}{'s' if items != 1 else ''}")
    try:
        yield WorkBar(bar, items, unit)
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
