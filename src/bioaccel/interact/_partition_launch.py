"""GPU launch sizes of the BPPart kernels (kernels/bppart.cu), in one place.

Runs use :data:`SIZES`, read at call time; the GPU tests patch small sizes over it (tests/conftest.py:
16-cell product tiles, 8-index chunks, 8-cell sweep tiles, 64-thread diagonal sweep blocks and at most 3 pairs a launch, so that pairs of a
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
    cross_blocks: int = 1     # cross products: 1 never splits, so that each sum is taken in one block in one
    #                           order and a pair's numbers do not depend on what shares its launch; above 1
    #                           (tests, benchmarks) a level's products are split among blocks (atomic adds)
    #                           until it has that many (0: 4 per multiprocessor)
    sweep: str = "tiles"      # the sweep of a level's cells: "tiles" (bppart_tiles) or "diagonals" (bppart_sweep)
    sweep_tile: int = 16      # tiles sweep: side of a tile (a thread per cell)
    threads: int = 256        # diagonals sweep: threads of a block (a warp per cell)
    blocks_per_sm: int = 2    # sweeps: blocks per multiprocessor (the grid barrier needs them all resident)
    pairs: int = 0            # pairs per launch at most (0: as many as the device memory holds)
    band_rows: int = 32       # windows, cross products (bppart_band_cross): output tile rows (4 x 4 cells a thread)
    band_cols: int = 64       # windows, cross products: output tile columns (v6: 64 at 4 blocks, 32 at 8 before)
    band_chunk: int = 32      # windows, cross products: reduction indices staged at a time (v11: 32, half the ring's
    #                           steps, its 53 KB in dynamic shared memory: cross 0.1760 s against 0.1788 at 16, 4 blocks)
    band_prefetch: bool = True   # windows, cross products: the next chunk copied (cp.async) while one multiplies
    band_blocks: int = 3      # windows, cross products: blocks a multiprocessor should hold (launch bounds; v11: 3 at
    #                           chunks of 32, 168 registers; 4 blocks at 32 were slower, 0.1933 s)
    band_mma: bool = True     # windows, cross products on FP64 tensor cores (bppart_band_cross_mma) where the tile
    #                           takes them (rows a multiple of 16, columns of 32); else FMA (bppart_band_cross)
    band_ring: int = 2        # windows, tensor-core cross products: 0, two buffers a query split k1 (v3 to v7,
    #                           bppart_band_cross_mma); 2 to 4, a ring of that many chunks across the k1
    #                           (bppart_band_cross_ring, v8: the same products and bits; 2 measured fastest)
    band_skip: bool = False   # windows, cross ring: a warp skips the steps of 4 indices without a band product (v8:
    #                           slower, 0.197 s against 0.188 at a ring of 3)
    band_skip_form: int = 0   # windows, cross ring with band_skip (v12): bit 0, the skip decided a chunk at a time (whole
    #                           chunks unguarded or skipped, only the band's edge tested a step); bit 1, the warps'
    #                           roles rotated by the block (the sub-partitions share the unequal roles); the same bits
    band_chains: int = 1      # windows, cross ring (v12): 2, two accumulator chains a cell (alternate steps of 4 indices,
    #                           added at the end): ANOTHER SUMMATION ORDER, the last bits differ (within 1e-12 of the
    #                           CPU); v12 measured cross 0.1747 s against 0.1761 (-0.8%), end to end the same: left off
    band_warp_cols: int = 32  # windows, cross ring (v12): a warp's columns, 32 or 16 (twice the warps a tile, each half
    #                           the mma of a step); the same bits
    band_mma_shape: int = 3   # windows, cross ring (v17): its FP64 mma, 0 m8n8k4, 1 m16n8k4 (half the instructions, the
    #                           same steps of 4 indices), 2 m16n8k8, 3 m16n8k16 (8 or 16 indices an instruction; m8n8k4
    #                           where the chunk is no multiple of them, and before Hopper). The same bits on an H100; v17:
    #                           cross 0.1763 -> 0.1448 s at 23 x 20,000 (3), screen 24.9 -> 27.1 pairs/s
    band_group: int = 0       # windows, cross ring: 0, a block takes both sums and every query split; G > 0, a launch
    #                           per sum and G query splits, the sums so far reloaded (blocks in step over the operands;
    #                           v8: slower, 0.194 s at G = 4 against 0.180)
    band_sums_apart: bool = True  # windows, cross ring (v21): a block a sum (QIa's or QIm's), both sums' blocks in one
    #                           launch (band_group's one-sum blocks, no second launch, nothing reloaded); the same bits;
    #                           v21: cross 0.1453 -> 0.1406 s at 23 x 20,000 (-3.2%); False: a block both sums (v8-v20)
    band_stagger: int = 48    # windows, cross ring (v26): the blocks started in stripes of this many row tiles, a row
    #                           tile's longest column tile first and its shortest last (FORM bits 8 and up: the same
    #                           blocks in another order, the same bits); 0, the order before v26. v26: cross 0.1410 ->
    #                           0.1395 s at 23 x 20,000 (-1.0%; DRAM read at l1 = 13 18.0 -> 15.6 GB); 24 -0.9%, 96 +1.3%
    band_cross_run: int = 16  # windows, cross ring with band_sums_apart (v28): a block takes max(1, this // (l1 - 1))
    #                           query intervals of level l1 (at most the level's), one after the other through one ring
    #                           (FORM bit 16, launched only where that is over 1: l1 = 2 .. 5 at 8; the block's start paid
    #                           once for them, the short levels' blocks being 2 to 5 steps a query split); the same bits.
    #                           v28 (H200): cross 0.1405-0.1409 -> 0.1396-0.1399 s at 23 x 20,000 (l1 = 2 -17%, 3 -7%,
    #                           4 -2%); 12 and 16 (runs of 2 at l1 = 6-9) no faster. 0: one interval a block (before v28).
    #                           v30: 16 (per 16, 8, 5, 4, 3, 2, 2, 2 at l1 = 2-9) with band_cross_hoist's shorter step
    #                           loop: l1 = 2-9 43.1 / 43.5 ms against 45.5 (T = 8 unhoisted) and 44.0 / 44.3 (T = 8
    #                           hoisted); 4 (runs at l1 = 2-3 only) the same as 8
    band_cross_hoist: int = 2  # windows, cross ring with runs (v30): 1, the runs' kernel with its copies issued from a
    #                           cursor (FORM bit 17: the step loop 561 SASS instructions against 696 with runs and 612
    #                           without); 2, that kernel at every level, a run of 1 interval where band_cross_run gives 1
    #                           (in place of the one-interval kernel). The same bits. v30 (H200, with band_cross_run 16):
    #                           the cross at l1 = 2-14 86.6 / 87.5 ms against 89.4-89.8 (-3%); 0: the kernels before v30
    band_cross_skip_open: int = 0  # windows, cross ring with band_cross_hoist, a BENCH'S BOUND, NOT the production's
    #                           products (v35): QIa's query splits whose left interval cannot close (fewer than 5 bases
    #                           or end bases that do not pair) 1, skipped (FORM bit 18: none of their steps), 2, walked
    #                           without their copies (bit 19: their steps and mma on whatever the ring holds); 0 the
    #                           production. What form D (v34) could give at most: the time without those splits' work,
    #                           and without their L2 requests at the same steps
    band_cross_inband: bool = False  # windows, cross ring with band_cross_hoist (v36): True, a chunk wholly in the band
    #                           copied without the band tests (FORM bit 20; at window 128 a constant stride). The same
    #                           bits, but slower on an H200 (cross at 23 x 20,000 0.1443 s against 0.1365, log-normal
    #                           svRNA screen 1.06 h against 1.03, one call): kept selectable, off
    band_cross_copy16: int = 3   # windows, cross ring with band_cross_hoist (v37, v38): copies by pairs of doubles, 16-byte
    #                           cp.async, the same bits. v38: the tables' rows an odd pitch apart (a zero pad a row, so
    #                           every row's pairs are aligned). 3 (the default since v38, FORM bits 21 and 22): both
    #                           operands' pairs, Bs's unshifted, As's shifted a column in every row where the block's
    #                           first index is odd (one shift a block: no bank conflict): cross at 23 x 20,000 0.1119 s
    #                           against 0.1307 (the production before v38) on an H200, one call. 2: Bs's alone (0.1154);
    #                           1: As's alone; 10 (v37c, bits 22 and 24; the default before v38): Bs's pairs in the rows
    #                           k - c0 even, the others by 8-byte copies; 0: 8-byte copies (stop 50's); nothing else (v37b's
    #                           + 4, bit 23, was removed). Only at even windows and S even (the host drops it where
    #                           L2 = window + 1 is even: no pad there)
    band_strip: bool = False  # windows, tensor-core cross products: column tiles from the row tile's first row
    #                           (a tile of rows + window columns holds its rows' whole band), not absolute; not yet
    #                           run on a GPU (docs/bppart-gpu-notes.md)
    band_tile: int = 16       # windows, sweep (bppart_band_tiles): side of a tile
    band_split: bool = True   # windows, sweep: the terms over other query intervals first, a thread a cell
    #                           (bppart_band_outer), and the far part's next tile loaded during a product
    band_tile_blocks: int = 4    # windows, sweep: blocks a multiprocessor should hold (launch bounds; 0: 8 for
    #                              8-tiles, 2 for larger, the first design's)
    band_lanes: bool = True   # windows, sweep: a tile's near part a group of threads a cell (shuffled sums), not
    #                           a thread a cell
    band_trim: bool = True    # windows, sweep: the far part loads and multiplies only the tiles' rows and columns
    #                           that cells of the band read (the last tile diagonal holds one such cell a tile), and
    #                           the near part (lanes) runs only the steps that hold a band cell
    band_pipe: int = 3        # windows, sweep: 2 or 3 (v7; v6: 2): the far part's tiles copied by cp.async 1 or 2 ahead (a
    #                           ring of stages, one barrier a step); 0: loaded into registers a step ahead (v5).
    #                           Launches mode only (the persistent sweep takes 0)
    band_far: int = 2         # windows, sweep with a ring (band_pipe): the far products a thread a cell (0), the same
    #                           with row operands read two k at a time (1: 5 shared loads a k for 4 multiply-adds, not
    #                           7), or on FP64 tensor cores (2; the same bits as 0 on an H100, tests)
    band_far_shape: int = 3   # windows, sweep's far part on tensor cores (band_far 2, 16-tiles; v18): its FP64 mma, 0
    #                           m8n8k4 (two 8 x 8 blocks a warp, 8 instructions a step), 1 m16n8k4, 2 m16n8k8, 3
    #                           m16n8k16 (a warp a 16 x 8 block: 4, 2 or 1 instructions a step); m8n8k4 at tiles of no
    #                           multiple of 16 rows. The same bits on an H100; v18: sweep 0.1641 -> 0.1546 s at
    #                           23 x 20,000 (3; 1: 0.1668, 2: 0.1630), screen 26.7 -> 27.2 pairs/s
    band_last: bool = True    # windows, split sweep in launches (v22): the last tile diagonal, where its tiles hold one band
    #                           cell each (L2 = d B - (B - 1): window 128 at 16-tiles), by a warp a tile
    #                           (bppart_band_last: the far part's m16n8k16 chains, no ring, no near steps), not a block;
    #                           the same bits as the far part on tensor cores; v22: sweep 0.1545 -> 0.1497 s at
    #                           23 x 20,000 (d = 9: 0.0097 -> 0.0047 s), screen 27.2 -> 27.8 pairs/s; False:
    #                           bppart_band_tiles (v21's production)
    band_dynamic: bool = False   # windows, sweep: dynamic shared memory (the tensor-core ring's rows padded to B + 4 at a
    #                              ring of 3 too; static memory stops at 48 KB); v7 measured it slower (0.170 s, 0.159)
    band_warp: bool = True    # windows, sweep: a tile's near part by one warp (two lanes a tile row, a __syncwarp a step,
    #                           no block barrier; the cells stored after the last step), the same bits as the lanes
    #                           (v7); False: band_lanes' forms
    band_sweep: str = "launches"   # windows, sweep: a launch per tile diagonal, or "persistent" (grid barriers)
    band_streams: int = 2     # windows: launch groups on this many CUDA streams, each with its own tables (a share
    #                           of the memory), so that one launch's kernels fill another's gaps and the host
    #                           gathers a launch while the device works on the next (v8); the same bits
    band_queries: bool = True    # windows: a round's queries in one schedule over the streams (v9: the next query's
    #                              launches issued while the previous one's last runs and its windows are assembled);
    #                              False: a drain after each query's launch group (v8). The same launches, the same bits
    band_ends: bool = True    # windows: the tiles and cells past their piece's bases (filler, and the cells that cross
    #                           into the next piece: no window reads them) not computed, zeroed at a launch's start
    #                           (v9; the cross products skip them in the ring form only); the same bits
    band_hint_cross: int = 0  # windows, cross ring: an L2 hint on its copies (v9): 0 none, 1 / 2 a miss fetches 128 / 256
    #                           bytes, 3 evict_last; the same values
    band_hint_sweep: int = 0  # windows, sweep with a ring: the same hints on the far part's copies
    band_outer_cs: bool = False  # windows, outer terms: the three sums' loads evict-first (bppart_band_outer_cs, v9)
    band_lean: bool = True    # windows, split sweep: QF's base computed by the sweep (OUTER = 1), not parked in R by the
    #                           outer terms (bppart_band_outer_lean: no QI read, no R write a cell; v13: the outer terms
    #                           0.0635 -> 0.0590 s at 23 x 20,000); the same bits
    band_outer_pair: int = 2  # windows, split lean sweep: 1, the outer terms' levels in pairs (v15, bppart_band_outer_pair):
    #                           the first takes the second's sums of T0 and AUX0 from its own loads and parks them (16%
    #                           fewer transfers a cell at M = 23; the outer terms 0.0589 -> 0.0498 s at 23 x 20,000; the
    #                           same bits); 2, R's sum too, in the other order (25% fewer; 0.0469 s; another summation
    #                           order); 0, none (v14's production). v25: 2 the default (with band_align 16: outer
    #                           0.0498 -> 0.0443 s, every screen -1.5 to -1.9%); 1 gives the bits before v25
    band_outer_open: bool = True   # windows, outer terms in pairs (band_outer_pair): a query interval that cannot close
    #                                (w1 of its end bases 0) loads neither its AUX0 sum nor QX's inner cell (v33,
    #                                bppart_band_outer_pair's OPEN: s0 and both are 0 whatever they hold); the same bits;
    #                                v33 on an H200: outer 0.0357 -> 0.0323 s at 23 x 20,000, screens -0.6 to -1.5%;
    #                                False: the kernel before v33
    band_outer_late: bool = False  # windows, sweep not split (band_split False): the outer terms summed after the far
    #                                part, not before it (v13); the same bits
    band_align: int = 16      # windows (v16): a launch's bases padded with filler after its last piece so that n + 1 is a
    #                           multiple of this (16: the tables' matrices, S = (n + 1) W1 doubles apart, start on 128-byte
    #                           lines); 0: none. The same bits; v16: outer terms 0.0590 -> 0.0559 s at 23 x 20,000, cross
    #                           and sweep the same, device -0.8%: below the screen's spread, left off; v25: the
    #                           default, with band_outer_pair 2 (measured together)
    band_bases: int = 0       # windows: target bases per launch at most (0: as many as the device memory holds)


SIZES = BPPartSizes()
