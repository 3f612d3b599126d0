"""Turner 2004 MFE on the CPU: bioaccel against ViennaRNA's RNA.fold on the same random RNAs, in one run.

For each length, one random RNA (seeded); bioaccel's ``mfe`` (all cores) and ``RNA.fold`` (one core:
ViennaRNA's MFE is single-threaded) are timed in turns, best of --repeats rounds (one round for RNAs of
--long-length or more: RNA.fold takes a minute there), and their energies must be equal (integers,
dcal/mol). "x" is RNA.fold's time over bioaccel's. Both include their traceback.

Also the first-call cost with an empty Numba cache, in fresh processes: the first ``mfe`` of a short RNA
(the serial kernels), then the first of a long one (the parallel fill), the first ``mfe_many`` (the batch
kernel) and the first ``energy_of``; and the first ``mfe`` of a second process that finds the cache.

    PYTHONPATH=src python3 bench/turner.py [--lengths 200,1500,5000] [--repeats 3] [--threads 0]

GPU (``--gpu``, no ViennaRNA needed): the batch variant on many random RNAs per call, 2,000 x 1,000 nt
and 1,000,000 x 200 nt (``--quick``: 200 x 1,000 and 20,000 x 200), each timed end to end (packing,
copies, kernels, results as numpy arrays) after a warm-up that compiles its kernels. A row whose pilot
(1% of it) predicts more than --max-seconds runs the share that fits, and says so. The first 20 of each
row are checked against the CPU (energy and structure). Efficiency: the fill's add-then-min updates
(the M2 splits of every cell, the interior-loop candidates of every pairable cell: 6/16 of the cells of
a uniform random RNA) per second over the int32 DPX min-plus ceiling of docs/limits.md (15.5 T/s,
VIADDMNMX: the kernel's cells are int32 and its inner loops are int32 add-then-min).

With --fill-only-too each row is also timed with ``traceback=False`` (energies only); --rows picks
other rows (``20000x200,200x1000``); --no-check skips the CPU comparison (to time an older checkout
without compiling its CPU kernels).

    PYTHONPATH=src python3 bench/turner.py --gpu [--quick] [--max-seconds 60] [--fill-only-too]

Partition function (``--partition``): bioaccel's McCaskill with base-pair probabilities
(``TurnerModel().partition_cpu``, all cores) against ViennaRNA's ``fc.pf()`` + ``fc.bpp()`` (one core) on
the same random RNAs (500, 1,500, 3,000 nt), one round each by default, in turns; the ensemble free
energy must agree to 1e-4 kcal/mol (ViennaRNA returns a single-precision float) and every probability to
1e-9 ("equal"). JSON: docs/results/turner_pf_cpu.json.

    PYTHONPATH=src python3 bench/turner.py --partition [--lengths 500,1500,3000] [--repeats 1]

One long RNA's partition function and probabilities on the GPU (``--gpu-long-pf``, the SARS-CoV-2 genome):
bench/_turner_pf_long.py; JSON: docs/results/turner_pf_gpu_long.json.

Local folding (``--window``, bench/_turner_window.py): ``local_ensemble`` against ``RNA.pfl_fold`` on the
SARS-CoV-2 genome (10 kb and whole), RNAplfold's -W 70 and -W 240 -L 160, and a 100 Mb projection.

    PYTHONPATH=src python3 bench/turner.py --window [--lengths 10000,29903] [--threads 2]
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import tempfile
import time

import numba
import numpy as np

sys.path.insert(0, os.path.dirname(__file__))
from _results import save_json  # noqa: E402
from _ceilings import INT32_DPX  # noqa: E402

from bioaccel.inputs.alphabet import encode  # noqa: E402
from bioaccel.fold._turner_cpu import mfe  # noqa: E402
from bioaccel.fold._turner_model import TurnerModel  # noqa: E402

FIRST_CALLS = r"""
import json, sys, time
wall, cpu = time.perf_counter, time.process_time
out = {}
w, c = wall(), cpu()
from bioaccel.inputs.alphabet import encode
from bioaccel.fold._turner_cpu import mfe, mfe_many
from bioaccel.fold._turner_energy import energy_of
out["import"] = (wall() - w, cpu() - c)
steps = [("mfe, 60 nt (serial kernels)", lambda: mfe(encode("GGGAAAUCCCAGCUAGCUAGGCUUCGGCCUAGCUAGUUUCGAAACGCGAUAUAGCGCAAAA"))),
         ("mfe, 600 nt (parallel fill)", lambda: mfe(encode("GGGAAAUCCCAGCUAGCUAGGCUUCGGCCU" * 20), parallel=True)),
         ("mfe_many (batch kernel)", lambda: mfe_many([encode("GGGAAAUCCC"), encode("GCGCUUCGGCGC")])),
         ("energy_of (eval kernels)", lambda: energy_of("GGGAAAUCCC", "(((....)))"))]
for name, step in steps[: int(sys.argv[1])]:
    w, c = wall(), cpu()
    step()
    out[name] = (wall() - w, cpu() - c)
print(json.dumps(out))
"""


def first_calls(cache_dir, steps):
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    done = subprocess.run([sys.executable, "-c", FIRST_CALLS, str(steps)], env=env, capture_output=True,
                          text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def random_rna(n, rng):
    return "".join(rng.choice(list("ACGU"), n))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--lengths", default="200,1500,5000", help="comma-separated RNA lengths")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--long-length", type=int, default=3000,
                        help="RNAs this long or longer are timed once (RNA.fold takes a minute at 5,000 nt)")
    parser.add_argument("--threads", type=int, default=0, help="Numba threads for bioaccel (0: all)")
    parser.add_argument("--seed", type=int, default=2004)
    parser.add_argument("--no-compile", action="store_true", help="skip the first-call measurements")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(__file__), "results", "turner_cpu.json"))
    parser.add_argument("--gpu", action="store_true", help="time the GPU batch instead (no ViennaRNA needed)")
    parser.add_argument("--quick", action="store_true", help="--gpu: the small rows")
    parser.add_argument("--max-seconds", type=float, default=60.0, help="--gpu: longest time of one row")
    parser.add_argument("--rows", default="", help="--gpu: rows COUNTxN,... instead of the default ones")
    parser.add_argument("--fill-only-too", action="store_true", help="--gpu: also time each row without traceback")
    parser.add_argument("--no-check", action="store_true", help="--gpu: skip the comparison with the CPU")
    parser.add_argument("--partition", action="store_true",
                        help="time the partition function + probabilities against ViennaRNA's fc.pf() + fc.bpp()")
    parser.add_argument("--window", action="store_true",
                        help="time local folding (RNAplfold) against RNA.pfl_fold on the SARS-CoV-2 genome")
    parser.add_argument("--rnafold-seconds", type=float, default=20.0,
                        help="--gpu: ViennaRNA's RNA.fold beside each row (a process per core) for about this long, "
                             "the whole row projected from it (0: not run; skipped where ViennaRNA is missing)")
    parser.add_argument("--gpu-long", action="store_true",
                        help="time one long RNA on the GPU (variant tiled) instead: bench/_turner_long.py")
    parser.add_argument("--genome", default="", help="--gpu-long: FASTA of the long RNA (the SARS-CoV-2 genome)")
    parser.add_argument("--cpu-length", type=int, default=5000, help="--gpu-long: a random RNA on GPU and CPU (0: none)")
    parser.add_argument("--alternatives", default="", help="--gpu-long: other tiled sizes, 'tile=64;stage=8,tile=64'")
    parser.add_argument("--gpu-long-pf", action="store_true",
                        help="time the partition function of one long RNA on the GPU: bench/_turner_pf_long.py")
    parser.add_argument("--pf-sizes", default="5000,10000", help="--gpu-long-pf: random RNAs timed before the genome")
    args = parser.parse_args(argv)
    if args.gpu_long_pf:
        from _turner_pf_long import gpu_long_pf_main

        return gpu_long_pf_main(args, save_json)
    if args.gpu_long:
        from _turner_long import gpu_long_main

        return gpu_long_main(args, save_json)
    if args.gpu:
        return gpu_main(args)
    if args.partition:
        return partition_main(args)
    if args.window:
        from _turner_window import window_main

        return window_main(args, save_json)
    import RNA

    load_before = os.getloadavg()  # other users of a shared machine skew every timing
    before = numba.get_num_threads()
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    compile_times = {}
    if not args.no_compile:
        with tempfile.TemporaryDirectory() as cache:
            compile_times["empty cache"] = first_calls(cache, 4)
            compile_times["cached"] = first_calls(cache, 1)
    numba.set_num_threads(threads)
    try:
        rows = run(args, RNA)
    finally:
        numba.set_num_threads(before)
    load_after = os.getloadavg()

    print(f"Turner 2004 MFE, bioaccel on {threads} thread(s) of {os.cpu_count()} core(s) against RNA.fold "
          f"(ViennaRNA {RNA.__version__}, one core); load average {load_before[0]:.2f} before the run, "
          f"{load_after[0]:.2f} after; best of {args.repeats} rounds (1 from {args.long_length:,} nt)")
    print(f"{'n':>6}  {'energy':>9}  {'bioaccel s':>10}  {'RNA.fold s':>10}  {'x':>6}  equal")
    for row in rows:
        print(f"{row['n']:>6}  {row['energy'] / 100:>9.2f}  {row['bioaccel_s']:>10.3f}  {row['rnafold_s']:>10.3f}  "
              f"{row['speedup']:>6.2f}  {row['equal']}")
    for label, steps in compile_times.items():
        print(f"first calls, {label} Numba cache (wall s / CPU s):")
        for name, (wall, cpu) in steps.items():
            print(f"  {name:<30} {wall:7.2f}  {cpu:7.2f}")
    save_json({
        "benchmark": "turner_cpu", "threads": threads, "cores": os.cpu_count(),
        "load_average_before": load_before, "load_average_after": load_after, "repeats": args.repeats,
        "seed": args.seed, "python": sys.version.split()[0], "numba": numba.__version__,
        "viennarna": RNA.__version__, "machine": platform.processor() or platform.machine(),
        "rows": rows, "first_calls": compile_times,
    }, args.json)
    if not all(row["equal"] for row in rows):
        raise SystemExit("bioaccel and RNA.fold disagree: see the table")


def run(args, RNA):
    rng = np.random.default_rng(args.seed)
    model = TurnerModel()
    mfe(encode(random_rna(600, rng)), model)  # compile, or load from the cache, before timing
    rows = []
    for n in (int(x) for x in args.lengths.split(",") if x):
        sequence = random_rna(n, rng)
        codes = encode(sequence)
        rounds = 1 if n >= args.long_length else args.repeats
        ours, theirs, energy, vienna = [], [], None, None
        for _ in range(rounds):
            start = time.perf_counter()
            energy, _ = mfe(codes, model)
            ours.append(time.perf_counter() - start)
            start = time.perf_counter()
            _, vienna = RNA.fold(sequence)
            theirs.append(time.perf_counter() - start)
        vienna = round(vienna * 100)
        rows.append({"n": n, "energy": energy, "rnafold_energy": vienna, "equal": energy == vienna,
                     "bioaccel_s": min(ours), "rnafold_s": min(theirs), "speedup": min(theirs) / min(ours),
                     "all_bioaccel_s": ours, "all_rnafold_s": theirs})
    return rows


#: docs/limits.md: int32 add-then-min (DPX VIADDMNMX) updates per second, measured on an H200; the H100 has
#: the same SM count and clock
INT32_CEILING = INT32_DPX
GPU_ROWS = ((2_000, 1_000), (1_000_000, 200))
QUICK_ROWS = ((200, 1_000), (20_000, 200))


def fill_updates(n, pairable=6 / 16):
    """Add-then-min updates of one n-long fill: the M2 splits of every cell (d - 8 at j - i = d) and the
    interior-loop candidates of the pairable cells ((u + 1)(u + 2) / 2, u = min(30, d - 6)).

    >>> fill_updates(10, pairable=1.0)
    36.0
    """
    d = np.arange(4, n, dtype=np.float64)
    u = np.minimum(30, d - 6)
    interior = np.where(u >= 0, (u + 1) * (u + 2) / 2, 0)
    return float(np.sum((n - d) * (np.maximum(0, d - 8) + pairable * interior)))


def _vienna_fold(sequence):
    import RNA

    return round(RNA.fold(sequence)[1] * 100)


def rnafold_beside(batch, energies, budget) -> "dict | None":
    """RNA.fold on the row's first RNAs, a process per core, for about ``budget`` seconds: the whole row's
    projected time and whether its energies equal ours; None where ViennaRNA is missing or budget is 0."""
    import multiprocessing

    try:
        import RNA  # noqa: F401
    except ImportError:
        return None
    if budget <= 0:
        return None
    cores = os.cpu_count() or 1
    texts = ["".join("ACGU"[c] for c in codes) for codes in batch]
    with multiprocessing.get_context("fork").Pool(cores) as pool:
        start = time.perf_counter()
        pilot = pool.map(_vienna_fold, texts[:cores], chunksize=1)
        per = (time.perf_counter() - start) / cores
        k = min(len(texts), max(cores, int(budget / per)))
        start = time.perf_counter()
        got = pool.map(_vienna_fold, texts[:k], chunksize=max(1, k // (cores * 4)))
        seconds = time.perf_counter() - start
    return {"processes": cores, "folded": k, "seconds": seconds, "projected_seconds": seconds * len(texts) / k,
            "equal_energies": got == [int(e) for e in energies[:k]] and pilot == got[:cores]}


def gpu_main(args):
    from bioaccel.fold import _turner_gpu
    from bioaccel.fold._turner_cpu import mfe_many
    from bioaccel.runtime.gpu import device_name

    model = TurnerModel()
    rng = np.random.default_rng(args.seed)
    rows = []
    chosen = [tuple(int(v) for v in r.split("x")) for r in args.rows.split(",") if r]
    for count, n in chosen or (QUICK_ROWS if args.quick else GPU_ROWS):
        batch = list(rng.integers(0, 4, (count, n), dtype=np.uint8))
        _turner_gpu.fold(batch[:8], model)  # compile this row's kernel before timing
        pilot = max(1, count // 100)
        start = time.perf_counter()
        _turner_gpu.fold(batch[:pilot], model)
        predicted = (time.perf_counter() - start) * count / pilot
        run_count = count if predicted <= args.max_seconds else max(pilot, int(count * args.max_seconds / predicted))
        start = time.perf_counter()
        results = _turner_gpu.fold(batch[:run_count], model)
        seconds = time.perf_counter() - start
        fill_seconds = None
        if args.fill_only_too:
            start = time.perf_counter()
            _turner_gpu.fold(batch[:run_count], model, traceback=False)
            fill_seconds = time.perf_counter() - start
        equal = None
        if not args.no_check:
            want = mfe_many(batch[:20], model)
            equal = all(e == we and np.array_equal(p, wp) for (e, p), (we, wp) in zip(results[:20], want))
        updates = fill_updates(n) * run_count
        vienna = rnafold_beside(batch, [e for e, _ in results], args.rnafold_seconds)
        rows.append({"rnafold": vienna, "count": count, "n": n, "count_run": run_count, "seconds": seconds, "fill_only_seconds": fill_seconds,
                     "sequences_per_s": run_count / seconds, "full_count_seconds": seconds * count / run_count,
                     "updates": updates, "ceiling": INT32_CEILING,
                     "fraction_of_ceiling": updates / seconds / INT32_CEILING, "equal_to_cpu_first_20": equal})
    name = device_name()
    print(f"Turner 2004 MFE, GPU batch (one block per sequence) on {name}; end to end, traceback included")
    print(f"{'count':>9} x {'n':>5}  {'run':>9}  {'seconds':>8}  {'seq/s':>9}  {'full s':>8}  {'of ceiling':>10}  "
          f"{'no-tb s':>7}  equal")
    for r in rows:
        fill = "" if r["fill_only_seconds"] is None else f"{r['fill_only_seconds']:.3f}"
        print(f"{r['count']:>9,} x {r['n']:>5}  {r['count_run']:>9,}  {r['seconds']:>8.3f}  {r['sequences_per_s']:>9.0f}  "
              f"{r['full_count_seconds']:>8.2f}  {r['fraction_of_ceiling']:>10.3%}  {fill:>7}  {r['equal_to_cpu_first_20']}")
    for r in rows:
        v = r["rnafold"]
        if v is not None:
            print(f"RNA.fold beside {r['count']:,} x {r['n']}: {v['folded']:,} RNAs in {v['seconds']:.2f} s on "
                  f"{v['processes']} processes, the row projected {v['projected_seconds']:.1f} s "
                  f"({v['projected_seconds'] / r['full_count_seconds']:.0f}x ours); energies equal: {v['equal_energies']}")
    json_path = args.json.replace("turner_cpu.json", "turner_gpu.json")
    save_json({"benchmark": "turner_gpu", "device": name, "seed": args.seed, "quick": args.quick,
               "max_seconds": args.max_seconds, "ceiling": "int32 DPX min-plus, docs/limits.md", "rows": rows},
              json_path)
    if any(r["equal_to_cpu_first_20"] is False for r in rows):
        raise SystemExit("the GPU and the CPU disagree: see the table")



# --- partition function (McCaskill) against ViennaRNA's fc.pf() + fc.bpp() ---

def partition_main(args):
    """``--partition``: bioaccel's ln Z and probabilities against ViennaRNA's, timed in turns."""
    import RNA

    lengths = args.lengths if args.lengths != "200,1500,5000" else "500,1500,3000"
    json_path = args.json if not args.json.endswith("turner_cpu.json") else args.json.replace("turner_cpu", "turner_pf_cpu")
    load_before = os.getloadavg()
    threads = args.threads or numba.config.NUMBA_NUM_THREADS
    before = numba.get_num_threads()
    numba.set_num_threads(threads)
    rng = np.random.default_rng(args.seed)
    model = TurnerModel()
    rows = []
    rounds = args.repeats if args.repeats != 3 else 1      # 3 is the MFE's default: one round unless asked
    try:
        model.partition_cpu([encode(random_rna(600, rng))], True)     # compile or load before timing
        for n in (int(x) for x in lengths.split(",") if x):
            sequence = random_rna(n, rng)
            codes = encode(sequence)
            ours, theirs = [], []
            for _ in range(rounds):
                start = time.perf_counter()
                log_z, P = model.partition_cpu([codes], True)[0]
                ours.append(time.perf_counter() - start)
                start = time.perf_counter()
                fc = RNA.fold_compound(sequence)
                _, vienna_g = fc.pf()
                bpp = fc.bpp()
                theirs.append(time.perf_counter() - start)
            dp = float(np.abs(np.array(bpp)[1:, 1:] - P).max())
            g = log_z / model.log_weight(100)          # kcal/mol: ViennaRNA returns it as a float (single)
            rows.append({"n": n, "ensemble_energy": g, "vienna_ensemble_energy": vienna_g,
                         "energy_diff": abs(g - vienna_g), "max_p_diff": dp,
                         "equal": abs(g - vienna_g) < 1e-4 and dp < 1e-9, "bioaccel_s": min(ours),
                         "vienna_s": min(theirs), "speedup": min(theirs) / min(ours)})
    finally:
        numba.set_num_threads(before)
    load_after = os.getloadavg()
    print(f"Turner 2004 partition function + base-pair probabilities, bioaccel on {threads} thread(s) of "
          f"{os.cpu_count()} core(s) against fc.pf() + fc.bpp() (ViennaRNA {RNA.__version__}, one core); load "
          f"average {load_before[0]:.2f} before the run, {load_after[0]:.2f} after; best of {rounds} round(s), "
          "in turns")
    print(f"{'n':>6}  {'ensemble':>9}  {'bioaccel s':>10}  {'ViennaRNA s':>11}  {'x':>6}  {'|dG|':>8}  "
          f"{'max |dP|':>8}  equal")
    for row in rows:
        print(f"{row['n']:>6}  {row['ensemble_energy']:>9.2f}  {row['bioaccel_s']:>10.3f}  {row['vienna_s']:>11.3f}  "
              f"{row['speedup']:>6.2f}  {row['energy_diff']:>8.1e}  {row['max_p_diff']:>8.1e}  {row['equal']}")
    save_json({"benchmark": "turner_pf_cpu", "threads": threads, "cores": os.cpu_count(),
               "load_average_before": load_before, "load_average_after": load_after, "seed": args.seed,
               "rounds": rounds,
               "python": sys.version.split()[0], "numba": numba.__version__, "viennarna": RNA.__version__,
               "machine": platform.processor() or platform.machine(), "rows": rows}, json_path)
    if not all(row["equal"] for row in rows):
        raise SystemExit("bioaccel and ViennaRNA disagree: see the table")


if __name__ == "__main__":
    main()
