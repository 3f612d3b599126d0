"""bioaccel: Nussinov folding, BPMax RNA-RNA interaction and PWM statistics on CPU cores and GPUs.

Importing bioaccel never touches CUDA, CuPy or Dask (nor Numba: the families load it when they
compute); those load when a GPU or a cluster is asked for.
"""
__version__ = "0.1.0"

from .errors import (BioaccelError, GPUUnavailable, InputError, InternalError, InvalidParameter,
                     NotAvailable, ResourceError)  # noqa: E402

__all__ = [
    "BioaccelError", "GPUUnavailable", "InputError", "InternalError", "InvalidParameter", "NotAvailable",
    "Record", "ResourceError", "read_fasta", "to_frame", "__version__",
]


def __getattr__(name):
    # Record and read_fasta need NumPy: loaded on first use, so that the command line starts fast
    if name in ("Record", "read_fasta"):
        from .inputs import fasta

        return getattr(fasta, name)
    if name == "to_frame":  # results of any family -> pandas DataFrame
        from .results.rows import to_frame

        return to_frame
    raise AttributeError(f"module 'bioaccel' has no attribute {name!r}")
