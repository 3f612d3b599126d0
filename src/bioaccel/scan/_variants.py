"""The scan variants: how sequences are scanned for the hits of many motifs. Pure data: the command
line reads it without importing Numba.

>>> SCAN_VARIANTS.resolve(None, "cpu"), SCAN_VARIANTS.resolve(None, "gpu"), SCAN_VARIANTS.resolve("SCAN", "cpu")
('index', 'fused', 'naive')
"""
from ..runtime.registry import Variant, VariantRegistry

GIRAUD_VARRE = "Giraud & Varré"

SCAN_VARIANTS = VariantRegistry("scan", [
    Variant("index", ("cpu",),
            "bioaccel's MULTIPLESCAN: the 8 letters at each position looked up once in an index of every motif's "
            "most selective 8 columns (those that can still reach the threshold), only the motifs it names "
            "scored, by look-ahead slices"),
    Variant("lookahead", ("cpu",),
            "every motif over blocks of windows, slices of precomputed scores taken most selective first, a "
            "window abandoned once it cannot reach the threshold (MOODS's look-ahead filtration)"),
    Variant("slices", ("cpu",),
            "the score of each slice of L columns (--slice-length) looked up in a table of 4^L scores, every "
            "slice summed; blocks of windows in parallel, every matrix per block", "Slices Strategy",
            GIRAUD_VARRE),
    Variant("naive", ("cpu",),
            "one window and one matrix at a time, a column at a time; the matrices in parallel", "SCAN",
            GIRAUD_VARRE),
    Variant("fused", ("gpu",),
            "bioaccel's GPU kernel: a block per text segment, slice tables of many matrices in shared memory, "
            "the threshold fused so only hits leave the GPU (compacted by one atomic counter), chunks on two "
            "streams so copies overlap the scan"),
    Variant("segments", ("gpu",),
            "a block per text segment of 2048 letters in shared memory, one window per thread, several matrices "
            "per pass in shared memory with the loop over matrices innermost, column by column; a block's hits "
            "gathered in shared memory and copied out at its end", "MULTIPLESCAN (GPU)", GIRAUD_VARRE),
], defaults={"cpu": "index", "gpu": "fused"})
