"""The windowed BPPart sweep on the CPU, its two variants in the same run: ``rows`` (the first form:
QIa's and QIm's double sums as row updates, one row at a time) against ``blocked`` (register-blocked
products, 16 rows at a time; the default), docs/bppart.md, "Windows".

Each measurement is one child process that loads Numba's cached code on a small pair first, then
times ``windowed_partition`` alone (query 23 nt, ``--window-target 128``, no query window):
CPU seconds (user + system of the process, all threads) and wall seconds. The variants alternate,
and the pair's results are compared: log Z, every window pair's log Z and probability, the sites
(``--sites``), and on a shorter pair the binding profile (``--binding-size``).

    python bench/bppart_windows_cpu.py --json docs/results/bppart_windows_cpu_blocked.json
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import save_json  # noqa: E402

QUERY = "UAGACAAGCCUUACGGAUCGUCU"   # 23 nt, as bench/bppart.py
SRC = str(Path(__file__).resolve().parents[1] / "src")

CHILD = """
import json, random, resource, sys, time
sys.path.insert(0, {src!r})
import numpy as np
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.interact._partition_windows import windowed_partition, pick_sites
rng = random.Random(3000 + {n})
a = encode({query!r}); rb = np.ascontiguousarray(encode("".join(rng.choice("ACGU") for _ in range({n})))[::-1])
L1, L2 = len(a), min({n}, {window} + 1)
windowed_partition(a, rb[:min({n}, 3 * L2)].copy(), PartitionParams(), L1, L2, {threads}, {binding}, {variant!r})
before, start = resource.getrusage(resource.RUSAGE_SELF), time.perf_counter()
w = windowed_partition(a, rb, PartitionParams(), L1, L2, {threads}, {binding}, {variant!r})
wall, after = time.perf_counter() - start, resource.getrusage(resource.RUSAGE_SELF)
np.savez({out!r}, log_zs=w.log_zs, probabilities=w.probabilities,
         binding=w.binding if w.binding is not None else np.zeros(0))
print(json.dumps({{"wall_s": wall, "cpu_s": after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime,
                  "log_z": w.log_z, "sites": pick_sites(w.probabilities, L2, {sites})}}))
"""


def measure(n: int, variant: str, threads: int, window: int, binding: bool, sites: int, out: str) -> dict:
    code = CHILD.format(src=SRC, n=n, query=QUERY, window=window, threads=threads, binding=binding, variant=variant,
                        out=out, sites=sites)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return json.loads(done.stdout.splitlines()[-1])


def rel(x: np.ndarray, y: np.ndarray) -> float:
    """The largest relative difference of two arrays of logs (absolute below 1; equal infinities 0)."""
    finite = np.isfinite(y)
    if not np.array_equal(finite, np.isfinite(x)):
        return float("inf")
    return float(np.max(np.abs(x[finite] - y[finite]) / np.maximum(1.0, np.abs(y[finite])), initial=0.0))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="*", default=[500, 2000], help="target lengths (nt)")
    parser.add_argument("--window", type=int, default=128, help="--window-target")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=1, help="runs of each variant per size (alternating)")
    parser.add_argument("--sites", type=int, default=5)
    parser.add_argument("--binding-size", type=int, default=300, help="target of the binding-profile check (0: none)")
    parser.add_argument("--binding-window", type=int, default=32)
    parser.add_argument("--json", default="docs/results/bppart_windows_cpu_blocked.json")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"{os.cpu_count()} cores; threads {args.threads}; query {len(QUERY)} nt; window {args.window}")
    rows = []
    cases = [(n, args.window, False) for n in args.sizes]
    if args.binding_size:
        cases.append((args.binding_size, args.binding_window, True))
    with tempfile.TemporaryDirectory() as tmp:
        for n, window, binding in cases:
            runs = {"rows": [], "blocked": []}
            for r in range(args.repeats):
                for variant in ("rows", "blocked"):
                    runs[variant].append(measure(n, variant, args.threads, window, binding, args.sites,
                                                 f"{tmp}/{variant}.npz"))
            old, new = np.load(f"{tmp}/rows.npz"), np.load(f"{tmp}/blocked.npz")
            best = {v: min(runs[v], key=lambda m: m["cpu_s"]) for v in runs}
            rows.append({
                "query": len(QUERY), "target": n, "window": window, "binding": binding, "threads": args.threads,
                "rows_cpu_s": best["rows"]["cpu_s"], "rows_wall_s": best["rows"]["wall_s"],
                "blocked_cpu_s": best["blocked"]["cpu_s"], "blocked_wall_s": best["blocked"]["wall_s"],
                "cpu_ratio": best["rows"]["cpu_s"] / best["blocked"]["cpu_s"],
                "all_cpu_s": {v: [m["cpu_s"] for m in runs[v]] for v in runs},
                "log_z_rows": best["rows"]["log_z"], "log_z_blocked": best["blocked"]["log_z"],
                "log_z_rel": abs(best["rows"]["log_z"] - best["blocked"]["log_z"]) / abs(best["rows"]["log_z"]),
                "window_log_z_rel": rel(new["log_zs"], old["log_zs"]),
                "probability_abs": float(np.max(np.abs(new["probabilities"] - old["probabilities"]), initial=0.0)),
                "binding_abs": float(np.max(np.abs(new["binding"] - old["binding"]), initial=0.0)),
                "sites_equal": best["rows"]["sites"] == best["blocked"]["sites"],
            })
            print(f"  {len(QUERY)} x {n}: rows {best['rows']['cpu_s']:.2f} s CPU, blocked {best['blocked']['cpu_s']:.2f} s CPU",
                  flush=True)
    load_after = os.getloadavg()
    print("| pair | window | binding | rows: CPU (s) | rows: wall (s) | blocked: CPU (s) | blocked: wall (s) | "
          "CPU ratio | log Z rel. diff | window log Z rel. diff | binding abs. diff | sites equal |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['query']} x {r['target']:,} | {r['window']} | {'yes' if r['binding'] else 'no'} | "
              f"{r['rows_cpu_s']:.2f} | {r['rows_wall_s']:.2f} | {r['blocked_cpu_s']:.2f} | {r['blocked_wall_s']:.2f} | "
              f"{r['cpu_ratio']:.2f}x | {r['log_z_rel']:.1e} | {r['window_log_z_rel']:.1e} | {r['binding_abs']:.1e} | "
              f"{r['sites_equal']} |")
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    save_json({"benchmark": "bppart_windows_cpu_blocked", "load_before": load_before, "load_after": load_after,
               "cores": os.cpu_count(), "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
