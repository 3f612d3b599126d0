"""GPU launch sizes of the BPPart kernels (kernels/bppart.cu), in one place.

Runs use :data:`SIZES`, read at call time; the GPU tests patch small sizes over it (tests/conftest.py:
16-cell tiles, 8-index chunks, 64-thread sweep blocks and at most 3 pairs a launch, so that pairs of a
few dozen bases cross many tiles and chunks and a batch of targets takes several launches). Pure Python.

>>> SIZES.tile, SIZES.replace(tile=16).tile
(64, 16)
"""
from dataclasses import dataclass

from ..runtime.launch import LaunchSizes


@dataclass(frozen=True)
class BPPartSizes(LaunchSizes):
    tile: int = 64            # cross products: side of an output tile (4 x 4 cells a thread)
    chunk: int = 16           # cross products: reduction indices staged in shared memory at a time
    threads: int = 256        # sweep: threads of a block (a warp per cell)
    blocks_per_sm: int = 2    # sweep: blocks per multiprocessor (the grid barrier needs them all resident)
    pairs: int = 0            # pairs per launch at most (0: as many as the device memory holds)


SIZES = BPPartSizes()
