"""Nussinov on the CPU: Li, Ranka & Sahni's Table 1 (CPU1, OMP1, CPU2, OMP2) plus bioaccel's tiled
variant, and ViennaRNA's RNAfold on the same sequences, all in one process.

Times are the fill of the score table (as in the paper's Table 1), the best of --repeats rounds taken in
turns so that a burst of load on a shared machine hits every variant alike (a variant under 0.1 s runs
five times per round, as timeit's autorange would); "x" is the speedup over
CPU1 measured in the same run. RNAfold (``RNA.fold``: minimum free energy and its structure) is what a
user would run instead; it is a different, energy-based model and includes its own traceback, so its
column compares tools, not algorithms.

    python3 bench/nussinov_cpu.py [--lengths 500,1000,2000] [--repeats 3] [--threads 0]
"""
import argparse
import json
import os
import platform
import sys
import time

import numpy as np

from bioaccel.runtime.parallel import available_cores, threads as using_threads
from bioaccel.inputs.alphabet import encode
from bioaccel.fold import VARIANTS, FoldParams
from bioaccel.fold import _cpu, _tiled_cpu

# (column name: the paper's name, or the variant's own; bioaccel variant), from the variant registry
COLUMNS = [(VARIANTS.variants[v].paper_name or v, v)
           for v in ("naive", "naive-parallel", "cache", "cache-parallel", "tiled")]
OURS = COLUMNS[-1][0]


def random_rna(n, rng):
    return "".join(rng.choice(list("ACGU"), n))


def time_fill(codes, params, variant, tile=_tiled_cpu.TILE):
    start = time.perf_counter()
    table, base = _cpu.fill_table(codes, params, variant, tile=tile)
    elapsed = time.perf_counter() - start
    return elapsed, int(table[base[0] + len(codes) - 1])


def time_rnafold(seq):
    import RNA

    start = time.perf_counter()
    RNA.fold(seq)
    return time.perf_counter() - start


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="500,1000,2000", help="comma-separated sequence lengths")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--threads", type=int, default=0, help="CPU threads (0: all cores)")
    parser.add_argument("--min-loop", type=int, default=1,
                        help="1, the default, is seed 001's recurrence (Chang et al.)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tile", type=int, default=_tiled_cpu.TILE, help="tile edge of the tiled variant")
    parser.add_argument("--no-rnafold", action="store_true", help="skip ViennaRNA")
    parser.add_argument("--cell-types", action="store_true",
                        help="also time the tiled variant with int16, int32 and float32 cells at the "
                             "largest length (the evidence for its choice of int16, then int32)")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "results", "nussinov_cpu.json"))
    args = parser.parse_args(argv)

    load_before = os.getloadavg()[0]  # other users of a shared machine skew parallel timings
    lengths = [int(x) for x in args.lengths.split(",") if x]
    with using_threads(args.threads) as threads:
        run(args, threads, lengths, load_before)


def run(args, threads, lengths, load_before):
    params = FoldParams(min_loop=args.min_loop)
    pairs = params.pair_table()
    rng = np.random.default_rng(args.seed)
    have_rnafold = not args.no_rnafold
    if have_rnafold:
        try:
            import RNA  # noqa: F401
        except ImportError:
            have_rnafold = False

    warm = np.ascontiguousarray(rng.integers(0, 4, 300), dtype=np.uint8)  # compile (or load) everything
    for _, variant in COLUMNS:
        _cpu.fill_table(warm, params, variant)

    rows = []
    for n in lengths:
        seq = random_rna(n, rng)
        codes = encode(seq)
        best = {variant: float("inf") for _, variant in COLUMNS}
        runs = {variant: [] for _, variant in COLUMNS}
        scores = {}
        vienna = float("inf")
        for _ in range(args.repeats):
            for _, variant in COLUMNS:
                # like timeit's autorange: a fast variant runs several times per round (up to ~0.5 s)
                for _ in range(1 if best[variant] > 0.1 else 5):
                    elapsed, scores[variant] = time_fill(codes, params, variant, args.tile)
                    best[variant] = min(best[variant], elapsed)
                    runs[variant].append(elapsed)
            if have_rnafold:
                vienna = min(vienna, time_rnafold(seq))
        if len(set(scores.values())) != 1:
            raise SystemExit(f"variants disagree at n={n}: {scores}")
        cpu1 = best["naive"]
        row = {"n": n, "score": scores["naive"], "updates": n ** 3 / 6,
               "seconds": {name: best[variant] for name, variant in COLUMNS},
               "speedup_over_cpu1": {name: cpu1 / best[variant] for name, variant in COLUMNS},
               "all_runs_seconds": {name: runs[variant] for name, variant in COLUMNS}}
        if have_rnafold:
            row["seconds"]["RNAfold"] = vienna
            row["speedup_over_cpu1"]["RNAfold"] = cpu1 / vienna
        rows.append(row)

    header = f"{'n':>6}  {'CPU1 s':>8}"
    for name, _ in COLUMNS[1:]:
        header += f"  {name + ' s':>8} {'x':>6}"
    header += f"  {OURS + ' G upd/s':>13}"
    if have_rnafold:
        header += f"  {'RNAfold s*':>10} {'x':>6}"
    print(f"Nussinov fill, min_loop={args.min_loop}, tile {args.tile}, {threads} thread(s) of "
          f"{available_cores()} core(s), load average {load_before:.1f} before the run; "
          f"x = speedup over CPU1 in this run (best of {args.repeats} rounds)")
    print(header)
    for row in rows:
        s, x = row["seconds"], row["speedup_over_cpu1"]
        line = f"{row['n']:>6}  {s['CPU1']:>8.3f}"
        for name, _ in COLUMNS[1:]:
            line += f"  {s[name]:>8.3f} {x[name]:>6.1f}"
        line += f"  {row['updates'] / s[OURS] / 1e9:>13.2f}"
        if have_rnafold:
            line += f"  {s['RNAfold']:>10.3f} {x['RNAfold']:>6.1f}"
        print(line)
    if have_rnafold:
        print("* RNAfold (ViennaRNA RNA.fold) minimises free energy, a different model, and includes its "
              "traceback; it is the tool users would pick instead, not the same computation.")

    cell_types = {}
    if args.cell_types:
        n = lengths[-1]
        codes = encode(random_rna(n, rng))
        for dtype in ("int16", "int32", "float32"):
            _tiled_cpu.fill_tiled(warm, pairs, args.min_loop, dtype)
        best = {dtype: float("inf") for dtype in ("int16", "int32", "float32")}
        for _ in range(args.repeats):
            for dtype in best:
                start = time.perf_counter()
                _tiled_cpu.fill_tiled(codes, pairs, args.min_loop, dtype, tile=args.tile)
                best[dtype] = min(best[dtype], time.perf_counter() - start)
        cell_types = {"n": n, "seconds": best}
        print(f"tiled variant by cell type at n={n} (x = speedup over float32 in this run):")
        for dtype, seconds in best.items():
            print(f"  {dtype:>8}  {seconds:8.3f} s  {best['float32'] / seconds:5.2f}x  "
                  f"{n ** 3 / 6 / seconds / 1e9:6.2f} G upd/s")

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as handle:
        json.dump({
            "benchmark": "nussinov_cpu", "min_loop": args.min_loop, "repeats": args.repeats,
            "threads": threads, "cores": available_cores(), "load_average_before": load_before,
            "python": sys.version.split()[0],
            "machine": platform.processor() or platform.machine(), "tile": args.tile,
            "columns": {name: variant for name, variant in COLUMNS}, "rows": rows,
            "cell_types": cell_types,
        }, handle, indent=2)
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
