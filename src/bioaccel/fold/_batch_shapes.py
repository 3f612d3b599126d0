"""The shared-memory batch kernels' shapes (fold/_gpu_batch.py; kernels/nussinov_batch.cu and _x4t.cu): each kernel's
dynamic shared memory and block width for a sequence's length, by the layout of its table in shared memory."""
import numpy as np

from . import _launch  # noqa: F401 (the doctests' sizes)


def shared_bytes(n):
    """Dynamic shared memory of batch_fold for an n-long sequence: table, then stack.

    >>> shared_bytes(200)
    42224
    """
    N = n + 1
    return (N * (N + 1) + 15) // 16 * 16 + (N + 1) * 8


def x2_shared_bytes(n, cell="signed char"):
    """Dynamic shared memory of batch_fold_x2 for an n-long sequence: the row and column copies (chunk
    by chunk, 16 bytes a chunk of a row or column), the traceback stack, the pair model, the codes
    (kernels/nussinov_batch.cu, X2Layout).

    >>> x2_shared_bytes(200), x2_shared_bytes(200, "short"), x2_shared_bytes(255)
    (46720, 88320, 71775)
    """
    per = 16 if cell == "signed char" else 8                  # cells a chunk
    full, chunks = n // per, (n + per) // per
    rows = per * full * (full + 1) // 2 + (chunks - full) * n          # chunks = full + 1: the last one n rows
    col_chunks = (n - 1) // per + 1
    cols = col_chunks * n - per * col_chunks * (col_chunks - 1) // 2
    return 16 * (rows + cols) + 8 * (n + 2) + 4 * 26 + n


def xt_shared_bytes(n, cell="signed char", edge=2, stack_in_rows=False):
    """Dynamic shared memory of batch_fold_x2t (``edge`` 2) or batch_fold_x4t (4) for an n-long sequence:
    row blocks of CH (k + 1) rows and column blocks of columns CH k .. n by residue mod ``edge``, 16 bytes
    a chunk (kernels/nussinov_batch.cu, XTLayout), then the traceback stack, the pair model, the codes.
    ``stack_in_rows`` (x2t5): the stack lies in the row copy, free once the fill is done (X2Shared).

    >>> xt_shared_bytes(200), xt_shared_bytes(200, "short"), xt_shared_bytes(255)
    (47056, 88864, 72047)
    >>> xt_shared_bytes(200, edge=4), xt_shared_bytes(200, "short", 4), xt_shared_bytes(255, edge=4)
    (47472, 89696, 72047)
    >>> xt_shared_bytes(200, stack_in_rows=True), xt_shared_bytes(200, "short", stack_in_rows=True)
    (45440, 87248)
    """
    per = 16 if cell == "signed char" else 8                  # cells a chunk
    chunks = n // per + 1
    rows = per * chunks * (chunks + 1) // 2
    cols = chunks * ((edge - 1) * (n // edge + 1) + (n + 1) // edge) - per * chunks * (chunks - 1) // 2
    stack = 0 if stack_in_rows else 8 * (n + 2)            # (rows >= n + 1 units: 16 (n + 1) bytes hold it)
    return 16 * (rows + cols) + stack + 4 * 26 + n


def blocks_per_sm(dynamic, static=0, sm_bytes=233_472, reserved=1024, unit=128):
    """Blocks of ``dynamic`` + ``static`` bytes of shared memory that fit on one SM, by shared memory alone:
    each block's bytes rounded up to the allocation ``unit`` plus the driver's ``reserved`` bytes, out of the
    SM's ``sm_bytes`` (the defaults: an H100's or H200's 228 KB, 1 KB a block, 128-byte units;
    bench/nussinov_batch_occupancy.py asks the driver the same). x2t at 200 nt (32 static bytes, as ptxas counts
    the walk's six ints and the turn's one): four blocks; five with the stack in the row copy, up to 200 nt
    (before: up to 192 nt).

    >>> blocks_per_sm(xt_shared_bytes(200), 32), blocks_per_sm(xt_shared_bytes(200, stack_in_rows=True), 32)
    (4, 5)
    >>> [max(n for n in range(2, 257) if blocks_per_sm(xt_shared_bytes(n, stack_in_rows=s), 32) >= 5) for s in (0, 1)]
    [192, 200]
    """
    return sm_bytes // (-(-(dynamic + static) // unit) * unit + reserved)


def tile_threads(lengths, sizes, edge=2):
    """Threads of the batch_fold_x2t (``edge`` 2) or batch_fold_x4t (4) block of each length: one for each
    of the n // edge tiles of the first tile-diagonal, in whole warps, at most ``sizes.batch_threads``
    (fewer: the kernel folds in rounds).

    >>> tile_threads(np.array([2, 33, 200, 256]), _launch.SIZES).tolist()
    [32, 32, 128, 128]
    >>> tile_threads(np.array([2, 33, 200, 256]), _launch.SIZES, 4).tolist()
    [32, 32, 64, 64]
    """
    return np.minimum(sizes.batch_threads, np.maximum(32, (lengths // edge + 31) // 32 * 32))


def block_threads(lengths, sizes):
    """Threads of the batch_fold block of each length: one per cell of the widest diagonal computed
    (n - 1 cells), in whole warps, at most ``sizes.batch_threads``.

    >>> block_threads(np.array([2, 33, 200, 900]), _launch.SIZES).tolist()
    [32, 32, 224, 928]
    """
    return np.minimum(sizes.batch_threads, np.maximum(32, (lengths - 1 + 31) // 32 * 32))


#: The shared-memory kernels by name: (file, kernel, layout of its shared memory, its block widths, turns, who
#: walks the traceback). "r": the blocks of an SM take turns at which warp folds the first tiles
#: (kernels/nussinov_batch.cu); "x2t5": x2t with the traceback stack in the row copy (layout "x2t5": five blocks an
#: SM at 200 nt, issue 29, nb5blk); "x2t5w": x2t5 with the walk by warp 0 alone, without block barriers ("warp":
#: kernels/nussinov_traceback.cu walk_structure_warp, issue 29, nbwarp; "block": walk_structure).
SHORT_KERNELS = {"x2": ("nussinov_batch.cu", "batch_fold_x2", "x2", "x2", None, "block"),
                 "x2t": ("nussinov_batch.cu", "batch_fold_x2t", "x2t", "x2t", False, "block"),
                 "x2t5": ("nussinov_batch.cu", "batch_fold_x2t", "x2t5", "x2t", False, "block"),
                 "x2t5w": ("nussinov_batch.cu", "batch_fold_x2t", "x2t5", "x2t", False, "warp"),
                 "x2tr": ("nussinov_batch.cu", "batch_fold_x2t", "x2t", "x2t", True, "block"),
                 "x4t": ("nussinov_batch_x4t.cu", "batch_fold_x4t", "x4t", "x4t", False, "block"),
                 "x4tr": ("nussinov_batch_x4t.cu", "batch_fold_x4t", "x4t", "x2t", True, "block")}

def short_shared_bytes(name, n, cell):
    """Dynamic shared memory of the shared-memory kernel ``name`` for an n-long sequence.

    >>> short_shared_bytes("x4tr", 200, "signed char") == xt_shared_bytes(200, edge=4)
    True
    >>> short_shared_bytes("x2t", 200, "signed char") - short_shared_bytes("x2t5", 200, "signed char")
    1616
    """
    layout = SHORT_KERNELS[name][2]
    if layout == "x2":
        return x2_shared_bytes(n, cell)
    return xt_shared_bytes(n, cell, 4 if layout == "x4t" else 2, stack_in_rows=layout == "x2t5")


def short_threads(name, lengths, sizes):
    """Block width of the shared-memory kernel ``name`` for each length.

    >>> short_threads("x4t", np.array([200]), _launch.SIZES).tolist(), short_threads("x4tr", np.array([200]), _launch.SIZES).tolist()
    ([64], [128])
    """
    widths = SHORT_KERNELS[name][3]
    return block_threads(lengths, sizes) if widths == "x2" else tile_threads(lengths, sizes, 4 if widths == "x4t" else 2)
