"""Throughput of the max-plus update c = max(c, a + b) in several instruction forms, on the device (issue 29).

limits.md's int16x2 ceiling (30.8 T updates/s on an H200) is one DPX instruction (VIADDMNMX.S16x2) for two
updates, on the ALU pipe, which issues half a warp instruction a cycle a scheduler. An add on another pipe and a
three-input maximum (VIMNMX3) on the ALU take 1.5 issue slots for two updates but half an ALU slot: if the issue
slots, not the ALU pipe, bound, the update can run past the DPX ceiling. bench/maxplus_forms.cu's forms:

  0  DPX: VIADDMNMX.S16x2, two a cell a step (limits.md's form)
  1  fp16: HADD2 (ptxas spreads them over HADD2 and HFMA2.MMA) and VIMNMX3.S16x2 on the bits
  2  integer: IMAD.IADD of packed words (no carry: lanes non-negative and under 2^15) and VIMNMX3.U16x2
  3  mixed: 6 of a thread's 16 cells as form 0, 10 as form 2
  4  fp16: HADD2 and HMNMX2 (VHMNMX)
  5  mixed: 4 cells as form 0, 12 as form 2
  6  mixed: 8 cells as form 0, 8 as form 2

Each thread runs 4 x 4 cells from shared memory (LDS.128 operands as a register-tiled product reads them);
every form's accumulators are checked equal to form 0's (fp16 forms through their halves' values).

    python3 bench/maxplus_forms.py --json docs/results/maxplus_forms_h200.json
    python3 bench/maxplus_forms.py --sass        # no GPU: each form's opcodes (local nvcc and nvdisasm)
"""
import argparse
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from _results import save_json  # noqa: E402
from _ceilings import INT16X2_DPX  # noqa: E402

SOURCE = os.path.join(HERE, "maxplus_forms.cu")
FORMS = {0: "DPX VIADDMNMX.S16x2", 1: "fp16 HADD2 + VIMNMX3.S16x2", 2: "IMAD.IADD + VIMNMX3.U16x2",
         3: "mixed 6 DPX / 10 IMAD cells", 4: "fp16 HADD2 + HMNMX2", 5: "mixed 4 DPX / 12 IMAD cells",
         6: "mixed 8 DPX / 8 IMAD cells"}
CEILING = INT16X2_DPX
KP, ROWS, CELLS = 32, 64, 16


def expressions() -> list:
    """The kernels' name expressions, one a form.

    >>> expressions()[:2]
    ['maxplus_form<0>', 'maxplus_form<1>']
    """
    return [f"maxplus_form<{form}>" for form in FORMS]


def updates(blocks: int, rounds: int) -> int:
    """Updates one launch does: each thread 16 cells x 2 updates a k-pair x KP k-pairs a round.

    >>> updates(1, 1)
    262144
    """
    return blocks * 256 * CELLS * 2 * KP * rounds


def fp16_lanes_as_int(words):
    """The two fp16 lanes of uint32 words as integers (values are whole numbers), low lane first."""
    import numpy as np

    halves = np.ascontiguousarray(words).view(np.float16).astype(np.float64)
    return halves.astype(np.int64)


def measure(rounds: int, repeats: int, blocks_per_sm: int) -> dict:
    import cupy as cp
    import numpy as np

    from bioaccel.runtime import gpu

    gpu.require_gpu()
    from importlib import resources

    shared = f"-I{resources.files(gpu.SHARED_KERNELS)}"     # dpx.cuh
    module = cp.RawModule(code=open(SOURCE).read(),
                          options=("--std=c++17", f"-arch=sm_{gpu.compute_capability()}", shared),
                          name_expressions=tuple(expressions()))
    rng = np.random.default_rng(7)
    values = rng.integers(0, 500, size=(2, 2 * KP * ROWS * 2)).astype(np.int16)
    ints = [cp.asarray(v.view(np.uint32)) for v in values]
    halfs = [cp.asarray(v.astype(np.float16).view(np.uint32)) for v in values]
    blocks = gpu.multiprocessors() * blocks_per_sm * 4
    out = {}
    reference = None
    for form, expression in zip(FORMS, expressions()):
        function = module.get_function(expression)
        a, b = halfs if form in (1, 4) else ints
        result = cp.zeros(blocks * 256 * CELLS, dtype=cp.uint32)
        function((blocks,), (256,), (a, b, result, cp.int32(rounds)))
        cp.cuda.Device().synchronize()
        host = cp.asnumpy(result)
        lanes = fp16_lanes_as_int(host) if form in (1, 4) else host.view(np.int16).astype(np.int64)
        if reference is None:
            reference = lanes
        same = bool(np.array_equal(lanes, reference))
        times = []
        for _ in range(repeats):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            function((blocks,), (256,), (a, b, result, cp.int32(rounds)))
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        seconds = statistics.median(times)
        rate = updates(blocks, rounds) / seconds
        out[form] = {"name": FORMS[form], "seconds": seconds, "updates_per_s": rate,
                     "of_ceiling": rate / CEILING, "same_as_form_0": same}
    return out


def sass_report() -> int:
    """Each form's six most common opcodes, from a local nvcc and nvdisasm (no GPU)."""
    import tempfile
    from pathlib import Path

    from closure_latency import opcode_counts
    from host_kernels import disassemble

    with tempfile.TemporaryDirectory() as folder:
        sass, _ = disassemble(Path(SOURCE), expressions(), folder)
    for name, counts in sorted(opcode_counts(sass).items()):
        print(name, counts[:6])
    return 0


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=400)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--blocks-per-sm", type=int, default=8)
    ap.add_argument("--json", default="")
    ap.add_argument("--sass", action="store_true")
    args = ap.parse_args()
    if args.sass:
        return sass_report()
    found = measure(args.rounds, args.repeats, args.blocks_per_sm)
    print(f"{'form':4s} {'instructions':32s} {'s':>9s} {'T updates/s':>12s} {'of DPX ceiling':>15s} {'same':>5s}")
    for form, row in found.items():
        print(f"{form:<4d} {row['name']:32s} {row['seconds']:9.5f} {row['updates_per_s'] / 1e12:12.2f} "
              f"{row['of_ceiling']:15.1%} {str(row['same_as_form_0']):>5s}")
    if args.json:
        save_json({"rounds": args.rounds, "repeats": args.repeats, "blocks_per_sm": args.blocks_per_sm,
                   "ceiling": CEILING, "forms": found}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
