"""GPU Nussinov benchmark in the shape of Li, Ranka & Sahni's Table 2, on an H100/H200.

For each length: fill time, traceback time and end-to-end time of every GPU variant (the seed ones
are skipped where their predicted time passes --budget, from the n^3 growth of their last time), the
fraction of the max-plus ceiling of the project's limits.md reached by the fill (useful updates
n^3/6 over time, against 30.8 T/s for int16x2 DPX and 15.5 T/s for int32), and the fastest CPU variant
at small n. Every variant's score at a length must agree; the table says so.

    python3 bench/nussinov_gpu.py [--lengths 2000,6000,...] [--budget 60] [--cpu-max 6000]
"""
import argparse
import json
import math
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from bioaccel.alphabet import encode  # noqa: E402
from bioaccel.fold import VARIANTS, FoldParams, fold_table  # noqa: E402
from bioaccel.fold import _gpu as gpu  # noqa: E402
from bioaccel.fold import _gpu_table  # noqa: E402

CEILING = {"int16x2": 30.8e12, "int32": 15.5e12}      # limits.md, H200/H100, updates per second
SEED_NAMES = {v: VARIANTS.variants[v].paper_name or "bioaccel" for v in VARIANTS.names("gpu")}
DEFAULT_LENGTHS = "2000,6000,10000,14000,18000,22000,26000,37000,65000,100000"


def random_rna(n, seed):
    rng = np.random.default_rng(seed)
    return "".join(np.array(list("ACGU"))[rng.integers(0, 4, n)])


def time_variant(cp, seq, params, variant):
    codes = encode(seq)
    n = len(seq)
    pm = _gpu_table.pair_model(cp, params)
    gpu.check_fits(n, variant, params)
    start, filled, traced = cp.cuda.Event(), cp.cuda.Event(), cp.cuda.Event()
    t0 = time.perf_counter()
    codes_dev = cp.asarray(codes)
    start.record()
    table = gpu.fill(codes_dev, n, params, pm, variant)
    filled.record()
    pair_to = _gpu_table.trace_structure(table, codes_dev, pm)
    traced.record()
    traced.synchronize()
    score = _gpu_table.score_units(table)
    total = time.perf_counter() - t0
    fill_s = cp.cuda.get_elapsed_time(start, filled) / 1e3
    trace_s = cp.cuda.get_elapsed_time(filled, traced) / 1e3
    lanes = "int16x2" if variant == "tiled" and table.values.dtype == np.int16 else "int32"
    del table
    cp.get_default_memory_pool().free_all_blocks()
    return {"score": score, "fill_s": fill_s, "traceback_s": trace_s, "end_to_end_s": total,
            "pairs": int((pair_to >= 0).sum() // 2), "lanes": lanes,
            "ceiling_fraction": (n ** 3 / 6) / fill_s / CEILING[lanes]}


def time_cpu(seq, params):
    codes = encode(seq)
    fold_table(codes[:50], params=params)          # compile outside the timing
    t0 = time.perf_counter()
    table = fold_table(codes, params=params)
    return {"score": int(table[0, len(seq) - 1]), "fill_s": time.perf_counter() - t0}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default=DEFAULT_LENGTHS)
    parser.add_argument("--variants", default=",".join(VARIANTS.names("gpu")))
    parser.add_argument("--budget", type=float, default=30.0, help="skip a run predicted to take longer (s)")
    parser.add_argument("--cpu-max", type=int, default=6000, help="longest length timed on the CPU")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "results", "nussinov_gpu.json"))
    args = parser.parse_args()

    cp = gpu._gpu.require_gpu()
    device = gpu._gpu.device_name()
    params = FoldParams()
    lengths = [int(x) for x in args.lengths.split(",")]
    variants = args.variants.split(",")
    warm = random_rna(700, 0)
    for v in variants:                                             # compile and warm every kernel
        time_variant(cp, warm, params, v)

    rows, last = [], {}
    for n in lengths:
        seq = random_rna(n, n)
        row = {"n": n, "variants": {}}
        for v in variants:
            if v in last:
                n0, t0 = last[v]
                if t0 * (n / n0) ** 3 > args.budget:
                    continue
            try:
                result = time_variant(cp, seq, params, v)
            except MemoryError as exc:                              # ResourceError: refused up front
                result = {"refused": str(exc)}
            row["variants"][v] = result
            if "fill_s" in result:
                last[v] = (n, result["end_to_end_s"])
            print(f"  n={n:>7} {v:<15} {json.dumps(result)}", flush=True)
        if n <= args.cpu_max:
            row["cpu"] = time_cpu(seq, params)
        scores = {r["score"] for r in row["variants"].values() if "score" in r}
        if row.get("cpu"):
            scores.add(row["cpu"]["score"])
        row["scores_agree"] = len(scores) == 1
        rows.append(row)

    print(f"\nNussinov fill on {device}: seconds (fraction of the max-plus ceiling of limits.md)")
    header = f"{'n':>7} " + " ".join(f"{SEED_NAMES[v]:>18}" for v in variants)
    header += f" {'trace(tiled)':>12} {'e2e(tiled)':>10} {'CPU best':>9} agree"
    print(header)
    for row in rows:
        cells = []
        for v in variants:
            r = row["variants"].get(v)
            if not r:
                cells.append(f"{'-':>18}")
            elif "refused" in r:
                cells.append(f"{'too big':>18}")
            else:
                cells.append(f"{r['fill_s']:>9.3f} ({r['ceiling_fraction']:5.1%})")
        fast = row["variants"].get("tiled", {})
        cpu = row.get("cpu")
        print(f"{row['n']:>7} " + " ".join(cells)
              + f" {fast.get('traceback_s', float('nan')):>12.3f} {fast.get('end_to_end_s', float('nan')):>10.3f}"
              + f" {cpu['fill_s'] if cpu else float('nan'):>9.2f} {'yes' if row['scores_agree'] else 'NO'}")
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    payload = {"device": device, "ceilings": CEILING, "rows": rows}
    with open(args.json, "w") as fh:
        json.dump(payload, fh, indent=1)
    if os.environ.get("OUT"):
        with open(os.path.join(os.environ["OUT"], "nussinov_gpu.json"), "w") as fh:
            json.dump(payload, fh, indent=1)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
