"""BPPart on the CPU, issue 27's CPU goal (bppsparse, stop 49): the ``queued`` fill's QIa products by base
classes where the left query interval cannot close (``tiles=SPARSE``,
:mod:`bioaccel.interact._partition_blocked_sparse`), the same bits as the ``SKIP_ZEROS`` tiles."""
import random

import numba
import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.interact._partition_band_cross import wide_vectors
from bioaccel.runtime.parallel import task_queue, threads
from test_bppart import _close, nan_table_cases, random_rna

A, C, G, U, N = (int(encode(x)[0]) for x in "ACGUN")


def _weights(kind):
    """BPPart's default weights, BPMax's scores, or the defaults with a pair weight of exactly 0 (GU, or
    AU: A then pairs with nothing)."""
    if kind == "bpmax":
        return PartitionParams(au=1.0, gu=1.5).weights()
    w = PartitionParams().weights().copy()
    if kind in ("gu0", "au0"):
        x, y = (G, U) if kind == "gu0" else (A, U)
        w[x, y] = w[y, x] = 0.0
    return w


def _random_strand(rng, n, with_n):
    """A random RNA of n nt, some letters N (pairs with nothing) where ``with_n``."""
    s = random_rna(rng, n)
    if with_n and n:
        s = "".join("N" if rng.random() < 0.1 else c for c in s)
    return s


@pytest.mark.parametrize("count", [1, 2])
@pytest.mark.parametrize("kind", ["default", "bpmax", "gu0", "au0"])
def test_sparse_tiles_equal_skip_zeros_bit_for_bit(count, kind):
    """tiles=SPARSE against tiles=SKIP_ZEROS (stop 48's default): == logs at sizes from 1 x 1 to 23 x 101,
    odd ones and around the tiles' edges, some with N letters, at two scales, on one thread and two."""
    from bioaccel.interact._partition_blocked_queue import fill_partition_queued
    from bioaccel.interact._partition_blocked_split import SKIP_ZEROS, SPARSE

    rng = random.Random(49 + count)
    weights = _weights(kind)
    lengths = [(1, 1), (2, 3), (5, 5), (6, 16), (7, 17), (9, 47), (12, 9), (23, 101), (3, 24), (11, 33)]
    lengths += [(rng.randint(1, 14), rng.randint(1, 60)) for _ in range(4)]
    with threads(min(count, numba.config.NUMBA_NUM_THREADS)):
        for i, (M, N) in enumerate(lengths):
            a = encode(_random_strand(rng, M, i % 3 == 1))
            rb = np.ascontiguousarray(encode(_random_strand(rng, N, i % 3 == 2)))
            for c1, c2 in ((0.0, 0.0), (0.3, 0.2)):
                old = fill_partition_queued(a, rb, weights, c1, c2, SKIP_ZEROS)
                assert fill_partition_queued(a, rb, weights, c1, c2, SPARSE) == old, (M, N, kind, c1, c2)


@pytest.mark.skipif(not wide_vectors(), reason="the class tiles are eight-lane tiles (AVX-512)")
def test_sparse_tiles_read_only_what_the_fill_wrote():
    """Aligned tables full of NaN before the fill with tiles=SPARSE give the matrices variant's logs
    (1e-12 relative), empty strands included, serial and parallel: a class tile's reads left of a row's
    diagonal block (not cleared) are never multiplied."""
    from bioaccel.interact._partition_blocked_queue import (_fill_queued_parallel, _fill_queued_serial,
                                                            aligned_tables, interval_order)
    from bioaccel.interact._partition_blocked_split import SPARSE

    weights = PartitionParams().weights()
    for M, N, a, rb, expected in nan_table_cases(35, 8):
        for fill, workers in ((_fill_queued_serial, 1), (_fill_queued_parallel, 2)):
            order, dep_start, deps = interval_order(M, workers)
            got = fill(a, rb, weights, 0.4, 0.6, *aligned_tables(M, N, np.nan), SPARSE,
                       task_queue(dep_start, deps), order, workers)
            _close([float(x) for x in got], expected, 1e-12)


def test_base_classes_from_the_weights():
    """Letters join the class of the letter with the widest partners that contain theirs (A with G, C with
    U at BPPart's weights), each class's k are its partners' positions (+1), a letter that pairs with
    nothing (N; A when AU weighs 0) has no class; with GU at 0, four classes of one partner each."""
    from bioaccel.interact._partition_blocked_sparse import base_classes

    rb = np.ascontiguousarray(encode("ACGUNGA"))

    def classes(w):
        rows, nrows, ks, nks = base_classes(rb, w)
        return {h: (rows[h, :nrows[h]].tolist(), ks[h, :nks[h]].tolist()) for h in range(w.shape[0]) if nrows[h]}

    assert classes(_weights("default")) == {G: ([0, 2, 5, 6], [2, 4]), U: ([1, 3], [1, 3, 6, 7])}
    assert classes(_weights("gu0")) == {A: ([0, 6], [4]), C: ([1], [3, 6]), G: ([2, 5], [2]), U: ([3], [1, 7])}
    in_a_class = {r for rows, _ in classes(_weights("au0")).values() for r in rows}
    assert in_a_class == {1, 2, 3, 5}                          # not A's rows 0 and 6, nor N's 4


def test_class_plan_covers_every_row_that_can_be_nonzero():
    """Each block of ends B: every row r < kend - 5 of a class appears in exactly one of its tiles, tiles of
    at most 8 rows in ascending order, and a tile's k range is its class's k from its first row + 5 to kend,
    cut where no row is masked (mm) and at B + 8 (mh)."""
    from bioaccel.interact._partition_blocked_sparse import base_classes, class_plan

    rng = random.Random(7)
    for N in (1, 5, 16, 31, 47, 100):
        rb = np.ascontiguousarray(encode(random_rna(rng, N)))
        rows, nrows, ks, nks = base_classes(rb, PartitionParams().weights())
        n = N + 1
        plan = class_plan(rows, nrows, ks, nks, n)
        for B in range(0, n, 16):
            kend = min(B + 16, n)
            for x in range(rows.shape[0]):
                mine, k = rows[x, :nrows[x]].tolist(), ks[x, :nks[x]].tolist()
                got = []
                for x_, j, cnt, B_, m0, mm, mh, m1 in plan.tolist():
                    if (x_, B_) != (x, B):
                        continue
                    tile = mine[j:j + cnt]
                    assert 1 <= cnt <= 8 and tile == sorted(tile)
                    assert k[m0:m1] == [v for v in k if tile[0] + 5 <= v < kend]
                    assert all(v > tile[-1] for v in k[mm:m1]) and all(v <= tile[-1] for v in k[m0:mm])
                    assert all(v >= B + 8 for v in k[mh:m1]) and all(v < B + 8 for v in k[m0:mh])
                    got += tile
                expected = [r for r in mine if r < kend - 5 and any(tile_k >= r + 5 for tile_k in k if tile_k < kend)]
                assert set(expected) <= set(got) and len(got) == len(set(got))
