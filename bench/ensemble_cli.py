"""``bioaccel fold --partition`` for many records: the command line against the in-process bulk API, and the
record-by-record path it replaced, on the CPU or the GPU backend.

Rows, on ``count`` random RNAs of ``n`` nt (uniform ACGU, seeded) in a FASTA file, after a warm-up on a
few records (Numba and kernel compilation left out), in this process:

- ``cli json --bpp``: ``bioaccel fold FILE -p --backend B --format json -o F --bpp G -q`` (the chunk path:
  every RNAfold -p field, the --bpp text of every pair >= 1e-5);
- ``cli vienna``: the same, vienna layout, no --bpp;
- ``api chunks + bpp_text``: :func:`bioaccel.fold.iter_ensemble_chunks` over the file's records and the
  --bpp text of each chunk (:func:`bioaccel.fold.bpp_text`) built in memory, nothing written;
- ``per record (before)``: what the command line did before the chunk path, on the first ``before``
  records (iter_ensemble, vienna / bpp_lines per record, JSON Lines), projected to ``count``.

The load average before and after is printed; a table and JSON (docs/results/ensemble_cli_<backend>.json).

    PYTHONPATH=src python3 bench/ensemble_cli.py --count 10000 --n 120 --backend cpu --before 1000
"""
import argparse
import io
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import save_json  # noqa: E402


def write_fasta(path, count, n, seed):
    rng = np.random.default_rng(seed)
    letters = np.frombuffer(b"ACGU", np.uint8)[rng.integers(0, 4, (count, n))]
    with open(path, "w") as handle:
        handle.writelines(f">c{k}\n{letters[k].tobytes().decode()}\n" for k in range(count))


def cli_seconds(argv):
    from bioaccel.cli.main import main as cli

    err = io.StringIO()
    start = time.perf_counter()
    code = cli(argv, io.StringIO(), err)
    if code:
        raise SystemExit(f"exit {code}: {err.getvalue()}")
    return time.perf_counter() - start


def api_seconds(fasta, backend):
    from bioaccel.fold import bpp_text, iter_ensemble_chunks
    from bioaccel.inputs.fasta import read_fasta

    start = time.perf_counter()
    lines = 0
    for chunk in iter_ensemble_chunks(read_fasta(fasta), backend=backend):
        text = bpp_text([r.id for r in chunk.results], chunk.offsets, chunk.i, chunk.j, chunk.p, 1e-5)
        lines += text.count("\n")
    return time.perf_counter() - start, lines


def per_record_seconds(fasta, backend, out_path, bpp_path):
    """The loop of the command line before the chunk path (its formatters, per record)."""
    from bioaccel.cli.fold_batch import written
    from bioaccel.cli.fold_ensemble import bpp_lines, json_columns
    from bioaccel.fold import iter_ensemble
    from bioaccel.inputs.fasta import read_fasta
    from bioaccel.results.tables import TableWriter

    start = time.perf_counter()
    with open(out_path, "w") as out, open(bpp_path, "w") as bpp:
        table = None
        for result in iter_ensemble(read_fasta(fasta), backend=backend):
            (result,) = written([result], False)
            table = table or TableWriter(out, json_columns(result), "json")
            table.write([result])
            bpp.write(bpp_lines(result))
    return time.perf_counter() - start


def measure(count, n, backend, before, folder, seed=1):
    """The rows (dicts) of one benchmark run."""
    fasta, small, warm = (os.path.join(folder, name) for name in ("in.fa", "before.fa", "warm.fa"))
    write_fasta(fasta, count, n, seed)
    write_fasta(small, before, n, seed)
    write_fasta(warm, 8, n, seed + 7)
    out, bpp = os.path.join(folder, "out"), os.path.join(folder, "bpp")
    base = ["fold", "-p", "--backend", backend, "-q"]
    cli_seconds(base[:1] + [warm] + base[1:] + ["--format", "json", "-o", out, "--bpp", bpp])
    per_record_seconds(warm, backend, out, bpp)
    rows = []
    seconds = cli_seconds(base[:1] + [fasta] + base[1:] + ["--format", "json", "-o", out, "--bpp", bpp])
    with open(bpp) as handle:
        lines = sum(1 for _ in handle) - 1
    rows.append({"row": "cli json --bpp", "records": count, "seconds": seconds, "bpp_lines": lines})
    seconds = cli_seconds(base[:1] + [fasta] + base[1:] + ["--format", "vienna", "-o", out])
    rows.append({"row": "cli vienna", "records": count, "seconds": seconds, "bpp_lines": 0})
    seconds, lines = api_seconds(fasta, backend)
    rows.append({"row": "api chunks + bpp_text", "records": count, "seconds": seconds, "bpp_lines": lines})
    if before:
        seconds = per_record_seconds(small, backend, out, bpp)
        rows.append({"row": "per record (before)", "records": before, "seconds": seconds,
                     "projected_s": seconds * count / before, "bpp_lines": None})
    for r in rows:
        r["ms_per_rna"] = 1000 * r["seconds"] / r["records"]
    return rows


def report(rows, count, n, backend, device, load_before, load_after, json_path):
    print(f"bioaccel fold --partition, {count:,} x {n} nt, backend {backend} ({device}, {os.cpu_count()} cores); "
          f"load average {load_before[0]:.2f} before, {load_after[0]:.2f} after")
    print(f"{'row':<24} {'records':>9} {'seconds':>9} {'ms/RNA':>8} {'for all (s)':>11} {'bpp lines':>11}")
    for r in rows:
        total = r.get("projected_s", r["seconds"])
        lines = f"{r['bpp_lines']:>11,}" if r["bpp_lines"] is not None else f"{'-':>11}"
        print(f"{r['row']:<24} {r['records']:>9,} {r['seconds']:>9.2f} {r['ms_per_rna']:>8.3f} {total:>11.1f} {lines}")
    save_json({"benchmark": "ensemble_cli", "count": count, "n": n, "backend": backend, "device": device,
               "cores": os.cpu_count(), "load_average_before": load_before, "load_average_after": load_after,
               "rows": rows}, json_path)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--count", type=int, default=10_000)
    parser.add_argument("--n", type=int, default=120)
    parser.add_argument("--backend", default="cpu", choices=("cpu", "gpu"))
    parser.add_argument("--before", type=int, default=500, help="records of the per-record row (0: none)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    import tempfile

    json_path = args.json or os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "docs", "results",
                                          f"ensemble_cli_{args.backend}.json")
    device = "CPU"
    if args.backend == "gpu":
        from bioaccel.runtime.gpu import device_name

        device = device_name()
    load_before = os.getloadavg()
    with tempfile.TemporaryDirectory() as folder:
        rows = measure(args.count, args.n, args.backend, min(args.before, args.count), folder, args.seed)
    report(rows, args.count, args.n, args.backend, device, load_before, os.getloadavg(), json_path)
    return rows


if __name__ == "__main__":
    main()
