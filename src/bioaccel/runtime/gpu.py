"""The GPU foundation: CuPy imported lazily, the device and its free memory, one cached loader for the
CUDA C++ sources shipped as package data, and :func:`kernel`, the one way a family gets a kernel.

Nothing here runs at import time of bioaccel. ``require_gpu()`` is the single place that decides
whether the GPU backend can run, and its error is the one line users see. :func:`warm_up` starts
CuPy's import and the CUDA context in the background, for a command that knows early that it will
compute on the GPU: the context is made while the command reads its inputs.
"""
import functools
import threading
from importlib import resources

from ..errors import GPUUnavailable
from .launch import expression


#: CuPy once checked (``"cp"``), under a lock so that a caller waits for the import that
#: :func:`warm_up` started rather than making a second one; ``"warm"``: the warm-up thread.
_STATE: dict = {}
_LOCK = threading.Lock()


def cupy():
    """Return the ``cupy`` module, or raise :class:`GPUUnavailable` saying why it cannot be used."""
    with _LOCK:                  # a failure is not kept: the next call says why again
        if "cp" not in _STATE:
            _STATE["cp"] = _checked_cupy()
        return _STATE["cp"]


def _checked_cupy(context: bool = False):
    try:
        import cupy as cp
    except Exception as exc:  # ImportError, or a CUDA library that fails to load
        raise GPUUnavailable(
            f"the GPU backend is not available: CuPy cannot be imported ({exc.__class__.__name__}: {exc}); "
            "install bioaccel[gpu] on a machine with an NVIDIA GPU, or use --backend cpu"
        ) from None
    if context:
        # the driver's start (cuInit) and the device's context made first by a call that releases the
        # GIL (getDeviceCount below would start the driver holding it: other threads would stop)
        try:
            cp.cuda.runtime.deviceSynchronize()
        except Exception:            # noqa: BLE001 - no device: said below, as without this call
            pass
    try:
        count = cp.cuda.runtime.getDeviceCount()
    except Exception as exc:
        raise GPUUnavailable(
            f"the GPU backend is not available: no CUDA device ({exc}); use --backend cpu"
        ) from None
    if count < 1:
        raise GPUUnavailable("the GPU backend is not available: no CUDA device found; use --backend cpu")
    return cp


def warm_up(then=None) -> None:
    """Start, in a background thread, what the first use of the GPU waits for: CuPy's import, the
    driver's start and the CUDA context of the current device (made by a call that releases the GIL,
    so that the caller's own Python work goes on meanwhile: Numba's start, see
    :func:`bioaccel.runtime.numba_start.start_cpu_target`), the device check, then ``then()`` if given
    (a tiny computation of the caller's kind, which loads its kernels from CuPy's cache). Nothing is
    raised there: a GPU that cannot be used is named, as always, by :func:`require_gpu`, and an error
    of ``then`` by the caller's own computation. A second call does nothing.

    >>> warm_up(); warm_up()            # without CuPy or a GPU too: require_gpu() says why
    >>> _STATE["warm"].join()
    """
    import numpy  # noqa: F401  - imported here first, not by two threads at once (CuPy's import needs it)

    with _LOCK:
        if "warm" in _STATE:
            return
        _STATE["warm"] = threading.Thread(target=_warm, args=(then,), name="bioaccel-gpu-warm-up", daemon=True)
    # the driver's start and the device's context made beside CuPy's import (which holds the GIL), not
    # after it: CuPy's runtime then finds the primary context made
    threading.Thread(target=retain_primary_context, name="bioaccel-gpu-context", daemon=True).start()
    _STATE["warm"].start()


def retain_primary_context(ordinal: int = 0) -> bool:
    """Start the CUDA driver and retain device ``ordinal``'s primary context (the one CuPy's runtime
    uses) through the driver library itself, without CuPy: a call that holds no GIL (ctypes releases
    it), so it can run while CuPy is imported. True where the context is made; False, quietly, where
    there is no driver or device (:func:`require_gpu` says why where it matters). The context is kept
    until the process ends, as CuPy keeps it.

    >>> retain_primary_context() in (True, False)
    True
    """
    import ctypes

    try:
        driver = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    device, context = ctypes.c_int(), ctypes.c_void_p()
    return (driver.cuInit(0) == 0 and driver.cuDeviceGet(ctypes.byref(device), ordinal) == 0
            and driver.cuDevicePrimaryCtxRetain(ctypes.byref(context), device) == 0)


def warmed() -> None:
    """Wait for the warm-up (:func:`warm_up`) to end, where one was started, so that the computation it
    warmed runs alone (one thread on the device and on the caches it filled).

    >>> warmed()
    """
    thread = _STATE.get("warm")
    if thread is not None and thread is not threading.current_thread():
        thread.join()


def _warm(then):
    try:
        with _LOCK:                                  # a caller of cupy() meanwhile waits, as for the import
            if "cp" not in _STATE:
                _STATE["cp"] = _checked_cupy(context=True)
        if then is not None:
            then()
    except Exception:                                # noqa: BLE001 - said where it matters, see warm_up
        pass


def require_gpu():
    """Raise :class:`GPUUnavailable` unless a CUDA device can be used; return cupy."""
    return cupy()


def gpu_available():
    try:
        require_gpu()
        return True
    except GPUUnavailable:
        return False


def free_memory():
    """Bytes free on the current device, counting the blocks CuPy's pool holds unused: the pool keeps
    them for the next allocation (a repeated call of the same size then costs no cudaMalloc) and gives
    them back itself when an allocation needs more."""
    cp = require_gpu()
    free, _total = cp.cuda.runtime.memGetInfo()
    return int(free) + int(cp.get_default_memory_pool().free_bytes())


def to_host(array, stream=None):
    """A host copy of the contiguous device ``array``, made into page-locked memory from CuPy's pinned pool: one DMA
    on ``stream`` (the current one if None), waited for, where a copy into pageable memory (``ndarray.get``) is staged
    by the driver (0.12-0.18 ms for a batch's status words or 80 KB of scores after the last kernel on an H200's host,
    the GPU idle; issue 29, helpers nbhost2, bpmaxhost). The pinned block goes back to the pool when the copy (or a
    view) is freed.

    >>> cp = cupy() if gpu_available() else None
    >>> cp is None or to_host(cp.arange(3, dtype=cp.int32)).tolist() == [0, 1, 2]
    True
    """
    import numpy as np

    if array.size == 0:
        return np.empty(array.shape, array.dtype)
    cp = require_gpu()
    stream = cp.cuda.get_current_stream() if stream is None else stream
    pinned = cp.cuda.alloc_pinned_memory(array.nbytes)
    # copied and waited for by hand: ndarray.get(stream=...) returns before its copy is done on CuPy < 13
    array.data.copy_to_host_async(pinned.ptr, array.nbytes, stream)
    stream.synchronize()
    return np.frombuffer(pinned, array.dtype, array.size).reshape(array.shape)


def filled(cells: int, value, dtype, *, by_cell: bool = False):
    """A new device array of ``cells`` cells of ``dtype``, every one ``value``, written at the memory's rate: by a byte
    memset where every byte of the value is the same (-1, 0), else by 16-byte stores (kernels/fill.cu). cupy.full
    stores one cell a thread: a 1.59 GB table of int16 cells in 3.85 ms on an H200, against 0.35 ms here (issue 29,
    helper bpmaxhost). ``dtype``'s size divides 16. ``by_cell``: cupy.full's fill, kept for the benchmarks' A/B (the
    families' ``table_fill`` 0).

    >>> cp = cupy() if gpu_available() else None
    >>> cp is None or filled(5, -3, "int16").tolist() == filled(5, -3, "int16", by_cell=True).tolist() == [-3] * 5
    True
    """
    import numpy as np

    cp = require_gpu()
    if by_cell:
        return cp.full(cells, value, dtype=dtype)
    out = cp.empty(cells, dtype=dtype)
    if out.nbytes == 0:
        return out
    pattern = np.full(16 // out.itemsize, value, dtype=out.dtype).view(np.uint8)
    if (pattern == pattern[0]).all():
        cp.cuda.runtime.memsetAsync(out.data.ptr, int(pattern[0]), out.nbytes, cp.cuda.get_current_stream().ptr)
        return out
    vectors = out.nbytes // 16       # cupy's allocations start on 256-byte boundaries: whole vectors from the first
    if vectors:
        kernel(SHARED_KERNELS, "fill.cu", "fill_vectors")((min(-(-vectors // 256), 1 << 20),), (256,),
                                                          (out, np.int64(vectors), *pattern.view(np.uint32)))
    rest = out.nbytes % 16 // out.itemsize
    if rest:
        out[cells - rest:].fill(value)
    return out


def compute_capability():
    """The current device's compute capability as an integer, e.g. 90 on Hopper."""
    cp = require_gpu()
    return int(cp.cuda.Device().compute_capability)


def device_name():
    cp = require_gpu()
    return cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)["name"].decode()


def multiprocessors() -> int:
    """The current device's SM count (a launch's blocks run in waves of this many times the blocks an SM holds)."""
    return _multiprocessors(require_gpu().cuda.Device().id)


@functools.lru_cache(maxsize=None)
def _multiprocessors(ordinal: int) -> int:   # the properties' query takes a while: once a device
    return cupy().cuda.runtime.getDeviceProperties(ordinal)["multiProcessorCount"]


#: The package of the CUDA headers every family's kernels may include (dpx.cuh: the DPX lanes and the
#: asynchronous copies of the max-plus products).
SHARED_KERNELS = "bioaccel.runtime.kernels"


def kernel_source(package, filename):
    """The text of the CUDA source ``filename`` shipped in ``package`` (e.g. ``bioaccel.fold.kernels``)."""
    return resources.files(package).joinpath(filename).read_text()


@functools.lru_cache(maxsize=None)
def load_module(package, filename, name_expressions=(), options=()):
    """Compile ``filename`` once per process for ``name_expressions`` (CuPy also caches on disk) and
    return the RawModule.

    ``name_expressions`` are the C++ template instantiations to compile, e.g. ``("fill<short, 64>",)``;
    get each kernel with ``module.get_function(expression)``. Compiles for the device's architecture
    (``sm_90`` on Hopper, where the DPX instructions exist), with the headers beside the file and the
    shared ones (:data:`SHARED_KERNELS`) on the include path.
    """
    cp = require_gpu()
    arch = f"-arch=sm_{compute_capability()}"
    include = f"-I{resources.files(package)}"          # for the .cuh headers beside the .cu files
    shared = f"-I{resources.files(SHARED_KERNELS)}"
    return cp.RawModule(
        code=kernel_source(package, filename),
        options=("--std=c++17", arch, include, shared, *options),
        name_expressions=tuple(name_expressions),
    )


def kernel(package, filename, name, arguments=()):
    """Kernel ``name`` of ``filename`` (in ``package``) instantiated with the template ``arguments``, in
    the template's order: the fields of a family's launch sizes and the call's cell types (see
    :func:`bioaccel.runtime.launch.expression`). Only that instantiation is compiled, on its first
    launch in the process, so that a call compiles what it launches and nothing else.
    """
    name_expression = expression(name, arguments)
    return load_module(package, filename, (name_expression,)).get_function(name_expression)
