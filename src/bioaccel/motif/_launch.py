"""GPU launch sizes of the bucket kernel (motif/kernels/bucket.cu), in one place.

Runs use :data:`SIZES`, read at call time; the GPU tests patch small sizes over it (tests/conftest.py)
so that slices of a few columns still run many blocks and every loop of the kernel. Pure Python:
nothing here needs a GPU.

>>> SIZES.threads, 4 ** SIZES.fixed_letters
(256, 262144)
"""
from dataclasses import dataclass

from ..runtime.launch import LaunchSizes


@dataclass(frozen=True)
class BucketSizes(LaunchSizes):
    """Launch sizes of one slice's enumeration.

    >>> BucketSizes(threads=64).inner_letters
    5
    """

    threads: int = 256          # threads per block
    fixed_letters: int = 9      # letters fixed per thread: 4**9 = 262,144 threads per slice, every SM busy
    inner_letters: int = 5      # inner-loop letters whose 4**5 partial sums sit in shared memory


SIZES = BucketSizes()
