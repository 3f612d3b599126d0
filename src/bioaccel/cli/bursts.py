"""A command's results computed in a thread of their own and handed out in bursts: each burst holds
every result ready by the time the previous one was written.

A command that wrote each result as it came (``for row in results: writer.write([row])``) paid the
writer's cost once per result (then a pandas frame a row: a few seconds for the thousands of rows a
GPU round gives at once), and its computing waited while it wrote. Here the computing goes on in the
thread while the command writes, and the rows that are ready together are written together, yet a
result computed alone (a long CPU pair) is still written as soon as it is ready. The results come in
the order given; an error raised while computing is raised here after the results before it.
"""
import queue
import threading
from typing import Callable, Iterable, Iterator, Optional


class _Failed:
    def __init__(self, error: BaseException):
        self.error = error


_END = object()


def _produce(results: Iterable, into: queue.Queue, stop: threading.Event, first) -> None:
    try:
        if first is not None:
            first()
        for result in results:
            into.put(result)
            if stop.is_set():           # the command stopped reading (an output error): compute no more
                return
        into.put(_END)
    except BaseException as exc:        # noqa: BLE001 - raised again in the command's thread
        into.put(_Failed(exc))


def bursts(results: Iterable, first: Optional[Callable[[], None]] = None) -> Iterator[list]:
    """Lists of consecutive ``results`` (computed in a background thread), each as long as what was
    ready when it was asked for, never empty. ``first()`` is called in the computing thread before the
    first result is asked for (the GPU's warm-up awaited there).

    >>> sorted(x for burst in bursts(iter(range(5))) for x in burst)
    [0, 1, 2, 3, 4]
    >>> def failing():
    ...     yield 1
    ...     raise ValueError("bad input")
    >>> [burst for burst in bursts(failing())]
    Traceback (most recent call last):
    ...
    ValueError: bad input
    """
    ready: queue.Queue = queue.Queue()
    stop = threading.Event()
    thread = threading.Thread(target=_produce, args=(iter(results), ready, stop, first),
                              name="bioaccel-compute", daemon=True)
    thread.start()
    try:
        while True:
            burst, last = [], ready.get()
            while last is not _END and not isinstance(last, _Failed):
                burst.append(last)
                try:
                    last = ready.get_nowait()
                except queue.Empty:
                    last = None
                    break
            if burst:
                yield burst
            if last is _END:
                return
            if isinstance(last, _Failed):
                raise last.error
    finally:
        stop.set()
