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

Sliding blocks (issue 29, helper bpmaxring; ``BPMaxSizes.finish_slide``): a block finishes ``per`` consecutive
segments of the level, each matrix's from its bottom up, the rows it stored being the next segment's halo (read back
final, not recomputed), so only the first segment of each matrix a block starts recomputes a halo. Such a block costs
``per`` segments' fixed cost and rows plus a halo a matrix it starts; ``fitted_slide`` picks the segment length and
``per`` together.
"""
from functools import lru_cache
from math import ceil

SMEM_PER_SM = 228 * 1024     # shared memory of a Hopper SM, all blocks together
SMEM_PER_BLOCK = 1024        # what the runtime reserves in it for each block
THREADS_PER_SM = 2048


def blocks_an_sm(H: int, row_bytes: int, per_row: int = 2, most: int = 1024) -> int:
    """Blocks of ``H`` rows of ``row_bytes`` bytes and min(``most``, ``per_row`` threads a row, whole warps) threads
    that one SM holds at once (its shared memory and threads).

    >>> blocks_an_sm(416, 525), blocks_an_sm(180, 525)
    (1, 2)
    """
    threads = min(most, per_row * ceil(H / 32) * 32)
    return max(1, min(SMEM_PER_SM // (H * row_bytes + SMEM_PER_BLOCK), THREADS_PER_SM // threads))


def starts_a_block(per: int, segs: int) -> int:
    """The most matrices whose segments a block of ``per`` consecutive segments of a level starts (``segs`` a
    matrix): each costs a halo recomputed.

    >>> starts_a_block(1, 70), starts_a_block(13, 70), starts_a_block(70, 70), starts_a_block(71, 70)
    (1, 2, 2, 2)
    """
    return min(per, 1 + ceil((per - 1) / segs))


def level_time(mats: int, N: int, halo: int, seg: int, sms: int, fixed_rows: int, row_bytes: int,
               per_row: int = 2, most: int = 1024, per: int = 1) -> int:
    """The model's time of a level (rows' worth of one block's work): ``mats`` matrices of ``N`` target rows in
    segments of ``seg`` rows, ``per`` consecutive segments a block (sliding up each matrix: a halo recomputed only
    where a block starts a matrix), each block holding ``halo`` more rows of ``row_bytes`` bytes and min(``most``,
    ``per_row`` threads a row, whole warps) threads (bpmax_finish_roles: 2 a row); ``sms`` SMs.

    >>> level_time(23, 20_000, 128, 288, 132, 224, 525)    # 1,610 blocks: 13 waves (12.2 of work)
    8320
    >>> level_time(1, 20_000, 128, 152, 132, 224, 525)     # 132 segments: one wave of 280-row blocks
    504
    >>> level_time(23, 20_000, 128, 288, 132, 224, 525, per=13)   # 124 blocks of 13 segments, two halos
    6912
    """
    H, rows = min(seg + halo, N), min(seg, N)
    segs = ceil(N / seg)
    per = min(per, mats * segs)
    blocks = ceil(mats * segs / per)
    together = blocks_an_sm(H, row_bytes, per_row, most)
    work = per * rows + starts_a_block(per, segs) * (H - rows)
    return ceil(blocks / (sms * together)) * (per * fixed_rows + together * work)


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


#: the most waves a sliding level is fitted to (more waves: the blocks' segments shorter than one a block's gain)
SLIDE_WAVES = 32


@lru_cache(maxsize=4096)
def fitted_slide(mats: int, N: int, halo: int, seg_max: int, sms: int, fixed_rows: int, row_bytes: int,
                 per_row: int = 2, most: int = 1024) -> tuple:
    """(segment length at most ``seg_max``, segments a block) of the model's fastest level with sliding blocks
    (level_time's arguments): for each length, one segment a block or the fewest a block that fill w waves, w up to
    SLIDE_WAVES; the longest segments and fewest a block of equals. Cached.

    >>> fitted_slide(23, 20_000, 128, 288, 132, 84, 525)    # level 1: one wave of 131 blocks of 13 segments
    (271, 13)
    >>> fitted_slide(1, 20_000, 128, 288, 132, 84, 525)     # level 23: as fitted_segment, one segment a block
    (152, 1)
    """
    best = None
    for seg in range(seg_max, 0, -1):
        total = mats * ceil(N / seg)
        spread = sms * blocks_an_sm(min(seg + halo, N), row_bytes, per_row, most)
        for per in sorted({1} | {ceil(total / (w * spread)) for w in range(1, SLIDE_WAVES + 1)}):
            time = level_time(mats, N, halo, seg, sms, fixed_rows, row_bytes, per_row, most, per)
            if best is None or time < best[0]:
                best = (time, seg, per)
    return best[1], best[2]
