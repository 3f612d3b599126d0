"""Batches: work cut into items, run here or on a Dask cluster, each item's outcome as it completes.

An :class:`Item` is the unit of work, of failure and of resuming: one record to fold, one (target,
query) pair, one block of sequence scanned with one group of motifs. Items are grouped into tasks of
about equal cost (contiguous in the order given): one Dask task per item would cost more to schedule
than a short item takes to compute, and the families fold or scan many short items in one call.

A task calls the family's function on its items' payloads, the very code of the in-process path (a
module-level function, so that workers import it rather than receive a copy). When the whole task
raises a :class:`~bioaccel.errors.BioaccelError` (bad input, an item too large for memory) each item is
run alone, so a bad item fails alone, with its own message, and the others of its task succeed (an
InternalError, a bug, and GPUUnavailable, a worker without its GPU, stop the batch instead).

:func:`run_items` yields one :class:`Outcome` per item as the tasks complete, in completion order
(callers put them back in input order by ``key``). On Dask a few tasks per worker are in flight at a
time, so memory stays bounded however long the batch, and the tasks of a worker that dies are run
again by Dask; each task's outcomes are yielded once.

>>> items = [Item(k, f"item{k}", 1.0, k) for k in range(5)]
>>> sorted((o.key, o.value) for o in run_items(_squares, items))
[(0, 0), (1, 1), (2, 4), (3, 9), (4, 16)]
"""
import math
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Optional

from ..errors import BioaccelError, GPUUnavailable, InternalError, ResourceError

#: Tasks per worker at least (progress, balance, and little lost when a worker dies) ...
TASKS_PER_WORKER = 8
#: ... and at most this many items a task.
MAX_TASK_ITEMS = 256
#: ... and in this process, where a task costs no scheduling, up to this many (a family folds or scans
#: many short items in one call, and one task's items are what an interruption may cost).
LOCAL_TASK_ITEMS = 4096
#: Tasks at least of a GPU batch in this process: one device's batch, where each task's launches and its
#: last sites (not overlapped by the device's next work) cost a few tens of milliseconds on an H100, while
#: the progress bar and what an interruption may cost still move a quarter at a time.
LOCAL_GPU_TASKS = 4
#: Tasks in flight per worker on Dask: one running, one queued so that no worker waits for the next.
IN_FLIGHT_PER_WORKER = 2


@dataclass
class Item:
    """One unit of a batch. ``key``: its place in input order (the output's order); ``label``: how a
    person names it in a message (a record id, ``query x target``); ``cost``: its work, relative to the
    others of the batch (n^3 for folding); ``payload``: what the family's function receives."""

    key: int
    label: str
    cost: float
    payload: Any


@dataclass
class Outcome:
    """What became of one item: its ``value`` (what the family's function returned for it), or the
    ``error`` (a BioaccelError) that it raised alone."""

    key: int
    value: Any = None
    error: Optional[BaseException] = None


def _squares(values):
    return [v * v for v in values]


def each(function: Callable, payloads: list) -> list:
    """``function(payload)`` of each payload, or the BioaccelError it raised (a bad item fails alone,
    without running its task's other items again); a bug (InternalError) or a missing GPU raises.

    >>> [type(v).__name__ for v in each(lambda v: _inverse([v])[0], [2, 0])]
    ['float', 'InvalidParameter']
    """
    values = []
    for payload in payloads:
        try:
            values.append(function(payload))
        except (InternalError, GPUUnavailable):
            raise
        except BioaccelError as exc:
            values.append(exc)
    return values


def run_task(function: Callable, keys: list, payloads: list) -> list:
    """Run ``function(payloads)`` (one value per payload, or the BioaccelError of a payload that failed:
    see :func:`each`) where this is called, a worker or here; when it raises a BioaccelError, each
    payload alone. A list of :class:`Outcome`.

    >>> [(o.value, type(o.error).__name__) for o in run_task(_inverse, [0, 1], [2, 0])]
    [(0.5, 'NoneType'), (None, 'InvalidParameter')]
    """
    try:
        values = function(payloads)
    except (InternalError, GPUUnavailable):
        raise                           # a bug, or a worker without its GPU: the batch stops
    except BioaccelError as exc:
        values = [exc] if len(payloads) == 1 else each(lambda payload: function([payload])[0], payloads)
    return [Outcome(key, error=value) if isinstance(value, BioaccelError) else Outcome(key, value)
            for key, value in zip(keys, values)]


def _inverse(values):
    from ..errors import InvalidParameter

    if 0 in values:
        raise InvalidParameter("cannot invert 0")
    return [1 / v for v in values]


def plan_tasks(items: list, workers: int, max_items: int = MAX_TASK_ITEMS, per_worker: int = TASKS_PER_WORKER) -> list:
    """The items cut into tasks (lists of items, contiguous in the order given) of about equal cost:
    at least ``per_worker`` per worker, at most ``max_items`` items each.

    >>> [len(t) for t in plan_tasks([Item(k, "", 1.0, None) for k in range(20)], workers=1)]
    [3, 2, 3, 2, 3, 2, 3, 2]
    >>> [len(t) for t in plan_tasks([Item(k, "", 1.0, None) for k in range(20)], workers=1, per_worker=4)]
    [5, 5, 5, 5]
    """
    from .cluster import balanced_chunks

    parts = max(workers * per_worker, math.ceil(len(items) / max_items))
    ranges = balanced_chunks([max(float(item.cost), 1e-9) for item in items], parts)
    return [items[a:b] for a, b in ranges]


def run_items(function: Callable, items: list, *, client=None, gpu: bool = False) -> Iterator[Outcome]:
    """Yield the :class:`Outcome` of every item as its task completes: here, one task after another
    (``client=None``), or on ``client`` (a ``dask.distributed.Client``), the GPU work (``gpu``) on
    GPU workers only. ``function``: module-level (or a ``functools.partial`` of one), a list of
    payloads to a list of values.

    >>> [(o.key, o.value, o.error) for o in run_items(_squares, [Item(0, "three", 1.0, 3)])]
    [(0, 9, None)]
    """
    items = list(items)
    if not items:
        return
    if client is None:
        for task in plan_tasks(items, 1, LOCAL_TASK_ITEMS, LOCAL_GPU_TASKS if gpu else TASKS_PER_WORKER):
            yield from run_task(function, [i.key for i in task], [i.payload for i in task])
        return
    yield from _on_dask(function, items, client, gpu)


def _on_dask(function, items, client, gpu):
    from distributed import KilledWorker, as_completed

    from .cluster import placement, worker_count

    where = placement(client, gpu)
    workers = worker_count(client, where)
    tasks = iter(plan_tasks(items, workers))
    running = as_completed()
    labels = {}                 # future key -> (first label, last label, items): for a message
    inflight = set()

    def submit():
        task = next(tasks, None)
        if task is None:
            return
        future = client.submit(run_task, function, [i.key for i in task], [i.payload for i in task], pure=False,
                               **where)
        labels[future.key] = (task[0].label, task[-1].label, len(task))
        inflight.add(future)
        running.add(future)

    for _ in range(workers * IN_FLIGHT_PER_WORKER):
        submit()
    try:
        for future in running:
            try:
                outcomes = future.result()
            except KilledWorker:            # Dask gave up after the task's workers died a few times
                first, last, count = labels[future.key]
                span = first if count == 1 else f"{first} .. {last} ({count} items)"
                raise ResourceError(f"Dask workers died again and again running {span} (out of memory, "
                                    "or killed)") from None
            labels.pop(future.key, None)
            inflight.discard(future)
            future.release()
            submit()
            yield from outcomes
    finally:                    # stopped early (an error, Ctrl-C): nothing left running for us
        if inflight:
            client.cancel(list(inflight))
