"""The motif statistics API: P-values, thresholds and COMPARE of one motif or many.

Every function takes one motif or many (a :class:`PSSM`, a spec that :func:`read_motifs` reads, or an
iterable of them) and returns a list of results in input order; the ``iter_`` form yields the same
results as they are ready. Options are checked when the function is called, before any motif is read.
The exact variant answers many questions at once in one parallel Numba kernel; the bucket variant runs
each distribution on ``threads`` Numba threads, or the GPU.
"""
import math
import numbers
import os
from collections.abc import Iterable, Iterator  # noqa: F401  (Iterable: in string annotations)

import numpy as np

from ..runtime.parallel import resolve_threads
from ..runtime.parallel import threads as using_threads
from ..results.tables import chunked
from ..errors import InvalidParameter
from ._bucket import DEFAULT_BUCKETS, DEFAULT_SLICES
from ._compare import compare_at_shift
from ._compare_bucket import bucket_compare_at_shift
from ._exact import DEFAULT_RTOL, exact_pvalues, exact_thresholds
from ._grid import check_p
from ._params import MotifParams
from ._pssm import PSSM
from ._result import CompareResult, PValue, Threshold
from ._stats import check_precision, check_variant, score_distribution
from ._variants import COMPARE_VARIANTS
from .io import read_motifs

POOL_CHUNK = 1000          # motifs handed to the exact variant's thread pool at a time

Motifs = "PSSM | str | os.PathLike | Iterable[PSSM | str | os.PathLike]"     # annotations: one motif or many
Values = "float | Iterable[float]"


def _whole(value, name, least):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral) or value < least:
        raise InvalidParameter(f"{name} must be a whole number >= {least}, got {value!r}")
    return int(value)


def _options(params, threads, precision, slices, buckets):
    """Check the options every function shares; returns the params (defaults filled in)."""
    params = MotifParams() if params is None else params
    if not isinstance(params, MotifParams):
        raise InvalidParameter(f"params must be a MotifParams, got {type(params).__name__}")
    resolve_threads(threads)
    check_precision(precision)
    _whole(slices, "slices", 1)
    _whole(buckets, "buckets", 2)
    return params


def _motifs(motifs, params):
    """The PSSMs of one motif or many, read lazily, in order."""
    if isinstance(motifs, (PSSM, str, os.PathLike)):
        yield from read_motifs(motifs, params=params)
        return
    for item in motifs:
        yield from read_motifs(item, params=params)


def _numbers(values, check, what):
    if isinstance(values, numbers.Real):
        return [check(values)]
    try:
        items = list(values)
    except TypeError:
        raise InvalidParameter(f"{what} must be a number or an iterable of numbers, got {values!r}") from None
    return [check(v) for v in items]


def _shift(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameter(f"a shift must be a whole number, got {value!r}")
    return int(value)


def _score(value):
    if not isinstance(value, numbers.Real) or math.isnan(value):
        raise InvalidParameter(f"score must be a number, got {value!r}")
    return float(value)


def _answers(pssms, values, ask, variant, backend, threads, precision, slices, buckets):
    """Every (motif, value) answer, motif by motif, values in order. The exact variant answers a chunk
    of motifs at once in one parallel kernel (every core busy, no GIL)."""
    if variant == "exact":
        solve = exact_thresholds if ask == "threshold" else exact_pvalues
        for chunk in chunked(pssms, size=POOL_CHUNK, seconds=math.inf):
            with using_threads(threads):
                yield from solve([(m, v) for m in chunk for v in values], precision=check_precision(precision))
        return
    for pssm in pssms:
        dist = score_distribution(pssm, variant, backend=backend, slices=slices, buckets=buckets, threads=threads)
        yield from [getattr(dist, ask)(v) for v in values]


def iter_pvalues(motifs: Motifs, scores: Values, *, variant: "str | None" = None, backend: str = "cpu",
                 threads: int = 0, precision: "float | None" = None, slices: int = DEFAULT_SLICES,
                 buckets: int = DEFAULT_BUCKETS, params: "MotifParams | None" = None) -> Iterator[PValue]:
    """Like :func:`pvalues`, but yields each :class:`PValue` as soon as it is ready.

    >>> import numpy as np
    >>> next(iter_pvalues(PSSM(np.eye(4)[:2]), 2.0)).pvalue
    0.0625
    """
    params = _options(params, threads, precision, slices, buckets)
    variant = check_variant(variant, backend)
    scores = _numbers(scores, _score, "scores")
    return _answers(_motifs(motifs, params), scores, "pvalue_result", variant, backend, threads, precision,
                    slices, buckets)


def pvalues(motifs: Motifs, scores: Values, *, variant: "str | None" = None, backend: str = "cpu",
            threads: int = 0, precision: "float | None" = None, slices: int = DEFAULT_SLICES,
            buckets: int = DEFAULT_BUCKETS, params: "MotifParams | None" = None) -> "list[PValue]":
    """SCORETOPVALUE: P(score >= s) of every motif at every score ``s`` of ``scores`` (one number or
    many), motif by motif: a list of :class:`PValue`, each with certified bounds.

    ``motifs``: a :class:`PSSM`, a spec :func:`read_motifs` reads (a file, ``jaspar:...``; scored
    under ``params``, a :class:`MotifParams`), or an iterable of them. ``variant``: None (the backend's
    default: ``exact`` on the CPU, ``bucket`` on the GPU) or a name of ``VARIANTS``. ``precision``:
    the exact variant's relative gap between the bounds (default 1e-3). ``slices``, ``buckets``: the
    bucket variant's N and B. ``threads``: CPU threads (0: all cores), for this call only.

    >>> import numpy as np
    >>> [round(r.pvalue, 4) for r in pvalues(PSSM(np.eye(4)[:2]), [1.0, 2.0])]
    [0.4375, 0.0625]
    >>> pvalues("jaspar:MA0004.1", 8.0, variant="bucket")[0].motif_id
    'MA0004.1'
    """
    return list(iter_pvalues(motifs, scores, variant=variant, backend=backend, threads=threads,
                             precision=precision, slices=slices, buckets=buckets, params=params))


def iter_thresholds(motifs: Motifs, p: Values, *, variant: "str | None" = None, backend: str = "cpu",
                    threads: int = 0, precision: "float | None" = None, slices: int = DEFAULT_SLICES,
                    buckets: int = DEFAULT_BUCKETS, params: "MotifParams | None" = None) -> Iterator[Threshold]:
    """Like :func:`thresholds`, but yields each :class:`Threshold` as soon as it is ready.

    >>> import numpy as np
    >>> next(iter_thresholds(PSSM(np.eye(4)[:2]), 0.1)).score
    2.0
    """
    params = _options(params, threads, precision, slices, buckets)
    variant = check_variant(variant, backend)
    ps = _numbers(p, check_p, "p")
    return _answers(_motifs(motifs, params), ps, "threshold", variant, backend, threads, precision, slices, buckets)


def thresholds(motifs: Motifs, p: Values, *, variant: "str | None" = None, backend: str = "cpu",
               threads: int = 0, precision: "float | None" = None, slices: int = DEFAULT_SLICES,
               buckets: int = DEFAULT_BUCKETS, params: "MotifParams | None" = None) -> "list[Threshold]":
    """PVALUETOSCORE: the score threshold of every motif at every P-value of ``p`` (one number or many),
    motif by motif: a list of :class:`Threshold`, each certified (its P-value's upper bound is <= p).
    The keywords are those of :func:`pvalues`.

    >>> import numpy as np
    >>> [t.score for t in thresholds([PSSM(np.eye(4)[:2]), PSSM(np.eye(4)[:1])], 0.1)]
    [2.0, inf]
    """
    return list(iter_thresholds(motifs, p, variant=variant, backend=backend, threads=threads,
                                precision=precision, slices=slices, buckets=buckets, params=params))


def _same_background(pssm1, pssm2):
    b1, b2 = pssm1.background, pssm2.background
    if b1.order != b2.order or not np.allclose(b1.transition, b2.transition):
        raise InvalidParameter(f"compare {pssm1.motif_id} with {pssm2.motif_id}: both matrices must be scored "
                               "against the same background")


def _strand_symmetric(background):
    """Whether the background gives a word and its reverse complement the same probability (then a
    reverse-complemented matrix keeps its threshold)."""
    f = background.letter_frequencies
    return background.order == 0 and np.isclose(f[0], f[3]) and np.isclose(f[1], f[2])


def _compare_all(motifs1, motifs2, p, alpha, beta, shifts, strands, variant, threads, precision, slices, buckets,
                 params):
    def cut(chunk, given):      # each motif's threshold, computed once for every pair it is in
        if given is not None:
            return [float(given)] * len(chunk)
        return [t.score for t in _answers(chunk, [p], "threshold", "exact" if variant == "exact" else variant,
                                          "cpu", threads, precision, slices, buckets)]

    rtol = check_precision(precision) or DEFAULT_RTOL
    second = []
    for m2 in _motifs(motifs2, params):
        oriented = [("+", m2)] + ([("-", m2.reverse_complement())] if strands == "both" else [])
        second.append(oriented)
    flat = [m for oriented in second for _, m in oriented]
    betas = iter(cut(flat, beta))
    cuts2 = [[(strand, m, next(betas)) for strand, m in oriented] for oriented in second]
    if beta is None and p is not None:   # a strand-symmetric background: the other strand's cut is the same
        cuts2 = [[(s, m, b if not (s == "-" and _strand_symmetric(m.background)) else oriented[0][2])
                  for s, m, b in oriented] for oriented in cuts2]
    for chunk in chunked(_motifs(motifs1, params), size=POOL_CHUNK, seconds=math.inf):
        for m1, a in zip(chunk, cut(chunk, alpha)):
            for oriented in cuts2:
                for strand, m2, b in oriented:
                    _same_background(m1, m2)
                    for shift in (range(-(m2.length - 1), m1.length) if shifts == "all" else shifts):
                        with using_threads(threads):
                            if variant == "bucket":
                                yield bucket_compare_at_shift(m1, m2, a, b, int(shift), slices=slices,
                                                              buckets=buckets, strand=strand)
                            else:
                                yield compare_at_shift(m1, m2, a, b, int(shift), rtol=rtol, strand=strand)


def best_per_pair(results) -> "list[CompareResult]":
    """The result of highest similarity for each pair of motifs (over shifts and strands), in the
    order the pairs first appear; the first such result on ties.

    >>> a = PSSM(np.eye(4)[:3], motif_id="a")
    >>> [(r.strand, r.shift) for r in best_per_pair(compare(a, a, p=0.05))]
    [('+', 0)]
    """
    best = {}
    for r in results:
        key = (r.motif1, r.motif2)
        if key not in best or r.similarity > best[key].similarity:
            best[key] = r
    return list(best.values())


def iter_compare(motifs1: Motifs, motifs2: Motifs, *, p: "float | None" = None,
                 alpha: "float | None" = None, beta: "float | None" = None,
                 shifts: "str | Iterable[int]" = "all", strands: str = "both", variant: "str | None" = None,
                 backend: str = "cpu", threads: int = 0, precision: "float | None" = None,
                 slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS,
                 params: "MotifParams | None" = None) -> Iterator[CompareResult]:
    """Like :func:`compare`, but yields each :class:`CompareResult` as soon as it is ready.

    >>> import numpy as np
    >>> a = PSSM(np.eye(4)[:2], motif_id="a")
    >>> next(iter_compare(a, a, alpha=2.0, beta=2.0, shifts=[0])).both
    (0.0625, 0.0625)
    """
    variant = COMPARE_VARIANTS.resolve(variant, backend)
    params = _options(params, threads, precision, slices, buckets)
    if p is not None:
        p = check_p(p)
    elif alpha is None or beta is None:
        raise InvalidParameter("compare needs a P-value or both score thresholds")
    if shifts != "all":
        shifts = _numbers(shifts, _shift, "shifts")
    if strands not in ("both", "+"):
        raise InvalidParameter(f"strands must be 'both' or '+', got {strands!r}")
    # yield from a generator made here: the checks above run at the call, not at the first result
    return _compare_all(motifs1, motifs2, p, alpha, beta, shifts, strands, variant, threads, precision, slices,
                        buckets, params)


def compare(motifs1: Motifs, motifs2: Motifs, *, p: "float | None" = None,
            alpha: "float | None" = None, beta: "float | None" = None,
            shifts: "str | Iterable[int]" = "all", strands: str = "both", variant: "str | None" = None,
            backend: str = "cpu", threads: int = 0, precision: "float | None" = None,
            slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS,
            params: "MotifParams | None" = None) -> "list[CompareResult]":
    """COMPARE (Giraud & Varré, section 4.5): for every motif of ``motifs1`` against every motif of
    ``motifs2``, at every shift, the probabilities (certified low, high) of the words scoring above
    both thresholds, above one only and above neither; a list of :class:`CompareResult` in the order
    (motif 1, motif 2, strand, shift).

    Thresholds are ``alpha`` (every motif of ``motifs1``) and ``beta`` (``motifs2``), or each matrix's
    threshold at P-value ``p`` by the same variant, computed once per motif. ``shifts``: "all" (every
    overlap, ``-(m2 - 1)..m1 - 1``) or a list. ``strands``: "both" (default: matrix 2 as given, then its
    reverse complement, as MACRO-APE and Tomtom compare) or "+". :func:`best_per_pair` keeps each
    pair's best shift and strand. ``variant``: ``exact`` (the 2-D grid, refined to ``precision``,
    or every word for spans up to 10 columns) or ``bucket`` (2-D BUCKETSCOREDISTRIBUTION with
    ``slices`` slices and sqrt(``buckets``) buckets per axis); see ``COMPARE_VARIANTS``. The other
    keywords are those of :func:`pvalues`; both matrices must share one background.

    >>> import numpy as np
    >>> a = PSSM(np.eye(4)[:3], motif_id="a")
    >>> best = max(compare(a, a, p=0.05), key=lambda r: r.similarity)
    >>> best.shift, best.similarity
    (0, 1.0)
    """
    return list(iter_compare(motifs1, motifs2, p=p, alpha=alpha, beta=beta, shifts=shifts, strands=strands,
                             variant=variant, backend=backend, threads=threads, precision=precision,
                             slices=slices, buckets=buckets, params=params))
