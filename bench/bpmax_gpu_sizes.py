"""BPMax on the GPU: the launch sizes of interact/_gpu_launch.py compared on Gildemaster 2021's shape
(a 23 nt query against a 20,000 nt target, target window 128), one row per setting, all in one run.

Each row: device seconds of the products and of the finish (each phase synchronised on its own), end to
end (median of --repeats), and the fraction of the int16x2 DPX ceiling of ../shared/design/limits.md
(30.8 T/s) on the recurrence's useful updates. Every row must find the same best window score.

    python3 bench/bpmax_gpu_sizes.py [--repeats 5] [--json bench/results/bpmax_gpu_sizes.json]
"""
import argparse
import os
import random
import sys
from dataclasses import asdict, replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bpmax_gpu import CEILING_INT16X2, gpu_row   # noqa: E402
from _results import save_json  # noqa: E402

SETTINGS = {   # finish: diagonals a row closes at a time, threads per row
    "finish 1 diagonal, 1 thread a row": dict(finish_diagonals=1, finish_split=1),
    "finish 4 diagonals, 1 thread a row (default)": dict(finish_diagonals=4, finish_split=1),
    "finish 8 diagonals, 1 thread a row": dict(finish_diagonals=8, finish_split=1),
    "finish 4 diagonals, 2 threads a row": dict(finish_diagonals=4, finish_split=2),
    "finish 8 diagonals, 2 threads a row": dict(finish_diagonals=8, finish_split=2),
}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--target", type=int, default=20_000)
    parser.add_argument("--json", default=os.path.join(HERE, "results", "bpmax_gpu_sizes.json"))
    args = parser.parse_args(argv)
    import cupy as cp

    from bioaccel.interact import InteractParams
    from bioaccel.interact._gpu_launch import SIZES

    params = InteractParams(window_target=128)
    rows = []
    for name, change in SETTINGS.items():
        sizes = replace(SIZES, **change)
        row = gpu_row(cp, 23, args.target, params, args.repeats, random.Random(5), sizes=sizes)
        row.pop("a"), row.pop("rb")
        rows.append(dict(setting=name, sizes=asdict(sizes), **row))
    best = {r["best_units"] for r in rows}
    print(f"## BPMax launch sizes on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
          f"23 x {args.target:,} nt, window 128 (same best score in every row: {len(best) == 1})")
    print("| setting | products s | finish s | end to end s | of int16x2 ceiling |")
    print("|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['setting']} | {r['products_s']:.4f} | {r['finish_s']:.4f} | {r['end_to_end_s']:.4f} | "
              f"{100 * r['updates_per_s'] / CEILING_INT16X2:.1f}% |")
    save_json(rows, args.json)
    return 0 if len(best) == 1 else 1


if __name__ == "__main__":
    sys.exit(main())
