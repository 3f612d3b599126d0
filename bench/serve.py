"""The warm server against MOODS-python (issue 25: a second scan of 200 vertebrate matrices over 1 Mb
through the command line, P-values and all, at least as fast as MOODS-python's scan of the same
matrices with the same thresholds).

In one run, interleaved, --repeats times (after one untimed round):

- ``bioaccel scan`` as a command in its own process (a second run: thresholds and P-values cached;
  ``BIOACCEL_NO_SERVER=1``),
- the same command through the warm server (``bioaccel serve`` started once, its start timed apart),
- MOODS ``scan_dna`` in this process (the scan alone) and MOODS-python as a command (Python's start,
  reading, scanning, writing the hits): bench/scan.py's helpers, the same log-odds matrices and score
  thresholds.

Every command writes its hits to a file; the server's file is compared with the in-process one byte for
byte. Prints a table with the load average and writes docs/results/serve_cli.json.

    PYTHONPATH=src python3 bench/serve.py --sequence 22_20-21M.fa --repeats 4
"""
import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time

from scan import CHR22, MOODS_SCRIPT, P, prepare, read_motifs, run_moods, score_thresholds, sequence_of

HERE = os.path.dirname(os.path.abspath(__file__))
ROWS = ("bioaccel scan (command in its own process, second run)",
        "bioaccel scan (command through the warm server)",
        "MOODS scan_dna (in process, scan only)",
        "MOODS-python (command: start, read, scan, write)")


def moods_job(pssms, thresholds, path):
    """The MOODS script's input: both strands' matrices, thresholds a hair under bioaccel's."""
    import MOODS.tools

    mats, ths = [], []
    for k, m in enumerate(pssms):
        mat = [list(map(float, m.scores[:, b])) for b in range(4)]
        mats += [mat, MOODS.tools.reverse_complement(mat)]
        ths += [thresholds[k] - 1e-9] * 2
    with open(path, "w") as handle:
        json.dump({"matrices": mats, "thresholds": ths, "ids": [m.motif_id for m in pssms]}, handle)


def timed_run(argv, env):
    start = time.perf_counter()
    subprocess.run(argv, env=env, check=True)
    return time.perf_counter() - start


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sequence", default=CHR22)
    parser.add_argument("--motifs", default="jaspar:2024/CORE/vertebrates")
    parser.add_argument("--matrices", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--json", default=os.path.join(os.path.dirname(HERE), "docs", "results", "serve_cli.json"))
    args = parser.parse_args()
    from bioaccel.motif import read_raw_spec, write_motifs

    folder = tempfile.mkdtemp(prefix="sv-", dir="/tmp")       # short: a Unix socket's path is <= 107 bytes
    try:
        motif_file = os.path.join(folder, "motifs.jaspar")
        with open(motif_file, "w") as handle:
            write_motifs(read_raw_spec(args.motifs)[:args.matrices], handle)
        pssms = read_motifs(motif_file)
        thresholds = score_thresholds(prepare(pssms, pvalue=P))
        text = sequence_of(args.sequence)
        env = dict(os.environ, BIOACCEL_CACHE_DIR=os.path.join(folder, "cache"))
        alone = dict(env, BIOACCEL_NO_SERVER="1")
        scan = [sys.executable, "-m", "bioaccel", "scan", motif_file, args.sequence, "-q", "-o"]
        outs = {"alone": os.path.join(folder, "alone.tsv"), "served": os.path.join(folder, "served.tsv")}
        subprocess.run(scan + [outs["alone"]], env=alone, check=True)      # fills the caches
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "bioaccel", "serve"], env=env, check=True)
        server_start = time.perf_counter() - start
        job, moods_out = os.path.join(folder, "moods.json"), os.path.join(folder, "moods.tsv")
        moods_job(pssms, thresholds, job)
        moods_command = [sys.executable, "-c", MOODS_SCRIPT, job, args.sequence, moods_out]
        in_process = run_moods(pssms, thresholds, text)
        times, loads = {row: [] for row in ROWS}, []
        for round_ in range(args.repeats + 1):
            loads.append(os.getloadavg()[0])
            spent = [timed_run(scan + [outs["alone"]], alone), timed_run(scan + [outs["served"]], env)]
            start = time.perf_counter()
            moods_hits = in_process()
            spent += [time.perf_counter() - start, timed_run(moods_command, None)]
            if round_:                      # the first round untimed (the server's first spare, disk caches)
                for row, seconds in zip(ROWS, spent):
                    times[row].append(seconds)
        same = open(outs["alone"], "rb").read() == open(outs["served"], "rb").read()
        hits = sum(1 for _ in open(outs["alone"])) - 1
    finally:
        subprocess.run([sys.executable, "-m", "bioaccel", "serve", "--stop"], env=env, capture_output=True)
        shutil.rmtree(folder, ignore_errors=True)
    base = min(times[ROWS[1]])
    print(f"\n## {len(pssms)} matrices ({args.motifs}) over {len(text):,} letters, both strands, P = {P}; "
          f"load average {min(loads):.2f}-{max(loads):.2f} ({os.cpu_count()} cores)")
    print(f"hits: bioaccel {hits:,} (exact P-values and q-values), MOODS {moods_hits:,}; the server's output "
          f"{'equals' if same else 'DIFFERS FROM'} the command's own, byte for byte; the server started in "
          f"{server_start:.2f} s (once)")
    print(f"{'how':56} {'best s':>7} {'median s':>9} {'vs served':>10}")
    table = []
    for row in ROWS:
        ordered = sorted(times[row])
        print(f"{row:56} {ordered[0]:7.3f} {ordered[len(ordered) // 2]:9.3f} {ordered[0] / base:9.2f}x")
        table.append({"how": row, "best_s": ordered[0], "median_s": ordered[len(ordered) // 2], "times": times[row]})
    os.makedirs(os.path.dirname(args.json), exist_ok=True)
    with open(args.json, "w") as handle:
        json.dump({"machine": platform.node(), "cores": os.cpu_count(), "loads": loads, "motifs": args.motifs,
                   "matrices": len(pssms), "sequence": os.path.basename(args.sequence), "letters": len(text),
                   "hits": hits, "moods_hits": moods_hits, "served_equals_own_process": same,
                   "server_start_s": server_start, "rows": table}, handle, indent=1)
        handle.write("\n")
    print(f"wrote {args.json}")


if __name__ == "__main__":
    main()
