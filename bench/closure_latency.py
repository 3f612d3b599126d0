"""Latencies of the closure step's instructions on the device (issue 29, helper nbstep2), for
bench/closure_step_model.py, which guessed them (DPX and ALU 4 to 8 cycles, LDS 30, SHFL 25).

bench/closure_latency.cu: one warp runs 256 dependent instructions of one kind a round (chain_latency<OP>), rounds
times, between two clock64 reads (LDS.128's in loops of 16, and an IMAD chain so for what the loop adds); cycles an instruction = the clocks / (rounds x 256), the minimum and median of
--repeats launches. A table, and a JSON whose "latency" maps the model's opcodes to the medians:

    python3 bench/closure_latency.py --json docs/results/closure_latency_nbstep2_h200.json

--sass (no GPU: nvcc and nvdisasm here) prints each chain's opcodes, to check that a chain is what it names.
"""
import argparse
import collections
import os
import re
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from _results import save_json  # noqa: E402

SOURCE = os.path.join(HERE, "closure_latency.cu")
CHAIN = 256
# chain_latency<OP>: (name in the table, the model's opcodes it stands for)
CHAINS = [("VIADDMNMX.S16x2", ("VIADDMNMX.S16x2",)), ("VIADDMNMX", ("VIADDMNMX",)),
          ("VIMNMX3", ("VIMNMX3", "VIMNMX")), ("PRMT", ("PRMT", "SHF", "LOP3", "SEL")), ("IMAD", ("IMAD", "IADD3", "VIADD")),
          ("SHFL.DOWN", ("SHFL",)), ("LDS", ("LDS",)), ("LDS.128, a loop of 16", ()), ("STS -> LDS", ()),
          ("IMAD, a loop of 16", ())]


def expressions() -> list:
    """The kernels' name expressions, one a chain.

    >>> expressions()[:2]
    ['chain_latency<0>', 'chain_latency<1>']
    """
    return [f"chain_latency<{op}>" for op in range(len(CHAINS))]


def opcode_counts(sass: str) -> dict:
    """Per kernel of nvdisasm's text, its opcodes by count (the most common first).

    >>> opcode_counts(".text._Z1fv:\\n  /*0000*/   IMAD R1, R1, R2, R3 ;\\n  /*0010*/   @P0 IMAD R1, R1, R2, R3 ;\\n")
    {'_Z1fv': [('IMAD', 2)]}
    """
    parts = re.split(r"\.text\.(\S+):", sass)
    out = {}
    for name, body in zip(parts[1::2], parts[2::2]):
        found = [re.sub(r"^\s*/\*[0-9a-f]+\*/\s*(@!?P\d\s+)?", "", line).split()[0]
                 for line in body.splitlines() if re.search(r"/\*[0-9a-f]{4,}\*/", line)]
        out[name] = collections.Counter(op.rstrip(";") for op in found).most_common()
    return out


def sass_report() -> int:
    """Each chain's three most common opcodes, from a local nvcc and nvdisasm (no GPU)."""
    import subprocess
    import tempfile
    from pathlib import Path

    from host_kernels import nvcc_build

    with tempfile.TemporaryDirectory() as folder:
        cubin, proc = nvcc_build(Path(SOURCE), expressions(), folder, "cubin")
        if proc.returncode:
            print(proc.stderr)
            return 1
        nvdisasm = "nvdisasm" if subprocess.run(["which", "nvdisasm"], capture_output=True).returncode == 0 \
            else "/tmp/nvdis/nvidia/cu13/bin/nvdisasm"
        sass = subprocess.run([nvdisasm, "-c", str(cubin)], capture_output=True, text=True, check=True).stdout
    for name, counts in sorted(opcode_counts(sass).items()):
        print(name, counts[:3])
    return 0


def measure(rounds: int, repeats: int) -> dict:
    """{chain name: (min, median) cycles an instruction} on the device."""
    import cupy as cp

    from bioaccel.runtime import gpu

    gpu.require_gpu()
    module = cp.RawModule(code=open(SOURCE).read(), options=("--std=c++17", f"-arch=sm_{gpu.compute_capability()}"),
                          name_expressions=tuple(expressions()))
    values = cp.asarray([3, -1, 2, 1, 0], dtype=cp.int32)
    cycles, sink = cp.zeros(1, dtype=cp.int64), cp.zeros(32, dtype=cp.int32)
    out = {}
    for (name, _), expression in zip(CHAINS, expressions()):
        function = module.get_function(expression)
        per = []
        for _ in range(repeats):
            function((1,), (32,), (values, cycles, sink, cp.int32(rounds)))
            per.append(int(cycles.get()[0]) / (rounds * CHAIN))
        out[name] = (min(per), statistics.median(per))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--json", default="")
    ap.add_argument("--sass", action="store_true", help="each chain's opcodes (local nvcc, no GPU)")
    args = ap.parse_args()
    if args.sass:
        return sass_report()
    found = measure(args.rounds, args.repeats)
    print(f"{'chain (one warp, dependent)':30s} {'cycles an instruction: min':>27s} {'median':>8s}")
    for name, (low, middle) in found.items():
        print(f"{name:30s} {low:27.2f} {middle:8.2f}")
    latency = {op: round(found[name][1], 1) for name, ops in CHAINS for op in ops}
    # LDS.128's chain runs in a loop of 16 (closure_latency.cu): less what that loop adds to IMAD's
    loop = found["IMAD, a loop of 16"][1] - found["IMAD"][1]
    latency["LDS.128"] = round(found["LDS.128, a loop of 16"][1] - loop, 1)
    print(f"LDS.128 less the loop's {loop:.2f}: {latency['LDS.128']:.1f}")
    if args.json:
        save_json({"chain": CHAIN, "rounds": args.rounds, "repeats": args.repeats,
                   "cycles": {k: {"min": v[0], "median": v[1]} for k, v in found.items()}, "latency": latency},
                  args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
