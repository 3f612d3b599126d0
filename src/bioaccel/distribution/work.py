"""A family's batch, described once: its items and the function that computes them where they run.

Every family says what its batch is in one place: the items (:class:`~.batch.Item`: a record to fold
costing n^3, a (target, query) pair costing BPMax's work, a group of motifs scanning every sequence)
and a module-level function that computes a list of payloads, the very code of the in-process path.
``client=`` in the API runs that :class:`Work` with :func:`run_work`; the command line's
``--workers``, ``--scheduler`` and ``--gpus`` run the same Work through its batch runner, which adds
the journal, the progress bar and the written outputs. No algorithm is written again for Dask.

>>> from bioaccel.distribution.batch import Item, _squares
>>> run_work(Work([Item(k, f"item {k}", 1.0, k) for k in range(4)], _squares), client=None)
[0, 1, 4, 9]
"""
from dataclasses import dataclass
from typing import Callable

from .batch import run_items


@dataclass(frozen=True)
class Work:
    """A batch: ``items`` (keys 0, 1, ... in input order), ``function(payloads) -> values`` (module-level,
    or a ``functools.partial`` of one, so that workers import it), and whether it needs GPU workers."""

    items: list
    function: Callable
    gpu: bool = False


def run_work(work: Work, client, *, gpus=()) -> list:
    """The value of every item of ``work``, in input order, computed here (``client=None``) or on
    ``client`` (a ``dask.distributed.Client``, a scheduler's address, or ``"local"``: a cluster of this
    machine, with one worker per GPU of ``gpus``); the first item to fail raises its error, as the
    in-process path would."""
    values = [None] * len(work.items)
    if client is None:
        outcomes = run_items(work.function, work.items)
        return _collect(outcomes, values)
    from .cluster import connect

    with connect(client, gpus=gpus) as opened:
        return _collect(run_items(work.function, work.items, client=opened, gpu=work.gpu), values)


def _collect(outcomes, values):
    for outcome in outcomes:
        if outcome.error is not None:
            raise outcome.error
        values[outcome.key] = outcome.value
    return values
