"""The banded multiple max-plus product on the GPU (seed 003, Gildemaster 2021, chapter 5).

One launch computes, for each output g of a batch of G, over the K matrix pairs of that output,

    C_g[i, j] = max(C_g[i, j], max_k max_{i <= m < j} A_{g,k}[i, m] + B_{g,k}[m + 1, j])

for every (i, j) in the band 0 <= j - i < W of N x N upper-banded matrices (W = N: triangular). This is
BPMax's double reduction for one outer cell: A = F(i1, k1), B = F(k1 + 1, j1), the max over k1 being
the K pairs (docs/bpmax.md). int32 cells, or int16 cells two to a 32-bit word (DPX ``__viaddmax_s16x2``).

The matrices are packed in the jagged tile-major layout of :mod:`._maxplus_layout` (re-exported here:
:class:`BandLayout`, :func:`pack_band`, :func:`unpack_dense`, ...); :func:`band_layout` chooses the tile
among those with a kernel. The kernel shapes (template arguments) of a run are :data:`SIZES`, read at
call time (the GPU tests patch in 16-tiles, tests/conftest.py).

Pure NumPy except :func:`banded_products` and :func:`banded_column_product`, which import CuPy on
first use. Nothing here runs at import time.

>>> layout = band_layout(5, 3, tile=32)
>>> a = np.arange(15, dtype=np.int32).reshape(1, 5, 3)          # band form: a[0, i, d] = A[i, i + d]
>>> bool((unpack_band(pack_band(a, layout), layout)[0, :3] == a[0, :3]).all())
True
"""
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameter
from ..runtime import gpu as _gpu
from ..runtime.launch import LaunchSizes, expression as name_expression
from ._maxplus_layout import (DTYPES, FINITE_MAX, NEG_INF, BandLayout, pack_band, pack_dense,  # noqa: F401
                              padding_pool, unpack_band, unpack_dense, useful_updates)

KERNELS = "bioaccel.interact.kernels"
_CELLS = {"int32": "Int32Cells", "int16": "Int16PairCells"}


# ---- kernel shapes ------------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelShape(LaunchSizes):
    """One instantiation of ``banded_maxplus`` in kernels/maxplus.cu: its fields are the template
    arguments.

    >>> KernelShape("int16", 64, 8, 8, 32).expression
    'banded_maxplus<Int16PairCells, 64, 8, 8, 32>'
    >>> KernelShape("int32", 64, 8, 8, 16).threads
    64
    """
    dtype: str
    tile: int        # T: output tile edge, and the layout's tile
    rows: int        # output rows per thread
    cols: int        # output columns per thread
    k_stage: int     # k per shared-memory stage
    kernel: str = "banded_maxplus"   # or "banded_maxplus_dup": int16 with A duplicated while staged

    @property
    def arguments(self) -> tuple:
        """The kernel's template arguments."""
        return (_CELLS[self.dtype], self.tile, self.rows, self.cols, self.k_stage)

    @property
    def expression(self) -> str:
        return name_expression(self.kernel, self.arguments)

    @property
    def threads(self) -> int:
        return (self.tile // self.rows) * (self.tile // self.cols)


_PRODUCTION = (
    KernelShape("int32", 128, 8, 8, 16), KernelShape("int32", 64, 8, 8, 16), KernelShape("int32", 32, 4, 4, 16),
    KernelShape("int16", 128, 8, 16, 32), KernelShape("int16", 64, 4, 16, 32), KernelShape("int16", 32, 4, 4, 32),
)


@dataclass(frozen=True)
class ProductSizes(LaunchSizes):
    """The kernel shapes of a run: the first one of each (dtype, tile) is the one launched."""
    shapes: tuple = _PRODUCTION

    def shape(self, dtype: str, tile: int) -> KernelShape:
        """The launched shape for ``dtype`` and ``tile``.

        >>> SIZES.shape("int32", 128).threads
        256
        """
        for s in self.shapes:
            if s.dtype == dtype and s.tile == tile:
                return s
        raise InvalidParameter(f"no {dtype} kernel for tile {tile}; tiles: {self.tiles(dtype)}")

    def tiles(self, dtype: str) -> tuple:
        return tuple(sorted({s.tile for s in self.shapes if s.dtype == dtype}))


# Alternatives the benchmark compares (bench/maxplus_gpu.py); never chosen by default.
ALTERNATIVES = (
    KernelShape("int32", 64, 4, 8, 16), KernelShape("int16", 128, 8, 8, 32), KernelShape("int16", 64, 8, 8, 32),
    KernelShape("int32", 32, 4, 8, 16), KernelShape("int16", 32, 4, 8, 32),    # one warp a block
    KernelShape("int16", 32, 4, 4, 32, "banded_maxplus_dup"),
    KernelShape("int16", 32, 4, 8, 32, "banded_maxplus_dup"),
    KernelShape("int16", 64, 8, 8, 32, "banded_maxplus_dup"),
)
SIZES = ProductSizes()


# ---- choosing a tile ----------------------------------------------------------------------------

def band_layout(n: int, band: int | None = None, *, dtype: str = "int32", tile: int | None = None,
                sizes: ProductSizes | None = None) -> BandLayout:
    """The layout of N x N matrices with band ``band`` (None: triangular), tile chosen unless given;
    ``sizes`` (None: :data:`SIZES`, read now) must have a kernel for the tile.

    The tile with the least padded work per useful update, weighed by how fast each tile's kernel runs
    (narrow bands waste most of a large tile's cells: W = 128 takes 32-tiles); only tiles whose speed was
    measured are chosen (a test's extra tiles are taken only when asked for).

    >>> band_layout(20_000, 128).tile, band_layout(4096).tile
    (32, 64)
    """
    sizes = sizes or SIZES
    if dtype not in DTYPES:
        raise InvalidParameter(f"dtype must be one of {DTYPES}, not {dtype!r}")
    band = n if band is None else min(int(band), n)
    if n < 1 or band < 1:
        raise InvalidParameter(f"need a matrix size and band of at least 1 (got n={n}, band={band})")
    if tile is None:
        speed = _SPEED[dtype]
        tile = min((t for t in sizes.tiles(dtype) if t in speed),
                   key=lambda t: kernel_updates(BandLayout(n, band, t, dtype), sizes) / speed[t])
    sizes.shape(dtype, tile)                       # InvalidParameter where no kernel has this tile
    return BandLayout(int(n), band, int(tile), dtype)


# Fraction of the ceiling each tile's kernel reaches on its own (padded) updates, measured on an H100
# by bench/maxplus_gpu.py on large products (docs/maxplus-notes.md, v1); used only to choose a tile:
# a 32-tile runs slower than a 64-tile but wastes far less of a narrow band (W = 128: 1.9 x the useful
# updates against 3.0 x), so it wins there, and the 64-/128-tiles win on triangles.
_SPEED = {"int32": {32: 0.67, 64: 0.78, 128: 0.75}, "int16": {32: 0.50, 64: 0.70, 128: 0.78}}


def kernel_updates(layout: BandLayout, sizes: ProductSizes | None = None) -> int:
    """Max-plus updates the kernel of ``sizes`` (None: :data:`SIZES`) does for one product (whole tiles,
    whole k stages).

    >>> L = band_layout(1024, 1024, tile=64)
    >>> kernel_updates(L) >= useful_updates(1024)
    True
    """
    t = layout.tile
    ks = (sizes or SIZES).shape(layout.dtype, t).k_stage
    I, J = layout.tile_coordinates()
    i0, j0 = I * t, J * t
    n, w = layout.n + 1, layout.band
    klo = np.maximum(i0 + 1, j0 - w)
    khi = np.minimum(np.minimum(j0 + t - 2, i0 + t - 1 + w), n - 1)
    chunks = np.where(khi >= klo, khi // ks - klo // ks + 1, 0)
    return int(chunks.sum()) * ks * t * t


# ---- the launch (GPU) ---------------------------------------------------------------------------

def _indices(cp, values, shape, name, count):
    if isinstance(values, cp.ndarray):
        arr = values.astype(cp.int32, copy=False).reshape(shape)
        return cp.ascontiguousarray(arr)
    arr = np.asarray(values, dtype=np.int64).reshape(shape)
    if arr.size and (arr.min() < 0 or arr.max() >= count):
        raise InvalidParameter(f"{name}: matrix indices must lie in 0..{count - 1}")
    return cp.asarray(arr.astype(np.int32))


def _pool(cp, pool, layout: BandLayout, name):
    if not isinstance(pool, cp.ndarray) or pool.dtype != layout.numpy_dtype or not pool.flags.c_contiguous:
        raise InvalidParameter(f"{name}: expected a C-contiguous CuPy array of {layout.dtype}")
    if pool.size % layout.cells:
        raise InvalidParameter(f"{name}: {pool.size} cells is not a whole number of packed matrices "
                               f"of {layout.cells} cells")
    return pool.size // layout.cells


def banded_products(a_pool, b_pool, c_pool, a_index, b_index, c_index, layout: BandLayout, *,
                    accumulate: bool = True, sizes: ProductSizes | None = None, shape: KernelShape | None = None):
    """One launch: ``C[c_index[g]] = max(C[...], max_k A[a_index[g, k]] (x) B[b_index[g, k]])``, g < G.

    The pools are CuPy arrays of packed matrices (``(count, tiles, T, T)``, ``layout.dtype``; A, B and C
    may be one array, as BPMax's F is, as long as no output is also an input of the same launch).
    ``a_index``/``b_index`` are (G, K), ``c_index`` (G,): host sequences (checked) or CuPy int32 arrays.
    With ``accumulate=False`` the band of each output is overwritten. Cells outside the band are left
    as they are. ``shape`` (else that of ``sizes``, else of :data:`SIZES`, for the layout's dtype and
    tile) is the kernel launched. Returns ``c_pool``; the launch is asynchronous on the current stream.

    >>> import cupy as cp                                         # doctest: +SKIP
    >>> L = band_layout(1000, 128)                                # doctest: +SKIP
    >>> F = cp.asarray(pack_band(np.zeros((3, 1000, 128), np.int32), L))   # doctest: +SKIP
    >>> banded_products(F, F, F, [[0]], [[1]], [2], L)            # doctest: +SKIP
    """
    cp = _gpu.require_gpu()
    shape = shape or (sizes or SIZES).shape(layout.dtype, layout.tile)   # InvalidParameter: no such kernel
    if shape.dtype != layout.dtype or shape.tile != layout.tile:
        raise InvalidParameter(f"kernel shape {shape.expression} does not fit the layout "
                               f"({layout.dtype}, tile {layout.tile})")
    na = _pool(cp, a_pool, layout, "a_pool")
    nb = _pool(cp, b_pool, layout, "b_pool")
    nc = _pool(cp, c_pool, layout, "c_pool")
    g = int(np.shape(c_index)[0]) if not isinstance(c_index, cp.ndarray) else int(c_index.shape[0])
    k = int(np.size(a_index) // g) if g else 0
    if not isinstance(c_index, cp.ndarray) and len(set(np.asarray(c_index).tolist())) != g:
        raise InvalidParameter("c_index: each output may appear once in a launch")
    ai = _indices(cp, a_index, (g, k), "a_index", na)
    bi = _indices(cp, b_index, (g, k), "b_index", nb)
    ci = _indices(cp, c_index, (g,), "c_index", nc)
    if g == 0:
        return c_pool
    kernel = _gpu.kernel(KERNELS, "maxplus.cu", shape.kernel, shape.arguments)
    i32 = np.int32
    kernel((g * layout.tiles,), (shape.threads,),
           (a_pool, b_pool, c_pool, ai, bi, ci, i32(k), i32(layout.n + 1), i32(layout.band),
            i32(layout.tiles_per_side), i32(layout.diagonals - 1), i32(layout.tiles), i32(bool(accumulate))))
    return c_pool


def banded_column_product(a, b, layout: BandLayout, c=None, **launch):
    """``C_g = max(C_g, max_k A_{g,k} (x) B_{g,k})`` for packed CuPy stacks ``a``, ``b`` of shape
    (G, K, tiles, T, T) (or (K, tiles, T, T): G = 1). ``c`` (G, tiles, T, T) is accumulated into in
    place; without it a fresh NEG_INF output is made. Returns C.

    >>> import cupy as cp                                                  # doctest: +SKIP
    >>> L = band_layout(500, 64, dtype="int16")                            # doctest: +SKIP
    >>> a = cp.asarray(pack_band(np.ones((20, 500, 64), np.int16), L))     # doctest: +SKIP
    >>> c = banded_column_product(a, a, L)                                 # doctest: +SKIP
    """
    cp = _gpu.require_gpu()
    if a.ndim == 4:
        a, b = a[None], b[None]
    if a.shape != b.shape or a.ndim != 5:
        raise InvalidParameter(f"a and b: expected equal shapes (G, K, tiles, T, T), got {a.shape} and "
                               f"{b.shape}")
    g, k = a.shape[:2]
    if c is None:
        c = padding_pool(g, layout, cp)
    index = np.arange(g * k).reshape(g, k)
    banded_products(cp.ascontiguousarray(a), cp.ascontiguousarray(b), c, index, index, np.arange(g), layout,
                    **launch)
    return c
