"""The BPMax variants (``VARIANTS``: bioaccel's ``tiled`` (CPU) and ``fused`` (GPU) designs and the
recurrence as written) and the BPPart variants (``PARTITION_VARIANTS``), declared in ``variants.toml``
beside this module. Pure data: the command line reads it without importing NumPy or Numba.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve("naive", "cpu"), VARIANTS.resolve(None, "gpu")
('tiled', 'naive', 'fused')
>>> PARTITION_VARIANTS.resolve(None, "cpu"), PARTITION_VARIANTS.resolve(None, "gpu")
('queued', 'diagonals')
"""
from ..runtime.registry import declared_in

VARIANTS, PARTITION_VARIANTS = declared_in(__file__, "bpmax", "bppart")
