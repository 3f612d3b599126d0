"""The scan's API: :func:`scan` (a DataFrame of every hit, FIMO's columns) and :func:`iter_scan` (hits
streamed in batches), over the pieces of :mod:`._scan` (setup, chunks, batches, collection).
"""
import math
import numbers

import numpy as np  # noqa: F401  (the examples below use it)

from ..inputs.chunks import CHUNK
from ..runtime.parallel import resolve_threads
from ..errors import InvalidParameter
from ..motif._grid import check_p
from ..motif._params import MotifParams
from ._pipeline import DEFAULT_PVALUE, MAX_SLICE, PRICE_BATCH, ScanState, collect, prepare, scan_batches
from ._hits import to_frame
from ._variants import SCAN_VARIANTS


def _check_options(pvalue, threshold, backend, variant, strands, slice_length, chunk_size, max_stored_hits, threads):
    if threshold is None:
        check_p(pvalue)
    elif isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or not math.isfinite(threshold):
        raise InvalidParameter(f"threshold must be a finite score, got {threshold!r}")
    if backend not in ("cpu", "gpu"):
        raise InvalidParameter(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    SCAN_VARIANTS.resolve(variant, backend)
    if strands not in ("both", "+"):
        raise InvalidParameter(f"strands must be 'both' or '+', got {strands!r}")
    if isinstance(slice_length, bool) or not isinstance(slice_length, numbers.Integral) \
            or not 1 <= slice_length <= MAX_SLICE:
        raise InvalidParameter(f"slice length must be a whole number from 1 to {MAX_SLICE}, got {slice_length!r}")
    if isinstance(chunk_size, bool) or not isinstance(chunk_size, numbers.Integral) or chunk_size < 1:
        raise InvalidParameter(f"chunk size must be a whole number >= 1, got {chunk_size!r}")
    if max_stored_hits is not None and (isinstance(max_stored_hits, bool)
                                        or not isinstance(max_stored_hits, numbers.Integral) or max_stored_hits < 1):
        raise InvalidParameter(f"max_stored_hits must be a whole number >= 1 or None, got {max_stored_hits!r}")
    resolve_threads(threads)
    return (0, 1) if strands == "both" else (0,)


def _setup(motifs, params, pvalue, threshold, strands, slice_length):
    from ..motif._api import _motifs

    params = MotifParams() if params is None else params
    if not isinstance(params, MotifParams):
        raise InvalidParameter(f"params must be a MotifParams, got {type(params).__name__}")
    pssms = list(_motifs(motifs, params))
    return prepare(pssms, pvalue=pvalue, threshold=threshold, strands=strands, slice_length=slice_length)


def scan(motifs, sequences, *, pvalue: float = DEFAULT_PVALUE, threshold: "float | None" = None,
         backend: str = "cpu", variant: "str | None" = None, strands: str = "both", threads: int = 0,
         params: "MotifParams | None" = None, slice_length: int = 4, chunk_size: int = CHUNK,
         max_stored_hits: "int | None" = None, qvalues: bool = True):
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
      holding a letter other than A, C, G, T/U are skipped (as FIMO skips them).
    * ``pvalue``: a window is a hit when its score reaches the motif's exact threshold of P-value
      ``pvalue`` (default 1e-4, FIMO's); or ``threshold``: the score to reach, in the motifs' units.
      Under a background that is not strand-symmetric the reverse strand gets its own threshold and
      P-values.
    * ``strands``: ``"both"`` (default) or ``"+"``.
    * ``backend``: ``"cpu"`` or ``"gpu"``; ``variant``: a name of ``SCAN_VARIANTS`` (None: the
      backend's default); ``slice_length``: columns per precomputed slice (1 to 8) of the index,
      lookahead and slices variants; ``threads``: CPU threads for this call (0: all cores).
    * ``max_stored_hits``: keep only the hits of smallest P-value (FIMO's option; None: all), the
      rest counted in ``attrs["dropped"]``.

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
    strand_set = _check_options(pvalue, threshold, backend, variant, strands, slice_length, chunk_size,
                                max_stored_hits, threads)
    setup = _setup(motifs, params, pvalue, threshold, strand_set, slice_length)
    hits, state = collect(setup, sequences, max_stored_hits=max_stored_hits, qvalues=qvalues, backend=backend,
                          variant=variant, threads=threads, chunk_size=chunk_size)
    frame = to_frame(hits, setup.motifs, state.names, qvalues=qvalues)
    frame.attrs["tests"] = {m.motif_id: int(t) for m, t in zip(setup.motifs, state.tests)}
    frame.attrs["dropped"] = state.dropped
    frame.attrs["inexact"] = {setup.motifs[k].motif_id: gap for k, gap in setup.inexact.items()}
    return frame


def iter_scan(motifs, sequences, *, pvalue: float = DEFAULT_PVALUE, threshold: "float | None" = None,
              backend: str = "cpu", variant: "str | None" = None, strands: str = "both", threads: int = 0,
              params: "MotifParams | None" = None, slice_length: int = 4, chunk_size: int = CHUNK,
              batch: int = PRICE_BATCH):
    """Like :func:`scan`, streaming: yields DataFrames of hits as they are found (about ``batch`` hits
    each, in sequence order), without q-values (they need every hit), holding only one batch.

    >>> from bioaccel.motif import PSSM
    >>> frames = iter_scan(PSSM(np.eye(4)[:2], motif_id="AC"), ["ACAC", "GTAC"], threshold=2)
    >>> [len(f) for f in frames]          # AC twice in the first; GT (AC on the - strand) and AC in the second
    [4]
    """
    strand_set = _check_options(pvalue, threshold, backend, variant, strands, slice_length, chunk_size, None,
                                threads)
    setup = _setup(motifs, params, pvalue, threshold, strand_set, slice_length)

    def frames():
        state = ScanState()
        for hits in scan_batches(setup, sequences, backend=backend, variant=variant, threads=threads,
                                 chunk_size=chunk_size, state=state, batch=batch):
            yield to_frame(hits, setup.motifs, state.names, qvalues=False)

    return frames()
