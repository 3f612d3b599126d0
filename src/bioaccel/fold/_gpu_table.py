"""A Nussinov table on the GPU: its layouts, reading cells, and the traceback on the device.

Every GPU kernel works on half-open intervals (kernels/nussinov_common.cuh): V(i, c) = C(i, c-1) on
the n + 1 posts of an n-long sequence. Tables are poisoned with -1 before a fill (every value is >= 0),
so a cell a kernel failed to write stays visibly wrong; :func:`unwritten_cells` counts such cells.
A tiled table may hold its cells relative to a base per tile (the offset encoding of long sequences,
fold/_gpu_tiled.py): every reader here adds it back.
"""
from dataclasses import dataclass

import numpy as np

from ..runtime import gpu as _gpu
from ..errors import InternalError
from . import _launch

KERNELS = "bioaccel.fold.kernels"
POISON = -1
BASE_POISON = -(1 << 30)        # the base of a tile (offset encoding) that no finish has written


def kernel(filename, name, *arguments):
    """Kernel ``name`` of fold/kernels/``filename`` with template ``arguments`` (compiled on first use)."""
    return _gpu.kernel(KERNELS, filename, name, arguments)


def pair_model(cp, params):
    """The PairModel struct of nussinov_common.cuh: 25 weights, then min_loop (int32 each)."""
    return cp.asarray(np.append(params.pair_table().ravel(), params.min_loop).astype(np.int32))


@dataclass
class DeviceTable:
    """A filled half-open table left on the device, with what is needed to read it."""

    values: object          # cupy array
    layout: str             # "square", "packed", "tiled"
    layout_arg: np.int64    # the one field of the layout struct (N, or tiles per side)
    n: int
    tile: int = 0           # tile edge of the "tiled" layout
    bases: object = None    # "tiled" in the offset encoding: V = values + bases[tile number] (int32)

    @property
    def score_type(self):
        return "short" if self.values.dtype == np.int16 else "int"


def cell_index(table, i, c):
    """Where V(i, c) lives in ``table.values`` (i < c; NumPy arrays or scalars), as in the kernels' layouts."""
    if table.layout == "square":
        return i * int(table.layout_arg) + c
    if table.layout == "packed":
        N = int(table.layout_arg)
        return i * N - i * (i - 1) // 2 + (c - i)
    T = table.tile
    return tile_number(table, i // T, c // T) * T * T + (i % T) * T + (c % T)


def tile_number(table, I, J):
    """The number of tile (I, J) of a tiled table (TiledLayout::index)."""
    nt = int(table.layout_arg)
    return I * nt - I * (I - 1) // 2 + (J - I)


def read_cell(table, i, c):
    """V(i, c) of a DeviceTable (one cell; for the score and tests)."""
    if c - i <= 1:
        return 0
    value = int(table.values[cell_index(table, i, c)].get())
    if table.bases is not None:
        value += int(table.bases[tile_number(table, i // table.tile, c // table.tile)].get())
    return value


def score_units(table):
    """V(0, n), the optimal score in units."""
    return 0 if table.n < 2 else read_cell(table, 0, table.n)


def _upper_values(table, raw=False):
    """Cells V(i, c), c - i >= 2, as stored (``raw``) or with their tile's base added."""
    N = table.n + 1
    values = _gpu.cupy().asnumpy(table.values).astype(np.int64)
    i, c = np.triu_indices(N, k=2)
    cells = values[cell_index(table, i, c)]
    if table.bases is not None and not raw:
        cells += _gpu.cupy().asnumpy(table.bases)[tile_number(table, i // table.tile, c // table.tile)]
    return i, c, cells


def to_dense(table):
    """The whole table as a host (n+1) x (n+1) int64 array of V(i, c), upper triangle (for tests)."""
    N = table.n + 1
    i, c, values = _upper_values(table)
    dense = np.zeros((N, N), dtype=np.int64)
    dense[i, c] = values
    return dense


def unwritten_cells(table):
    """How many cells V(i, c), c - i >= 2, still hold the poison the table was filled with (and tiles
    whose base, in the offset encoding, was never written)."""
    unwritten = int(np.count_nonzero(_upper_values(table, raw=True)[2] == POISON))
    if table.bases is not None:
        unwritten += int((table.bases == BASE_POISON).sum())
    return unwritten


def trace_structure(table, codes_dev, pm):
    """The pair_to array (partner or -1) of the optimal structure, traced on the device."""
    cp = _gpu.cupy()
    n = table.n
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    stack = cp.empty((n + 2) * 2, dtype=np.int32)
    pair_to = cp.empty(n, dtype=np.int32)
    status = cp.zeros(1, dtype=np.int32)
    threads = (_launch.SIZES.traceback_threads,)
    if table.bases is not None:
        walk = kernel("nussinov_traceback.cu", "traceback_offset", table.score_type, table.tile)
        walk((1,), threads, (table.values, table.layout_arg, table.bases, codes_dev, pm, np.int32(n), stack, pair_to,
                             status))
    else:
        layout = {"square": "SquareLayout", "packed": "PackedRowsLayout",
                  "tiled": f"TiledLayout<{table.tile}>"}[table.layout]
        walk = kernel("nussinov_traceback.cu", "traceback", table.score_type, layout)
        walk((1,), threads, (table.values, table.layout_arg, codes_dev, pm, np.int32(n), stack, pair_to, status))
    if int(status.get()[0]) != 0:
        raise InternalError("the GPU traceback found a table value no split reproduces (a corrupt table)")
    return cp.asnumpy(pair_to)
