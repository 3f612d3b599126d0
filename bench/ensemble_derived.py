"""What follows from the base-pair probabilities (bioaccel.fold._ensemble_derived: the ensemble diversity,
the centroid, the MEA structure, RNAfold -p's pseudo-bracket line) at genome length, against the plain
NumPy/Python code it replaced (tests/naive_ensemble_derived.py), in one process on the CPU.

P comes from the Turner partition function of random RNAs (--real lengths, CPU), and synthetic P of any
length (--synthetic): copies of a real P along the diagonal, weak long-range stems between bases mostly
unpaired, and weak local pairs up to the SARS-CoV-2 genome's 12.2 pairs >= 1e-5 per base (364,900 at
29,903 nt). The old code runs up to
--old-max bases (its MEA keeps an (n + 1)^2 table and loops in Python; its diversity and centroid make
n x n temporaries); beyond, its time is extrapolated as n^2 from the largest size it ran (marked ~). Where
both run, their results are checked equal. The load average is printed before and after; peak memory
beyond P is the growth of the process's peak RSS during the new code's calls (P's pages touched first);
the old code's largest temporaries are counted from their shapes (MEA: its (n + 1)^2 table, the n x n
float and bool arrays of its candidate selection; diversity: P * (1 - P) and 1 - P; centroid: P[~chosen]
and two masks; pseudo-bracket: P as float32).

    python3 bench/ensemble_derived.py [--real 2000] [--synthetic 8000,30000] [--old-max 8000]
"""
import argparse
import os
import platform
import random
import resource
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))
from _results import save_json  # noqa: E402

import naive_ensemble_derived as old  # noqa: E402
from bioaccel.fold import _ensemble_derived as new  # noqa: E402
from bioaccel.fold._turner_pf_cpu import partition  # noqa: E402
from bioaccel.inputs.alphabet import encode  # noqa: E402

QUANTITIES = ("ensemble_diversity", "centroid", "mea", "pseudo_bracket")


def real_P(n, seed):
    rng = random.Random(seed)
    return partition(encode("".join(rng.choice("ACGU") for _ in range(n))), None, want_bpp=True)[1]


def synthetic_P(n, tiles, seed, pairs_per_base=0.0):
    """n x n: the real tiles along the diagonal, then stems of 6 pairs (p = 0.1) joining far bases whose
    pairs sum below 0.5 (so that every base's pairs stay below 1), and weak local pairs (1e-5 to 1e-3) up
    to pairs_per_base pairs >= 1e-5 per base; filled in place (no n x n temporary)."""
    P = np.empty((n, n))
    P.fill(0.0)                                    # every page touched now: RSS counts P from here on
    start, t = 0, 0
    while start < n:
        tile = tiles[t % len(tiles)]
        m = min(tile.shape[0], n - start)
        P[start:start + m, start:start + m] = tile[:m, :m]
        start, t = start + m, t + 1
    paired = np.zeros(n)
    for r0 in range(0, n, 256):
        paired[r0:r0 + 256] += P[r0:r0 + 256].sum(axis=1)
        paired += P[r0:r0 + 256].sum(axis=0)
    rng = np.random.default_rng(seed)
    free = np.flatnonzero(paired < 0.5)
    for _ in range(n // 20):
        i, j = sorted(rng.choice(free, 2))
        if j - i > 2000 and np.all(paired[i:i + 6] < 0.5) and np.all(paired[j - 5:j + 1] < 0.5):
            for s in range(6):
                P[i + s, j - s] += 0.1
                paired[i + s] += 0.1
                paired[j - s] += 0.1
    have = sum(int(np.count_nonzero(P[r:r + 512] >= 1e-5)) for r in range(0, n, 512))
    extra = max(0, int(pairs_per_base * n) - have)
    i = rng.integers(0, max(1, n - 8), extra)
    j = np.minimum(n - 1, i + 4 + rng.integers(0, 600, extra))
    weak = 10.0 ** rng.uniform(-5, -3, extra)
    P[i, j] = np.where(P[i, j] == 0.0, weak, P[i, j])      # weak local pairs where there were none
    return P


def timed(function, P):
    start = time.perf_counter()
    value = function(P)
    return time.perf_counter() - start, value


def max_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--real", default="2000", help="lengths of real P (CPU partition function)")
    parser.add_argument("--synthetic", default="8000,30000")
    parser.add_argument("--old-max", type=int, default=8000)
    parser.add_argument("--pairs-per-base", type=float, default=364_900 / 29_903,
                        help="pairs >= 1e-5 per base of synthetic P (default: the SARS-CoV-2 genome's)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "..", "docs", "results",
                                                        "ensemble_derived_cpu.json"))
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f} "
          f"({os.cpu_count()} cores)")
    small = real_P(200, 0)
    for name in QUANTITIES:                                  # compile / load the kernels first
        getattr(new, name)(small)
    cases, tiles = [], []
    for n in [int(x) for x in args.real.split(",") if x]:
        start = time.perf_counter()
        P = real_P(n, args.seed + n)
        print(f"real P, {n} nt: partition function {time.perf_counter() - start:.1f} s")
        tiles.append(P)
        cases.append((f"real {n}", P))
    if not tiles:
        tiles.append(real_P(2000, args.seed))
    for n in [int(x) for x in args.synthetic.split(",") if x]:
        cases.append((f"synthetic {n}", None, n))
    rows = []
    old_rate = {}
    for case in cases:
        label, P = case[0], case[1]
        if P is None:
            P = synthetic_P(case[2], tiles, args.seed, args.pairs_per_base)
        n = P.shape[0]
        pairs = int(np.count_nonzero(P >= 1e-5)) if n <= 10_000 else sum(
            int(np.count_nonzero(P[r:r + 512] >= 1e-5)) for r in range(0, n, 512))
        rss_before = max_rss_bytes()
        row = dict(case=label, n=n, pairs_ge_1e5=pairs, new_s={}, old_s={}, old_extrapolated={}, equal={})
        values = {}
        for name in QUANTITIES:
            row["new_s"][name], values[name] = timed(getattr(new, name), P)
        row["new_peak_rss_growth_bytes"] = max_rss_bytes() - rss_before
        for name in QUANTITIES:
            value = values[name]
            if n <= args.old_max:
                seconds_old, value_old = timed(getattr(old, name), P)
                row["old_s"][name] = seconds_old
                old_rate[name] = seconds_old / n ** 2
                same = (value == value_old if isinstance(value, (float, str)) else
                        bool(np.array_equal(value[0], value_old[0]) and value[1] == value_old[1]))
                row["equal"][name] = same
                assert same, f"{label}: {name} differs from the old code"
            elif name in old_rate:
                row["old_s"][name] = old_rate[name] * n ** 2
                row["old_extrapolated"][name] = True
        row["P_bytes"] = P.nbytes
        # what the old code allocates beyond P (its largest temporaries, by their shapes)
        row["old_temporaries_bytes"] = dict(mea=8 * (n + 1) ** 2 + 9 * n * n, ensemble_diversity=16 * n * n,
                                            centroid=10 * n * n, pseudo_bracket=4 * n * n)
        row["mea_pairs"] = int(np.count_nonzero(values["mea"][0] >= 0) // 2)
        rows.append(row)
        del P
        print_row(row)
    load_after = os.getloadavg()
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    save_json(dict(benchmark="ensemble_derived", machine=platform.node(), processor=platform.processor(),
                   cores=os.cpu_count(), load_before=load_before, load_after=load_after,
                   old_max=args.old_max, rows=rows), args.json)


def print_row(row):
    print(f"\n{row['case']}: n = {row['n']:,}, pairs >= 1e-5: {row['pairs_ge_1e5']:,}, P {row['P_bytes'] / 1e9:.2f} GB,"
          f" new code's peak RSS growth {row['new_peak_rss_growth_bytes'] / 1e6:.0f} MB;"
          f" MEA: {row['mea_pairs']:,} pairs")
    print("  old code's largest temporaries beyond P (GB): " + ", ".join(
        f"{k} {v / 1e9:.2f}" for k, v in row["old_temporaries_bytes"].items()))
    print(f"  {'quantity':<20} {'old (s)':>10} {'new (s)':>10} {'speed-up':>9}  equal")
    for name in QUANTITIES:
        t_new = row["new_s"][name]
        t_old = row["old_s"].get(name)
        mark = "~" if row["old_extrapolated"].get(name) else " "
        old_text = f"{mark}{t_old:.2f}" if t_old is not None else "-"
        ratio = f"{t_old / t_new:.0f}x" if t_old is not None and t_new > 0 else "-"
        print(f"  {name:<20} {old_text:>10} {t_new:>10.3f} {ratio:>9}  {row['equal'].get(name, '-')}")


if __name__ == "__main__":
    main()
