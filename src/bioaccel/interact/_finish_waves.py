"""Finish segments sized per level so that a level's blocks fill whole waves of the device (issue 29, helper
bpmaxwave; ``BPMaxSizes.segment_fit``).

The segment finish (kernels/bpmax.cu, bpmax_finish_roles) runs one segment of a matrix a block, with the Wb - 1 rows
below it (the halo) recomputed, and its shared memory holds one block an SM at the largest segment. Level l1 has
M - l1 + 1 matrices: at the largest segment its blocks end in a partial wave (23 x 20,000 nt, window 128: 288-row
segments, 70 a matrix, 160 waves of 132 SMs over the levels and the fold of S2 for 146.9 waves of blocks), and its
last levels (70 and 140 blocks) leave SMs idle for a whole block. The finish's values do not depend on the
segmentation (every row of a segment is finished from the rows below it, which the block holds), so any segment
length gives the same tables.

The model: a block costs ``fixed_rows + H`` (H = segment + halo rows: the bulk work and the segment's read and
store grow with H; the tails' barrier-bound passes and the launch of a block do not), k blocks sharing an SM
(smaller segments, when the shared memory holds two) cost ``fixed_rows + k H`` together, and a level costs its
waves times that.
"""
from functools import lru_cache
from math import ceil

SMEM_PER_SM = 228 * 1024     # shared memory of a Hopper SM, all blocks together
SMEM_PER_BLOCK = 1024        # what the runtime reserves in it for each block
THREADS_PER_SM = 2048


def level_time(mats: int, N: int, halo: int, seg: int, sms: int, fixed_rows: int, row_bytes: int,
               per_row: int = 2, most: int = 1024) -> int:
    """The model's time of a level (rows' worth of one block's work): ``mats`` matrices of ``N`` target rows in
    segments of ``seg`` rows, each block holding ``halo`` more rows of ``row_bytes`` bytes and min(``most``,
    ``per_row`` threads a row, whole warps) threads (bpmax_finish_roles: 2 a row); ``sms`` SMs.

    >>> level_time(23, 20_000, 128, 288, 132, 224, 525)    # 1,610 blocks: 13 waves (12.2 of work)
    8320
    >>> level_time(1, 20_000, 128, 152, 132, 224, 525)     # 132 segments: one wave of 280-row blocks
    504
    """
    H = min(seg + halo, N)
    blocks = mats * ceil(N / seg)
    threads = min(most, per_row * ceil(H / 32) * 32)
    together = max(1, min(SMEM_PER_SM // (H * row_bytes + SMEM_PER_BLOCK), THREADS_PER_SM // threads))
    return ceil(blocks / (sms * together)) * (fixed_rows + together * H)


@lru_cache(maxsize=4096)
def fitted_segment(mats: int, N: int, halo: int, seg_max: int, sms: int, fixed_rows: int, row_bytes: int,
                   per_row: int = 2, most: int = 1024) -> int:
    """The segment length, at most ``seg_max``, of the model's fastest level (level_time's arguments); the longest
    of equals (fewer blocks). Cached: a screen asks the same few each launch.

    >>> fitted_segment(23, 20_000, 128, 288, 132, 224, 525)   # 13 waves of 399-row blocks, not 416
    271
    >>> fitted_segment(2, 20_000, 128, 288, 132, 224, 525)    # the same 2 waves, of shorter blocks
    152
    """
    return min(range(seg_max, 0, -1),
               key=lambda seg: level_time(mats, N, halo, seg, sms, fixed_rows, row_bytes, per_row, most))
