"""BPMax on the GPU (H100/H200): Gildemaster 2021's shapes, the unwindowed case, the CPU beside it, and
the svRNA screen.

Rows:
- seed shapes: a 23 nt query against random targets of 1,000 to 20,000 nt (and 100,000 nt) with target
  window 128 (Gildemaster 2021: 4.79 s for 23 x 20,000 nt on a Titan V), through
  ``bioaccel.interact._gpu.window_scores`` (every window score and fold, i.e. all a screen needs;
  sites and structures are host work on the winning window);
- unwindowed pairs at sizes that fit;
- for each: device time of the products (double reduction D with R3/R4, the strand-1 pair) and of the
  finish (R1/R2, the strand-2 pair), each phase synchronised on its own (the "phases" run), and end to
  end including transfers and the host's S1 (the "end to end" run, median of --repeats);
- useful updates per second (the recurrence's terms, bioaccel.interact._model.work / 2: one add and
  one max each) and the fraction of the int32 DPX ceiling of ../shared/design/limits.md (15.5 T/s; the
  kernels compute in int32), also printed against the int16x2 one (30.8 T/s);
- Gildemaster 2021's design (variant ``banded-library``: D through the product library) on three shapes;
- the CPU default variant (``tiled``) on this machine's cores on the smaller shapes, in the same run;
- the product library alone (bench/maxplus_gpu.py, when present) on the seed's Figure 7.1/7.5 shapes;
- the screen: the three svRNAs of examples/sars-cov-svrna.fa against --screen-targets random targets
  drawn with the length distribution of human transcripts (log-normal, median 2,500 nt, clipped to
  200 .. 20,000 nt), window 128, through ``bpmax(..., backend="gpu")``: pairs per second and the
  projected time of 32,000 transcripts x 1 svRNA.

    python3 bench/bpmax_gpu.py                       # everything (a few minutes on an H100)
    python3 bench/bpmax_gpu.py --quick               # smaller shapes, 200 screen targets
"""
import argparse
import hashlib
import json
import os
import platform
import random
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _results import save_json  # noqa: E402
from _ceilings import INT16X2_DPX, INT32_DPX  # noqa: E402

CEILING_INT32, CEILING_INT16X2 = INT32_DPX, INT16X2_DPX


def random_codes(rng, n):
    from bioaccel.inputs.alphabet import encode

    return encode("".join(rng.choice("ACGU") for _ in range(n)))


def updates(M, N, params):
    from bioaccel.interact._model import work

    return work(M, N, *params.spans(M, N)) / 2


def gpu_row(cp, M, N, params, repeats, rng, variant="fused", sizes=None):
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._gpu_launch import SIZES
    from bioaccel.interact._strands import strand_band

    sizes = sizes or SIZES
    a = random_codes(rng, M)
    rb = random_codes(rng, N)
    L1 = params.spans(M, N)[0]
    timings = {}
    window_scores(a, strand_band(a, params.fold_params, L1), [rb], params, variant=variant, sizes=sizes)   # warm up
    window_scores(a, strand_band(a, params.fold_params, L1), [rb], params, variant=variant, sizes=sizes,
                  timings=timings)
    times = []
    for _ in range(repeats):
        cp.cuda.Device().synchronize()
        start = time.perf_counter()
        S1 = strand_band(a, params.fold_params, L1)
        found = window_scores(a, S1, [rb], params, variant=variant, sizes=sizes)
        times.append(time.perf_counter() - start)
    best = int(found[0][0].max())
    digest = hashlib.sha256(found[0][0].tobytes() + found[0][1].tobytes()).hexdigest()[:16]   # every window score
    total = float(np.median(times))
    u = updates(M, N, params)
    return dict(variant=variant, M=M, N=N, window=params.window_target, products_s=timings["products"],
                finish_s=timings["finish"], pairing_s=timings.get("pairing", 0.0), end_to_end_s=total, updates=u, updates_per_s=u / total,
                fraction_int32=u / total / CEILING_INT32, fraction_int16x2=u / total / CEILING_INT16X2,
                best_units=best, scores_sha256=digest, a=a, rb=rb)


def cpu_row(row, params):
    from bioaccel.interact.tiled import fill_tiled
    from bioaccel.interact._strands import strand_band

    a, rb = row["a"], row["rb"]
    L1, L2 = params.spans(len(a), len(rb))
    start = time.perf_counter()
    win = fill_tiled(a, rb, strand_band(a, params.fold_params, L1), strand_band(rb, params.fold_params, L2), params)[0]
    seconds = time.perf_counter() - start
    assert int(win[:, :len(rb) - L2 + 1].max()) == row["best_units"], "CPU and GPU disagree"
    return seconds


def screen(args, rng):
    from bioaccel.inputs.fasta import Record, read_fasta
    from bioaccel.interact import InteractParams, bpmax

    svrnas = list(read_fasta(os.path.join(HERE, "..", "examples", "sars-cov-svrna.fa")))
    lengths = np.clip(np.random.default_rng(7).lognormal(np.log(2500), 0.75, args.screen_targets),
                      200, 20_000).astype(int)
    targets = [Record(f"t{k}", "".join(rng.choice("ACGU") for _ in range(n))) for k, n in enumerate(lengths)]
    params = InteractParams(window_target=128)
    bpmax(svrnas[0], targets[:3], params=params, backend="gpu")                         # warm up
    start = time.perf_counter()
    rows = bpmax(svrnas, targets, params=params, backend="gpu")
    seconds = time.perf_counter() - start
    pairs = len(rows)
    mean_length = float(lengths.mean())
    # 32,000 transcripts with this distribution, one svRNA: pairs per second scale with bases
    projected = 32_000 * mean_length / (pairs * mean_length / seconds) if pairs else float("nan")
    return dict(svrnas=len(svrnas), targets=len(targets), median_nt=float(np.median(lengths)),
                mean_nt=mean_length, max_nt=int(lengths.max()), seconds=seconds, pairs_per_s=pairs / seconds,
                projected_32000_s=projected)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--screen-targets", type=int, default=2000)
    parser.add_argument("--no-cpu", action="store_true", help="skip the CPU tiled rows")
    parser.add_argument("--json", default=os.path.join(HERE, "results", "bpmax_gpu.json"))
    args = parser.parse_args(argv)
    if args.quick:
        args.screen_targets = min(args.screen_targets, 200)

    from bioaccel.runtime import gpu as _gpu
    from bioaccel.interact import InteractParams

    cp = _gpu.require_gpu()
    rng = random.Random(2021)
    print(f"# {_gpu.device_name()}, {os.cpu_count()} CPU cores, load average {os.getloadavg()}", flush=True)
    windowed = InteractParams(window_target=128)
    lengths = (1000, 5000, 20000) if args.quick else (1000, 2000, 5000, 10000, 20000, 100000)
    shapes = [(23, n, windowed) for n in lengths]
    shapes += [(23, n, InteractParams()) for n in ((200, 500) if args.quick else (200, 500, 1000, 2000))]
    rows = []
    for M, N, params in shapes:
        row = gpu_row(cp, M, N, params, args.repeats, rng)
        if not args.no_cpu and N <= (5000 if params.window_target else 500):
            row["cpu_tiled_s"] = cpu_row(row, params)
            row["gpu_speedup"] = row["cpu_tiled_s"] / row["end_to_end_s"]
        row.pop("a"), row.pop("rb")
        rows.append(row)
        print(json.dumps(row), flush=True)
        if params.window_target and N in (1000, 5000, 20000):    # Gildemaster 2021's design on the same pair
            seed = gpu_row(cp, M, N, params, args.repeats, random.Random(N), variant="banded-library")
            seed.pop("a"), seed.pop("rb")
            rows.append(seed)
            print(json.dumps(seed), flush=True)
    library = []
    try:
        import maxplus_gpu

        library = maxplus_gpu.bench_library(default_only=args.quick)
    except ImportError as exc:
        print(f"# product library rows skipped: {exc}")
    scr = screen(args, rng)
    print(json.dumps(scr), flush=True)

    print(f"\n## BPMax on {_gpu.device_name()} (fused variant; int32 ceiling {CEILING_INT32 / 1e12} T/s)")
    print("| variant | query x target | window | products s | finish s | end to end s | useful updates/s | of int32 "
          "ceiling | of int16x2 | CPU tiled s | GPU speedup |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        cpu = f"{r['cpu_tiled_s']:.3f}" if "cpu_tiled_s" in r else ""
        speed = f"{r['gpu_speedup']:.0f}x" if "gpu_speedup" in r else ""
        print(f"| {r['variant']} | {r['M']} x {r['N']:,} | {r['window'] or 'none'} | {r['products_s']:.4f} | "
              f"{r['finish_s']:.4f} | "
              f"{r['end_to_end_s']:.4f} | {r['updates_per_s'] / 1e12:.2f} T | {r['fraction_int32']:.1%} | "
              f"{r['fraction_int16x2']:.1%} | {cpu} | {speed} |")
    print(f"\nscreen: {scr['svrnas']} svRNAs x {scr['targets']} targets (median {scr['median_nt']:.0f} nt, mean "
          f"{scr['mean_nt']:.0f}, longest {scr['max_nt']:,}), window 128: {scr['seconds']:.2f} s, "
          f"{scr['pairs_per_s']:.1f} pairs/s; projected 32,000 transcripts x 1 svRNA: "
          f"{scr['projected_32000_s'] / 60:.1f} min (Gildemaster 2021: about a day on a Titan V)")
    payload = dict(device=_gpu.device_name(), host=platform.node(), rows=rows, library=library, screen=scr)
    save_json(payload, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
