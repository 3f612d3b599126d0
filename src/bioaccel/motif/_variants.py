"""The motif variants, declared in ``variants.toml`` beside this module: how a score distribution is
computed (P-values and thresholds), how COMPARE is computed. Pure data: the command line reads it
without importing Numba.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve(None, "gpu"), VARIANTS.resolve("BucketScoreDistribution", "cpu")
('exact', 'bucket', 'bucket')
>>> COMPARE_VARIANTS.resolve(None, "cpu")
'exact'
"""
from ..runtime.registry import declared_in

VARIANTS, COMPARE_VARIANTS = declared_in(__file__, "score_distribution", "compare")
