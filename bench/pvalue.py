"""PVALUETOSCORE benchmarks (Giraud & Varré, section 5.3 and Figure 11).

1. Giraud & Varré's experiment: BUCKETSCOREDISTRIBUTION with N = 4 slices and B = 3600 buckets, then
   the score threshold of P = 1e-4, on random matrices of lengths 16 to 64 (and 65, their largest:
   1426 s on one CPU core in 2010, 77x faster on a GTX 280). CPU with one thread against all cores
   in this one run (their ratio is the meaningful number on a shared machine); on the GPU when there
   is one, with the rate of word enumeration and its fraction of a ceiling of one shared-memory
   atomic increment per lane per cycle (SMs x 32 x clock): each word costs one such increment.
2. Thresholds of every matrix of JASPAR 2024 CORE (latest versions) at P = 1e-4: the exact variant on
   one thread and on all cores (thread pool over matrices), and the bucket variant (N = min(4, m)).

Prints a table and writes JSON to bench/results/pvalue.json.

    python3 bench/pvalue.py                      # everything that fits (a few minutes on 2 cores)
    python3 bench/pvalue.py --quick              # lengths 16..40, JASPAR exact only
    python3 bench/pvalue.py --gpu-only           # the GPU column only (lengths up to 65)
"""
import argparse
import json
import math
import os
import platform
import sys
import time

# A shared, oversubscribed machine makes OpenMP's spinning barrier stall each parallel region for a
# scheduler slice or more; sleeping waits keep the all-cores column meaningful there.
os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")

import numba  # noqa: E402
import numpy as np  # noqa: E402

from bioaccel._parallel import threads  # noqa: E402
from bioaccel._results import format_number  # noqa: E402
from bioaccel.motif import PSSM, read_motifs, thresholds  # noqa: E402
from bioaccel.motif._bucket import bucket_distribution, slice_bounds  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
SEED_CPU_SECONDS_65 = 1426.0
SEED_GTX280_SPEEDUP = 77.0


def random_pssm(rng, m):
    """Log-odds of a random count matrix (Dirichlet columns, 20 sites), FIMO's pseudocount."""
    probs = rng.dirichlet(np.full(4, 0.5), size=m)
    return PSSM.from_counts(probs * 20.0, motif_id=f"random{m}")


def timed(fn, repeats):
    best = math.inf
    out = None
    for _ in range(repeats):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def bucket_threshold(pssm, backend, p, slices=4, buckets=3600):
    return bucket_distribution(pssm, slices=slices, buckets=buckets, backend=backend).threshold(p)


def gpu_ceiling():
    """(name, one shared atomic per lane per cycle in words/s) or None."""
    try:
        from bioaccel._gpu import device_name, require_gpu

        cp = require_gpu()
        props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
        return device_name(), props["multiProcessorCount"] * 32 * props["clockRate"] * 1e3
    except Exception:
        return None


def seed_experiment(lengths, cpu_max, gpu, repeats, p, cores):
    rows = []
    rng = np.random.default_rng(2010)
    ceiling = gpu_ceiling() if gpu else None
    if ceiling:                          # compile and warm the kernel outside the timings
        bucket_threshold(random_pssm(rng, 16), "gpu", p)
    bucket_threshold(random_pssm(rng, 16), "cpu", p)
    for m in lengths:
        pssm = random_pssm(rng, m)
        words = sum(4 ** (b - a) for a, b in slice_bounds(m, 4))
        row = {"length": m, "words": words}
        if m <= cpu_max:
            with threads(1):
                row["cpu1_s"], r1 = timed(lambda: bucket_threshold(pssm, "cpu", p), repeats)
            with threads(cores):
                row["cpuN_s"], rn = timed(lambda: bucket_threshold(pssm, "cpu", p), repeats)
            row["cores_speedup"] = row["cpu1_s"] / row["cpuN_s"]
            row["threshold"] = rn.score
            assert r1.score == rn.score
        if ceiling:
            row["gpu_s"], rg = timed(lambda: bucket_threshold(pssm, "gpu", p), repeats)
            row["gpu_words_per_s"] = words / row["gpu_s"]
            row["gpu_ceiling_fraction"] = row["gpu_words_per_s"] / ceiling[1]
            if "threshold" in row:
                row["gpu_equal_cpu"] = rg.score == row["threshold"]
                row["gpu_speedup_vs_cpu1"] = row["cpu1_s"] / row["gpu_s"]
            row["threshold"] = rg.score
        rows.append(row)
        print("  " + ", ".join(f"{k}={format_number(v, digits=4)}" for k, v in row.items()), flush=True)
    return rows, ceiling


def jaspar_thresholds(p, cores, with_bucket, single_thread):
    t = time.perf_counter()
    motifs = read_motifs("jaspar:2024/CORE")
    load_s = time.perf_counter() - t
    thresholds(motifs[0], p)                      # compile outside the timings
    out = {"matrices": len(motifs), "load_s": load_s,
           "lengths": [min(m.length for m in motifs), max(m.length for m in motifs)]}
    t = time.perf_counter()
    res = thresholds(motifs, p, threads=cores)
    out["exact_all_cores_s"] = time.perf_counter() - t
    print(f"  JASPAR exact, {cores} threads: {out['exact_all_cores_s']:.2f} s", flush=True)
    out["unreachable"] = sum(1 for r in res if not math.isfinite(r.score))
    out["exact_max_relative_gap"] = max((r.high - r.low) / p for r in res if math.isfinite(r.score))
    if single_thread:
        t = time.perf_counter()
        res1 = thresholds(motifs, p, threads=1)
        out["exact_1_thread_s"] = time.perf_counter() - t
        print(f"  JASPAR exact, 1 thread: {out['exact_1_thread_s']:.2f} s", flush=True)
        assert [r.score for r in res1] == [r.score for r in res]
    if with_bucket:
        bucket_distribution(motifs[0], slices=min(4, motifs[0].length))
        t = time.perf_counter()
        agree = 0
        for m, r in zip(motifs, res):
            n = min(4, m.length)
            tb = bucket_distribution(m, slices=n).threshold(p)
            # the paper's bound on scores plus one bucket of threshold search, plus the exact variant's own gap
            allowed = (2 + math.ceil(math.log2(n))) * tb.step + (r.score - r.score_low)
            agree += (not math.isfinite(r.score) and not math.isfinite(tb.score)) or (
                math.isfinite(r.score) and math.isfinite(tb.score) and abs(tb.score - r.score) <= allowed)
        out["bucket_all_cores_s"] = time.perf_counter() - t
        out["bucket_agrees_with_exact"] = agree
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--lengths", default="16,24,32,40,44,48,52,56,60,64,65")
    ap.add_argument("--cpu-max-length", type=int, default=52,
                    help="longest matrix run on the CPU (4 slices of 13 columns: 4**13 words each)")
    ap.add_argument("--repeats", type=int, default=1)
    ap.add_argument("--p", type=float, default=1e-4)
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--gpu-only", action="store_true")
    ap.add_argument("--no-jaspar", action="store_true")
    ap.add_argument("--out", default=os.path.join(HERE, "results", "pvalue.json"))
    args = ap.parse_args(argv)
    cores = numba.config.NUMBA_NUM_THREADS
    lengths = [int(x) for x in args.lengths.split(",")]
    cpu_max = -1 if args.gpu_only else args.cpu_max_length
    if args.quick:
        lengths = [m for m in lengths if m <= 40]
    gpu = gpu_ceiling() is not None
    print(f"PVALUETOSCORE, N = 4 slices, B = 3600, P = {args.p}; {cores} CPU threads; "
          f"GPU: {gpu_ceiling()[0] if gpu else 'none'}", flush=True)
    rows, ceiling = seed_experiment(lengths, cpu_max, gpu, args.repeats, args.p, cores)
    jaspar = None
    if not args.no_jaspar and not args.gpu_only:
        jaspar = jaspar_thresholds(args.p, cores, with_bucket=not args.quick, single_thread=True)

    print()
    print("Giraud & Varré's experiment (BUCKETSCOREDISTRIBUTION + PVALUETOSCORE, N = 4): times are best of "
          f"{args.repeats}; ratios measured in this run")
    head = f"{'m':>4} {'words':>12} {'1 thread':>10} {f'{cores} threads':>10} {'cores x':>8}"
    if gpu:
        head += f" {'GPU s':>9} {'GPU/1thr x':>10} {'Gwords/s':>9} {'of ceiling':>10}"
    print(head)
    for r in rows:
        line = (f"{r['length']:>4} {r['words']:>12,} {_cell(r.get('cpu1_s'))} {_cell(r.get('cpuN_s'))} "
                f"{_cell(r.get('cores_speedup'), 'x', 8)}")
        if gpu:
            line += (f" {_cell(r.get('gpu_s'), '', 9)} {_cell(r.get('gpu_speedup_vs_cpu1'), 'x', 10)} "
                     f"{_cell(r['gpu_words_per_s'] / 1e9, '', 9)} {_cell(r['gpu_ceiling_fraction'] * 100, '%', 10)}")
        print(line)
    print(f"(Giraud & Varré, 2010: m = 65 took {SEED_CPU_SECONDS_65:.0f} s on one CPU core; "
          f"GTX 280 {SEED_GTX280_SPEEDUP:.0f}x faster)")
    if jaspar:
        print()
        print(f"JASPAR 2024 CORE, {jaspar['matrices']} matrices "
              f"(lengths {jaspar['lengths'][0]}..{jaspar['lengths'][1]}), thresholds at P = {args.p}:")
        print(f"  exact, {cores} threads: {jaspar['exact_all_cores_s']:.2f} s"
              + (f"; 1 thread: {jaspar['exact_1_thread_s']:.2f} s "
                 f"(cores x {jaspar['exact_1_thread_s'] / jaspar['exact_all_cores_s']:.2f})"
                 if "exact_1_thread_s" in jaspar else ""))
        print(f"  unreachable (best word more probable than P): {jaspar['unreachable']}; largest certified "
              f"P-value gap: {jaspar['exact_max_relative_gap']:.2e} x P")
        if "bucket_all_cores_s" in jaspar:
            print(f"  bucket (N = min(4, m), B = 3600): {jaspar['bucket_all_cores_s']:.2f} s; thresholds within "
                  f"the paper's error bound of the exact ones: "
                  f"{jaspar['bucket_agrees_with_exact']}/{jaspar['matrices']}")
    result = {"benchmark": "pvalue", "machine": platform.node(), "cpu_threads": cores,
              "gpu": ceiling[0] if ceiling else None,
              "gpu_ceiling_words_per_s": ceiling[1] if ceiling else None,
              "p": args.p, "seed_experiment": rows, "jaspar2024_core": jaspar}
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as handle:
        json.dump(result, handle, indent=1)
    print(f"\nwrote {args.out}")
    return 0


def _cell(v, unit="", width=10):
    if v is None:
        return f"{'-':>{width}}"
    return f"{format_number(v, digits=3)}{unit}".rjust(width)


if __name__ == "__main__":
    sys.exit(main())
