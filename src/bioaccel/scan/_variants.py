"""The scan variants, declared in ``variants.toml`` beside this module: how sequences are scanned for
the hits of many motifs. Pure data: the command line reads it without importing Numba.

>>> SCAN_VARIANTS.resolve(None, "cpu"), SCAN_VARIANTS.resolve(None, "gpu"), SCAN_VARIANTS.resolve("SCAN", "cpu")
('index', 'fused', 'naive')
"""
from ..runtime.registry import declared_in

SCAN_VARIANTS, = declared_in(__file__, "scan")
