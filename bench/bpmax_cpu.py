"""BPMax on the CPU: the ``naive`` variant (the recurrence as written) against the default ``tiled`` one.

Query lengths 16 to 32 against targets of 100 to 2,000 nt, without a window and with a target window
of 128, random sequences (fixed seed), plus a real case (SARS-CoV svRNA against 3 kb of SARS-CoV-2).
Both variants run in this one process, so their ratio is measured under the same conditions (tiled:
best of 3 runs when short, naive: one run); useful
operations per second use docs/bpmax.md's work formula (summed over the window's domain with a
window), so they count the recurrence's work, not what a variant actually executes (``tiled`` skips
dominated terms exactly, see bioaccel.interact.tiled.terms). Columns are named after the variant registry
(``bioaccel.interact.VARIANTS``).

The tiled variant also runs on one thread ("1 thread s", "ratio/1t"): the per-core gain, and a check
on the parallel run, which the other load of a shared machine can slow down.

Sizes whose estimated time (from the rate measured on smaller sizes) exceeds the limits are skipped
and say so.

Long targets (Gildemaster 2021's setting: a svRNA against a genome, target window 128), end to end
through the API: the band path (S1/S2 as bands as wide as the windows, bioaccel.interact._strands) on
3 kb, 10 kb and the whole 29,903 nt SARS-CoV-2 genome, against the dense path it replaces (S2 folded
in full by bioaccel.fold.fold_table, O(N^3) time and 4 N^2 bytes, not kept between queries above
256 MB as before) on 3 kb and 10 kb only; also the three svRNAs against 10 kb, as `bioaccel interact
examples/sars-cov-svrna.fa ...` runs them. Both paths run in this one process, alternately, so their
ratio is measured under the same load; the load average is printed before and after. Memory is the
estimate the up-front refusal uses (bioaccel.interact._memory.plan_bytes).

Prints tables and writes JSON to bench/results/bpmax_cpu.json.

    python3 bench/bpmax_cpu.py                # the full grid and the long targets (a few minutes on 2 cores)
    python3 bench/bpmax_cpu.py --quick        # 20 x 200 and a few more, and the long targets
    python3 bench/bpmax_cpu.py --long-only    # only the long targets
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

from bioaccel.runtime.parallel import threads as using_threads
from bioaccel.inputs.alphabet import encode
from bioaccel.inputs.fasta import read_fasta
from bioaccel.interact import VARIANTS, InteractParams
from bioaccel.interact import _strand_cache
from bioaccel.interact._memory import plan_bytes
from bioaccel.interact._model import work
from bioaccel.interact._naive import fill_naive, naive_bytes
from bioaccel.interact._pairs_cpu import pair_sites
from bioaccel.interact._request import check_request
from bioaccel.interact._strands import dense_of_band, strand_band
from bioaccel.interact.tiled import fill_tiled

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")
NAIVE = VARIANTS.variants["naive"].label
TILED = VARIANTS.variants["tiled"].label


def random_rna(rng, n):
    return "".join(rng.choice("ACGU") for _ in range(n))


def prepare(a, b, params):
    """Codes of the query and of the reversed target, and their S bands as wide as the windows."""
    ca = encode(a)
    crb = np.ascontiguousarray(encode(b)[::-1])
    fold = params.fold_params
    L1, L2 = params.spans(len(a), len(b))
    return ca, crb, strand_band(ca, fold, L1), strand_band(crb, fold, L2)


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
    F = fill_naive(ca, crb, params.pair_table(), dense_of_band(s1), dense_of_band(s2), L1, L2)
    seconds = time.perf_counter() - start
    N = len(crb)
    best = max(int(F[0, L1 - 1, i2, i2 + L2 - 1]) for i2 in range(N - L2 + 1)) if L1 == len(ca) else None
    return seconds, best


def grid(args):
    """naive against tiled on random pairs: one printed table, its rows."""
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

    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="only a few sizes (20 x 200 included)")
    parser.add_argument("--long-only", action="store_true", help="only the long targets (band vs dense path)")
    parser.add_argument("--max-naive-seconds", type=float, default=40.0)
    parser.add_argument("--max-tiled-seconds", type=float, default=60.0)
    parser.add_argument("--output", default=os.path.join(HERE, "results", "bpmax_cpu.json"))
    args = parser.parse_args(argv)

    load_before = os.getloadavg()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)} ({os.cpu_count()} cores)")
    rows = [] if args.long_only else grid(args)
    long_rows = long_targets()
    load_after = os.getloadavg()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as handle:
        json.dump({"machine": platform.platform(), "processor": platform.processor() or platform.machine(),
                   "cores": os.cpu_count(), "threads": numba.get_num_threads(),
                   "load_average": {"before": load_before, "after": load_after},
                   "variants": {v.name: v.label for v in VARIANTS}, "rows": rows, "long_targets": long_rows},
                  handle, indent=1)
    print(f"wrote {os.path.abspath(args.output)}")


def _pair_seconds(queries, target, params, dense):
    """End to end through the API (S tables, fill, best site) for every query against ``target``:
    the band path, or the dense path as it ran before the bands (S2 folded in full, and again for
    each query since a table over 256 MB was not kept)."""
    request = check_request(params, "cpu", "tiled")
    start = time.perf_counter()
    results = []
    _strand_cache.forget()
    for query in queries:
        if dense and 4 * len(target) ** 2 > _strand_cache.RECENT_TABLE_BYTES:  # the dense table was not kept
            _strand_cache.forget()
        results += pair_sites(query, target, request, dense=dense)
    return time.perf_counter() - start, results


def long_targets():
    """svRNAs against 3 kb, 10 kb and all of SARS-CoV-2, window 128: band path against dense path."""
    try:
        svrnas = list(read_fasta(os.path.join(EXAMPLES, "sars-cov-svrna.fa")))
        genome = next(read_fasta(os.path.join(EXAMPLES, "sars-cov-2.fasta")))
    except Exception as exc:  # the examples are optional for the benchmark
        print(f"long targets skipped: {exc}")
        return []
    from bioaccel.inputs.fasta import Record

    params = InteractParams(window_target=128)
    n_svrna = [r for r in svrnas if r.id == "N"]
    seq = genome.sequence
    cases = [("N", n_svrna, "SARS-CoV-2:26000-29000", seq[26000:29000], True),
             ("N", n_svrna, "SARS-CoV-2:19903-29903", seq[-10000:], True),
             ("N", n_svrna, "SARS-CoV-2 genome", seq, False),
             ("3 svRNAs", svrnas, "SARS-CoV-2:19903-29903", seq[-10000:], True)]
    _pair_seconds(n_svrna, Record("warm", seq[:300]), params, False)  # compile outside the timings
    _pair_seconds(n_svrna, Record("warm", seq[:300]), params, True)
    print()
    print(f"Long targets, window 128, end to end ({numba.get_num_threads()} threads): band path (S as bands) "
          f"against the dense path it replaces (S2 folded in full)")
    header = (f"{'queries':>9} {'target':>24} {'nt':>6} {'band s':>8} {'dense s':>8} {'ratio':>6} "
              f"{'band MB':>8} {'dense MB':>9}  best site (score, gain, window)")
    print(header)
    print("-" * len(header))
    rows = []
    for label, queries, name, target_seq, with_dense in cases:
        target = Record(name, target_seq)
        repeats = 2 if len(target_seq) <= 10000 and len(queries) == 1 else 1
        band_s = dense_s = None
        for _ in range(repeats):  # alternately, so that both see the same load
            if with_dense:
                seconds, dense_results = _pair_seconds(queries, target, params, True)
                dense_s = seconds if dense_s is None else min(dense_s, seconds)
            seconds, results = _pair_seconds(queries, target, params, False)
            band_s = seconds if band_s is None else min(band_s, seconds)
        if with_dense and [r.to_dict() for r in dense_results] != [r.to_dict() for r in results]:
            raise SystemExit(f"{label} x {name}: the dense path and the band path differ")
        M = max(len(q) for q in queries)
        band_mb = plan_bytes(M, len(target_seq), params, "tiled") / 2 ** 20
        dense_mb = plan_bytes(M, len(target_seq), params, "tiled", dense=True) / 2 ** 20
        best = max(results, key=lambda r: r.score)
        row = {"queries": [q.id for q in queries], "target": name, "target_length": len(target_seq),
               "window_target": 128, "band_s": band_s, "dense_s": dense_s,
               "ratio": dense_s / band_s if dense_s else None, "band_bytes_estimate": band_mb * 2 ** 20,
               "dense_bytes_estimate": dense_mb * 2 ** 20,
               "sites": [{"query": r.query, "score": r.score, "query_fold": r.query_fold,
                          "target_fold": r.target_fold, "gain": r.gain,
                          "window": [r.target_start, r.target_end]} for r in results]}
        rows.append(row)
        dense_text = f"{dense_s:8.2f}" if dense_s else f"{'-':>8}"
        ratio_text = f"{row['ratio']:6.1f}" if dense_s else f"{'-':>6}"
        print(f"{label:>9} {name:>24} {len(target_seq):>6,} {band_s:8.2f} {dense_text} {ratio_text} "
              f"{band_mb:8.0f} {dense_mb:9.0f}  {best.query} {best.score}, {best.gain}, "
              f"{best.target_start}-{best.target_end}")
        sys.stdout.flush()
    return rows


if __name__ == "__main__":
    main()
