"""BPPart on the GPU (variant ``diagonals``, FP64) against the CPU (variant ``matrices``, all cores) in
the same run: single pairs of a 23 nt query against 100 .. 1,000 nt targets, and a screen of many pairs.

Rows, for each shape:
- GPU end to end through ``bppart(..., backend="gpu")`` (host folds of the strands, transfers, every
  launch), median of --repeats; the device seconds of the two launch families (cross: the tiled
  triangular products of QIa and QIm; sweep: the diagonal sweep of every cell), from device events;
- the CPU's ``bppart`` on all cores, once (its Numba compile warmed up first), where N <= --cpu-max;
- useful multiply-adds (the recurrence's products, counted by :func:`useful_fma`) per second and the
  fraction of the FP64 FMA ceiling of ../shared/design/limits.md (H100 SXM FP64 17 T FMA/s, vendor);
- the largest relative difference of log Z between GPU and CPU.
The screen: one 23 nt query against --screen-targets random targets of --screen-length nt, pairs per
second on the GPU (one call) and on the CPU (--cpu-screen pairs).

    python3 bench/bppart_gpu.py                 # 23 x 100, 200, 500, 1000 and the screen
    python3 bench/bppart_gpu.py --quick         # 23 x 100, 200, a small screen
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
from _ceilings import FP64_FMA  # noqa: E402

CEILING_FP64_FMA = FP64_FMA


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def _cells_times(N: int, L2: "int | None", f) -> int:
    """The sum over the target's cells (intervals of l = 1 .. min(N, L2) bases) of f(l)."""
    return sum((N - l + 1) * f(l) for l in range(1, min(N, L2 or N) + 1))


def _cross_gaps(N: int, L2: "int | None") -> int:
    """One query split's two triangular products over the target, QIa's and QIm's (each cell times its inner length)."""
    return _cells_times(N, L2, lambda l: l) + _cells_times(N, L2, lambda l: l - 1)


def useful_fma(M: int, N: int, L2: "int | None" = None) -> int:
    """The recurrence's multiply-adds for M x N (bioaccel's form, docs/bppart.md): per query interval of
    l1 bases, QIa's and QIm's double sums over the other intervals (l1 - 1 triangular products each),
    the four single sums along the target (AUX1, QIa's and R's own terms, QIs1) and the three along
    the query (QIs0, AUX0, QX) of every cell. ``L2``: a target window (cells of at most L2 bases)."""
    gaps = _cross_gaps(N, L2)
    along_target = _cells_times(N, L2, lambda l: 3 * (l - 1) + (l - 2 if l >= 5 else 0))
    cells = _cells_times(N, L2, lambda l: 1)
    total = 0
    for l1 in range(1, M + 1):
        intervals = M - l1 + 1
        along_query = (l1 - 2 if l1 >= 5 else 0) + 2 * (l1 - 1)
        total += intervals * ((l1 - 1) * gaps + along_target + along_query * cells)
    return total


def useful_cross_fma_by_level(M: int, N: int, L2: "int | None" = None) -> dict:
    """{l1: the cross products' multiply-adds of query length l1} for M x N (useful_fma's double sums over the other
    intervals alone: (M - l1 + 1) intervals, QIa's and QIm's l1 - 1 triangular products each), l1 = 2 .. M."""
    gaps = _cross_gaps(N, L2)
    return {l1: (M - l1 + 1) * (l1 - 1) * gaps for l1 in range(2, M + 1)}


def _median(values):
    values = sorted(values)
    return values[len(values) // 2]


def gpu_pair(q, t, params, repeats):
    """(median end-to-end seconds, device seconds by phase, the row)."""
    import numpy as np

    from bioaccel.inputs.alphabet import encode
    from bioaccel.interact import bppart
    from bioaccel.interact._partition import choose_scales
    from bioaccel.interact import _partition_launch
    from bioaccel.interact._partition_gpu import gpu_logs

    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        row = bppart(q, t, params=params, backend="gpu")[0]
        times.append(time.perf_counter() - start)
    a, rb = encode(q), np.ascontiguousarray(encode(t)[::-1])
    c1, c2 = choose_scales(a, rb, params)
    phases = {}
    gpu_logs(a, [rb], params.weights(), c1, [c2], timings=phases)
    v1 = {}     # the first design's sweep and unsplit products, the peer (docs/bppart-gpu-notes.md)
    gpu_logs(a, [rb], params.weights(), c1, [c2], timings=v1,
             sizes=_partition_launch.SIZES.replace(sweep="diagonals", cross_blocks=1))
    return _median(times), phases, row, v1


def cpu_pair(q, t, params):
    from bioaccel.interact import bppart

    start = time.perf_counter()
    row = bppart(q, t, params=params)[0]
    return time.perf_counter() - start, row


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--cpu-max", type=int, default=500, help="largest target run on the CPU too")
    parser.add_argument("--screen-targets", type=int, default=512)
    parser.add_argument("--screen-length", type=int, default=200)
    parser.add_argument("--cpu-screen", type=int, default=8)
    parser.add_argument("--json", default=os.path.join(HERE, "..", "docs", "results", "bppart_gpu_h100.json"))
    args = parser.parse_args(argv)

    from bioaccel.interact import PartitionParams, bppart
    from bioaccel.runtime import gpu as _gpu

    sizes = [100, 200] if args.quick else [100, 200, 500, 1000]
    screen_targets = 64 if args.quick else args.screen_targets
    load_before = os.getloadavg()
    print(f"# {_gpu.device_name()}, {os.cpu_count()} CPU cores, load average {load_before}", flush=True)
    params = PartitionParams()
    rng = random.Random(2027)
    query = random_rna(rng, 23)
    bppart(query, random_rna(rng, 40), params=params, backend="gpu")   # compiles the kernels
    bppart(query, random_rna(rng, 40), params=params)                  # loads / compiles the CPU's fill
    rows = []
    for N in sizes:
        target = random_rna(rng, N)
        repeats = args.repeats if N <= 500 else max(1, args.repeats - 1)
        gpu_s, phases, grow, v1 = gpu_pair(query, target, params, repeats)
        fma = useful_fma(23, N)
        row = dict(M=23, N=N, gpu_s=gpu_s, cross_s=phases["cross"], sweep_s=phases["sweep"], v1_cross_s=v1["cross"],
                   v1_sweep_s=v1["sweep"], useful_fma=fma,
                   fma_per_s=fma / gpu_s, ceiling_fraction=fma / gpu_s / CEILING_FP64_FMA, log_z=grow.log_z,
                   device_ceiling_fraction=fma / (phases["cross"] + phases["sweep"]) / CEILING_FP64_FMA)
        if N <= args.cpu_max:
            cpu_s, crow = cpu_pair(query, target, params)
            row.update(cpu_s=cpu_s, speedup=cpu_s / gpu_s,
                       rel_diff=abs(grow.log_z - crow.log_z) / abs(crow.log_z))
        rows.append(row)
        print(row, flush=True)

    targets = [(f"t{i}", random_rna(rng, args.screen_length)) for i in range(screen_targets)]
    start = time.perf_counter()
    found = bppart(query, targets, params=params, backend="gpu")
    gpu_screen = time.perf_counter() - start
    start = time.perf_counter()
    cpu_rows = bppart(query, targets[:args.cpu_screen], params=params)
    cpu_screen = time.perf_counter() - start
    worst = max(abs(g.log_z - c.log_z) / abs(c.log_z) for g, c in zip(found, cpu_rows))
    fma = useful_fma(23, args.screen_length) * screen_targets
    screen = dict(M=23, N=args.screen_length, pairs=screen_targets, gpu_s=gpu_screen,
                  gpu_pairs_per_s=screen_targets / gpu_screen, cpu_pairs=args.cpu_screen,
                  cpu_pairs_per_s=args.cpu_screen / cpu_screen, ceiling_fraction=fma / gpu_screen / CEILING_FP64_FMA,
                  rel_diff=worst)
    load_after = os.getloadavg()

    print(f"\n## BPPart on {_gpu.device_name()} (diagonals, FP64) and the CPU ({os.cpu_count()} cores, matrices)")
    print(f"load average before {load_before}, after {load_after}; FP64 FMA ceiling {CEILING_FP64_FMA / 1e12} T/s")
    print("| pair | GPU end to end (s) | cross (s) | sweep (s) | v1 cross + sweep (s) | useful G FMA/s | of ceiling "
          "(device only) "
          "| CPU (s) | CPU / GPU | log Z rel. diff |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cpu = f"{r['cpu_s']:.3f} | {r['speedup']:.1f}x | {r['rel_diff']:.1e}" if "cpu_s" in r else "not run | | "
        print(f"| 23 x {r['N']:,} | {r['gpu_s']:.4f} | {r['cross_s']:.4f} | {r['sweep_s']:.4f} | "
              f"{r['v1_cross_s']:.4f} + {r['v1_sweep_s']:.4f} | "
              f"{r['fma_per_s'] / 1e9:.0f} | {r['ceiling_fraction']:.1%} ({r['device_ceiling_fraction']:.1%}) | {cpu} |")
    print(f"| screen 23 x {args.screen_length} nt, {screen_targets} pairs | {gpu_screen:.3f} "
          f"({screen['gpu_pairs_per_s']:.1f} pairs/s) | | | | {fma / gpu_screen / 1e9:.0f} | "
          f"{screen['ceiling_fraction']:.1%} | {args.cpu_screen} pairs {cpu_screen:.2f} "
          f"({screen['cpu_pairs_per_s']:.2f} pairs/s) | {screen['gpu_pairs_per_s'] / screen['cpu_pairs_per_s']:.0f}x "
          f"| {worst:.1e} |")
    save_json(dict(device=_gpu.device_name(), host=platform.node(), cpu_cores=os.cpu_count(),
                   load_before=load_before, load_after=load_after, ceiling_fp64_fma=CEILING_FP64_FMA, rows=rows,
                   screen=screen), args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
