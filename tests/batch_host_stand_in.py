"""A stand-in for CuPy under fold/_gpu_batch.py's fold_packed, on any machine (issue 29, helper nbhost2): device
arrays are NumPy arrays, copies and memsets are made at once, kernels do nothing, and every operation the GPU
would run is logged in order (``StandInCupy.log``), so that a test can ask what is queued before the first
launch and bench/nussinov_batch_host.py can time the host's Python up to it. Used through :func:`stand_in`,
which also gives fold_packed fresh kept plans, uploads and turn counters (none of them mixed with a real
device's) and puts everything back afterwards.

>>> with stand_in() as cp:                      # a 300-nt sequence (the tiled batch) folded twice
...     for _ in range(2):
...         cp.log.clear()
...         out = _gpu_batch.fold_packed(cp.zeros(300, dtype=np.uint8), np.array([0, 300]), FoldParams(), check=False)
>>> [op[0] for op in cp.log][:4]                # the second fold: its head copied behind the first launch
['launch', 'copy on device', 'memset', 'memset']
"""
import contextlib
import itertools
import time
import types
from collections import OrderedDict

import numpy as np

from bioaccel.fold import FoldParams, _gpu_batch, _gpu_batch_tiled, _gpu_upload


class DeviceArray(np.ndarray):
    """A NumPy array standing for a device one: ``data`` its memory (:class:`Pointer`), ``get`` a host copy."""

    @property
    def data(self):
        return Pointer(self.reshape(-1).view(np.uint8), 0)

    def get(self, stream=None, out=None):
        return np.array(self, copy=True)


class Pointer:
    """A device pointer: the bytes of an allocation from ``offset`` on (``ptr`` is the pointer itself)."""

    def __init__(self, memory, offset):
        self.memory, self.offset = memory, offset

    def __add__(self, offset):
        return Pointer(self.memory, self.offset + offset)

    @property
    def ptr(self):
        return self

    def bytes(self, size):
        return self.memory[self.offset:self.offset + size]

    def copy_from_host_async(self, host, size, stream):
        self.bytes(size)[:] = np.frombuffer(host, np.uint8, size)
        stream.device.log.append(("copy to device", size))

    def copy_to_host_async(self, host, size, stream):
        np.frombuffer(host, np.uint8, size)[:] = self.bytes(size)
        stream.device.log.append(("copy to host", size))

    def copy_from_device_async(self, source, size, stream):
        self.bytes(size)[:] = source.bytes(size)
        stream.device.log.append(("copy on device", size))


class Pinned(bytearray):
    """Pinned host memory: a buffer whose ``ptr`` is itself."""

    @property
    def ptr(self):
        return self


class Event:
    def __init__(self, device, **_):
        self.device = device

    def record(self, stream=None):
        self.stream = stream or self.device.current

    def synchronize(self):
        pass


class Stream:
    _numbers = itertools.count(1)

    def __init__(self, device, ptr=None, **_):
        self.device, self.ptr = device, next(self._numbers) if ptr is None else ptr

    def record(self):
        event = Event(self.device)
        event.record(self)
        return event

    def synchronize(self):
        self.device.log.append(("host waits", self.ptr))

    def wait_event(self, event):
        self.device.log.append(("wait", event.stream.ptr))

    def __enter__(self):                          # (entered again inside itself: fold_tiled_group's ``with``)
        self.device.entered.append(self.device.current)
        self.device.current = self
        return self

    def __exit__(self, *_):
        self.device.current = self.device.entered.pop()


class Kernel:
    """A kernel that logs its launch (the first one's host time in ``device.first_launch``) and does nothing."""

    def __init__(self, device, name):
        self.device, self.name = device, name

    def __call__(self, grid, block, args, shared_mem=0, stream=None):
        if self.device.first_launch is None:
            self.device.first_launch = time.perf_counter()
        self.device.log.append(("launch", self.name, args))


class StandInCupy(types.SimpleNamespace):
    """The part of CuPy that fold_packed uses, on NumPy."""

    def __init__(self):
        super().__init__(log=[], first_launch=None, entered=[])
        self.current = Stream(self, ptr=0)
        runtime = types.SimpleNamespace(memsetAsync=self._memset)
        self.cuda = types.SimpleNamespace(
            Device=lambda *_: types.SimpleNamespace(id=0), Event=lambda **kw: Event(self, **kw),
            Stream=lambda **kw: Stream(self, **kw), get_current_stream=lambda: self.current,
            alloc_pinned_memory=Pinned, runtime=runtime)

    def _memset(self, pointer, byte, size, stream):
        pointer.bytes(size)[:] = byte
        self.log.append(("memset", size))

    def empty(self, shape, dtype=np.float64):
        return np.empty(shape, dtype).view(DeviceArray)

    def zeros(self, shape, dtype=np.float64):
        return np.zeros(shape, dtype).view(DeviceArray)

    def full(self, shape, value, dtype=None):
        return np.full(shape, value, dtype).view(DeviceArray)

    def asarray(self, array):
        self.log.append(("copy to device", np.asarray(array).nbytes))
        return np.array(array, copy=True).view(DeviceArray)

    def ndarray(self, shape, dtype, memptr):
        size = int(np.prod(shape)) * np.dtype(dtype).itemsize
        return memptr.bytes(size).view(dtype).reshape(shape).view(DeviceArray)

    def kernel(self, filename, name, *arguments):
        return Kernel(self, name)

    def bulk_kernel(self, dtype, tile, stage, name="batch_bulk", *rest):
        return Kernel(self, name), 0

    def to_host(self, array, stream=None):
        """runtime.gpu.to_host's steps: one copy into pinned memory on ``stream``, then the host waits for it."""
        stream = self.current if stream is None else stream
        pinned = self.cuda.alloc_pinned_memory(array.nbytes)
        array.data.copy_to_host_async(pinned.ptr, array.nbytes, stream)
        stream.synchronize()
        return np.frombuffer(pinned, array.dtype, array.size).reshape(array.shape)


@contextlib.contextmanager
def stand_in():
    """fold_packed on a :class:`StandInCupy` (yielded), with its own kept plans, uploads and turn counters."""
    cp = StandInCupy()
    saved = [(module, name, getattr(module, name)) for module, name in (
        (_gpu_batch, "_gpu"), (_gpu_batch, "kernel"), (_gpu_batch, "_plans"), (_gpu_batch, "_turns"),
        (_gpu_batch_tiled, "kernel"), (_gpu_batch_tiled, "bulk_kernel"), (_gpu_upload, "_stagings"))]
    _gpu_batch._gpu = types.SimpleNamespace(require_gpu=lambda: cp, to_host=cp.to_host)
    _gpu_batch.kernel = _gpu_batch_tiled.kernel = cp.kernel
    _gpu_batch_tiled.bulk_kernel = cp.bulk_kernel
    _gpu_batch._plans, _gpu_batch._turns, _gpu_upload._stagings = OrderedDict(), {}, {}
    _gpu_batch_tiled.tiled_kernels.cache_clear()
    try:
        yield cp
    finally:
        for module, name, value in saved:
            setattr(module, name, value)
        _gpu_batch_tiled.tiled_kernels.cache_clear()
