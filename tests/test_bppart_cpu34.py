"""BPPart on the CPU, issue 27's CPU goal (bppring, stop 49): the ``queued`` fill with QI, QX, R and AUX0
in rings of columns (:func:`bioaccel.interact._partition_blocked_queue.ring_tables`), the same bits as
its whole tables, and the task order's waits that keep a ring's slot until every reader is done."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.interact._partition_band_cross import wide_vectors
from bioaccel.runtime.parallel import task_queue, threads
from test_bppart import _close, nan_table_cases, random_rna


def _readers(a0, a1, M):
    """The tasks that read QI's and R's matrix of [a0, a1) (its own column) and QX's and AUX0's (its own
    column and the next), as _partition_blocked._interval reads them."""
    same = {(x, a1) for x in range(a0)}                   # QI as the split's right operand / Qin, R's sums
    nxt = {(x, a1 + 1) for x in range(a0)} if a1 < M else set()   # AUX0's sums, QX as Xin
    return same | nxt


@pytest.mark.parametrize("workers", [1, 2, 3, 5])
@pytest.mark.parametrize("M", [4, 11, 23])
def test_a_ring_slot_is_taken_only_after_its_last_reader(workers, M):
    """With :func:`ring_columns`' rings, every task that writes a slot has among its dependencies' closure
    the slot's previous writer and each task that reads what that one wrote; every dependency is numbered
    below its task (no deadlock)."""
    from bioaccel.interact._partition_blocked_queue import interval_order, ring_columns, ring_index

    columns = ring_columns(M, workers)
    order, dep_start, deps = interval_order(M, workers, columns)
    index = ring_index(M, columns)
    tasks = [tuple(x) for x in order.tolist()]
    number = {task: k for k, task in enumerate(tasks)}
    closure, last_writer = [], {}
    for k, (a0, a1) in enumerate(tasks):
        mine = deps[dep_start[k]:dep_start[k + 1]].tolist()
        assert all(d < k for d in mine)
        closure.append(set(mine).union(*(closure[d] for d in mine)))
    for a1 in range(1, M + 1):             # slots by column: a column's writers after the earlier ones'
        for a0 in range(a1):
            slot = index[a0, a1]
            if slot in last_writer:
                before = last_writer[slot]
                needed = {number[before]} | {number[r] for r in _readers(*before, M)}
                assert needed <= closure[number[a0, a1]], ((a0, a1), before)
            last_writer[slot] = (a0, a1)


@pytest.mark.parametrize("M, columns", [(1, 2), (3, 2), (23, 3), (9, 4)])
def test_ring_index_gives_a_column_its_own_slots(M, columns):
    """A column's intervals in distinct slots, below :func:`ring_slots`, shared only with the column
    ``columns`` on; the empty intervals after them, each its own; ``columns`` 0 is the interval index."""
    from bioaccel.interact._partition_blocked_queue import ring_index, ring_slots
    from bioaccel.interact._partition_cpu import interval_index

    index = ring_index(M, columns)
    slots = {a1: {int(index[a0, a1]) for a0 in range(a1)} for a1 in range(1, M + 1)}
    empty = {int(index[i, i]) for i in range(M + 1)}
    assert len(empty) == M + 1 and max(empty) < ring_slots(M, columns)
    for a1 in range(1, M + 1):
        assert len(slots[a1]) == a1 and not slots[a1] & empty
        for b1 in range(a1 + 1, min(a1 + columns, M + 1)):
            assert not slots[a1] & slots[b1]
    assert np.array_equal(ring_index(M, 0), interval_index(M))


PARAMS = [PartitionParams(), PartitionParams(au=2.0, gu=0.0)]


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("params", PARAMS, ids=["default weights", "AU 2, no GU"])
def test_ring_tables_equal_whole_tables_bit_for_bit(count, params):
    """The rings against stop 48's whole aligned tables (and stop 47's tiles on the rings): == logs on one
    thread and two, around the tiles' edges, the rings' sizes, and at 23 x 50 and 23 x 100."""
    from bioaccel.interact._partition_blocked_queue import SKIP_ZEROS, aligned_tables, fill_partition_queued, ring_tables

    rng = random.Random(49)
    weights = params.weights()
    lengths = [(1, 1), (2, 3), (3, 17), (4, 16), (5, 101), (6, 70), (9, 47), (12, 9), (23, 50), (23, 100)]
    lengths += [(rng.randint(1, 16), rng.randint(1, 40)) for _ in range(6)]
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for M, N in lengths:
            a, rb = encode(random_rna(rng, M)), np.ascontiguousarray(encode(random_rna(rng, N)))
            whole = fill_partition_queued(a, rb, weights, 0.3, 0.2, SKIP_ZEROS, aligned_tables)
            assert fill_partition_queued(a, rb, weights, 0.3, 0.2, SKIP_ZEROS, ring_tables) == whole, (M, N)
            assert fill_partition_queued(a, rb, weights, 0.3, 0.2, True, ring_tables) == whole, (M, N)


def test_ring_tables_read_only_what_the_fill_wrote():
    """Ring tables full of NaN before the fill give the matrices variant's logs (1e-12 relative), empty
    strands included, serial and with 2 and 4 workers (more than the threads: a worker finding the
    queue empty ends)."""
    from bioaccel.interact._partition_blocked_queue import (SKIP_ZEROS, _fill_queued_parallel, _fill_queued_serial,
                                                            interval_order, ring_columns, ring_index, ring_tables)

    weights = PartitionParams().weights()
    wide = SKIP_ZEROS if wide_vectors() else False
    for M, N, a, rb, expected in nan_table_cases(61, 8):
        for fill, workers in ((_fill_queued_serial, 1), (_fill_queued_parallel, 2), (_fill_queued_parallel, 4)):
            columns = ring_columns(M, workers)
            order, dep_start, deps = interval_order(M, workers, columns)
            got = fill(a, rb, weights, 0.4, 0.6, *ring_tables(M, N, np.nan, columns), ring_index(M, columns), wide,
                       task_queue(dep_start, deps), order, workers)
            _close([float(x) for x in got], expected, 1e-12)


@pytest.mark.parametrize("M, N, columns", [(0, 0, 2), (1, 1, 2), (2, 20, 3), (23, 100, 3), (5, 101, 2)])
def test_ring_tables_are_apart_on_pages(M, N, columns):
    """QI, QX, R and AUX0 of ring_slots' matrices, QIac, QF and T0 whole (blocked_tables' shape), each
    C-contiguous from a page's start, none overlapping; ``value`` fills them."""
    from bioaccel.interact._partition_blocked import blocked_tables
    from bioaccel.interact._partition_blocked_queue import PAGE, ring_slots, ring_tables

    tables = ring_tables(M, N, columns=columns)
    whole = blocked_tables(M, N)[0].shape
    ring = (ring_slots(M, columns),) + whole[1:]
    assert [t.shape for t in tables] == [ring, ring, whole, whole, ring, whole, ring]
    assert all(t.flags.c_contiguous and t.ctypes.data % PAGE == 0 for t in tables)
    spans = sorted((t.ctypes.data, t.ctypes.data + t.nbytes) for t in tables)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))
    assert all(np.isnan(t).all() for t in ring_tables(M, N, np.nan, columns))
