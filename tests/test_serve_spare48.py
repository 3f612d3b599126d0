"""A spare's run beyond its fill (bppcpu4, stop 48): its commands on one worker thread kept between
them (the rehearsals warm the thread and its OpenMP team that the run uses), its parser built ahead and
used once, Numba's dispatchers' finalizers left out of its exit, BPPart's interval orders computed in
the server, the client without ``signal``; a served BPPart writes what it writes in process, byte for
byte."""
import os
import subprocess
import sys

from test_serve import SRC, command, environment, in_process, served_runs, start

QUERY = "UAGACAAGCCUUACGGAUCGUCU"
TARGET = "GGAUCCAAGCUUGCAUGCAAUGCCGAUUAGCCAUGCAAUC"   # 23 x 40 nt: a parallel fill


def fasta_pair(folder) -> tuple:
    query, target = os.path.join(folder, "q.fa"), os.path.join(folder, "t.fa")
    with open(query, "w") as handle:
        handle.write(f">q\n{QUERY}\n")
    with open(target, "w") as handle:
        handle.write(f">t\n{TARGET}\n")
    return query, target


KEPT = """
import io, sys, threading
import bioaccel.interact._partition as partition
from bioaccel.cli import main as cli, run_thread

argv = ["interact", {query!r}, {target!r}, "--partition", "--threads", "2"]
alone = io.StringIO()
assert cli.main(argv, stdout=alone, stderr=io.StringIO()) == 0
run_thread.keep_worker()
seen, fill = [], partition.partition_logs

def recorded(*args, **kwargs):
    seen.append(threading.get_ident())
    return fill(*args, **kwargs)

partition.partition_logs = recorded
outputs = []
for _ in range(2):
    out = io.StringIO()
    assert cli.main(argv, stdout=out, stderr=io.StringIO()) == 0
    outputs.append(out.getvalue())
runs = [t for t in threading.enumerate() if t.name == "bioaccel-run"]
print(len(seen), len(set(seen)), seen[0] != threading.get_ident(), len(runs), runs[0].ident == seen[0],
      outputs == [alone.getvalue()] * 2)
"""


def test_a_kept_worker_runs_every_command_on_one_thread(tmp_path):
    """After ``keep_worker``, every ``main`` runs its command on the same worker thread (not the main
    thread, alive between runs), with the output of a run on a thread of its own."""
    query, target = fasta_pair(tmp_path)
    done = subprocess.run([sys.executable, "-c", KEPT.format(query=query, target=target)],
                          env=dict(os.environ, PYTHONPATH=SRC), capture_output=True, text=True, timeout=300)
    assert done.stdout.split() == ["2", "1", "True", "1", "True", "True"], done.stderr


def test_a_prepared_parser_is_used_once(tmp_path):
    """``prepare_parser`` builds a subcommand's parser for its next run, which takes it (the one after
    builds its own), with the same output as without it."""
    import io

    from bioaccel.cli import main as cli

    query, target = fasta_pair(tmp_path)
    argv = ["interact", query, target, "--partition", "--threads", "1"]
    outputs = []
    for prepared in (False, True, False):
        if prepared:
            cli.prepare_parser("interact")
        out = io.StringIO()
        assert cli.main(argv, stdout=out, stderr=io.StringIO()) == 0
        assert "interact" not in cli._prepared
        outputs.append(out.getvalue())
    assert outputs[0] and outputs == [outputs[0]] * 3


FINALIZERS = """
import weakref
from numba.core.dispatcher import Dispatcher
from bioaccel.interact import bppart
from bioaccel.cli.serve_warm import skip_kernel_finalizers

log_z = bppart("GGGAAACCC", "GGGUUUCCC", threads=1)[0].log_z
def kinds():
    return sorted({(isinstance(f.peek()[0], Dispatcher), f.atexit) for f in weakref.finalize._registry if f.peek()})
before = kinds()
weakref.finalize(bppart, print, "others still run at exit")
print(skip_kernel_finalizers() > 0, before, kinds(), round(log_z, 4))
"""


def test_kernel_finalizers_are_left_out_of_the_exit():
    """``skip_kernel_finalizers`` marks Numba's dispatchers' finalizers (and only those) not to run at
    exit; a process that calls it ends as before, its other finalizers run."""
    done = subprocess.run([sys.executable, "-c", FINALIZERS], env=dict(os.environ, PYTHONPATH=SRC),
                          capture_output=True, text=True, timeout=300)
    lines = done.stdout.splitlines()
    assert done.returncode == 0, done.stderr
    assert lines[0].startswith("True [(False, True), (True, True)] [(False, True), (True, False)] ")
    assert lines[1:] == ["others still run at exit"]


def test_the_server_primes_bppart_interval_orders():
    """``prime_caches`` leaves the interval order of every query up to PRIMED_QUERIES nt, on one thread
    and at Numba's default thread count, in its cache (a served run's fill finds it: 1 ms at 23 nt)."""
    from numba import config

    from bioaccel.cli.serve_warm import PRIMED_QUERIES, prime_caches
    from bioaccel.interact._partition_blocked_queue import interval_order

    assert prime_caches() >= PRIMED_QUERIES
    hits = interval_order.cache_info().hits
    for M in (1, 23, PRIMED_QUERIES):
        for workers in (1, config.NUMBA_NUM_THREADS):
            interval_order(M, workers)
    assert interval_order.cache_info().hits == hits + 6


def test_a_served_command_starts_without_signal():
    """What a served command imports before its status (bioaccel.cli.main, the client) leaves out
    ``signal`` (its enums: 0.4 ms of every served command), through the whole client's wait."""
    code = (f"import sys; sys.path.insert(0, {SRC!r}); import bioaccel.cli.main; "
            "from bioaccel.cli.serve_client import tree_key, request, served; tree_key(); request(['interact']); "
            "served(['interact'], {'BIOACCEL_CACHE_DIR': '/nonexistent'}); print('signal' in sys.modules)")
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == ["False"]


def test_a_served_bppart_equals_in_process_byte_for_byte(tmp_path):
    """BPPart through the warm server (its spares' kept thread, prepared parser, primed order, skipped
    finalizers), three times in a row, writes what the command writes in its own process, byte for byte."""
    query, target = fasta_pair(tmp_path)
    argv = ["interact", query, target, "--partition", "--threads", "2"]
    with environment() as env:
        server = start(env)
        expected = command(argv, in_process(server))
        assert expected.returncode == 0 and expected.stdout.count(b"\n") == 2, expected.stderr.decode()
        before = len(served_runs(server))
        for _ in range(3):
            got = command(argv, server)
            assert (got.returncode, got.stdout, got.stderr) == (0, expected.stdout, expected.stderr)
        assert len(served_runs(server)) == before + 3
