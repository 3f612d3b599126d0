"""The Turner 2004 partition function on the GPU (variant ``batch``), end to end, for many short RNAs.

Each row: ``count`` random RNAs of ``n`` nt (uniform ACGU, seeded), timed from the packed sequences in
host memory to the files a user writes for so many RNAs:

- ``mfe``: the MFE batch on the GPU (structure and energy, for the MFE frequency);
- ``partition``: ln Z, every probability, the pairs of probability >= ``--cutoff`` listed and sorted on the
  device and copied back, the ensemble diversity and the centroid distance (sums over every pair);
- ``summary``: the per-RNA TSV (id, length, MFE structure and energy, ensemble free energy, ln Z, MFE
  frequency, ensemble diversity, centroid structure and distance) written;
- ``bpp``: the listed pairs written as one binary .npy file (sequence, i, j as int32, p as float64); the
  text form of ``--bpp`` at the same cutoff would have as many lines.

Beside it: the same partition functions on every core of this machine (``TurnerModel.partition_cpu``,
the CPU path of ``ensemble``) on the row's first RNAs for about ``--cpu-seconds``, projected to the row;
the GPU's ln Z and probabilities against the CPU's on the first 20 (the stated bound: ln Z 1e-10
relative, every probability 1e-9); the fraction of the FP64 FMA ceiling of /work/shared/design/limits.md
(H100 SXM 17e12 FMA/s, vendor figure) over the partition step, counting the multiply-adds the recurrences
need (inside and outside: the multiloop sums of every cell, the interior loops of the pairable cells,
6/16 of them in uniform random RNA); the load average before and after. Files go to a temporary folder.

    PYTHONPATH=src python3 bench/turner_pf_gpu.py [--rows 100000x200,2000x1000] [--cutoff 1e-5]
    PYTHONPATH=src python3 bench/turner_pf_gpu.py --host      # no GPU: the host's share per record
"""
import argparse
import os
import sys
import tempfile
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import save_json  # noqa: E402
from _ceilings import FP64_FMA  # noqa: E402

#: H100 SXM FP64 (non-tensor) FMA/s, limits.md (vendor: 34 TFLOP/s)
FP64_FMA_CEILING = FP64_FMA
ROWS = ((100_000, 200), (2_000, 1_000))


def pf_fmas(n, pairable=6 / 16) -> float:
    """Multiply-adds of one n-long inside + outside: per cell (i, j), d = j - i >= 4, the inside's qm sum
    (d - 8 terms) and, pairable, its multiloop sum (d - 10) and interior loops ((u + 1)(u + 2) / 2, u =
    min(30, d - 6)); the outside's om sums (n - j - 5, n - j - 6), om1 sums (i - 4, i - 5) and, pairable,
    the enclosing interior loops (as many as the inside's on average).

    >>> pf_fmas(12, pairable=1.0)
    291.0
    """
    total = 0.0
    for d in range(4, n):
        i = np.arange(0, n - d, dtype=np.float64)
        j = i + d
        u = min(30, d - 6)
        interior = (u + 1) * (u + 2) / 2 if u >= 0 else 0.0
        inside = np.maximum(0, d - 8) + pairable * (max(0, d - 10) + interior)
        outside = (np.maximum(0, n - j - 5) + np.maximum(0, n - j - 6) + np.maximum(0, i - 4) + np.maximum(0, i - 5)
                   + pairable * interior)
        total += float(np.sum(inside + outside))
    return total


def dot_brackets(offsets_n, lengths, i, j, which):
    """Dot-brackets of every sequence from flat 0-based pair lists (``which``: the pairs to draw), as one
    NumPy char array cut per sequence."""
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    chars = np.full(int(starts[-1]), ord("."), dtype=np.uint8)
    seq = np.repeat(np.arange(len(lengths)), np.diff(offsets_n))
    chars[starts[seq[which]] + i[which]] = ord("(")
    chars[starts[seq[which]] + j[which]] = ord(")")
    text = chars.tobytes().decode()
    return [text[a:b] for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]


def summary_rows(model, lengths, energies, pair_to, starts, batch):
    """The per-RNA TSV lines: id, length, MFE structure and energy (kcal/mol), ensemble free energy
    (kcal/mol), ln Z, MFE frequency, ensemble diversity, centroid structure and distance."""
    from bioaccel.fold._turner_pf_params import kt_cal

    kT = kt_cal(model.temperature)
    ensemble = -batch.log_z * kT / 1000.0
    mfe32 = energies.astype(np.float32).astype(np.float64) / 100.0
    frequency = np.exp(-(mfe32 - ensemble) * 1000.0 / kT)
    # MFE structures from pair_to: i < partner
    k = np.arange(len(pair_to))
    within = k - np.repeat(starts[:-1], lengths)
    opening = pair_to > within
    seq_of = np.repeat(np.arange(len(lengths)), lengths)
    counts = np.bincount(seq_of[opening], minlength=len(lengths))
    offs = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(counts, out=offs[1:])
    mfe = dot_brackets(offs, lengths, within[opening], pair_to[opening], np.ones(int(opening.sum()), bool))
    centroid = dot_brackets(batch.offsets, lengths, batch.i, batch.j, batch.p > 0.5)
    return [f"r{k}\t{n}\t{s}\t{e:.2f}\t{g:.4f}\t{z:.6f}\t{f:.6g}\t{d:.4f}\t{c}\t{cd:.4f}\n" for k, (n, s, e, g, z, f, d, c, cd)
            in enumerate(zip(lengths.tolist(), mfe, (energies / 100.0).tolist(), ensemble.tolist(), batch.log_z.tolist(),
                             frequency.tolist(), batch.diversity.tolist(), centroid, batch.centroid_distance.tolist()))]


def row(count, n, args, folder, caps=()):
    from bioaccel.fold import _turner_gpu, _turner_pf_gpu
    from bioaccel.fold._turner_model import TurnerModel
    from bioaccel.fold._turner_pf_cpu import partition as cpu_partition

    model = TurnerModel()
    rng = np.random.default_rng(args.seed)
    joined = rng.integers(0, 4, count * n, dtype=np.uint8)
    starts = np.arange(0, count * n + 1, n, dtype=np.int64)
    lengths = np.diff(starts)
    few = starts[:9]
    _turner_gpu.fold_packed(joined[:8 * n], few, model)                 # compile both kernels before timing
    _turner_pf_gpu.partition_packed(joined[:8 * n], few, model, cutoff=args.cutoff)
    t0 = time.perf_counter()
    energies, pair_to = _turner_gpu.fold_packed(joined, starts, model)
    t1 = time.perf_counter()
    batch = _turner_pf_gpu.partition_packed(joined, starts, model, cutoff=args.cutoff)
    t2 = time.perf_counter()
    with open(os.path.join(folder, "summary.tsv"), "w") as handle:
        handle.write("id\tlength\tstructure\tenergy_kcal_mol\tensemble_energy_kcal_mol\tlog_z\tmfe_frequency\t"
                     "ensemble_diversity\tcentroid\tcentroid_distance\n")
        handle.writelines(summary_rows(model, lengths, energies, pair_to, starts, batch))
    t3 = time.perf_counter()
    seq = np.repeat(np.arange(count, dtype=np.int32), np.diff(batch.offsets))
    table = np.empty(len(batch.p), dtype=[("seq", "<i4"), ("i", "<i4"), ("j", "<i4"), ("p", "<f8")])
    table["seq"], table["i"], table["j"], table["p"] = seq, batch.i + 1, batch.j + 1, batch.p
    np.save(os.path.join(folder, "bpp.npy"), table)
    t4 = time.perf_counter()
    # the first 20 against the CPU
    worst_z = worst_p = 0.0
    for k in range(min(20, count)):
        codes = joined[starts[k]:starts[k + 1]]
        want_z, want_P = cpu_partition(codes, model, want_bpp=True)
        worst_z = max(worst_z, abs(batch.log_z[k] - want_z) / max(1.0, abs(want_z)))
        P = batch.dense(k, n)
        listed = want_P >= args.cutoff
        worst_p = max(worst_p, float(np.abs(np.where(listed, want_P, 0.0) - P).max()))
    by_cap = {}
    for cap in caps:                    # the same partition step with blocks of at most `cap` threads
        from bioaccel.fold import _turner_pf_launch as launch

        kept = launch.SIZES
        launch.SIZES = kept.replace(block_cap=cap)
        try:
            start = time.perf_counter()
            again = _turner_pf_gpu.partition_packed(joined, starts, model, cutoff=args.cutoff)
            by_cap[cap] = time.perf_counter() - start
            assert np.array_equal(again.offsets, batch.offsets) and np.abs(again.p - batch.p).max(initial=0) < 1e-12
        finally:
            launch.SIZES = kept
    cpu = cpu_beside(model, joined, starts, args.cpu_seconds) if args.cpu_seconds > 0 else None
    fmas = pf_fmas(n) * count
    result = {"count": count, "n": n, "cutoff": args.cutoff, "mfe_s": t1 - t0, "partition_s": t2 - t1,
              "summary_s": t3 - t2, "bpp_npy_s": t4 - t3, "end_to_end_s": t4 - t0, "pairs_listed": int(len(batch.p)),
              "summary_bytes": os.path.getsize(os.path.join(folder, "summary.tsv")),
              "bpp_bytes": os.path.getsize(os.path.join(folder, "bpp.npy")), "fmas": fmas,
              "fraction_of_fp64_ceiling": fmas / (t2 - t1) / FP64_FMA_CEILING,
              "max_rel_log_z_vs_cpu_first_20": worst_z, "max_abs_p_vs_cpu_first_20": worst_p,
              "equal_within_bound": worst_z <= 1e-10 and worst_p <= 1e-9, "cpu": cpu,
              "partition_s_by_block_cap": by_cap}
    if cpu:
        result["cpu_over_gpu_partition"] = cpu["projected_s"] / (t2 - t1)
    return result


def cpu_beside(model, joined, starts, budget):
    """TurnerModel.partition_cpu (one sequence per core, probabilities included) on the first RNAs for
    about ``budget`` seconds: the projected time of the whole row."""
    from numba import get_num_threads

    codes = [joined[starts[k]:starts[k + 1]] for k in range(len(starts) - 1)]
    model.partition_cpu(codes[:2], True)                                    # compile
    threads = get_num_threads()
    start = time.perf_counter()
    model.partition_cpu(codes[:threads], True)
    per = (time.perf_counter() - start) / threads
    k = min(len(codes), max(threads, int(budget / per)))
    start = time.perf_counter()
    model.partition_cpu(codes[:k], True)
    seconds = time.perf_counter() - start
    return {"threads": threads, "computed": k, "seconds": seconds, "projected_s": seconds * len(codes) / k}


def cli_row(count, n, seed, folder, before=1000):
    """``bioaccel fold -p --backend gpu`` on ``count`` random RNAs of n nt, in this process (bench/ensemble_cli.py):
    the command line with --format json and --bpp, vienna without --bpp, the bulk API (iter_ensemble_chunks and
    bpp_text) end to end, and the record-by-record path of before on the first ``before``, projected."""
    from ensemble_cli import measure

    rows = measure(count, n, "gpu", min(before, count), folder, seed + 1)
    return {"count": count, "n": n, "rows": rows}


def host_main(args, count=256, n=200):
    """``--host`` (no GPU): the host's share per record of ``fold -p --format json --bpp`` once the partition
    functions are done (what the GPU leaves to the host), on ``count`` RNAs of n nt, best of 3: record by
    record (ensemble_of on the dense P, the JSON line, bpp_lines) and by chunk (the sparse lists, as the GPU gives them, through
    _ensemble_arrays.chunk_from, the JSON lines, bpp_text), the same bytes."""
    import io
    import random

    from bioaccel.cli.fold_ensemble import BPP_THRESHOLD, bpp_lines, json_columns
    from bioaccel.fold import bpp_text, check_ensemble
    from bioaccel.fold._ensemble import ensemble_of
    from bioaccel.fold._ensemble_arrays import _sparse, chunk_from
    from bioaccel.results.tables import TableWriter
    from bioaccel.runtime.contract import records

    rng = random.Random(args.seed)
    recs = list(records(["".join(rng.choice("ACGU") for _ in range(n)) for _ in range(count)]))
    call = check_ensemble()
    model = call.params
    codes = [r.codes for r in recs]
    folded = model.fold_cpu(codes, call.variant, True)
    parts = model.partition_cpu(codes, True)
    log_z = [z for z, _ in parts]

    def per_record():
        out, bpp = io.StringIO(), io.StringIO()
        table = None
        for rec, (units, pair_to), (z, P) in zip(recs, folded, parts):
            result = ensemble_of(rec, model, z, P, units, pair_to)
            table = table or TableWriter(out, json_columns(result), "json")
            table.write([result])
            bpp.write(bpp_lines(result))
        return out.getvalue(), bpp.getvalue()

    pairs = _sparse([P for _, P in parts])           # the GPU hands these over as they are: not timed

    def by_chunk():
        chunk = chunk_from(call, recs, folded, log_z, pairs)
        out = io.StringIO()
        TableWriter(out, json_columns(chunk.results[0]), "json").write(chunk.results)
        return out.getvalue(), bpp_text([r.id for r in chunk.results], *pairs, BPP_THRESHOLD)

    assert per_record() == by_chunk(), "the chunk path wrote other bytes"
    load_before = os.getloadavg()
    times = {"per_record": [], "by_chunk": []}
    for _ in range(3):
        for name, f in (("per_record", per_record), ("by_chunk", by_chunk)):
            start = time.perf_counter()
            f()
            times[name].append((time.perf_counter() - start) / count)
    load_after = os.getloadavg()
    best = {k: min(v) for k, v in times.items()}
    print(f"host share per {n}-nt record of fold -p --format json --bpp, partition functions done ({count} records, "
          f"best of 3, {os.cpu_count()} cores; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after): "
          f"record by record {1e3 * best['per_record']:.3f} ms, by chunk {1e3 * best['by_chunk']:.3f} ms "
          f"({best['per_record'] / best['by_chunk']:.1f}x); same bytes")
    save_json({"benchmark": "turner_pf_host", "records": count, "n": n, "seconds_per_record": best,
               "load_average_before": load_before, "load_average_after": load_after, "cores": os.cpu_count()},
              args.json.replace("turner_pf_gpu_h100", "turner_pf_host_vm"))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--rows", default="", help="COUNTxN,... (default 100000x200,2000x1000)")
    parser.add_argument("--cutoff", type=float, default=1e-5, help="probabilities listed: at least this")
    parser.add_argument("--cpu-seconds", type=float, default=15.0, help="CPU beside each row for about this long")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--cli", type=int, default=0, help="also time the command line (fold -p --backend gpu, "
                                                           "json --bpp and vienna), the bulk API and the per-record "
                                                           "path on this many 200-nt RNAs")
    parser.add_argument("--block-caps", default="", help="first row: also time the partition step with blocks "
                                                         "of at most these many threads, e.g. 64,128")
    parser.add_argument("--json", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs",
                                                       "results", "turner_pf_gpu_h100.json"))
    parser.add_argument("--host", action="store_true", help="no GPU: the host's share per record of fold -p "
                                                             "--bpp, record by record and by chunk")
    args = parser.parse_args(argv)
    if args.host:
        return host_main(args)
    args.block_caps = [int(c) for c in args.block_caps.split(",") if c]
    from bioaccel.runtime.gpu import device_name

    chosen = [tuple(int(v) for v in r.split("x")) for r in args.rows.split(",") if r] or ROWS
    load_before = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory() as folder:
        for at, (count, n) in enumerate(chosen):
            rows.append(row(count, n, args, folder, args.block_caps if at == 0 else ()))
        cli = cli_row(args.cli, 200, args.seed, folder) if args.cli else None
    load_after = os.getloadavg()
    name = device_name()
    print(f"Turner 2004 partition function, GPU batch (FP64, one block per sequence) on {name}; probabilities "
          f">= {args.cutoff:g} listed; load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'count':>8} x {'n':>5}  {'mfe s':>6}  {'pf s':>6}  {'summ s':>6}  {'bpp s':>6}  {'total s':>7}  "
          f"{'pairs':>11}  {'of FP64':>7}  {'CPU s (proj.)':>13}  {'CPU/GPU':>7}  equal")
    for r in rows:
        for cap, seconds in r["partition_s_by_block_cap"].items():
            print(f"{r['count']:>8,} x {r['n']:>5}: partition step with blocks of at most {cap} threads: {seconds:.2f} s")
    for r in rows:
        cpu = r["cpu"]
        cpu_text = f"{cpu['projected_s']:>13.1f}" if cpu else f"{'-':>13}"
        ratio = f"{r['cpu_over_gpu_partition']:>7.1f}" if cpu else f"{'-':>7}"
        print(f"{r['count']:>8,} x {r['n']:>5}  {r['mfe_s']:>6.2f}  {r['partition_s']:>6.2f}  {r['summary_s']:>6.2f}  "
              f"{r['bpp_npy_s']:>6.2f}  {r['end_to_end_s']:>7.2f}  {r['pairs_listed']:>11,}  "
              f"{r['fraction_of_fp64_ceiling']:>7.2%}  {cpu_text}  {ratio}  {r['equal_within_bound']}")
    if cli:
        print(f"bioaccel fold -p --backend gpu, {cli['count']:,} x {cli['n']} nt (bench/ensemble_cli.py):")
        for r in cli["rows"]:
            total = r.get("projected_s", r["seconds"])
            lines = f", {r['bpp_lines']:,} --bpp lines" if r["bpp_lines"] else ""
            print(f"  {r['row']:<24} {r['records']:>9,} records {r['seconds']:>8.2f} s  {r['ms_per_rna']:.3f} ms per RNA"
                  f"  ({total:.1f} s for all{lines})")
    save_json({"benchmark": "turner_pf_gpu", "cli": cli, "device": name, "seed": args.seed, "cutoff": args.cutoff,
               "ceiling": "FP64 FMA 17e12/s (H100 SXM, /work/shared/design/limits.md)", "cores": os.cpu_count(),
               "load_average_before": load_before, "load_average_after": load_after, "rows": rows}, args.json)
    if not all(r["equal_within_bound"] for r in rows):
        raise SystemExit("the GPU and the CPU disagree beyond the bound: see the table")


if __name__ == "__main__":
    main()
