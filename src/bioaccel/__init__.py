"""bioaccel: Nussinov folding, BPMax RNA-RNA interaction and PWM statistics on CPU cores and GPUs.

Importing bioaccel never touches CUDA, CuPy or Dask; those load when a GPU or a cluster is asked for.
"""
__version__ = "0.1.0"

from .errors import BioaccelError, GPUUnavailable, InputError, InvalidParameter, ResourceError  # noqa: E402
from .fasta import Record, read_fasta  # noqa: E402

__all__ = [
    "BioaccelError", "GPUUnavailable", "InputError", "InvalidParameter", "ResourceError",
    "Record", "read_fasta", "__version__",
]
