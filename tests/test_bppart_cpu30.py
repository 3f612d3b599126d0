"""BPPart on the CPU, issue 27's CPU goal (bppcpu, stop 47): the ``queued`` variant (the blocked fill's
query intervals from a task queue by columns) against ``blocked``, bit for bit, and its order of tasks."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.interact._partition import partition_logs
from bioaccel.runtime.parallel import task_queue, threads
from test_bppart import _close, nan_table_cases, random_rna


@pytest.mark.parametrize("workers", [1, 2, 3, 5])
def test_interval_order_is_every_interval_once_after_all_it_reads(workers):
    """Each non-empty query interval is one task; every interval [a0, a1) reads (its split points' [a0, c)
    and [c, a1), QIe's interior, QIm's last term) is a task before it and among its dependencies'
    closure; each dependency is numbered below the task (so the queue cannot deadlock)."""
    from bioaccel.interact._partition_blocked_queue import interval_order

    M = 11
    order, dep_start, deps = interval_order(M, workers)
    tasks = [tuple(x) for x in order.tolist()]
    assert sorted(tasks) == sorted((a0, a1) for a1 in range(1, M + 1) for a0 in range(a1))
    closure = []
    for k, (a0, a1) in enumerate(tasks):
        mine = deps[dep_start[k]:dep_start[k + 1]].tolist()
        assert all(d < k for d in mine)
        closure.append(set(mine).union(*(closure[d] for d in mine)))
        reads = {(a0, c) for c in range(a0 + 1, a1)} | {(c, a1) for c in range(a0 + 1, a1)}
        reads |= {(a0 + 1, a1 - 1)} if a1 - a0 >= 3 else set()
        assert {tasks.index(r) for r in reads} <= closure[k]


def test_interval_order_by_columns():
    """One worker: column after column, each from its shortest interval down. Two: the columns of a group
    interleaved, so that most claims in a row are of different columns (each worker on a column)."""
    from bioaccel.interact._partition_blocked_queue import interval_order

    one = [tuple(x) for x in interval_order(6, 1)[0].tolist()]
    assert one == [(a0, a1) for a1 in range(1, 7) for a0 in range(a1 - 1, -1, -1)]
    two = interval_order(23, 2)[0]
    same = sum(two[k, 1] == two[k + 1, 1] for k in range(len(two) - 1))
    assert same < len(two) // 4


@pytest.mark.parametrize("count", [1, 2])
def test_queued_equals_blocked_bit_for_bit(count):
    """The same intervals with the same sums in the same order: == logs, on one thread and on two, at
    lengths around the tiles' edges and at 23 x 100."""
    rng = random.Random(47)
    params = PartitionParams()
    lengths = [(1, 1), (2, 3), (23, 100), (6, 70), (5, 101), (9, 47), (12, 9)]
    lengths += [(rng.randint(1, 14), rng.randint(1, 40)) for _ in range(6)]
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for M, N in lengths:
            a, rb = encode(random_rna(rng, M)), np.ascontiguousarray(encode(random_rna(rng, N)))
            assert partition_logs(a, rb, params, "queued") == partition_logs(a, rb, params, "blocked")


@pytest.mark.parametrize("wide", [True, False], ids=["eight-lane tiles", "four-lane tiles"])
def test_queued_fill_reads_only_what_it_wrote(wide):
    """Tables full of NaN before the queued fill give the matrices variant's logs, empty strands included,
    in its serial copy and its parallel one with more workers than Numba's threads asked for (a worker
    that finds the queue empty ends)."""
    from bioaccel.interact._partition_blocked import blocked_tables
    from bioaccel.interact._partition_blocked_queue import _fill_queued_parallel, _fill_queued_serial, interval_order

    weights = PartitionParams().weights()
    for M, N, a, rb, expected in nan_table_cases(53, 12):
        for fill, workers in ((_fill_queued_serial, 1), (_fill_queued_parallel, 1), (_fill_queued_parallel, 2),
                              (_fill_queued_parallel, 4)):
            order, dep_start, deps = interval_order(M, workers)
            got = fill(a, rb, weights, 0.4, 0.6, *blocked_tables(M, N, np.nan), wide, task_queue(dep_start, deps),
                       order, workers, True, False)   # every argument, as production passes them: one compile
            _close([float(x) for x in got], expected, 1e-12)


def test_a_served_command_starts_without_heavy_standard_modules():
    """What a command through the warm server imports before it connects (bioaccel.cli.main, the client,
    the tree key) loads neither json, socket's wrappers, hashlib (OpenSSL) nor argparse: together 10 ms of
    every served command's start before (bppcpu, stop 47)."""
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    code = (f"import sys; sys.path.insert(0, {src!r}); import bioaccel.cli.main; "
            "from bioaccel.cli.serve_client import tree_key, request; tree_key(); request(['interact']); "
            "print(' '.join(m for m in ('json', 'socket', 'hashlib', 'argparse') if m in sys.modules))")
    done = subprocess.run([sys.executable, "-S", "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.split() == []


def test_a_run_releases_the_clients_streams_before_its_status(tmp_path):
    """A served run points its descriptors 0-2 at /dev/null once its output is out (before the status):
    a pipe reading the client's output then ends when the client exits, not 55-75 ms later when the
    run's process has finished exiting. Checked in a child process (the descriptors are its own): what
    it printed before is in the pipe, what after is not, and its 0-2 are /dev/null."""
    import subprocess
    import sys
    from pathlib import Path

    src = str(Path(__file__).resolve().parents[1] / "src")
    found = tmp_path / "fds.txt"
    code = (f"import os, sys; sys.path.insert(0, {src!r}); print('out'); "
            "from bioaccel.cli.serve_process import _release_streams; _release_streams(); print('lost'); "
            f"open({str(found)!r}, 'w').write(' '.join(os.readlink(f'/proc/self/fd/{{fd}}') for fd in (0, 1, 2)))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout == "out\n" and found.read_text().split() == ["/dev/null"] * 3
