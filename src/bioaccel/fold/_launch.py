"""GPU launch sizes of every Nussinov kernel, in one place.

The kernels take their tile edges and block sizes as C++ template parameters. Runs use :data:`SIZES`,
read at call time; the GPU tests patch small sizes over it (tests/conftest.py) so that inputs of a few
hundred bases cross many tiles, many batch strides and every stage of the papers' kernels.
Pure Python: nothing here needs a GPU.

>>> SIZES.tile, SIZES.replace(tile=32).tile
(128, 32)
"""
from dataclasses import dataclass

from ..runtime.launch import LaunchSizes


@dataclass(frozen=True)
class FoldSizes(LaunchSizes):
    tile: int = 128                   # tiled variant: tile edge (32, 64 or 128; (tile/8)^2 bulk threads)
    seed_tile: int = 32               # Ours1 / Ours2 (blocked, blocked-packed): the paper's 32 x 32 tiles
    batch_threads: int = 1024         # most threads of a batch block (one short sequence each, a thread per cell)
    batch_shared_max: int = 256       # longest sequence folded in shared memory (nussinov_batch.cu)
    batch_tile: int = 64              # tile edge of the tiled batches (longer sequences, many per launch)
    batch_finish: str = "sub"         # tiled batches: "sub" (bulk maxima into the table, sub-tiled finish off
    #                                   the diagonal) or "wavefront" (int32 scratch + atomics, wavefront finish)
    batch_stage_bytes: int = 64       # tiled batches, int16 cells: bytes of an A row per bulk stage (0: stage_bytes)
    batch_streams: int = 1            # tiled batches: streams a launch group's tables are spread over (2: no gain)
    batch_closure: int = 7            # tiled batches, int16: batch_finish_sub_tight form 7 (form 4's 31 closure steps
    #                                   unrolled: issue 29, stop 56; 2,000 x 1,000 nt on an H200: fold 0.0264 s against
    #                                   0.0272, finish 13.0 ms against 13.8, one call), 11 (form 8: form 7 with each
    #                                   line loaded a step ahead, finish_closure 11's step), 4 (form 3 with the held
    #                                   value among the splits, the pair weights from a table: issue 29, nbbatch4),
    #                                   3 (form 1's closure after form 2's tile read: nbfin), 1 (the closure's tests
    #                                   as mask bits), 2 (its loads predicated too), 5 (form 4, a lane's loads only
    #                                   where its cell is in the sub-tile: slower), 8 (form 4 with the far products
    #                                   taken ahead by the warps a sub-wavefront leaves idle: issue 29, nbskew),
    #                                   0 batch_finish_sub (before)
    batch_diagonal: int = 2           # tiled batches, "sub": the diagonal's tiles by batch_finish_sub_diag (sub-tiled:
    #                                   a warp a diagonal sub-tile's triangle, then the closure of batch_closure's form:
    #                                   issue 29, nbdiag; 2,000 x 1,000 nt on an H200: 0.74 ms against 1.66), 1
    #                                   batch_finish_diag (the wavefront finish, d = 0 a constant), 0 batch_finish
    batch_skip_first_bulk: int = 1    # tiled batches, "sub": 1 skips batch_bulk_direct at d = 1 (no tile between, its
    #                                   zeros; the finish starts from zeros there: issue 29, nbtail; 2,000 x 1,000 nt on
    #                                   an H200: fold 0.02733 s against 0.02742-0.02744), 0 launches it
    batch_traceback_threads: int = 128  # threads of a tiled batch's traceback block (one sequence each)
    batch_walk: int = 6               # tiled batches' traceback: 6 walk 5 with the codes and pair model in shared
    #                                   memory and V on the stack (int16 cells: issue 29, nbhost2; 2,000 x 1,000 nt on
    #                                   an H200: 0.541-0.544 ms against 0.601-0.610, one call), 5 walk 3 stepping
    #                                   inside a 64 x 64 window of V staged in shared memory (issue 29, nbwalk;
    #                                   2,000 x 1,000 nt on an H200: 0.599-0.608 ms against 0.714-0.717, one call),
    #                                   3 walk_structure_held scanning for a split only the m where (i, m-1) may
    #                                   pair (issue 29, nbedge; 2,000 x 1,000 nt on an H200: 0.700-0.704 ms against
    #                                   0.734-0.739), 1 walk_structure_held (the interval in hand in registers, one
    #                                   load latency a step), 0 walk_structure (before: issue 29)
    two_kernel_switch: int = 32       # Stojanovski et al.: kernel 2 from this diagonal on
    two_kernel_block: int = 128       # ... with this many threads per cell
    chang_initial_stage: int = 32     # Chang et al.: a thread per cell up to this diagonal
    chang_final_stage_cells: int = 64  # ... all blocks per cell below this many cells on a diagonal
    chang_block: int = 256            # ... threads of the block- and grid-per-cell stages
    bulk_min_products: int = 4        # tiled: fewest tile products a bulk block takes when K is split
    bulk_blocks_per_sm: int = 3       # tiled: interior-product blocks a launch aims at per SM (two fit at once)
    chain: str = "split"              # tiled: a diagonal's edge products and finishes in two launches ("split") or
    #                                   one ("fused": tiled_chain, the finish's block first adds the edge products)
    tiled_stage_bytes: int = 0        # tiled, int16 cells: bytes of an A row per stage of the interior products
    #                                   (0: stage_bytes below; 64 fits 8 blocks of 64-tiles an SM)
    tiled_bulk_blocks: int = 2        # tiled: the interior products' __launch_bounds__ blocks an SM (64-tiles: 8 keeps
    #                                   128 registers, where 2 lets them take 170)
    bulk_shared_pad: int = 120000     # tiled, int16 cells: the interior products' dynamic shared memory at least this
    #                                   many bytes (at 128-tiles 115,713 to 120,960: one block an SM, and room for a
    #                                   finish or edge block beside it; 0: none, before issue 29)
    bulk_pad_products: int = 4000     # ... only in the launches of at most this many tile products (0: every launch)
    finish_closure: int = 11          # tiled, int16 cells: the sub-tiled finish's closure, 0 (before issue 29), 1
    #                                   (the batches' form 1: tests as mask bits, running pointers), 2 (form 1
    #                                   with the far products ahead on idle warps: issue 29, nbskew; n = 16,000
    #                                   0.0337 s against 0.0340 with 1), 7 and 8 (the batches' slimmer closure
    #                                   steps, forms 4 and 5, with the far products ahead; the split chain only,
    #                                   the fused one runs 2's: issue 29, nb16warps; on an H200 16,000 0.0286 s,
    #                                   10,000 0.0110, 26,000 0.1051 with 7 against 0.0288, 0.0112, 0.1056 with 2),
    #                                   10 (form 7: form 4's 31 steps unrolled, 26 SASS a step against 36.5; nbunroll;
    #                                   16,000 0.0283 s against 7's 0.0285, 26,000 0.1048 against 0.1050, one call each),
    #                                   11 (form 8: form 7 with each line loaded a step ahead, the newest cells'
    #                                   splits from registers; nbahead: on an H200 16,000 0.0280 s, 10,000 0.0101
    #                                   against 0.0284, 0.0108 with 10; 26,000 0.1045 against 0.1050)
    int16_lanes: str = "Int16x2Pre"   # tiled, int16 cells: the bulk's lanes (Int16x2Dup: A operands made in
    #                                   each stage, Int16x2: in the loop; see fold/_gpu_tiled.int16_lanes)
    bulk_mix: int = -1                # tiled, int16 encoding: of a bulk thread's 32 accumulator words, the interior
    #                                   products update this many two k at a time by two IMAD.IADD (FMA pipe) and one
    #                                   VIMNMX3, the rest by DPX (kernels/nussinov_tiled.cu FmaMix; issue 29, nbmix);
    #                                   0: DPX alone (before stop 58); -1 (the default since stop 58) by length,
    #                                   mixed_words: 8 below 16,000 nt, 16 from it (on an H200 with edge_mix 16:
    #                                   10,000 0.0100 s against DPX's 0.0101-0.0103, 16,000 0.0269 against 0.0278-0.0279,
    #                                   26,000 0.0967 against 0.1034-0.1035; 16 words at 10,000 0.0103-0.0105)
    edge_mix: int = 16                # ... the same for the split chain's edge products (Int16x2Dup; 0 before stop 58)
    finish: str = "sub"               # tiled, tiles off the diagonal: "sub" (sub-tiled) or "wavefront" finish
    edge_rows: int = 1                # tiled, the split chain's edge products: 1 tiled_bulk_rows (the maxima's atomics
    #                                   by rows of consecutive cells: issue 29, nbedges; n = 16,000 on an H200 0.0322 s
    #                                   against 0.0337, 10,000 0.0126 against 0.0135), 0 tiled_bulk (before)
    bulk_rows: int = 1                # tiled: the interior products in tiled_bulk_rows (1; with edge_rows, on an H200
    #                                   16,000 0.0288 s, 10,000 0.0112, 26,000 0.1057 against 0.0323, 0.0126, 0.1122
    #                                   with edge_rows alone) or tiled_bulk (0, before)
    table_fill: int = 1               # tiled: the table's poisoning fill, 0 cupy.full (a cell a thread: ~0.42 TB/s on an
    #                                   H200), 1 runtime/gpu.py's filled (a byte memset for POISON -1; issue 29, stop 57)
    traceback_threads: int = 1024     # threads of the traceback block (at most 1024)


SIZES = FoldSizes()
BULK_STAGE_BYTES = {2: 128, 4: 64}    # bytes of each A row per shared-memory stage, by cell size


#: finish_sub_tile's FORM_BITS bit (kernels/nussinov_tiled.cu FINISH_AHEAD): the far product blocks of a
#: sub-wavefront's sub-tiles taken one sub-wavefront ahead by the warps it leaves idle (issue 29, nbskew)
FINISH_AHEAD = 16
#: SIZES' closure settings that name a closure form with FINISH_AHEAD: batch_closure 8, finish_closure 2, 7, 8, 10 and
#: 11 (10: form 7, form 4's steps unrolled: issue 29, nbunroll; 11: form 8, form 7 with the lines a step ahead: nbahead)
AHEAD_FORMS = {"batch": {8: 4}, "finish": {2: 1, 7: 4, 8: 5, 10: 7, 11: 8}}
#: settings that name a closure form by another number, without FINISH_AHEAD: batch_closure 11 (form 8, as
#: finish_closure 11 less the far products ahead; batch_closure 8 is taken)
PLAIN_FORMS = {"batch": {11: 8}, "finish": {}}


def closure_form(setting, kind):
    """The FORM (TIGHT) template argument of the sub-tiled finish's kernel for a ``batch_closure``
    (``kind`` "batch") or ``finish_closure`` ("finish") setting.

    >>> closure_form(4, "batch"), closure_form(8, "batch"), closure_form(1, "finish"), closure_form(2, "finish")
    (4, 20, 1, 17)
    >>> closure_form(7, "finish"), closure_form(8, "finish"), closure_form(10, "finish"), closure_form(11, "finish")
    (20, 21, 23, 24)
    >>> closure_form(7, "batch"), closure_form(11, "batch")
    (7, 8)
    """
    form = AHEAD_FORMS[kind].get(setting)
    return PLAIN_FORMS[kind].get(setting, setting) if form is None else form | FINISH_AHEAD


def closure_base_form(setting, kind):
    """The closure form of a ``batch_closure`` / ``finish_closure`` setting without the far products taken ahead
    (kernels whose sub-wavefronts are their own loop, as the batch's diagonal tiles, run the closure alone).

    >>> closure_base_form(8, "batch"), closure_base_form(4, "batch"), closure_base_form(2, "finish")
    (4, 4, 1)
    >>> closure_base_form(11, "batch")
    8
    """
    return closure_form(setting, kind) & ~FINISH_AHEAD


def stage_bytes(tile, itemsize):
    """Shared-memory stage of the bulk product: at most one tile's row of cells."""
    return min(BULK_STAGE_BYTES[itemsize], tile * itemsize)


def batch_lanes(lanes):
    """The int16 lanes of the batches' bulk for ``lanes``: the batches' finish writes no ready-made A
    operands, so Int16x2Pre becomes Int16x2Dup there.

    >>> batch_lanes("Int16x2Pre"), batch_lanes("Int16x2")
    ('Int16x2Dup', 'Int16x2')
    """
    return "Int16x2Dup" if lanes == "Int16x2Pre" else lanes


def finish_sub_blocks(shared, sm_bytes=233_472):
    """Blocks of batch_finish_sub an SM holds by its ``shared`` bytes (fold/_gpu_tiled.finish_shared_bytes,
    and 2 KB more: static, reserved), at most 8: its __launch_bounds__ (int16 cells: 7 at 64-tiles, 2 at 128).

    >>> finish_sub_blocks(30_096), finish_sub_blocks(109_072)
    (7, 2)
    """
    return max(1, min(8, sm_bytes // (shared + 2048)))


def finish_diag_blocks(tile):
    """Blocks of batch_finish_diag (4 threads a row of the tile) an SM's 2,048 threads hold, at most 16: its
    __launch_bounds__.

    >>> finish_diag_blocks(32), finish_diag_blocks(64), finish_diag_blocks(128)
    (16, 8, 4)
    """
    return max(1, min(16, 2048 // (4 * tile)))


def diag_shared_bytes(tile, itemsize):
    """Dynamic shared memory of batch_finish_diag: the tile X alone (rows of tile + 4 / itemsize cells, as
    finish_tile's LD).

    >>> diag_shared_bytes(64, 2), diag_shared_bytes(64, 4)
    (8448, 16640)
    """
    return tile * (tile + 4 // itemsize) * itemsize
