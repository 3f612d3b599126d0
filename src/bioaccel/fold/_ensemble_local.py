"""Local folding (RNAplfold): the windowed base-pair probabilities of each sequence, for sequences of any
length (a genome: memory bounded by a stretch of a few windows, time linear in the length).
:func:`local_ensemble` / :func:`iter_local_ensemble` give a :class:`LocalEnsembleResult` per sequence;
:func:`iter_local_chunks` streams a long one stretch by stretch. The recurrences are in
docs/mccaskill.md ("Local folding").

>>> r = local_ensemble("GGGGAAACCCCAUAUGGGGAAACCCC", window=11, cutoff=0.5)[0]
>>> [(i, j, round(p, 3)) for i, j, p in r.pairs_above(0.6)]          # RNA.pfl_fold(seq, 11, 11, 0.6)
[(1, 11, 0.935), (9, 18, 0.66), (16, 25, 0.672), (17, 24, 0.636)]
"""
import functools
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import InvalidParameter
from ..results.rows import Result, hidden
from ..runtime.contract import Sequences, records
from ._turner_plfold import CUTOFF, WINDOW, WindowChunk, check_window, window_chunks


@dataclass(frozen=True)
class LocalEnsembleResult(Result):
    """The windowed ensemble of one sequence (RNAplfold -W window -L span -c cutoff): ``i``, ``j``
    (1-based, i < j, by i then j) and ``p`` of every pair of probability at least ``cutoff``, the
    probability being the mean, over the windows of ``window`` bases that hold the pair, of its
    probability in that window (pairs span fewer than ``span`` bases: j - i < span). ``unpaired``:
    with ``unpaired=True``, each base's probability of being unpaired, the mean over the windows that
    hold it (RNAplfold -u 1), else None.

    >>> r = local_ensemble("GGGGAAACCCC", window=11)[0]
    >>> r.to_dict()["pairs"], r.window, r.span
    (10, 11, 11)
    """

    DERIVED = ("length", "pairs")

    id: str
    model: str
    window: int
    span: int
    cutoff: float
    sequence: str = hidden(repr=False)
    i: np.ndarray = hidden(repr=False)
    j: np.ndarray = hidden(repr=False)
    p: np.ndarray = hidden(repr=False)
    unpaired: "np.ndarray | None" = hidden(default=None, repr=False)
    backend: str = "cpu"
    description: str = hidden(default="")

    @property
    def length(self) -> int:
        return len(self.sequence)

    @property
    def pairs(self) -> int:
        return int(self.p.shape[0])

    def pairs_above(self, threshold: float = 0.0) -> list:
        """``[(i, j, p)]``, 1-based, every pair of probability at least ``threshold`` (and the cutoff).

        >>> local_ensemble("GGGGAAACCCC", window=11)[0].pairs_above(0.5)[0][:2]
        (1, 11)
        """
        keep = self.p >= threshold
        return list(zip(self.i[keep].tolist(), self.j[keep].tolist(), self.p[keep].tolist()))


def check_local(params=None, *, backend: str = "cpu", threads: int = 0, window: int = WINDOW,
                span: "int | None" = None, cutoff: float = CUTOFF):
    """``(call, window, span, cutoff)`` checked before any sequence is read: the Turner 2004 model on
    the CPU, a span of at most the window, a cutoff from 0 to 1.

    >>> check_local(window=70, span=100)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: the span (100) must be at most the window (70): a pair spans one window at most
    """
    from ._ensemble import check_ensemble
    from ._turner_model import TurnerModel

    if backend != "cpu":         # before check_ensemble, which would look for a GPU first
        raise InvalidParameter(f"windowed probabilities (RNAplfold) run on the CPU only (backend='cpu'), "
                               f"got {backend!r}")
    call = check_ensemble(params, backend=backend, threads=threads)
    if not isinstance(call.params, TurnerModel):
        raise InvalidParameter(f"windowed probabilities (RNAplfold) are computed for the turner2004 model, "
                               f"not {call.params.name}")
    return (call, *check_window(window, span, cutoff))


def iter_local_chunks(sequences: Sequences, *, window: int = WINDOW, span: "int | None" = None,
                      cutoff: float = CUTOFF, unpaired: bool = False, params=None, backend: str = "cpu",
                      threads: int = 0) -> "Iterator[tuple[object, WindowChunk]]":
    """``(record, chunk)`` for each stretch of each sequence, in order: the pairs of probability at least
    ``cutoff`` whose left base lies in ``chunk.start .. chunk.end`` (a :class:`WindowChunk`), so that a
    genome streams with bounded memory. Keywords as :func:`local_ensemble`'s.

    >>> [(r.id, c.start, c.end, len(c.p)) for r, c in iter_local_chunks(["GGGGAAACCCC", "AC"], window=11)]
    [('seq1', 1, 11, 10), ('seq2', 1, 2, 0)]
    """
    from ..runtime.parallel import resolve_threads

    call, window, span, cutoff = check_local(params, backend=backend, threads=threads, window=window, span=span,
                                             cutoff=cutoff)
    workers = resolve_threads(call.threads)
    return _chunks(records(sequences), call.params, window, span, cutoff, unpaired, workers)


def _chunks(stream, model, window, span, cutoff, unpaired, workers):
    for record in stream:
        for chunk in window_chunks(record.codes, model, window=window, span=span, cutoff=cutoff,
                                   unpaired=unpaired, workers=workers):
            yield record, chunk


def iter_local_ensemble(sequences: Sequences, *, window: int = WINDOW, span: "int | None" = None,
                        cutoff: float = CUTOFF, unpaired: bool = False, params=None, backend: str = "cpu",
                        threads: int = 0) -> Iterator[LocalEnsembleResult]:
    """Like :func:`local_ensemble`, yielding each result in input order as soon as it is ready.

    >>> next(iter_local_ensemble(["GGGGAAACCCC"], window=11, unpaired=True)).unpaired.round(2).tolist()[:2]
    [0.04, 0.0]
    """
    from ..runtime.parallel import resolve_threads

    call, window, span, cutoff = check_local(params, backend=backend, threads=threads, window=window, span=span,
                                             cutoff=cutoff)
    return _results(records(sequences), call.params, window, span, cutoff, unpaired, resolve_threads(call.threads))


def _results(stream, model, window, span, cutoff, unpaired, workers):
    for record in stream:
        parts = list(window_chunks(record.codes, model, window=window, span=span, cutoff=cutoff,
                                   unpaired=unpaired, workers=workers))
        yield _result(record, parts, model.name, window, span, cutoff, unpaired)


def _result(record, parts, model, window, span, cutoff, unpaired):
    def cat(name, dtype):
        values = [getattr(c, name) for c in parts]
        return np.concatenate(values).astype(dtype) if values else np.zeros(0, dtype)

    if unpaired and not parts:                  # the empty sequence
        parts = [WindowChunk(1, 0, np.zeros(0), np.zeros(0), np.zeros(0), np.zeros(0))]

    return LocalEnsembleResult(id=record.id, model=model, window=window, span=span, cutoff=cutoff,
                               sequence=record.sequence, i=cat("i", np.int64), j=cat("j", np.int64),
                               p=cat("p", np.float64), unpaired=cat("unpaired", np.float64) if unpaired else None,
                               description=record.description)


def local_ensemble(sequences: Sequences, *, window: int = WINDOW, span: "int | None" = None,
                   cutoff: float = CUTOFF, unpaired: bool = False, params=None, backend: str = "cpu",
                   threads: int = 0, client=None) -> "list[LocalEnsembleResult]":
    """The windowed base-pair probabilities of each sequence (RNAplfold; ViennaRNA's
    ``RNA.pfl_fold(sequence, window, span, cutoff)``): a list of :class:`LocalEnsembleResult` in input
    order. ``window``: bases per window (RNAplfold -W, default 70; a longer window than the sequence is
    the sequence); ``span``: pairs span fewer bases than this (-L, default the window; at most the
    window); ``cutoff``: pairs of lower probability are left out (-c, default 0.01); ``unpaired``: also
    each base's probability of being unpaired (-u 1). ``params``: a TurnerModel (temperature, no_lp,
    no_gu; None: 37 C); ``threads``: stretches computed at once (0: every core); ``client``: compute on
    a Dask cluster instead (a ``dask.distributed.Client``, a scheduler's address, or "local"), one
    sequence per task (:func:`local_ensemble_work`). Time grows linearly with the length, memory with the
    window.

    >>> [r.pairs for r in local_ensemble(["GGGGAAACCCC", "AAAA"], window=11)]
    [10, 0]
    """
    options = dict(window=window, span=span, cutoff=cutoff, unpaired=unpaired, params=params, backend=backend,
                   threads=threads)
    if client is not None:
        from ..distribution.work import run_work

        return run_work(local_ensemble_work(sequences, **options), client)
    return list(iter_local_ensemble(sequences, window=window, span=span, cutoff=cutoff, unpaired=unpaired,
                                    params=params, backend=backend, threads=threads))


def local_ensemble_work(sequences: Sequences, **options):
    """The windowed ensembles of ``sequences`` as a batch (:class:`~bioaccel.distribution.work.Work`): one
    item per record, costing n W^2, computed where it runs by :func:`iter_local_ensemble` (the keywords
    are :func:`local_ensemble`'s, checked here).

    >>> work = local_ensemble_work(["GGGGAAACCCC", ("x", "GC")], window=11)
    >>> [item.label for item in work.items], [r.pairs for r in work.function([i.payload for i in work.items])]
    (["record 'seq1'", "record 'x'"], [10, 0])
    """
    from ..distribution.batch import Item
    from ..distribution.work import Work

    _, window, span, cutoff = check_local(options.get("params"), backend=options.get("backend", "cpu"),
                                          threads=options.get("threads", 0), window=options.get("window", WINDOW),
                                          span=options.get("span"), cutoff=options.get("cutoff", CUTOFF))
    items = [Item(key, f"record {record.id!r}", float(len(record)) * window * window + 1.0, record)
             for key, record in enumerate(records(sequences))]
    return Work(items, functools.partial(local_payloads, **options))


def local_payloads(payloads: list, **options) -> "list[LocalEnsembleResult]":
    """The worker function of :func:`local_ensemble_work`: the result of each record of ``payloads``.

    >>> local_payloads(["GGGGAAACCCC"], window=11)[0].pairs
    10
    """
    return list(iter_local_ensemble(payloads, **options))
