"""BUCKETSCOREDISTRIBUTION (Giraud & Varré) slice tables on an NVIDIA GPU (kernels in motif/kernels/bucket.cu).

The GPU enumerates the words of each slice; the merges (O(N B^2), not the bottleneck, section 4.2)
run on the host, in the same code as the CPU path, so both backends give the same distribution:
bit for bit under the uniform background (integer counts), to rounding otherwise (the products of
letter probabilities are formed in another order). Markov backgrounds up to order 2 run one launch
per pair of contexts (the k letters before the slice, the slice's last k letters).
"""
import numpy as np

from ..runtime import gpu as _gpu
from ..errors import InternalError, InvalidParameter, ResourceError
from . import _launch

KERNELS = "bioaccel.motif.kernels"
MAX_GPU_ORDER = 2          # the kernel keeps 4**k fixed-letter products per thread
MAX_SLICE = 20             # 4**20 words per slice; 32-bit block counts stay below 2**32
_SHARED_DEFAULT = 48 * 1024


def _kernel(name, *arguments):
    """Kernel ``name`` of kernels/bucket.cu with template ``arguments`` (compiled on its first launch)."""
    return _gpu.kernel(KERNELS, "bucket.cu", name, arguments)


def launch_shape(L, sizes=None):
    """(loop letters, inner letters, threads in all) for a slice of L columns under ``sizes``
    (default: ``_launch.SIZES``, read at call time).

    >>> launch_shape(12)
    (3, 3, 262144)
    """
    sizes = _launch.SIZES if sizes is None else sizes
    fixed = min(L, max(sizes.fixed_letters, L - 11))
    loop = L - fixed
    inner = min(loop, sizes.inner_letters)
    return loop, inner, 4 ** fixed


def _slice_columns(pssm, grid) -> int:
    """The columns of ``grid``'s slice, refused (ResourceError) beyond what the GPU kernels take."""
    L = grid.q.shape[0]
    if L > MAX_SLICE:
        raise ResourceError(
            f"{pssm.motif_id}: a slice of {L} columns is {4 ** L:,} words; the GPU kernel takes at most "
            f"{MAX_SLICE} columns per slice: use more --slices")
    return L


def bucket_leaves_gpu(pssm, grids) -> list:
    """One table per slice, shaped like the CPU's (``(1, 1, B)`` for order 0); float64 probabilities.
    Launch sizes are read from ``_launch.SIZES`` at call time.

    >>> import numpy as np
    >>> from bioaccel.runtime.gpu import gpu_available
    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.motif._bucket import slice_grids
    >>> pssm = PSSM(np.eye(4)[:3])
    >>> if gpu_available():                      # (without a GPU, the example only prints the answer)
    ...     print([t.shape for t in bucket_leaves_gpu(pssm, slice_grids(pssm, 2, 100)[0])])
    ... else:
    ...     print([(1, 1, 100)] * 2)
    [(1, 1, 100), (1, 1, 100)]
    """
    cp = _gpu.require_gpu()
    sizes = _launch.SIZES
    if pssm.background.order:
        return _markov_leaves(cp, pssm, grids, sizes)
    freqs = np.ascontiguousarray(pssm.background.transition[0], dtype=np.float64)
    weighted = not np.all(freqs == 0.25)
    kernel = _kernel("slice_histogram", bool(weighted))
    tables = []
    for grid in grids:
        L = _slice_columns(pssm, grid)
        loop, inner, total = launch_shape(L, sizes)
        B = grid.buckets
        shared_type = 8 if weighted else 4
        shared = ((B * shared_type + 15) // 16) * 16 + (4 ** inner) * 16
        if shared > _SHARED_DEFAULT:
            kernel.max_dynamic_shared_size_bytes = shared
        q = cp.asarray(grid.q)
        w = cp.asarray(np.tile(freqs, (L, 1)))
        out = cp.zeros(B, dtype=cp.float64 if weighted else cp.uint64)
        blocks = (total + sizes.threads - 1) // sizes.threads
        kernel((blocks,), (sizes.threads,),
               (q, w, np.int32(L), np.int32(loop), np.int32(inner), np.int64(grid.qmin),
                np.float64(grid.scale), np.int32(B), np.uint64(total), out),
               shared_mem=shared)
        host = cp.asnumpy(out)
        if not weighted:
            words = int(host.sum(dtype=np.uint64))
            if words != 4 ** L:
                raise InternalError(f"the GPU bucket kernel counted {words} words of a slice of {4 ** L}")
            host = host.astype(np.float64) * 0.25 ** L
        tables.append(host.reshape(1, 1, B))
    return tables


def _markov_leaves(cp, pssm, grids, sizes):
    """Order-k chains: one launch per (context before the slice, last k letters of the slice)."""
    bg = pssm.background
    k = bg.order
    if k > MAX_GPU_ORDER:
        raise InvalidParameter(
            f"the GPU bucket kernel handles Markov backgrounds up to order {MAX_GPU_ORDER}; "
            f"use --backend cpu for order {k}")
    nctx = 4 ** k
    kernel = _kernel("slice_histogram_markov")
    T = cp.asarray(np.ascontiguousarray(bg.transition, dtype=np.float64))
    init = cp.asarray(np.ascontiguousarray(bg.initial, dtype=np.float64))
    tables = []
    for index, grid in enumerate(grids):
        L = _slice_columns(pssm, grid)
        loop, inner, total = launch_shape(L, sizes)
        inner = min(inner, max(0, sizes.inner_letters - k))
        fixed = L - loop
        B = grid.buckets
        shared = ((B * 8 + 15) // 16) * 16 + (4 ** inner) * 8 * (1 + nctx)
        if shared > _SHARED_DEFAULT:
            kernel.max_dynamic_shared_size_bytes = shared
        first = index == 0
        nin = 1 if first else nctx
        q = cp.asarray(grid.q)
        out = cp.zeros((nin, nctx, B), dtype=cp.float64)
        count = 4 ** (fixed - k)
        blocks = (count + sizes.threads - 1) // sizes.threads
        for a in range(nin):
            for c in range(nctx):
                kernel((blocks,), (sizes.threads,),
                       (q, T, init, np.int32(k), np.int32(first), np.int32(a), np.int32(c), np.int32(L),
                        np.int32(loop), np.int32(inner), np.int64(grid.qmin), np.float64(grid.scale),
                        np.int32(B), np.uint64(count), out[a, c]),
                       shared_mem=shared)
        tables.append(cp.asnumpy(out))
    return tables
