"""Many records through ``bioaccel fold`` (issue 25): the command line to a file against the in-process
array API on the same sequences, in one run.

For each model (Nussinov, Turner 2004) on one backend: ``python3 -m bioaccel fold FASTA -o FILE``
(vienna; a fresh process, as a user runs it: start-up, reading, folding, writing, the journal),
the same command forced through the per-record path (``--per-record``, the path before the array one;
its output must be byte-identical), and in process on the sequences as a list of strings:
``nussinov_batch`` (Nussinov), ``fold_packed`` (either model: codes in, values and dot-brackets out),
and ``nussinov()`` (a FoldResult per record; ``--objects``). Random RNAs (seeded, uniform ACGU);
compiled kernels are warmed first, so no row pays a compilation. Each time is printed with the CPU
seconds it took (all threads; for the command, its process): on a machine shared with other work the
CPU seconds show what the load stretches. The goals of issue 25: on 2 cores,
100,000 x 120 nt, the command within 1.5x + 1.5 s of ``nussinov_batch`` and ``nussinov()`` within
2x + 0.5 s; on an H100/H200, 1,000,000 x 200 nt through the command line within 6 s.

    python3 bench/fold_records.py [--records 100000 --length 120 --backend cpu --per-record --objects]
    python3 bench/fold_records.py --records 1000000 --length 200 --backend gpu

On the GPU the fraction of the ceiling of limits.md is printed for the command's time: Nussinov's
n^3/6 updates over the int16x2 DPX max-plus ceiling (30.8 T/s), Turner's fill updates (bench/turner.py)
over the int32 min-plus one (15.5 T/s).
"""
import argparse
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, os.pardir, "src"))
sys.path.insert(0, HERE)
from _results import save_json  # noqa: E402

PER_RECORD = ("import sys; from bioaccel.cli import fold_arrays; fold_arrays.applies = lambda args: False; "
              "from bioaccel.cli.main import main; sys.exit(main(sys.argv[1:]))")


def write_fasta(path, count, length, seed=1):
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGU", dtype=np.uint8)[rng.integers(0, 4, size=(count, length))]
    sequences = [row.tobytes().decode() for row in letters]
    with open(path, "w") as handle:
        handle.write("".join(f">r{k}\n{s}\n" for k, s in enumerate(sequences)))
    return sequences


def cli(fasta, out, model, backend, per_record=False):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([os.path.join(HERE, os.pardir, "src"),
                                                       os.environ.get("PYTHONPATH", "")]))
    command = ([sys.executable, "-c", PER_RECORD] if per_record else [sys.executable, "-m", "bioaccel"])
    command += ["fold", fasta, "--model", model, "--backend", backend, "-o", out, "-q"]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr}")
    CPU_SECONDS[-1] = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return seconds


#: the CPU seconds (all threads) of the last timed call: on a loaded machine, a measure the load does not
#: stretch
CPU_SECONDS = [0.0]


def timed(function):
    started, cpu = time.perf_counter(), time.process_time()
    value = function()
    CPU_SECONDS[-1] = time.process_time() - cpu
    return time.perf_counter() - started, value


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--records", type=int, default=100_000)
    parser.add_argument("--length", type=int, default=120)
    parser.add_argument("--backend", choices=("cpu", "gpu"), default="cpu")
    parser.add_argument("--models", default="nussinov,turner2004")
    parser.add_argument("--per-record", action="store_true", help="also time the per-record command path")
    parser.add_argument("--objects", action="store_true", help="also time nussinov() (a FoldResult each)")
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)

    from bioaccel.fold import FoldParams, TurnerModel, check_fold, fold_packed, nussinov, nussinov_batch
    from bioaccel.fold._gpu_batch import ceiling_fraction
    from bioaccel.inputs.fasta_bulk import read_fasta_arrays
    from turner import INT32_CEILING, fill_updates

    folder = tempfile.mkdtemp(prefix="fold-records-")
    fasta = os.path.join(folder, "records.fa")
    sequences = write_fasta(fasta, args.records, args.length)
    warm = os.path.join(folder, "warm.fa")
    write_fasta(warm, 2000, args.length, seed=2)
    rows = []
    device = platform.processor() or platform.machine()
    if args.backend == "gpu":
        from bioaccel.runtime.gpu import device_name

        device = device_name()
    for model in args.models.split(","):
        params = FoldParams() if model == "nussinov" else TurnerModel()
        call = check_fold(params, backend=args.backend)
        cli(warm, os.path.join(folder, "warm.out"), model, args.backend)                 # compile, cache
        row = {"model": model, "records": args.records, "length": args.length, "backend": args.backend}
        out = os.path.join(folder, f"{model}.vienna")
        row["cli_seconds"] = cli(fasta, out, model, args.backend)
        row["cli_cpu_seconds"] = CPU_SECONDS[-1]
        if args.per_record:
            old = os.path.join(folder, f"{model}.per-record.vienna")
            row["cli_per_record_seconds"] = cli(fasta, old, model, args.backend, per_record=True)
            row["cli_per_record_cpu_seconds"] = CPU_SECONDS[-1]
            with open(out, "rb") as a, open(old, "rb") as b:
                row["identical_to_per_record"] = a.read() == b.read()
        records = read_fasta_arrays(warm)
        fold_packed(records.codes, records.starts, call)                                  # warm in process
        codes_seconds, codes = timed(lambda: read_fasta_arrays(fasta))
        row["fold_packed_seconds"], (units, _) = timed(lambda: fold_packed(codes.codes, codes.starts, call))
        row["fold_packed_cpu_seconds"] = CPU_SECONDS[-1]
        if model == "nussinov":
            nussinov_batch(sequences[:400], backend=args.backend)
            row["nussinov_batch_seconds"], batch = timed(lambda: nussinov_batch(sequences, backend=args.backend))
            row["nussinov_batch_cpu_seconds"] = CPU_SECONDS[-1]
            row["batch_scores_equal"] = bool(np.array_equal(batch.scores, units))
            if args.objects:
                row["nussinov_objects_seconds"], _ = timed(lambda: nussinov(sequences, backend=args.backend))
                row["nussinov_objects_cpu_seconds"] = CPU_SECONDS[-1]
            peer = row["nussinov_batch_seconds"]
            row["goal_cli_seconds"] = 1.5 * peer + 1.5 if args.backend == "cpu" else 6.0
            if args.backend == "gpu":
                row["cli_fraction_of_ceiling"] = ceiling_fraction([args.length] * args.records, row["cli_seconds"])
        elif args.backend == "gpu":
            row["cli_fraction_of_ceiling"] = fill_updates(args.length) * args.records / row["cli_seconds"] / INT32_CEILING
        with open(out, "rb") as handle:
            row["output_bytes"] = len(handle.read())
        rows.append(row)
        print(row, flush=True)

    load = os.getloadavg()
    print(f"\n{args.records:,} x {args.length} nt, {args.backend} ({device}), load average {load[0]:.2f} "
          f"{load[1]:.2f} {load[2]:.2f}, {os.cpu_count()} cores")
    print(f"{'model':<11} {'CLI s':>7} {'per-rec CLI s':>13} {'fold_packed s':>13} {'nussinov_batch s':>16} "
          f"{'nussinov() s':>12} {'goal s':>7} {'identical':>9} {'of ceiling':>10}")
    for r in rows:
        cell = lambda k, fmt="{:.2f}": fmt.format(r[k]) if k in r else "-"          # noqa: E731
        print(f"{r['model']:<11} {cell('cli_seconds'):>7} {cell('cli_per_record_seconds'):>13} "
              f"{cell('fold_packed_seconds'):>13} {cell('nussinov_batch_seconds'):>16} "
              f"{cell('nussinov_objects_seconds'):>12} {cell('goal_cli_seconds'):>7} "
              f"{cell('identical_to_per_record', '{}'):>9} {cell('cli_fraction_of_ceiling', '{:.2%}'):>10}")
        print(f"{'  CPU s':<11} {cell('cli_cpu_seconds'):>7} {cell('cli_per_record_cpu_seconds'):>13} "
              f"{cell('fold_packed_cpu_seconds'):>13} {cell('nussinov_batch_cpu_seconds'):>16} "
              f"{cell('nussinov_objects_cpu_seconds'):>12}")
    name = args.json or os.path.join(HERE, os.pardir, "docs", "results",
                                     f"fold_records_{args.backend}_{args.records}x{args.length}.json")
    save_json({"device": device, "cores": os.cpu_count(), "load_average": load, "rows": rows,
               "command": " ".join(["python3", "bench/fold_records.py"] + (argv or sys.argv[1:]))}, name)


if __name__ == "__main__":
    main()
