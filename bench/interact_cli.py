"""The svRNA screen through the command line against the batch layer's own rate on one GPU.

bench/scale.py times the screen's batch (the three SARS-CoV svRNAs of examples/sars-cov-svrna.fa against
600 random transcripts of 300 to 3,000 nt, target window 128, ``--backend gpu``) on a one-GPU Dask
worker, after a warm-up, the cluster's start left out. A user runs ``bioaccel interact`` instead: this
script times that whole process on the same files, twice (the first run may compile the kernels into
CuPy's cache; the second is what every later screen costs), to standard output and to a file (``-o``,
the batch layer with its journal), and checks that every output is the same text. Pairs per second of
each, and the ratio to the batch's rate. With ``--old SRC`` the command of another copy of the package
(the code before a change) runs beside each run, on the same files, its outputs in the same check.

    python3 bench/interact_cli.py                 # on a GPU machine (about 2 minutes on an H100)
    python3 bench/interact_cli.py --targets 60    # smaller
    python3 bench/interact_cli.py --old ../main/src --repeat 1    # and the code before, each run beside
    python3 bench/interact_cli.py --old ../main/src --paths stdout  # > stdout only (a shorter call)

Prints a table and writes JSON to docs/results/interact_cli_gpu.json.
"""
import argparse
import hashlib
import json
import os
import platform
import random
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scale  # noqa: E402  (bench/scale.py: the same inputs, the same Job)


def run_cli(argv, output=None, src=None) -> tuple:
    """(seconds, sha256 of what was written) of ``bioaccel ARGV -q`` as a whole process (``src``: the
    package's source folder to run, first on PYTHONPATH; None: this one's)."""
    command = [sys.executable, "-m", "bioaccel", *argv, "-q"] + (["-o", output] if output else [])
    env = dict(os.environ)
    if src is not None:
        env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    start = time.perf_counter()
    done = subprocess.run(command, capture_output=True, check=True, env=env)
    seconds = time.perf_counter() - start
    text = open(output, "rb").read() if output else done.stdout
    return seconds, hashlib.sha256(text).hexdigest()


def batch_rate(argv) -> tuple:
    """(seconds, pairs) of the screen's batch on a one-GPU Dask worker, as bench/scale.py times it."""
    import dask.distributed as dd

    from bioaccel.distribution.cluster import local_cluster

    job = scale.build(argv, max(1, os.cpu_count() or 1))
    with local_cluster(gpus=[0]) as cluster, dd.Client(cluster) as client:
        client.wait_for_workers(1)
        scale.warm_up(job, client, 1)
        seconds, _, failed = scale.timed(job, client)
    assert not failed
    return seconds, len(job.items)


def screen_inputs(targets: int, backend: str, prefix: str) -> tuple:
    """Print the load average and the GPUs, write ``targets`` random transcripts of 300-3,000 nt (the
    batch's own, bench/scale.py) into a new folder; (the folder, the screen's ``bioaccel`` arguments)."""
    load = os.getloadavg()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load)} ({os.cpu_count()} cores); GPUs: "
          f"{', '.join(scale.gpu_names())}", flush=True)
    folder = tempfile.mkdtemp(prefix=prefix)
    transcripts = scale.random_rnas(os.path.join(folder, "transcripts.fa"), targets, 300, 3000, random.Random(2026))
    return folder, ["interact", os.path.join(HERE, "..", "examples", "sars-cov-svrna.fa"), transcripts,
                    "--window-target", "128", "--backend", backend]


def _save(path, pairs, rows, load_before, same=None):
    """The JSON of the runs so far (``same``: whether every output was the same text, once known)."""
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path, "w") as handle:
        json.dump({"machine": platform.platform(), "cores": os.cpu_count(), "gpus": scale.gpu_names(),
                   "pairs": pairs, "same_output": same, "load_average": [load_before, os.getloadavg()],
                   "rows": rows}, handle, indent=1)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=600, help="random transcripts (default 600)")
    parser.add_argument("--output", default=os.path.join(HERE, "..", "docs", "results", "interact_cli_gpu.json"))
    parser.add_argument("--old", metavar="SRC", default=None,
                        help="also time the command of the package in SRC (its src folder: the code before a "
                             "change), in the same run, each of its runs beside the same run of this code")
    parser.add_argument("--repeat", type=int, default=2, help="runs of each command line (default 2)")
    parser.add_argument("--paths", choices=("both", "stdout", "file"), default="both",
                        help="the command lines timed: > stdout, -o FILE, or both (default)")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    folder, screen = screen_inputs(args.targets, "gpu", "bioaccel-screen-")
    pairs = 3 * args.targets
    rows = []
    seconds, items = batch_rate(screen)
    assert items == pairs
    rows.append({"run": "batch layer, 1 GPU worker, warm (bench/scale.py)", "seconds": seconds})
    _save(args.output, pairs, rows, load_before)
    digests = set()
    codes = [("", None)]
    if args.old:                            # its Numba functions compiled into its cache first, untimed
        small = scale.random_rnas(os.path.join(folder, "small.fa"), 3, 300, 400, random.Random(1))
        run_cli([*screen[:1], screen[1], small, *screen[3:]], src=args.old)
        codes = [(" (old code)", args.old), ("", None)]
    for output in {"both": (False, True), "stdout": (False,), "file": (True,)}[args.paths]:
        for k in range(1, args.repeat + 1):
            for label, src in codes:
                out = os.path.join(folder, f"screen{k}{label.strip(' ()').replace(' ', '_')}.tsv") if output else None
                seconds, digest = run_cli(screen, out, src)
                digests.add(digest)
                where = "-o FILE" if output else "> stdout"
                rows.append({"run": f"bioaccel interact {where}, run {k}{label}", "seconds": seconds})
                # each run said and kept as it ends: a call stopped by its time limit keeps what it measured
                print(f"{rows[-1]['run']}: {seconds:.2f} s, {rows[0]['seconds'] / seconds:.3f}x the batch layer's "
                      "pairs/s", flush=True)
                _save(args.output, pairs, rows, load_before)
    base = pairs / rows[0]["seconds"]
    print(f"\n{pairs:,} pairs (3 svRNAs x {args.targets:,} transcripts of 300-3,000 nt, window 128)\n")
    print("| run | seconds | pairs/s | vs batch layer |")
    print("|---|---|---|---|")
    for row in rows:
        row["pairs_per_second"] = round(pairs / row["seconds"], 2)
        row["ratio"] = round(row["pairs_per_second"] / base, 3)
        row["seconds"] = round(row["seconds"], 3)
        print(f"| {row['run']} | {row['seconds']:.2f} | {row['pairs_per_second']:.1f} | {row['ratio']:.2f}x |")
    same = len(digests) == 1
    print(f"\nevery command-line output the same text: {'yes' if same else 'NO'}")
    load_after = os.getloadavg()
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    _save(args.output, pairs, rows, load_before, same)
    print(f"wrote {args.output}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
