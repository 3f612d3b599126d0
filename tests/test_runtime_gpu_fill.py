"""runtime.gpu.filled and to_host (issue 29, stops 57-58): a new device array, every cell one value, by a byte memset where the value's
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
        by_cell = _gpu.filled(cells, value, dtype, by_cell=True)     # the benchmarks' A/B (table_fill 0)
        assert by_cell.shape == (cells,) and by_cell.dtype == dtype and bool((by_cell == out).all())


def test_filled_nan_is_nan_in_every_cell():
    """BPPart's dense level tables are poisoned with NaN (interact/_partition_gpu.py): the 16-byte path's pattern."""
    cp = _gpu.require_gpu()
    for cells in (1, 7, 8, 1001):
        out = _gpu.filled(cells, float("nan"), np.float64)
        assert bool(cp.isnan(out).all()), cells


def test_to_host_copies_on_the_given_stream():
    """runtime.gpu.to_host (the batch fold's status words, BPMax's scores): the copy is ordered after the work queued
    on its stream, and lands in a NumPy array of the device array's shape and type."""
    cp = _gpu.require_gpu()
    stream = cp.cuda.Stream(non_blocking=True)
    with stream:
        words = cp.arange(6, dtype=np.int32).reshape(2, 3)
        words *= 7                                    # queued on the stream: the copy must see it
    host = _gpu.to_host(words, stream)
    assert isinstance(host, np.ndarray) and host.shape == (2, 3) and host.dtype == np.int32
    assert host.tolist() == (np.arange(6).reshape(2, 3) * 7).tolist()
    assert _gpu.to_host(cp.zeros(0, dtype=np.int16)).shape == (0,)
