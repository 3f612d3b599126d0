"""Position weight matrices: reading (files and JASPAR), the PSSM model, score distributions with
certified error bounds (exact and the seed's BUCKETSCOREDISTRIBUTION, CPU and GPU), SCORETOPVALUE,
PVALUETOSCORE and COMPARE (seed 004, Giraud & Varré)."""
from ._compare import CompareResult, compare
from ._distribution import (ExactDistribution, PValue, ScoreDistribution, Threshold, exact_pvalue,
                            exact_threshold, pvalue, score_distribution, threshold, thresholds)
from ._pssm import PRESETS, PSSM, Background
from .io import read_motifs, read_raw

__all__ = [
    "Background", "CompareResult", "ExactDistribution", "PRESETS", "PSSM", "PValue", "ScoreDistribution",
    "Threshold", "compare", "exact_pvalue", "exact_threshold", "pvalue", "read_motifs", "read_raw",
    "score_distribution", "threshold", "thresholds",
]


def bucket_distribution(pssm, **options):
    """BUCKETSCOREDISTRIBUTION (see ``_bucket``); imported on first use."""
    from ._bucket import bucket_distribution as run

    return run(pssm, **options)
