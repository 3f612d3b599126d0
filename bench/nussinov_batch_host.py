"""The batch fold's host work before its first launch, on the CPU (issue 29, helper nbhost2): fold_packed on a
stand-in for CuPy (tests/batch_host_stand_in.py: NumPy arrays, kernels that do nothing, every device operation
logged), so that what it times is the Python and NumPy work of fold/_gpu_batch.py and fold/_gpu_batch_tiled.py
alone; CuPy's own calls (allocations, copies, launches: each some microseconds on the device's host) are
counted, not timed. For each setting (``h1``: a kept plan's upload kept on the device, the default; ``h0``: made
again by each fold) the batch (``--rows``, as bench/nussinov_gpu.py makes them) is folded ``--repeats`` times
(check=False) after one fold that plans it, and the table gives the median host time from the call to the
first launch and to the return, and the device operations queued before the first launch. The stand-in's
allocations come from a pool of its own (the same array back for the same shape, as CuPy's pool hands back a
freed block), so that NumPy's mapping of a 2 GB table is not timed.

    python3 bench/nussinov_batch_host.py [--rows 2000x1000] [--repeats 200] [--json PATH]
"""
import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
sys.path.insert(0, str(HERE.parent / "tests"))
sys.path.insert(0, str(HERE))

from batch_host_stand_in import StandInCupy, stand_in  # noqa: E402
from bioaccel.fold import FoldParams, _gpu_batch  # noqa: E402
from bioaccel.fold._arrays import encode_packed  # noqa: E402
from nussinov_gpu import random_batch  # noqa: E402

PARAMS = FoldParams()


def pooled(cp: StandInCupy) -> None:
    """Give ``cp`` a pool: ``empty`` hands back the array it made before for the same shape and type.

    >>> cp = StandInCupy(); pooled(cp); cp.empty(3, np.int16) is cp.empty(3, np.int16)
    True
    """
    plain, pool = cp.empty, {}

    def empty(shape, dtype=np.float64):
        key = (shape if isinstance(shape, tuple) else (int(shape),), np.dtype(dtype).str)
        if key not in pool:
            pool[key] = plain(shape, dtype)
        return pool[key]

    cp.empty = empty


def time_setting(codes, starts, keep: bool, repeats: int) -> dict:
    """Median host seconds from the call to the first launch and to the return, and the operations before the
    first launch, of ``repeats`` folds of one batch with KEEP_UPLOADS = ``keep``."""
    _gpu_batch.KEEP_UPLOADS = keep
    firsts, returns, before = [], [], []
    with stand_in() as cp:
        pooled(cp)
        codes_dev = cp.asarray(codes)
        _gpu_batch.fold_packed(codes_dev, starts, PARAMS, check=False)          # planned (and kept) here
        for _ in range(repeats):
            cp.log.clear()
            cp.first_launch = None
            called = time.perf_counter()
            _gpu_batch.fold_packed(codes_dev, starts, PARAMS, check=False)
            returned = time.perf_counter()
            firsts.append(cp.first_launch - called)
            returns.append(returned - called)
            kinds = [op[0] for op in cp.log]
            before.append(kinds[:kinds.index("launch")])
    _gpu_batch.KEEP_UPLOADS = True
    return {"setting": "h1" if keep else "h0", "call_to_first_launch_s": float(np.median(firsts)),
            "call_to_return_s": float(np.median(returns)), "first_launch_runs_min_s": float(np.min(firsts)),
            "before_first_launch": before[-1], "launches": kinds.count("launch")}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rows", default="2000x1000")
    ap.add_argument("--settings", default="h0,h1,h0,h1")
    ap.add_argument("--repeats", type=int, default=200)
    ap.add_argument("--json", default="")
    args = ap.parse_args()
    count, n = (int(x) for x in args.rows.split("x"))
    codes, starts = encode_packed(random_batch(count, n, seed=count + n))
    rows = [time_setting(codes, starts, s == "h1", args.repeats) for s in args.settings.split(",")]
    print(f"{args.rows}, stand-in CuPy (host Python and NumPy only), median of {args.repeats} folds, "
          f"{os.cpu_count()} cores, load {os.getloadavg()[0]:.2f}")
    print("| setting | call to first launch (us) | least (us) | call to return (us) | launches "
          "| queued before the first launch |")
    print("|---|---:|---:|---:|---:|---|")
    for r in rows:
        print(f"| {r['setting']} | {r['call_to_first_launch_s'] * 1e6:.1f} | {r['first_launch_runs_min_s'] * 1e6:.1f}"
              f" | {r['call_to_return_s'] * 1e6:.1f} | {r['launches']}"
              f" | {', '.join(r['before_first_launch']) or '-'} |")
    if args.json:
        Path(args.json).write_text(json.dumps({"rows": args.rows, "repeats": args.repeats, "settings": rows}, indent=1))


if __name__ == "__main__":
    main()
