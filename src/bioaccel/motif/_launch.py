"""GPU launch sizes of the bucket kernel (motif/kernels/bucket.cu), in one place.

The sizes are read at call time: production runs use :data:`SIZES`; the GPU tests switch to
:data:`TEST_SIZES` (by monkeypatching ``_launch.SIZES``) so that slices of a few columns still run many
blocks and every loop of the kernel. Pure Python: nothing here needs a GPU.

>>> SIZES.threads, 4 ** SIZES.fixed_letters
(256, 262144)
>>> TEST_SIZES.threads < SIZES.threads
True
"""
from dataclasses import dataclass


@dataclass(frozen=True)
class LaunchSizes:
    """Launch sizes of one slice's enumeration.

    >>> LaunchSizes(threads=64).inner_letters
    5
    """

    threads: int = 256          # threads per block
    fixed_letters: int = 9      # letters fixed per thread: 4**9 = 262,144 threads per slice, every SM busy
    inner_letters: int = 5      # inner-loop letters whose 4**5 partial sums sit in shared memory


SIZES = LaunchSizes()
TEST_SIZES = LaunchSizes(threads=32, fixed_letters=3, inner_letters=2)
