"""bench/turner.py --gpu-long: the Turner 2004 MFE of one long RNA on the GPU (variant ``tiled``).

The SARS-CoV-2 genome (29,903 nt, examples/sars-cov-2.fasta; --genome another FASTA) end to end (codes
to the device, the fill, the exterior loop, the traceback, ``pair_to`` back) and the fill alone (device
events around the tile-diagonals' launches), after a warm-up that compiles the kernels. Efficiency: the
multiloop's useful add-then-min updates, n^3 / 6, over the fill's time, as a fraction of the int32 DPX
min-plus ceiling of docs/limits.md (15.5 T/s). The structure's own energy (eval_structure) must equal
the minimum. Beside it, where --cpu-length is not 0: a random RNA of that length on the GPU and on the
CPU (bioaccel's mfe, every core), energies and structures compared.

    PYTHONPATH=src python3 bench/turner.py --gpu-long [--genome F.fasta] [--cpu-length 5000] [--repeats 2]
        [--alternatives "tile=64;product_min_blocks=2"]   (the fill alone with other TiledSizes too, its tables
                                                           checked equal to the default's; a spec may come again)
"""
import os
import time

import numpy as np

from _ceilings import INT32_DPX

INT32_CEILING = INT32_DPX


def read_fasta(path):
    with open(path) as handle:
        return "".join(line.strip() for line in handle if not line.startswith(">"))


def gpu_long_main(args, save_json):
    import numba

    from bioaccel.fold import _turner_tiled_gpu as tiled
    from bioaccel.fold._turner_cpu import mfe
    from bioaccel.fold._turner_energy import eval_structure
    from bioaccel.fold._turner_model import TurnerModel
    from bioaccel.fold._turner_tables import kernel_inputs
    from bioaccel.inputs.alphabet import encode
    from bioaccel.runtime import gpu as _gpu

    cp = _gpu.require_gpu()
    load_before = os.getloadavg()
    model = TurnerModel()
    genome = args.genome or os.path.join(os.path.dirname(__file__), "..", "examples", "sars-cov-2.fasta")
    codes = encode(read_fasta(genome))
    n = len(codes)
    rng = np.random.default_rng(args.seed)
    tiled.fold_one(rng.integers(0, 4, 700, dtype=np.uint8), model)  # compile the kernels
    rows = []
    ends = []
    for _ in range(args.repeats):
        start = time.perf_counter()
        energy, pair_to = tiled.fold_one(codes, model)
        ends.append(time.perf_counter() - start)
    E, lxc, no_lp = kernel_inputs(model)
    from bioaccel.fold._turner_gpu import _device_codes, hairpin_sizes

    codes_dev = _device_codes(cp, codes)
    E_dev, hp_dev = cp.asarray(E), cp.asarray(hairpin_sizes(E, lxc, n))
    fills, phases = [], {}
    reference = tiled.fill_tables(cp, codes_dev, n, E_dev, hp_dev, no_lp, phases=phases)
    for _ in range(args.repeats):
        begin, end = cp.cuda.Event(), cp.cuda.Event()
        begin.record()
        tables = tiled.fill_tables(cp, codes_dev, n, E_dev, hp_dev, no_lp)
        end.record()
        end.synchronize()
        fills.append(cp.cuda.get_elapsed_time(begin, end) / 1e3)
        del tables
    # other sizes, each spec as often as named (old and new interleaved: "rows=1;rows=0;rows=1"): the fill's
    # seconds, its launches timed one by one, and whether its three tables equal the default's bit for bit
    alternatives, alternative_runs = {}, []
    for spec in filter(None, args.alternatives.split(";")):
        alt = tiled.SIZES.replace(**{k: int(v) for k, v in (kv.split("=") for kv in spec.split(","))})
        tiled.fill_tables(cp, codes_dev, 700, E_dev, hp_dev, no_lp, alt)  # compile
        times = []
        for _ in range(args.repeats):
            begin, end = cp.cuda.Event(), cp.cuda.Event()
            begin.record()
            tables = tiled.fill_tables(cp, codes_dev, n, E_dev, hp_dev, no_lp, alt)
            end.record()
            end.synchronize()
            times.append(cp.cuda.get_elapsed_time(begin, end) / 1e3)
            del tables
        alt_phases = {}
        tables = tiled.fill_tables(cp, codes_dev, n, E_dev, hp_dev, no_lp, alt, phases=alt_phases)
        equal = all(bool(cp.array_equal(a, b)) for a, b in zip(tables, reference))
        del tables
        alternative_runs.append({"sizes": spec, "fill_s": times, "phases_s": alt_phases, "tables_equal": equal})
        alternatives[spec] = min(times + [alternatives.get(spec, float("inf"))])
    del reference
    evaluated = eval_structure(codes, pair_to, model)
    updates = n ** 3 / 6
    fill = min(fills)
    rows.append({"what": os.path.basename(genome), "n": n, "energy_dcal": energy, "pairs": int((pair_to >= 0).sum() // 2),
                 "end_to_end_s": min(ends), "end_to_end_all_s": ends, "fill_s": fill, "fill_all_s": fills, "phases_s": phases, "alternative_sizes_fill_s": alternatives,
                 "alternative_runs": alternative_runs,
                 "multiloop_updates": updates, "fraction_of_ceiling": updates / fill / INT32_CEILING,
                 "eval_structure_equal": evaluated == energy})
    cpu_row = None
    if args.cpu_length:
        seq = rng.integers(0, 4, args.cpu_length, dtype=np.uint8)
        mfe(seq[:600], model)  # compile the CPU kernels
        start = time.perf_counter()
        gpu_energy, gpu_pairs = tiled.fold_one(seq, model)
        gpu_s = time.perf_counter() - start
        start = time.perf_counter()
        cpu_energy, cpu_pairs = mfe(seq, model)
        cpu_s = time.perf_counter() - start
        cpu_row = {"n": args.cpu_length, "gpu_s": gpu_s, "cpu_s": cpu_s, "cpu_threads": numba.get_num_threads(),
                   "energy_dcal": cpu_energy, "equal": gpu_energy == cpu_energy and np.array_equal(gpu_pairs, cpu_pairs)}
    load_after = os.getloadavg()
    name = _gpu.device_name()
    print(f"Turner 2004 MFE of one long RNA, GPU variant tiled (tile {tiled.SIZES.tile}) on {name}; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; best of {args.repeats}")
    print(f"{'RNA':<20} {'n':>7}  {'kcal/mol':>9}  {'end to end s':>12}  {'fill s':>7}  {'of ceiling':>10}  eval equal")
    for r in rows:
        print(f"{r['what']:<20} {r['n']:>7,}  {r['energy_dcal'] / 100:>9.2f}  {r['end_to_end_s']:>12.3f}  "
              f"{r['fill_s']:>7.3f}  {r['fraction_of_ceiling']:>10.2%}  {r['eval_structure_equal']}")
    print("the fill's launches, timed one by one: " + ", ".join(f"{k} {v:.3f}" for k, v in phases.items()))
    for run in alternative_runs:
        seconds = min(run["fill_s"])
        print(f"  fill with sizes {run['sizes']}: {seconds:.4f} s ({updates / seconds / INT32_CEILING:.2%} of the "
              f"ceiling; runs {', '.join(f'{t:.4f}' for t in run['fill_s'])}), launches one by one: "
              + ", ".join(f"{k} {v:.4f}" for k, v in run["phases_s"].items())
              + f"; tables equal to the default's: {run['tables_equal']}")
    if cpu_row:
        print(f"random RNA {cpu_row['n']:,} nt: GPU tiled {cpu_row['gpu_s']:.3f} s, CPU mfe ({cpu_row['cpu_threads']} "
              f"threads) {cpu_row['cpu_s']:.2f} s, equal energy and structure: {cpu_row['equal']}")
    save_json({"benchmark": "turner_gpu_long", "device": name, "seed": args.seed, "tile": tiled.SIZES.tile,
               "ceiling": "int32 DPX min-plus, docs/limits.md (15.5 T/s)", "load_average_before": load_before,
               "load_average_after": load_after, "rows": rows, "cpu_beside": cpu_row},
              args.json.replace("turner_cpu.json", "turner_gpu_long.json"))
    if not all(run["tables_equal"] for run in alternative_runs):
        raise SystemExit("a fill with other sizes gave tables other than the default's")
    if not all(r["eval_structure_equal"] for r in rows) or (cpu_row and not cpu_row["equal"]):
        raise SystemExit("the GPU's structure does not score its energy, or the GPU and the CPU disagree")
