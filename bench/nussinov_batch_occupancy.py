"""Blocks an SM of the short-RNA batch kernels (issue 29, nb5blk: x2t against x2t5, its traceback stack in the
row copy; nbwarp: x2t5 against x2t5w, its walk by one warp) as the driver places them, and a check that the second
kernel of --kernels folds as the first does, bit for bit.

For each kernel and cell type: registers, static and dynamic shared memory at --length, the driver's blocks an
SM (cuOccupancyMaxActiveBlocksPerMultiprocessor with the block width the host launches) beside
fold/_batch_shapes.py blocks_per_sm's count from the device's own SM and reserved bytes, and the longest length
at which the driver still places five blocks. With --check N: N random RNAs of 2 to 256 nt folded by
``nussinov_batch(backend="gpu")`` under each kernel; the scores and dot-brackets must be equal (exit 1 if not).
On the device:

    python3 bench/nussinov_batch_occupancy.py --check 20000 --json $OUT/occupancy.json
    python3 bench/nussinov_batch_occupancy.py --kernels x2t5,x2t5w --check 3000
"""
import argparse
import json
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from bioaccel.fold import _batch_shapes, _gpu_batch, _launch  # noqa: E402

def occupancy(cp, name, cell, n, sizes):
    """``(registers, static bytes, dynamic bytes, the driver's blocks an SM)`` of kernel ``name`` at n nt."""
    f = _gpu_batch._short_kernel(name, cell, sizes)
    shared = _batch_shapes.short_shared_bytes(name, n, cell)
    threads = int(_batch_shapes.short_threads(name, np.array([n]), sizes)[0])
    f.max_dynamic_shared_size_bytes = max(shared, f.max_dynamic_shared_size_bytes)
    handle = f.kernel.ptr                       # (the RawKernel's cupy.cuda.Function on this device)
    blocks = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(handle, threads, shared)
    return f.num_regs, f.shared_size_bytes, shared, blocks


def check(count, kernels):
    """Whether the second of ``kernels`` gives the first's scores and dot-brackets on ``count`` random RNAs of 2
    to 256 nt."""
    from bioaccel.fold import nussinov_batch

    rng = random.Random(count)
    seqs = ["".join(rng.choice("ACGUN") for _ in range(rng.randint(2, 256))) for _ in range(count)]
    seqs += ["GC" * 100, "G" * 100 + "C" * 100]
    results = {}
    default = _gpu_batch.SHORT_KERNEL
    for name in kernels:
        _gpu_batch.SHORT_KERNEL = name
        results[name] = nussinov_batch(seqs, backend="gpu")
    _gpu_batch.SHORT_KERNEL = default
    old, new = (results[name] for name in kernels)
    return bool(np.array_equal(old.scores, new.scores) and np.array_equal(old.structures, new.structures))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--length", type=int, default=200)
    parser.add_argument("--check", type=int, default=0, help="random RNAs folded by both kernels, compared")
    parser.add_argument("--kernels", default="x2t,x2t5", help="two SHORT_KERNELS names: old,new")
    parser.add_argument("--json", default="")
    args = parser.parse_args()
    kernels = args.kernels.split(",")
    import cupy as cp

    sizes = _launch.SIZES
    props = cp.cuda.runtime.getDeviceProperties(cp.cuda.Device().id)
    sm_bytes, reserved = int(props["sharedMemPerMultiprocessor"]), int(props.get("reservedSharedMemPerBlock", 1024))
    print(f"{props['name'].decode()}: {sm_bytes} B shared an SM, {reserved} B reserved a block, "
          f"{int(props['sharedMemPerBlockOptin'])} B a block at most", flush=True)
    rows = []
    for name in kernels:
        for cell in ("signed char", "short"):
            try:
                regs, static, dynamic, blocks = occupancy(cp, name, cell, args.length, sizes)
                five = [n for n in range(2, sizes.batch_shared_max + 1) if occupancy(cp, name, cell, n, sizes)[3] >= 5]
            except Exception as exc:            # (a diagnostic: the check below still runs)
                print(f"  {name} {cell}: the driver's count failed: {type(exc).__name__}: {exc}", flush=True)
                continue
            model = _batch_shapes.blocks_per_sm(dynamic, static, sm_bytes, reserved)
            rows.append({"kernel": name, "cell": cell, "n": args.length, "registers": regs, "static_bytes": static,
                         "dynamic_bytes": dynamic, "blocks_per_sm": blocks, "blocks_per_sm_model": model,
                         "longest_n_with_5_blocks": max(five) if five else None})
            print(f"  {name:>5} {cell:>11} at {args.length} nt: {regs} registers, {static} B static + {dynamic} B "
                  f"dynamic: {blocks} blocks an SM (model {model}); five blocks up to "
                  f"{rows[-1]['longest_n_with_5_blocks']} nt", flush=True)
    payload = {"device": props["name"].decode(), "sm_shared_bytes": sm_bytes, "reserved_bytes": reserved,
               "kernels": rows}
    if args.check:
        payload["same_bits"] = check(args.check, kernels)
        print(f"  {kernels[1]} against {kernels[0]} on {args.check} random RNAs of 2-256 nt: "
              f"{'the same bits' if payload['same_bits'] else 'DIFFERENT'}", flush=True)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(payload, fh, indent=1)
    return 0 if payload.get("same_bits", True) else 1


if __name__ == "__main__":
    sys.exit(main())
