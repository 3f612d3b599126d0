"""The P-value searches of `bioaccel scan` under a few settings, on the GPU machine: the threads pricing
a batch (and the suffix table's columns: 10, a table of 4**10 words, about 8 MB a search).

Why: the first batch's searches took 4.4 s on the H100 machine's 16 cores where the 2-core
development machine (260 MB of L3) did the same work in 16 core-seconds; sixteen 8 MB tables read at
random may not fit the GPU machine's cache. Each row is one whole `bioaccel scan` run in this process
(warm: Numba compiled, CuPy's kernels loaded) over the same 100 Mb, all JASPAR 2024 CORE matrices, both
strands, P = 1e-4, stored FIMO output, and its output must be the same bytes as the first row's.

    python3 bench/scan_price_settings.py --motifs .devdata/core2024.jaspar --sequence .devdata/chr22.fa
"""
import argparse
import hashlib
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _results import save_json  # noqa: E402

SETTINGS = [   # (suffix columns for long matrices, pricing threads: 0 = every core)
    (10, 0), (10, 12), (10, 8), (10, 4), (10, 0),
]   # fewer suffix columns send more long matrices over the search's work budget (bounds, not exact
    # P-values: another output); measured on the development machine, not worth a GPU machine's time


def big_fasta(sequence, megabases, path):
    text = "".join(line.strip() for line in open(sequence) if not line.startswith(">"))
    repeat = max(1, round(megabases * 1e6 / len(text)))
    with open(path, "w") as handle:
        handle.write(f">slice_x{repeat}\n")
        for _ in range(repeat):
            for i in range(0, len(text), 60):
                handle.write(text[i:i + 60] + "\n")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--motifs", required=True)
    parser.add_argument("--sequence", required=True)
    parser.add_argument("--megabases", type=float, default=100)
    parser.add_argument("--workdir", default="/tmp")
    parser.add_argument("--backend", default="gpu")
    parser.add_argument("--json", default=os.path.join(HERE, "results", "scan_price_settings.json"))
    args = parser.parse_args(argv)
    from bioaccel.cli.main import main as bioaccel
    from bioaccel.scan import _price, _pvalues

    big = os.path.join(args.workdir, "price-big.fa")
    big_fasta(args.sequence, args.megabases, big)
    columns, resolve = _pvalues.suffix_columns, _price.resolve_threads
    rows, first = [], None
    print(subprocess.run("lscpu | grep -i 'model name\\|L3\\|^CPU(s)'", shell=True, capture_output=True,
                         text=True).stdout.strip())
    bioaccel(["scan", args.motifs, big, "--backend", args.backend, "-q", "-o", os.path.join(args.workdir, "warm.tsv")])
    for k, (suffix, threads) in enumerate(SETTINGS):
        _pvalues.suffix_columns = lambda length, contexts, s=suffix: s if length >= 16 and contexts <= 4 else 8
        _price.resolve_threads = (lambda t, n=threads: n) if threads else resolve
        out = os.path.join(args.workdir, f"price-{k}.tsv")
        t0 = time.perf_counter()
        code = bioaccel(["scan", args.motifs, big, "--backend", args.backend, "-q", "-o", out])
        seconds = time.perf_counter() - t0
        digest = hashlib.md5(open(out, "rb").read()).hexdigest()
        first = first or digest
        rows.append(dict(suffix_columns=suffix, threads=threads or os.cpu_count(), seconds=seconds, exit=code,
                         same_output=digest == first))
        print(f"suffix columns {suffix:2}  pricing threads {threads or os.cpu_count():2}  {seconds:6.2f} s  "
              f"exit {code}  same output {digest == first}", flush=True)
        os.remove(out)
    _pvalues.suffix_columns, _price.resolve_threads = columns, resolve
    save_json({"load": os.getloadavg(), "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
