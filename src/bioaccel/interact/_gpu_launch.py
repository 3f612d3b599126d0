"""GPU launch sizes of the BPMax kernels (kernels/bpmax.cu), in one place.

Production runs use :data:`SIZES`; the GPU tests use :data:`TEST_SIZES`, whose small tiles and
segments make inputs of a few dozen bases cross many tiles, many finish segments and, with a small
``piece``, many streamed pieces of one target. Pure Python: nothing here needs a GPU.

>>> "bpmax_products<short, 32, 64, 32>" in name_expressions()["bpmax.cu"]
True
"""
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class LaunchSizes:
    tile_rows: int = 32          # products (int cells): rows of a tile (4 per thread)
    tile_cols: int = 64          # products (int cells): absolute target columns of a tile (4 per thread)
    packed_rows: int = 64        # products (short cells, two per word): rows of a tile (4 per thread)
    packed_cols: int = 64        # products (short cells): columns of a tile (8 per thread)
    chunk: int = 32              # products: reduction indices k2 staged in shared memory at a time
    finish_threads: int = 512    # finish: threads of a segment's block
    finish_bytes: int = 200 * 1024   # finish: shared memory of a segment (rows of the band)
    finish_diagonals: int = 4    # finish (short cells): diagonals a row closes at a time (1, 4 or 8)
    finish_split: int = 1        # finish (short cells): threads sharing a row's diagonals (1 or 2)
    segment_rows: int = 0        # finish: rows per segment (0: as many as finish_bytes holds)
    piece: int = 0               # target bases per launch (0: as many as the device memory holds)
    library_tile: int = 0        # banded-library variant: the product library's tile (0: its own choice)


SIZES = LaunchSizes()
TEST_SIZES = replace(SIZES, tile_rows=8, tile_cols=16, packed_rows=8, packed_cols=16, chunk=8, finish_threads=64,
                     segment_rows=8, library_tile=16)


def name_expressions(sizes: LaunchSizes = SIZES) -> dict:
    """Every .cu file of interact/kernels and the template instantiations ``sizes`` asks of it."""
    tile = f"{sizes.tile_rows}, {sizes.tile_cols}, {sizes.chunk}"
    names = [f"bpmax_products_packed<{sizes.packed_rows}, {sizes.packed_cols}, {sizes.chunk}>", f"bpmax_finish_packed<{sizes.finish_diagonals}, {sizes.finish_split}>"]
    for cell in ("short", "int"):
        names += [f"bpmax_products<{cell}, {tile}>", f"bpmax_finish<{cell}, false>", f"bpmax_finish<{cell}, true>",
                  f"bpmax_finish_diagonal<{cell}, false>", f"bpmax_finish_diagonal<{cell}, true>",
                  f"bpmax_gather<{cell}>", f"bpmax_to_tiles<{cell}>", f"bpmax_border<{cell}>",
                  f"bpmax_diagonals<{cell}, true>", f"bpmax_diagonals<{cell}, false>"]
    return {"bpmax.cu": tuple(names)}
