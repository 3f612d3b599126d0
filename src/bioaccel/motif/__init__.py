"""Position weight matrices: reading (files and JASPAR), the PSSM model, score distributions with
certified error bounds (bioaccel's exact grid, and BUCKETSCOREDISTRIBUTION of Giraud & Varré on the
CPU and the GPU), P-values of scores (SCORETOPVALUE), score thresholds of P-values (PVALUETOSCORE) and
COMPARE. Scanning sequences with them is the :mod:`bioaccel.scan` wing.

``pvalues(motifs, scores)``, ``thresholds(motifs, pvalue)`` and ``compare(motifs1, motifs2,
pvalue=...)`` take one motif or many (a :class:`PSSM`, a file, ``jaspar:...``, or an iterable of
them), then ``params``, ``backend``, ``variant``, ``threads`` and ``client`` (a Dask cluster), and
return lists in input order; their ``iter_`` forms stream. How counts become scores, and the
background, is a :class:`MotifParams`; the algorithms are listed in ``VARIANTS`` and
``COMPARE_VARIANTS``; ``read_motifs`` and ``iter_motifs`` read motifs of any source. One matrix's
distribution, Biopython's way: ``pssm.distribution().threshold_fpr(p)``; its hits in one sequence:
``pssm.search(sequence, threshold)``. The exact tail searches themselves are :mod:`bioaccel.motif.tails` and
:mod:`bioaccel.motif.coarse_grid`.

The names load on first use (PEP 562), so that the command line can read the variant registries
without importing Numba.

>>> from bioaccel.motif import thresholds
>>> thresholds("jaspar:MA0004.1", 1e-3)[0].pvalue <= 1e-3
True
"""
from ..runtime.lazy import lazy_names
from ._variants import COMPARE_VARIANTS, VARIANTS  # noqa: F401  (public names)

_LAZY = {
    "compare": "._compare_api", "best_per_pair": "._compare_api", "iter_compare": "._compare_api",
    "iter_pvalues": "._api",
    "iter_thresholds": "._api",
    "pvalues": "._api", "thresholds": "._api",
    "score_distribution": "._stats", "ScoreDistribution": "._grid", "ExactDistribution": "._exact",
    "Grid": "._exact", "search_work": "._exact", "check_p": "._grid",
    "CompareResult": "._result", "PValue": "._result", "Threshold": "._result",
    "MotifParams": "._params", "PRESETS": "._pssm", "PSSM": "._pssm", "Background": "._pssm",
    "RawMotif": "._raw", "read_motifs": ".io", "read_raw": ".io", "iter_motifs": ".io", "read_raw_spec": ".io",
    "cache_path": "._threshold_cache", "background_digest": "._threshold_cache",
    "read_cache_values": "._threshold_cache", "write_cache_values": "._threshold_cache",
    "write_motifs": "._export", "plot_distributions": "._plot", "bucket_words": "._bucket",
}
__all__ = sorted([*_LAZY, "COMPARE_VARIANTS", "VARIANTS"])

# no __dir__: dir() lists only the names already loaded
__getattr__ = lazy_names(__name__, _LAZY, __all__)[0]
