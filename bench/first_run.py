"""A scan's first and second runs through the command line (issue 25's speed goals, 2-core machine).

1. First run: ``bioaccel scan jaspar:MA0066.1 examples/sars-cov-2.fasta`` with an empty Numba cache
   (``NUMBA_CACHE_DIR`` a new folder) and an empty threshold/P-value cache (``BIOACCEL_CACHE_DIR``):
   everything it runs is compiled. Goal: within 15 s.
2. Second run: ``bioaccel scan jaspar:2024/CORE examples/sars-cov-2.fasta`` (all 2,346 matrices),
   once untimed to fill both caches, then timed. Goal: within 2 s.

Each tree given (this one, and ``--baseline`` trees: a source tree with ``src/bioaccel``, e.g. an older
commit's ``git archive``) runs the same commands, alternating, in this one run; the wall time and the
CPU time (user + system, the command and its children) of each, and the load average before each, are
printed and written to docs/results/first_run.json. The machine is shared: compare trees within a run.
Every tree's sources are byte-compiled first (an installed package has its ``.pyc`` files).

    python3 bench/first_run.py --baseline /tmp/orig --repeats 2
"""
import argparse
import json
import os
import platform
import resource
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
GENOME = os.path.join(ROOT, "examples", "sars-cov-2.fasta")


def run(tree, argv, numba_dir, cache_dir):
    """(wall s, cpu s, output bytes) of ``bioaccel`` ``argv`` run from ``tree``."""
    env = dict(os.environ, PYTHONPATH=os.path.join(tree, "src"), NUMBA_CACHE_DIR=numba_dir,
               BIOACCEL_CACHE_DIR=cache_dir)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "bioaccel", *argv], env=env, capture_output=True)
    wall = time.perf_counter() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"{tree}: bioaccel {' '.join(argv)} failed: {proc.stderr.decode()[-500:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, proc.stdout


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--baseline", action="append", default=[], help="another source tree to run alike")
    ap.add_argument("--repeats", type=int, default=2)
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results", "first_run.json"))
    args = ap.parse_args(argv)
    trees = [ROOT] + args.baseline
    for tree in trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tree, "src")], check=True,
                       capture_output=True)
    work = tempfile.mkdtemp(prefix="first-run-")
    rows = []
    first = ["scan", "jaspar:MA0066.1", GENOME, "-q"]
    second = ["scan", "jaspar:2024/CORE", GENOME, "-q"]
    outputs = {}
    print(f"# {platform.node()}: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the start")
    for k in range(args.repeats):
        for tree in trees:
            numba_dir, cache_dir = tempfile.mkdtemp(dir=work), tempfile.mkdtemp(dir=work)
            load = os.getloadavg()[0]
            wall, cpu, out = run(tree, first, numba_dir, cache_dir)
            outputs.setdefault(("first", tree), out)
            rows.append({"run": "first MA0066.1 scan, empty caches", "tree": tree, "repeat": k, "wall_s": wall,
                         "cpu_s": cpu, "load": load})
            print(f"  first  {tree}: {wall:.2f} s (cpu {cpu:.2f} s, load {load:.2f})", flush=True)
            shutil.rmtree(numba_dir)
            shutil.rmtree(cache_dir)
    warm = {tree: (tempfile.mkdtemp(dir=work), tempfile.mkdtemp(dir=work)) for tree in trees}
    for tree in trees:
        run(tree, second, *warm[tree])                     # fills Numba's cache, thresholds, P-values
    for k in range(args.repeats + 1):
        for tree in trees:
            load = os.getloadavg()[0]
            wall, cpu, out = run(tree, second, *warm[tree])
            outputs.setdefault(("second", tree), out)
            rows.append({"run": "second scan, 2,346 matrices", "tree": tree, "repeat": k, "wall_s": wall,
                         "cpu_s": cpu, "load": load})
            print(f"  second {tree}: {wall:.2f} s (cpu {cpu:.2f} s, load {load:.2f})", flush=True)
    shutil.rmtree(work)
    same = {run_: len({outputs[(run_, t)] for t in trees}) == 1 for run_ in ("first", "second")}
    print(f"\n# load average {os.getloadavg()[0]:.2f} at the end; outputs identical across trees: {same}")
    print(f"{'run':36} {'tree':28} {'best wall s':>11} {'median wall s':>13} {'best cpu s':>10}")
    summary = []
    for run_, goal in (("first MA0066.1 scan, empty caches", 15.0), ("second scan, 2,346 matrices", 2.0)):
        for tree in trees:
            mine = [r for r in rows if r["run"] == run_ and r["tree"] == tree]
            walls = sorted(r["wall_s"] for r in mine)
            entry = {"run": run_, "tree": tree, "best_wall_s": walls[0], "median_wall_s": walls[len(walls) // 2],
                     "best_cpu_s": min(r["cpu_s"] for r in mine), "goal_s": goal}
            summary.append(entry)
            print(f"{run_:36} {tree[-28:]:28} {entry['best_wall_s']:11.2f} {entry['median_wall_s']:13.2f} "
                  f"{entry['best_cpu_s']:10.2f}   (goal {goal:g} s)")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as handle:
        json.dump({"benchmark": "first_run", "machine": platform.node(), "cores": os.cpu_count(),
                   "rows": rows, "summary": summary, "outputs_identical": same}, handle, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
