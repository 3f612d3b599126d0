"""The client side of the warm server (:mod:`bioaccel.cli.serve`): standard library only, so that a
command that finds no server pays a few milliseconds and loads nothing heavy.

Where: a private folder (mode 0700, owned by this user) ``serve`` under the cache root of the threshold
cache (``$BIOACCEL_CACHE_DIR``, else ``$XDG_CACHE_HOME/bioaccel``, else ``~/.cache/bioaccel``). A server
listens on ``<key>.sock`` there, where the key (:func:`tree_key`) digests this Python (its executable
and version) and this bioaccel (its folder, version, and the names, sizes and times of its files): a
command of another interpreter, another checkout or an edited tree finds no socket and runs in process.

The exchange on one connection: the client sends an 8-byte length with its descriptors 0, 1 and 2
(SCM_RIGHTS), then that many bytes of the request (argv, cwd, environment, the encodings of its
streams) in :mod:`marshal`'s format: client and server are the same Python (the key says so), and
marshal, unlike json, is loaded with the interpreter. The socket is CPython's ``_socket``, which
:mod:`socket` wraps: its enums and helpers took 2.4 ms of every served command's start. The
server answers ``A`` (accepted: a process of its own runs the command on those descriptors) or ``D``
(declined: the client runs the command itself, as it would without a server). While the command runs
the client forwards Ctrl-C and SIGTERM as ``I`` and ``T``; closing the connection (the client killed)
stops the run. The run ends with its exit status as 4 bytes.

``BIOACCEL_NO_SERVER=1`` makes a command run in its own process while a server listens.
"""
import _signal
import _socket
import marshal
import os
import struct
import sys

#: Subcommands a server runs (``serve`` itself, help and version run in process: nothing to gain).
SERVED = ("fold", "interact", "motif", "scan")
#: Options that start CUDA or Dask: such a command runs in process (a server never forks after either).
IN_PROCESS = ("--backend=gpu", "--workers", "--scheduler", "--gpus")
#: Environment variables read when a module is imported or a library starts (Numba's configuration,
#: OpenMP's threads, Python's own): a request whose values differ from the server's is declined.
AT_IMPORT = ("NUMBA_", "OMP_", "KMP_", "MKL_", "OPENBLAS_", "CUDA_", "PYTHON", "BIOACCEL_", "LANG", "LC_")
#: Seconds a client waits for the server to take its request before it runs the command itself.
ACCEPT_TIMEOUT = 60.0
LENGTH = struct.Struct("!Q")
STATUS = struct.Struct("!i")
#: The client's descriptors 0, 1 and 2 as SCM_RIGHTS carries them (C ints)
STANDARD_FDS = struct.pack("3i", 0, 1, 2)


def cache_root(environ=os.environ) -> str:
    """The cache root (the threshold cache's folder: ``$BIOACCEL_CACHE_DIR``, else
    ``$XDG_CACHE_HOME/bioaccel``, else ``~/.cache/bioaccel``).

    >>> cache_root({"BIOACCEL_CACHE_DIR": "/tmp/c"})
    '/tmp/c'
    >>> cache_root({"XDG_CACHE_HOME": "/var/cache/me"})
    '/var/cache/me/bioaccel'
    """
    if environ.get("BIOACCEL_CACHE_DIR"):
        return environ["BIOACCEL_CACHE_DIR"]
    base = environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return os.path.join(base, "bioaccel")


def server_folder(environ=os.environ) -> str:
    """The servers' private folder under :func:`cache_root`.

    >>> server_folder({"BIOACCEL_CACHE_DIR": "/tmp/c"})
    '/tmp/c/serve'
    """
    return os.path.join(cache_root(environ), "serve")


def tree_key() -> str:
    """16 hex digits naming this Python and this bioaccel tree: its folder, version and every file's
    name, size and modification time (an edit makes a new key, so a server never runs stale code).

    >>> key = tree_key(); len(key), key == tree_key()
    (16, True)
    """
    try:
        from _blake2 import blake2b     # hashlib's own blake2b: hashlib's import loads OpenSSL (3.4 ms here)
    except ImportError:
        from hashlib import blake2b

    from .. import __version__

    package = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))
    digest = blake2b(f"{sys.executable}\0{sys.version}\0{package}\0{__version__}".encode(), digest_size=8)
    for folder, subfolders, files in os.walk(package):
        subfolders[:] = sorted(d for d in subfolders if d != "__pycache__")
        for name in sorted(files):
            if not name.endswith((".pyc", ".nbi", ".nbc")):
                stat = os.stat(os.path.join(folder, name))
                digest.update(f"{folder}/{name}\0{stat.st_size}\0{stat.st_mtime_ns}\0".encode())
    return digest.hexdigest()


def private(folder: str) -> bool:
    """Whether ``folder`` is a real folder (not a link) of this user that nobody else may enter.

    >>> import tempfile; private(tempfile.mkdtemp()), private("/")
    (True, False)
    """
    try:
        stat = os.lstat(folder)
    except OSError:
        return False
    import stat as modes

    return modes.S_ISDIR(stat.st_mode) and stat.st_uid == os.getuid() and stat.st_mode & 0o077 == 0


def socket_path(environ=os.environ) -> str:
    """This tree's server socket (it may not exist).

    >>> socket_path({"BIOACCEL_CACHE_DIR": "/tmp/c"}).startswith("/tmp/c/serve/")
    True
    """
    return os.path.join(server_folder(environ), tree_key() + ".sock")


def wants_process(argv: list) -> bool:
    """Whether ``argv`` must run in this process: not a served subcommand, or it starts CUDA or Dask.

    >>> wants_process(["scan", "m.jaspar", "x.fa"]), wants_process(["fold", "--backend", "gpu"])
    (False, True)
    >>> wants_process(["--help"]), wants_process(["interact", "a.fa", "b.fa", "--workers", "2"])
    (True, True)
    """
    if not argv or argv[0] not in SERVED:
        return True
    for word, after in zip(argv, argv[1:] + [""]):
        if word == "--":
            break
        if word == "--backend" and after == "gpu" or word.split("=", 1)[0] in IN_PROCESS \
                or word in IN_PROCESS:
            return True
    return False


def request(argv: list, environ=os.environ) -> bytes:
    """What a client sends (marshal's bytes of a dict): argv, cwd, environment and its streams' encodings.

    >>> marshal.loads(request(["fold"], {"A": "1"}))["argv"]
    ['fold']
    """
    streams = [(getattr(s, "encoding", None), getattr(s, "errors", None)) for s in (sys.stdin, sys.stdout, sys.stderr)]
    return marshal.dumps({"argv": list(argv), "cwd": os.getcwd(), "env": dict(environ), "streams": streams,
                          "python": python_options()})


def python_options() -> list:
    """This interpreter's options (``sys.flags``, ``-W``, ``-X``): a server whose own differ declines.

    >>> python_options() == python_options()
    True
    """
    return [list(sys.flags), list(sys.warnoptions), sorted(map(str, sys._xoptions.items()))]


def served(argv: list, environ=os.environ):
    """Run ``argv`` through this tree's warm server and return its exit status; None when there is no
    server (or it declines): then the caller runs the command itself.

    >>> served(["scan", "m.jaspar", "x.fa"], {"BIOACCEL_CACHE_DIR": "/nonexistent"}) is None
    True
    """
    if wants_process(argv) or environ.get("BIOACCEL_NO_SERVER") or not private(server_folder(environ)):
        return None
    path = socket_path(environ)
    if len(path.encode()) > 107:             # longer than a Unix socket's address can be
        return None
    conn = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        conn.connect(path)
        body = request(argv, environ)
        conn.sendmsg([LENGTH.pack(len(body))], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, STANDARD_FDS)])
        conn.sendall(body)
        conn.settimeout(ACCEPT_TIMEOUT)
        if conn.recv(1) != b"A":
            conn.close()
            return None
        conn.settimeout(None)
    except OSError:                         # no server, a stale socket, a server gone: run in process
        conn.close()
        return None
    return _wait(conn)


def _wait(conn) -> int:
    """The status of the run the server accepted on ``conn``; Ctrl-C and SIGTERM are forwarded."""
    def forward(signum, frame):
        try:
            conn.send(b"I" if signum == _signal.SIGINT else b"T")
        except OSError:
            pass

    for signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP):   # _signal: signal.py's enums cost 0.4 ms
        _signal.signal(signum, forward)
    data = b""
    while len(data) < STATUS.size:
        try:
            chunk = conn.recv(STATUS.size - len(data))
        except OSError:
            chunk = b""
        if not chunk:
            print("bioaccel: the warm server's run ended without an exit status (bioaccel serve --stop "
                  "stops the server)", file=sys.stderr)
            return 70
        data += chunk
    return STATUS.unpack(data)[0]
