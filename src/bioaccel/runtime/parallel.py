"""The CPU parallel runtime every family shares: thread control, atomics, and one task queue.

* :func:`threads` sets Numba's thread count for the duration of a ``with`` block and restores it after,
  so a library call never changes the rest of the process.
* The atomics (:func:`fetch_add`, :func:`load_acquire`, :func:`store_release`) and the polite wait
  (:func:`wait_for`: spin briefly, then yield the core) are LLVM intrinsics usable in ``@njit`` code.
* :class:`TaskQueue` hands out tasks in a fixed order from one shared counter; a task waits only for
  the tasks it depends on (and, optionally, for a whole group of tasks), not for a barrier. Nussinov's
  tiles and BPMax's row blocks both run on it. Tasks must be numbered in an order consistent with their
  dependencies; then a worker never waits for a task nobody has taken, and with any number of threads
  the queue cannot deadlock.
* :func:`serial_and_parallel` compiles one kernel twice, so small work can skip the parallel region.

Numba is imported here, so only code that computes imports this module (the command line's start-up
does not).
"""
import contextlib
import functools
import os
import types as pytypes
from collections import namedtuple

import numba
import numpy as np
from llvmlite import ir as llvm_ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..results.values import shown
from ..errors import InvalidParameter


def available_cores() -> int:
    """CPU cores this process may run on.

    >>> available_cores() >= 1
    True
    """
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        return os.cpu_count() or 1


def resolve_threads(count: int) -> int:
    """The thread count ``count`` asks for: 0 means every core Numba may use; more than those is refused
    (silently using fewer would make a benchmark or a cluster's plan say what did not happen).

    >>> resolve_threads(1)
    1
    >>> resolve_threads(100_000)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: threads must be at most ... the cores this process may use (0: all of them), got 100000
    """
    if isinstance(count, bool) or not isinstance(count, (int, np.integer)) or count < 0:
        raise InvalidParameter(f"threads must be 0 (all cores) or a positive whole number, got {shown(count)}")
    cores = numba.config.NUMBA_NUM_THREADS
    if count > cores:
        raise InvalidParameter(f"threads must be at most {cores}, the cores this process may use (0: all of them), "
                               f"got {shown(count)}")
    return int(count) if count else cores


@contextlib.contextmanager
def threads(count: int = 0):
    """Run the block on ``count`` Numba threads (0: all cores); the previous count is restored after.

    >>> with threads(1) as used:
    ...     used, numba.get_num_threads()
    (1, 1)
    """
    wanted = resolve_threads(count)
    before = numba.get_num_threads()
    numba.set_num_threads(wanted)
    try:
        yield wanted
    finally:
        numba.set_num_threads(before)


@contextlib.contextmanager
def chunksize(size: int):
    """Numba's parallel chunk size for the block (1: one ``prange`` iteration per thread at a time).

    >>> with chunksize(1):
    ...     numba.get_parallel_chunksize()
    1
    """
    before = numba.get_parallel_chunksize()
    numba.set_parallel_chunksize(size)
    try:
        yield
    finally:
        numba.set_parallel_chunksize(before)


def on_threads(kernel, args: tuple, workers: int) -> None:
    """Run the ``nogil`` Numba ``kernel(*args)`` on ``workers`` Python threads at once, each taking its
    work from a queue the kernel reads (a shared counter among ``args``: :func:`fetch_add`). For a
    kernel whose work is one serial function, this spares the compile of a ``prange`` kernel around it
    (4 s of the exact threshold search's 19 s on the 2-core machine) and runs as fast. The first
    exception of a thread is raised here, once every thread is done.

    >>> counter = np.zeros(1, np.int64)
    >>> on_threads(_count_to_ten, (counter,), 2)
    >>> int(counter[0]) >= 10
    True
    """
    from concurrent.futures import ThreadPoolExecutor

    workers = max(1, int(workers))
    if workers == 1:
        kernel(*args)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for future in [pool.submit(kernel, *args) for _ in range(workers)]:
            future.result()


@njit(cache=True, nogil=True)
def _count_to_ten(counter):
    while fetch_add(counter, 0, 1) < 9:
        pass


def serial_and_parallel(function, **options):
    """Compile ``function`` twice: ``(serial, parallel)`` dispatchers (cached on disk).

    Small work runs on one thread, where a parallel region costs more than it saves (and on an
    oversubscribed machine OpenMP's barrier can cost far more). Numba's disk cache tells functions
    apart by name, not by compile options, so each copy gets its own name.
    """
    def renamed(suffix):
        copy = pytypes.FunctionType(function.__code__, function.__globals__, f"{function.__name__}_{suffix}",
                                    function.__defaults__, function.__closure__)
        copy.__qualname__ = copy.__name__
        copy.__doc__ = function.__doc__
        return copy

    serial = njit(cache=True, **options)(renamed("serial"))
    parallel = njit(cache=True, parallel=True, **options)(renamed("parallel"))
    return serial, parallel


# ---- atomics ------------------------------------------------------------------------------------

def _int64_pointer(context, builder, array_type, array, index):
    ary = context.make_array(array_type)(context, builder, array)
    return cgutils.get_item_pointer(context, builder, array_type, ary, [index])


def _on_int64_array(definition):
    """``@intrinsic`` for an atomic ``definition(typingctx, array, ...)`` on an int64 array: any other
    array matches no signature (Numba reports a typing error) rather than getting a wrong-width access."""
    @functools.wraps(definition)
    def typed(typingctx, array, *rest):
        if not (isinstance(array, types.Array) and array.dtype == types.int64):
            return None
        return definition(typingctx, array, *rest)
    return intrinsic(typed)


@_on_int64_array
def fetch_add(typingctx, counter, index, value):
    """Atomically add ``value`` to ``counter[index]`` (int64) and return the previous value."""
    sig = types.int64(counter, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        ptr = _int64_pointer(context, builder, sig.args[0], args[0], args[1])
        return builder.atomic_rmw("add", ptr, args[2], "seq_cst")
    return sig, codegen


@_on_int64_array
def load_acquire(typingctx, flags, index):
    """``flags[index]`` (int64), read anew on every call and ordered before the reads that follow."""
    sig = types.int64(flags, types.intp)

    def codegen(context, builder, sig, args):
        return builder.load_atomic(_int64_pointer(context, builder, sig.args[0], args[0], args[1]), "acquire", 8)
    return sig, codegen


@_on_int64_array
def store_release(typingctx, flags, index, value):
    """``flags[index] = value`` (int64), ordered after the writes that precede it."""
    sig = types.void(flags, types.intp, types.int64)

    def codegen(context, builder, sig, args):
        builder.store_atomic(args[2], _int64_pointer(context, builder, sig.args[0], args[0], args[1]), "release", 8)
        return context.get_dummy_value()
    return sig, codegen


@intrinsic
def yield_cpu(typingctx):
    """sched_yield(2): let another thread run on this core (the one we may be waiting for)."""
    sig = types.int32()

    def codegen(context, builder, sig, args):
        fnty = llvm_ir.FunctionType(llvm_ir.IntType(32), [])
        return builder.call(cgutils.get_or_insert_function(builder.module, fnty, "sched_yield"), [])
    return sig, codegen


@njit(cache=True)
def wait_for_count(counters, index, target):
    """Wait until ``counters[index] >= target``: spin briefly, then yield the core between looks, so
    that on a busy machine a waiting thread does not burn the time slice the thread it waits for needs."""
    spins = 0
    while load_acquire(counters, index) < target:
        spins += 1
        if spins > 64:
            yield_cpu()


@njit(cache=True)
def wait_for(flags, index):
    """Wait until ``flags[index]`` is set (non-zero)."""
    wait_for_count(flags, index, 1)


# ---- the task queue -----------------------------------------------------------------------------

#: The arrays of one queue; a namedtuple so that @njit code takes it as one argument.
TaskQueue = namedtuple("TaskQueue", "counter done dep_start deps group group_size group_done wait_group")

_EMPTY = np.zeros(0, dtype=np.int64)


def task_queue(dep_start, deps, *, group=None, wait_group=None) -> TaskQueue:
    """A queue of ``len(dep_start) - 1`` tasks, numbered in the order they are handed out.

    Task ``k`` waits for the tasks ``deps[dep_start[k]:dep_start[k+1]]`` (each numbered below ``k``).
    With ``group`` (each task's group) and ``wait_group`` (a group each task waits to see complete, or
    -1), a task can also wait for every task of an earlier group.

    >>> q = task_queue(np.array([0, 0, 1]), np.array([0]))
    >>> int(q.done.shape[0]), q.deps.tolist()
    (2, [0])
    """
    dep_start = np.ascontiguousarray(dep_start, dtype=np.int64)
    deps = np.ascontiguousarray(deps, dtype=np.int64)
    total = dep_start.shape[0] - 1
    if group is None:
        group, group_size, group_done, wait_group = _EMPTY, _EMPTY, _EMPTY, _EMPTY
    else:
        group = np.ascontiguousarray(group, dtype=np.int64)
        group_size = np.bincount(group).astype(np.int64)
        group_done = np.zeros(group_size.shape[0], dtype=np.int64)
        wait_group = np.ascontiguousarray(wait_group, dtype=np.int64)
    return TaskQueue(np.zeros(1, dtype=np.int64), np.zeros(total, dtype=np.int64), dep_start, deps, group,
                     group_size, group_done, wait_group)


@njit(cache=True)
def claim(queue):
    """Take the next task and wait until its dependencies are done; -1 when none is left."""
    k = fetch_add(queue.counter, 0, 1)
    if k >= queue.done.shape[0]:
        return -1
    for d in range(queue.dep_start[k], queue.dep_start[k + 1]):
        wait_for(queue.done, queue.deps[d])
    if queue.wait_group.shape[0] > 0:
        g = queue.wait_group[k]
        if g >= 0:
            wait_for_count(queue.group_done, g, queue.group_size[g])
    return k


@njit(cache=True)
def complete(queue, k):
    """Mark task ``k`` done (its writes are visible to whoever waits for it)."""
    store_release(queue.done, k, 1)
    if queue.group.shape[0] > 0:
        fetch_add(queue.group_done, queue.group[k], 1)
