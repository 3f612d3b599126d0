"""BPPart with windows and the binding profile: the plain-Python reference against brute-force
enumeration of the windowed ensemble, the sweep (_partition_band) against the reference and against
brute force, a window covering everything against the unwindowed fill, scaled against plain arithmetic,
chunked against one task, and the command line."""
import io
import math
import random

import numpy as np
import pytest

from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams, bppart
from bioaccel.interact._partition import partition_logs
from naive_bppart import binding_windows, bppart_windows, brute_force_windows, spans

WEIGHTS = [(0.5, 1.0), (1.0, 1.5)]


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def rel(x, y):
    """Relative difference of two logs (absolute near 0; equal infinities are 0)."""
    if x == y:
        return 0.0
    return abs(x - y) / max(1.0, abs(y))


def run(a, b, au, gu, wq, wt, binding=True, scale=None, threads=1):
    params = PartitionParams(au=au, gu=gu, scale=scale, window_query=wq, window_target=wt)
    return bppart(a, b, params=params, binding=binding, threads=threads)[0]


def windows_of(rng, M, N):
    return rng.choice([None, 1, 2, 3, 5, M]), rng.choice([None, 1, 2, 4, 6, 9, N])


@pytest.mark.parametrize("au, gu", WEIGHTS)
def test_reference_and_sweep_equal_brute_force(au, gu):
    """What is summed (docs/bppart.md, "Windows"): every joint structure whose pairs lie in one window
    pair, each once; and the share of them in which each target base pairs with the query."""
    rng = random.Random(int(10 * au + 3 * gu))
    cases = [("G", "CCC", None, 1), ("GGG", "CCCAAACCC", None, 3), ("GGGAAAC", "CUUGA", 2, 2), ("", "GCAUAGC", None, 2),
             ("ACGU", "", 1, None)]
    cases += [(random_rna(rng, rng.randint(1, 6)), random_rna(rng, rng.randint(1, 6)), *windows_of(rng, 6, 6))
              for _ in range(9)]
    for a, b, wq, wt in cases:
        Z, X, bound = brute_force_windows(a, b, au, gu, wq, wt)
        ref = bppart_windows(a, b, au, gu, wq, wt)
        assert abs(ref[0] - Z) <= 1e-12 * Z and abs(ref[1] - X) <= 1e-12 * max(X, 1e-300)
        assert max([abs(p - q) for p, q in zip(binding_windows(a, b, au, gu, wq, wt), bound)] + [0]) <= 1e-12
        r = run(a, b, au, gu, wq, wt)
        assert rel(r.log_z, math.log(Z)) <= 1e-12
        assert (r.log_z_interaction == -math.inf) if X == 0 else rel(r.log_z_interaction, math.log(X)) <= 1e-12
        assert r.binding.shape == (len(b),)
        assert max([abs(p - q) for p, q in zip(r.binding.tolist(), bound)] + [0]) <= 1e-12, (a, b, wq, wt)


@pytest.mark.parametrize("au, gu", WEIGHTS)
def test_sweep_equals_reference_on_random_pairs(au, gu):
    """1 to 30 nt, windows or none on either strand: the windowed log Z, each strand's, the interactions',
    every window pair's own log Z, and (on the shorter pairs) the binding profile."""
    rng = random.Random(int(7 * au + gu))
    lengths = [(1, 1), (1, 30), (30, 1), (6, 24), (12, 12)]
    for _ in range(4):
        M = rng.randint(1, 30)
        lengths.append((M, rng.randint(1, 150 // M)))
    for M, N in lengths:
        a, b = random_rna(rng, M), random_rna(rng, N)
        wq, wt = windows_of(rng, M, N)
        Z, X, Zq, Zt, windows = bppart_windows(a, b, au, gu, wq, wt)
        small = M * N <= 40
        r = run(a, b, au, gu, wq, wt, binding=small, threads=rng.choice([1, 2]))
        assert rel(r.log_z, math.log(Z)) <= 1e-12 and rel(r.log_z_query, math.log(Zq)) <= 1e-12
        assert rel(r.log_z_target, math.log(Zt)) <= 1e-12
        assert (r.log_z_interaction == -math.inf) if X == 0 else rel(r.log_z_interaction, math.log(X)) <= 1e-12
        for (q, t), (qi, qx) in windows.items():
            assert rel(float(r.window_log_zs[q, t]), math.log(qi)) <= 1e-12
            assert abs(float(r.window_probabilities[q, t]) - qx / qi) <= 1e-12
        if small:
            expected = binding_windows(a, b, au, gu, wq, wt)
            assert np.max(np.abs(r.binding - np.array(expected)), initial=0.0) <= 1e-12


@pytest.mark.parametrize("au, gu", WEIGHTS)
def test_a_window_covering_everything_is_the_unwindowed_run(au, gu):
    rng = random.Random(31)
    for M, N in [(1, 1), (5, 30), (23, 9), (8, 17)]:
        a, b = random_rna(rng, M), random_rna(rng, N)
        plain = partition_logs(encode(a), np.ascontiguousarray(encode(b)[::-1]), PartitionParams(au=au, gu=gu))
        for wq, wt in [(None, N), (M, None), (M + 5, N - 1 + 1)]:
            r = run(a, b, au, gu, wq, wt, binding=False)
            got = (r.log_z, r.log_z_interaction, r.log_z_query, r.log_z_target)
            assert all(rel(x, y) <= 1e-12 for x, y in zip(got, plain)), (got, plain)
            assert (r.target_start, r.target_end, r.query_start, r.query_end) == (0, N, 0, M)
            assert rel(r.window_log_z, plain[0]) <= 1e-12


def test_scaled_equals_plain():
    """Scaled arithmetic forced on small cases (windowed, binding profile) gives plain doubles' values."""
    rng = random.Random(8)
    for M, N, wq, wt in [(3, 17, None, 6), (9, 9, 4, 4), (14, 25, None, None), (6, 40, 3, 11)]:
        a, b = random_rna(rng, M), random_rna(rng, N)
        plain = run(a, b, 0.5, 1.0, wq, wt, scale=0.0)
        for scale in (None, 0.7, 2.5):
            r = run(a, b, 0.5, 1.0, wq, wt, scale=scale)
            assert rel(r.log_z, plain.log_z) <= 1e-12 and rel(r.log_z_interaction, plain.log_z_interaction) <= 1e-12
            assert np.max(np.abs(r.binding - plain.binding)) <= 1e-12
            assert np.max(np.abs(r.window_log_zs - plain.window_log_zs)) <= 1e-12


def test_long_target_windows_are_the_window_pairs_alone_and_tasks_agree():
    """On a 600 nt target (window 20): two tasks give one task's values (the sweep restarts each piece
    L2 rows early), and a window pair's log Z is the unwindowed run of its two windows."""
    rng = random.Random(4)
    a, b = random_rna(rng, 7), random_rna(rng, 600)
    one = run(a, b, 0.5, 1.0, None, 20, binding=False, threads=1)
    two = run(a, b, 0.5, 1.0, None, 20, binding=False, threads=2)
    assert rel(one.log_z, two.log_z) <= 1e-13 and np.array_equal(one.window_log_zs, two.window_log_zs)
    for t in (0, 137, 579):
        alone = partition_logs(encode(a), np.ascontiguousarray(encode(b[t:t + 21])[::-1]), PartitionParams())
        assert rel(float(one.window_log_zs[0, t]), alone[0]) <= 1e-12
    assert one.window_log_zs.shape == (1, 580)


def test_binding_tasks_agree_and_sites_do_not_overlap():
    rng = random.Random(6)
    a, b = random_rna(rng, 5), random_rna(rng, 120)
    one = run(a, b, 0.5, 1.0, None, 9, threads=1)
    two = run(a, b, 0.5, 1.0, None, 9, threads=2)
    assert np.max(np.abs(one.binding - two.binding)) <= 1e-13
    whole = [run(a, b[:30], 0.5, 1.0, None, None, threads=k).binding for k in (1, 2)]   # positions split by cost
    assert np.max(np.abs(whole[0] - whole[1])) <= 1e-13 and whole[0].shape == (30,)
    rows = bppart(a, b, params=PartitionParams(window_target=9), sites=4)
    starts = [r.target_start for r in rows]
    assert [r.site for r in rows] == [1, 2, 3, 4] and all(abs(x - y) >= 10 for x in starts for y in starts if x != y)
    probabilities = [r.window_probability for r in rows]
    assert probabilities[0] == float(np.max(rows[0].window_probabilities)) and probabilities == sorted(probabilities)[::-1]


def test_blocked_variant_equals_rows_variant():
    """The production sweep (``blocked``: 16 rows a group, register-blocked products) against the first
    form (``rows``) on pairs where its tiles, groups and near terms all matter (windows of 17 to 40
    target bases, up to 23 query bases, shorter rows at the target's end, one and two tasks), and on
    windows shorter than a group; the binding profile on a short pair."""
    from bioaccel.interact._partition_windows import windowed_partition

    rng = random.Random(27)
    cases = [(23, 150, 23, 40, False), (9, 120, 4, 17, False), (20, 90, 20, 33, False), (5, 41, 5, 5, False),
             (12, 70, 12, 129, False), (6, 50, 6, 18, True), (4, 26, 2, 3, True)]
    for M, N, L1, L2, binding in cases:
        a = encode(random_rna(rng, M))
        rb = np.ascontiguousarray(encode(random_rna(rng, N))[::-1])
        params = PartitionParams(au=rng.choice([0.5, 1.0]), gu=rng.choice([1.0, 1.5]))
        L2 = min(L2, N)
        for threads in (1, 2):
            old = windowed_partition(a, rb, params, L1, L2, threads, binding, "rows")
            new = windowed_partition(a, rb, params, L1, L2, threads, binding, "blocked")
            assert rel(new.log_z, old.log_z) <= 1e-13 and rel(new.log_z_interaction, old.log_z_interaction) <= 1e-13
            finite = np.isfinite(old.log_zs)
            assert np.array_equal(finite, np.isfinite(new.log_zs))
            assert np.max(np.abs(new.log_zs - old.log_zs)[finite] / np.maximum(1, np.abs(old.log_zs[finite]))) <= 1e-13
            assert np.max(np.abs(new.probabilities - old.probabilities)) <= 1e-13
            if binding:
                assert np.max(np.abs(new.binding - old.binding)) <= 1e-13 and np.max(new.binding) > 0.01


def _cli(argv):
    from bioaccel.cli.main import main

    out, err = io.StringIO(), io.StringIO()
    code = main(["interact", *argv], stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_cli_windows_sites_profile(tmp_path):
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    q.write_text(">q\nGGGAAACCC\n")
    t.write_text(">t1\nGGGUUUCCCAAAAAGGGUUUCCAGAGAGCUCUC\n>t2\nUUUU\n")
    profile, windows = tmp_path / "p.tsv", tmp_path / "w.tsv"
    code, out, err = _cli([str(q), str(t), "--partition", "--window-target", "8", "--sites", "2", "--quiet",
                           "--profile", str(profile), "--windows", str(windows)])
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()]
    assert lines[0] == ["query", "target", "site", "log_z", "log_z_query", "log_z_target", "log_z_interaction",
                        "probability", "window_log_z", "window_log_z_interaction", "window_probability",
                        "target_start", "target_end"]
    expected = bppart(("q", "GGGAAACCC"), ("t1", "GGGUUUCCCAAAAAGGGUUUCCAGAGAGCUCUC"),
                      params=PartitionParams(window_target=8), sites=2, binding=True)
    assert [row[:3] for row in lines[1:]] == [["q", "t1", "1"], ["q", "t1", "2"], ["q", "t2", "1"]]
    assert [float(x) for x in lines[2][3:11]] == [expected[1].log_z, expected[1].log_z_query, expected[1].log_z_target,
                                                 expected[1].log_z_interaction, expected[1].probability,
                                                 expected[1].window_log_z, expected[1].window_log_z_interaction,
                                                 expected[1].window_probability]
    assert lines[2][11:] == [str(expected[1].target_start), str(expected[1].target_end)]
    track = [line.split("\t") for line in profile.read_text().splitlines()]
    assert track[0] == ["query", "target", "position", "probability"] and len(track) == 1 + 33 + 4
    assert [float(x[3]) for x in track[1:34]] == expected[0].binding.tolist()
    assert [x[2] for x in track[1:4]] == ["1", "2", "3"]
    table = [line.split("\t") for line in windows.read_text().splitlines()]
    assert len(table) == 1 + 25 + 1 and float(table[1][6]) == float(expected[0].window_log_zs[0, 0])


@pytest.mark.parametrize("argv, words", [(["--windows", "w.tsv"], "--windows needs"), (["--rank", "gain"], "--rank"),
                                         (["--window-target", "0"], "--window-target must be"),
                                         (["--sites", "3"], "--sites 3 needs --window-target")])
def test_cli_refusals(tmp_path, argv, words):
    q, t = tmp_path / "q.fa", tmp_path / "t.fa"
    q.write_text(">q\nGGG\n")
    t.write_text(">t\nCCC\n")
    code, out, err = _cli([str(q), str(t), "--partition", "--quiet", *argv])
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and words in err
