"""BPMax on the CPU: the ``naive`` variant (the recurrence as written) against the default ``tiled`` one.

Query lengths 16 to 32 against targets of 100 to 2,000 nt, without a window and with a target window
of 128, random sequences (fixed seed), plus a real case (SARS-CoV svRNA against 3 kb of SARS-CoV-2).
Both variants run in this one process, so their ratio is measured under the same conditions (tiled:
best of 3 runs when short, naive: one run); useful
operations per second use docs/bpmax.md's work formula (summed over the window's domain with a
window), so they count the recurrence's work, not what a variant actually executes (``tiled`` skips
dominated terms exactly, see bioaccel.interact._terms). Columns are named after the variant registry
(``bioaccel.interact.VARIANTS``).

The tiled variant also runs on one thread ("1 thread s", "ratio/1t"): the per-core gain, and a check
on the parallel run, which the other load of a shared machine can slow down.

Sizes whose estimated time (from the rate measured on smaller sizes) exceeds the limits are skipped
and say so. Prints a table and writes JSON to bench/results/bpmax_cpu.json.

    python3 bench/bpmax_cpu.py                # the full grid (a few minutes on 2 cores)
    python3 bench/bpmax_cpu.py --quick        # 20 x 200 and a few more
"""
import argparse
import json
import os
import platform
import random
import sys
import time

import numba
import numpy as np

from bioaccel._parallel import threads as using_threads
from bioaccel.alphabet import encode
from bioaccel.fasta import read_fasta
from bioaccel.interact import VARIANTS, InteractParams
from bioaccel.interact._api import single_strand_table
from bioaccel.interact._cpu import fill_tiled
from bioaccel.interact._model import work
from bioaccel.interact._naive import fill_naive, naive_bytes

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
NAIVE = VARIANTS.variants["naive"].label
TILED = VARIANTS.variants["tiled"].label


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def prepare(a, b, params):
    ca = encode(a)
    crb = np.ascontiguousarray(encode(b)[::-1])
    fold = params.fold_params
    return ca, crb, single_strand_table(ca, fold), single_strand_table(crb, fold)


def run_tiled(ca, crb, s1, s2, params, repeats=3):
    """Best of ``repeats`` runs (one when a run takes over 2 s): the machine is shared."""
    best = None
    for _ in range(repeats):
        start = time.perf_counter()
        win = fill_tiled(ca, crb, s1, s2, params)[0]
        seconds = time.perf_counter() - start
        best = seconds if best is None else min(best, seconds)
        if seconds > 2:
            break
    return best, int(win.max())


def run_naive(ca, crb, s1, s2, params):
    L1, L2 = params.spans(len(ca), len(crb))
    start = time.perf_counter()
    F = fill_naive(ca, crb, params.pair_table(), s1, s2, L1, L2)
    seconds = time.perf_counter() - start
    N = len(crb)
    best = max(int(F[0, L1 - 1, i2, i2 + L2 - 1]) for i2 in range(N - L2 + 1)) if L1 == len(ca) else None
    return seconds, best


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only a few sizes (20 x 200 included)")
    parser.add_argument("--max-naive-seconds", type=float, default=40.0)
    parser.add_argument("--max-tiled-seconds", type=float, default=60.0)
    parser.add_argument("--output", default=os.path.join(HERE, "results", "bpmax_cpu.json"))
    args = parser.parse_args(argv)

    rng = random.Random(2024)
    queries = [16, 20, 32] if args.quick else [16, 20, 23, 32]
    targets = [100, 200, 400] if args.quick else [100, 200, 400, 1000, 2000]
    cases = [(m, n, w) for w in (None, 128) for m in queries for n in targets]
    if args.quick:
        cases = [(20, 200, None), (16, 100, None), (32, 400, None), (20, 2000, 128), (32, 2000, 128)]
    # compile both variants outside the timings
    warm = prepare("ACGUACGU", "GGCAUCGAUCGA", InteractParams())
    run_tiled(*warm, InteractParams(), repeats=1)
    run_naive(*warm, InteractParams())
    run_tiled(*warm, InteractParams(window_target=4), repeats=1)

    rates = {"naive": None, "tiled": None}
    rows = []
    print(f"BPMax CPU benchmark: {platform.processor() or platform.machine()}, "
          f"{numba.get_num_threads()} threads for tiled (naive is serial), int16/int32 exact scores")
    wn, wt = max(9, len(NAIVE) + 2), max(9, len(TILED) + 2)
    gn, gt = max(11, len(NAIVE) + 6), max(11, len(TILED) + 6)
    header = (f"{'query':>5} {'target':>6} {'W2':>4} {'work (Gops)':>11} {NAIVE + ' s':>{wn}} "
              f"{TILED + ' s':>{wt}} {'1 thread s':>10} {NAIVE + ' Gop/s':>{gn}} {TILED + ' Gop/s':>{gt}} "
              f"{'ratio':>7} {'ratio/1t':>8}  note")
    print(header)
    print("-" * len(header))
    seqs = {}
    for M, N, W2 in cases:
        key = (M, N)
        if key not in seqs:
            seqs[key] = (random_rna(rng, M), random_rna(rng, N))
        a, b = seqs[key]
        params = InteractParams(window_target=W2)
        L1, L2 = params.spans(M, N)
        ops = work(M, N, L1, L2)
        row = {"query": M, "target": N, "window_target": W2, "work": ops, "naive_s": None, "tiled_s": None,
               "note": ""}
        ca, crb, s1, s2 = prepare(a, b, params)
        notes = []
        est_tiled = ops / rates["tiled"] if rates["tiled"] else 0
        if est_tiled > args.max_tiled_seconds:
            notes.append(f"tiled skipped (estimated {est_tiled:.0f} s)")
        else:
            seconds, score = run_tiled(ca, crb, s1, s2, params)
            row["tiled_s"], row["score_units"] = seconds, score
            rates["tiled"] = max(rates["tiled"] or 0, ops / seconds)
        est_naive = ops / rates["naive"] if rates["naive"] else 0
        if naive_bytes(M, N) > 4 * 2 ** 30:
            notes.append(f"naive skipped ({naive_bytes(M, N) / 2**30:.0f} GiB of cells)")
        elif est_naive > args.max_naive_seconds:
            notes.append(f"naive skipped (estimated {est_naive:.0f} s)")
        else:
            seconds, score = run_naive(ca, crb, s1, s2, params)
            row["naive_s"] = seconds
            rates["naive"] = ops / seconds if rates["naive"] is None else min(rates["naive"], ops / seconds)
            if row["tiled_s"] is not None and score is not None and score != row["score_units"]:
                raise SystemExit(f"{M} x {N}: naive {score} != tiled {row['score_units']}")
        row["tiled_1thread_s"] = None
        if row["tiled_s"] is not None and row["tiled_s"] * numba.get_num_threads() < 10:
            with using_threads(1):
                row["tiled_1thread_s"] = run_tiled(ca, crb, s1, s2, params)[0]
        row["note"] = "; ".join(notes)
        rows.append(row)
        ratio = row["naive_s"] / row["tiled_s"] if row["naive_s"] and row["tiled_s"] else None
        row["ratio"] = ratio
        ratio1 = row["naive_s"] / row["tiled_1thread_s"] if row["naive_s"] and row["tiled_1thread_s"] else None
        row["ratio_1thread"] = ratio1

        def fmt(x, spec):
            width = int(spec.split(".")[0])
            return format(x, spec) if x is not None else "-".rjust(width)

        print(f"{M:>5} {N:>6} {W2 or '-':>4} {ops / 1e9:>11.2f} {fmt(row['naive_s'], f'{wn}.3f')} "
              f"{fmt(row['tiled_s'], f'{wt}.3f')} {fmt(row['tiled_1thread_s'], '10.3f')} "
              f"{fmt(ops / row['naive_s'] / 1e9 if row['naive_s'] else None, f'{gn}.2f')} "
              f"{fmt(ops / row['tiled_s'] / 1e9 if row['tiled_s'] else None, f'{gt}.2f')} "
              f"{fmt(ratio, '7.1f')} {fmt(ratio1, '8.1f')}  {row['note']}")
        sys.stdout.flush()

    real = real_case()
    if real:
        rows.append(real)
        print(f"real: {real['query_name']} ({real['query']} nt) x {real['target_name']} "
              f"({real['target']} nt), W2 = 128: {TILED} {real['tiled_s']:.2f} s, "
              f"{real['work'] / real['tiled_s'] / 1e9:.1f} useful Gop/s, best window score {real['score']}")
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as handle:
        json.dump({"machine": platform.platform(), "threads": numba.get_num_threads(),
                   "variants": {v.name: v.label for v in VARIANTS}, "rows": rows}, handle, indent=1)
    print(f"wrote {os.path.abspath(args.output)}")


def real_case():
    """The SARS-CoV N svRNA (21 nt) against SARS-CoV-2 nt 26,000-29,000 (3 kb), target window 128."""
    try:
        query = [r for r in read_fasta(os.path.join(EXAMPLES, "sars-cov-svrna.fa")) if r.id == "N"][0]
        genome = next(read_fasta(os.path.join(EXAMPLES, "sars-cov-2.fasta")))
    except Exception as exc:  # the examples are optional for the benchmark
        print(f"real case skipped: {exc}")
        return None
    from bioaccel.interact import bpmax

    target = genome.sequence[26000:29000]
    params = InteractParams(window_target=128)
    start = time.perf_counter()
    result = bpmax(query, ("SARS-CoV-2:26000-29000", target), params=params)[0]
    seconds = time.perf_counter() - start
    return {"query_name": query.id, "query": len(query), "target_name": "SARS-CoV-2:26000-29000",
            "target": len(target), "window_target": 128, "tiled_s": seconds, "score": result.score,
            "best_window": [result.target_start, result.target_end],
            "work": work(len(query), len(target), None, 129), "note": "end to end, S tables included"}


if __name__ == "__main__":
    main()
