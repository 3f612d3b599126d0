"""BPMax on the GPU: the tiled finishes of bands too wide for shared memory (targets without a window).

The band in B x B tiles (I, J) of rows and absolute target columns, one launch per tile diagonal
d = J - I (kernels/bpmax.cu: ``bpmax_finish_tiled``, c22e9df's kernel, and ``bpmax_finish_eager``, the
same tiles with a prefetched middle product and, when eager, each launch also adding to the tiles of
later diagonals the middle blocks its predecessor completed; padded: row strides in shared memory that
keep the closure's loads off each other's banks; rows: each cell's threads own one row of the tile, its
row-tile operands in registers). Which one runs is ``BPMaxSizes.wide_finish``: "tiled", "prefetch",
"eager-unpadded", "eager-padded" or "eager-rows"; _gpu_finish.finisher picks this module for short cells in
wide bands.

>>> diagonals(2000, 2000, 64), [len(adding(d, 32)) for d in range(6)]
(32, [0, 0, 0, 1, 2, 3])
"""
import numpy as np

from ..runtime import gpu as _gpu

KERNELS = "bioaccel.interact.kernels"
#: a list to receive ``(matrices, d, event pair)`` for every launch of the tiled finishes (the benchmark's
#: per-launch profile: bench/bpmax_gpu_sizes.py --launches), or None
LAUNCH_EVENTS = None
#: the tiled wide finishes by ``BPMaxSizes.wide_finish``: (kernel, eager, form of bpmax_finish_eager's closure:
#: 0 shared rows of B + 1 words, 1 padded rows, 2 padded rows and the row-tile's operands in registers)
TILED = {"tiled": ("bpmax_finish_tiled", False, 0), "prefetch": ("bpmax_finish_eager", False, 0),
         "eager-unpadded": ("bpmax_finish_eager", True, 0), "eager-padded": ("bpmax_finish_eager", True, 1),
         "eager-rows": ("bpmax_finish_eager", True, 2)}


def diagonals(N: int, Wb: int, B: int) -> int:
    """Tile diagonals that hold band cells: a tile of diagonal d >= 1 holds the cells of diagonals
    e >= (d - 1) B + 1 of the band (e < Wb), and there are ceil(N / B) tile diagonals in all.

    >>> diagonals(300, 300, 16), diagonals(300, 12, 8)
    (19, 3)
    """
    return min(-(-N // B), (Wb - 2) // B + 2)


def adding(d: int, count: int) -> range:
    """The later tile diagonals D to which the eager launch d adds middle blocks (K = I + d - 1 and
    J - d + 1, final since launch d - 1): D in [d + 1, 2d - 2], below ``count`` diagonals.

    >>> list(adding(4, 32)), list(adding(4, 6)), list(adding(2, 32))
    ([5, 6], [5], [])
    """
    return range(d + 1, min(2 * d - 2, count - 1) + 1)


def strides(B: int, pad: bool) -> tuple:
    """Words per row in shared memory of bpmax_finish_eager's tile and row-tile, and of its column-tile
    (kernels/bpmax.cu EagerShape: SR, SJ): B + 1, or with ``pad`` the strides that keep the closure's
    loads off each other's banks (L threads a cell: SR + 1 = L and SJ = 32 / L, modulo 32).

    >>> strides(64, False), strides(64, True), strides(32, True), strides(8, True)
    ((65, 65), (67, 72), (33, 48), (32, 32))
    """
    if not pad:
        return B + 1, B + 1
    L = max(B * B // 16, B) // B
    return B + 1 + (L - 1 - (B + 1)) % 32, B + 1 + (32 // L - (B + 1)) % 32


def smem_words(B: int, eager_kernel: bool, pad: bool = False) -> int:
    """Dynamic shared memory of a block in 32-bit words (the kernels' TiledShape / EagerShape WORDS).

    >>> smem_words(64, False), smem_words(64, True), smem_words(64, True, pad=True)
    (12544, 12548, 13252)
    """
    kc = min(B, 32)
    if not eager_kernel:
        return B * (B + 1) + max(2 * kc * (B + 4), 2 * B * (B + 1)) + B
    SR, SJ = strides(B, pad)     # the tile and the row below it, rounded to 16 bytes (staging's uint4 stores)
    return ((B + 1) * SR + 3) // 4 * 4 + max(2 * kc * (B + 4), B * (SR + SJ))


def tiled_finisher(rb, dims: tuple, N: int, Wb: int, B: int, mode: str):
    """The finish of bands too wide for shared memory, short cells: B x B tiles, one launch per tile
    diagonal that holds band cells; ``mode`` a key of :data:`TILED`. Returns
    ``finish(F, S2, first_mat, mats, self_)`` (as _gpu_finish.finisher's). Needs a GPU.

    >>> sorted(TILED)
    ['eager-padded', 'eager-rows', 'eager-unpadded', 'prefetch', 'tiled']
    """
    name, eager, form = TILED[mode]
    tiles = -(-N // B)
    count = diagonals(N, Wb, B)
    threads = max(B * B // 16, B)
    smem = 4 * smem_words(B, name == "bpmax_finish_eager", form >= 1)
    arguments = (B,) if name == "bpmax_finish_tiled" else (B, eager, form)
    kernels = {s: _gpu.kernel(KERNELS, "bpmax.cu", name, (arguments[0], s, *arguments[1:])) for s in (True, False)}
    for kernel in kernels.values():
        kernel.max_dynamic_shared_size_bytes = smem

    def finish(F, S2, first, mats, self_):
        target, many = (S2, 1) if self_ else (F, mats)
        for d in range(count):
            per_mat = (tiles - d) + sum(tiles - D for D in (adding(d, count) if eager else ()))
            extra = () if name == "bpmax_finish_tiled" else (np.int32(per_mat),)
            events = LAUNCH_EVENTS
            if events is not None:
                pair = (_gpu.cupy().cuda.Event(), _gpu.cupy().cuda.Event())
                pair[0].record()
            kernels[self_]((many * per_mat,), (threads,),
                           (rb, target, S2, *dims, np.int32(first), np.int32(tiles - d), np.int32(d), *extra),
                           shared_mem=smem)
            if events is not None:
                pair[1].record()
                events.append((many, d, pair))
    return finish
