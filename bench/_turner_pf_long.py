"""bench/turner.py --gpu-long-pf: McCaskill's partition function and every base-pair probability of one long
RNA on the GPU (fold/_turner_pf_long_gpu.py, FP64).

Rows: random RNAs of --pf-sizes (the growth with n), then the SARS-CoV-2 genome (29,903 nt,
examples/sars-cov-2.fasta; --genome another FASTA) end to end: codes in, the GPU MFE for the scale, inside,
outside, P(i, j) on the device, the n x n matrix back on the host, and the pairs of probability >= 1e-5
listed as ``--bpp`` writes them (``end to end + pairs``). Efficiency: the useful multiply-adds of the three
O(n^3) multiloop sums (n^3 / 2 in all: one inside, two outside, each n^3 / 6) over the inside + outside
time, as a fraction of the H100's FP64 FMA rate of docs/limits.md (17 T FMA/s, vendor figure; no tensor
cores used). Checks printed: each base paired with probability at most 1, ln Z finite. Beside it, where
--cpu-length is not 0: a random RNA of that length on the GPU and on the CPU (bioaccel's partition, every
core): ln Z and the largest difference of a probability.

    PYTHONPATH=src python3 bench/turner.py --gpu-long-pf [--genome F.fasta] [--pf-sizes 5000,10000]
        [--cpu-length 2000] [--repeats 1]
"""
import os
import time

import numpy as np

from _ceilings import FP64_FMA

FP64_FMA_CEILING = FP64_FMA


def _read_fasta(path):
    with open(path) as handle:
        return "".join(line.strip() for line in handle if not line.startswith(">"))


def _one(codes, model, repeats):
    from bioaccel.fold import _turner_pf_long_gpu as long_gpu

    best = None
    for _ in range(repeats):
        phases = {}
        start = time.perf_counter()
        log_z, P = long_gpu.partition(codes, model, phases=phases)
        seconds = time.perf_counter() - start
        if best is None or seconds < best[0]:
            best = (seconds, phases, log_z, P)
        del P
    return best


def gpu_long_pf_main(args, save_json):
    import numba

    from bioaccel.fold._turner_model import TurnerModel
    from bioaccel.fold._turner_pf_cpu import partition as cpu_partition
    from bioaccel.fold._turner_pf_params import kt_cal
    from bioaccel.inputs.alphabet import encode
    from bioaccel.runtime import gpu as _gpu

    _gpu.require_gpu()
    load_before = os.getloadavg()
    model = TurnerModel()
    kT = kt_cal(37.0)
    rng = np.random.default_rng(args.seed)
    start = time.perf_counter()
    _one(rng.integers(0, 4, 300, dtype=np.uint8), model, 1)            # compile the kernels
    compile_s = time.perf_counter() - start
    rows = []
    inputs = [(f"random {int(m):,} nt", rng.integers(0, 4, int(m), dtype=np.uint8))
              for m in filter(None, args.pf_sizes.split(","))]
    genome = args.genome or os.path.join(os.path.dirname(__file__), "..", "examples", "sars-cov-2.fasta")
    inputs.append((os.path.basename(genome), encode(_read_fasta(genome))))
    for what, codes in inputs:
        n = len(codes)
        seconds, phases, log_z, P = _one(codes, model, args.repeats)
        start = time.perf_counter()
        i, j = np.nonzero(P >= 1e-5)
        lines = "".join(f"x\t{a + 1}\t{b + 1}\t{P[a, b]:.6g}\n" for a, b in zip(i.tolist(), j.tolist()))
        pairs_s = time.perf_counter() - start
        per_base = float((P.sum(axis=0) + P.sum(axis=1)).max())
        fmas = n ** 3 / 2
        device_s = phases["inside"] + phases["outside"]
        rows.append({"what": what, "n": n, "log_z": log_z, "ensemble_energy_kcal": -log_z * kT / 1000,
                     "end_to_end_s": seconds, "end_to_end_with_pairs_s": seconds + pairs_s, "phases_s": phases,
                     "pairs_at_least_1e-5": int(i.size), "bpp_text_bytes": len(lines),
                     "max_pairing_probability_of_a_base": per_base, "multiloop_fmas": fmas,
                     "fraction_of_ceiling": fmas / device_s / FP64_FMA_CEILING})
        del P, lines
        print(f"  {what}: {seconds:.2f} s ({', '.join(f'{k} {v:.2f}' for k, v in phases.items())})", flush=True)
    cpu_row = None
    if args.cpu_length:
        seq = rng.integers(0, 4, args.cpu_length, dtype=np.uint8)
        cpu_partition(seq[:300], model)                                   # compile the CPU kernels
        gpu_s, _, gpu_z, gpu_P = _one(seq, model, 1)
        start = time.perf_counter()
        cpu_z, cpu_P = cpu_partition(seq, model)
        cpu_s = time.perf_counter() - start
        cpu_row = {"n": args.cpu_length, "gpu_s": gpu_s, "cpu_s": cpu_s, "cpu_threads": numba.get_num_threads(),
                   "log_z_relative_difference": abs(gpu_z - cpu_z) / abs(cpu_z),
                   "max_probability_difference": float(np.max(np.abs(gpu_P - cpu_P)))}
    load_after = os.getloadavg()
    name = _gpu.device_name()
    print(f"Turner 2004 partition function and all base-pair probabilities of one long RNA, GPU (FP64) on {name}; "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after; best of {args.repeats}; "
          f"kernel compile and first call {compile_s:.1f} s")
    print(f"{'RNA':<22} {'n':>7}  {'G kcal/mol':>11}  {'end to end s':>12}  {'+ pairs s':>9}  {'in+out s':>8}  "
          f"{'of FP64 ceiling':>15}  {'max P(base)':>11}")
    for r in rows:
        ph = r["phases_s"]
        print(f"{r['what']:<22} {r['n']:>7,}  {r['ensemble_energy_kcal']:>11.2f}  {r['end_to_end_s']:>12.2f}  "
              f"{r['end_to_end_with_pairs_s']:>9.2f}  {ph['inside'] + ph['outside']:>8.2f}  "
              f"{r['fraction_of_ceiling']:>15.2%}  {r['max_pairing_probability_of_a_base']:>11.6f}")
    if cpu_row:
        print(f"random RNA {cpu_row['n']:,} nt: GPU {cpu_row['gpu_s']:.2f} s, CPU partition ({cpu_row['cpu_threads']} "
              f"threads) {cpu_row['cpu_s']:.2f} s; ln Z relative difference {cpu_row['log_z_relative_difference']:.1e}, "
              f"largest probability difference {cpu_row['max_probability_difference']:.1e}")
    save_json({"benchmark": "turner_pf_gpu_long", "device": name, "seed": args.seed,
               "ceiling": "FP64 FMA, docs/limits.md (17 T FMA/s, H100 SXM vendor figure)",
               "load_average_before": load_before, "load_average_after": load_after, "compile_s": compile_s,
               "rows": rows, "cpu_beside": cpu_row},
              args.json.replace("turner_cpu.json", "turner_pf_gpu_long.json"))
    bad = [r["what"] for r in rows if not (np.isfinite(r["log_z"]) and r["max_pairing_probability_of_a_base"] <= 1 + 1e-9)]
    if bad or (cpu_row and (cpu_row["log_z_relative_difference"] > 1e-10 or cpu_row["max_probability_difference"] > 1e-9)):
        raise SystemExit(f"the GPU partition function failed its checks: {bad or cpu_row}")
