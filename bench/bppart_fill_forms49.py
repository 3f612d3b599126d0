"""The queued fill's table forms in one process (bppring, stop 49): stop 48's whole aligned tables against
the rings, calls alternating, best of REPEATS, at 23 x 50 and 23 x 100 on one thread and two, as a spare
runs it (bioaccel.cli.serve_warm.reserve_memory first); the logs asserted ==.

    flock /tmp/bioaccel-cpu-timing.lock python3 bench/bppart_fill_forms49.py 11 out.json
"""
import json, os, sys, time
import numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bioaccel.cli.serve_warm import reserve_memory
print("reserved", reserve_memory())
from bppart import QUERY, target_of
from bioaccel.inputs.alphabet import encode
from bioaccel.interact import PartitionParams
from bioaccel.runtime.parallel import threads
from bioaccel.interact import _partition_blocked_queue as q
forms = {"aligned (today)": dict(tables=q.aligned_tables), "ring": dict(tables=q.ring_tables)}
repeats = int(sys.argv[1]) if len(sys.argv) > 1 else 9
out = sys.argv[2] if len(sys.argv) > 2 else None
w = PartitionParams().weights()
a = encode(QUERY)
rows = []
load0 = os.getloadavg()
print("load before", load0, flush=True)
for count in (1, 2):
    with threads(count):
        for n in (50, 100):
            rb = np.ascontiguousarray(encode(target_of(n))[::-1])
            times = {f: [] for f in forms}
            logs = {}
            for f, t in forms.items():
                logs[f] = q.fill_partition_queued(a, rb, w, 0.3, 0.2, **t)
            for _ in range(repeats):
                for f, t in forms.items():
                    s = time.perf_counter()
                    r = q.fill_partition_queued(a, rb, w, 0.3, 0.2, **t)
                    times[f].append(time.perf_counter() - s)
                    assert r == logs["aligned (today)"]
            best = {f: min(v) for f, v in times.items()}
            row = {"threads": count, "pair": f"{len(QUERY)} x {n}", "best": best, "times": times,
                   "ratio": {f: best["aligned (today)"] / best[f] for f in forms}, "log": logs["ring"][0], "load": os.getloadavg()}
            rows.append(row)
            print(count, n, {f: f"{v:.4f} ({best['aligned (today)'] / v:.3f}x)" for f, v in best.items()}, row["load"], flush=True)
load1 = os.getloadavg()
print("load after", load1)
if out:
    json.dump({"load_before": load0, "load_after": load1, "repeats": repeats, "rows": rows}, open(out, "w"), indent=1)
