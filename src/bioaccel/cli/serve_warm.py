"""The warm server's warm-up (:mod:`.serve_process`): what it imports and which kernels it loads.

Fork safety. Requests are run by processes forked from the server, and a fork is safe only where no
thread runs: GNU OpenMP (Numba's default threading layer where it is installed) kills a child forked
from a process that has started it ("fork() called from a process already using GNU OpenMP"), and a
parallel kernel loaded from Numba's cache starts the threading layer as it loads (Numba's
``_reload_parfors``). So the server loads only the kernels that are not parallel, with Numba's
``_launch_threads`` refused while it does (a kernel that would start the layer is skipped), and
:func:`threads_started` is checked before each fork. The parallel kernels are loaded by the spares
(processes that never fork), in idle time and one at a time, stopping as soon as a request waits.
"""
import sys
import threading

#: Module names the server does not import: they load CuPy, Dask or a GPU's runtime.
NOT_WARMED = ("gpu", "cuda", "distribution", "dask", "cluster")
#: Packages the server never imports: CuPy and Dask (a fork after them is not safe), matplotlib (plots
#: are rare: its import and font cache are left to the commands that draw).
NOT_IMPORTED = ("cupy", "dask", "distributed", "matplotlib")


class ThreadsRefused(RuntimeError):
    """Raised in the server instead of starting Numba's threading layer (a kernel that would start it
    is left to the spare)."""


def import_cpu_modules() -> int:
    """Import every bioaccel module but those of the GPU and of Dask, then every other package they
    import inside a function (Biopython's motif readers, pandas, sqlite3: a first scan spent 0.1 s in
    them); the number of bioaccel modules imported.

    >>> import_cpu_modules() > 100
    True
    """
    import importlib
    import pkgutil

    import bioaccel

    count, imported = 0, set()
    for found in pkgutil.walk_packages(bioaccel.__path__, "bioaccel."):
        if not any(word in found.name for word in NOT_WARMED):
            module = importlib.import_module(found.name)
            imported |= _imported_names(module.__file__)
            count += 1
    for name in sorted(imported):
        if not name.startswith(("bioaccel", *NOT_IMPORTED)):
            try:
                importlib.import_module(name)
            except Exception:              # an optional package that is not installed, a name not a module
                pass
    return count


def _imported_names(path: str) -> set:
    """The modules a source file imports anywhere (``from a import b``: ``a`` and ``a.b``, which may
    be a module); relative imports are bioaccel's own and left out."""
    import ast

    with open(path, encoding="utf-8") as handle:
        tree = ast.parse(handle.read())
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names |= {node.module} | {f"{node.module}.{alias.name}" for alias in node.names}
    return names


def _dispatchers() -> list:
    from numba.core.caching import NullCache
    from numba.core.dispatcher import Dispatcher

    found = {}
    for name, module in sorted(sys.modules.items()):
        if name.startswith("bioaccel.") and module is not None:
            for value in vars(module).values():
                if isinstance(value, Dispatcher) and not isinstance(value._cache, NullCache):
                    found[id(value)] = value
    return list(found.values())


def load_cached_kernels(parallel: bool, stop=lambda: False) -> int:
    """Load from Numba's cache on disk every overload it holds of the imported bioaccel kernels that
    are parallel (``parallel``) or not; never compile. Loading the others, Numba's threading layer is
    refused: a kernel that would start it is skipped. ``stop()`` is asked before each overload: True
    ends the loading there (those left are loaded when first called). The number of overloads loaded.

    >>> load_cached_kernels(parallel=False) >= 0
    True
    >>> load_cached_kernels(parallel=True, stop=lambda: True)
    0
    """
    import numba.np.ufunc.parallel as layer

    launch = layer._launch_threads
    if not parallel and not layer._is_initialized:
        def refuse():
            raise ThreadsRefused("the server never starts Numba's threading layer")
        layer._launch_threads = refuse       # read by name when a cached parallel kernel is rebuilt
    loaded = 0
    try:
        for dispatcher in _dispatchers():
            loaded, stopped = _load_overloads(dispatcher, parallel, stop, loaded)
            if stopped:
                return loaded
    finally:
        layer._launch_threads = launch
    return loaded


def _load_overloads(dispatcher, parallel: bool, stop, loaded: int) -> tuple:
    """Numba's steps of ``Dispatcher.compile`` for a cache hit (``Cache.load_overload``), for every
    overload of ``dispatcher``'s index that matches this machine and source, without its fall-back to a
    compile: the index read once, each data file read once (Numba's own path reads the index again
    for each overload, and the check for the threading layer would read the data file a second time).
    ``(loaded so far, stopped)``."""
    import pickle

    cache = dispatcher._cache
    is_parallel = bool(dispatcher.targetoptions.get("parallel"))
    if is_parallel and not parallel:
        return loaded, False
    index = cache._cache_file._load_index()
    if not index:
        return loaded, False
    context = dispatcher.targetctx
    context.refresh()
    codegen = context.codegen()
    for key, data_name in index.items():
        if stop():
            return loaded, True
        try:
            if tuple(key[0]) in dispatcher.overloads or cache._index_key(key[0], codegen) != key:
                continue                      # loaded already; another machine's entry or a stale one
            data = _data(cache, data_name)
            if data is None or (is_parallel or _names_threading_layer(data)) != parallel:
                continue
            result = cache._impl.rebuild(context, pickle.loads(data))
            if not result.objectmode:
                context.insert_user_function(result.entry_point, result.fndesc, [result.library])
            dispatcher.add_overload(result)
            loaded += 1
        except Exception:                     # a refused layer, an unreadable entry: loaded when used
            continue
    return loaded, False


def _data(cache, data_name) -> "bytes | None":
    """A cached overload's data file, None if it cannot be read."""
    try:
        with open(cache._cache_file._data_path(data_name), "rb") as handle:
            return handle.read()
    except OSError:
        return None


#: Symbols of Numba's threading layer (numba/np/ufunc/parallel.py), defined only once it has started
THREADING_SYMBOLS = (b"allocate_sched", b"do_scheduling_", b"numba_parallel_for", b"get_num_threads",
                     b"set_num_threads", b"get_thread_id", b"parallel_chunksize", b"get_sched_size")


def _names_threading_layer(data: bytes) -> bool:
    """Whether a cached overload's data (its machine code) names the threading layer: a kernel that is
    not parallel itself but calls a parallel one. Loaded before the layer has started, LLVM cannot
    resolve the names and aborts the process ("Symbol not found: allocate_sched"), which no ``except``
    catches.

    >>> _names_threading_layer(b"...do_scheduling_signed..."), _names_threading_layer(b"plain")
    (True, False)
    """
    return any(symbol in data for symbol in THREADING_SYMBOLS)


#: Commands a spare runs on a tiny input before it waits (``{query}``, ``{target}``: two FASTA files of
#: a few bases; ``{longer}``: a target of 80): the first run of a command in a process forked from the
#: server pays for what it touches first (the server's pages it writes, copied then; OpenMP's threads;
#: the first call of each kernel); rehearsed, a served run of that command only computes. BPPart's fill
#: runs tiny pairs on one thread (``_partition_blocked_queue.PARALLEL_WORK``), the 10 x 10 pair among
#: them: the 10 x 80 pair is past that, so that its parallel fill and OpenMP's threads are rehearsed too.
REHEARSALS = (("interact", "{query}", "{target}", "--partition", "--quiet"),
              ("interact", "{query}", "{longer}", "--partition", "--quiet"))
#: The rehearsals' sequences (``{query}``, ``{target}``, ``{longer}``)
REHEARSAL_SEQUENCES = {"query": "GGGAAACCCA", "target": "UGGGUUUCCC", "longer": "UGGGUUUCCCAAGCUAGCUA" * 4}


def rehearse(stop=lambda: False) -> int:
    """Run each of :data:`REHEARSALS` in this process on a tiny input, its output discarded, asking
    ``stop()`` before each (True ends it there); how many ran with status 0. For a spare only (the
    threads a run starts are never copied: a spare never forks).

    >>> rehearse(stop=lambda: True)
    0
    """
    import io
    import os
    import tempfile

    from .main import main

    done = 0
    with tempfile.TemporaryDirectory(prefix="bioaccel-rehearsal-") as folder:
        files = {name: os.path.join(folder, f"{name}.fa") for name in REHEARSAL_SEQUENCES}
        for name, sequence in REHEARSAL_SEQUENCES.items():
            with open(files[name], "w") as handle:
                handle.write(f">{name}\n{sequence}\n")
        for argv in REHEARSALS:
            if stop():
                break
            try:
                done += main([word.format(**files) for word in argv], stdout=io.StringIO(), stderr=io.StringIO()) == 0
            except Exception:       # a rehearsal is an optimisation: the spare serves its request all the same
                continue
    return done


#: Bytes of memory a spare touches ahead of its run (its heap keeps them; at most an eighth of the memory
#: available): the tables of BPPart at 23 x 100 nt are 196 MB, and a fresh process's first touch of them
#: cost 0.1-0.3 s on the 2-core machine (page faults), more than the fill itself.
RESERVE = 256 << 20
#: glibc's mallopt parameters (malloc.h; their values are C ints): no trimming of the heap below 2 GiB, no
#: mmap below 1 GiB, one arena.
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD, _M_ARENA_MAX = -1, -3, -8


def keep_freed_memory() -> bool:
    """Tell glibc to keep what this process frees (no trim of the heap below 2 GiB, no mmap below 1 GiB)
    and to give every thread the main arena, so that the large arrays of a run's worker thread reuse the
    pages :func:`reserve_memory` touched. Before any other thread allocates: a thread that allocated
    before has an arena of its own, which a new thread may then be given. For a spare only; whether
    glibc took the settings.

    >>> callable(keep_freed_memory)
    True
    """
    import ctypes

    try:
        mallopt = ctypes.CDLL("libc.so.6").mallopt
    except (OSError, AttributeError):
        return False
    return bool(mallopt(_M_ARENA_MAX, 1) and mallopt(_M_TRIM_THRESHOLD, 2**31 - 1)
                and mallopt(_M_MMAP_THRESHOLD, 1 << 30))


def reserve_memory(size: int = RESERVE, stop=lambda: False) -> int:
    """Make this process's later allocations (up to ``size`` bytes, at most an eighth of the memory
    available) reuse pages touched now: :func:`keep_freed_memory`, then ``size`` bytes are allocated,
    written (16 MiB at a time, asking ``stop()`` before each: True ends it there) and freed. For a
    spare only (it runs one request and ends: what it keeps is given back then); the bytes written, 0
    where this is not glibc.

    >>> reserve_memory(0)      # nothing asked: glibc's settings left as they are
    0
    """
    import ctypes

    if size <= 0:
        return 0
    size = min(size, _available() // 8)
    if size <= 0 or not keep_freed_memory():
        return 0
    libc = ctypes.CDLL("libc.so.6")
    malloc, free = libc.malloc, libc.free
    malloc.restype, malloc.argtypes, free.argtypes = ctypes.c_void_p, [ctypes.c_size_t], [ctypes.c_void_p]
    block = malloc(size)
    if not block:
        return 0
    done, step = 0, 16 << 20
    while done < size and not stop():
        ctypes.memset(block + done, 0, min(step, size - done))
        done += step
    free(block)
    return min(done, size)


def _available() -> int:
    """Bytes of memory available (``MemAvailable`` of /proc/meminfo), 0 when unknown."""
    try:
        with open("/proc/meminfo") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


#: Query lengths (1 to this) whose order of query intervals the server computes ahead for BPPart's
#: ``queued`` fill (a simulated schedule: 1 ms at 23 nt, 30 ms for all 32, once a thread count): svRNAs
#: are 18-30 nt, and two thread counts of 32 lengths fill the orders' cache (64).
PRIMED_QUERIES = 32


def prime_caches() -> int:
    """Compute ahead, in the server, what a run would compute first and keep (forked, every run has it):
    the order of BPPart's query intervals (:func:`bioaccel.interact.prime_partition_orders`) for the
    queries of up to :data:`PRIMED_QUERIES` nt, on one thread (tiny pairs) and on Numba's default thread
    count (read from its configuration: asking the threading layer would start it). How many orders are
    cached.

    >>> prime_caches() <= 2 * PRIMED_QUERIES
    True
    """
    from numba import config

    from ..interact import prime_partition_orders

    return prime_partition_orders(PRIMED_QUERIES, sorted({1, config.NUMBA_NUM_THREADS}))


def skip_kernel_finalizers() -> int:
    """Leave Numba's dispatchers' finalizers out of this process's exit: at exit they return at once
    (Numba's shutdown flag is set before ``weakref.finalize`` runs them), but a forked run that calls
    the server's 300 of them copies the pages they lie on (1.0 ms of a served run's 1.4 ms of ``atexit``
    handlers). For a spare, before its run (its pages copied in its idle time); how many were left out.

    >>> skip_kernel_finalizers() >= 0
    True
    """
    import weakref

    from numba.core.dispatcher import Dispatcher

    skipped = 0
    for finalizer in list(getattr(weakref.finalize, "_registry", ())):   # CPython's; none elsewhere: skip nothing
        found = finalizer.peek()
        if found is not None and isinstance(found[0], Dispatcher) and finalizer.atexit:
            finalizer.atexit = False
            skipped += 1
    return skipped


def threads_started() -> bool:
    """Whether this process runs a Python thread besides the main one, or Numba's threading layer has
    started. (OpenBLAS's own threads, started as NumPy loads, are not counted: OpenBLAS resets its pool
    in a forked child.)

    >>> isinstance(threads_started(), bool)
    True
    """
    layer = sys.modules.get("numba.np.ufunc.parallel")
    return threading.active_count() > 1 or bool(layer is not None and layer._is_initialized)
