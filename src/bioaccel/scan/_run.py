"""A scan once its motifs are prepared: the hits found, priced and written (:func:`run_setup`), what
:func:`bioaccel.scan.write_scan` runs and the first run's warming child (:mod:`._warm`) too."""
import numpy as np  # noqa: F401  (the example uses it)

from ._defaults import CHUNK_SIZE
from ._pipeline import ScanState, collect, scan_batches
from ._result import as_written, write_behind
from ._write import HitWriter


def run_setup(handle, setup, sequences, *, fmt, text, backend, variant, threads=0, chunk_size=CHUNK_SIZE,
              max_stored_hits=None, qvalues=True, on_chunk=None, qvalue_max=None, warming=None,
              best_per_motif=None) -> "tuple[ScanState, object]":
    """:func:`bioaccel.scan.write_scan` once the motifs are prepared (``setup``, :func:`._setup.prepare`);
    ``warming``: the GPU's warm-up to wait for before the first chunk. Returns the scan's ScanState,
    and (the number of hits held, the hits written, those lost by motif to ``best_per_motif``): None
    where ``text`` streamed them, and the last None without a per-motif cut.

    >>> import io
    >>> from bioaccel.motif import PSSM
    >>> from ._setup import prepare
    >>> out = io.StringIO()
    >>> state, _ = run_setup(out, prepare([PSSM(np.eye(4)[:2], motif_id="AC")], threshold=2), [("s", "GACT")],
    ...                   fmt="bed", text=False, backend="cpu", variant=None)
    >>> out.getvalue()
    's\\t1\\t3\\tAC\\t1000\\t+\\n'
    """
    state = ScanState()
    options = dict(backend=backend, variant=variant, threads=threads, chunk_size=chunk_size, state=state,
                   on_chunk=None if on_chunk is None else (lambda chunk: on_chunk(chunk.windows)))
    qvalues = qvalues and not text
    writer = HitWriter(handle, fmt, setup.motifs, state.names, qvalues=qvalues)
    writer.header()
    if warming is not None:
        warming.result()               # raises GPUUnavailable where the scan would have
    if text:
        write_behind(writer, scan_batches(setup, sequences, **options))
        writer.finish()
        return state, (None, None, None)
    hits, _ = collect(setup, sequences, max_stored_hits=max_stored_hits, qvalues=qvalues, **options)
    held = len(hits)
    hits, lost = as_written(hits, fmt, qvalue_max=qvalue_max, best_per_motif=best_per_motif)   # BED, GFF: by position
    writer.write(hits)
    return state, (held, hits, lost)
