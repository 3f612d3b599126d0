"""The BPMax variants (``VARIANTS``: bioaccel's ``tiled`` (CPU) and ``fused`` (GPU) designs and the
recurrence as written) and the BPPart variants (``PARTITION_VARIANTS``). Pure data: the command line
reads it without importing NumPy or Numba.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve("naive", "cpu"), VARIANTS.resolve(None, "gpu")
('tiled', 'naive', 'fused')
>>> PARTITION_VARIANTS.resolve(None, "cpu"), PARTITION_VARIANTS.resolve(None, "gpu")
('matrices', 'diagonals')
"""
from ..runtime.registry import Variant, VariantRegistry

VARIANTS = VariantRegistry("BPMax", [
    Variant("tiled", ("cpu",),
            "bioaccel's: Gildemaster 2021's decomposition on the CPU: each query interval's target matrix "
            "a max-plus product of final matrices, computed in blocks of rows handed out from one task "
            "queue without barriers, int16 cells while scores fit, 64-column register kernels; a target "
            "window keeps only a ring of rows"),
    Variant("fused", ("gpu",),
            "bioaccel's: query intervals as the outer grid, each target matrix a band on the device; per "
            "query length one launch of register-tiled banded max-plus products (D with R3/R4 as its border "
            "terms) and one finish of R1/R2 in shared memory; many targets back to back in one launch"),
    Variant("banded-library", ("gpu",),
            "the double reduction of each level as one launch of the banded max-plus product library "
            "(jagged tile-major layout, one 1-D grid of the band's tiles), R3/R4 as separate parallel "
            "reductions, the finish of R1/R2 as in fused", "GPU BPMax", "Gildemaster 2021"),
    Variant("naive", ("cpu",), "the recurrence as written, dense 4-D table", "BPMax",
            "Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz"),
], defaults={"cpu": "tiled", "gpu": "fused"})

PARTITION_VARIANTS = VariantRegistry("BPPart", [
    Variant("matrices", ("cpu",),
            "bioaccel's: the original's sums rearranged (QI - Q0 Q1 its own table, QX through single sums); "
            "each query interval's target matrix from triangular matrix products of shorter intervals' "
            "matrices, the query intervals of one length on every core; scaled doubles"),
    Variant("diagonals", ("gpu",),
            "bioaccel's: the matrices form on the device, FP64 with the CPU's scaling: per query length one "
            "launch of tiled triangular matrix products (QIa, QIm) over every pair's intervals, then one "
            "persistent launch that sweeps each target matrix by tiles, tile diagonal after tile diagonal "
            "(far sums as staged tile products, near sums in shared memory); many targets of a query per "
            "launch"),
], defaults={"cpu": "matrices", "gpu": "diagonals"})
