"""BPMax of every query against every target as one :class:`~bioaccel.distribution.work.Work`: the
batch that ``bpmax(..., client=...)`` runs on a Dask cluster and that ``bioaccel interact --workers``
(``--scheduler``, ``--gpus``, ``--resume``) runs through the command line's batch layer.

An item is one (target, query) pair, targets outer and queries inner (the output's order), costing
its BPMax work within the windows (:func:`~bioaccel.interact._model.work`); the Work's function is
:func:`pair_values`, the very code of the in-process path (``PAIRS`` of :mod:`._backends`).
"""
import functools

from ..distribution.batch import Item, each
from ..distribution.work import Work
from ._model import work


def pair_values(payloads: list, *, request) -> list:
    """The rows of each (target, query) payload where this runs (a Dask worker, or this process),
    computed for ``request``: one list of Interactions a pair, or the BioaccelError of a pair that
    failed alone (too large for memory). On the GPU the pairs share their launches (when that fails,
    the batch layer runs each pair alone).

    >>> from bioaccel.inputs.fasta import Record
    >>> from bioaccel.interact._request import check_request
    >>> [[r.score for r in rows] for rows in pair_values([(Record("t", "GGGUUUCCC"), Record("q", "GGGAAACCC")),
    ...                                                   (Record("t", "GGGUUUCCC"), Record("e", ""))],
    ...                                                  request=check_request())]
    [[21], [9]]
    """
    from ._backends import PAIRS, TOGETHER

    function = PAIRS[request.call.backend]
    if TOGETHER[request.call.backend]:
        return list(function(payloads, request))
    return each(lambda payload: list(function([payload], request))[0], payloads)


def pairs_work(queries: list, targets: list, request) -> Work:
    """The Work of every query against every target (lists of Records), computed for ``request``.

    >>> from bioaccel.inputs.fasta import Record
    >>> from bioaccel.interact._request import check_request
    >>> made = pairs_work([Record("q", "GGGAAACCC")], [Record("t1", "GGGUUUCCC"), Record("t2", "AAAA")],
    ...                   check_request())
    >>> [(item.key, item.label) for item in made.items], made.gpu
    ([(0, "pair 'q' x 't1'"), (1, "pair 'q' x 't2'")], False)
    """
    params = request.params
    items = []
    for target in targets:
        for query in queries:
            M, N = len(query), len(target)
            items.append(Item(len(items), f"pair {query.id!r} x {target.id!r}",
                              float(work(M, N, *params.spans(M, N))) + 1.0, (target, query)))
    return Work(items, functools.partial(pair_values, request=request), gpu=request.call.backend == "gpu")
