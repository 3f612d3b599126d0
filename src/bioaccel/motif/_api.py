"""The motif statistics API: P-values and thresholds of one motif or many (COMPARE: :mod:`._compare_api`).

Every function takes one motif or many (a :class:`PSSM`, a spec that :func:`read_motifs` reads, or an
iterable of them), then the family's keywords in the contract's order (``params``, ``backend``,
``variant``, ``threads``, and ``client`` for the list forms: :mod:`bioaccel.runtime.contract`), and
returns a list of results in input order; the ``iter_`` form yields the same results as they are
ready. Options are checked when the function is called, before any motif is read. The exact variant
answers many questions at once in one parallel Numba kernel; the bucket variant runs each
distribution on ``threads`` Numba threads, or the GPU. With ``client=`` the motifs are the items of
a batch (:class:`~bioaccel.distribution.work.Work`) answered where the client runs them.
"""
import functools
import math
import numbers
import os  # noqa: F401  (os.PathLike: in string annotations)
from collections.abc import Callable, Iterable, Iterator  # noqa: F401  (Callable, Iterable: in annotations)

from ..distribution.batch import Item
from ..distribution.work import Work, run_work
from ..errors import InvalidParameter
from ..results.tables import chunked
from ..runtime.contract import Call, check_call
from ..runtime.parallel import threads as using_threads
from ._bucket import DEFAULT_BUCKETS, DEFAULT_SLICES, check_bucket_memory
from ._exact import exact_pvalues, exact_thresholds
from ._grid import check_p
from ._params import MotifParams
from ._pssm import PSSM
from ._result import PValue, Threshold
from ._stats import check_precision, score_distribution
from ._threshold_cache import cached_exact_thresholds
from ._variants import VARIANTS
from .io import iter_motifs

POOL_CHUNK = 1000          # motifs handed to the exact variant's thread pool at a time

Motifs = "PSSM | str | os.PathLike | Iterable[PSSM | str | os.PathLike]"     # annotations: one motif or many
Values = "float | Iterable[float]"


def _whole(value, name, least):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise InvalidParameter(f"{name} must be a whole number >= {least}, got {value!r}")
    return int(value)


def check_options(registry, params, backend, variant, threads, precision, slices, buckets) -> Call:
    """The keywords every motif function shares, checked before any motif is read: the contract's
    (:func:`~bioaccel.runtime.contract.check_call`: ``params`` a :class:`MotifParams`, filled in when
    None) and the variants' own."""
    call = check_call(registry, params, MotifParams, backend=backend, variant=variant, threads=threads)
    check_precision(precision)
    _whole(slices, "slices", 1)
    _whole(buckets, "buckets", 2)
    if call.variant == "bucket":             # the tables of every thread fit in memory
        check_bucket_memory(buckets, call.params.background_model.order)
    return call


def numbers_of(values, check, what) -> list:
    """One number or an iterable of them, each checked by ``check``; InvalidParameter otherwise."""
    if isinstance(values, numbers.Real):
        return [check(values)]
    try:
        items = list(values)
    except TypeError:
        raise InvalidParameter(f"{what} must be a number or an iterable of numbers, got {values!r}") from None
    return [check(v) for v in items]


def check_cache(cache) -> bool:
    """``cache`` (a bool), or InvalidParameter.

    >>> check_cache(1)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: cache must be True or False, got 1
    """
    if not isinstance(cache, bool):
        raise InvalidParameter(f"cache must be True or False, got {cache!r}")
    return cache


def _callable(on_answer):
    if on_answer is not None and not callable(on_answer):
        raise InvalidParameter(f"on_answer must be a function or None, got {on_answer!r}")
    return on_answer


def _score(value):
    if not isinstance(value, numbers.Real) or math.isnan(value):
        raise InvalidParameter(f"score must be a number, got {value!r}")
    return float(value)


def _exact_answers(pssms, values, ask, backend, threads, precision, slices, buckets, cache, on_answer):
    # a chunk of motifs at once in one parallel kernel (every core busy, no GIL); thresholds found
    # before are read from the cache on disk (._threshold_cache)
    solve = exact_pvalues if ask != "threshold" else cached_exact_thresholds if cache else exact_thresholds
    for chunk in chunked(pssms, size=POOL_CHUNK, seconds=math.inf):
        with using_threads(threads):
            yield from solve([(m, v) for m in chunk for v in values], precision=check_precision(precision),
                             on_answer=on_answer)


def _distribution_answers(pssms, values, ask, backend, threads, precision, slices, buckets, cache, on_answer):
    # the bucket variant: each motif's whole distribution, then every value asked of it (never cached:
    # it is the reference the exact answers are checked against, and the GPU's)
    for pssm in pssms:
        dist = score_distribution(pssm, "bucket", backend=backend, slices=slices, buckets=buckets, threads=threads)
        found = [getattr(dist, ask)(v) for v in values]
        for _ in found if on_answer is not None else ():
            on_answer(pssm, True)
        yield from found


#: How each variant answers: (motifs, values, "threshold" or "pvalue_result", backend, threads,
#: precision, slices, buckets, cache, on_answer) -> every (motif, value) answer, motif by motif, values
#: in order.
ANSWERS = {"exact": _exact_answers, "bucket": _distribution_answers}


def answers(pssms, values, ask, variant, backend, threads, precision, slices, buckets, cache=False,
            on_answer=None) -> Iterator:
    """Every (motif, value) answer of ``variant``, motif by motif, values in order (``cache``: the exact
    variant's thresholds read from and kept in the cache on disk; ``on_answer(pssm, searched)``: called
    for each answer as it is found, ``searched`` False where it was read from the cache)."""
    return ANSWERS[variant](pssms, values, ask, backend, threads, precision, slices, buckets, cache, on_answer)


def answer_motifs(pssms, *, values, ask, variant, backend, threads, precision, slices, buckets,
                  cache=False) -> list:
    """The answers of each motif of ``pssms`` (a list per motif): the worker function of the batch that
    ``client=`` runs, one item a motif."""
    found = iter(list(answers(pssms, values, ask, variant, backend, threads, precision, slices, buckets, cache)))
    return [[next(found) for _ in values] for _ in pssms]


def iter_pvalues(motifs: Motifs, scores: Values, *, params: "MotifParams | None" = None, backend: str = "cpu",
                 variant: "str | None" = None, threads: int = 0, precision: "float | None" = None,
                 slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS,
                 on_answer: "Callable[[PSSM, bool], None] | None" = None) -> Iterator[PValue]:
    """Like :func:`pvalues`, but yields each :class:`PValue` as soon as it is ready. ``on_answer(pssm,
    True)`` is called for each (motif, score) as its answer is found, which with many motifs is before
    it is yielded (the exact variant answers them together): a progress bar.

    >>> import numpy as np
    >>> next(iter_pvalues(PSSM(np.eye(4)[:2]), 2.0)).pvalue
    0.0625
    """
    call = check_options(VARIANTS, params, backend, variant, threads, precision, slices, buckets)
    scores = numbers_of(scores, _score, "scores")
    return answers(iter_motifs(motifs, params=call.params), scores, "pvalue_result", call.variant, call.backend,
                   threads, precision, slices, buckets, on_answer=_callable(on_answer))


def pvalues(motifs: Motifs, scores: Values, *, params: "MotifParams | None" = None, backend: str = "cpu",
            variant: "str | None" = None, threads: int = 0, client=None, precision: "float | None" = None,
            slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS) -> "list[PValue]":
    """SCORETOPVALUE: P(score >= s) of every motif at every score ``s`` of ``scores`` (one number or
    many), motif by motif: a list of :class:`PValue`, each with certified bounds.

    ``motifs``: a :class:`PSSM`, a spec :func:`read_motifs` reads (a file, ``jaspar:...``; scored
    under ``params``, a :class:`MotifParams`), or an iterable of them. ``variant``: None (the backend's
    default: ``exact`` on the CPU, ``bucket`` on the GPU) or a name of ``VARIANTS``. ``threads``: CPU
    threads (0: all cores), for this call only. ``client``: answer on a Dask cluster instead (a
    ``dask.distributed.Client``, a scheduler address, or "local"), the motifs the items of the batch;
    the same results. ``precision``: the exact variant's relative gap between the bounds (default:
    exact). ``slices``, ``buckets``: the bucket variant's N and B.

    >>> import numpy as np
    >>> [round(r.pvalue, 4) for r in pvalues(PSSM(np.eye(4)[:2]), [1.0, 2.0])]
    [0.4375, 0.0625]
    >>> pvalues("jaspar:MA0004.1", 8.0, variant="bucket")[0].motif_id
    'MA0004.1'
    """
    return _asked(iter_pvalues, motifs, scores, _score, "scores", "pvalue_result", params, backend, variant, threads,
                  client, precision, slices, buckets, {})


def iter_thresholds(motifs: Motifs, pvalue: Values, *, params: "MotifParams | None" = None, backend: str = "cpu",
                    variant: "str | None" = None, threads: int = 0, precision: "float | None" = None,
                    slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS, cache: bool = True,
                    on_answer: "Callable[[PSSM, bool], None] | None" = None) -> Iterator[Threshold]:
    """Like :func:`thresholds`, but yields each :class:`Threshold` as soon as it is ready.
    ``on_answer(pssm, searched)`` is called for each (motif, P-value) as its answer is found, before
    it is yielded (``searched`` False: read from the threshold cache): a progress bar.

    >>> import numpy as np
    >>> next(iter_thresholds(PSSM(np.eye(4)[:2]), 0.1)).score
    2.0
    """
    call = check_options(VARIANTS, params, backend, variant, threads, precision, slices, buckets)
    cache = check_cache(cache)
    ps = numbers_of(pvalue, check_p, "pvalue")
    return answers(iter_motifs(motifs, params=call.params), ps, "threshold", call.variant, call.backend, threads,
                   precision, slices, buckets, cache, on_answer=_callable(on_answer))


def thresholds(motifs: Motifs, pvalue: Values, *, params: "MotifParams | None" = None, backend: str = "cpu",
               variant: "str | None" = None, threads: int = 0, client=None, precision: "float | None" = None,
               slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS, cache: bool = True) -> "list[Threshold]":
    """PVALUETOSCORE: the score threshold of every motif at every P-value of ``pvalue`` (one number or
    many), motif by motif: a list of :class:`Threshold`, each certified (its P-value's upper bound is
    <= the P-value asked). The keywords are those of :func:`pvalues`, and ``cache``: the exact variant's
    thresholds are read from a cache on disk where an earlier call found them, and kept there (the same
    results; :mod:`bioaccel.motif._threshold_cache` says where and what a key holds); False: computed.

    >>> import numpy as np
    >>> [t.score for t in thresholds([PSSM(np.eye(4)[:2]), PSSM(np.eye(4)[:1])], 0.1)]
    [2.0, inf]
    """
    return _asked(iter_thresholds, motifs, pvalue, check_p, "pvalue", "threshold", params, backend, variant, threads,
                  client, precision, slices, buckets, {"cache": check_cache(cache)})


def _asked(stream, motifs, values, check, what, ask, params, backend, variant, threads, client, precision, slices,
           buckets, extra) -> list:
    """The list form of ``stream`` (:func:`iter_pvalues` or :func:`iter_thresholds`), or with ``client``
    the motifs as the items of a batch answered where the client runs them (:func:`answer_motifs`).
    ``extra``: the keywords of ``stream`` alone (``cache``)."""
    options = dict(params=params, backend=backend, variant=variant, threads=threads, precision=precision,
                   slices=slices, buckets=buckets, **extra)
    if client is None:
        return list(stream(motifs, values, **options))
    call = check_options(VARIANTS, params, backend, variant, threads, precision, slices, buckets)
    values = numbers_of(values, check, what)
    pssms = list(iter_motifs(motifs, params=call.params))
    items = [Item(k, m.motif_id, float(m.length * len(values)), m) for k, m in enumerate(pssms)]
    work = Work(items, functools.partial(answer_motifs, values=values, ask=ask, variant=call.variant,
                                         backend=call.backend, threads=call.threads, precision=precision,
                                         slices=slices, buckets=buckets, **extra), gpu=call.backend == "gpu")
    return [answer for per_motif in run_work(work, client) for answer in per_motif]
