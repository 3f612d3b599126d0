"""``bioaccel serve``: start, stop or ask about the warm command server.

Many small runs (a scan of 200 matrices over 1 Mb takes 0.2 s of work and about 0.8 s of Python's
start, imports and Numba's loading) pay their fixed costs once: ``bioaccel serve`` starts a process in
the background that has imported bioaccel, NumPy and Numba and loaded the CPU kernels from Numba's
cache (:mod:`.serve_process`); from then on every ``bioaccel`` command of this user, this Python and
this bioaccel tree hands its command line, folder, environment and standard streams to it
(:mod:`.serve_client`) and a process forked from it runs the command. Nothing changes for a command
when no server runs, and commands that use a GPU or Dask always run in their own process.
``bioaccel serve --stop`` stops the servers under the cache root; a server also ends on its own after
``--idle`` minutes without a request.
"""
import os
import signal
import socket
import subprocess
import sys
import time

from ..errors import BioaccelError
from .serve_client import server_folder, socket_path

#: Seconds ``bioaccel serve`` waits for a new server to be ready (imports, kernels loaded, a spare's
#: rehearsals run). Warm, a start takes 2-4 s; the first start after an install compiles the rehearsed
#: kernels into Numba's cache, which took 2-3 minutes on a 2-core machine (a fixed 120 s failed there).
START_TIMEOUT = 1800.0
#: Seconds after which a start still waiting says why (the first start's compiles), once.
NOTICE_AFTER = 5.0
FIRST_START = ("bioaccel serve: waiting for the server: its first start compiles the CPU kernels into Numba's cache, "
               "once (a few minutes on a small machine; later starts take seconds)")


def register(subparsers) -> None:
    """Add ``serve`` to ``subparsers``.

    >>> import argparse
    >>> parser = argparse.ArgumentParser(); register(parser.add_subparsers(dest="command"))
    >>> parser.parse_args(["serve", "--stop"]).stop
    True
    """
    parser = subparsers.add_parser(
        "serve", help="a warm server in the background: many small runs without Python's start each time",
        description="Start a server in the background that has imported bioaccel, NumPy and Numba and "
                    "loaded the CPU kernels; every later bioaccel command of this user, Python and bioaccel "
                    "tree then runs through it (0.5-0.8 s less a command; the same output). Commands with "
                    "--backend gpu, --gpus, --workers or --scheduler run in their own process as before.")
    action = parser.add_mutually_exclusive_group()
    action.add_argument("--stop", action="store_true", help="stop the servers under the cache root")
    action.add_argument("--status", action="store_true", help="say which servers are listening")
    parser.add_argument("--idle", type=float, default=60.0, metavar="MINUTES",
                        help="the server ends after this many minutes without a request (default 60)")
    parser.set_defaults(run=run, stands_alone=True)


def run(args, stdout, stderr) -> int:
    """The ``serve`` subcommand: start (the default), ``--stop`` or ``--status``.

    >>> import argparse, io, tempfile, unittest.mock
    >>> out = io.StringIO()
    >>> with unittest.mock.patch.dict(os.environ, {"BIOACCEL_CACHE_DIR": tempfile.mkdtemp()}):
    ...     run(argparse.Namespace(stop=False, status=True, idle=1), out, out)
    0
    >>> out.getvalue().strip()
    'bioaccel serve: no server is listening'
    """
    if args.stop:
        stopped = stop_servers()
        print(f"bioaccel serve: stopped {stopped} server{'s' * (stopped != 1)}", file=stdout)
        return 0
    if args.status:
        found = servers()
        if not found:
            print("bioaccel serve: no server is listening", file=stdout)
        for pid, sock in found:
            mine = " (this bioaccel tree's)" if sock == socket_path() else " (another tree's or Python's)"
            print(f"bioaccel serve: process {pid} listens on {sock}{mine}", file=stdout)
        return 0
    if not args.idle > 0:
        raise BioaccelError(f"idle must be a number of minutes > 0, got {args.idle:g}")
    pid, path, fresh = start_server(args.idle * 60, notice=lambda line: print(line, file=stderr, flush=True))
    said = "listening" if fresh else "already listening"
    print(f"bioaccel serve: {said} on {path} (process {pid}); bioaccel commands of this tree run through "
          "it; bioaccel serve --stop stops it", file=stdout)
    return 0


def _folder() -> str:
    """The servers' folder, made private (0700) if new; an error when it is not private."""
    from .serve_client import private

    folder = server_folder()
    os.makedirs(folder, mode=0o700, exist_ok=True)
    if not private(folder):
        raise BioaccelError(f"{folder} must be a folder of yours that nobody else may enter (mode 0700)")
    return folder


def listening(path: str) -> bool:
    """Whether a server answers on the socket ``path``.

    >>> listening("/nonexistent.sock")
    False
    """
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)     # the spare takes it, reads nothing and ends; the next one is ready
        return True
    except OSError:
        return False
    finally:
        probe.close()


def _server_pid(pid_path: str):
    """The pid in ``pid_path`` when that process is a bioaccel server, else None."""
    try:
        with open(pid_path) as handle:
            pid = int(handle.read().strip())
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return pid if b"bioaccel.cli.serve_process" in handle.read() else None
    except (OSError, ValueError):
        return None


def servers() -> list:
    """``(pid, socket path)`` of every server listening under the cache root.

    >>> isinstance(servers(), list)
    True
    """
    folder = server_folder()
    if not os.path.isdir(folder):
        return []
    found = []
    for name in sorted(os.listdir(folder)):
        if name.endswith(".pid"):
            pid = _server_pid(os.path.join(folder, name))
            if pid is not None:
                found.append((pid, os.path.join(folder, name[:-len(".pid")] + ".sock")))
    return found


def stop_servers(wait: float = 10.0) -> int:
    """Stop every server under the cache root (SIGTERM; runs under way finish); how many.

    >>> import tempfile, unittest.mock
    >>> with unittest.mock.patch.dict(os.environ, {"BIOACCEL_CACHE_DIR": tempfile.mkdtemp()}):
    ...     stop_servers()
    0
    """
    stopped = 0
    for pid, sock in servers():
        os.kill(pid, signal.SIGTERM)
        stopped += 1
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline and os.path.exists(sock[:-len(".sock")] + ".pid"):
            time.sleep(0.02)
    return stopped


def start_server(idle_seconds: float, notice=lambda line: None) -> tuple:
    """Start this tree's server unless one listens; ``(pid, socket path, started now)``. A start still
    waiting after :data:`NOTICE_AFTER` seconds passes :data:`FIRST_START` to ``notice``, once.

    >>> callable(start_server)
    True
    """
    folder = _folder()
    path = socket_path()
    if len(path.encode()) > 107:
        raise BioaccelError(f"the socket's path {path} is longer than a Unix socket allows (107 bytes): "
                            "set BIOACCEL_CACHE_DIR to a shorter folder")
    pid_path = path[:-len(".sock")] + ".pid"
    pid = _server_pid(pid_path)
    if pid is not None and listening(path):
        return pid, path, False
    for stale in (pid_path, path):
        if os.path.exists(stale):
            os.unlink(stale)
    package_parent = os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
    code = (f"import sys; sys.path[:] = [{package_parent!r}] + [p for p in sys.path if p]; "
            "from bioaccel.cli.serve_process import serve_main; serve_main()")
    with open(os.path.join(folder, os.path.basename(path)[:-len(".sock")] + ".log"), "ab") as log:
        # this interpreter's options (-s, -X ..., -W ...) given to the server too: a client with other
        # options is declined, so a console script started with `python -s` must meet a server that has it
        options = subprocess._args_from_interpreter_flags()
        process = subprocess.Popen([sys.executable, *options, "-c", code, path, repr(idle_seconds)], cwd="/",
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log,
                                   start_new_session=True)
    began = time.monotonic()
    said = False
    while time.monotonic() - began < START_TIMEOUT:
        if _server_pid(pid_path) == process.pid:
            return process.pid, path, True
        if process.poll() is not None:
            raise BioaccelError(f"the server ended as it started (status {process.returncode}): see "
                                f"{log.name}")
        if not said and time.monotonic() - began > NOTICE_AFTER:
            notice(FIRST_START)
            said = True
        time.sleep(0.05)
    process.kill()
    raise BioaccelError(f"the server was not ready in {START_TIMEOUT:.0f} s: see {log.name}")
