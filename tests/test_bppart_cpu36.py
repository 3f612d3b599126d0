"""BPPart on the CPU, issue 27's CPU goal (bppinline, stop 49): the ``queued`` fill's query intervals with
their row functions inlined (``rows="inline"``, ``_partition_blocked._interval_inline``), the same bits as
the called ones (``rows="called"``, ``_interval``): logs and all seven tables."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact._partition_band_cross import wide_vectors
from bioaccel.runtime.parallel import task_queue, threads
from test_bppart_cpu35 import _random_strand, _weights

SIZES = [(1, 1), (1, 9), (2, 3), (4, 2), (5, 5), (6, 16), (7, 17), (9, 47), (12, 9), (23, 101), (3, 24), (11, 33),
         (23, 50), (8, 64), (5, 65)]


def fill_cases(seed):
    """(index, M, N, a, rb, c1, c2, tiles) of the equality tests: SIZES and four random sizes, some with N
    letters, at two scales, with either tiles (INLINE on even indices, SKIP_ZEROS on odd)."""
    from bioaccel.interact._partition_blocked_split import INLINE, SKIP_ZEROS

    rng = random.Random(seed)
    lengths = SIZES + [(rng.randint(1, 14), rng.randint(1, 60)) for _ in range(4)]
    for i, (M, N) in enumerate(lengths):
        a = encode(_random_strand(rng, M, i % 3 == 1))
        rb = np.ascontiguousarray(encode(_random_strand(rng, N, i % 3 == 2)))
        for c1, c2 in ((0.0, 0.0), (0.3, 0.2)):
            yield i, M, N, a, rb, c1, c2, (INLINE if i % 2 == 0 else SKIP_ZEROS)


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("kind", ["default", "bpmax", "gu0", "au0"])
def test_inlined_rows_equal_the_called_ones_bit_for_bit(count, kind):
    """rows="inline" (the default) against rows="called": == logs at sizes from 1 x 1 to 23 x 101, some
    with N letters, at two scales, with either tiles (INLINE, SKIP_ZEROS), on one thread and two."""
    from bioaccel.interact._partition_blocked_queue import fill_partition_queued
    from bioaccel.interact._partition_blocked_split import INLINE

    weights = _weights(kind)
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for i, M, N, a, rb, c1, c2, tiles in fill_cases(36 + count):
            old = fill_partition_queued(a, rb, weights, c1, c2, tiles, rows="called")
            assert fill_partition_queued(a, rb, weights, c1, c2, tiles, rows="inline") == old, (M, N, kind)
            if tiles == INLINE:
                assert fill_partition_queued(a, rb, weights, c1, c2) == old


@pytest.mark.parametrize("wide", [True, False], ids=["eight-lane tiles", "four-lane tiles"])
def test_inlined_rows_write_the_same_tables(wide):
    """Every cell of the seven tables (zeroed before) the same bits, serial and with two workers, with the
    eight-lane inlined tiles (where the CPU has AVX-512) and the four-lane ones."""
    from bioaccel.interact._partition_blocked_queue import (_fill_queued_parallel, _fill_queued_serial,
                                                            aligned_tables, interval_order)
    from bioaccel.interact._partition_blocked_split import INLINE

    tiles = INLINE if wide and wide_vectors() else False
    rng = random.Random(36)
    for M, N in [(1, 1), (5, 17), (9, 40), (14, 33)]:
        a = encode(_random_strand(rng, M, False))
        rb = np.ascontiguousarray(encode(_random_strand(rng, N, True)))
        for fill, workers in ((_fill_queued_serial, 1), (_fill_queued_parallel, 2)):
            order, dep_start, deps = interval_order(M, workers)
            tables = {}
            for inline_rows in (False, True):
                tables[inline_rows] = aligned_tables(M, N, 0.0)
                fill(a, rb, _weights("default"), 0.4, 0.6, *tables[inline_rows], tiles, task_queue(dep_start, deps),
                     order, workers, inline_rows, False)   # shared_pairs given, as production does: one compile
            for old, new in zip(tables[False], tables[True]):
                assert np.array_equal(old.view(np.uint64), new.view(np.uint64)), (M, N, workers)


def test_rows_form_is_checked():
    """rows names one of the two forms."""
    from bioaccel.interact._partition_blocked_queue import fill_partition_queued

    with pytest.raises(ValueError, match="rows"):
        fill_partition_queued(encode("G"), encode("C"), _weights("default"), 0.0, 0.0, rows="sideways")
