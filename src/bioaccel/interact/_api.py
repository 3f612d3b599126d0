"""The BPMax API: ``bpmax(queries, targets, ...)``, its streaming form ``iter_bpmax`` and its batch
``bpmax_work``.

Every target meets every query (targets outer, queries inner, as the command line writes them), and
each pair gives its best site, or its ``sites`` best non-overlapping target windows (_sites). The
keywords are checked once, before any input is read (_request); the pairs are computed on the
backend's path (_backends: _pairs_cpu, _pairs_gpu), here or, with ``client``, on a Dask cluster as one
Work (_work). An empty sequence is a valid input: its pairs score the other strand folded alone.
"""
from typing import Iterator

from ..distribution.work import Work
from ..runtime.contract import Sequences, records
from ._backends import stream
from ._model import InteractParams
from ._request import check_request
from ._result import Interaction
from ._work import pairs_work


def bpmax(queries: Sequences, targets: Sequences, *, params: "InteractParams | None" = None,
          backend: str = "cpu", variant: "str | None" = None, threads: int = 0, client=None,
          structure: bool = False, sites: int = 1, rank: str = "score") -> "list[Interaction]":
    """BPMax of every query (strand 1) against every target (strand 2): a list of :class:`Interaction`,
    targets outer, queries inner, and for each pair its ``sites`` best sites, best first.

    ``queries`` / ``targets``: each one string, a :class:`~bioaccel.inputs.fasta.Record` or an ``(id,
    sequence)`` pair (a tuple of two strings), or an iterable of them; strings get the ids seq1, seq2,
    ...; an empty sequence is valid (its pairs score the other strand folded alone, as the recurrence's
    empty-interval border gives). ``params``: :class:`InteractParams` (weights and windows).
    ``backend``: "cpu" or "gpu" (CuPy and an NVIDIA GPU; many targets per launch). ``variant``: None
    for the backend's default or a name of ``bioaccel.interact.VARIANTS``. ``threads``: CPU threads
    for the call (0 = all cores). ``client``: run on a Dask cluster instead (a
    ``dask.distributed.Client``, a scheduler address, or "local"), in tasks balanced by work
    (:func:`bpmax_work`), results in the same order. ``structure``: also trace an optimal joint
    structure of each site. ``sites``: how many non-overlapping target windows to report per pair (1:
    the best; fewer when fewer fit; see bioaccel.interact._sites for the order and ties). ``rank``:
    "score" (the best windows by score, BPMax's objective) or "gain" (by score minus the folds of the
    two windows alone).

    >>> [(r.query, r.target, r.score) for r in bpmax(["GGGAAACCC", "AAAA"], ("t1", "GGGUUUCCC"))]
    [('seq1', 't1', 21), ('seq2', 't1', 12)]
    >>> r = bpmax("GGGAAACCC", "UUUUAAAAGGGCCCAUGC", params=InteractParams(window_target=5))[0]
    >>> r.score, (r.target_start, r.target_end), r.target_fold, r.gain
    (18, (8, 14), 3, 6)
    >>> [(r.site, r.score, r.target_start) for r in bpmax("GGGAAACCC", "GGGUUUCCCAAAAAGGGUUUCC",
    ...                                                    params=InteractParams(window_target=8), sites=3)]
    [(1, 21, 0), (2, 18.5, 13)]
    >>> [(r.score, r.query_fold, r.target_fold, r.gain) for r in bpmax("", "GGGUUUCCC")]   # the target alone
    [(9, 0, 9, 0)]
    """
    options = dict(params=params, backend=backend, variant=variant, threads=threads, structure=structure,
                   sites=sites, rank=rank)
    if client is None:
        return list(iter_bpmax(queries, targets, **options))
    from ..distribution.work import run_work

    request = check_request(**options)       # a GPU backend needs a GPU here too, as without a client
    made = pairs_work(list(records(queries)), list(records(targets)), request)
    return [row for rows in run_work(made, client) for row in rows]


def iter_bpmax(queries: Sequences, targets: Sequences, *, params: "InteractParams | None" = None,
               backend: str = "cpu", variant: "str | None" = None, threads: int = 0,
               structure: bool = False, sites: int = 1, rank: str = "score") -> Iterator[Interaction]:
    """Like :func:`bpmax` but yields each Interaction as soon as it is ready (targets are read lazily,
    queries at once). The keywords and the queries are checked here, before any target is read.

    >>> [r.score for r in iter_bpmax("GGGAAACCC", ["GGGUUUCCC", "AAAA"])]
    [21, 9]
    """
    request = check_request(params, backend, variant, threads, structure, sites, rank)
    return stream(list(records(queries)), records(targets), request)


def bpmax_work(queries: Sequences, targets: Sequences, *, params: "InteractParams | None" = None,
               backend: str = "cpu", variant: "str | None" = None, threads: int = 0,
               structure: bool = False, sites: int = 1, rank: str = "score") -> Work:
    """:func:`bpmax` as a batch to run elsewhere: a :class:`~bioaccel.distribution.work.Work` of one
    item per (target, query) pair (targets outer, queries inner; cost: its BPMax work) whose function
    gives each pair's list of Interactions (:func:`~bioaccel.distribution.work.run_work` runs it; the
    command line's ``--workers`` too). The keywords are checked here (a GPU backend's device is checked
    where the pairs run), and both inputs are read at once.

    >>> from bioaccel.distribution.work import run_work
    >>> made = bpmax_work("GGGAAACCC", ["GGGUUUCCC", "AAAA"])
    >>> [item.label for item in made.items], [[r.score for r in rows] for rows in run_work(made, None)]
    (["pair 'seq1' x 'seq1'", "pair 'seq1' x 'seq2'"], [[21], [9]])
    """
    request = check_request(params, backend, variant, threads, structure, sites, rank, here=False)
    return pairs_work(list(records(queries)), list(records(targets)), request)
