"""First and warm runs of the README's commands through the command line (issue 25's speed goals, 2-core
machine).

Cold runs (an empty Numba cache, ``NUMBA_CACHE_DIR`` a new folder, and an empty threshold/P-value cache,
``BIOACCEL_CACHE_DIR``, for every run: everything the command runs is compiled):

- ``fold``: ``bioaccel fold examples/rnas.fa``, goal 8 s;
- ``interact``: the README's first interaction, ``bioaccel interact examples/sars-cov-svrna.fa
  examples/sars-cov-2-3prime.fa --window-target 128``, goal 12 s;
- ``scan``: ``bioaccel scan jaspar:MA0066.1 examples/sars-cov-2.fasta``, goal 15 s.

Warm runs (each tree's caches filled by one untimed run first):

- ``warm-fold``: ``bioaccel fold examples/rnas.fa``, goal 0.7 s;
- ``warm-interact``: the README's first interaction again (a TSV table written), no goal;
- ``second-scan``: ``bioaccel scan jaspar:2024/CORE examples/sars-cov-2.fasta`` (all 2,346 matrices),
  goal 2 s.

Each tree given (this one, and ``--baseline`` trees: a source tree with ``src/bioaccel``, e.g. an older
commit's ``git archive``) runs the same commands, alternating, in this one run; the wall time and the
CPU time (user + system, the command and its children) of each, and the load average before each, are
printed and written to docs/results/first_run.json. The machine is shared: compare trees within a run,
and read the best of several repeats. Every tree's sources are byte-compiled first (an installed
package has its ``.pyc`` files).

    python3 bench/first_run.py --baseline /tmp/orig --repeats 3 --warm-repeats 5
    python3 bench/first_run.py --cases warm-fold,interact
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


def _example(name):
    return os.path.join(ROOT, "examples", name)


#: the README's first interaction (a TSV table on standard output)
README_INTERACTION = ["interact", _example("sars-cov-svrna.fa"), _example("sars-cov-2-3prime.fa"),
                      "--window-target", "128"]

#: name -> (what it runs, argv, goal in seconds, cold: empty caches every run)
CASES = {
    "fold": ("first fold of examples/rnas.fa, empty caches", ["fold", _example("rnas.fa")], 8.0, True),
    "interact": ("first README interaction, empty caches", README_INTERACTION, 12.0, True),
    "scan": ("first MA0066.1 scan, empty caches", ["scan", "jaspar:MA0066.1", _example("sars-cov-2.fasta"), "-q"],
             15.0, True),
    "warm-fold": ("warm fold of examples/rnas.fa", ["fold", _example("rnas.fa")], 0.7, False),
    "warm-interact": ("warm README interaction (a TSV table)", README_INTERACTION, None, False),
    "second-scan": ("second scan, 2,346 matrices", ["scan", "jaspar:2024/CORE", _example("sars-cov-2.fasta"), "-q"],
                    2.0, False),
}


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
    ap.add_argument("--cases", default=",".join(CASES), help=f"comma-separated, of {', '.join(CASES)}")
    ap.add_argument("--repeats", type=int, default=2, help="runs of each cold case per tree")
    ap.add_argument("--warm-repeats", type=int, default=5, help="timed runs of each warm case per tree")
    ap.add_argument("--out", default=os.path.join(ROOT, "docs", "results", "first_run.json"))
    args = ap.parse_args(argv)
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = [c for c in cases if c not in CASES]
    if unknown:
        ap.error(f"unknown case(s) {', '.join(unknown)}; the cases are {', '.join(CASES)}")
    trees = [ROOT] + args.baseline
    for tree in trees:
        subprocess.run([sys.executable, "-m", "compileall", "-q", os.path.join(tree, "src")], check=True,
                       capture_output=True)
    work = tempfile.mkdtemp(prefix="first-run-")
    rows, outputs = [], {}
    print(f"# {platform.node()}: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at the start")

    def timed(case, tree, k, numba_dir, cache_dir):
        label, case_argv = CASES[case][0], CASES[case][1]
        load = os.getloadavg()[0]
        wall, cpu, out = run(tree, case_argv, numba_dir, cache_dir)
        outputs.setdefault((case, tree), out)
        rows.append({"case": case, "run": label, "tree": tree, "repeat": k, "wall_s": wall, "cpu_s": cpu,
                     "load": load})
        print(f"  {case:12} {tree}: {wall:.2f} s (cpu {cpu:.2f} s, load {load:.2f})", flush=True)

    for case in cases:
        cold = CASES[case][3]
        if cold:
            for k in range(args.repeats):
                for tree in trees:
                    numba_dir, cache_dir = tempfile.mkdtemp(dir=work), tempfile.mkdtemp(dir=work)
                    timed(case, tree, k, numba_dir, cache_dir)
                    shutil.rmtree(numba_dir)
                    shutil.rmtree(cache_dir)
        else:
            warm = {tree: (tempfile.mkdtemp(dir=work), tempfile.mkdtemp(dir=work)) for tree in trees}
            for tree in trees:
                run(tree, CASES[case][1], *warm[tree])         # fills Numba's cache, thresholds, P-values
            for k in range(args.warm_repeats):
                for tree in trees:
                    timed(case, tree, k, *warm[tree])
    shutil.rmtree(work)
    same = {case: len({outputs[(case, t)] for t in trees}) == 1 for case in cases}
    print(f"\n# load average {os.getloadavg()[0]:.2f} at the end; outputs identical across trees: {same}")
    print(f"{'run':42} {'tree':28} {'best wall s':>11} {'median wall s':>13} {'best cpu s':>10} {'loads':>11}")
    summary = []
    for case in cases:
        label, _, goal, _ = CASES[case]
        for tree in trees:
            mine = [r for r in rows if r["case"] == case and r["tree"] == tree]
            walls = sorted(r["wall_s"] for r in mine)
            loads = [r["load"] for r in mine]
            entry = {"case": case, "run": label, "tree": tree, "best_wall_s": walls[0],
                     "median_wall_s": walls[len(walls) // 2], "best_cpu_s": min(r["cpu_s"] for r in mine),
                     "runs": len(mine), "load_min": min(loads), "load_max": max(loads), "goal_s": goal,
                     "goal_met_best": None if goal is None else walls[0] <= goal}
            summary.append(entry)
            print(f"{label:42} {tree[-28:]:28} {entry['best_wall_s']:11.2f} {entry['median_wall_s']:13.2f} "
                  f"{entry['best_cpu_s']:10.2f} {min(loads):5.2f}-{max(loads):<5.2f}  "
                  + ("(no goal)" if goal is None else f"(goal {goal:g} s)"))
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as handle:
        json.dump({"benchmark": "first_run", "machine": platform.node(), "cores": os.cpu_count(),
                   "rows": rows, "summary": summary, "outputs_identical": same}, handle, indent=1)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
