"""The Nussinov partition function on the CPU (FoldParams.partition_cpu): log Z alone and with base-pair
probabilities, on one thread and on every core (a lone sequence as the default runs it, and with its
columns' rows shared by the threads at any length; several sequences: one per core), and ViennaRNA's partition function with probabilities (RNAfold -p,
a different, energy-based model: it compares tools, not algorithms), all in one process.

Times are the best of --repeats rounds taken in turns (a burst of load on a shared machine hits every
column alike); the load average is printed before and after.

    python3 bench/nussinov_partition_cpu.py [--lengths 500,1000,2000] [--repeats 2] [--batch 4]
"""
import argparse
import os
import platform
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _results import save_json  # noqa: E402

from bioaccel.fold import FoldParams  # noqa: E402
from bioaccel.fold import _nussinov_partition as nussinov_partition  # noqa: E402
from bioaccel.inputs.alphabet import encode  # noqa: E402
from bioaccel.runtime.parallel import available_cores, threads as using_threads  # noqa: E402


def timed(function):
    start = time.perf_counter()
    value = function()
    return time.perf_counter() - start, value


def rnafold_pf(sequence):
    import RNA

    fc = RNA.fold_compound(sequence)
    fc.pf()
    fc.bpp()


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="500,1000,2000")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--batch", type=int, default=4, help="sequences of the one-per-core column")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-rnafold", action="store_true")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "..", "docs", "results",
                                                        "nussinov_partition_cpu.json"))
    args = parser.parse_args(argv)
    load_before = os.getloadavg()[0]
    params = FoldParams()
    rng = np.random.default_rng(args.seed)
    cores = available_cores()
    params.partition_cpu([encode("GGGAAACCC" * 30)] * 2, True)      # compile / load every kernel first
    params.partition_cpu([encode("GGGAAACCC" * 100)], True)
    rows = []
    for n in [int(x) for x in args.lengths.split(",") if x]:
        seqs = ["".join(rng.choice(list("ACGU"), n)) for _ in range(args.batch)]
        codes = [encode(s) for s in seqs]
        best = {}
        for _ in range(args.repeats):
            with using_threads(1):
                cases = {"1 thread, log Z": lambda: params.partition_cpu(codes[:1], False),
                         "1 thread, log Z + P": lambda: params.partition_cpu(codes[:1], True)}
                for name, run in cases.items():
                    best[name] = min(best.get(name, np.inf), timed(run)[0])
            with using_threads(0):
                name = f"{cores} threads, log Z + P"
                best[name] = min(best.get(name, np.inf), timed(lambda: params.partition_cpu(codes[:1], True))[0])
                name = f"{cores} threads, columns shared, log Z + P"
                default, nussinov_partition.PARALLEL_LENGTH = nussinov_partition.PARALLEL_LENGTH, 0
                try:               # the lone sequence's columns shared at any length (the default: from 4,000)
                    best[name] = min(best.get(name, np.inf), timed(lambda: params.partition_cpu(codes[:1], True))[0])
                finally:
                    nussinov_partition.PARALLEL_LENGTH = default
                name = f"{cores} threads, {args.batch} seqs, log Z + P, per seq"
                best[name] = min(best.get(name, np.inf), timed(lambda: params.partition_cpu(codes, True))[0] / args.batch)
            if not args.no_rnafold:
                best["RNAfold -p (1 thread)"] = min(best.get("RNAfold -p (1 thread)", np.inf),
                                                    timed(lambda: rnafold_pf(seqs[0]))[0])
        rows.append({"length": n, "seconds": best})
    load_after = os.getloadavg()[0]
    names = list(rows[0]["seconds"])
    print(f"CPU: {platform.processor() or platform.machine()}, {cores} cores; load average {load_before:.2f} "
          f"before, {load_after:.2f} after")
    print("| length | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 1) + "|")
    for row in rows:
        print(f"| {row['length']} | " + " | ".join(f"{row['seconds'][k]:.3f}" for k in names) + " |")
    save_json({"cores": cores, "load_before": load_before, "load_after": load_after, "repeats": args.repeats,
               "params": str(params), "rows": rows}, args.json)


if __name__ == "__main__":
    main()
