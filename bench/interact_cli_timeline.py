"""Where the wall time of one ``bioaccel interact ... --backend gpu`` process goes: the svRNA screen of
bench/interact_cli.py (3 svRNAs x random transcripts of 300-3,000 nt, window 128), run once to standard
output and once with ``-o FILE``, each in a child process that records when things happen.

The child stamps the wall clock at its first line, when the command starts, when CuPy is checked, when
the GPU's warm-up ends, each device computation of the command's pairs (bioaccel.interact._gpu.
window_scores: start and end; the warm-up's tiny pair is not one of them), the pairs' sites (their
total time), and when the command returns; the parent stamps before starting it and after it exits.
So: interpreter start, the command's imports and inputs before the first device computation, the
device computations, what follows the last one, and the process's exit (as the ``bioaccel``
executable ends: its atexit handlers, then ``os._exit``, the driver giving back CuPy's memory and the
CUDA context). The warm-up's CuPy check (with the CUDA context) and Numba's start
(bioaccel.runtime.numba_start.start_cpu_target) are stamped too. The child imports the modules it
stamps before the command starts (NumPy, Numba): the command's own time is that much shorter than
in a plain ``bioaccel`` process.

    python3 bench/interact_cli_timeline.py                 # on a GPU machine (about 30 s on an H100)
    python3 bench/interact_cli_timeline.py --targets 60

Prints a table and writes JSON to docs/results/interact_cli_timeline_gpu.json.
"""
import argparse
import json
import os
import platform
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import scale  # noqa: E402  (the same random transcripts)
from interact_cli import screen_inputs  # noqa: E402

CHILD = r"""
import atexit, json, sys, threading, time
stamps = {"child start": time.time()}
device, sites = [], [0.0]
from bioaccel.runtime.numba_start import skip_numba_optionals
skip_numba_optionals()                  # as the bioaccel executable (cli.main.console_main)
from bioaccel.runtime import gpu, numba_start
from bioaccel.interact import _gpu, _pairs_gpu

checked, warm, start_cpu_target = gpu._checked_cupy, gpu._warm, numba_start.start_cpu_target
def _checked(*args, **kwargs):
    value = checked(*args, **kwargs)
    stamps.setdefault("CuPy checked", time.time())
    return value
def _warm(then):
    warm(then)
    stamps["warm-up over"] = time.time()
def _start_cpu_target():
    stamps["Numba's start begun"] = time.time()
    value = start_cpu_target()
    stamps["Numba's start over"] = time.time()
    return value
window_scores, site_rows = _gpu.window_scores, _pairs_gpu.site_rows
def _window_scores(*args, **kwargs):
    start = time.time()
    value = window_scores(*args, **kwargs)
    if threading.current_thread().name != "bioaccel-gpu-warm-up":      # the warm-up's tiny pair left out
        device.append((start, time.time()))
    return value
def _site_rows(*args, **kwargs):
    start = time.perf_counter()
    value = site_rows(*args, **kwargs)
    sites[0] += time.perf_counter() - start
    return value
gpu._checked_cupy, gpu._warm, _gpu.window_scores, _pairs_gpu.site_rows = _checked, _warm, _window_scores, _site_rows
numba_start.start_cpu_target = _start_cpu_target

from bioaccel.cli.main import main
from bioaccel.runtime.finish import finish_process
stamps["command start"] = time.time()
code = main(sys.argv[1:], stdout=open("/dev/null", "w"))
stamps["command end"] = time.time()
atexit._run_exitfuncs()                 # what finish_process runs first (then none are left)
stamps["atexit handlers run"] = time.time()
print(json.dumps({"stamps": stamps, "device": device, "sites": sites[0], "code": code}), flush=True)
finish_process(code)                    # the process ends as the bioaccel executable's does
"""


def timeline(argv) -> dict:
    """The child's stamps for ``bioaccel ARGV`` and the parent's, in seconds from the parent's start."""
    start = time.time()
    done = subprocess.run([sys.executable, "-c", CHILD, *argv, "-q"], capture_output=True, text=True, check=True)
    end = time.time()
    found = json.loads(done.stdout.strip().splitlines()[-1])
    stamps = {name: at - start for name, at in found["stamps"].items()}
    device = [(a - start, b - start) for a, b in found["device"]] or [(stamps["command end"],) * 2]   # the CPU's
    phases = {
        "interpreter start": stamps["child start"],
        "imports before the command": stamps["command start"] - stamps["child start"],
        "command start to CuPy checked": stamps.get("CuPy checked", stamps["command start"]) - stamps["command start"],
        "command start to the first device computation": device[0][0] - stamps["command start"],
        "device computations (window_scores, summed)": sum(b - a for a, b in device),
        "between device computations (site rows, S1, ...)": (device[-1][1] - device[0][0])
                                                            - sum(b - a for a, b in device),
        "sites of the pairs (site_rows, summed)": found["sites"],
        "last device computation to the command's end": stamps["command end"] - device[-1][1],
        "command's end to the process's exit": end - start - stamps["command end"],
        "of which atexit handlers": stamps["atexit handlers run"] - stamps["command end"],
        "whole process": end - start,
    }
    for name, stamp in (("command start to the warm-up's end", "warm-up over"),
                        ("command start to Numba's start begun", "Numba's start begun"),
                        ("command start to Numba's start over", "Numba's start over")):
        if stamp in stamps:
            phases[name] = stamps[stamp] - stamps["command start"]
    return {"phases": phases, "device_calls": len(device)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=600, help="random transcripts (default 600)")
    parser.add_argument("--backend", default="gpu", help="gpu (default), or cpu to try this script")
    parser.add_argument("--output", default=os.path.join(HERE, "..", "docs", "results",
                                                         "interact_cli_timeline_gpu.json"))
    args = parser.parse_args(argv)
    load_before = os.getloadavg()
    folder, screen = screen_inputs(args.targets, args.backend, "bioaccel-timeline-")
    runs = {"> stdout": timeline(screen), "-o FILE": timeline([*screen, "-o", os.path.join(folder, "out.tsv")])}
    names = list(runs["> stdout"]["phases"])
    print(f"\n{3 * args.targets:,} pairs (3 svRNAs x {args.targets:,} transcripts), seconds\n")
    print("| phase | " + " | ".join(runs) + " |")
    print("|---|" + "---|" * len(runs))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{run['phases'].get(name, float('nan')):.3f}" for run in runs.values())
              + " |")
    print("| device computations (calls) | " + " | ".join(str(run["device_calls"]) for run in runs.values()) + " |")
    load_after = os.getloadavg()
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as handle:
        json.dump({"machine": platform.platform(), "cores": os.cpu_count(), "gpus": scale.gpu_names(),
                   "pairs": 3 * args.targets, "load_average": [load_before, load_after], "runs": runs},
                  handle, indent=1)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
