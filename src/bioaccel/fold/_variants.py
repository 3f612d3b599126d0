"""The Nussinov variants: every CPU and GPU algorithm of Li, Ranka & Sahni (2014) and Stojanovski et
al., and bioaccel's own ``tiled`` design on both backends. Pure data: the command line reads it
without importing Numba.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve("Ours1", "gpu")
('tiled', 'blocked')
"""
from ..runtime.registry import Variant, VariantRegistry

LI = "Li, Ranka & Sahni 2014"

VARIANTS = VariantRegistry("Nussinov", [
    Variant("tiled", ("cpu", "gpu"),
            "bioaccel's: tiles of the upper triangle only, int16 cells while scores fit, the bulk of each "
            "tile a max-plus product of final tiles (AVX2 on the CPU; DPX two-lane max-plus on Hopper), "
            "the rest finished inside the tile; tiles handed out without barriers"),
    Variant("naive", ("cpu",), "diagonal by diagonal, column reads M[k+1][j]", "CPU1", LI),
    Variant("cache", ("cpu",), "CPU1 with the table mirrored so that every read runs along a row", "CPU2", LI),
    Variant("naive-parallel", ("cpu",), "CPU1 with each diagonal's rows spread over the cores", "OMP1", LI),
    Variant("cache-parallel", ("cpu",), "CPU2 with each diagonal's rows spread over the cores", "OMP2", LI),
    Variant("diagonal", ("gpu",),
            "one launch per diagonal; a thread, a block or all blocks per cell by stage; mirrored table",
            "Chang", "Chang et al., as described by Li, Ranka & Sahni"),
    Variant("two-kernel", ("gpu",), "a thread per cell for 32 diagonals, then a 128-thread block per cell",
            "Stojanovski", "Stojanovski et al."),
    Variant("blocked", ("gpu",), "32 x 32 tiles by tile diagonals, Algorithm 3's maxKernel, N x N table",
            "Ours1", LI),
    Variant("blocked-packed", ("gpu",), "Ours1 over the packed upper triangle", "Ours2", LI),
], defaults={"cpu": "tiled", "gpu": "tiled"})

TURNER_VARIANTS = VariantRegistry("Turner 2004 MFE", [
    Variant("tiled", ("cpu", "gpu"),
            "bioaccel's: Zuker's recurrences over tiles of the table, the multiloop's O(n^3) part a min-plus "
            "product of finished tiles, the tiles of a tile-diagonal spread over the cores (CPU; short "
            "sequences one per core) or over the GPU (DPX add-then-min products, a block per tile finishing "
            "it, one sequence at a time, the traceback on the device)"),
    Variant("batch", ("gpu",),
            "bioaccel's: one thread block per sequence, many sequences per launch (longest first, launches "
            "cut to fit device memory), the block's threads taking each anti-diagonal's cells, then the "
            "exterior loop on one warp and the CPU's traceback in the block; up to 4,000 nt, longer ones "
            "by tiled"),
], defaults={"cpu": "tiled", "gpu": "batch"})
