"""``bench/turner.py --window``: local folding (RNAplfold) of a genome, bioaccel's ``local_ensemble``
(--threads threads, default 2, and one thread) against ViennaRNA's ``RNA.pfl_fold`` (one core:
RNAplfold is single-threaded) on the same sequence, the first 10,000 bases and the whole of the SARS-CoV-2 genome
(examples/sars-cov-2.fasta, 29,903 nt), with RNAplfold's default window (-W 70, -L 70) and the window
used for accessibility (-W 240 -L 160), cutoff 0.01; in turns, best of --repeats rounds. Every pair
ViennaRNA reports must be ours to 1e-6 (its list holds single-precision floats) and no other (pairs
within 1e-6 of the cutoff may fall either side): "equal". The time of a 100 Mb sequence is projected
from the whole genome's rate (both are linear in the length). JSON: docs/results/turner_plfold_cpu.json.

    PYTHONPATH=src python3 bench/turner.py --window [--lengths 10000,29903] [--repeats 1] [--threads 2]
"""
import os
import platform
import sys
import time

import numba

GENOME = os.path.join(os.path.dirname(__file__), "..", "examples", "sars-cov-2.fasta")
SETTINGS = ((70, 70), (240, 160))
CUTOFF = 0.01
PROJECTED = 100_000_000


def compare(ours, theirs, cutoff=CUTOFF) -> "tuple[bool, float]":
    """Whether the two pair sets agree (up to pairs within 1e-6 of the cutoff), and the largest |dp|."""
    near = {k for k, p in {**theirs, **ours}.items() if abs(p - cutoff) < 1e-6}
    common = theirs.keys() & ours.keys()
    dp = max([abs(ours[k] - theirs[k]) for k in common] or [0.0])
    return ours.keys() - near == theirs.keys() - near and dp < 1e-6, dp


def window_main(args, save_json):
    import RNA

    from bioaccel.fold import local_ensemble
    from bioaccel.fold._turner_plfold import plan, stretch_bytes
    from bioaccel.inputs.fasta import read_fasta

    # RNAplfold writes T as U before folding (RNA.pfl_fold does not, and then misses the special hairpins)
    genome = next(iter(read_fasta(args.genome or GENOME))).sequence.upper().replace("T", "U")
    lengths = [int(x) for x in (args.lengths if args.lengths != "200,1500,5000" else f"10000,{len(genome)}").split(",")]
    threads = args.threads or 2
    rounds = args.repeats if args.repeats != 3 else 1
    json_path = (os.path.join(os.path.dirname(__file__), "..", "docs", "results", "turner_plfold_cpu.json")
                 if args.json.endswith("turner_cpu.json") else args.json)
    local_ensemble(genome[:2_000], window=240, span=160, threads=threads)      # compile or load before timing
    load_before = os.getloadavg()
    rows = []
    for window, span in SETTINGS:
        for n in lengths:
            sequence = genome[:n]
            ours_s, one_s, theirs_s = [], [], []
            for _ in range(rounds):
                start = time.perf_counter()
                r = local_ensemble(sequence, window=window, span=span, cutoff=CUTOFF, threads=threads)[0]
                ours_s.append(time.perf_counter() - start)
                if threads > 1:                                  # the same on one core, as RNAplfold runs
                    start = time.perf_counter()
                    local_ensemble(sequence, window=window, span=span, cutoff=CUTOFF, threads=1)
                    one_s.append(time.perf_counter() - start)
                start = time.perf_counter()
                theirs = RNA.pfl_fold(sequence, window, span, CUTOFF)
                theirs_s.append(time.perf_counter() - start)
            ours = {(i, j): p for i, j, p in r.pairs_above(0.0)}
            equal, dp = compare(ours, {(e.i, e.j): e.p for e in theirs})
            stretch = max(e - s for s, e in plan(PROJECTED, window, span, threads)) + 2 * window
            rows.append({"n": n, "window": window, "span": span, "cutoff": CUTOFF, "pairs": r.pairs,
                         "vienna_pairs": len(theirs), "equal": equal, "max_p_diff": dp, "bioaccel_s": min(ours_s),
                         "vienna_s": min(theirs_s), "speedup": min(theirs_s) / min(ours_s),
                         "bioaccel_one_thread_s": min(one_s) if one_s else min(ours_s),
                         "speedup_one_thread": min(theirs_s) / (min(one_s) if one_s else min(ours_s)),
                         "bioaccel_nt_per_s": n / min(ours_s), "vienna_nt_per_s": n / min(theirs_s),
                         "memory_bytes_100mb": stretch_bytes(stretch, window, span) * threads})
    load_after = os.getloadavg()
    print(f"Turner 2004 local folding (RNAplfold -W -L -c {CUTOFF}), SARS-CoV-2 genome prefixes: bioaccel "
          f"local_ensemble on {threads} thread(s) of {os.cpu_count()} core(s) against RNA.pfl_fold (ViennaRNA "
          f"{RNA.__version__}, one core); load average {load_before[0]:.2f} before the run, {load_after[0]:.2f} "
          f"after; best of {rounds} round(s), in turns")
    print(f"{'W':>4} {'L':>4} {'n':>7}  {'bioaccel s':>10}  {'1 thread s':>10}  {'ViennaRNA s':>11}  {'x':>5}  "
          f"{'x 1 thr':>7}  {'pairs':>7}  {'max |dP|':>8}  equal")
    for row in rows:
        print(f"{row['window']:>4} {row['span']:>4} {row['n']:>7,}  {row['bioaccel_s']:>10.2f}  "
              f"{row['bioaccel_one_thread_s']:>10.2f}  {row['vienna_s']:>11.2f}  {row['speedup']:>5.2f}  "
              f"{row['speedup_one_thread']:>7.2f}  {row['pairs']:>7,}  {row['max_p_diff']:>8.1e}  {row['equal']}")
    for window, span in SETTINGS:
        row = max((r for r in rows if r["window"] == window), key=lambda r: r["n"])
        ours_h = PROJECTED / row["bioaccel_nt_per_s"] / 3600
        theirs_h = PROJECTED / row["vienna_nt_per_s"] / 3600
        row["projected_100mb_bioaccel_h"], row["projected_100mb_vienna_h"] = ours_h, theirs_h
        print(f"100 Mb at -W {window} -L {span}, projected from the {row['n']:,}-nt rate on this machine: bioaccel "
              f"{ours_h:.1f} h on {threads} thread(s) ({row['memory_bytes_100mb'] / 2**20:.0f} MiB of tables), "
              f"RNA.pfl_fold {theirs_h:.1f} h on one core")
    save_json({"benchmark": "turner_plfold_cpu", "threads": threads, "cores": os.cpu_count(),
               "load_average_before": load_before, "load_average_after": load_after, "rounds": rounds,
               "python": sys.version.split()[0], "numba": numba.__version__, "viennarna": RNA.__version__,
               "machine": platform.processor() or platform.machine(), "rows": rows}, json_path)
    if not all(row["equal"] for row in rows):
        raise SystemExit("bioaccel and ViennaRNA disagree: see the table")
