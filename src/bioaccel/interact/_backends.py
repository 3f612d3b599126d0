"""Which code computes a list of BPMax pairs on each backend (``PAIRS``), and the stream of
:func:`bioaccel.interact.iter_bpmax` over it: targets read in rounds, each round's pairs computed
together, rows yielded in the usual order (targets outer, queries inner).

A round is one target on the CPU (each pair's rows come as soon as it is computed) and about
``ROUND_BASES["gpu"]`` target bases on the GPU (the device takes as much of a round per launch as its
memory holds).
"""
from typing import Iterable, Iterator

from ._pairs_cpu import cpu_pairs


def _gpu_pairs(pairs, request):
    from ._pairs_gpu import gpu_pairs       # NumPy only until a GPU round runs

    return gpu_pairs(pairs, request)


#: backend -> ``function(pairs, request)``: the rows of each (target, query) pair, one list a pair, in
#: the order given (an iterable: the CPU's yields each pair's rows as soon as they are computed).
PAIRS = {"cpu": cpu_pairs, "gpu": _gpu_pairs}

#: Whether a backend computes a list of pairs together (the GPU: many targets a launch), so that one
#: pair's failure fails the list, rather than each pair alone.
TOGETHER = {"cpu": False, "gpu": True}

#: Target bases read per round: one target at a time on the CPU, millions of bases on the GPU.
ROUND_BASES = {"cpu": 0, "gpu": 4_000_000}


def _rounds(targets: Iterable, bases: int) -> Iterator[list]:
    """The targets in rounds of at least ``bases`` bases (the last one shorter), read lazily."""
    round_, total = [], 0
    for target in targets:
        round_.append(target)
        total += len(target)
        if total >= bases:
            yield round_
            round_, total = [], 0
    if round_:
        yield round_


def stream(queries: list, targets: Iterable, request) -> Iterator:
    """Every query (a list of Records) against every target (Records, read lazily), on the request's
    backend: the Interaction rows, targets outer, queries inner.

    >>> from bioaccel.inputs.fasta import Record
    >>> from bioaccel.interact._request import check_request
    >>> [r.score for r in stream([Record("q", "GGGAAACCC")], [Record("t", "GGGUUUCCC")], check_request())]
    [21]
    """
    backend = request.call.backend
    for round_ in _rounds(targets, ROUND_BASES[backend]):
        for rows in PAIRS[backend]([(target, query) for target in round_ for query in queries], request):
            yield from rows
