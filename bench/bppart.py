"""BPPart on the CPU against the original program (Ali-E/bipart's ``bppart``), whole process each,
in the same run on this machine: ``bioaccel interact Q T --partition`` against
``bppart -q --proc=T pairs.fa``, at 23 x 50 and 23 x 100 nt (and 150 with --sizes), each timed as the
wall time of one process, best of --repeats (the original best of --original-repeats). The floor: Python's
own start and our whole command on a 1-nt target (what no fill can take away). With a warm server of this
tree listening (``bioaccel serve``, the same environment), ours runs through it. The load average is printed before and after, because
the development machine is shared.

In process (one Python process per size): the import of bioaccel.interact, the first pair (Numba's
cached code loaded, then the fill) and the fill alone (best of 3 more), to say what the whole process
spends where.

With --old-src (an earlier tree's ``src``, e.g. main's in /tmp), that tree's command is timed too, its
runs alternating with this tree's (each through its own warm server where one listens: start it from
that tree, in the same environment), so that old and new share one run's load and one original.
Both trees' modules are compiled to bytecode first, as an installed package has them (pip compiles
them; this machine's environment sets PYTHONDONTWRITEBYTECODE, so a command compiled bioaccel's
client modules from source every time: about 4 ms); --no-bytecode leaves them as they are.

Windowed rows (ours only: the original has no windows): ``--window-target 128`` at 23 x 2,000 and
23 x 20,000 nt (``--window-sizes``), whole process, with the target rows swept per second.

Build the original outside the repository (docs/bppart.md, "The original program"), then:

    python bench/bppart.py --original /tmp/bipart/bppart --json docs/results/bppart_cpu.json
    python bench/bppart.py --sizes --window-sizes 2000 20000 --json docs/results/bppart_windows_cpu.json
"""
import argparse
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import save_json  # noqa: E402

QUERY = "UAGACAAGCCUUACGGAUCGUCU"   # 23 nt, as the thesis's svRNA shapes


def target_of(n: int, seed: int = 3) -> str:
    rng = random.Random(seed * 1000 + n)
    return "".join(rng.choice("ACGU") for _ in range(n))


def timed(command, cwd) -> "tuple[float, str]":
    start = time.perf_counter()
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    timed.cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)   # the last run's
    return time.perf_counter() - start, done.stdout


SRC = str(Path(__file__).resolve().parents[1] / "src")   # this tree's


def ours(workdir: Path, n: int, threads: int, window: "int | None" = None,
         pause: float = 0.0, src: str = SRC) -> "tuple[float, float]":
    """Our whole command (the ``bioaccel`` executable's code) of the tree ``src`` on QUERY x n nt: (wall
    seconds, log Z)."""
    time.sleep(pause)   # through a warm server: time for its next spare to prepare (--pause)
    (workdir / "q.fa").write_text(f">q\n{QUERY}\n")
    (workdir / "t.fa").write_text(f">t\n{target_of(n)}\n")
    command = [sys.executable, "-c", f"import sys; sys.path.insert(0, {src!r}); from bioaccel.cli.main import "
               f"console_main; console_main()", "interact", "q.fa", "t.fa", "--partition", "--quiet",
               "--threads", str(threads)] + ([] if window is None else ["--window-target", str(window)])
    seconds, out = timed(command, workdir)
    return seconds, float(out.splitlines()[1].split("\t")[2])


IN_PROCESS = """
import sys, time
t0 = time.perf_counter()
sys.path.insert(0, {src!r})
from bioaccel.interact import bppart
t1 = time.perf_counter()
first = bppart({query!r}, {target!r}, threads={threads})[0]
t2 = time.perf_counter()
fills = []
for _ in range(3):
    start = time.perf_counter()
    bppart({query!r}, {target!r}, threads={threads})
    fills.append(time.perf_counter() - start)
print(t1 - t0, t2 - t1, min(fills), first.log_z)
"""



def in_process(n: int, threads: int) -> dict:
    """Inside one Python process: importing bioaccel.interact (NumPy, Numba's dispatchers), the first
    pair (Numba's cached machine code loaded, then the fill), and the fill alone (best of 3 more)."""
    src = str(Path(__file__).resolve().parents[1] / "src")
    code = IN_PROCESS.format(src=src, query=QUERY, target=target_of(n), threads=threads)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imported, first, fill, _ = (float(x) for x in done.stdout.split())
    return {"import_s": imported, "first_pair_s": first, "fill_s": fill}


def floor(workdir: Path, threads: int, repeats: int, pause: float = 0.0, old_src: "str | None" = None) -> dict:
    """What no fill can take away, best of ``repeats``: Python's own start (``python -c pass``) and
    our whole command on a 1-nt target (the same process, arguments and files, no work to speak of);
    with ``old_src``, that tree's command too (runs alternating)."""
    python = min(timed([sys.executable, "-c", "pass"], workdir)[0] for _ in range(repeats))
    tiny, old = alternating(workdir, 1, threads, repeats, pause, old_src)
    return {"python_start_s": python, "ours_23x1_s": min(tiny)[0], **({"old_23x1_s": min(old)[0]} if old else {})}


def alternating(workdir: Path, n: int, threads: int, repeats: int, pause: float,
                old_src: "str | None") -> "tuple[list, list]":
    """``repeats`` runs of :func:`ours` on QUERY x n nt, each followed by one of the tree ``old_src``'s
    (none without it), so that both meet the same load: (this tree's runs, the old tree's)."""
    new, old = [], []
    for _ in range(repeats):
        new.append(ours(workdir, n, threads, pause=pause))
        if old_src:
            old.append(ours(workdir, n, threads, pause=pause, src=old_src))
    return new, old


def compile_bytecode(src: str) -> None:
    """Compile the tree ``src``'s modules to bytecode (``__pycache__``, ignored by git and by the warm
    server's tree key), as pip does when it installs a package."""
    import compileall

    compileall.compile_dir(src, quiet=1)


def original(program: str, workdir: Path, n: int, threads: int) -> "tuple[float, float]":
    (workdir / "pairs.fa").write_text(f">p\n{QUERY}&{target_of(n)}\n")
    seconds, _ = timed([program, "-q", f"--proc={threads}", "pairs.fa"], workdir)
    line = (workdir / "pairs.fa.parts.0.5_1").read_text().splitlines()[1]
    return seconds, math.log(float(line.split("\t")[2]))


def _served(src: str = SRC) -> bool:
    """Whether a warm server of the tree ``src`` listens (then its commands run through it), asked in a
    process of that tree's bioaccel."""
    code = (f"import sys; sys.path.insert(0, {src!r}); from bioaccel.cli.serve_client import socket_path; "
            "from bioaccel.cli.serve import listening; print(listening(socket_path()))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return not os.environ.get("BIOACCEL_NO_SERVER") and done.stdout.strip() == "True"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--original", help="the original bppart program, built outside the repository (needed "
                                           "for --sizes)")
    parser.add_argument("--sizes", type=int, nargs="*", default=[50, 100])
    parser.add_argument("--window-sizes", type=int, nargs="*", default=[],
                        help="target lengths of windowed rows (ours only), e.g. 2000 20000")
    parser.add_argument("--window", type=int, default=128, help="--window-target of the windowed rows")
    parser.add_argument("--threads", type=int, default=os.cpu_count())
    parser.add_argument("--repeats", type=int, default=3, help="runs of ours per size (best kept)")
    parser.add_argument("--pause", type=float, default=0.0,
                        help="seconds to wait before each run of ours: through a warm server, the time its next "
                             "spare needs to prepare (kernels, memory, a rehearsal: about 0.3 s here); 0 runs them "
                             "back to back, each spare interrupted by the next request")
    parser.add_argument("--original-repeats", type=int, default=1,
                        help="runs of the original per size (best kept): on a shared machine one of its runs of "
                             "several seconds may meet another job where ours did not")
    parser.add_argument("--old-src", help="an earlier tree's src directory: its command timed too, runs alternating")
    parser.add_argument("--no-bytecode", action="store_true", help="leave the trees' modules uncompiled")
    parser.add_argument("--json", default="docs/results/bppart_cpu.json")
    args = parser.parse_args(argv)
    if args.sizes and not args.original:
        parser.error("--sizes compares with the original program: give --original PROGRAM (or --sizes with none)")
    trees = [SRC] + ([args.old_src] if args.old_src else [])
    if not args.no_bytecode:
        for src in trees:
            compile_bytecode(src)
    load_before, served = os.getloadavg(), [_served(src) for src in trees]   # (a probe: a spare takes it, ends)
    print(f"load average before: {load_before[0]:.2f} {load_before[1]:.2f} {load_before[2]:.2f}; "
          f"{os.cpu_count()} cores; threads {args.threads}; through a warm server: {served[0]}"
          + (f" (old tree: {served[1]})" if args.old_src else "") + f"; pause {args.pause:g} s; "
          f"bytecode compiled: {not args.no_bytecode}")
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        workdir = Path(tmp)
        for src in trees:   # compile once into Numba's cache, as an installed package has it
            ours(workdir, 10, args.threads, pause=args.pause, src=src)
        if args.window_sizes:
            ours(workdir, 40, args.threads, 8, pause=args.pause)
        fixed = floor(workdir, args.threads, args.repeats, args.pause, args.old_src) if args.sizes else {}
        for n in args.sizes:
            new, old = alternating(workdir, n, args.threads, args.repeats, args.pause, args.old_src)
            best = min(new)
            runs = [original(args.original, workdir, n, args.threads) for _ in range(args.original_repeats)]
            theirs = min(runs)
            rows.append({"query": len(QUERY), "target": n, "ours_s": best[0], "original_s": theirs[0],
                         "ratio": theirs[0] / best[0], "log_z_ours": best[1], "log_z_original": theirs[1],
                         "original_runs_s": [seconds for seconds, _ in runs], "ours_runs_s": [x for x, _ in new],
                         **({"old_s": min(old)[0], "old_ratio": theirs[0] / min(old)[0], "log_z_old": min(old)[1],
                             "old_runs_s": [x for x, _ in old]} if old else {}),
                         **in_process(n, args.threads)})
        windowed = []
        for n in args.window_sizes:   # one run each: the long ones take minutes
            seconds, log_z = ours(workdir, n, args.threads, args.window, args.pause)
            windowed.append({"query": len(QUERY), "target": n, "window": args.window, "ours_s": seconds,
                             "cpu_s": timed.cpu, "rows_per_s": n / seconds, "log_z": log_z})
    load_after = os.getloadavg()
    print("| pair | ours, whole process (s) | original (s) | ratio | in process: import (s) | first pair (s) | "
          "fill alone (s) | original / fill | log Z ours | log Z original |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['query']} x {r['target']} | {r['ours_s']:.3f} | {r['original_s']:.2f} | {r['ratio']:.1f}x | "
              f"{r['import_s']:.3f} | {r['first_pair_s']:.3f} | {r['fill_s']:.4f} | {r['original_s'] / r['fill_s']:.0f}x | "
              f"{r['log_z_ours']:.6f} | {r['log_z_original']:.6f} |")
    if windowed:
        # CPU seconds (user + system, both threads) say more than wall time on a shared, loaded machine
        print(f"{'pair':>12} {'window':>6} {'wall s':>8} {'CPU s':>8} {'rows/s':>8} {'log Z (windowed)':>17}")
        for r in windowed:
            print(f"{r['query']:>4} x {r['target']:<6,} {r['window']:>6} {r['ours_s']:8.2f} {r['cpu_s']:8.2f} "
                  f"{r['rows_per_s']:8.1f} {r['log_z']:17.6f}")
    if args.old_src:
        print("| pair | old tree (s) | this tree (s) | old / this | original (s) | ratio, old | ratio, this | "
              "log Z old | log Z this |")
        print("|---|---|---|---|---|---|---|---|---|")
        for r in rows:
            print(f"| {r['query']} x {r['target']} | {r['old_s']:.3f} | {r['ours_s']:.3f} | "
                  f"{r['old_s'] / r['ours_s']:.2f}x | {r['original_s']:.2f} | {r['old_ratio']:.1f}x | "
                  f"{r['ratio']:.1f}x | {r['log_z_old']:.6f} | {r['log_z_ours']:.6f} |")
    if args.sizes:
        print(f"floor: python -c pass {fixed['python_start_s']:.3f} s; ours at 23 x 1 nt {fixed['ours_23x1_s']:.3f} s "
              + (f"(old tree {fixed['old_23x1_s']:.3f} s) " if args.old_src else "")
              + f"(whole process, best of {args.repeats})")
    print(f"load average after: {load_after[0]:.2f} {load_after[1]:.2f} {load_after[2]:.2f}")
    save_json({"benchmark": "bppart_cpu", "load_before": load_before, "load_after": load_after,
               "threads": args.threads, "served": served[0], "pause_s": args.pause, "rows": rows, "windowed": windowed,
               "old_src": args.old_src, "old_served": served[1] if args.old_src else None,
               "bytecode": not args.no_bytecode,
               **({"floor": fixed} if args.sizes else {})}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
