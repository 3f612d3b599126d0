"""The warm server's process (started by ``bioaccel serve``; the client is :mod:`.serve_client`).

A command's fixed costs on the 2-core machine are about 0.8 s before its first letter is scanned:
Python's start and the imports of NumPy and Numba (0.5 s), Numba's CPU target (0.2-0.3 s), the cached
kernels loaded one by one, the packages imported inside functions (Biopython's readers, 0.1 s). The
server pays them once (:mod:`.serve_warm`), then forks a *spare*: a process that loads the parallel
kernels (which the server may not: see :mod:`.serve_warm` on fork safety), waits in ``accept`` for the
next request, runs it and ends. A spare never forks, so the threads it starts are never copied.

When a spare is forked matters on a small machine: loading the parallel kernels of a scan and a fold
takes 0.3 s of a core, and done while the previous run computes it slowed that run by as much (a
served scan 0.9-1.1 s back to back, 0.6 s with a pause, load average 4.4 on 2 cores). So the next spare
is forked when the previous run ends (or at once when a request waits and no spare is free), and it
loads kernels one at a time only while no request waits: a request that comes early is taken at once
and its run loads the kernels it needs, as any process does. Then, still only while no request waits,
it rehearses the commands of :data:`.serve_warm.REHEARSALS` on a tiny input and reserves memory (its
run's large arrays on pages touched now: :func:`.serve_warm.reserve_memory`), so that a served run only
computes (BPPart at 23 x 100 nt: 0.19-0.47 s from main to its end before, about its fill after).
"""
import marshal
import os
import select
import signal
import socket
import sys
import threading
import time
import traceback

from .serve_client import AT_IMPORT, LENGTH, STATUS, python_options, tree_key

READY, BUSY, DONE = b"R", b"B", b"D"
#: Seconds a run goes on after its client is gone (SIGTERM sent) before its process ends anyway.
ORPHAN_GRACE = 10.0


_finished = threading.Event()


def at_import(environ) -> dict:
    """The variables of ``environ`` that are read when a module is imported or a library starts.

    >>> at_import({"NUMBA_NUM_THREADS": "2", "HOME": "/h", "LANG": "C"})
    {'LANG': 'C', 'NUMBA_NUM_THREADS': '2'}
    """
    return {k: environ[k] for k in sorted(environ) if k.startswith(AT_IMPORT)}


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
    from .serve_warm import import_cpu_modules, load_cached_kernels, prime_caches, threads_started

    skip_numba_optionals()
    tolerate_cache_write_errors()
    start = time.perf_counter()
    modules = import_cpu_modules()
    start_cpu_target()
    kernels = load_cached_kernels(parallel=False)
    prime_caches()
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


_server_pid = os.getpid()           # the server's (imported there first): a forked run never cleans up


def _log(line: str) -> None:
    _log_to(sys.stderr.fileno(), line)


def _log_to(fd: int, line: str) -> None:
    os.write(fd, f"{time.strftime('%Y-%m-%d %H:%M:%S')} [{os.getpid()}] {line}\n".encode())


def _loop(listener, environment: dict, pid_path: str, idle: float) -> None:
    """Keep a spare ready; end after ``idle`` seconds without a request. The spares hold the read end
    of a pipe whose write end only the server holds: when the server ends, however it ends, they do."""
    notify_r, notify_w = os.pipe()
    pipes = (notify_r, notify_w, os.pipe())
    spare, ready, last = _fork_spare(listener, pipes, environment), False, time.monotonic()
    while time.monotonic() - last < idle:
        # a request that waits while no spare is free (the last one still running) gets one now
        waiting = [notify_r] + ([listener] if spare is None else [])
        readable = select.select(waiting, [], [], 1.0)[0]
        if listener in readable:
            spare = _fork_spare(listener, pipes, environment)
        if notify_r in readable:
            for byte in os.read(notify_r, 64):
                if bytes([byte]) == READY and not ready:
                    with open(pid_path + ".tmp", "w") as handle:
                        handle.write(f"{os.getpid()}\n")
                    os.replace(pid_path + ".tmp", pid_path)
                    ready = True
                elif bytes([byte]) == BUSY:
                    spare, last = None, time.monotonic()
                elif bytes([byte]) == DONE and spare is None:
                    spare = _fork_spare(listener, pipes, environment)
        while True:                 # reap the runs that ended
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                break
            if pid == 0:
                break
            if pid == spare and not ready:
                raise SystemExit("bioaccel serve: the first spare failed (see the log)")
            if pid == spare or spare is None:   # a spare failed, or a run ended without saying DONE
                spare = _fork_spare(listener, pipes, environment)
    _log(f"idle for {idle:.0f} s: ending")


def _fork_spare(listener, pipes: tuple, environment: dict) -> int:
    from .main import prepare_parser
    from .run_thread import keep_worker
    from .serve_client import SERVED
    from .serve_warm import (keep_freed_memory, load_cached_kernels, rehearse, reserve_memory, skip_kernel_finalizers,
                             threads_started)

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
        keep_freed_memory()                     # before any thread allocates (reserve_memory says why)
        keep_worker()                           # the rehearsals warm the thread (and its OpenMP team) of the run
        # threads may start here (this process never forks); a request that comes stops the loading
        def waiting():
            return bool(select.select([listener, life_r], [], [], 0)[0])

        steps = [time.perf_counter()]
        load_cached_kernels(parallel=True, stop=waiting)
        steps.append(time.perf_counter())
        # cheapest first (a request that comes early interrupts what is left): a tiny run of each rehearsed
        # command (what a first run touches: 0.01-0.04 s of a served run for 0.02-0.05 s here), then the
        # run's large tables on pages touched now (0.1-0.3 s of a large run for 0.13-0.2 s here)
        rehearse(stop=waiting)
        for name in SERVED:                     # the run's parser, built now (then used once, by the run)
            if not waiting():
                prepare_parser(name)
        skip_kernel_finalizers()
        steps.append(time.perf_counter())
        reserve_memory(stop=waiting)
        steps.append(time.perf_counter())
        kernels, rehearsal, memory = (b - a for a, b in zip(steps, steps[1:]))
        _log(f"spare ready: kernels {kernels:.3f} s, rehearsal {rehearsal:.3f} s, memory {memory:.3f} s")
        os.write(notify_w, READY)
        if life_r in select.select([listener, life_r], [], [])[0]:
            os._exit(0)                         # the server ended (the pipe's write end closed)
        conn, _ = listener.accept()
        os.write(notify_w, BUSY)
        os.close(life_r)
        listener.close()
        _handle(conn, environment, notify_w)
    except BaseException:
        traceback.print_exc()
    os._exit(70)


def _received(conn):
    """The request (:func:`.serve_client.request`'s dict) and the three descriptors sent with it; None for
    an incomplete one."""
    head, fds, _, _ = socket.recv_fds(conn, LENGTH.size, 3)
    if len(head) != LENGTH.size or len(fds) != 3:
        return None, fds
    size, body = LENGTH.unpack(head)[0], b""
    while len(body) < size:
        chunk = conn.recv(min(size - len(body), 1 << 20))
        if not chunk:
            return None, fds
        body += chunk
    return marshal.loads(body), fds


def _handle(conn, environment: dict, notify_w: int) -> None:
    """Run one request on its descriptors; send its status; end this process. (The server is told when
    the run is over, DONE on ``notify_w`` once the client has its status: its next spare starts then.)"""
    request, fds = _received(conn)
    if request is None:             # a probe (`bioaccel serve` asking whether it listens) or a client gone
        os.write(notify_w, DONE)
        os._exit(0)
    if at_import(request["env"]) != environment or \
            request.get("python") != python_options():
        _decline(conn, notify_w)    # the client runs it itself (another Numba or locale setting)
    try:
        os.chdir(request["cwd"])
    except OSError:
        _decline(conn, notify_w)
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
    started = time.perf_counter()
    try:
        threading.Thread(target=_watch, args=(conn,), name="bioaccel-client", daemon=True).start()
        code = _run(request["argv"])
    except KeyboardInterrupt:       # Ctrl-C outside main's own handling (just before or after it): as in process
        print("bioaccel: interrupted", file=sys.stderr)
        code = 130
    seconds = time.perf_counter() - started
    _release_streams()
    _finished.set()                 # the client's hang-up after the status is no signal to the run
    try:
        conn.sendall(STATUS.pack(code))
    except OSError:
        pass
    # then the server forks the next spare (its loading would compete with the client's last steps)
    os.write(notify_w, DONE)
    _log_to(log, f"status {code} after {seconds:.3f} s")
    os._exit(code)


def _release_streams() -> None:
    """Point descriptors 0-2 at /dev/null once the run's output is out: this process's copies of the
    client's streams closed before its status, so that whoever reads the client's output through a pipe
    sees its end when the client exits, not when this process has finished exiting (a run's exit, its
    memory given back, took 55-75 ms here: every served command in a pipe or a bench waited for it)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.close(null)


def _decline(conn, notify_w: int) -> None:
    os.write(notify_w, DONE)
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

    from .main import run_command

    code, interrupted = run_command(argv)
    if not interrupted:
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:
            pass
    return code
