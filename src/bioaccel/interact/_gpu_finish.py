"""BPMax on the GPU: the finish of a level (R1, R2 and the strand-2 pair inside each matrix, after the level's
products; kernels/bpmax.cu). Segments of target rows in shared memory where the band fits there, each level's
segments sized to fill whole waves of the SMs (``BPMaxSizes.segment_fit``, _finish_waves.py); tiles for bands too
wide for that (_gpu_wide.py); else diagonal by diagonal in global memory. _gpu.py runs the levels.
"""
import numpy as np

from ..runtime import gpu as _gpu
from . import _finish_waves, _gpu_wide

KERNELS = "bioaccel.interact.kernels"
SMEM_LIMIT = 227 * 1024       # dynamic shared memory a block may have on Hopper


def cell_name(dtype) -> str:
    """The kernels' name of a cell type.

    >>> cell_name(np.int16), cell_name(np.int32)
    ('short', 'int')
    """
    return "short" if np.dtype(dtype) == np.int16 else "int"


def kernel(name, *arguments):
    """Kernel ``name`` of kernels/bpmax.cu with template ``arguments`` (compiled on its first launch)."""
    return _gpu.kernel(KERNELS, "bpmax.cu", name, arguments)


def finisher(rb, dims, M, N, Wb, dtype, sizes):
    """The finish of a level: segments in shared memory when the band fits there, else diagonal by
    diagonal in global memory. Returns ``finish(F, S2, first_mat, mats, self_)``. Needs a GPU."""
    cell, itemsize = cell_name(dtype), np.dtype(dtype).itemsize
    # a row of the matrix and of S2 (finish form 2 and up: and its code); the limit less the pair scores
    row_bytes = ((Wb + 1) | 1) * itemsize * 2 + (cell == "short" and sizes.finish_form >= 2)
    limit = SMEM_LIMIT - 128
    budget = min(sizes.finish_bytes, limit)
    seg = sizes.segment_rows or (budget // row_bytes - (Wb - 1)) // 32 * 32
    # finish_form 5, 6 and 7: two threads a row, so at most finish_bound / 2 rows in shared memory (form 4 for 1-diagonal
    # groups)
    roles = cell == "short" and sizes.finish_form >= 5 and sizes.finish_diagonals >= 2
    if roles:
        seg = min(seg, max(1, (sizes.finish_bound // 2 - (Wb - 1)) // 32 * 32))
    if sizes.window_tile and cell == "short" and sizes.wide_finish in _gpu_wide.TILED:   # tiles, windows too
        return _gpu_wide.tiled_finisher(rb, dims, N, Wb, sizes.window_tile, sizes.wide_finish)
    if seg >= 1 and (seg + Wb - 1) * row_bytes <= limit:
        kernels = {s: kernel("bpmax_finish", cell, s) for s in (True, False)}
        if roles:   # finish_form 5, 6 and 7: a bulk and a tail thread a row (kernels/bpmax.cu, bpmax_finish_roles)
            kernels[False] = kernel("bpmax_finish_roles", sizes.finish_diagonals, min(sizes.finish_form, 7),
                                    sizes.finish_bound)
        elif cell == "short":   # (F, S2) words: R1 and R2 in one instruction, threads sharing a row
            kernels[False] = kernel("bpmax_finish_packed", sizes.finish_diagonals, sizes.finish_split,
                                     min(sizes.finish_form, 4))   # forms 5, 6 with 1-diagonal groups: form 4
        for launch in kernels.values():   # not `kernel`: that name is the module's function
            launch.max_dynamic_shared_size_bytes = min(seg + Wb - 1, N) * row_bytes

        # a block's threads: min(most, per_row a row of whole warps); the S2 fold's kernel a thread a row at most
        per_row = {True: 1, False: 2 if roles else sizes.finish_split if cell == "short" else 1}
        most = {True: sizes.finish_threads,
                False: sizes.finish_bound if roles else min(1024, sizes.finish_threads * per_row[False])}

        def segment(mats, self_):   # the level's segment rows: the largest, or fitted to whole waves
            if not sizes.segment_fit:
                return seg
            return _finish_waves.fitted_segment(mats, N, Wb - 1, seg, _gpu.multiprocessors(), sizes.segment_fit,
                                                row_bytes, per_row[self_], most[self_])

        def finish(F, S2, first, mats, self_):
            rows = segment(mats, self_)
            height = min(rows + Wb - 1, N)
            threads = min(most[self_], per_row[self_] * (-(-height // 32) * 32))
            kernels[self_]((mats * -(-N // rows),), (threads,),
                           (rb, F, S2, *dims, np.int32(first), np.int32(rows), np.int32(-(-N // rows))),
                           shared_mem=height * row_bytes)
        return finish

    if cell == "short" and sizes.wide_finish in _gpu_wide.TILED:   # bands too wide: tiles, a launch per diagonal
        return _gpu_wide.tiled_finisher(rb, dims, N, Wb, sizes.wide_tile, sizes.wide_finish)
    # else diagonal by diagonal over diagonal-major copies (see the kernel)
    cp = _gpu.cupy()
    Dg = cp.empty(M * Wb * N, dtype=dtype)       # the widest level has M matrices
    S2d = cp.empty(Wb * N, dtype=dtype)
    kernels = {s: kernel("bpmax_finish_diagonal", cell, s) for s in (True, False)}
    copy = {to: kernel("bpmax_diagonals", cell, to) for to in (True, False)}

    def finish(F, S2, first, mats, self_):
        target, count = (S2, 1) if self_ else (F, mats)
        blocks = (-(-count * Wb * N // 256),)
        if not self_:
            copy[True](blocks, (256,), (target, Dg, *dims, np.int32(first), np.int32(count)))
        for e in range(0 if self_ else 1, Wb):
            kernels[self_]((-(-count * N // 32),), (32, 8),
                           (rb, S2d if self_ else Dg, S2d, *dims, np.int32(count), np.int32(e)))
        copy[False](blocks, (256,), (target, S2d if self_ else Dg, *dims, np.int32(first), np.int32(count)))
    return finish
