"""GPU launch sizes of every Nussinov kernel, in one place.

The kernels take their tile edges and block sizes as C++ template parameters. Production runs use
:data:`SIZES`; the GPU tests switch to :data:`TEST_SIZES` (STUMPY's habit) so that inputs of a few
hundred bases cross many tiles, many batch strides and every stage of the papers' kernels.
Pure Python: nothing here needs a GPU.

>>> names = name_expressions(TEST_SIZES)["nussinov_fast.cu"]
>>> "fast_finish<short, 32>" in names
True
"""
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LaunchSizes:
    tile: int = 128                   # tiled variant: tile edge (32, 64 or 128; (tile/8)^2 bulk threads)
    seed_tile: int = 32               # Ours1 / Ours2 (blocked, blocked-packed): the paper's 32 x 32 tiles
    batch_threads: int = 1024         # most threads of a batch block (one short sequence each, a thread per cell)
    batch_shared_max: int = 256       # longest sequence folded in shared memory (nussinov_batch.cu)
    batch_tile: int = 64              # tile edge of the tiled batches (longer sequences, many per launch)
    batch_traceback_threads: int = 128  # threads of a tiled batch's traceback block (one sequence each)
    two_kernel_switch: int = 32       # Stojanovski et al.: kernel 2 from this diagonal on
    two_kernel_block: int = 128       # ... with this many threads per cell
    chang_initial_stage: int = 32     # Chang et al.: a thread per cell up to this diagonal
    chang_final_stage_cells: int = 64  # ... all blocks per cell below this many cells on a diagonal
    chang_block: int = 256            # ... threads of the block- and grid-per-cell stages
    bulk_min_products: int = 4        # tiled: fewest tile products a bulk block takes when K is split
    int16_lanes: str = "Int16x2Pre"   # tiled, int16 cells: the bulk's lanes (Int16x2Dup: A operands made in each
    #                                   stage, Int16x2: in the loop; see fold/_gpu_tiled.int16_lanes)
    finish: str = "sub"               # tiled, tiles off the diagonal: "sub" (sub-tiled) or "wavefront" finish
    traceback_threads: int = 1024     # threads of the traceback block (at most 1024)


SIZES = LaunchSizes()
TEST_SIZES = replace(SIZES, tile=32, seed_tile=8, batch_threads=32, batch_tile=32, batch_traceback_threads=32,
                     two_kernel_switch=4, two_kernel_block=32, chang_initial_stage=4, chang_final_stage_cells=8,
                     chang_block=32, bulk_min_products=1, traceback_threads=64)
BULK_STAGE_BYTES = {2: 128, 4: 64}    # bytes of each A row per shared-memory stage, by cell size


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


def name_expressions(sizes=SIZES):
    """Every .cu file of fold/kernels and the template instantiations ``sizes`` asks of it."""
    t, b, lanes = sizes.tile, sizes.batch_tile, sizes.int16_lanes
    return {name: tuple(dict.fromkeys(names)) for name, names in {   # no name twice (test sizes share some)
        "nussinov_fast.cu": (   # both int16 lanes, and 64-byte int16 stages: the profile compares them
            f"fast_bulk<{lanes}, {t}, 2, {stage_bytes(t, 2)}>", f"fast_bulk<Int16x2Dup, {t}, 2, {stage_bytes(t, 2)}>",
            f"fast_bulk<Int16x2, {t}, 2, {stage_bytes(t, 2)}>",
            f"fast_bulk<Int16x2, {t}, 2, 64>",
            f"fast_bulk<Int32x1, {t}, 2, {stage_bytes(t, 4)}>", f"fast_finish<short, {t}>", f"fast_finish<int, {t}>",
            f"fast_finish_sub<short, {t}>", f"fast_finish_sub<int, {t}>",
            f"batch_bulk<{batch_lanes(lanes)}, {b}, 2, {stage_bytes(b, 2)}>",
            f"batch_bulk<Int32x1, {b}, 2, {stage_bytes(b, 4)}>",
            f"batch_finish<short, {b}>", f"batch_finish<int, {b}>"),
        "nussinov_traceback.cu": ("traceback<int, SquareLayout>", "traceback<int, PackedRowsLayout>",
                                  f"traceback<short, TiledLayout<{t}>>", f"traceback<int, TiledLayout<{t}>>",
                                  f"traceback_offset<short, {t}>",
                                  f"batch_traceback<short, {b}>", f"batch_traceback<int, {b}>"),
        "nussinov_diagonal.cu": ("diagonal_cell_per_thread", f"diagonal_cell_per_block<{sizes.two_kernel_block}>",
                                 f"diagonal_cell_per_block<{sizes.chang_block}>",
                                 f"diagonal_cell_per_grid<{sizes.chang_block}>"),
        "nussinov_blocked.cu": (f"blocked_tile_diagonal<SquareLayout, {sizes.seed_tile}>",
                                f"blocked_tile_diagonal<PackedRowsLayout, {sizes.seed_tile}>"),
        "nussinov_batch.cu": (f"batch_fold<{sizes.batch_threads}>",),
    }.items()}
