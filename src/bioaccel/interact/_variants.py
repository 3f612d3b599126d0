"""The BPMax variants: bioaccel's ``tiled`` design and the recurrence as written. Pure data: the command
line reads it without importing NumPy or Numba. There is no GPU BPMax yet, so the gpu backend has no
default and asking for it is NotAvailable.

>>> VARIANTS.resolve(None, "cpu"), VARIANTS.resolve("naive", "cpu")
('tiled', 'naive')
>>> VARIANTS.resolve(None, "gpu")
Traceback (most recent call last):
...
bioaccel.errors.NotAvailable: BPMax is not available on the gpu backend (available on: cpu)
"""
from .._registry import Variant, VariantRegistry

VARIANTS = VariantRegistry("BPMax", [
    Variant("tiled", ("cpu",),
            "bioaccel's: Gildemaster 2021's decomposition on the CPU: each query interval's target matrix "
            "a max-plus product of final matrices, computed in blocks of rows handed out from one task "
            "queue without barriers, int16 cells while scores fit, 64-column register kernels; a target "
            "window keeps only a ring of rows"),
    Variant("naive", ("cpu",), "the recurrence as written, dense 4-D table", "BPMax",
            "Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz"),
], defaults={"cpu": "tiled"})
