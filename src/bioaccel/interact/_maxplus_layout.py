"""The layout of the banded max-plus product library (interact/_maxplus_gpu.py): N x N upper-banded
matrices cut into tiles, only the tiles that meet the band kept, tile after tile, and their packing
from and back to NumPy matrices (host, pure NumPy).

Each matrix is stored shifted one column right, as an (N+1) x (N+1) matrix whose band is
1 <= j' - i <= W, cut into T x T tiles of which only those meeting the band are kept, tile after tile (a
jagged, tile-major array; kernels/maxplus.cu says it in full); every other cell holds the max-plus
identity :data:`NEG_INF`. A packed matrix is a ``(tiles, T, T)`` array; a pool of them
``(count, tiles, T, T)``. :func:`pack_band` / :func:`pack_dense` make one from NumPy matrices (band
form ``band[k, i, d] = M[k, i, i + d]`` or dense) and :func:`unpack_band` / :func:`unpack_dense` read
one back. Finite values must lie in ``[-FINITE_MAX, FINITE_MAX]``; results are exact.

>>> layout = BandLayout(n=5, band=3, tile=16, dtype="int32")
>>> a = np.arange(15, dtype=np.int32).reshape(1, 5, 3)          # band form: a[0, i, d] = A[i, i + d]
>>> bool((unpack_band(pack_band(a, layout), layout)[0, :3] == a[0, :3]).all())
True
"""
from dataclasses import dataclass

import numpy as np

from ..errors import InputError

DTYPES = ("int32", "int16")
NEG_INF = {"int32": -(1 << 30), "int16": -(1 << 14)}        # NEG_INF + NEG_INF fits the type
FINITE_MAX = {"int32": 1 << 28, "int16": 5460}              # NEG_INF + FINITE_MAX < -2 FINITE_MAX


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


def useful_updates(n: int, band: int | None = None) -> int:
    """Max-plus updates one product of band-W matrices needs: sum over the band of j - i.

    >>> useful_updates(4), (4**3 - 4) // 6, useful_updates(10, 1)
    (10, 10, 0)
    """
    w = n if band is None else min(band, n)
    d = np.arange(w, dtype=np.int64)
    return int(((n - d) * d).sum())



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

    >>> L = BandLayout(3, 2, 16, "int32")
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

    >>> L = BandLayout(4, 2, 16, "int32")
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

    >>> L = BandLayout(2, 2, 16, "int32")
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

    >>> L = BandLayout(3, 1, 16, "int32")
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

    >>> padding_pool(2, BandLayout(5, 2, 16, "int32")).shape
    (2, 1, 16, 16)
    """
    return xp.full((count, layout.tiles, layout.tile, layout.tile), layout.neg_inf, dtype=layout.dtype)
