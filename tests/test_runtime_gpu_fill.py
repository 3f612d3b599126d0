"""runtime.gpu.filled (issue 29, stop 57): a new device array, every cell one value, by a byte memset where the value's
bytes are all the same, else by 16-byte stores and the cells past the last whole 16-byte vector by cupy. Each cell is
compared with cupy.full's, over memory the pool hands back full of garbage, for every cell size the families use and
for lengths around the vector boundary.

Marked ``gpu``: skipped, with the reason, where there is no CUDA device (CI has none).
"""
import numpy as np
import pytest

from bioaccel.runtime import gpu as _gpu

pytestmark = pytest.mark.gpu

#: (dtype, value): the memset path (-1, 0) and the 16-byte path (the BPMax sentinels, Turner's INFINITE, a float)
CASES = [(np.int16, -1), (np.int16, -16384), (np.int32, -1), (np.int32, -(2 ** 30)), (np.int32, 10_000_000),
         (np.int8, 5), (np.float64, -1.5), (np.int64, 0)]


@pytest.mark.parametrize("dtype, value", CASES)
def test_filled_equals_cupy_full_over_garbage(dtype, value):
    cp = _gpu.require_gpu()
    for cells in (0, 1, 3, 7, 8, 9, 16, 1001, (1 << 20) + 5):
        garbage = cp.full(cells + 64, 0x5A, dtype=np.int8)      # freed: the pool hands its block on
        del garbage
        out = _gpu.filled(cells, value, dtype)
        assert out.shape == (cells,) and out.dtype == dtype
        assert bool((out == cp.full(cells, value, dtype=dtype)).all()), (dtype, value, cells)
