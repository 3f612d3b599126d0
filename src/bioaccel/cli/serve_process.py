"""The warm server's process (started by ``bioaccel serve``; the client is :mod:`.serve_client`).

A command's fixed costs on the 2-core machine are about 0.8 s before its first letter is scanned:
Python's start and the imports of NumPy and Numba (0.5 s), Numba's CPU target (0.2-0.3 s), the cached
kernels loaded one by one. The server pays them once: it imports every CPU module of bioaccel, readies
Numba's CPU target and loads each kernel's overloads from Numba's cache on disk (never compiling).

Fork safety. A request is run by a process forked from the server, and a fork is safe only where no
thread runs: GNU OpenMP (Numba's default threading layer where it is installed) kills a child forked
from a process that has started it ("fork() called from a process already using GNU OpenMP"), and
a parallel kernel loaded from the cache starts the threading layer as it loads. So the server loads
only the kernels that are not parallel, with Numba's ``_launch_threads`` refused while it does (a kernel
that would start the layer is skipped), and checks before each fork that the layer has not started.
The parallel kernels (about 0.02 s of loading for a scan and a fold) are loaded by a *spare*: a child
forked ahead of time that loads them, then waits in ``accept`` for the next request and runs it; as
soon as it has taken one, the server forks the next spare. A spare never forks (it exits when its one
command ends), so the threads it starts are never copied. The server never imports CuPy or Dask:
commands that use them run in the client's process (:data:`.serve_client.IN_PROCESS`).
"""
import json
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback

from .serve_client import AT_IMPORT, LENGTH, STATUS, python_options, tree_key

READY, BUSY = b"R", b"B"
#: Module names the server does not import: they load CuPy, Dask or a GPU's runtime.
NOT_WARMED = ("gpu", "cuda", "distribution", "dask", "cluster")
#: Packages the server never imports: CuPy and Dask (a fork after them is not safe), matplotlib (plots
#: are rare: its import and font cache are left to the commands that draw).
NOT_IMPORTED = ("cupy", "dask", "distributed", "matplotlib")
#: Seconds a run goes on after its client is gone (SIGTERM sent) before its process ends anyway.
ORPHAN_GRACE = 10.0


_finished = threading.Event()


class ThreadsRefused(RuntimeError):
    """Raised in the server instead of starting Numba's threading layer (a kernel that would start it
    is left to the spare)."""


def at_import(environ) -> dict:
    """The variables of ``environ`` that are read when a module is imported or a library starts.

    >>> at_import({"NUMBA_NUM_THREADS": "2", "HOME": "/h", "LANG": "C"})
    {'LANG': 'C', 'NUMBA_NUM_THREADS': '2'}
    """
    return {k: environ[k] for k in sorted(environ) if k.startswith(AT_IMPORT)}


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


def load_cached_kernels(parallel: bool) -> int:
    """Load from Numba's cache on disk every overload it holds of the imported bioaccel kernels that
    are parallel (``parallel``) or not; never compile. Loading the others, Numba's threading layer is
    refused: a kernel that would start it is skipped. The number of overloads loaded.

    >>> load_cached_kernels(parallel=False) >= 0
    True
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
            if bool(dispatcher.targetoptions.get("parallel")) != parallel:
                continue
            # Numba's own steps of Dispatcher.compile for a cache hit, without its fall-back to a compile
            for key in dispatcher._cache._cache_file._load_index():
                try:
                    if tuple(key[0]) in dispatcher.overloads:
                        continue
                    result = dispatcher._cache.load_overload(key[0], dispatcher.targetctx)
                    if result is None:
                        continue
                    if not result.objectmode:
                        dispatcher.targetctx.insert_user_function(result.entry_point, result.fndesc,
                                                                  [result.library])
                    dispatcher.add_overload(result)
                    loaded += 1
                except Exception:             # another machine's entry, a refused layer: loaded when used
                    continue
    finally:
        layer._launch_threads = launch
    return loaded


def threads_started() -> bool:
    """Whether this process runs a Python thread besides the main one, or Numba's threading layer has
    started. (OpenBLAS's own threads, started as NumPy loads, are not counted: OpenBLAS resets its pool
    in a forked child.)

    >>> isinstance(threads_started(), bool)
    True
    """
    layer = sys.modules.get("numba.np.ufunc.parallel")
    return threading.active_count() > 1 or bool(layer is not None and layer._is_initialized)


def serve_main(argv=None) -> None:
    """The server's process: ``argv`` is the socket's path and the idle seconds after which it ends.
    It warms, listens, keeps one spare ready and writes ``<key>.pid`` next to the socket once the first
    spare is ready (``bioaccel serve`` waits for that file).

    >>> serve_main(["/nonexistent/x.sock", "1"])
    Traceback (most recent call last):
    ...
    SystemExit: bioaccel serve: /nonexistent/x.sock is not this tree's socket
    """
    path, idle = argv if argv is not None else sys.argv[1:3]
    if os.path.basename(path) != tree_key() + ".sock":
        raise SystemExit(f"bioaccel serve: {path} is not this tree's socket")
    from ..runtime.numba_start import skip_numba_optionals, start_cpu_target
    from .numba_cache import tolerate_cache_write_errors

    skip_numba_optionals()
    tolerate_cache_write_errors()
    start = time.perf_counter()
    modules = import_cpu_modules()
    start_cpu_target()
    kernels = load_cached_kernels(parallel=False)
    _log(f"warm: {modules} modules, {kernels} kernels in {time.perf_counter() - start:.2f} s")
    if "cupy" in sys.modules or "dask" in sys.modules or threads_started():
        raise SystemExit("bioaccel serve: warming started CuPy, Dask or a thread: forking is not safe")
    import gc

    gc.collect()
    gc.freeze()                     # the objects of the warm-up are shared with every child as they are
    pid_path = path[:-len(".sock")] + ".pid"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)             # `bioaccel serve` found nobody listening on it
    listener.bind(path)
    listener.listen(64)
    signal.signal(signal.SIGTERM, lambda signum, frame: sys.exit(0))
    try:
        _loop(listener, at_import(os.environ), pid_path, float(idle))
    finally:
        if os.getpid() == _server_pid:
            for own in (path, pid_path):
                try:
                    os.unlink(own)
                except OSError:
                    pass


_server_pid = os.getpid()


def _log(line: str) -> None:
    _log_to(sys.stderr.fileno(), line)


def _log_to(fd: int, line: str) -> None:
    os.write(fd, f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {line}\n".encode())


def _loop(listener, environment: dict, pid_path: str, idle: float) -> None:
    """Keep one spare ready; end after ``idle`` seconds without a request. The spares hold the read end
    of a pipe whose write end only the server holds: when the server ends, however it ends, they do."""
    global _server_pid
    _server_pid = os.getpid()
    notify_r, notify_w = os.pipe()
    lifeline = os.pipe()
    pipes = (notify_r, notify_w, lifeline)
    spare, ready, last = _fork_spare(listener, pipes, environment), False, time.monotonic()
    while time.monotonic() - last < idle:
        if select.select([notify_r], [], [], 1.0)[0]:
            for byte in os.read(notify_r, 64):
                if bytes([byte]) == READY and not ready:
                    with open(pid_path + ".tmp", "w") as handle:
                        handle.write(f"{os.getpid()}\n")
                    os.replace(pid_path + ".tmp", pid_path)
                    ready = True
                elif bytes([byte]) == BUSY:
                    spare, last = _fork_spare(listener, pipes, environment), time.monotonic()
        while True:                 # reap the runs that ended
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid == spare:        # it failed before taking a request: the log says why
                if not ready:
                    raise SystemExit("bioaccel serve: the first spare failed (see the log)")
                spare = _fork_spare(listener, pipes, environment)
    _log(f"idle for {idle:.0f} s: ending")


def _fork_spare(listener, pipes: tuple, environment: dict) -> int:
    if threads_started():
        raise SystemExit("bioaccel serve: a thread started in the server: forking is not safe")
    pid = os.fork()
    if pid:
        return pid
    notify_r, notify_w, (life_r, life_w) = pipes
    try:
        os.close(notify_r)
        os.close(life_w)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        signal.signal(signal.SIGINT, signal.default_int_handler)
        load_cached_kernels(parallel=True)      # threads may start here: this process never forks
        os.write(notify_w, READY)
        if life_r in select.select([listener, life_r], [], [])[0]:
            os._exit(0)                         # the server ended (the pipe's write end closed)
        conn, _ = listener.accept()
        os.write(notify_w, BUSY)
        for fd in (notify_w, life_r):
            os.close(fd)
        listener.close()
        _handle(conn, environment)
    except BaseException:
        traceback.print_exc()
    os._exit(70)


def _received(conn):
    """The request's JSON and the three descriptors sent with it; None for an incomplete one."""
    head, fds, _, _ = socket.recv_fds(conn, LENGTH.size, 3)
    if len(head) != LENGTH.size or len(fds) != 3:
        return None, fds
    size, body = LENGTH.unpack(head)[0], b""
    while len(body) < size:
        chunk = conn.recv(min(size - len(body), 1 << 20))
        if not chunk:
            return None, fds
        body += chunk
    return json.loads(body), fds


def _handle(conn, environment: dict) -> None:
    """Run one request on its descriptors; send its status; end this process."""
    request, fds = _received(conn)
    if request is None:             # a probe (`bioaccel serve` asking whether it listens) or a client gone
        os._exit(0)
    if at_import(request["env"]) != environment or \
            request.get("python") != json.loads(json.dumps(python_options())):
        _decline(conn)              # the client runs it itself (another Numba or locale setting)
    try:
        os.chdir(request["cwd"])
    except OSError:
        _decline(conn)
    conn.send(b"A")
    _log(f"runs {' '.join(request['argv'][:2])}")
    log = os.dup(2)                 # the server's log, kept for the run's last line
    for number, fd in enumerate(fds):
        os.dup2(fd, number)
        os.close(fd)
    os.environ.clear()
    os.environ.update(request["env"])
    _streams(request["streams"], bool(request["env"].get("PYTHONUNBUFFERED")))
    sys.argv = ["bioaccel", *request["argv"]]
    threading.Thread(target=_watch, args=(conn,), name="bioaccel-client", daemon=True).start()
    started = time.perf_counter()
    code = _run(request["argv"])
    _log_to(log, f"status {code} after {time.perf_counter() - started:.3f} s")
    _finished.set()                 # the client's hang-up after the status is no signal to the run
    try:
        conn.sendall(STATUS.pack(code))
    except OSError:
        pass
    os._exit(code)


def _decline(conn) -> None:
    try:
        conn.send(b"D")
    except OSError:
        pass
    os._exit(0)


def _streams(encodings, unbuffered: bool) -> None:
    """Standard input, output and error over descriptors 0-2, with the client's encodings."""
    import io

    (in_enc, in_err), (out_enc, out_err), (err_enc, _) = encodings

    def writer(fd, encoding, errors, line_buffering):
        return io.TextIOWrapper(open(fd, "wb", closefd=False), encoding=encoding or "utf-8", errors=errors,
                                line_buffering=line_buffering, write_through=unbuffered)

    sys.stdin = sys.__stdin__ = open(0, "r", encoding=in_enc or "utf-8", errors=in_err or "strict", closefd=False)
    sys.stdout = sys.__stdout__ = writer(1, out_enc, out_err or "strict", os.isatty(1))
    sys.stderr = sys.__stderr__ = writer(2, err_enc, "backslashreplace", True)


def _watch(conn) -> None:
    """The client's signals, forwarded to this process; the client gone: SIGTERM, then the end."""
    while True:
        try:
            data = conn.recv(64)
        except OSError:
            data = b""
        if not data:
            if _finished.is_set():
                return
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(ORPHAN_GRACE)
            os._exit(143)
        for byte in data:
            os.kill(os.getpid(), signal.SIGINT if bytes([byte]) == b"I" else signal.SIGTERM)


def _run(argv: list) -> int:
    """``bioaccel.cli.main.main(argv)`` as the ``bioaccel`` executable runs it: its status, once the
    output is flushed (an interrupted run is not waited for)."""
    import atexit

    from . import main as command

    try:
        code = command.main(argv)
    except KeyboardInterrupt:
        print("bioaccel: interrupted", file=sys.stderr)
        code = 130
    if code not in (130, command.TERMINATED) and not (command.abandoned is not None and command.abandoned.is_alive()):
        code = command._flushed(code)
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    return code
