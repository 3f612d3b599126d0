"""The folding variants of each model, declared in ``variants.toml`` beside this module: every CPU and
GPU algorithm of Li, Ranka & Sahni (2014) and Stojanovski et al. for the Nussinov model, bioaccel's own
``tiled`` design on both backends, and the Turner 2004 model's. Pure data: the command line reads it
without importing Numba.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve("Ours1", "gpu")
('tiled', 'blocked')
>>> TURNER_VARIANTS.resolve(None, "gpu"), TURNER_PARTITION_VARIANTS.resolve(None, "gpu")
('batch', 'batch')
"""
from ..runtime.registry import declared_in

VARIANTS, TURNER_VARIANTS, TURNER_PARTITION_VARIANTS = declared_in(__file__, "nussinov", "turner2004",
                                                                   "turner2004_partition")
