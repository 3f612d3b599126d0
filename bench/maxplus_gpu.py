"""The banded multiple max-plus product library alone, in the shapes of seed 003's Figures 7.1 and 7.5.

Figure 7.1: columns of 20 triangular matrices (window unrestricted), N a power of two; Figure 7.5:
columns of 20 matrices with window 128, N up to 8192 (the thesis's text names 1000 and 8192; the
figures' exact N are not in the text). Plus the BPMax shape of issue 12 (target 20,000 nt, window
128, a diagonal of a 23-nt query: 11 outputs of 11 pairs each). For every kernel shape compiled for the
dtype (the default one per tile and the alternatives), the median time of one launch (CUDA events,
after warm-up), useful updates per second (only the band's updates, sum of j - i; the kernel's own
padded updates beside it) and the fraction of the limits.md ceiling: int32 15.5 T/s, int16x2 30.8 T/s.

    python3 bench/maxplus_gpu.py [--quick] [--default-only] [--json bench/results/maxplus_gpu.json]

``bench_library(...)`` returns the rows, for bench/bpmax_gpu.py to include.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from bioaccel.interact import _maxplus_gpu as mp  # noqa: E402
from _results import save_json  # noqa: E402
from _ceilings import INT16X2_DPX, INT32_DPX  # noqa: E402

CEILING = {"int16": INT16X2_DPX, "int32": INT32_DPX}
LANES = {"int16": "int16x2", "int32": "int32"}
# (figure, N, W, outputs G, pairs K per output): the seed's column of 20 is 20 outputs of one pair each
CASES = ([("7.1", n, None, 20, 1) for n in (512, 1024, 2048, 4096)]
         + [("7.5", n, 128, 20, 1) for n in (1024, 2048, 4096, 8192)]
         + [("bpmax", 20_000, 128, 11, 11), ("bpmax", 20_000, 128, 1, 22)])
QUICK = [("7.1", 1024, None, 20, 1), ("7.5", 4096, 128, 20, 1), ("bpmax", 20_000, 128, 11, 11)]


def _time_launches(cp, launch, budget_s=0.25, warmup=3):
    """Median seconds of one launch, from CUDA events around each of several launches after warm-up."""
    for _ in range(warmup):
        launch()
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    start.record()
    launch()
    stop.record()
    stop.synchronize()
    first = cp.cuda.get_elapsed_time(start, stop) / 1e3
    times = []
    for _ in range(int(min(50, max(5, budget_s / max(first, 1e-6))))):
        start.record()
        launch()
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
    return float(np.median(times)), float(np.min(times)), len(times)


def bench_case(cp, figure, n, band, outputs, pairs, dtype, shapes=None):
    """Rows for one shape of the product: one per kernel shape (default: every compiled one for dtype)."""
    chosen = mp.band_layout(n, band, dtype=dtype)
    if shapes is None:
        shapes = [s for s in mp.SIZES.shapes + mp.ALTERNATIVES if s.dtype == dtype]
    rows = []
    for shape in shapes:
        layout = mp.band_layout(n, band, dtype=dtype, tile=shape.tile)
        cp.random.seed(n + shape.tile)                   # random operands: zeros would flatter the timing
        size = (outputs * pairs, layout.tiles, layout.tile, layout.tile)
        a = cp.random.randint(-100, 100, size=size, dtype=cp.int32).astype(dtype)
        b = cp.random.randint(-100, 100, size=size, dtype=cp.int32).astype(dtype)
        c = mp.padding_pool(outputs, layout, cp)
        index = np.arange(outputs * pairs).reshape(outputs, pairs)
        a_index, b_index = cp.asarray(index, dtype=cp.int32), cp.asarray(index, dtype=cp.int32)
        c_index = cp.arange(outputs, dtype=cp.int32)

        def launch():
            mp.banded_products(a, b, c, a_index, b_index, c_index, layout, shape=shape)

        median, best, reps = _time_launches(cp, launch)
        a = b = c = launch = None                        # free before the next shape's operands
        useful = mp.useful_updates(n, band) * outputs * pairs
        padded = mp.kernel_updates(layout) * outputs * pairs
        rows.append({
            "figure": figure, "n": n, "band": layout.band, "outputs": outputs, "pairs": pairs, "dtype": dtype,
            "lanes": LANES[dtype], "kernel": shape.expression, "tile": shape.tile, "threads": shape.threads,
            "default": shape == mp.SIZES.shape(dtype, chosen.tile), "launch_s": median, "best_s": best,
            "repeats": reps, "useful_updates": useful, "kernel_updates": padded,
            "useful_per_s": useful / median, "kernel_per_s": padded / median,
            "ceiling_fraction": useful / median / CEILING[dtype],
            "kernel_ceiling_fraction": padded / median / CEILING[dtype],
        })
        cp.get_default_memory_pool().free_all_blocks()
    return rows


def bench_library(cases=CASES, dtypes=("int32", "int16"), default_only=False, log=print):
    """Time the library on ``cases`` [(figure, N, W or None, outputs, pairs)]; a list of dict rows."""
    from bioaccel.runtime.gpu import require_gpu

    cp = require_gpu()
    rows = []
    for figure, n, band, outputs, pairs in cases:
        for dtype in dtypes:
            shapes = [mp.SIZES.shape(dtype, mp.band_layout(n, band, dtype=dtype).tile)] if default_only else None
            for row in bench_case(cp, figure, n, band, outputs, pairs, dtype, shapes):
                rows.append(row)
                if log:
                    log(_line(row))
    return rows


def _line(r):
    return (f"{r['figure']:>6} {r['n']:>6} {r['band']:>5} {r['outputs']:>3}x{r['pairs']:<3} {r['lanes']:>7} "
            f"{r['kernel']:<45} {'*' if r['default'] else ' '} {r['launch_s'] * 1e3:9.3f} ms "
            f"{r['useful_per_s'] / 1e12:6.2f} T/s {100 * r['ceiling_fraction']:5.1f}%  "
            f"(kernel {r['kernel_per_s'] / 1e12:5.2f} T/s, {100 * r['kernel_ceiling_fraction']:5.1f}%)")


def best_rows(rows):
    """The fastest kernel shape of each case and dtype."""
    best = {}
    for r in rows:
        key = (r["figure"], r["n"], r["band"], r["outputs"], r["pairs"], r["dtype"])
        if key not in best or r["launch_s"] < best[key]["launch_s"]:
            best[key] = r
    return list(best.values())


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="three cases only")
    parser.add_argument("--default-only", action="store_true", help="only the kernel shape the library chooses")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "results", "maxplus_gpu.json"))
    args = parser.parse_args(argv)
    from bioaccel.runtime.gpu import device_name

    device = device_name()
    print(f"device: {device}")
    print(f"{'figure':>6} {'N':>6} {'W':>5} {'GxK':>7} {'lanes':>7} {'kernel':<45} d {'launch':>12} "
          f"{'useful':>10} {'ceiling':>6}")
    rows = bench_library(QUICK if args.quick else CASES, default_only=args.default_only)
    print("\nfastest shape per case (useful updates; * = the library's default choice):")
    for r in best_rows(rows):
        print(_line(r))
    payload = {"device": device, "ceiling_updates_per_s": CEILING, "rows": rows}
    save_json(payload, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
