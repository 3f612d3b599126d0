"""Scanning sequences for the binding sites of many motifs: Giraud & Varré's SCAN and MULTIPLESCAN, and
bioaccel's own look-ahead, index and fused GPU scans.

``scan(motifs, sequences)`` finds every window whose score reaches each motif's threshold (the exact
threshold of a P-value, or a score) on both strands, in sequences of any size (a FASTA file is read in
chunks), and returns the hits as a pandas DataFrame with FIMO's columns, each with its exact P-value and
q-value; ``iter_scan`` streams them. Motifs are read as :mod:`bioaccel.motif` reads them; the algorithms
are listed in ``SCAN_VARIANTS``.

The names load on first use (PEP 562), so that the command line can read the variant registry without
importing Numba.
"""
import importlib

from ._variants import SCAN_VARIANTS

_LAZY = {"scan": "._client", "iter_scan": "._api"}
__all__ = ["SCAN_VARIANTS", "iter_scan", "scan"]


def __getattr__(name):
    if name in _LAZY:
        value = getattr(importlib.import_module(_LAZY[name], __name__), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__():
    return sorted(set(globals()) | set(__all__))
