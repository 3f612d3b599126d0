"""BPMax on the GPU: where a block of the segment finish (kernels/bpmax.cu, bpmax_finish_roles: finish forms 5
and up) spends its cycles, on Gildemaster 2021's shape (23 x 20,000 nt, target window 128).

The kernel is built once more with BPMAX_FINISH_CLOCKS: thread 0 of each of the first 132 blocks of a launch (one
wave, a block an SM) records clock64() at the block's barriers. One launch is read back (--launch, from 0: the
finish of level l1 = launch + 1). Printed per setting, medians over the 132 blocks in cycles: the segment's read,
the groups' first phases (bulk threads only), the groups' rest (bulk splits of the next group beside the tails),
the store, the whole block; and those of every --every-th group, with (groups of 8 diagonals) the cycles from a
group's start to thread 0 (a bulk thread) and to the first tail thread reaching its first-phase barrier (who the
barrier waits for: issue 29, bpmaxpipe; brought back for form 14 by bpmaxsplit).

    python3 bench/bpmax_finish_clocks.py [--settings 5:4,6:4,6:8] [--launch 11] [--json PATH]
"""
import argparse
import os
import random
import sys
from dataclasses import replace

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from _results import save_json  # noqa: E402

BLOCKS, SLOTS, READY = 132, 136, 40   # kernels/bpmax.cu: CLOCK_BLOCKS, CLOCK_SLOTS, CLOCK_READY


class Clocked:
    """A finish kernel built with BPMAX_FINISH_CLOCKS that keeps the clocks of its launch number ``at``."""

    def __init__(self, function, module, at, found):
        object.__setattr__(self, "parts", (function, module, at, found, [0]))

    def __setattr__(self, name, value):   # max_dynamic_shared_size_bytes, set by _gpu_finish.finisher
        setattr(self.parts[0], name, value)

    def __call__(self, grid, block, args, **options):
        import cupy as cp

        function, module, at, found, count = self.parts
        function(grid, block, args, **options)
        if count[0] == at:
            cp.cuda.Device().synchronize()
            pointer = module.get_global("finish_clocks")
            found.append((grid[0], cp.ndarray((BLOCKS * SLOTS,), cp.int64, memptr=pointer).get()))
        count[0] += 1


def phases(clocks, groups):
    """Per block: (read, first phases, rest, store, whole) and per group (first phase, rest, bulk ready, tails ready),
    in cycles (the last two 0 where the kernel recorded none)."""
    c = clocks.reshape(BLOCKS, SLOTS).astype(np.float64)
    ends = [c[:, 3 + 2 * i] for i in range(groups)]
    starts = [c[:, 1]] + ends[:-1]
    # a form without a first phase of its own (bpmaxfin2's reverted form 7) leaves slot 2 + 2 i at 0
    marks = [np.where(c[:, 2 + 2 * i] > 0, c[:, 2 + 2 * i], starts[i]) if i else starts[0] for i in range(groups)]
    first = [marks[i] - starts[i] for i in range(groups)]
    rest = [ends[i] - marks[i] for i in range(groups)]
    whole = dict(read=c[:, 1] - c[:, 0], first_phases=sum(first), rests=sum(rest), store=c[:, SLOTS - 1] - c[:, SLOTS - 2],
                 block=c[:, SLOTS - 1] - c[:, 0])
    ready = [[np.where(c[:, READY + 2 * i + j] > 0, c[:, READY + 2 * i + j] - starts[i], 0) if i and
              READY + 2 * i + 1 < SLOTS - 2 else np.zeros(BLOCKS) for j in (0, 1)] for i in range(groups)]
    return ({k: float(np.median(v)) for k, v in whole.items()},
            [(float(np.median(f)), float(np.median(r)), float(np.median(b)), float(np.median(t)))
             for f, r, (b, t) in zip(first, rest, ready)])


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--settings", default="5:4,6:4,6:8", help="finish_form:finish_diagonals, comma-separated")
    parser.add_argument("--launch", type=int, default=11, help="which finish launch to read (from 0)")
    parser.add_argument("--every", type=int, default=4, help="print every n-th group")
    parser.add_argument("--json", default=os.path.join(HERE, "results", "bpmax_finish_clocks.json"))
    args = parser.parse_args(argv)
    import cupy as cp

    from bioaccel.interact import InteractParams, _gpu, _gpu_finish
    from bioaccel.interact._gpu_launch import SIZES
    from bioaccel.interact._strands import strand_band
    from bioaccel.runtime.gpu import load_module
    from bioaccel.runtime.launch import expression
    from bpmax_gpu import random_codes

    params = InteractParams(window_target=128)
    rng = random.Random(5)
    a, rb = random_codes(rng, 23), random_codes(rng, 20_000)
    S1 = strand_band(a, params.fold_params, params.spans(23, 20_000)[0])
    Wb = params.spans(23, 20_000)[1]
    real, rows = _gpu_finish.kernel, []
    for setting in args.settings.split(","):
        form, G = (int(x) for x in setting.split(":"))
        found = []

        def clocked(name, *arguments):
            if name != "bpmax_finish_roles":
                return real(name, *arguments)
            e = expression(name, arguments)
            module = load_module(_gpu_finish.KERNELS, "bpmax.cu", (e,), ("-DBPMAX_FINISH_CLOCKS",))
            return Clocked(module.get_function(e), module, args.launch, found)

        _gpu_finish.kernel = clocked
        try:
            _gpu.window_scores(a, S1, [rb], params, sizes=replace(SIZES, finish_form=form, finish_diagonals=G))
        finally:
            _gpu_finish.kernel = real
        grid, clocks = found[0]   # the launch of the first finisher the fill made
        groups = len(range(1, Wb, G))
        whole, by_group = phases(clocks, groups)
        rows.append(dict(finish_form=form, finish_diagonals=G, launch=args.launch, blocks=grid, **whole,
                         groups=by_group))
        print(f"form {form}, {G} diagonals, launch {args.launch} ({grid} blocks): " +
              ", ".join(f"{k} {v:,.0f}" for k, v in whole.items()), flush=True)
        print("  group: first phase / rest (bulk, tails ready)  " + "  ".join(
            f"{i}: {f:,.0f}/{r:,.0f} ({b:,.0f}, {t:,.0f})" for i, (f, r, b, t) in enumerate(by_group)
            if i % args.every == 0), flush=True)
    print(f"## cycles a block (medians of the first {BLOCKS} blocks) on "
          f"{cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}")
    save_json(rows, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
