"""BPPart on the GPU (variant ``diagonals``) against the CPU's fill: equal to 1e-12 relative in every log
on random pairs of 1 to 30 nt, both weight settings, scaled and plain, a batch of mixed lengths in
several launches (the tests' small launch sizes: 16-cell tiles, 3 pairs a launch), the API and the
command line. Marker ``gpu``: skipped where there is no CUDA device."""
import math
import random

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams, bppart, iter_bppart
from bioaccel.interact._partition import partition_logs

pytestmark = pytest.mark.gpu

WEIGHTS = [(0.5, 1.0), (1.0, 1.5)]


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def _close(got, expected, rel=1e-12):
    for x, y in zip(got, expected):
        if y == -math.inf:
            assert x == -math.inf, (got, expected)
        else:
            assert math.isfinite(x) and abs(x - y) <= rel * max(1.0, abs(y)), (got, expected)


def _cpu(a, b, params):
    return partition_logs(encode(a), np.ascontiguousarray(encode(b)[::-1]), params)


def _gpu_rows(queries, targets, params):
    return bppart(queries, targets, params=params, backend="gpu")


def _logs(row):
    return row.log_z, row.log_z_interaction, row.log_z_query, row.log_z_target


@pytest.mark.parametrize("au, gu", WEIGHTS)
@pytest.mark.parametrize("scale", [None, 0.0])
def test_gpu_equals_cpu_on_random_pairs(small_launch_sizes, au, gu, scale):
    """Random queries of 1 to 30 nt, each against a batch of random targets of 1 to 30 nt (mixed
    lengths: several launch groups of at most 3 pairs, tiles of 16 cells crossed)."""
    rng = random.Random(int(au * 10 + gu * 100) + (scale is None))
    params = PartitionParams(au=au, gu=gu, scale=scale)
    queries = [random_rna(rng, n) for n in (1, 5, rng.randint(2, 30), 30)]
    targets = [random_rna(rng, n) for n in (1, 4, 30, 17, rng.randint(1, 30), rng.randint(1, 30))]
    rows = _gpu_rows(queries, targets, params)
    assert [(r.query_length, r.target_length) for r in rows] == [(len(q), len(t)) for t in targets for q in queries]
    for row, (t, q) in zip(rows, [(t, q) for t in targets for q in queries]):
        assert row.backend == "gpu" and row.variant == "diagonals"
        _close(_logs(row), _cpu(q, t, params))


def test_gpu_scaled_equals_plain_and_cpu_at_a_longer_pair(small_launch_sizes):
    """23 x 90 nt at the chosen scale and at a forced one: the GPU agrees with itself and with the CPU."""
    rng = random.Random(3)
    q, t = random_rna(rng, 23), random_rna(rng, 90)
    chosen = _logs(_gpu_rows(q, t, PartitionParams())[0])
    _close(chosen, _cpu(q, t, PartitionParams()))
    _close(_logs(_gpu_rows(q, t, PartitionParams(scale=1.3))[0]), chosen)


def test_gpu_production_sizes_and_empty_strands():
    """The production launch sizes (64-cell tiles, 256-thread sweep) on mixed lengths, and empty strands
    (computed without a fill) in the same call."""
    rng = random.Random(11)
    queries = ["", random_rna(rng, 12)]
    targets = [random_rna(rng, n) for n in (70, 3, 0, 130)]
    params = PartitionParams()
    rows = list(iter_bppart(queries, targets, params=params, backend="gpu"))
    for row, (t, q) in zip(rows, [(t, q) for t in targets for q in queries]):
        _close(_logs(row), _cpu(q, t, params))


def test_gpu_overflow_refused_like_the_cpu():
    from bioaccel.errors import InvalidParameter

    with pytest.raises(InvalidParameter, match="over- or underflow"):
        bppart("GC", "GC" * 350, params=PartitionParams(scale=0.0), backend="gpu")


def test_cli_backend_gpu(tmp_path):
    import io

    from bioaccel.cli.main import main

    (tmp_path / "q.fa").write_text(">q1\nGGGAAACCC\n>q2\nAAAAGGG\n")
    (tmp_path / "t.fa").write_text(">t1\nGGGUUUCCC\n>t2\nUUUUCCCAAAGGG\n")
    outs = {}
    for backend in ("cpu", "gpu"):
        out, err = io.StringIO(), io.StringIO()
        code = main(["interact", str(tmp_path / "q.fa"), str(tmp_path / "t.fa"), "--partition", "--quiet",
                     "--backend", backend], stdout=out, stderr=err)
        assert code == 0, err.getvalue()
        outs[backend] = [line.split("\t") for line in out.getvalue().splitlines()]
    assert outs["gpu"][0] == outs["cpu"][0] and len(outs["gpu"]) == 5
    for g, c in zip(outs["gpu"][1:], outs["cpu"][1:]):
        assert g[:2] == c[:2]
        _close([float(x) for x in g[2:6]], [float(x) for x in c[2:6]])


def test_diagonal_sweep_equals_cpu(small_launch_sizes, monkeypatch):
    """The first design's sweep (a warp per cell, a barrier per target diagonal; the benchmark's peer)
    and unsplit cross products give the CPU's values too."""
    from bioaccel.interact import _partition_launch

    monkeypatch.setattr(_partition_launch, "SIZES", small_launch_sizes.bppart.replace(sweep="diagonals",
                                                                                       cross_blocks=1))
    rng = random.Random(8)
    params = PartitionParams(au=1.0, gu=1.5)
    queries = [random_rna(rng, n) for n in (3, 23)]
    targets = [random_rna(rng, n) for n in (1, 9, 30, 41)]
    for row, (t, q) in zip(_gpu_rows(queries, targets, params), [(t, q) for t in targets for q in queries]):
        _close(_logs(row), _cpu(q, t, params))
