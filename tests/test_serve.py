"""``bioaccel serve``: commands through the warm server write what they write in their own process, byte
for byte (parallel kernels run in processes forked from it, several times in a row), with standard input,
exit statuses, one-line errors, Ctrl-C and a killed client handled as in process; without a server, with
a stale socket or another Numba setting, a command runs in its own process."""
import contextlib
import glob
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
EXAMPLES = os.path.join(ROOT, "examples")
SRC = os.path.join(ROOT, "src")
FOLD = ["fold", os.path.join(EXAMPLES, "rnas.fa")]
SCAN = ["scan", os.path.join(EXAMPLES, "motifs.meme"), os.path.join(EXAMPLES, "sars-cov-2.fasta")]


def command(argv, env, **kwargs):
    return subprocess.run([sys.executable, "-m", "bioaccel", *argv], env=env, capture_output=True, cwd=ROOT,
                          **kwargs)


def served_runs(env) -> list:
    """The log's lines of the runs the server took."""
    lines = []
    for log in glob.glob(os.path.join(env["BIOACCEL_CACHE_DIR"], "serve", "*.log")):
        lines += [line for line in open(log) if "] runs " in line]
    return lines


def stop(env):
    command(["serve", "--stop"], env)
    for pid_file in glob.glob(os.path.join(env["BIOACCEL_CACHE_DIR"], "serve", "*.pid")):
        try:                               # --stop failed: never leave a server behind
            os.kill(int(open(pid_file).read()), signal.SIGKILL)
        except (OSError, ValueError):
            pass


@contextlib.contextmanager
def environment():
    """A short cache root of its own (a Unix socket's path is at most 107 bytes), this tree's source;
    every server started under it stopped at the end, whatever happened."""
    folder = tempfile.mkdtemp(prefix="bs-", dir="/tmp")
    environ = dict(os.environ, BIOACCEL_CACHE_DIR=folder, PYTHONPATH=SRC)
    environ.pop("BIOACCEL_NO_SERVER", None)
    try:
        yield environ
    finally:
        stop(environ)
        shutil.rmtree(folder, ignore_errors=True)


def start(environ):
    started = command(["serve", "--idle", "10"], environ)
    assert started.returncode == 0, started.stderr.decode()
    assert b"listening on" in started.stdout
    return environ


@pytest.fixture
def env():
    with environment() as environ:
        yield environ


@pytest.fixture
def server(env):
    """A server of this test's own (the tests that stop or kill it)."""
    return start(env)


@pytest.fixture(scope="module")
def shared():
    """One server for the tests that only run commands through it (a start costs 2-4 s here)."""
    with environment() as environ:
        yield start(environ)


def in_process(env):
    return dict(env, BIOACCEL_NO_SERVER="1")


def test_scan_and_fold_through_the_server_equal_in_process_byte_for_byte(shared):
    server, before = shared, len(served_runs(shared))
    expected = {name: command(argv, in_process(server)) for name, argv in (("scan", SCAN), ("fold", FOLD))}
    for name in expected:
        assert expected[name].returncode == 0 and expected[name].stdout, expected[name].stderr.decode()
    for _ in range(3):                     # a fresh spare each time: parallel kernels in forked processes
        for name, argv in (("scan", SCAN), ("fold", FOLD)):
            got = command(argv, server)
            assert (got.returncode, got.stdout, got.stderr) == \
                (0, expected[name].stdout, expected[name].stderr), name
    assert len(served_runs(server)) == before + 6          # and BIOACCEL_NO_SERVER's ran in process


def test_standard_input_exit_status_and_one_line_error_through_the_server(shared):
    server, before = shared, len(served_runs(shared))
    fasta = b">hairpin\nGGGGAAAACCCC\n"
    piped = command(["fold", "-"], server, input=fasta)
    assert piped.returncode == 0 and piped.stdout == command(["fold", "-"], in_process(server), input=fasta).stdout
    assert b"((((....))))" in piped.stdout
    bad = command(["fold", "/nonexistent/x.fa"], server)
    alone = command(["fold", "/nonexistent/x.fa"], in_process(server))
    assert (bad.returncode, bad.stdout, bad.stderr) == (2, b"", alone.stderr)
    assert bad.stderr.count(b"\n") == 1 and b"Traceback" not in bad.stderr
    assert len(served_runs(server)) == before + 2


def test_another_numba_setting_or_python_option_runs_in_process(shared):
    server, before = shared, len(served_runs(shared))
    expected = command(FOLD, in_process(server)).stdout
    assert command(FOLD, dict(server, NUMBA_NUM_THREADS="1")).stdout == expected
    assert subprocess.run([sys.executable, "-X", "importtime", "-m", "bioaccel", *FOLD], env=server,
                          capture_output=True, cwd=ROOT).stdout == expected
    assert len(served_runs(server)) == before


def test_two_commands_at_once_each_get_a_process(shared):
    before = len(served_runs(shared))
    clients = [subprocess.Popen([sys.executable, "-m", "bioaccel", *FOLD], env=shared, cwd=ROOT,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE) for _ in range(2)]
    outputs = [client.communicate(timeout=60) for client in clients]
    expected = open(os.path.join(EXAMPLES, "rnas-structures.txt"), "rb").read()
    assert [client.returncode for client in clients] == [0, 0]
    assert [out for out, _ in outputs] == [expected, expected]
    assert len(served_runs(shared)) == before + 2


def test_the_client_loads_nothing_heavy(shared):
    server = shared
    code = ("import sys, os; from bioaccel.cli.serve_client import served; "
            f"status = served({FOLD!r}); "
            "print(status, [m for m in ('numpy', 'numba', 'cupy', 'dask') if m in sys.modules], file=sys.stderr)")
    run = subprocess.run([sys.executable, "-c", code], env=server, capture_output=True, cwd=ROOT)
    assert run.stderr.decode().strip() == "0 []"
    assert run.stdout == command(FOLD, in_process(server)).stdout


def test_a_stale_socket_is_ignored(env):
    code = "from bioaccel.cli.serve_client import socket_path; print(socket_path())"
    path = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True).stdout.strip()
    os.makedirs(os.path.dirname(path), mode=0o700)
    stale = socket.socket(socket.AF_UNIX)
    stale.bind(path)                       # bound, never listening, closed: as a server killed -9 leaves it
    stale.close()
    run = command(FOLD, env)
    assert run.returncode == 0 and run.stdout == open(os.path.join(EXAMPLES, "rnas-structures.txt"), "rb").read()


def test_a_first_start_slower_than_two_minutes_waits_and_says_why(monkeypatch):
    """A fresh install's first start compiles the rehearsed kernels (2-3 minutes on 2 cores): the start
    waits for it past the 120 s it once gave up at, and says why once, after a few seconds."""
    from types import SimpleNamespace

    from bioaccel.cli import serve

    clock = [0.0]
    monkeypatch.setattr(serve, "time", SimpleNamespace(monotonic=lambda: clock[0],
                                                       sleep=lambda s: clock.__setitem__(0, clock[0] + 1.0)))
    monkeypatch.setenv("BIOACCEL_CACHE_DIR", tempfile.mkdtemp(prefix="bs-", dir="/tmp"))
    started = SimpleNamespace(pid=4242, poll=lambda: None, kill=lambda: None)
    monkeypatch.setattr(serve.subprocess, "Popen", lambda *args, **kwargs: started)
    # ready (the pid file names it) at 200 s of the fake clock
    monkeypatch.setattr(serve, "_server_pid", lambda pid_path: 4242 if clock[0] >= 200 else None)
    notices = []
    try:
        assert serve.start_server(60, notice=notices.append)[::2] == (4242, True)
    finally:
        shutil.rmtree(os.environ["BIOACCEL_CACHE_DIR"], ignore_errors=True)
    assert notices == [serve.FIRST_START] and clock[0] == 200


def test_ctrl_c_reaches_the_run_and_a_killed_client_leaves_no_run(shared, tmp_path):
    server = shared
    long = tmp_path / "long.fa"
    long.write_text(">long\n" + "".join("ACGU"[(i * 7 + i // 3) % 4] for i in range(3000)) + "\n")
    for how in ("interrupt", "kill"):
        before = len(served_runs(server))
        client = subprocess.Popen([sys.executable, "-m", "bioaccel", "fold", str(long)], env=server,
                                  stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=ROOT)
        deadline = time.monotonic() + 30
        while len(served_runs(server)) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        run_pid = int(served_runs(server)[-1].split("[")[1].split("]")[0])
        time.sleep(0.3)                    # into the fold (a Ctrl-C before it starts is "bioaccel: interrupted")
        client.send_signal(signal.SIGINT if how == "interrupt" else signal.SIGKILL)
        out, err = client.communicate(timeout=20)
        if how == "interrupt":
            assert client.returncode == 130 and err.strip() in (b"bioaccel fold: interrupted",
                                                                b"bioaccel: interrupted"), err
        deadline = time.monotonic() + 15
        while time.monotonic() < deadline and os.path.exists(f"/proc/{run_pid}") and \
                b"Z" not in open(f"/proc/{run_pid}/stat", "rb").read().split()[2]:
            time.sleep(0.05)
        assert not os.path.exists(f"/proc/{run_pid}") or \
            open(f"/proc/{run_pid}/stat", "rb").read().split()[2] == b"Z", how


def children(pid: int) -> list:
    """The processes whose parent is ``pid``."""
    found = []
    for name in os.listdir("/proc"):
        try:
            if name.isdigit() and int(open(f"/proc/{name}/stat").read().rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(name))
        except (OSError, IndexError, ValueError):
            pass
    return found


def settled_children(pid: int, count: int = 1, seconds: float = 10.0) -> list:
    """:func:`children` once there are ``count`` of them (or after ``seconds``): a run that has just
    ended may still be a child, not yet reaped, beside the spare the server forked after it."""
    deadline = time.monotonic() + seconds
    found = children(pid)
    while len(found) != count and time.monotonic() < deadline:
        time.sleep(0.05)
        found = children(pid)
    return found


def gone(pids, seconds=10.0) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not any(os.path.exists(f"/proc/{pid}") and b" Z " not in open(f"/proc/{pid}/stat", "rb").read()
                   for pid in pids):
            return True
        time.sleep(0.05)
    return False


def test_stop_status_and_the_help(server):
    status = command(["serve", "--status"], server)
    assert b"(this bioaccel tree's)" in status.stdout
    assert command(["serve"], server).stdout.startswith(b"bioaccel serve: already listening")
    pid = int(open(glob.glob(os.path.join(server["BIOACCEL_CACHE_DIR"], "serve", "*.pid"))[0]).read())
    spares = settled_children(pid)
    assert len(spares) == 1                # one spare waits for the next request
    assert command(["serve", "--stop"], server).stdout.strip() == b"bioaccel serve: stopped 1 server"
    assert gone([pid] + spares)            # the spare ends with its server
    assert command(["serve", "--status"], server).stdout.strip() == b"bioaccel serve: no server is listening"
    assert glob.glob(os.path.join(server["BIOACCEL_CACHE_DIR"], "serve", "*.sock")) == []
    assert command(FOLD, server).returncode == 0 and served_runs(server) == []
    started = command(["serve"], server)   # a server killed outright takes its spare with it
    pid = int(started.stdout.split(b"(process ")[1].split(b")")[0])
    spares = settled_children(pid)
    os.kill(pid, signal.SIGKILL)
    assert spares and gone([pid] + spares)
    helped = command(["--help"], server)
    assert helped.returncode == 0 and b"serve" in helped.stdout


KERNELS = '''
import numpy as np
from numba import njit, prange


@njit(parallel=True, cache=True)
def inner(a):
    total = 0.0
    for i in prange(a.size):
        total += a[i]
    return total


@njit(cache=True)
def serial(a):
    return inner(a)


@njit(cache=True)
def other(a):
    return a[0]


@njit(cache=True)
def outer(a):                # as scan/_coarse's _coarse_tails_wide: a serial callee of a parallel kernel, and another
    return serial(a) + other(a)
'''

WARM = '''
import sys
import kernels
from bioaccel.cli import serve_warm

serve_warm._dispatchers = lambda: [kernels.outer, kernels.other, kernels.serial, kernels.inner]
for name in ("outer", "serial", "other", "inner"):
    dispatcher = getattr(kernels, name)
    index = dispatcher._cache._cache_file._load_index()
    print(name, all(serve_warm._names_threading_layer(serve_warm._data(dispatcher._cache, data))
                    for data in index.values()))
import builtins, collections
opened, real_open = collections.Counter(), builtins.open
def counting_open(path, *args, **kwargs):
    if str(path).endswith((".nbi", ".nbc")):
        opened[str(path)] += 1
    return real_open(path, *args, **kwargs)
builtins.open = counting_open
print("loaded", serve_warm.load_cached_kernels(parallel=False), serve_warm.threads_started())
builtins.open = real_open
print("opened", max(opened.values()))      # each index and data file read once
'''


def test_a_serial_kernel_calling_a_parallel_one_is_left_to_the_spare(tmp_path):
    """A kernel that is not parallel but calls a parallel one names the threading layer's symbols in its
    cached machine code: the server (threading layer not started) must not try to load it, or the next
    kernel loaded makes LLVM abort the whole process ("Symbol not found: allocate_sched", status -6: the
    server ended as it started; seen with scan/_coarse's kernels in a full suite's cache)."""
    (tmp_path / "kernels.py").write_text(KERNELS)
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"),
           "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    compiled = subprocess.run([sys.executable, "-c", "import numpy, kernels; a = numpy.ones(8); print(kernels.outer(a))"],
                              env=env, capture_output=True, text=True, timeout=300)
    assert compiled.stdout.strip() == "9.0", compiled.stderr
    warm = subprocess.run([sys.executable, "-c", WARM], env=env, capture_output=True, text=True, timeout=300)
    assert warm.returncode == 0, warm.stderr
    assert warm.stdout.split() == ["outer", "True", "serial", "True", "other", "False", "inner", "True",
                                   "loaded", "1", "False", "opened", "1"]   # only `other` loaded, no thread started


RESERVE = """
import threading
import numpy as np
from bioaccel.cli.serve_warm import reserve_memory

print(reserve_memory(64 << 20))
found = {}
worker = threading.Thread(target=lambda: found.update(address=np.zeros(4 << 20).ctypes.data))   # 32 MiB
worker.start()
worker.join()
heaps = [line.split()[0].split("-") for line in open("/proc/self/maps") if line.rstrip().endswith("[heap]")]
print(any(int(lo, 16) <= found["address"] < int(hi, 16) for lo, hi in heaps))
"""


def test_a_spare_reserves_memory_that_its_run_reuses():
    """A spare touches memory ahead of its run (page faults cost 0.1-0.3 s for BPPart's 196 MB of tables
    at 23 x 100 nt on the development machine): a later large array, even one a worker thread allocates
    (as the commands run), lies in the heap those pages are in, not in a fresh mapping."""
    done = subprocess.run([sys.executable, "-c", RESERVE], env=dict(os.environ, PYTHONPATH=SRC),
                          capture_output=True, text=True, timeout=120)
    assert done.stdout.split() == [str(64 << 20), "True"], done.stderr


def test_every_rehearsal_runs():
    """A spare's rehearsals (serve_warm.REHEARSALS) are commands that succeed: one that failed (an option
    renamed) would be skipped silently, and served runs of that command would pay their first touches
    again."""
    from bioaccel.cli.serve_warm import REHEARSALS, rehearse

    assert REHEARSALS and rehearse() == len(REHEARSALS)
