"""BPPart with target windows on the GPU (kernels/bppart_band.cu, FP64) in one run with its peers: the
CPU's windowed sweep (all cores) on the shorter pair, the cross products' other tile shapes, and the
svRNA screen (3 queries x many transcripts, --window-target 128).

Rows:
- 23 x N nt, window 128: ``bppart(..., backend="gpu")`` end to end (median of --repeats), the device
  seconds of its launch families (single: the target folded alone; cross: the tiled banded products of
  QIa and QIm; sweep: every cell by tiles), useful multiply-adds a second (:func:`bppart_gpu.useful_fma`
  over the band) and their fraction of the FP64 FMA ceiling of ../shared/design/limits.md;
- the CPU's windowed sweep on all cores where N <= --cpu-max, and the relative difference of log Z;
- at the longest N, the device seconds of the cross products at each shape of --shapes and of the sweep
  at each of --sweeps (the first design's peers), each one's log Z against the production's;
- the screen: --screen-queries queries of 23 nt against --screen-transcripts random transcripts of
  --screen-min .. --screen-max nt (one ``bppart`` call), pairs a second and the hours for 32,000
  transcripts of the same mean length on one GPU (time is linear in the bases).

    python3 bench/bppart_gpu_windows.py                 # 23 x 1,000 and 20,000 nt, the screen
    python3 bench/bppart_gpu_windows.py --quick         # 23 x 1,000, a small screen
"""
import argparse
import os
import platform
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _results import save_json  # noqa: E402
from bppart_gpu import CEILING_FP64_FMA, random_rna, useful_fma  # noqa: E402

WINDOW = 128
SCREEN_GOAL = 32_000


def _median(values):
    return sorted(values)[len(values) // 2]


def device_phases(q, t, params, sizes=None) -> dict:
    import numpy as np

    from bioaccel.inputs.alphabet import encode
    from bioaccel.interact._partition_band_gpu import gpu_windows

    phases = {}
    found = gpu_windows(encode(q), [np.ascontiguousarray(encode(t)[::-1])], params, sizes=sizes, timings=phases)
    return phases, found[0]


def _against(w, reference) -> dict:
    """How far a variant's windows are from the production's: log Z (relative), window probabilities."""
    import numpy as np

    return dict(log_z_rel_diff=abs(w.log_z - reference.log_z) / abs(reference.log_z),
                probability_max_diff=float(np.max(np.abs(w.probabilities - reference.probabilities))))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 20000])
    parser.add_argument("--cpu-max", type=int, default=1000, help="largest target run on the CPU too")
    parser.add_argument("--shapes", default="32x32x16xTx8,64x32x16xTx4,64x32x16xFx4,64x64x16xTx2",
                        help="cross product tiles rows x columns x chunk x prefetch (T/F) x blocks, compared at the "
                             "longest size (the first: the production's)")
    parser.add_argument("--sweeps", default="8xlaunches,16xpersistent,16xlaunches",
                        help="sweep tile x mode compared at the longest size (the first: the production's)")
    parser.add_argument("--screen-queries", type=int, default=3)
    parser.add_argument("--screen-transcripts", type=int, default=48)
    parser.add_argument("--screen-min", type=int, default=500)
    parser.add_argument("--screen-max", type=int, default=3500)
    parser.add_argument("--json", default=os.path.join(HERE, "..", "docs", "results", "bppart_gpu_windows_h100.json"))
    args = parser.parse_args(argv)

    from bioaccel.interact import PartitionParams, bppart
    from bioaccel.interact import _partition_launch
    from bioaccel.runtime import gpu as _gpu

    sizes = [1000] if args.quick else args.sizes
    transcripts = 8 if args.quick else args.screen_transcripts
    load_before = os.getloadavg()
    print(f"# {_gpu.device_name()}, {os.cpu_count()} CPU cores, load average {load_before}", flush=True)
    params = PartitionParams(window_target=WINDOW)
    rng = random.Random(2028)
    query = random_rna(rng, 23)
    bppart(query, random_rna(rng, 300), params=params, backend="gpu")   # compiles the kernels
    rows = []
    for N in sizes:
        target = random_rna(rng, N)
        times = []
        for _ in range(args.repeats):
            start = time.perf_counter()
            grow = bppart(query, target, params=params, backend="gpu")[0]
            times.append(time.perf_counter() - start)
        phases, _ = device_phases(query, target, params)
        fma = useful_fma(23, N, WINDOW + 1)
        device = sum(phases.values())
        row = dict(M=23, N=N, window=WINDOW, gpu_s=_median(times), gpu_all_s=times, **{f"{k}_s": v for k, v in phases.items()},
                   useful_fma=fma, fma_per_s=fma / _median(times), ceiling_fraction=fma / _median(times) / CEILING_FP64_FMA,
                   device_ceiling_fraction=fma / device / CEILING_FP64_FMA, log_z=grow.log_z)
        if N <= args.cpu_max:
            bppart(query, random_rna(rng, 200), params=params)          # the CPU sweep compiled / loaded
            start = time.perf_counter()
            crow = bppart(query, target, params=params)[0]
            row.update(cpu_s=time.perf_counter() - start, rel_diff=abs(grow.log_z - crow.log_z) / abs(crow.log_z))
            row["speedup"] = row["cpu_s"] / row["gpu_s"]
        rows.append(row)
        print(row, flush=True)
    shapes, sweeps = [], []
    reference = None
    for shape in args.shapes.split(","):
        r, c, k, prefetch, blocks = shape.split("x")
        sizes_ = _partition_launch.SIZES.replace(band_rows=int(r), band_cols=int(c), band_chunk=int(k),
                                                 band_prefetch=prefetch == "T", band_blocks=int(blocks))
        phases, w = device_phases(query, target, params, sizes_)
        reference = reference or w
        shapes.append(dict(shape=shape, cross_s=phases["cross"], sweep_s=phases["sweep"], **_against(w, reference)))
        print(shapes[-1], flush=True)
    for sweep in args.sweeps.split(","):
        tile, mode = sweep.split("x")
        phases, w = device_phases(query, target, params, _partition_launch.SIZES.replace(band_tile=int(tile),
                                                                                         band_sweep=mode))
        sweeps.append(dict(sweep=sweep, cross_s=phases["cross"], sweep_s=phases["sweep"], **_against(w, reference)))
        print(sweeps[-1], flush=True)

    queries = [(f"sv{i}", random_rna(rng, 23)) for i in range(args.screen_queries)]
    targets = [(f"tx{i}", random_rna(rng, rng.randint(args.screen_min, args.screen_max))) for i in range(transcripts)]
    bases = sum(len(t) for _, t in targets)
    start = time.perf_counter()
    found = bppart(queries, targets, params=params, backend="gpu")
    screen_s = time.perf_counter() - start
    pairs = len(queries) * len(targets)
    mean = bases / len(targets)
    hours = screen_s / bases * mean * SCREEN_GOAL / 3600
    fma = sum(useful_fma(23, len(t), WINDOW + 1) for _, t in targets) * len(queries)
    screen = dict(queries=len(queries), transcripts=len(targets), bases=bases, mean_length=mean, rows=len(found),
                  gpu_s=screen_s, pairs_per_s=pairs / screen_s, hours_for_32000=hours,
                  ceiling_fraction=fma / screen_s / CEILING_FP64_FMA)
    load_after = os.getloadavg()

    print(f"\n## BPPart windows ({WINDOW}) on {_gpu.device_name()} (FP64) and the CPU ({os.cpu_count()} cores)")
    print(f"load average before {load_before}, after {load_after}; FP64 FMA ceiling {CEILING_FP64_FMA / 1e12} T/s")
    print("| pair | GPU end to end (s) | single (s) | cross (s) | sweep (s) | useful G FMA/s | of ceiling (device only) "
          "| CPU (s) | CPU / GPU | log Z rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cpu = f"{r['cpu_s']:.2f} | {r['speedup']:.0f}x | {r['rel_diff']:.1e}" if "cpu_s" in r else "not run | | "
        print(f"| 23 x {r['N']:,} | {r['gpu_s']:.3f} | {r['single_s']:.4f} | {r['cross_s']:.4f} | {r['sweep_s']:.4f} | "
              f"{r['fma_per_s'] / 1e9:.0f} | {r['ceiling_fraction']:.1%} ({r['device_ceiling_fraction']:.1%}) | {cpu} |")
    print(f"\nat 23 x {sizes[-1]:,} (device seconds; log Z against the first shape's):")
    print("| cross tiles (rows x cols x chunk x prefetch x blocks) | cross (s) | log Z rel. diff | window probability "
          "max diff |\n|---|---|---|---|")
    for x in shapes:
        print(f"| {x['shape']} | {x['cross_s']:.4f} | {x['log_z_rel_diff']:.1e} | {x['probability_max_diff']:.1e} |")
    print("| sweep (tile x mode) | sweep (s) | log Z rel. diff | window probability max diff |\n|---|---|---|---|")
    for x in sweeps:
        print(f"| {x['sweep']} | {x['sweep_s']:.4f} | {x['log_z_rel_diff']:.1e} | {x['probability_max_diff']:.1e} |")
    print(f"\nscreen: {len(queries)} x {len(targets)} transcripts ({bases:,} nt, mean {mean:.0f}): {screen_s:.2f} s, "
          f"{screen['pairs_per_s']:.1f} pairs/s, {screen['ceiling_fraction']:.1%} of the ceiling; "
          f"{SCREEN_GOAL:,} transcripts of that mean length: {hours:.2f} h on one GPU")
    save_json(dict(device=_gpu.device_name(), host=platform.node(), cpu_cores=os.cpu_count(), load_before=load_before,
                   load_after=load_after, ceiling_fp64_fma=CEILING_FP64_FMA, rows=rows, shapes=shapes, sweeps=sweeps,
                   screen=screen),
              args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
