"""BPPart's fill on the CPU, two source trees in the same run: ``bppart(query, target)`` in process
(the fill alone: Numba's code already loaded, best of --repeats), at 23 x 50, 100 and 200 nt by
default, the two trees' calls alternating so that both see the same load on this shared machine.
Each tree runs in a worker process of its own (one package name, two trees); the load average is
printed before and after.

The old tree is any earlier ``src`` directory, e.g. main's:

    mkdir -p /tmp/old && git archive main src | tar -x -C /tmp/old
    python bench/bppart_fill_ab.py --old-src /tmp/old/src --threads 2 --json docs/results/bppart_fill_ab.json
"""
import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import save_json  # noqa: E402
from bppart import QUERY, target_of  # noqa: E402

WORKER = """
import sys, time
sys.path.insert(0, {src!r})
if {reserve!r}:     # as a warm server's spare: large arrays on the heap's pages, touched once (no page faults)
    import importlib.util   # this tree's serve_warm as a module of its own name: either tree's bioaccel stays its own
    spec = importlib.util.spec_from_file_location("serve_warm_of_this_tree", {reserver!r})
    warm = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(warm)
    warm.reserve_memory()
from bioaccel.interact import bppart
for line in sys.stdin:
    target = line.strip()
    start = time.perf_counter()
    r = bppart({query!r}, target, threads={threads})[0]
    print(time.perf_counter() - start, repr(r.log_z), r.variant, flush=True)
"""


class Worker:
    """A Python process that fills the pairs it is sent with one tree's bioaccel."""

    def __init__(self, src: str, threads: int, reserve: bool = False):
        reserver = str(Path(__file__).resolve().parents[1] / "src" / "bioaccel" / "cli" / "serve_warm.py")
        code = WORKER.format(src=src, query=QUERY, threads=threads, reserve=reserve, reserver=reserver)
        self.process = subprocess.Popen([sys.executable, "-c", code], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                        text=True)

    def fill(self, target: str) -> "tuple[float, float, str]":
        self.process.stdin.write(target + "\n")
        self.process.stdin.flush()
        seconds, log_z, variant = self.process.stdout.readline().split()
        return float(seconds), float(log_z), variant

    def close(self):
        self.process.stdin.close()
        self.process.wait()


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--old-src", required=True, help="the earlier tree's src directory")
    parser.add_argument("--new-src", default=str(Path(__file__).resolve().parents[1] / "src"))
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 100, 200])
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeats", type=int, default=5, help="calls per tree and size (best kept), alternating")
    parser.add_argument("--reserve", action="store_true",
                        help="each worker keeps freed memory and touches 256 MB first, as a warm server's spare "
                             "does (bioaccel.cli.serve_warm.reserve_memory): the fill as a served run sees it")
    parser.add_argument("--json", default="docs/results/bppart_fill_ab.json")
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"{os.cpu_count()} cores; threads {args.threads}")
    old, new = Worker(args.old_src, args.threads, args.reserve), Worker(args.new_src, args.threads, args.reserve)
    rows = []
    try:
        for n in args.sizes:
            target = target_of(n)
            old.fill(target)          # Numba's code loaded (or compiled) and the pages of this size touched
            new.fill(target)
            times = {"old": [], "new": []}
            for _ in range(args.repeats):
                for name, worker in (("old", old), ("new", new)):
                    seconds, log_z, variant = worker.fill(target)
                    times[name].append(seconds)
                    if name == "old":
                        old_log_z, old_variant = log_z, variant
                    else:
                        new_log_z, new_variant = log_z, variant
            rows.append({"query": len(QUERY), "target": n, "old_s": min(times["old"]), "new_s": min(times["new"]),
                         "ratio": min(times["old"]) / min(times["new"]), "old_times": times["old"],
                         "new_times": times["new"], "old_variant": old_variant, "new_variant": new_variant,
                         "log_z_old": old_log_z, "log_z_new": new_log_z})
    finally:
        old.close()
        new.close()
    load_after = os.getloadavg()
    print("| pair | old fill (s) | new fill (s) | old / new | variants | log Z old | log Z new |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['query']} x {r['target']} | {r['old_s']:.4f} | {r['new_s']:.4f} | {r['ratio']:.2f}x | "
              f"{r['old_variant']} / {r['new_variant']} | {r['log_z_old']:.12f} | {r['log_z_new']:.12f} |")
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    save_json({"benchmark": "bppart_fill_ab", "load_before": load_before, "load_after": load_after,
               "threads": args.threads, "repeats": args.repeats, "reserve": args.reserve, "old_src": args.old_src, "new_src": args.new_src,
               "rows": rows}, args.json)
    print(json.dumps({"saved": args.json}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
