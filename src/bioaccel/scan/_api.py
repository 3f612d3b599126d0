"""The scan's API: :func:`scan` (a DataFrame of every hit, FIMO's columns, here or on a Dask cluster),
:func:`iter_scan` (hits streamed in batches), :func:`write_scan` (the hits written as a file, streamed
where asked: what the command line runs) and :func:`scan_work` (the scan as a batch's Work). Every one
checks its options (:func:`check_scan`) before any motif or sequence is read.
"""
import math
import numbers
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Callable, Iterator

import numpy as np  # noqa: F401  (the examples below use it)

from ..distribution.work import run_work
from ..errors import InvalidParameter
from ..motif import MotifParams, check_p, iter_motifs
from ..runtime.contract import check_call
from ._defaults import CHUNK_SIZE, DEFAULT_PVALUE, FILE_THRESHOLD, FORMATS, MAX_SLICE, SLICE_LENGTH
from ._pipeline import PRICE_BATCH, ScanState, collect, scan_batches
from ._hits import to_frame
from ._result import ScanHits, ScanReport
from ._setup import prepare
from ._run import run_setup
from ._variants import SCAN_VARIANTS
from ._warm import start as start_warming
from ._work import ScanWork, describe


@dataclass(frozen=True)
class ScanCall:
    """The checked keywords of a scan: the contract's (``params`` filled in, the variant's name) and
    the strands as the pipeline numbers them (0: forward, 1: reverse complement)."""

    params: MotifParams
    backend: str
    variant: str
    threads: int
    strands: tuple
    cache: bool = True


def _whole(value, least) -> bool:
    return not isinstance(value, bool) and isinstance(value, numbers.Integral) and value >= least


def check_scan(pvalue, threshold, params, backend, variant, threads, strands, slice_length, chunk_size,
               max_stored_hits=None, cache=True) -> ScanCall:
    """Every option of a scan, checked before any motif or sequence is read.

    >>> check_scan(1e-4, None, None, "cpu", None, 0, "+", 4, 100).strands
    (0,)
    >>> check_scan(1e-4, None, None, "cpu", None, 0, "both", 9, 100)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: slice_length must be a whole number from 1 to 8, got 9
    """
    if threshold is None:
        check_p(pvalue)
    elif threshold == FILE_THRESHOLD:
        pass                                    # each motif's own (checked as the motifs are read)
    elif isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not math.isfinite(threshold):
        raise InvalidParameter(f"threshold must be a finite score or {FILE_THRESHOLD!r}, got {threshold!r}")
    call = check_call(SCAN_VARIANTS, params, MotifParams, backend=backend, variant=variant, threads=threads)
    if strands not in ("both", "+"):
        raise InvalidParameter(f"strands must be 'both' or '+', got {strands!r}")
    if not _whole(slice_length, 1) or slice_length > MAX_SLICE:
        raise InvalidParameter(f"slice_length must be a whole number from 1 to {MAX_SLICE}, got {slice_length!r}")
    if not _whole(chunk_size, 1):
        raise InvalidParameter(f"chunk_size must be a whole number >= 1, got {chunk_size!r}")
    if max_stored_hits is not None and not _whole(max_stored_hits, 1):
        raise InvalidParameter(f"max_stored_hits must be a whole number >= 1 or None, got {max_stored_hits!r}")
    if not isinstance(cache, bool):
        raise InvalidParameter(f"cache must be True or False, got {cache!r}")
    return ScanCall(call.params, call.backend, call.variant, call.threads, (0, 1) if strands == "both" else (0,),
                    cache)


def _setup(motifs, call, pvalue, threshold, slice_length):
    return prepare(list(iter_motifs(motifs, params=call.params)), pvalue=pvalue, threshold=threshold,
                   strands=call.strands, slice_length=slice_length, cache=call.cache)


def _unreachable(setup, threshold) -> list:
    """The motifs that no word can hit at the scan's P-value (by number)."""
    return [k for k, t in enumerate(setup.thresholds) if threshold is None and not t.reachable]


def scan(motifs, sequences, *, pvalue: float = DEFAULT_PVALUE, threshold: "float | None" = None,
         params: "MotifParams | None" = None, backend: str = "cpu", variant: "str | None" = None, threads: int = 0,
         client=None, strands: str = "both", slice_length: int = SLICE_LENGTH, chunk_size: int = CHUNK_SIZE,
         max_stored_hits: "int | None" = None, qvalues: bool = True, cache: bool = True):
    """The binding sites of ``motifs`` in ``sequences`` (SCAN and MULTIPLESCAN of Giraud & Varré, on
    both strands): a pandas DataFrame with FIMO's columns, one row per hit, in FIMO's order (motif in
    input order, then P-value ascending, then sequence, start and strand).

    Columns: ``motif_id``, ``motif_alt_id`` (the motif's name), ``sequence_name``, ``start`` and
    ``stop`` (1-based, inclusive, on the forward strand whatever the hit's strand), ``strand`` (``+``,
    or ``-`` for a hit of the motif's reverse complement), ``score`` (in the motif's own units, summed
    on its integer grid: :meth:`PSSM.score` of the matched word), ``p-value`` (exact: the number
    ``bioaccel motif pvalue`` gives for that score), ``q-value`` (Benjamini-Hochberg per motif over
    every window tested, windows that were not hits counted as P = 1; NaN when ``qvalues`` is False)
    and ``matched_sequence`` (the window as read on the hit's strand, upper case).

    Arguments:

    * ``motifs``: a :class:`PSSM` (scored as it is), a motif file or ``jaspar:...`` spec (scored under
      ``params``, a :class:`MotifParams`: background, preset, pseudocount, log base), or an iterable
      of them.
    * ``sequences``: a FASTA file (plain or compressed; ``-``: standard input), read in chunks of
      ``chunk_size`` letters (memory bounded by the chunk and the stored hits), or sequences held in
      memory: strings, :class:`~bioaccel.inputs.fasta.Record` objects or (id, sequence) pairs. Windows
      holding a letter other than A, C, G, T/U are skipped (as FIMO skips them); an empty sequence
      has no window, so no hit.
    * ``pvalue``: a window is a hit when its score reaches the motif's exact threshold of P-value
      ``pvalue`` (default 1e-4, FIMO's); or ``threshold``: the score to reach, in the motifs' units, or
      ``"file"``: each motif's own threshold from its file (``PSSM.file_threshold``: a HOMER file's
      log-odds detection threshold, meant for motifs scored under the ``homer`` preset).
      Under a background that is not strand-symmetric the reverse strand gets its own threshold and
      P-values.
    * ``backend``: ``"cpu"`` or ``"gpu"``; ``variant``: a name of ``SCAN_VARIANTS`` (None: the
      backend's default); ``threads``: CPU threads for this call (0: all cores).
    * ``client``: scan on a Dask cluster instead (a ``dask.distributed.Client``, a scheduler address,
      or "local"), one task per group of 32 motifs scanning every sequence (a FASTA file named here must
      be readable at the same path on the workers): the same DataFrame (:func:`scan_work`).
    * ``strands``: ``"both"`` (default) or ``"+"``; ``slice_length``: columns per precomputed slice
      (1 to 8) of the index, lookahead and slices variants.
    * ``max_stored_hits``: keep only the hits of smallest P-value (FIMO's option; None: all), the
      rest counted in ``attrs["dropped"]``.
    * ``cache``: the thresholds read from the threshold cache on disk where an earlier call found them,
      and kept there (as :func:`bioaccel.motif.thresholds`; the same hits); False: computed.

    The DataFrame's ``attrs`` hold ``tests`` (windows tested per motif, on every strand scanned),
    ``dropped`` and ``inexact`` (motif ids whose P-values are certified upper bounds rather than
    exact, with the largest relative gap).

    >>> from bioaccel.motif import PSSM
    >>> hits = scan(PSSM(np.eye(4)[:3] * 2, motif_id="ACG"), ("s1", "TTACGTT"), threshold=6)
    >>> hits[["sequence_name", "start", "stop", "strand", "score", "matched_sequence"]].values.tolist()
    [['s1', 3, 5, '+', 6.0, 'ACG'], ['s1', 4, 6, '-', 6.0, 'ACG']]
    >>> hits["p-value"].tolist(), hits.attrs["tests"]      # 1 word in 64; 5 windows x 2 strands
    ([0.015625, 0.015625], {'ACG': 10})
    >>> hits = scan(PSSM(np.eye(4)[:3] * 2), ["ACGNACG"], pvalue=0.02)    # windows with N skipped
    >>> hits[["start", "strand", "q-value"]].values.tolist()              # 1/64 x 4 tests / 2 hits
    [[1, '+', 0.03125], [5, '+', 0.03125]]
    """
    call = check_scan(pvalue, threshold, params, backend, variant, threads, strands, slice_length, chunk_size,
                      max_stored_hits, cache)
    if client is not None:
        described = _describe(motifs, sequences, call, pvalue, threshold, slice_length, chunk_size, max_stored_hits)
        return described.merge(run_work(described.work, client), max_stored_hits=max_stored_hits,
                               qvalues=qvalues).frame()
    setup = _setup(motifs, call, pvalue, threshold, slice_length)
    hits, state = collect(setup, sequences, max_stored_hits=max_stored_hits, qvalues=qvalues, backend=call.backend,
                          variant=call.variant, threads=threads, chunk_size=chunk_size)
    report = ScanReport.of(setup.motifs, state.tests, dropped=state.dropped, cut=state.cut, inexact=setup.inexact,
                           unreachable=_unreachable(setup, threshold))
    return ScanHits(hits, setup.motifs, state.names, report, qvalues=qvalues).frame()


def iter_scan(motifs, sequences, *, pvalue: float = DEFAULT_PVALUE, threshold: "float | None" = None,
              params: "MotifParams | None" = None, backend: str = "cpu", variant: "str | None" = None,
              threads: int = 0, strands: str = "both", slice_length: int = SLICE_LENGTH,
              chunk_size: int = CHUNK_SIZE, batch: int = PRICE_BATCH, cache: bool = True) -> Iterator:
    """Like :func:`scan`, streaming: yields DataFrames of hits as they are found (about ``batch`` hits
    each, in sequence order), without q-values (they need every hit), holding only one batch.

    >>> from bioaccel.motif import PSSM
    >>> frames = iter_scan(PSSM(np.eye(4)[:2], motif_id="AC"), ["ACAC", "GTAC"], threshold=2)
    >>> [len(f) for f in frames]          # AC twice in the first; GT (AC on the - strand) and AC in the second
    [4]
    """
    call = check_scan(pvalue, threshold, params, backend, variant, threads, strands, slice_length, chunk_size,
                      cache=cache)
    setup = _setup(motifs, call, pvalue, threshold, slice_length)

    def frames():
        state = ScanState()
        for hits in scan_batches(setup, sequences, backend=call.backend, variant=call.variant, threads=threads,
                                 chunk_size=chunk_size, state=state, batch=batch):
            yield to_frame(hits, setup.motifs, state.names, qvalues=False)

    return frames()


def _describe(motifs, sequences, call, pvalue, threshold, slice_length, chunk_size, max_stored_hits) -> ScanWork:
    return describe(list(iter_motifs(motifs, params=call.params)), sequences, strands=call.strands,
                    backend=call.backend, max_stored_hits=max_stored_hits, pvalue=pvalue, threshold=threshold,
                    slice_length=slice_length, variant=call.variant, threads=call.threads, chunk_size=chunk_size,
                    cache=call.cache)


def scan_work(motifs, sequences, *, pvalue: float = DEFAULT_PVALUE, threshold: "float | None" = None,
              params: "MotifParams | None" = None, backend: str = "cpu", variant: "str | None" = None,
              threads: int = 0, strands: str = "both", slice_length: int = SLICE_LENGTH,
              chunk_size: int = CHUNK_SIZE, max_stored_hits: "int | None" = None, cache: bool = True) -> ScanWork:
    """The scan of :func:`scan` as a batch (a :class:`~._work.ScanWork`): its Work (one item per group of
    32 motifs scanning every sequence), the motifs, the names of the records and a digest of the
    sequences; ``ScanWork.merge`` of the items' values is the in-process scan's hits, bit for bit
    while they fit one batch of P-values (:mod:`._work`). ``sequences``: a FASTA file (read again by each
    item, so not ``-``) or sequences in memory.

    >>> from bioaccel.distribution.work import run_work
    >>> from bioaccel.motif import PSSM
    >>> described = scan_work(PSSM(np.eye(4)[:3] * 2, motif_id="ACG"), [("s1", "TTACGTT")], threshold=6)
    >>> len(described.work.items), described.names
    (1, ['s1'])
    >>> described.merge(run_work(described.work, None)).frame()["start"].tolist()
    [3, 4]
    """
    call = check_scan(pvalue, threshold, params, backend, variant, threads, strands, slice_length, chunk_size,
                      max_stored_hits, cache)
    if sequences == "-":
        raise InvalidParameter("in a batch every group of motifs reads the sequences again: give a file, not "
                               "standard input")
    return _describe(motifs, sequences, call, pvalue, threshold, slice_length, chunk_size, max_stored_hits)


def check_qvalue_max(qvalue_max, *, qvalues: bool = True, text: bool = False) -> None:
    """A q-value bound (FIMO's ``--qv-thresh``) needs the q-values, so neither ``text`` (hits written as
    found) nor ``qvalues=False``; it is a number in (0, 1].

    >>> check_qvalue_max(0.05), check_qvalue_max(None, text=True)
    (None, None)
    >>> check_qvalue_max(0.05, text=True)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: a q-value bound needs the q-values, which a scan writing hits as it finds them (text) does not compute
    """
    if qvalue_max is None:
        return
    if isinstance(qvalue_max, bool) or not isinstance(qvalue_max, (int, float)) or not 0 < qvalue_max <= 1:
        raise InvalidParameter(f"the q-value bound must be in (0, 1], got {qvalue_max!r}")
    if text:
        raise InvalidParameter("a q-value bound needs the q-values, which a scan writing hits as it finds them "
                               "(text) does not compute")
    if not qvalues:
        raise InvalidParameter("a q-value bound needs the q-values (qvalues=False turns them off)")


def write_scan(handle, motifs, sequences, *, pvalue: float = DEFAULT_PVALUE, threshold: "float | None" = None,
               params: "MotifParams | None" = None, backend: str = "cpu", variant: "str | None" = None,
               threads: int = 0, fmt: str = "fimo", strands: str = "both", slice_length: int = SLICE_LENGTH,
               chunk_size: int = CHUNK_SIZE, max_stored_hits: "int | None" = None, qvalues: bool = True,
               text: bool = False, on_chunk: "Callable[[int], None] | None" = None, cache: bool = True,
               qvalue_max: "float | None" = None, best_per_motif: "int | None" = None) -> ScanReport:
    """The hits of :func:`scan` written to the text ``handle`` as ``fmt`` (``fimo``, ``bed`` or
    ``gff``: :data:`FORMATS`); what they must be told about them is returned (a :class:`ScanReport`).
    ``text``: every hit written as it is found, in sequence order, without q-values and without holding
    them (``max_stored_hits`` unused), as FIMO's ``--text``; else the hits are held, cut to
    ``max_stored_hits`` and written in FIMO's order with their q-values (unless ``qvalues`` is False).
    ``on_chunk(letters)`` is called as each chunk of sequence is scanned (a progress bar). With
    ``backend="gpu"`` the GPU is made ready while the motifs' thresholds are found. ``qvalue_max``:
    only the hits of q-value at most it (FIMO's --qv-thresh); ``best_per_motif``: then only each motif's
    N hits of smallest P-value, those tied at a motif's cut all or none (as ``max_stored_hits`` cuts),
    what each motif lost in the report (``best_lost``, ``best_short``).

    >>> import io
    >>> from bioaccel.motif import PSSM
    >>> out = io.StringIO()
    >>> report = write_scan(out, PSSM(np.eye(4)[:3] * 2, motif_id="ACG"), [("s1", "TTACGTT")], threshold=6,
    ...                     fmt="bed")
    >>> out.getvalue(), report.tests
    ('s1\\t2\\t5\\tACG\\t1000\\t+\\ns1\\t3\\t6\\tACG\\t1000\\t-\\n', {'ACG': 10})
    """
    call = check_scan(pvalue, threshold, params, backend, variant, threads, strands, slice_length, chunk_size,
                      max_stored_hits, cache)
    check_qvalue_max(qvalue_max, qvalues=qvalues, text=text)
    check_best_per_motif(best_per_motif, text=text)
    if fmt not in FORMATS:
        raise InvalidParameter(f"format must be one of {', '.join(FORMATS)}, got {fmt!r}")
    warming = _warm_gpu() if call.backend == "gpu" else None
    motifs = list(iter_motifs(motifs, params=call.params))
    # a first run (Numba's cache empty): the scan's kernels compiled by a child while this process
    # compiles the threshold search
    compiling = None if threshold is not None else start_warming(
        motifs, fmt=fmt, text=text, strands=call.strands, slice_length=slice_length, backend=call.backend,
        variant=call.variant)
    try:
        setup = prepare(motifs, pvalue=pvalue, threshold=threshold, strands=call.strands, slice_length=slice_length,
                        cache=call.cache)
        state, (held, written, lost) = run_setup(
            handle, setup, sequences, fmt=fmt, text=text, backend=call.backend, variant=call.variant,
            threads=threads, chunk_size=chunk_size, max_stored_hits=max_stored_hits, qvalues=qvalues,
            on_chunk=on_chunk, qvalue_max=qvalue_max, warming=warming, best_per_motif=best_per_motif)
    finally:
        if compiling is not None:
            compiling.stop()
    return ScanReport.of(setup.motifs, state.tests, dropped=state.dropped, cut=state.cut, inexact=setup.inexact,
                         unreachable=_unreachable(setup, threshold)).with_written(setup.motifs, held, written,
                                                                                  lost, best_per_motif)


def check_best_per_motif(best_per_motif, *, text: bool = False) -> None:
    """A per-motif cut is a whole number >= 1, and needs every hit held, so not ``text``.

    >>> check_best_per_motif(None, text=True), check_best_per_motif(5)
    (None, None)
    >>> check_best_per_motif(0)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: best_per_motif must be a whole number >= 1, got 0
    """
    if best_per_motif is None:
        return
    if not _whole(best_per_motif, 1):
        raise InvalidParameter(f"best_per_motif must be a whole number >= 1, got {best_per_motif!r}")
    if text:
        raise InvalidParameter("a per-motif cut needs every hit held, which a scan writing hits as it finds them "
                               "(text) does not do")


def _warm_gpu():
    """The GPU made ready (CuPy, context, kernels: :func:`._gpu.warm_up`) on a thread of its own, while
    this one reads the motifs and finds their thresholds (which run without the GIL)."""
    from ._gpu import warm_up

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(warm_up)
    pool.shutdown(wait=False)          # the thread ends with its one job
    return future
