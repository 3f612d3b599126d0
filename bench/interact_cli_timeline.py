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
CUDA context; with ``--free-pool`` a third run frees CuPy's pool first, timed). The warm-up's CuPy
check (with the CUDA context), bioaccel.runtime.numba_start.start_cpu_target and Numba's CPU target
made ready (its first ``refresh``: Numba's start, in whichever thread makes it, if any) are stamped
too. The child imports the modules it stamps before the command starts (NumPy, Numba): the command's
own time is that much shorter than in a plain ``bioaccel`` process. ``--fake-device`` stands in for
CuPy and the device (FAKE below), so that the command's own work is timed on any machine.

    python3 bench/interact_cli_timeline.py                 # on a GPU machine (about 30 s on an H100)
    python3 bench/interact_cli_timeline.py --targets 60
    python3 bench/interact_cli_timeline.py --free-pool --runs 3     # and the exit with CuPy's pool freed
    python3 bench/interact_cli_timeline.py --fake-device 9.0 --runs 3   # any machine: a stand-in device
    python3 bench/interact_cli_timeline.py --old ../main/src --runs 3    # and the code before, each run beside

Prints a table and writes JSON to docs/results/interact_cli_timeline_gpu.json (_fake.json with a stand-in
device).
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
import atexit, json, os, sys, threading, time
stamps = {"child start": time.time()}
device, sites = [], [0.0]
from bioaccel.runtime.numba_start import skip_numba_optionals
skip_numba_optionals()                  # as the bioaccel executable (cli.main.console_main)
from numba.core import cpu as numba_cpu
refresh = numba_cpu.CPUContext.refresh
def _refresh(self):                     # Numba's CPU target made ready: its first call is Numba's start
    first = "Numba's CPU target started" not in stamps
    if first:
        stamps["Numba's CPU target started"] = time.time()
        stamps["Numba's start's thread: " + threading.current_thread().name] = time.time()
    value = refresh(self)
    if first:
        stamps["Numba's CPU target ready"] = time.time()
    return value
numba_cpu.CPUContext.refresh = _refresh
#FAKE
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
if os.environ.get("FREE_POOL"):         # CuPy's memory given back before the exit (--free-pool)
    import cupy
    cupy.get_default_memory_pool().free_all_blocks()
    cupy.cuda.runtime.deviceSynchronize()
    stamps["CuPy's pool freed"] = time.time()
atexit._run_exitfuncs()                 # what finish_process runs first (then none are left)
stamps["atexit handlers run"] = time.time()
print(json.dumps({"stamps": stamps, "device": device, "sites": sites[0], "code": code}), flush=True)
finish_process(code)                    # the process ends as the bioaccel executable's does
"""


#: With --fake-device: CuPy's import stood in for by another large package's (--fake-import: pandas,
#: 0.26 s here by -X importtime; CuPy's own import on the H100 host is not timed apart from the
#: context), the CUDA context by a sleep (--fake-context; the GIL released, as the driver's calls do),
#: and each device computation by window scores of the right shapes after a sleep as long as its share
#: of the screen's device time (by query x target bases). So the command's own Python work around the
#: device (imports, inputs, folds, sites, writing) and its contention with the warm-up's thread for the
#: GIL are timed on any machine; the values of the rows are not the device's.
FAKE = r"""
import os, types
import numpy as np
from bioaccel.runtime import gpu as fake_gpu
from bioaccel.interact import _gpu as fake_device
per_cell, context_seconds = float(os.environ["FAKE_SECONDS_PER_CELL"]), float(os.environ["FAKE_CONTEXT_SECONDS"])
def fake_cupy(context=False):
    if context:
        if os.environ["FAKE_IMPORT"]:
            __import__(os.environ["FAKE_IMPORT"])   # CuPy's import: a package as large (imports, the GIL held)
        time.sleep(context_seconds)
    return types.SimpleNamespace(cuda=types.SimpleNamespace(runtime=types.SimpleNamespace(getDeviceCount=lambda: 1)))
def fake_scores(a, S1, rbs, params, variant="fused"):
    found = []
    for rb in rbs:
        L1, L2 = params.spans(len(a), len(rb))
        wins = (np.arange(len(rb) - L2 + 1, dtype=np.int32) * 7919) % 97
        found.append((wins[None, :] + np.arange(len(a) - L1 + 1, dtype=np.int32)[:, None],
                      np.zeros(len(rb) - L2 + 1, np.int64)))
    time.sleep(per_cell * len(a) * sum(len(rb) for rb in rbs))
    return found
fake_gpu._checked_cupy, fake_device.window_scores = fake_cupy, fake_scores
"""


def _bases(path) -> list:
    """The lengths of the records of the FASTA file ``path``."""
    lengths = []
    for line in open(path):
        if line.startswith(">"):
            lengths.append(0)
        elif lengths:
            lengths[-1] += len(line.strip())
    return lengths


def timeline(argv, fake=None, free_pool=False, src=None) -> dict:
    """The child's stamps for ``bioaccel ARGV`` and the parent's, in seconds from the parent's start
    (``fake``: (device seconds of the whole screen, the context's seconds, the package imported for CuPy's) for a
    stand-in device)."""
    child, env = CHILD, dict(os.environ, FREE_POOL="1" if free_pool else "")
    if src is not None:                 # another copy of the package first on the path (--old)
        env["PYTHONPATH"] = os.pathsep.join([src] + [p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
    if fake is not None:
        cells = sum(_bases(argv[1])) * sum(_bases(argv[2]))
        env.update(FAKE_SECONDS_PER_CELL=repr(fake[0] / cells), FAKE_CONTEXT_SECONDS=repr(fake[1]),
                   FAKE_IMPORT=fake[2])
        child = CHILD.replace("#FAKE", FAKE)
    start = time.time()
    done = subprocess.run([sys.executable, "-c", child, *argv, "-q"], capture_output=True, text=True, check=True,
                          env=env)
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
        "of which CuPy's pool freed (--free-pool)": stamps.get("CuPy's pool freed", stamps["command end"])
                                                     - stamps["command end"],
        "whole process": end - start,
    }
    for name, stamp in (("command start to the warm-up's end", "warm-up over"),
                        ("command start to Numba's start begun", "Numba's start begun"),
                        ("command start to Numba's start over", "Numba's start over"),
                        ("command start to Numba's CPU target started", "Numba's CPU target started"),
                        ("command start to Numba's CPU target ready", "Numba's CPU target ready")):
        if stamp in stamps:
            phases[name] = stamps[stamp] - stamps["command start"]
    phases["process start to the first device computation"] = device[0][0]
    threads = [name.split(": ", 1)[1] for name in stamps if name.startswith("Numba's start's thread: ")]
    return {"phases": phases, "device_calls": len(device), "numba_started_in": threads[0] if threads else None}


def _median(runs: list) -> dict:
    """Each phase's median over ``runs`` (the device calls and Numba's thread of the first)."""
    phases = {name: sorted(run["phases"].get(name, float("nan")) for run in runs)[len(runs) // 2]
              for name in runs[0]["phases"]}
    return {**runs[0], "phases": phases, "runs": len(runs)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--targets", type=int, default=600, help="random transcripts (default 600)")
    parser.add_argument("--backend", default="gpu", help="gpu (default), or cpu to try this script")
    parser.add_argument("--fake-device", type=float, default=None, metavar="SECONDS",
                        help="no GPU: a stand-in device that computes the whole screen in SECONDS (9.0: the "
                             "H100's), the CUDA context in --fake-context seconds (sleeps, the GIL released)")
    parser.add_argument("--fake-context", type=float, default=0.3, metavar="SECONDS")
    parser.add_argument("--fake-import", default="pandas", metavar="PACKAGE",
                        help="imported for CuPy's import with --fake-device (default pandas; '' none)")
    parser.add_argument("--free-pool", action="store_true",
                        help="also -o FILE with CuPy's memory pool freed after the command (GPU only): does the "
                             "exit (the driver's teardown) shrink by more than the freeing takes?")
    parser.add_argument("--old", metavar="SRC", default=None,
                        help="also the package in SRC (its src folder: the code before a change), each run beside")
    parser.add_argument("--runs", type=int, default=1, help="runs of each (default 1); the table shows the median")
    parser.add_argument("--output", default=None, help="JSON file (default docs/results/"
                                                       "interact_cli_timeline_gpu.json, _fake.json with --fake-device)")
    args = parser.parse_args(argv)
    args.output = args.output or os.path.join(HERE, "..", "docs", "results", "interact_cli_timeline_"
                                              f"{'gpu' if args.fake_device is None else 'fake'}.json")
    load_before = os.getloadavg()
    folder, screen = screen_inputs(args.targets, args.backend, "bioaccel-timeline-")
    fake = None if args.fake_device is None else (args.fake_device, args.fake_context, args.fake_import)
    out = os.path.join(folder, "out.tsv")
    kinds = [("> stdout", screen, False), ("-o FILE", [*screen, "-o", out], False)] + \
        ([("-o FILE, pool freed", [*screen, "-o", out], True)] if args.free_pool else [])
    codes = [("", None)] + ([(", old code", args.old)] if args.old else [])
    found = {}
    for _ in range(args.runs):          # each run of each kind beside the old code's (if any)
        for kind, argv, free_pool in kinds:
            for label, src in codes:
                found.setdefault(kind + label, []).append(timeline(argv, fake, free_pool, src))
    runs = {name: _median(each) for name, each in found.items()}
    names = list(dict.fromkeys(name for run in runs.values() for name in run["phases"]))
    print(f"\n{3 * args.targets:,} pairs (3 svRNAs x {args.targets:,} transcripts), seconds\n")
    print("| phase | " + " | ".join(runs) + " |")
    print("|---|" + "---|" * len(runs))
    for name in names:
        print(f"| {name} | " + " | ".join(f"{run['phases'].get(name, float('nan')):.3f}" for run in runs.values())
              + " |")
    print("| device computations (calls) | " + " | ".join(str(run["device_calls"]) for run in runs.values()) + " |")
    print("| Numba's start made in | " + " | ".join(str(run["numba_started_in"]) for run in runs.values()) + " |")
    load_after = os.getloadavg()
    print(f"\nload average after: {' '.join(f'{x:.2f}' for x in load_after)}")
    os.makedirs(os.path.dirname(os.path.abspath(args.output)), exist_ok=True)
    with open(args.output, "w") as handle:
        json.dump({"machine": platform.platform(), "cores": os.cpu_count(), "gpus": scale.gpu_names(),
                   "fake_device": fake, "old": args.old,
                   "pairs": 3 * args.targets, "load_average": [load_before, load_after], "runs": runs},
                  handle, indent=1)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
