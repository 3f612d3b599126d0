"""Where the batch traceback's time goes: each block's start and end by the GPU's global timer (issue 29, nbwalk).

A probe, not a benchmark of the production kernel: nussinov_traceback.cu is compiled with -DBIOACCEL_WALK_PROBE, which
makes batch_traceback write, per block, the global timer (ns) at its start and end and its SM into a device array
(the walk itself is unchanged; ptxas: the same 32 registers at 64-tiles, int16 cells). For each walk (``--walks``) the
batch (``--rows``, random RNAs as bench/nussinov_gpu.py makes them) is folded twice (the first compiles) and the
second's blocks are summarised: the kernel's span (last end - first start), the blocks' durations (min, median, 90th
percentile, max), how late the last block started (one wave: ~0), and the mean duration of the longest tenth against
the rest, to tell whether a few long walks set the kernel's length. Prints a table, writes JSON.

A second table (issue 29, helper nbhost2) splits each walk by kind from thread 0's clock64 (walk_kinds, the same
define): its own steps and pops, the window stagings, the scans (each from thread 0's break to the block's barrier
after it), in microseconds at the SM clock (``--clock-mhz``, the H200's 1,980 MHz unless given), and the counts of
steps, stagings, scans, scan rounds and pops, as means over all walks and over the longest tenth.

    python3 bench/nussinov_walk_probe.py [--rows 2000x1000] [--walks 3,5] [--json PATH]
"""
import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from nussinov_gpu import random_batch  # noqa: E402

PROBE = "-DBIOACCEL_WALK_PROBE"


def probed_kernels(modules):
    """Make fold/_gpu_batch_tiled compile nussinov_traceback.cu with the probe; ``modules[walk]`` gets its module."""
    from bioaccel.fold import _gpu_batch_tiled
    from bioaccel.fold._gpu_table import KERNELS
    from bioaccel.runtime.gpu import load_module
    from bioaccel.runtime.launch import expression

    plain = _gpu_batch_tiled.kernel

    def kernel(filename, name, *arguments):
        if filename != "nussinov_traceback.cu":
            return plain(filename, name, *arguments)
        name_expression = expression(name, arguments)
        module = load_module(KERNELS, filename, (name_expression,), (PROBE,))
        modules[arguments[-1]] = module
        return module.get_function(name_expression)

    _gpu_batch_tiled.kernel = kernel


def summary(probe: np.ndarray) -> dict:
    """The blocks' times (rows: start ns, end ns, SM) in microseconds.

    >>> s = summary(np.array([[0, 500_000, 0], [1_000, 701_000, 1]], dtype=np.uint64))
    >>> s["span_us"], s["longest_us"], s["last_start_us"]
    (701.0, 700.0, 1.0)
    """
    start, end = probe[:, 0].astype(np.int64), probe[:, 1].astype(np.int64)
    first = start.min()
    took = (end - start) / 1e3
    tenth = np.sort(took)[-max(1, len(took) // 10):]
    return {"blocks": int(len(took)), "span_us": float((end.max() - first) / 1e3),
            "shortest_us": float(took.min()), "median_us": float(np.median(took)),
            "p90_us": float(np.percentile(took, 90)), "longest_us": float(took.max()),
            "last_start_us": float((start.max() - first) / 1e3), "longest_tenth_mean_us": float(tenth.mean()),
            "sms": int(len(np.unique(probe[:, 2])))}


KINDS = ("steps_us", "stagings_us", "scans_us", "steps", "stagings", "scans", "scan_rounds", "pops")


def kinds_summary(kinds: np.ndarray, took_us: np.ndarray, clock_mhz: float) -> dict:
    """Means of each kind (rows: walk_kinds' 8 values a block; cycles made microseconds at ``clock_mhz``) over all
    walks and over the longest tenth of ``took_us``.

    >>> k = kinds_summary(np.array([[1980, 0, 3960, 5, 0, 1, 2, 0], [0, 0, 0, 1, 0, 0, 0, 0]], np.uint64),
    ...                   np.array([9.0, 1.0]), 1980.0)
    >>> k["all"]["steps_us"], k["all"]["scans_us"], k["longest_tenth"]["scan_rounds"]
    (0.5, 1.0, 2.0)
    """
    values = kinds.astype(np.float64)
    values[:, :3] /= clock_mhz
    longest = np.argsort(took_us)[-max(1, len(took_us) // 10):]
    return {"all": dict(zip(KINDS, values.mean(axis=0).tolist())),
            "longest_tenth": dict(zip(KINDS, values[longest].mean(axis=0).tolist()))}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="2000x1000")
    ap.add_argument("--walks", default="3,5")
    ap.add_argument("--json", default="")
    ap.add_argument("--clock-mhz", type=float, default=1980.0)
    args = ap.parse_args()
    import cupy as cp

    from bioaccel.fold import _launch, nussinov_batch

    count, n = (int(x) for x in args.rows.split("x"))
    seqs = random_batch(count, n, seed=count + n)
    modules = {}
    probed_kernels(modules)
    plain = _launch.SIZES
    rows = []
    for walk in (int(w) for w in args.walks.split(",")):
        _launch.SIZES = replace(plain, batch_walk=walk)
        for _ in range(2):                                   # the first compiles
            nussinov_batch(seqs, backend="gpu")
        cp.cuda.Device().synchronize()
        probe = modules[walk].get_global("walk_probe")
        table = cp.ndarray((4096, 3), dtype=cp.uint64, memptr=probe)[:min(count, 4096)].get()
        row = {"walk": walk, **summary(table)}
        if walk in (3, 5):                                   # the walks of walk_structure_held
            kinds = modules[walk].get_global("walk_kinds")
            kinds = cp.ndarray((4096, 8), dtype=cp.uint64, memptr=kinds)[:min(count, 4096)].get()
            row["kinds"] = kinds_summary(kinds, (table[:, 1].astype(np.int64) - table[:, 0].astype(np.int64)) / 1e3,
                                         args.clock_mhz)
        rows.append(row)
    _launch.SIZES = plain
    print(f"{args.rows}: the traceback's blocks by the global timer (us)")
    print("| walk | span | shortest | median | 90th pct | longest | longest tenth | last start | SMs |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        print(f"| w{r['walk']} | {r['span_us']:.0f} | {r['shortest_us']:.0f} | {r['median_us']:.0f} | {r['p90_us']:.0f}"
              f" | {r['longest_us']:.0f} | {r['longest_tenth_mean_us']:.0f} | {r['last_start_us']:.0f} | {r['sms']} |")
    print(f"\nthread 0's time by kind (us at {args.clock_mhz:.0f} MHz) and counts, a walk: "
          "mean of all / of the longest tenth")
    print("| walk | steps and pops | stagings | scans | steps | stagings | scans | scan rounds | pops |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for r in rows:
        if "kinds" in r:
            a, t = r["kinds"]["all"], r["kinds"]["longest_tenth"]
            print(f"| w{r['walk']} | " + " | ".join(f"{a[k]:.1f} / {t[k]:.1f}" for k in KINDS) + " |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": args.rows, "probe": rows}, indent=1))


if __name__ == "__main__":
    main()
