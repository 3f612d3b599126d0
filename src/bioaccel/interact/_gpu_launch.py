"""GPU launch sizes of the BPMax kernels (kernels/bpmax.cu), in one place.

Runs use :data:`SIZES`, read at call time; the GPU tests patch small sizes over it (tests/conftest.py:
small tiles and segments, so that inputs of a few dozen bases cross many tiles, many finish segments
and, with a small ``piece``, many streamed pieces of one target). Pure Python: nothing here needs a GPU.

>>> SIZES.tile_rows, SIZES.replace(tile_rows=8).tile_rows
(32, 8)
"""
from dataclasses import dataclass

from ..runtime.launch import LaunchSizes


@dataclass(frozen=True)
class BPMaxSizes(LaunchSizes):
    tile_rows: int = 32          # products (int cells): rows of a tile (4 per thread)
    tile_cols: int = 64          # products (int cells): absolute target columns of a tile (4 per thread)
    packed_rows: int = 64        # products (short cells, two per word): rows of a tile (4 per thread)
    packed_cols: int = 64        # products (short cells): columns of a tile (8 per thread)
    chunk: int = 32              # products: reduction indices k2 staged in shared memory at a time
    finish_threads: int = 512    # finish: threads of a segment's block
    finish_bytes: int = 227 * 1024   # finish: shared memory of a segment (rows of the band; 200 KB before issue 29's
    #                              bpmaxst: 256 rows of a 128-band, now 320)
    finish_diagonals: int = 8    # finish (short cells): diagonals a row closes at a time (1, 4 or 8; 8 since
    #                              bpmaxfin2: with form 6, 0.0532-0.0542 s end to end against 0.0537-0.0551 s at 4 in
    #                              each of its three calls, 23 x 20,000, window 128; 4 before)
    finish_split: int = 1        # finish (short cells): threads sharing a row's diagonals (1 or 2)
    finish_form: int = 7         # finish (short cells): 0 one 16-bit cell a load (before bpmaxst); 1 the segment
    #                              read 8 cells a 16-byte load, 4 in flight; 2 also the tails shortened; 3 also
    #                              written back 8 cells a 16-byte store; 4 also a group's first diagonal closed in
    #                              its first phase (kernels/bpmax.cu); 5 (issue 29, bpmaxfin) form 4's splits with
    #                              two threads a row: the next group's splits that are final already run beside the
    #                              tails of a group (bpmax_finish_roles; finish_diagonals >= 2, finish_split unused,
    #                              segments of at most 512 rows with the band below them; the default since
    #                              bpmaxfin's call 1 until bpmaxfin2's, form 4 before); 6 (issue 29, bpmaxfin2)
    #                              form 5 with a tail pass's operands read a pass ahead, one shared load between its
    #                              barriers (the default since bpmaxfin2's call 1); 7 (issue 29, bpmaxunroll) form 6
    #                              with its loops unrolled on compile-time offsets: the bulk's splits 4 at a time,
    #                              the tails' passes from two bases a group (the same cells, the same bits; the
    #                              default since stop 57: the finish 1-5% faster than form 6 in 5 of 5 pairs of one
    #                              H200 call, docs/results/bpmax_unroll_lead)
    finish_bound: int = 896      # finish forms 5, 6 and 7: the most threads a block (a multiple of 64), two a row, so
    #                              segment and halo at most finish_bound / 2 rows; 896 compiles bpmax_finish_roles<8, 6>
    #                              to 72 registers without spill, 1,024 (the default before stop 54) to 64 and 12 bytes
    #                              of spill: finish 0.0153 s against 0.0156-0.0158 in three pairs of one H200 call
    #                              (23 x 20,000 nt, window 128; docs/results/bpmax_bound_call1)
    wide_finish: str = "eager-rows"   # finish of bands too wide for segments (short cells): tiles where each
    #                              launch also adds what its predecessor completed to later tiles ("eager-rows":
    #                              padded shared rows, the row-tile's operands in registers; "eager-padded",
    #                              "eager-unpadded"), "prefetch" (the same kernel, a launch per tile diagonal only),
    #                              "tiled" (c22e9df's tiles) or "diagonal" (interact/_gpu_wide.py)
    wide_tile: int = 64          # tiled wide finishes: tile side (a multiple of 8)
    window_tile: int = 0         # finish of bands that fit segments (windows), short cells: 0 the segment kernel;
    #                              B > 0 the tiled finish of wide bands (wide_finish's kernel) on B x B tiles
    products_skip: bool = True   # products: tiles and warps whose columns all lie past the target run nothing
    products_parts: int = 2      # products (short cells): 0 runs bpmax_products_packed (before 2026-11-27); P in
    #                              1, 2, 4, 8 runs bpmax_products_split (1, 2, 4: bpmax_products_pairs with
    #                              split_pairs), P lanes a cell each with part of its k2 (4 before bpmaxpk)
    split_rows: int = 32         # bpmax_products_split: rows of a tile (4 per thread tile)
    split_cols: int = 32         # bpmax_products_split: columns of a tile (8 per thread tile)
    split_chunk: int = 96        # bpmax_products_split: k2 staged at a time (a lane runs 1 / P of them); 136 (one
    #                              stage a k1 but at the band's far edge) ran the pairs products 0-1.3% faster and end
    #                              to end no faster in issue 29's bpmaxreg calls 2-3: not taken
    split_prefetch: bool = False  # bpmax_products_split: read each stage's operands a stage ahead (registers)
    split_own: bool = True       # bpmax_products_split: each lane starts and stores only its own 16 / P words
    #                              (False, before bpmaxst: the code of all 16, predicated by lane)
    split_pairs: bool = True     # the split products as bpmax_products_pairs: a word one cell, its halves over
    #                              the even and the odd k2, 4 x 4 cells a thread tile (issue 29, helper bpmaxpk;
    #                              the default since 2026-11-28); False: bpmax_products_split, two cells a word
    pairs_step: int = 2          # bpmax_products_pairs: groups of 8 k2 an iteration of its loop (1 or 2)
    pairs_stage: int = 4         # bpmax_products_pairs: 0 every staged vector through band_vector; 1 a thread's
    #                              row of A and column of B fixed, their offsets worked out once a block (bpmaxpk's
    #                              call 3, the default until bpmaxcp2); 2 also A row-major by cp.async (the default
    #                              from bpmaxcp2's call 1 to bpmaxcp3); 3 also B's rows read together (2 to 4 at 2
    #                              lanes, two groups an iteration, else 1: pairs_stage below); 4 (issue 29, bpmaxcp3;
    #                              the default since its call 2) also B by cp.async from a paired copy of each level
    #                              (two rows a word, written after its finish: a second copy of the table, paired_copy
    #                              below; tiles of a multiple of 8 rows, else 2)
    pairs_blocks: int = 8        # bpmax_products_pairs: blocks an SM its registers are capped for (at most 2048
    #                              threads; 0: 1024 threads' worth, as calls 1-2; at 128 threads 8 blocks is 64
    #                              registers a thread, 10 is 48: the default from bpmaxpk's call 3 to bpmaxcp2,
    #                              where STAGE 2 spills 64 bytes; 8 since bpmaxcp2)
    split_band: int = 256        # bands wider than this keep bpmax_products_packed (no window: the warps'
    #                              squares run about the useful updates there already)
    segment_rows: int = 0        # finish: rows per segment (0: as many as finish_bytes holds)
    segment_fit: int = 224       # finish: 0 every level's segments of segment_rows (the default before bpmaxwave);
    #                              R > 0 (issue 29, bpmaxwave) each level's segments at most that long, sized so that
    #                              its blocks fill whole waves of the SMs, by interact/_finish_waves.py's model with a
    #                              block's fixed cost R rows' worth (224 the default since bpmaxwave's call 1: finish
    #                              0.0149 / 0.0157 / 0.0149 s against 0.0154-0.0159, 23 x 20,000 nt, window 128, H200)
    table_fill: int = 1          # the tables' poisoning fill: 0 cupy.full (CuPy's fill, 2 bytes a thread: 3.85 ms for
    #                              the 1.59 GB table of 23 x 20,000 nt, window 128, on an H200); 1 (issue 29, bpmaxhost;
    #                              the default since stop 57) runtime/gpu.py's filled, 16 bytes a store: end to end
    #                              0.0471-0.0472 s against 0.0505-0.0506 in one call, the same bits
    piece: int = 0               # target bases per launch (0: as many as the device memory holds)
    library_tile: int = 0        # banded-library variant: the product library's tile (0: its own choice)


def pairs_stage(sizes, parts):
    """bpmax_products_pairs's staging form for ``parts`` lanes: ``sizes.pairs_stage``, where 2 to 4 (A by
    cp.async, rows as they lie) fall back to 1 for other than 2 lanes and two groups an iteration, and 4 (B by
    cp.async too, a thread's pair rows stepped by the tile's rows) to 2 for tiles of rows not a multiple of 8.

    >>> pairs_stage(BPMaxSizes(pairs_stage=2), 2), pairs_stage(BPMaxSizes(pairs_stage=2), 4)
    (2, 1)
    >>> pairs_stage(BPMaxSizes(), 2), pairs_stage(BPMaxSizes(split_rows=4), 2)
    (4, 2)
    """
    if sizes.pairs_stage >= 2 and (parts, sizes.pairs_step) != (2, 2):
        return 1
    if sizes.pairs_stage == 4 and sizes.split_rows % 8:
        return 2
    return sizes.pairs_stage


def products_lanes(sizes, short, width):
    """Lanes a cell of the split products (bpmax_products_pairs or _split) for a launch of int16 cells (``short``)
    and band ``width``; 0 where bpmax_products_packed (wider bands) or bpmax_products (int cells) runs.

    >>> products_lanes(BPMaxSizes(), True, 129), products_lanes(BPMaxSizes(), True, 300)
    (2, 0)
    """
    return sizes.products_parts if short and width <= sizes.split_band else 0


def pairs_form(sizes, short, width, variant="fused"):
    """bpmax_products_pairs's staging form (pairs_stage) for a launch of ``variant``, int16 cells (``short``) and
    band ``width``; 0 where another kernel runs the products (the banded-library variant's product library
    included). The one decision of both the memory estimate (paired_copy) and the launch (_gpu._launch).

    >>> pairs_form(BPMaxSizes(), True, 129), pairs_form(BPMaxSizes(), True, 129, "banded-library")
    (4, 0)
    """
    parts = products_lanes(sizes, short, width)
    if variant != "fused" or not parts or not sizes.split_pairs:
        return 0
    return pairs_stage(sizes, parts)


def paired_copy(sizes, short, width, variant="fused"):
    """Whether a launch of ``variant``, int16 cells (``short``) and band ``width`` runs pairs_stage 4, which reads
    B from a paired copy of the levels below the last (kernels/bpmax.cu, bpmax_pair_rows): a second table. The
    banded-library variant never keeps one (issue 29, helper bpmaxcp4: its estimate counted one before).

    >>> paired_copy(BPMaxSizes(pairs_stage=4), True, 129), paired_copy(BPMaxSizes(pairs_stage=4), True, 300)
    (True, False)
    >>> paired_copy(BPMaxSizes(pairs_stage=4), True, 129, "banded-library")
    False
    """
    return pairs_form(sizes, short, width, variant) == 4


SIZES = BPMaxSizes()
