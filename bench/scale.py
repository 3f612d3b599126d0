"""The batch layer's scaling: the same batch on 1 and 2 local Dask workers (CPU), or on 1 and 2 GPUs.

Each family's batch is built as its command line builds it (``bioaccel fold|interact|scan ... --workers``:
the same items, costs and worker function, bioaccel.cli.batch_run) and run through bioaccel.distribution.batch.run_items
on a local cluster started for it; only the batch is timed, after a warm-up of a few items on every
worker (Numba's cached kernels loaded, the GPU's compiled), so that the time is the batch's, not the
cluster's start. Every run's entries (what the output is written from) must equal the first run's.

Batches (random inputs, fixed seeds; written to a temporary folder):

* fold: Nussinov (``--model nussinov``) on RNAs of 200 to 1,500 nt (CPU) or 8,000 to 24,000 nt (GPU),
  one item each, costing n^3;
* turner: the Turner 2004 model (fold's default) on RNAs of 100 to 400 nt (CPU, 240) or 200 to 1,000 nt
  (GPU, 40,000: the batch kernel's many-per-launch shape), one item each;
* interact: the svRNA screen, the three SARS-CoV svRNAs of examples/sars-cov-svrna.fa against random
  transcripts of 300 to 3,000 nt (16 on the CPU, 600 on GPUs), target window 128, one item per pair (a
  GPU task's pairs share their launches);
* partition: the svRNA screen with ``--partition`` (BPPart, window 128): the three svRNAs against the
  interact batch's transcripts on GPUs, against 4 random transcripts of 200 to 600 nt on the CPU
  (``--families partition``; a GPU task's pairs of one query share their launches);
* scan: random motifs of 6 to 16 columns (MEME file) over a random genome, both strands, P = 1e-4, one
  item per group of 32 motifs scanning every sequence (bioaccel.scan.scan_work).

CPU rows give each worker one thread (``--threads``), so 1 and 2 workers use 1 and 2 cores: the rows
measure the batch layer's scaling, not Numba's. GPU rows start one worker per GPU, each pinned to its
device by CUDA_VISIBLE_DEVICES, with the machine's cores shared among them. The load average is printed
before and after (the development machine's 2 cores are shared).

    python3 bench/scale.py                       # CPU: fold, turner, interact, scan on 1 and 2 workers (~4 min on 2 cores)
    python3 bench/scale.py --quick               # smaller batches (under a minute)
    python3 bench/scale.py --gpus 0,1            # GPU: fold, turner, interact, partition, scan on GPU 0, then 0 and 1
    python3 bench/scale.py --gpus 0,1 --families partition    # the svRNA screen with --partition alone
    python3 bench/scale.py --families fold       # one family

Prints a table and writes JSON to bench/results/scale-cpu.json or bench/results/scale-gpu.json.
"""
import argparse
import hashlib
import json
import os
import platform
import random
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
EXAMPLES = os.path.join(HERE, "..", "examples")


def random_rnas(path, count, low, high, rng):
    with open(path, "w") as handle:
        for k in range(count):
            n = rng.randint(low, high)
            handle.write(f">r{k}\n" + "".join(rng.choice("ACGU") for _ in range(n)) + "\n")
    return path


def random_motifs(path, count, rng):
    """A MEME file of ``count`` motifs of 6 to 16 columns, each column a dominant letter (counts of 20)."""
    lines = ["MEME version 4", "", "ALPHABET= ACGT", "", "strands: + -", "",
             "Background letter frequencies", "A 0.25 C 0.25 G 0.25 T 0.25", ""]
    for k in range(count):
        width = rng.randint(6, 16)
        lines += [f"MOTIF R{k:04d} random{k}", f"letter-probability matrix: alength= 4 w= {width} nsites= 20 E= 0"]
        for _ in range(width):
            counts = [rng.randint(0, 3) for _ in range(4)]
            counts[rng.randrange(4)] += 20 - sum(counts) if sum(counts) < 20 else 0
            total = sum(counts)
            lines.append(" ".join(f"{c / total:.4f}" for c in counts))
        lines.append("")
    with open(path, "w") as handle:
        handle.write("\n".join(lines))
    return path


def random_genome(path, records, length, rng):
    with open(path, "w") as handle:
        for k in range(records):
            handle.write(f">chr{k + 1}\n")
            text = "".join(rng.choice("ACGT") for _ in range(length))
            handle.write("\n".join(text[i:i + 80] for i in range(0, len(text), 80)) + "\n")
    return path


def inputs(folder, gpu, quick):
    """The command line of each family's batch, on files written to ``folder``."""
    rng = random.Random(2026)
    scale = 0.25 if quick else 1.0
    if gpu:
        rnas = random_rnas(os.path.join(folder, "long.fa"), int(160 * scale) or 8, 8000, 24000, rng)
    else:
        rnas = random_rnas(os.path.join(folder, "rnas.fa"), int(240 * scale), 200, 1500, rng)
    short = random_rnas(os.path.join(folder, "short.fa"), int((40_000 if gpu else 240) * scale) or 8,
                        200 if gpu else 100, 1000 if gpu else 400, rng)
    transcripts = random_rnas(os.path.join(folder, "transcripts.fa"), int((600 if gpu else 16) * scale) or 4, 300,
                              3000, rng)
    screen = transcripts if gpu else random_rnas(os.path.join(folder, "screen.fa"), int(4 * scale) or 2, 200, 600, rng)
    motifs = random_motifs(os.path.join(folder, "motifs.meme"), int((512 if gpu else 256) * scale), rng)
    genome = random_genome(os.path.join(folder, "genome.fa"), 4, int((8_000_000 if gpu else 250_000) * scale), rng)
    backend = ["--backend", "gpu"] if gpu else []
    return {
        "fold": ["fold", rnas, "--model", "nussinov", *backend],
        "turner": ["fold", short, "--model", "turner2004", *backend],
        "interact": ["interact", os.path.join(EXAMPLES, "sars-cov-svrna.fa"), transcripts, "--window-target", "128",
                     *backend],
        "partition": ["interact", "--partition", os.path.join(EXAMPLES, "sars-cov-svrna.fa"), screen, "--window-target",
                      "128", *backend],
        "scan": ["scan", motifs, genome, *backend],
    }


def build(argv, threads):
    """The Job the command line ``argv`` would run (bioaccel.cli.batch_run), and a description."""
    from bioaccel.cli.main import build_parser
    from bioaccel.inputs.fasta import read_fasta

    args = build_parser().parse_args([*argv, "-q"])
    args.threads = threads
    family = args.command
    if family in ("fold", "turner"):
        from bioaccel.cli.fold_batch import job
        from bioaccel.cli.fold import _params

        return job(args, list(read_fasta(args.fasta)), _params(args), threads)
    if family == "interact" and args.partition:
        from bioaccel.cli.interact_batch import partition_job
        from bioaccel.cli.interact_partition import partition_columns, partition_params
        from bioaccel.interact import partition_work

        params = partition_params(args)
        queries, targets = list(read_fasta(args.queries)), list(read_fasta(args.targets))
        work = partition_work(queries, targets, params=params, backend=args.backend, variant=args.variant,
                              threads=threads, sites=args.sites)
        return partition_job(args, work, queries, targets, params,
                             partition_columns(args.window_query, args.window_target, args.sites), [])
    if family == "interact":
        from bioaccel.cli.interact import call_options, interact_params
        from bioaccel.cli.interact_batch import job
        from bioaccel.interact import bpmax_work, interaction_columns

        params = interact_params(args)
        queries, targets = list(read_fasta(args.queries)), list(read_fasta(args.targets))
        work = bpmax_work(queries, targets, **call_options(args, params, threads))
        return job(args, work, queries, targets, params, interaction_columns(params))
    import functools

    from bioaccel.cli.motif_options import MotifSource, motif_params
    from bioaccel.cli.scan import entries
    from bioaccel.distribution.work import Work
    from bioaccel.scan import scan_work

    params = motif_params(args)
    work = scan_work(MotifSource(args, args.motifs, params), args.sequences, pvalue=args.pvalue,
                     threshold=args.threshold, params=params, backend=args.backend, variant=args.variant,
                     threads=threads, strands="+" if args.norc else "both", slice_length=args.slice_length,
                     chunk_size=args.chunk_size, max_stored_hits=None if args.text else args.max_stored_hits).work
    return Work(work.items, functools.partial(entries, work.function), work.gpu)     # what the journal holds


def timed(job, client):
    """Run the job's items on ``client``: (seconds, digest of the entries in input order, failed)."""
    from bioaccel.distribution.batch import run_items

    entries, failed = {}, 0
    start = time.perf_counter()
    for outcome in run_items(job.function, job.items, client=client, gpu=job.gpu):
        entries[outcome.key] = outcome.value
        failed += outcome.error is not None
    seconds = time.perf_counter() - start
    digest = hashlib.sha256()
    for key in sorted(entries):
        digest.update(json.dumps(entries[key], sort_keys=True).encode())
    return seconds, digest.hexdigest(), failed


def warm_up(job, client, workers):
    """A few items on every worker first: kernels loaded or compiled there, outside the timing."""
    from bioaccel.distribution.batch import run_task

    futures = []
    for address in list(client.scheduler_info()["workers"])[:workers]:
        sample = sorted(job.items, key=lambda i: i.cost)[:1]      # the cheapest: the same kernels, quickly
        futures.append(client.submit(run_task, job.function, [i.key for i in sample], [i.payload for i in sample],
                                     pure=False, workers=[address], allow_other_workers=False))
    client.gather(futures)


def gpu_names():
    if not shutil.which("nvidia-smi"):
        return []
    out = subprocess.run(["nvidia-smi", "--query-gpu=index,name", "--format=csv,noheader"], capture_output=True,
                         text=True)
    return [line.strip() for line in out.stdout.splitlines() if line.strip()]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--gpus", default=None, metavar="0,1",
                        help="GPU rows on these devices: the first one alone, then all of them")
    parser.add_argument("--workers", default="1,2", help="CPU rows: numbers of workers (default 1,2)")
    parser.add_argument("--threads", type=int, default=1, help="CPU threads per CPU worker (default 1)")
    parser.add_argument("--families", default=None, help="fold,turner,interact,partition,scan (default: all; partition on GPUs only)")
    parser.add_argument("--quick", action="store_true", help="smaller batches")
    parser.add_argument("--output", default=None, help="JSON file (default bench/results/scale-cpu|gpu.json)")
    args = parser.parse_args(argv)

    import dask.distributed as dd

    from bioaccel.distribution.cluster import local_cluster, parse_gpus

    gpu = args.gpus is not None
    devices = parse_gpus(args.gpus) if gpu else []
    if gpu and devices == "all":
        from bioaccel.distribution.cluster import gpu_count

        devices = list(range(gpu_count()))
    configs = [devices[:k] for k in range(1, len(devices) + 1)] if gpu else \
        [int(n) for n in args.workers.split(",")]
    default = ["fold", "turner", "interact", "scan"] + (["partition"] if gpu else [])
    families = args.families.split(",") if args.families else default
    threads = max(1, (os.cpu_count() or 1) // max(1, len(devices))) if gpu else args.threads
    load_before = os.getloadavg()
    print(f"load average before: {' '.join(f'{x:.2f}' for x in load_before)} ({os.cpu_count()} cores)"
          + (f"; GPUs: {', '.join(gpu_names())}" if gpu else ""), flush=True)
    rows = []
    folder = tempfile.mkdtemp(prefix="bioaccel-scale-")
    try:
        commands = inputs(folder, gpu, args.quick)
        for family in families:
            job = build(commands[family], threads)
            first = None
            for config in configs:
                count = len(config) if gpu else config
                cluster = local_cluster(gpus=config) if gpu else local_cluster(workers=config)
                with cluster, dd.Client(cluster) as client:
                    client.wait_for_workers(count)
                    warm_up(job, client, count)
                    seconds, digest, failed = timed(job, client)
                first = first or (seconds, digest)
                row = {"family": family, "device": "gpu" if gpu else "cpu",
                       "workers": count, "gpus": list(config) if gpu else [], "threads_per_worker": threads,
                       "items": len(job.items), "failed": failed, "seconds": round(seconds, 3),
                       "items_per_second": round(len(job.items) / seconds, 3),
                       "speedup": round(first[0] / seconds, 3), "same_entries": digest == first[1],
                       "command": " ".join(commands[family][:1] + [os.path.basename(a) if os.sep in a else a
                                                                   for a in commands[family][1:]])}
                rows.append(row)
                print(f"{family:9s} {row['device']} x{count}: {row['items']:5d} items in {seconds:8.2f} s, "
                      f"{row['items_per_second']:8.2f} items/s, speedup {row['speedup']:.2f}"
                      + ("" if row["same_entries"] else "  ENTRIES DIFFER"), flush=True)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    load_after = os.getloadavg()
    print()
    unit = "GPUs" if gpu else "workers"
    print(f"| family | {unit} | items | seconds | items/s | speedup | same output |")
    print("|---|---|---|---|---|---|---|")
    for row in rows:
        print(f"| {row['family']} | {row['workers']} | {row['items']} | {row['seconds']:.2f} | "
              f"{row['items_per_second']:.2f} | {row['speedup']:.2f} | {'yes' if row['same_entries'] else 'NO'} |")
    print(f"load average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    output = args.output or os.path.join(HERE, "results", f"scale-{'gpu' if gpu else 'cpu'}.json")
    os.makedirs(os.path.dirname(os.path.abspath(output)), exist_ok=True)
    with open(output, "w") as handle:
        json.dump({"machine": platform.platform(), "processor": platform.processor() or platform.machine(),
                   "cores": os.cpu_count(), "gpus": gpu_names() if gpu else [], "python": sys.version.split()[0],
                   "quick": args.quick, "load_average": {"before": load_before, "after": load_after}, "rows": rows},
                  handle, indent=1)
    print(f"wrote {output}")
    return 0 if all(row["same_entries"] and not row["failed"] for row in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
