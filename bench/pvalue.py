"""PVALUETOSCORE benchmarks (Giraud & Varré, section 5.3 and Figure 11).

1. Giraud & Varré's experiment: BUCKETSCOREDISTRIBUTION with N = 4 slices and B = 3600 buckets, then
   the score threshold of P = 1e-4, on random matrices of lengths 16 to 64 (and 65, their largest:
   1426 s on one CPU core in 2010, 77x faster on a GTX 280). CPU with one thread against all cores
   in this one run (their ratio is the meaningful number on a shared machine); on the GPU when there
   is one, with the rate of word enumeration and its fraction of a ceiling of one shared-memory
   atomic increment per lane per cycle (SMs x 32 x clock): each word costs one such increment.
2. The JASPAR 2024 CORE vertebrate matrices at P = 1e-4, bioaccel's exact thresholds against MOODS
   (``MOODS.tools.threshold_from_p``) and TFM-Pvalue (``pytfmpval``), installed from PyPI, on the same
   log-odds matrices, in this one run: time, and how many thresholds each gets optimal (the smallest
   attainable score whose P-value is <= p), valid but not optimal, or invalid, judged by enumerating
   every word of each matrix of up to 12 columns (ties within 1e-9 are one score).
3. Thresholds of every matrix of JASPAR 2024 CORE (latest versions) at P = 1e-4: the exact variant on
   one thread and on all cores (one parallel kernel over the matrices), and the bucket variant.

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

from bioaccel.runtime.parallel import threads  # noqa: E402
from bioaccel.results.values import format_number  # noqa: E402
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
        from bioaccel.runtime.gpu import device_name, require_gpu

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
    thresholds(motifs[0], p, cache=False)                     # compile outside the timings
    out = {"matrices": len(motifs), "load_s": load_s,
           "lengths": [min(m.length for m in motifs), max(m.length for m in motifs)]}
    t = time.perf_counter()
    res = thresholds(motifs, p, threads=cores, cache=False)
    out["exact_all_cores_s"] = time.perf_counter() - t
    print(f"  JASPAR exact, {cores} threads: {out['exact_all_cores_s']:.2f} s", flush=True)
    out["unreachable"] = sum(1 for r in res if not math.isfinite(r.score))
    out["not_proven_optimal"] = sum(1 for r in res if not r.exact)
    if single_thread:
        t = time.perf_counter()
        res1 = thresholds(motifs, p, threads=1, cache=False)
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


TIE = 1e-9     # word scores this close are one score (mathematically equal sums differ by far less)


def judge(scores, t, p):
    """'optimal', 'valid' or 'invalid': threshold ``t`` of log-odds ``scores`` (m <= 12 columns, uniform
    background) judged by enumerating every word, meet in the middle (halves of <= 4**6 words)."""
    m = scores.shape[0]
    h = m // 2

    def sums(cols):
        total = np.zeros(1)
        for row in scores[cols]:
            total = (total[:, None] + row[None, :]).ravel()
        return total

    left, right = sums(slice(0, h)), np.sort(sums(slice(h, m)))
    n = 4.0 ** m

    def tail(x):                        # P(score >= x), words tied with x included
        return float((right.size - np.searchsorted(right, x - TIE - left, side="left")).sum()) / n

    best = float(left.max() + right[-1])
    if not math.isfinite(t) or t > best + TIE:             # nothing passes
        return "optimal" if tail(best) > p else "valid"
    if tail(t) > p * (1 + 1e-9):
        return "invalid"
    idx = np.searchsorted(right, t - TIE - left, side="left") - 1      # the best word below t, per left half
    below = [left[i] + right[j] for i, j in enumerate(idx) if j >= 0]
    if not below:
        return "optimal"
    return "optimal" if tail(max(below)) > p * (1 + 1e-9) else "valid"


def _tfm_pvalue(motifs, p, timeout=120):
    """(seconds, thresholds) of TFM-Pvalue on every motif. It runs in child processes (its C++ core can
    abort, or exhaust memory on a long degenerate matrix): a child that dies is replaced from the next
    motif on, and the motif it died on gets no threshold (None). The time is the sum of the children's."""
    import multiprocessing
    import tempfile

    folder = tempfile.mkdtemp(prefix="tfm-")
    paths = []
    for k, m in enumerate(motifs):             # its reader takes a file: rows A, C, G, T of the log-odds
        path = os.path.join(folder, f"{k}.txt")
        with open(path, "w") as handle:
            handle.write("\n".join(" ".join(f"{v:.17g}" for v in row) for row in m.scores.T) + "\n")
        paths.append(path)

    def work(conn, start):
        from pytfmpval import tfmp

        for k in range(start, len(paths)):
            t = time.perf_counter()
            value = tfmp.pval2score(tfmp.create_matrix(paths[k], mat_type="pwm"), p)
            conn.send((k, time.perf_counter() - t, value))

    ctx = multiprocessing.get_context("fork")
    values, seconds, start, failed = [None] * len(paths), 0.0, 0, []
    while start < len(paths):
        parent, child = ctx.Pipe()
        proc = ctx.Process(target=work, args=(child, start))
        proc.start()
        waited = 0.0
        while start < len(paths):
            if parent.poll(1.0):
                k, dt, value = parent.recv()
                values[k], seconds, start, waited = value, seconds + dt, k + 1, 0.0
            elif not proc.is_alive() or waited > timeout:
                failed.append(motifs[start].motif_id)
                start += 1
                break
            else:
                waited += 1.0
        proc.kill()
        proc.join()
    return seconds, values, (f"no answer for {len(failed)} ({', '.join(failed)}): killed or crashed"
                             if failed else "")


def _cli_thresholds(p, cached):
    """(seconds, thresholds) of ``bioaccel motif threshold jaspar:2024/CORE/vertebrates --pvalue p`` run as
    a command: with ``--no-cache``, or a second run over a fresh threshold cache (the first untimed)."""
    import subprocess
    import tempfile

    folder = tempfile.mkdtemp(prefix="pvalue-cli-")
    out = os.path.join(folder, "thresholds.tsv")
    env = dict(os.environ, BIOACCEL_CACHE_DIR=os.path.join(folder, "cache"))
    argv = [sys.executable, "-m", "bioaccel", "motif", "threshold", "jaspar:2024/CORE/vertebrates", "--pvalue",
            repr(p), "-q", "-o", out] + ([] if cached else ["--no-cache"])
    if cached:
        subprocess.run(argv, env=env, check=True)
    t = time.perf_counter()
    subprocess.run(argv, env=env, check=True)
    seconds = time.perf_counter() - t
    with open(out) as handle:
        head = handle.readline().rstrip("\n").split("\t")
        column = head.index("score")
        # the table writes NA where no word is that rare (the API's inf)
        values = [math.inf if cell == "NA" else float(cell) for cell in (line.split("\t")[column] for line in handle)]
    for name in os.listdir(folder):
        if name == "cache":
            for f in os.listdir(os.path.join(folder, name)):
                os.unlink(os.path.join(folder, name, f))
            os.rmdir(os.path.join(folder, name))
        else:
            os.unlink(os.path.join(folder, name))
    os.rmdir(folder)
    return seconds, values


def peers_vertebrates(p, cores):
    """Thresholds of every JASPAR 2024 CORE vertebrate matrix at ``p`` by bioaccel, MOODS's
    threshold_from_p and TFM-Pvalue, on the same log-odds matrices, in this one run; each judged by
    enumeration where the matrix has at most 12 columns."""
    motifs = read_motifs("jaspar:2024/CORE/vertebrates")
    thresholds(motifs[:4], p, cache=False)                          # compile outside the timings
    judged = [i for i, m in enumerate(motifs) if m.length <= 12]
    tools = {}

    def record(name, seconds, values, note=""):
        verdicts = [judge(motifs[i].scores, values[i], p) if values[i] is not None else "no answer" for i in judged]
        tools[name] = {"seconds": seconds, "optimal": verdicts.count("optimal"),
                       "valid_not_optimal": verdicts.count("valid"), "invalid": verdicts.count("invalid"),
                       "note": note}
        print(f"  {name}: {seconds:.2f} s; of {len(judged)} judged: {tools[name]['optimal']} optimal, "
              f"{tools[name]['valid_not_optimal']} valid, {tools[name]['invalid']} invalid", flush=True)

    for n in (cores, 1):
        t = time.perf_counter()
        res = thresholds(motifs, p, threads=n, cache=False)     # the search, not the cache on disk
        seconds = time.perf_counter() - t
        unproven = sum(1 for r in res if not r.exact)
        record(f"bioaccel exact, {n} thread{'s' if n > 1 else ''}", seconds, [r.score for r in res],
               f"{len(res) - unproven} exact, {unproven} valid but not proven optimal (lengths "
               f"{sorted(r_m.length for r_m, r in zip(motifs, res) if not r.exact)})")
    for label, cached in (("--no-cache", False), ("second run, thresholds cached", True)):
        seconds, values = _cli_thresholds(p, cached)
        assert values == [r.score for r in res], "the command line's thresholds differ from the API's"
        record(f"bioaccel motif threshold CLI, {label}", seconds, values,
               "the whole command: Python's start, imports, reading JASPAR, writing the table")
    try:
        import MOODS.tools
    except ImportError:
        print("  MOODS: not installed (pip install MOODS-python)")
    else:
        matrices = [[list(map(float, col)) for col in m.scores.T] for m in motifs]
        t = time.perf_counter()
        values = [MOODS.tools.threshold_from_p(mat, [0.25] * 4, p) for mat in matrices]
        record("MOODS threshold_from_p", time.perf_counter() - t, values)
    try:
        import pytfmpval  # noqa: F401
    except ImportError:
        print("  TFM-Pvalue: not installed (pip install pytfmpval)")
    else:
        record("TFM-Pvalue pval2score", *_tfm_pvalue(motifs, p))
    return {"matrices": len(motifs), "judged_up_to_12_columns": len(judged), "tools": tools}


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
    ap.add_argument("--no-peers", action="store_true", help="skip the comparison with MOODS and TFM-Pvalue")
    ap.add_argument("--peers-only", action="store_true",
                    help="only the comparison with MOODS and TFM-Pvalue (and the command line's rows)")
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
    rows, ceiling = seed_experiment(lengths, cpu_max, gpu, args.repeats, args.p, cores) if not args.peers_only \
        else ([], None)
    jaspar = peers = None
    if not args.no_peers and not args.gpu_only:
        print(f"JASPAR 2024 CORE vertebrates at P = {args.p}, every tool on the same log-odds matrices "
              "(uniform background), in this run:", flush=True)
        peers = peers_vertebrates(args.p, cores)
    if not args.no_jaspar and not args.gpu_only and not args.peers_only:
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
        print(f"  unreachable (best word more probable than P): {jaspar['unreachable']}; valid but not proven "
              f"optimal (too long to list every word at the cut): {jaspar['not_proven_optimal']}")
        if "bucket_all_cores_s" in jaspar:
            print(f"  bucket (N = min(4, m), B = 3600): {jaspar['bucket_all_cores_s']:.2f} s; thresholds within "
                  f"the paper's error bound of the exact ones: "
                  f"{jaspar['bucket_agrees_with_exact']}/{jaspar['matrices']}")
    if peers:
        print()
        print(f"Thresholds at P = {args.p} for the {peers['matrices']} JASPAR 2024 CORE vertebrate matrices (judged "
              f"by enumerating every word of the {peers['judged_up_to_12_columns']} with <= 12 columns); load "
              f"average {os.getloadavg()[0]:.1f}:")
        print(f"{'tool':<30} {'seconds':>8} {'optimal':>8} {'valid':>6} {'invalid':>8}")
        for name, t in peers["tools"].items():
            print(f"{name:<30} {t['seconds']:>8.2f} {t['optimal']:>8} {t['valid_not_optimal']:>6} {t['invalid']:>8}"
                  + (f"  ({t['note']})" if t["note"] else ""))
    result = {"benchmark": "pvalue", "machine": platform.node(), "cpu_threads": cores,
              "gpu": ceiling[0] if ceiling else None,
              "gpu_ceiling_words_per_s": ceiling[1] if ceiling else None,
              "p": args.p, "seed_experiment": rows, "jaspar2024_core": jaspar, "peers_vertebrates": peers}
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
