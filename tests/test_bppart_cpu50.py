"""BPPart on the CPU, issue 27's CPU goal (bpppair, stop 50): the ``queued`` fill's query intervals two a task
(``tasks="pairs"``, in turn; ``tasks="shared"``, their double sums' left matrices shared:
:mod:`bioaccel.interact._partition_blocked_pair`), the same bits as one a task (``tasks="single"``): logs and
all seven tables; the pairs' queue covers every interval once, after its needs."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact._partition_band_cross import wide_vectors
from bioaccel.runtime.parallel import task_queue, threads
from test_bppart_cpu35 import _random_strand, _weights
from test_bppart_cpu36 import fill_cases


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("kind", ["default", "bpmax", "gu0", "au0"])
def test_pairs_equal_single_tasks_bit_for_bit(count, kind):
    """tasks="pairs" and "shared" against tasks="single": == logs at sizes from 1 x 1 to 23 x 101, some with N
    letters, at two scales, with either tiles (INLINE, SKIP_ZEROS), on one thread and two (the rows called too)."""
    from bioaccel.interact._partition_blocked_queue import fill_partition_queued

    weights = _weights(kind)
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for i, M, N, a, rb, c1, c2, tiles in fill_cases(50 + count):
            old = fill_partition_queued(a, rb, weights, c1, c2, tiles, tasks="single")
            assert fill_partition_queued(a, rb, weights, c1, c2, tiles, tasks="shared") == old, (M, N, kind)
            assert fill_partition_queued(a, rb, weights, c1, c2, tiles, tasks="pairs") == old, (M, N, kind)
            if i % 4 == 1:
                assert fill_partition_queued(a, rb, weights, c1, c2, tiles, rows="called", tasks="pairs") == old


@pytest.mark.parametrize("wide", [True, False], ids=["eight-lane tiles", "four-lane tiles"])
def test_pairs_write_the_same_tables(wide):
    """Every cell of the seven tables (zeroed before) the same bits, serial and with two workers, with the
    eight-lane inlined tiles (where the CPU has AVX-512) and the four-lane ones."""
    from bioaccel.interact._partition_blocked_pair import pair_order
    from bioaccel.interact._partition_blocked_queue import (_fill_queued_parallel, _fill_queued_serial,
                                                            aligned_tables, interval_order)
    from bioaccel.interact._partition_blocked_split import INLINE

    tiles = INLINE if wide and wide_vectors() else False
    rng = random.Random(50)
    for M, N in [(1, 1), (2, 9), (5, 17), (9, 40), (14, 33)]:
        a = encode(_random_strand(rng, M, False))
        rb = np.ascontiguousarray(encode(_random_strand(rng, N, True)))
        for fill, workers in ((_fill_queued_serial, 1), (_fill_queued_parallel, 2)):
            tables = {}
            for form, order_of, shared in (("single", interval_order, False), ("pairs", pair_order, False),
                                           ("shared", pair_order, True)):
                order, dep_start, deps = order_of(M, workers)
                tables[form] = aligned_tables(M, N, 0.0)
                fill(a, rb, _weights("default"), 0.4, 0.6, *tables[form], tiles, task_queue(dep_start, deps),
                     order, workers, True, shared)
            for form in ("pairs", "shared"):
                for old, new in zip(tables["single"], tables[form]):
                    assert np.array_equal(old.view(np.uint64), new.view(np.uint64)), (M, N, workers, form)


@pytest.mark.parametrize("M", [1, 2, 3, 4, 7, 22, 23])
@pytest.mark.parametrize("workers", [1, 2, 3])
@pytest.mark.parametrize("columns", [2, 3])
def test_pair_order_covers_every_interval_after_its_needs(M, workers, columns):
    """Every non-empty query interval in one task; each task's dependencies earlier in the order and among
    them the tasks of [a0, e - 1) and [a0 + 1, e) for each of its intervals but its own."""
    from bioaccel.interact._partition_blocked_pair import pair_order

    order, dep_start, deps = pair_order(M, workers, 8, columns)
    where = {}
    for k, (a0, a1, width) in enumerate(order.tolist()):
        assert 1 <= width <= columns and a1 + width - 1 <= M
        for e in range(a1, a1 + width):
            assert (a0, e) not in where
            where[a0, e] = k
    assert set(where) == {(i, j) for i in range(M) for j in range(i + 1, M + 1)}
    for k, (a0, a1, width) in enumerate(order.tolist()):
        mine = set(deps[dep_start[k]:dep_start[k + 1]].tolist())
        assert all(d < k for d in mine)
        for e in range(a1, a1 + width):
            for d in ((a0, e - 1), (a0 + 1, e)):
                if d[0] < d[1] and where[d] != k:
                    assert where[d] in mine


def test_tasks_form_is_checked():
    """tasks names one of the three forms; shared only with the inlined rows."""
    from bioaccel.interact._partition_blocked_queue import fill_partition_queued

    for tasks, rows in (("triples", "inline"), ("shared", "called")):
        with pytest.raises(ValueError, match="tasks"):
            fill_partition_queued(encode("G"), encode("C"), _weights("default"), 0.0, 0.0, rows=rows, tasks=tasks)
