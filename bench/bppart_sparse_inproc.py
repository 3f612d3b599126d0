"""BPPart's ``queued`` fill, its ``tiles``, ``rows`` and ``tasks`` forms alternating in one process (bppcpu3's in-process method,
stop 48): the fill alone at 23 x 50 and 23 x 100 (bench/bppart.py's query and targets), 1 and 2 threads,
memory reserved as a warm server's spare does; best and median of the calls, every form's logs ``==``.
Clear Numba's cache of ``bioaccel/interact`` after editing a module that others call: a caller's cached
code keeps its callees' old code (Numba checks only the caller's own file).

    flock /tmp/bioaccel-cpu-timing.lock python bench/bppart_sparse_inproc.py --repeats 9 --json out.json
"""
import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _results import save_json  # noqa: E402
from bppart import QUERY, target_of  # noqa: E402

from bioaccel.cli.serve_warm import reserve_memory  # noqa: E402
from bioaccel.inputs.alphabet import encode  # noqa: E402
from bioaccel.interact import PartitionParams  # noqa: E402
from bioaccel.interact._partition import choose_scales  # noqa: E402
from bioaccel.interact._partition_blocked_queue import fill_partition_queued  # noqa: E402
from bioaccel.interact._partition_blocked_split import INLINE, SKIP_ZEROS  # noqa: E402
from bioaccel.runtime.parallel import threads  # noqa: E402

#: The forms (``tiles``); the class tiles of QIa (``sparse``, ``sparse_inline``) were timed here too, at commit
#: 1a65d8d, and dropped (docs/bppart.md, "bppsparse, stop 49")
FORMS = {"skip_zeros (stop 48)": (SKIP_ZEROS, "called", "single"),
         "inline (the skip tiles inlined, stop 49)": (INLINE, "called", "single"),
         "rows (the skip tiles and _interval's row functions inlined, bppinline, stop 49)": (INLINE, "inline", "single"),
         "pairs (rows, two query intervals a task in turn, bpppair, stop 50)": (INLINE, "inline", "pairs"),
         "shared (rows, two query intervals a task, their left matrices shared, bpppair, stop 50)":
             (INLINE, "inline", "shared")}
#: --same: the old form against itself (an A/A run: what the order of the calls alone does)
SAME = {"skip_zeros (stop 48)": (SKIP_ZEROS, "called", "single"), "skip_zeros again": (SKIP_ZEROS, "called", "single")}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[50, 100])
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--json")
    parser.add_argument("--same", action="store_true", help="the old form twice (an A/A run)")
    parser.add_argument("--forms", nargs="+", help="the forms to time (first words of FORMS' names); all by default")
    parser.add_argument("--base", help="the form the ratios are of (first word; the first form timed by default)")
    parser.add_argument("--reverse", action="store_true", help="the forms in reverse order in each round")
    args = parser.parse_args(argv)
    forms = SAME if args.same else FORMS
    if args.forms:
        forms = {name: form for name, form in forms.items() if name.split()[0] in args.forms}
    base = next(iter(forms)) if args.base is None else next(n for n in forms if n.split()[0] == args.base)
    if args.reverse:
        forms = dict(reversed(list(forms.items())))
    reserve_memory()
    params = PartitionParams()
    weights = params.weights()
    rows = []
    print(f"load before {os.getloadavg()[0]:.2f}", flush=True)
    for count in args.threads:
        with threads(count):
            for N in args.sizes:
                a = encode(QUERY)
                rb = np.ascontiguousarray(encode(target_of(N))[::-1])
                c1, c2 = choose_scales(a, rb, params)
                times = {name: [] for name in forms}
                logs = {}
                for _ in range(args.repeats + 1):      # the first round warms (discarded)
                    for name, (tiles, rows_form, tasks) in forms.items():
                        start = time.perf_counter()
                        logs[name] = fill_partition_queued(a, rb, weights, c1, c2, tiles, rows=rows_form, tasks=tasks)
                        times[name].append(time.perf_counter() - start)
                assert len(set(logs.values())) == 1, logs
                row = {"threads": count, "pair": f"23 x {N}", "log_qi": logs[name][0],
                       "load": round(os.getloadavg()[0], 2)}
                for name in forms:
                    t = sorted(times[name][1:])
                    row[name] = {"best_s": round(t[0], 4), "median_s": round(t[len(t) // 2], 4)}
                first = row[base]["best_s"]
                for name in forms:
                    row[f"{base.split()[0]} / {name.split()[0]}"] = round(first / row[name]["best_s"], 3)
                rows.append(row)
                print(row, flush=True)
    print(f"load after {os.getloadavg()[0]:.2f}", flush=True)
    if args.json:
        save_json({"benchmark": "bppart queued fill, tiles, rows and tasks forms alternating in one process (stop 50)",
                              "repeats": args.repeats, "same": args.same, "reverse": args.reverse, "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
