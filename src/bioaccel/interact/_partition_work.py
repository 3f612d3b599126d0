"""BPPart of every query against every target as one :class:`~bioaccel.distribution.work.Work`: the
batch that ``bioaccel interact --partition --workers`` (``--scheduler``, ``--gpus``, ``--resume``) runs
through the command line's batch layer, on CPU workers or one worker per GPU.

An item is one (target, query) pair, targets outer and queries inner (the output's order), costing
its recurrence's work within the windows (the shape of BPMax's, :func:`._model.work`); the Work's
function is :func:`partition_values`, the code of the in-process path: on the CPU each pair as
``iter_bppart`` fills it, on the GPU the pairs of one query share their launches (one query against
all of a task's targets, :func:`._partition._gpu_round`).
"""
import functools

from ..distribution.batch import Item, each
from ..distribution.work import Work
from ..errors import InvalidParameter, NotAvailable
from ..inputs.alphabet import encode
from ..runtime.contract import Call, check_params, records
from ..runtime.parallel import resolve_threads
from ._model import work
from ._partition_model import PartitionParams
from ._sites import check_sites
from ._variants import PARTITION_VARIANTS


def partition_work(queries, targets, *, params: "PartitionParams | None" = None, backend: str = "cpu",
                   variant: "str | None" = None, threads: int = 0, sites: int = 1, binding: bool = False) -> Work:
    """:func:`~bioaccel.interact.bppart` as a batch to run elsewhere: one item per (target, query) pair
    whose value is the pair's list of Partitions (one a site). The keywords are checked here (a GPU
    backend's device where the pairs run); both inputs are read at once.

    >>> from bioaccel.distribution.work import run_work
    >>> made = partition_work("GGG", ["CCC", "AAA"])
    >>> [item.label for item in made.items], [round(rows[0].log_z, 4) for rows in run_work(made, None)]
    (["pair 'seq1' x 'seq1'", "pair 'seq1' x 'seq2'"], [9.3856, 0.0])
    """
    params = check_params(params, PartitionParams)
    call = Call(params, backend, PARTITION_VARIANTS.resolve(variant, backend), threads)
    resolve_threads(threads)
    check_sites(sites)
    if not isinstance(binding, bool):
        raise InvalidParameter(f"binding must be True or False, got {binding!r}")
    if binding and backend != "cpu":
        raise NotAvailable("binding probabilities of BPPart are on the cpu backend only")
    items, query_list = [], list(records(queries))
    for target in records(targets):
        for query in query_list:
            M, N = len(query.sequence), len(target.sequence)
            items.append(Item(len(items), f"pair {query.id!r} x {target.id!r}",
                              float(work(M, N, *params.spans(M, N))) + 1.0, (target, query)))
    return Work(items, functools.partial(partition_values, call=call, sites=sites, binding=binding),
                gpu=backend == "gpu")


def partition_values(payloads: list, *, call: Call, sites: int = 1, binding: bool = False) -> list:
    """The rows of each (target, query) payload where this runs (a Dask worker, or this process): one
    list of Partitions a pair, or the BioaccelError of a pair that failed alone. On the GPU the pairs
    of one query share their launches.

    >>> from bioaccel.inputs.fasta import Record
    >>> call = Call(PartitionParams(), "cpu", "matrices", 1)
    >>> [[round(r.log_z, 4) for r in rows] for rows in partition_values([(Record("t", "CCC"), Record("q", "GGG"))],
    ...                                                                   call=call)]
    [[9.3856]]
    """
    from ._partition import _gpu_round, _stream

    if call.backend != "gpu":
        return each(lambda pair: list(_stream([(pair[1], encode(pair[1].sequence))], [pair[0]], call, sites,
                                               binding)), payloads)
    from ..runtime.gpu import require_gpu

    require_gpu()                           # GPUUnavailable: a worker without its GPU stops the batch
    values = [None] * len(payloads)
    by_query = {}
    for k, (target, query) in enumerate(payloads):
        by_query.setdefault((query.id, query.sequence), []).append(k)
    for (name, sequence), members in by_query.items():
        query = payloads[members[0]][1]
        rows = _gpu_round([(query, encode(sequence))], [payloads[k][0] for k in members], call, sites)
        pairs, current = [], None
        for row in rows:                    # each pair's rows start at its first site
            if row.site == 1:
                current = []
                pairs.append(current)
            current.append(row)
        for k, found in zip(members, pairs):
            values[k] = found
    return values
