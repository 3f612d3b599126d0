"""The banded multiple max-plus product on the GPU (seed 003, Gildemaster 2021, chapter 5).

One launch computes, for each output g of a batch of G, over the K matrix pairs of that output,

    C_g[i, j] = max(C_g[i, j], max_k max_{i <= m < j} A_{g,k}[i, m] + B_{g,k}[m + 1, j])

for every (i, j) in the band 0 <= j - i < W of N x N upper-banded matrices (W = N: triangular). This is
BPMax's double reduction for one outer cell: A = F(i1, k1), B = F(k1 + 1, j1), the max over k1 being
the K pairs (docs/bpmax.md). int32 cells, or int16 cells two to a 32-bit word (DPX ``__viaddmax_s16x2``).

The layout (kernels/maxplus.cu says it in full): each matrix is stored shifted one column right, as an
(N+1) x (N+1) matrix whose band is 1 <= j' - i <= W, cut into T x T tiles of which only those meeting
the band are kept, tile after tile (a jagged, tile-major array); every other cell holds the max-plus
identity :data:`NEG_INF`. A packed matrix is a ``(tiles, T, T)`` array; a pool of them
``(count, tiles, T, T)``. :func:`pack_band` / :func:`pack_dense` make one from NumPy matrices (band
form ``band[k, i, d] = M[k, i, i + d]`` or dense) and :func:`unpack_band` / :func:`unpack_dense` read
one back. Finite values must lie in ``[-FINITE_MAX, FINITE_MAX]``; results are exact.

Pure NumPy except :func:`banded_products` and :func:`banded_column_product`, which import CuPy on
first use. Nothing here runs at import time.

>>> layout = band_layout(5, 3, tile=16)
>>> a = np.arange(15, dtype=np.int32).reshape(1, 5, 3)          # band form: a[0, i, d] = A[i, i + d]
>>> bool((unpack_band(pack_band(a, layout), layout)[0, :3] == a[0, :3]).all())
True
"""
from dataclasses import dataclass

import numpy as np

from ..errors import InputError, InvalidParameter

DTYPES = ("int32", "int16")
NEG_INF = {"int32": -(1 << 30), "int16": -(1 << 14)}        # NEG_INF + NEG_INF fits the type
FINITE_MAX = {"int32": 1 << 28, "int16": 5460}              # NEG_INF + FINITE_MAX < -2 FINITE_MAX
_CELLS = {"int32": "Int32Cells", "int16": "Int16PairCells"}


# ---- kernel shapes ------------------------------------------------------------------------------

@dataclass(frozen=True)
class KernelShape:
    """One instantiation of ``banded_maxplus`` in kernels/maxplus.cu.

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
    def expression(self) -> str:
        return f"{self.kernel}<{_CELLS[self.dtype]}, {self.tile}, {self.rows}, {self.cols}, {self.k_stage}>"

    @property
    def threads(self) -> int:
        return (self.tile // self.rows) * (self.tile // self.cols)


@dataclass(frozen=True)
class LaunchSizes:
    """The kernel shapes of a run: the first one of each (dtype, tile) is the one launched."""
    shapes: tuple

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


_PRODUCTION = (
    KernelShape("int32", 128, 8, 8, 16), KernelShape("int32", 64, 8, 8, 16), KernelShape("int32", 32, 4, 4, 16),
    KernelShape("int16", 128, 8, 16, 32), KernelShape("int16", 64, 4, 16, 32), KernelShape("int16", 32, 4, 4, 32),
)
# Alternatives the benchmark compares (bench/maxplus_gpu.py); compiled, never chosen by default.
ALTERNATIVES = (
    KernelShape("int32", 64, 4, 8, 16), KernelShape("int16", 128, 8, 8, 32), KernelShape("int16", 64, 8, 8, 32),
    KernelShape("int32", 32, 4, 8, 16), KernelShape("int16", 32, 4, 8, 32),    # one warp a block
    KernelShape("int16", 32, 4, 4, 32, "banded_maxplus_dup"), KernelShape("int16", 32, 4, 8, 32, "banded_maxplus_dup"),
    KernelShape("int16", 64, 8, 8, 32, "banded_maxplus_dup"),
)
SIZES = LaunchSizes(_PRODUCTION)
# Tests: 16-tiles too, so that matrices of a few dozen rows cross many tiles and tile diagonals.
TEST_SIZES = LaunchSizes(_PRODUCTION + (KernelShape("int32", 16, 4, 4, 16), KernelShape("int16", 16, 4, 4, 16)))


def name_expressions(sizes: LaunchSizes = SIZES) -> dict:
    """Every .cu file of interact/kernels this module uses and the instantiations ``sizes`` asks of it.

    >>> "banded_maxplus<Int32Cells, 16, 4, 4, 16>" in name_expressions(TEST_SIZES)["maxplus.cu"]
    True
    """
    return {"maxplus.cu": tuple(dict.fromkeys(s.expression for s in sizes.shapes + ALTERNATIVES))}


# ---- the layout ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class BandLayout:
    """Where the cells of one N x N band-W matrix live in the jagged tile-major array.

    >>> layout = BandLayout(n=100, band=20, tile=16, dtype="int32")
    >>> layout.tiles_per_side, layout.diagonals, layout.tiles       # 7 tile rows, 3 tiles each, minus 3
    (7, 3, 18)
    """
    n: int          # N, matrix size
    band: int       # W: cells 0 <= j - i < W (W = N: upper-triangular)
    tile: int       # T
    dtype: str      # "int32" or "int16"

    @property
    def tiles_per_side(self) -> int:
        return -(-(self.n + 1) // self.tile)       # the shifted matrix has N + 1 rows and columns

    @property
    def diagonals(self) -> int:
        """Tile diagonals kept: tile (I, J) meets the band 1 <= j' - i <= W iff 0 <= J - I <= this - 1."""
        return min(self.tiles_per_side - 1, (self.band + self.tile - 1) // self.tile) + 1

    @property
    def tiles(self) -> int:
        nb, m = self.tiles_per_side, self.diagonals
        return (nb - m) * m + m * (m + 1) // 2

    @property
    def cells(self) -> int:
        """Cells (int16 or int32) of one packed matrix."""
        return self.tiles * self.tile * self.tile

    @property
    def neg_inf(self) -> int:
        return NEG_INF[self.dtype]

    @property
    def numpy_dtype(self):
        return np.dtype(self.dtype)

    def tile_coordinates(self):
        """(I, J) of each stored tile, in storage order (tile rows, then columns): the map the kernel inverts.

        >>> I, J = BandLayout(n=40, band=40, tile=16, dtype="int32").tile_coordinates()
        >>> list(zip(I.tolist(), J.tolist()))
        [(0, 0), (0, 1), (0, 2), (1, 1), (1, 2), (2, 2)]
        """
        nb, m = self.tiles_per_side, self.diagonals
        I = np.repeat(np.arange(nb), np.minimum(m, nb - np.arange(nb)))
        starts = np.concatenate([[0], np.cumsum(np.minimum(m, nb - np.arange(nb)))[:-1]])
        J = I + (np.arange(I.size) - starts[I])
        return I, J


def band_layout(n: int, band: int | None = None, *, dtype: str = "int32", tile: int | None = None,
                sizes: LaunchSizes = SIZES) -> BandLayout:
    """The layout of N x N matrices with band ``band`` (None: triangular), tile chosen unless given.

    The tile with the least padded work per useful update, weighed by how fast each tile's kernel runs
    (narrow bands waste most of a large tile's cells: W = 128 takes 32-tiles).

    >>> band_layout(20_000, 128).tile, band_layout(4096).tile
    (32, 64)
    """
    if dtype not in DTYPES:
        raise InvalidParameter(f"dtype must be one of {DTYPES}, not {dtype!r}")
    band = n if band is None else min(int(band), n)
    if n < 1 or band < 1:
        raise InvalidParameter(f"need a matrix size and band of at least 1 (got n={n}, band={band})")
    if tile is None:
        speed = _SPEED[dtype]
        tile = min(sizes.tiles(dtype), key=lambda t: kernel_updates(BandLayout(n, band, t, dtype)) / speed[t])
    (sizes if tile in sizes.tiles(dtype) else TEST_SIZES).shape(dtype, tile)
    return BandLayout(int(n), band, int(tile), dtype)


# Fraction of the ceiling each tile's kernel reaches on its own (padded) updates, measured on an H100
# by bench/maxplus_gpu.py on large products (docs/maxplus-notes.md, v1); used only to choose a tile:
# a 32-tile runs slower than a 64-tile but wastes far less of a narrow band (W = 128: 1.9 x the useful
# updates against 3.0 x), so it wins there, and the 64-/128-tiles win on triangles.
_SPEED = {"int32": {16: 0.3, 32: 0.67, 64: 0.78, 128: 0.75}, "int16": {16: 0.25, 32: 0.50, 64: 0.70, 128: 0.78}}


def useful_updates(n: int, band: int | None = None) -> int:
    """Max-plus updates one product of band-W matrices needs: sum over the band of j - i.

    >>> useful_updates(4), (4**3 - 4) // 6, useful_updates(10, 1)
    (10, 10, 0)
    """
    w = n if band is None else min(band, n)
    d = np.arange(w, dtype=np.int64)
    return int(((n - d) * d).sum())


def kernel_updates(layout: BandLayout) -> int:
    """Max-plus updates the kernel does for one product (whole tiles, whole k stages).

    >>> L = band_layout(1024, 1024, tile=64)
    >>> kernel_updates(L) >= useful_updates(1024)
    True
    """
    t = layout.tile
    ks = SIZES.shape(layout.dtype, t).k_stage if t in SIZES.tiles(layout.dtype) else t
    I, J = layout.tile_coordinates()
    i0, j0 = I * t, J * t
    n, w = layout.n + 1, layout.band
    klo = np.maximum(i0 + 1, j0 - w)
    khi = np.minimum(np.minimum(j0 + t - 2, i0 + t - 1 + w), n - 1)
    chunks = np.where(khi >= klo, khi // ks - klo // ks + 1, 0)
    return int(chunks.sum()) * ks * t * t


# ---- packing (host) -----------------------------------------------------------------------------

def _cell_coordinates(layout: BandLayout, first: int, last: int):
    """Row i, unshifted column j, flat position and in-band mask of the cells of tiles first..last-1."""
    t = layout.tile
    I, J = layout.tile_coordinates()
    I, J = I[first:last, None, None], J[first:last, None, None]
    r = np.arange(t)[None, :, None]
    q = np.arange(t)[None, None, :]
    i = np.broadcast_to(I * t + r, (last - first, t, t)).ravel()
    j = np.broadcast_to(J * t + q - 1, (last - first, t, t)).ravel()
    inside = (j - i >= 0) & (j - i < layout.band) & (j < layout.n)
    flat = np.arange(first * t * t, last * t * t)
    return i[inside], j[inside], flat[inside]


def _tile_batches(layout: BandLayout, cells: int = 1 << 22):
    step = max(1, cells // (layout.tile * layout.tile))
    for first in range(0, layout.tiles, step):
        yield first, min(layout.tiles, first + step)


def _check_values(values, layout: BandLayout, what: str):
    lim = FINITE_MAX[layout.dtype]
    bad = (values != layout.neg_inf) & ((values < -lim) | (values > lim))
    if bad.any():
        v = values[bad].ravel()[0]
        raise InputError(f"{what}: value {v} outside the {layout.dtype} range [-{lim}, {lim}] "
                         f"(or the NEG_INF sentinel {layout.neg_inf}); use int32 or smaller values")


def _as_stack(matrices, layout: BandLayout, width: int, what: str):
    m = np.asarray(matrices)
    if m.ndim == 2:
        m = m[None]
    if m.ndim != 3 or m.shape[1] != layout.n or m.shape[2] < width:
        raise InputError(f"{what}: expected shape (K, {layout.n}, {width}) or ({layout.n}, {width}), "
                         f"got {np.shape(matrices)}")
    return m


def pack_band(band, layout: BandLayout) -> np.ndarray:
    """Pack matrices given in band form, ``band[k, i, d] = M_k[i, i + d]`` (shape (K, N, W) or (N, W)).

    Returns the (K, tiles, T, T) array in ``layout.dtype``; entries with i + d >= N are ignored.

    >>> L = band_layout(3, 2, tile=16)
    >>> p = pack_band([[1, 2], [3, 4], [5, 6]], L)
    >>> p.shape, int(p[0, 0, 0, 1]), int(p[0, 0, 0, 2]), int(p[0, 0, 2, 3]), int(p[0, 0, 0, 0]) == L.neg_inf
    ((1, 1, 16, 16), 1, 2, 5, True)
    """
    b = _as_stack(band, layout, layout.band, "band matrices")
    out = np.full((b.shape[0], layout.tiles * layout.tile * layout.tile), layout.neg_inf, layout.numpy_dtype)
    for first, last in _tile_batches(layout):
        i, j, flat = _cell_coordinates(layout, first, last)
        values = b[:, i, j - i]
        _check_values(values, layout, "band matrices")
        out[:, flat] = values
    return out.reshape(b.shape[0], layout.tiles, layout.tile, layout.tile)


def pack_dense(dense, layout: BandLayout) -> np.ndarray:
    """Pack dense N x N matrices (shape (K, N, N) or (N, N)); cells outside the band are ignored.

    >>> L = band_layout(4, 2, tile=16)
    >>> d = np.arange(16).reshape(4, 4)
    >>> bool((unpack_band(pack_dense(d, L), L)[0, :3] == [[0, 1], [5, 6], [10, 11]]).all())
    True
    """
    m = _as_stack(dense, layout, layout.n, "dense matrices")
    out = np.full((m.shape[0], layout.tiles * layout.tile * layout.tile), layout.neg_inf, layout.numpy_dtype)
    for first, last in _tile_batches(layout):
        i, j, flat = _cell_coordinates(layout, first, last)
        values = m[:, i, j]
        _check_values(values, layout, "dense matrices")
        out[:, flat] = values
    return out.reshape(m.shape[0], layout.tiles, layout.tile, layout.tile)


def _flat(packed, layout: BandLayout):
    p = np.asarray(packed)
    if p.ndim == 3:
        p = p[None]
    if p.shape[1:] != (layout.tiles, layout.tile, layout.tile):
        raise InputError(f"packed matrices: expected shape (K, {layout.tiles}, {layout.tile}, {layout.tile}), "
                         f"got {np.shape(packed)}")
    return p.reshape(p.shape[0], -1)


def unpack_band(packed, layout: BandLayout) -> np.ndarray:
    """Band form (K, N, W) of packed matrices; cells past the end (i + d >= N) hold NEG_INF.

    >>> L = band_layout(2, 2, tile=16)
    >>> unpack_band(pack_band([[7, 8], [9, 0]], L), L)[0].tolist() == [[7, 8], [9, L.neg_inf]]
    True
    """
    p = _flat(packed, layout)
    out = np.full((p.shape[0], layout.n, layout.band), layout.neg_inf, layout.numpy_dtype)
    for first, last in _tile_batches(layout):
        i, j, flat = _cell_coordinates(layout, first, last)
        out[:, i, j - i] = p[:, flat]
    return out


def unpack_dense(packed, layout: BandLayout) -> np.ndarray:
    """Dense (K, N, N) form of packed matrices; cells outside the band hold NEG_INF.

    >>> L = band_layout(3, 1, tile=16)
    >>> np.diag(unpack_dense(pack_dense(np.eye(3, dtype=int) * 5, L), L)[0]).tolist()
    [5, 5, 5]
    """
    p = _flat(packed, layout)
    out = np.full((p.shape[0], layout.n, layout.n), layout.neg_inf, layout.numpy_dtype)
    for first, last in _tile_batches(layout):
        i, j, flat = _cell_coordinates(layout, first, last)
        out[:, i, j] = p[:, flat]
    return out


def padding_pool(count: int, layout: BandLayout, xp=np):
    """``count`` packed matrices holding NEG_INF everywhere (a fresh output); ``xp`` numpy or cupy.

    >>> padding_pool(2, band_layout(5, 2, tile=16)).shape
    (2, 1, 16, 16)
    """
    return xp.full((count, layout.tiles, layout.tile, layout.tile), layout.neg_inf, dtype=layout.dtype)


# ---- the launch (GPU) ---------------------------------------------------------------------------

def _module(sizes: LaunchSizes):
    from ..runtime.gpu import load_module

    every = tuple(sorted({e for s in (SIZES, TEST_SIZES, sizes) for e in name_expressions(s)["maxplus.cu"]}))
    return load_module("bioaccel.interact.kernels", "maxplus.cu", name_expressions=every)


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
                    accumulate: bool = True, sizes: LaunchSizes | None = None, shape: KernelShape | None = None):
    """One launch: ``C[c_index[g]] = max(C[...], max_k A[a_index[g, k]] (x) B[b_index[g, k]])``, g < G.

    The pools are CuPy arrays of packed matrices (``(count, tiles, T, T)``, ``layout.dtype``; A, B and C
    may be one array, as BPMax's F is, as long as no output is also an input of the same launch).
    ``a_index``/``b_index`` are (G, K), ``c_index`` (G,): host sequences (checked) or CuPy int32 arrays.
    With ``accumulate=False`` the band of each output is overwritten. Cells outside the band are left
    as they are. Returns ``c_pool``; the launch is asynchronous on the current stream.

    >>> import cupy as cp                                         # doctest: +SKIP
    >>> L = band_layout(1000, 128)                                # doctest: +SKIP
    >>> F = cp.asarray(pack_band(np.zeros((3, 1000, 128), np.int32), L))   # doctest: +SKIP
    >>> banded_products(F, F, F, [[0]], [[1]], [2], L)            # doctest: +SKIP
    """
    from ..runtime.gpu import require_gpu

    cp = require_gpu()
    sizes = sizes or (TEST_SIZES if layout.tile not in SIZES.tiles(layout.dtype) else SIZES)
    shape = shape or sizes.shape(layout.dtype, layout.tile)
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
    kernel = _module(sizes).get_function(shape.expression)
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
    from ..runtime.gpu import require_gpu

    cp = require_gpu()
    if a.ndim == 4:
        a, b = a[None], b[None]
    if a.shape != b.shape or a.ndim != 5:
        raise InvalidParameter(f"a and b: expected equal shapes (G, K, tiles, T, T), got {a.shape} and {b.shape}")
    g, k = a.shape[:2]
    if c is None:
        c = padding_pool(g, layout, cp)
    index = np.arange(g * k).reshape(g, k)
    banded_products(cp.ascontiguousarray(a), cp.ascontiguousarray(b), c, index, index, np.arange(g), layout, **launch)
    return c
