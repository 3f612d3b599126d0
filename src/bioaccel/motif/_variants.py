"""The motif variants: how a score distribution is computed (P-values and thresholds), how COMPARE is
computed. Pure data: the command line reads it without importing Numba.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve(None, "gpu"), VARIANTS.resolve("BucketScoreDistribution", "cpu")
('exact', 'bucket', 'bucket')
>>> COMPARE_VARIANTS.resolve(None, "cpu")
'exact'
"""
from ..runtime.registry import Variant, VariantRegistry

GIRAUD_VARRE = "Giraud & Varré"

VARIANTS = VariantRegistry("score distribution", [
    Variant("exact", ("cpu",),
            "bioaccel's certified integer grid: each column rounded down to a multiple of a step, one dynamic "
            "programme over the grid (a Markov background's last k letters as state), the step refined until "
            "the certified P-value bounds meet the precision"),
    Variant("bucket", ("cpu", "gpu"),
            "N slices, every word of a slice enumerated into B buckets, the slice tables merged pairwise by "
            "convolution; score error (1 + ceil(log2 N)) (max - min) / B",
            "BUCKETSCOREDISTRIBUTION", GIRAUD_VARRE),
], defaults={"cpu": "exact", "gpu": "bucket"})

COMPARE_VARIANTS = VariantRegistry("COMPARE", [
    Variant("exact", ("cpu",),
            "the exact variant's grid in two dimensions, refined until the bounds meet the precision "
            "(every word, exactly, for spans up to 10 columns)"),
    Variant("bucket", ("cpu",),
            "two-dimensional BUCKETSCOREDISTRIBUTION: slices enumerated into sqrt(B) x sqrt(B) buckets, "
            "merged pairwise", "BUCKETSCOREDISTRIBUTION", GIRAUD_VARRE),
], defaults={"cpu": "exact"})
