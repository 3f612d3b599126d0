"""BPPart on the CPU, issue 27's CPU goal (bppcpu3, stop 48): the ``queued`` fill's tiles without their
products by exact zeros (:mod:`bioaccel.interact._partition_blocked_skip`) and its tables in one aligned
allocation, each the same bits as stop 47's forms."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.interact._partition_band_cross import wide_vectors
from bioaccel.runtime.parallel import task_queue, threads
from test_bppart import _close, nan_table_cases, random_rna


def _cleared_matrix(rng, rows, cols, n):
    """A table's matrix as the fill leaves it for the tiles: random non-negative cells above the diagonal,
    +0.0 where :func:`_partition_blocked._clear` clears (from each row's block of 16 to the diagonal, the
    padding), NaN where nothing reads."""
    m = np.full((rows, cols), np.nan)
    for b in range(rows):
        if b < n:
            m[b, b // 16 * 16:b + 1] = 0.0
            m[b, b + 1:n] = [rng.random() * 10 ** rng.randint(-3, 3) for _ in range(n - b - 1)]
            m[b, n:] = 0.0
        else:
            m[b, :] = 0.0
    return m


@pytest.mark.parametrize("n", [9, 16, 17, 24, 33, 70, 102])
def test_tiles_without_zeros_equal_the_full_tiles_bit_for_bit(n):
    """Every tile _split_products asks for (each row block b0 and end block B, kend at a block's end or n):
    the same bits as the full eight-lane tile, on matrices with NaN wherever no tile may read."""
    from bioaccel.interact._partition_blocked_skip import _tile_skip
    from bioaccel.interact._partition_blocked_split import _tile

    rng = random.Random(n)
    rows, cols = (n + 7) // 8 * 8, (n + 15) // 16 * 16
    left, right = _cleared_matrix(rng, rows, cols, n), _cleared_matrix(rng, rows, cols, n)
    for B in range(0, n, 16):
        if n - B <= 8:
            continue               # the last block's half tiles are unchanged
        kend = min(B + 16, n)
        for b0 in range(0, min(B + 16, n - 1), 8):
            full, skip = np.full((rows, cols), 0.5), np.full((rows, cols), 0.5)
            _tile(left, right, full, b0, B, kend)
            _tile_skip(left, right, skip, b0, B, kend)
            assert np.array_equal(full, skip), (b0, B, kend)


@pytest.mark.parametrize("count", [1, 2])
def test_queued_forms_equal_bit_for_bit(count):
    """The tiles without zeros and the aligned tables, each alone and together, against stop 47's queued
    fill (full tiles, seven allocations): == logs on one thread and two, around the tiles' edges and at
    23 x 100."""
    from bioaccel.interact._partition_blocked import blocked_tables
    from bioaccel.interact._partition_blocked_queue import SKIP_ZEROS, aligned_tables, fill_partition_queued

    rng = random.Random(48)
    weights = PartitionParams().weights()
    lengths = [(1, 1), (2, 3), (23, 100), (6, 70), (5, 101), (9, 47), (12, 9), (4, 16), (3, 17)]
    lengths += [(rng.randint(1, 14), rng.randint(1, 40)) for _ in range(5)]
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for M, N in lengths:
            a, rb = encode(random_rna(rng, M)), np.ascontiguousarray(encode(random_rna(rng, N)))
            old = fill_partition_queued(a, rb, weights, 0.3, 0.2, True, blocked_tables)
            for tiles, tables in ((SKIP_ZEROS, blocked_tables), (True, aligned_tables), (SKIP_ZEROS, None)):
                assert fill_partition_queued(a, rb, weights, 0.3, 0.2, tiles, tables) == old


@pytest.mark.skipif(not wide_vectors(), reason="the tiles without zeros are eight-lane tiles (AVX-512)")
@pytest.mark.parametrize("form, seed", [("SKIP_ZEROS", 59), ("INLINE", 35)])
def test_tiles_without_zeros_read_only_what_the_fill_wrote(form, seed):
    """Aligned tables full of NaN before the fill with the tiles without zeros, called (SKIP_ZEROS) or
    inlined into their loop (INLINE), give the matrices variant's logs (1e-12 relative), empty strands
    included, serial and parallel."""
    from bioaccel.interact import _partition_blocked_split
    from bioaccel.interact._partition_blocked_queue import (_fill_queued_parallel, _fill_queued_serial, aligned_tables,
                                                            interval_order)

    tiles = getattr(_partition_blocked_split, form)
    weights = PartitionParams().weights()
    for M, N, a, rb, expected in nan_table_cases(seed, 8):
        for fill, workers in ((_fill_queued_serial, 1), (_fill_queued_parallel, 2)):
            order, dep_start, deps = interval_order(M, workers)
            got = fill(a, rb, weights, 0.4, 0.6, *aligned_tables(M, N, np.nan), tiles,
                       task_queue(dep_start, deps), order, workers, True, False)   # production's signature
            _close([float(x) for x in got], expected, 1e-12)


@pytest.mark.parametrize("M, N", [(0, 0), (1, 1), (2, 20), (23, 100), (5, 101)])
def test_aligned_tables_are_seven_apart_on_pages(M, N):
    """Seven tables of blocked_tables' shape, C-contiguous, each from a page's start, none overlapping;
    ``value`` fills them."""
    from bioaccel.interact._partition_blocked import blocked_tables
    from bioaccel.interact._partition_blocked_queue import PAGE, aligned_tables

    tables = aligned_tables(M, N)
    assert len(tables) == 7
    assert all(t.shape == blocked_tables(M, N)[0].shape and t.flags.c_contiguous for t in tables)
    assert all(t.ctypes.data % PAGE == 0 for t in tables)
    spans = sorted((t.ctypes.data, t.ctypes.data + t.nbytes) for t in tables)
    assert all(end <= start for (_, end), (start, _) in zip(spans, spans[1:]))
    assert all(np.isnan(t).all() for t in aligned_tables(M, N, np.nan))
