"""Scanning sequences for the binding sites of many motifs: Giraud & Varré's SCAN and MULTIPLESCAN, and
bioaccel's own look-ahead, index and fused GPU scans.

``scan(motifs, sequences, *, pvalue, threshold, params, backend, variant, threads, client, ...)`` finds
every window whose score reaches each motif's threshold (the exact threshold of a P-value, or a score)
on both strands, in sequences of any size (a FASTA file is read in chunks), and returns the hits as a
pandas DataFrame with FIMO's columns, each with its exact P-value and q-value; ``iter_scan`` streams
them, ``write_scan`` writes them as FIMO's TSV, BED or GFF (returning a :class:`ScanReport`), and
``scan_work`` describes the scan as a batch (groups of motifs) for a cluster. Motifs are read as
:mod:`bioaccel.motif` reads them; the algorithms are listed in ``SCAN_VARIANTS``, the defaults in
``DEFAULT_PVALUE``, ``MAX_STORED_HITS``, ``FORMATS``.

The names load on first use (PEP 562), so that the command line can read the variant registry without
importing Numba.
"""
from ..runtime.lazy import lazy_names
from ._defaults import (CHUNK_SIZE, DEFAULT_PVALUE, FILE_THRESHOLD, FORMATS, MAX_SLICE, MAX_STORED_HITS,  # noqa: F401
                        SLICE_LENGTH)
from ._variants import SCAN_VARIANTS

_LAZY = {"scan": "._api", "iter_scan": "._api", "write_scan": "._api", "scan_work": "._api",
         "ScanReport": "._result", "ScanHits": "._result", "ScanWork": "._work", "GroupHits": "._work"}
__all__ = sorted(["CHUNK_SIZE", "DEFAULT_PVALUE", "FILE_THRESHOLD", "FORMATS", "MAX_SLICE", "MAX_STORED_HITS",
                  "SCAN_VARIANTS", "SLICE_LENGTH", *_LAZY])

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
