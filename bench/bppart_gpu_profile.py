"""One 23 x N BPPart windowed call on the GPU (window 128) under launch sizes given as the windows bench's
entry (SHAPE,SWEEP[,sK]), for a profiler (ncu) to pick launches from; prints the call's seconds and
its log Z. Writes no JSON: the profiler's report is the result.

    ncu --clock-control none --kernel-name regex:bppart_band_cross --launch-skip 11 --launch-count 1 \\
        python3 bench/bppart_gpu_profile.py m32x64x32x3x2xF,16xlaunchesxTx4xWxTx3x2
"""
import os
import random
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bppart_gpu import random_rna  # noqa: E402
from bppart_gpu_windows import entry_sizes, timed  # noqa: E402


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    from bioaccel.interact import PartitionParams, bppart
    from bioaccel.interact import _partition_launch

    entry, N = argv[0], int(argv[1]) if len(argv) > 1 else 20000
    rng = random.Random(2028)
    query, target = random_rna(rng, 23), random_rna(rng, N)
    sizes = entry_sizes(_partition_launch.SIZES, entry)
    start = time.perf_counter()
    seconds, rows = timed(sizes, lambda: bppart(query, target, params=PartitionParams(window_target=128), backend="gpu"))
    print(f"{entry} 23 x {N}: {seconds:.3f} s ({time.perf_counter() - start:.3f} s with the process's first launches), "
          f"log Z {rows[0].log_z!r}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
