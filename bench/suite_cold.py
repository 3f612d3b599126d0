"""The default test suite (``-m "not slow"``, as .ci/run runs it) cold: a fresh ``git clone`` of a commit, so
no ``__pycache__`` and no Numba cache, run from the clone with its own ``src`` and ``tests`` first on
PYTHONPATH, serially or on pytest-xdist workers. Prints one table row and writes
docs/results/suite_cold_<tag>.json: wall seconds, passed/failed/skipped, the load average before and after
(the machine is shared: read the load beside the time), and the slowest tests (``--durations``).

A cold run takes 10-22 minutes on the 2-core machine: start it in the background and poll its log, and run
one at a time. SIGINT is restored to its default for pytest (a job started with ``&`` by a
non-interactive shell ignores it, the tests' children inherit that, and the tests that interrupt a command
then fail, one after the command's whole run).

    setsid nohup python3 bench/suite_cold.py --tag xdist2 -- -n 2 --dist loadfile > /tmp/suite.out 2>&1 &
    setsid nohup python3 bench/suite_cold.py --tag serial > /tmp/suite.out 2>&1 &
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def summary_counts(line: str) -> dict:
    """The counts of pytest's last line.

    >>> summary_counts("4 failed, 2114 passed, 687 skipped in 740.54s (0:12:20)")
    {'failed': 4, 'passed': 2114, 'skipped': 687}
    """
    return {word: int(count) for count, word in re.findall(r"(\d+) (passed|failed|skipped|errors?)", line)}


def slowest(log: str, count: int = 30) -> list:
    """The first ``count`` rows of pytest's ``--durations`` table as [seconds, phase, test id].

    >>> slowest("== slowest 80 durations ==\\n93.71s call     tests/t.py::test_a[x]\\n1.0s setup tests/t.py::b\\n", 1)
    [[93.71, 'call', 'tests/t.py::test_a[x]']]
    """
    rows = re.findall(r"^(\d+\.\d+)s (call|setup|teardown)\s+(\S+)$", log, re.M)
    return [[float(s), phase, test] for s, phase, test in rows[:count]]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tag", required=True, help="names the JSON file: docs/results/suite_cold_<tag>.json")
    parser.add_argument("--commit", default="HEAD", help="the commit cloned (default: this tree's HEAD)")
    parser.add_argument("pytest_args", nargs="*", help="after --: pytest's options (e.g. -n 2 --dist loadfile)")
    args = parser.parse_args()
    commit = subprocess.run(["git", "rev-parse", args.commit], cwd=ROOT, capture_output=True, text=True,
                            check=True).stdout.strip()
    clone = Path(tempfile.mkdtemp(prefix="suite-cold-"))
    subprocess.run(["git", "clone", "-q", str(ROOT), str(clone)], check=True)
    subprocess.run(["git", "checkout", "-q", commit], cwd=clone, check=True)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(clone / "src"), str(clone / "tests"),
                                                                    os.environ.get("PYTHONPATH")])))
    env.setdefault("OMP_WAIT_POLICY", "passive")       # as .ci/run sets it
    command = [sys.executable, "-m", "pytest", "-q", "-m", "not slow", "--durations=80", "-p", "no:cacheprovider",
               *args.pytest_args]
    load_before = os.getloadavg()
    start = time.perf_counter()
    done = subprocess.run(command, cwd=clone, env=env, capture_output=True, text=True,
                          preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    wall = time.perf_counter() - start
    load_after = os.getloadavg()
    log = done.stdout + done.stderr
    last = [line for line in log.splitlines() if re.search(r"\d+ passed", line)]
    result = {"tag": args.tag, "commit": commit, "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
              "command": " ".join(command[1:]), "cpus": os.cpu_count(), "wall_s": round(wall, 1),
              "exit_status": done.returncode, **summary_counts(last[-1] if last else ""),
              "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in load_after],
              "failures": re.findall(r"^FAILED (\S+)", log, re.M), "slowest": slowest(log)}
    out = ROOT / "docs" / "results" / f"suite_cold_{args.tag}.json"
    out.write_text(json.dumps(result, indent=1) + "\n")
    print(f"{'tag':<12} {'wall s':>8} {'passed':>7} {'failed':>7} {'skipped':>8} {'load before':>12} {'load after':>11}")
    print(f"{args.tag:<12} {wall:8.1f} {result.get('passed', 0):7d} {result.get('failed', 0):7d} "
          f"{result.get('skipped', 0):8d} {load_before[0]:12.2f} {load_after[0]:11.2f}")
    print(f"wrote {out.relative_to(ROOT)}; the clone (and its log) is {clone}")
    (clone / "suite.log").write_text(log)


if __name__ == "__main__":
    main()
