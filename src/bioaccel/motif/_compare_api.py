"""COMPARE of many motifs against many (:func:`compare`, :func:`iter_compare`), and each pair's best
shift and strand (:func:`best_per_pair`). The keywords and the rules are those of :mod:`._api`; with
``client=`` each motif of the first set is an item of the batch, compared with every motif of the
second."""
import functools
import math
import numbers
from collections.abc import Iterable, Iterator  # noqa: F401  (Iterable: in string annotations)

import numpy as np

from ..distribution.batch import Item
from ..distribution.work import Work, run_work
from ..errors import InvalidParameter
from ..results.tables import chunked
from ..runtime.parallel import threads as using_threads
from ._api import POOL_CHUNK, Motifs, answers, check_options, numbers_of
from ._bucket import DEFAULT_BUCKETS, DEFAULT_SLICES
from ._compare import compare_at_shift
from ._compare_bucket import bucket_compare_at_shift
from ._exact import DEFAULT_RTOL
from ._grid import check_p
from ._params import MotifParams
from ._pssm import PSSM  # noqa: F401  (the examples below use it)
from ._result import CompareResult
from ._stats import check_precision
from ._variants import COMPARE_VARIANTS
from .io import iter_motifs


def _shift(value):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise InvalidParameter(f"a shift must be a whole number, got {value!r}")
    return int(value)


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


def _exact_at_shift(m1, m2, alpha, beta, shift, strand, rtol, slices, buckets):
    return compare_at_shift(m1, m2, alpha, beta, shift, rtol=rtol, strand=strand)


def _bucket_at_shift(m1, m2, alpha, beta, shift, strand, rtol, slices, buckets):
    return bucket_compare_at_shift(m1, m2, alpha, beta, shift, slices=slices, buckets=buckets, strand=strand)


#: COMPARE at one shift by each variant: (pssm1, pssm2, alpha, beta, shift, strand, rtol, slices,
#: buckets) -> CompareResult.
AT_SHIFT = {"exact": _exact_at_shift, "bucket": _bucket_at_shift}


def _cuts(chunk, given, p, *, variant, threads, precision, slices, buckets):
    """Each motif's threshold, computed once for every pair it is in: ``given``, or the motif's at P-value
    ``p`` by the same variant."""
    if given is not None:
        return [float(given)] * len(chunk)
    return [t.score for t in answers(chunk, [p], "threshold", variant, "cpu", threads, precision, slices, buckets)]


def _second(motifs2, params, p, beta, strands, **options):
    """The second motifs, each as ``[(strand, matrix, threshold)]``: as given, then (``strands``
    "both") reverse-complemented."""
    second = []
    for m2 in iter_motifs(motifs2, params=params):
        second.append([("+", m2)] + ([("-", m2.reverse_complement())] if strands == "both" else []))
    flat = [m for oriented in second for _, m in oriented]
    betas = iter(_cuts(flat, beta, p, **options))
    cuts2 = [[(strand, m, next(betas)) for strand, m in oriented] for oriented in second]
    if beta is None and p is not None:   # a strand-symmetric background: the other strand's cut is the same
        cuts2 = [[(s, m, b if not (s == "-" and _strand_symmetric(m.background)) else oriented[0][2])
                  for s, m, b in oriented] for oriented in cuts2]
    return cuts2


def _compare_one(m1, alpha, *, cuts2, shifts, variant, threads, precision, slices, buckets):
    """Every result of the first motif ``m1`` (threshold ``alpha``) against the second motifs
    (:func:`_second`), in order."""
    rtol = check_precision(precision) or DEFAULT_RTOL
    at_shift = AT_SHIFT[variant]
    for oriented in cuts2:
        for strand, m2, beta in oriented:
            _same_background(m1, m2)
            for shift in (range(-(m2.length - 1), m1.length) if shifts == "all" else shifts):
                with using_threads(threads):
                    yield at_shift(m1, m2, alpha, beta, int(shift), strand, rtol, slices, buckets)


def compare_motifs(pssms, *, alpha, p, **options) -> list:
    """The results of each first motif of ``pssms`` (a list per motif), their thresholds found together:
    the worker function of the batch that ``client=`` runs (``options``: :func:`_compare_one`'s)."""
    cuts = _cuts(pssms, alpha, p, **{k: v for k, v in options.items() if k not in ("cuts2", "shifts")})
    return [list(_compare_one(m1, a, **options)) for m1, a in zip(pssms, cuts)]


def _checked(pvalue, alpha, beta, shifts, strands):
    if pvalue is not None:
        pvalue = check_p(pvalue)
    elif alpha is None or beta is None:
        raise InvalidParameter("compare needs a P-value or both score thresholds")
    if shifts != "all":
        shifts = numbers_of(shifts, _shift, "shifts")
    if strands not in ("both", "+"):
        raise InvalidParameter(f"strands must be 'both' or '+', got {strands!r}")
    return pvalue, shifts


def iter_compare(motifs1: Motifs, motifs2: Motifs, *, pvalue: "float | None" = None,
                 params: "MotifParams | None" = None, backend: str = "cpu", variant: "str | None" = None,
                 threads: int = 0, alpha: "float | None" = None, beta: "float | None" = None,
                 shifts: "str | Iterable[int]" = "all", strands: str = "both", precision: "float | None" = None,
                 slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS) -> Iterator[CompareResult]:
    """Like :func:`compare`, but yields each :class:`CompareResult` as soon as it is ready.

    >>> a = PSSM(np.eye(4)[:2], motif_id="a")
    >>> next(iter_compare(a, a, alpha=2.0, beta=2.0, shifts=[0])).both
    (0.0625, 0.0625)
    """
    call = check_options(COMPARE_VARIANTS, params, backend, variant, threads, precision, slices, buckets)
    pvalue, shifts = _checked(pvalue, alpha, beta, shifts, strands)
    options = dict(variant=call.variant, threads=threads, precision=precision, slices=slices, buckets=buckets)

    def results():          # a generator made here: the checks above run at the call, not at the first result
        cuts2 = _second(motifs2, call.params, pvalue, beta, strands, **options)
        for chunk in chunked(iter_motifs(motifs1, params=call.params), size=POOL_CHUNK, seconds=math.inf):
            for m1, a in zip(chunk, _cuts(chunk, alpha, pvalue, **options)):
                yield from _compare_one(m1, a, cuts2=cuts2, shifts=shifts, **options)

    return results()


def compare(motifs1: Motifs, motifs2: Motifs, *, pvalue: "float | None" = None,
            params: "MotifParams | None" = None, backend: str = "cpu", variant: "str | None" = None,
            threads: int = 0, client=None, alpha: "float | None" = None, beta: "float | None" = None,
            shifts: "str | Iterable[int]" = "all", strands: str = "both", precision: "float | None" = None,
            slices: int = DEFAULT_SLICES, buckets: int = DEFAULT_BUCKETS) -> "list[CompareResult]":
    """COMPARE (Giraud & Varré, section 4.5): for every motif of ``motifs1`` against every motif of
    ``motifs2``, at every shift, the probabilities (certified low, high) of the words scoring above
    both thresholds, above one only and above neither; a list of :class:`CompareResult` in the order
    (motif 1, motif 2, strand, shift).

    Thresholds are each matrix's threshold at P-value ``pvalue`` by the same variant, computed once per
    motif, or the scores ``alpha`` (every motif of ``motifs1``) and ``beta`` (``motifs2``). ``shifts``:
    "all" (every overlap, ``-(m2 - 1)..m1 - 1``) or a list. ``strands``: "both" (default: matrix 2 as
    given, then its reverse complement, as MACRO-APE and Tomtom compare) or "+". :func:`best_per_pair`
    keeps each pair's best shift and strand. ``variant``: ``exact`` (the 2-D grid, refined to
    ``precision``, or every word for spans up to 10 columns) or ``bucket`` (2-D BUCKETSCOREDISTRIBUTION
    with ``slices`` slices and sqrt(``buckets``) buckets per axis); see ``COMPARE_VARIANTS``.
    ``client``: on a Dask cluster, each motif of ``motifs1`` an item of the batch. The other keywords
    are those of :func:`pvalues`; both matrices must share one background.

    >>> a = PSSM(np.eye(4)[:3], motif_id="a")
    >>> best = max(compare(a, a, pvalue=0.05), key=lambda r: r.similarity)
    >>> best.shift, best.similarity
    (0, 1.0)
    """
    if client is None:
        return list(iter_compare(motifs1, motifs2, pvalue=pvalue, params=params, backend=backend, variant=variant,
                                 threads=threads, alpha=alpha, beta=beta, shifts=shifts, strands=strands,
                                 precision=precision, slices=slices, buckets=buckets))
    call = check_options(COMPARE_VARIANTS, params, backend, variant, threads, precision, slices, buckets)
    pvalue, shifts = _checked(pvalue, alpha, beta, shifts, strands)
    options = dict(variant=call.variant, threads=threads, precision=precision, slices=slices, buckets=buckets)
    cuts2 = _second(motifs2, call.params, pvalue, beta, strands, **options)
    first = list(iter_motifs(motifs1, params=call.params))
    items = [Item(k, m.motif_id, float(m.length * max(len(cuts2), 1)), m) for k, m in enumerate(first)]
    work = Work(items, functools.partial(compare_motifs, alpha=alpha, p=pvalue, cuts2=cuts2, shifts=shifts,
                                         **options))
    return [result for per_motif in run_work(work, client) for result in per_motif]


def best_per_pair(results) -> "list[CompareResult]":
    """The result of highest similarity for each pair of motifs (over shifts and strands), in the
    order the pairs first appear; the first such result on ties.

    >>> a = PSSM(np.eye(4)[:3], motif_id="a")
    >>> [(r.strand, r.shift) for r in best_per_pair(compare(a, a, pvalue=0.05))]
    [('+', 0)]
    """
    best = {}
    for r in results:
        key = (r.motif1, r.motif2)
        if key not in best or r.similarity > best[key].similarity:
            best[key] = r
    return list(best.values())
