"""SASS counts of the products' stage in bpmax_products_pairs (kernels/bpmax.cu), STAGE 4 (cp.async by every thread)
against STAGE 5 (bulk copies by one warp's lanes onto an mbarrier), no GPU needed (issue 29, helper bpmaxtma).

nvcc -arch=sm_90 -cubin of the production instantiation (tests/host_kernels.py's disassemble), nvdisasm -c, then the
warp instructions one warp executes from the top of the stage loop (for kc) to the block's wait (STAGE 4: the
BAR.SYNC after cp.async's wait; STAGE 5: the mbarrier's try_wait), along a path fixed by the branch decisions in
PATHS (a full stage, NV = KC / 8 = 12 vectors a row, every run inside the band: no sentinel), by class; and the
group loop's body for scale. The paths' branch addresses are those of nvcc 13.0's build at this commit: a
different build moves them, and the walk then stops with an error at the first branch it has no decision for.

    PATH=/usr/local/bin:$PATH PYTHONPATH=src:tests python3 bench/bpmax_tma_sass.py \\
        --json docs/results/bpmax_tma_sass.json
"""
import argparse
import collections
import re
import sys
import tempfile

from _results import save_json
from bpmax_finish_sass import BACK, loops, parse

SHAPE = "32, 32, 96, 2, 2, {stage}, 8"   # the production's bpmax_products_pairs<TR, TC, KC, P, STEP, STAGE, BLOCKS>
COPY = {"LDGSTS", "UBLKCP"}
SYNC = {"BAR", "DEPBAR", "LDGDEPBAR", "SYNCS", "MEMBAR", "FENCE"}
BRANCH = {"BRA", "BSSY", "BSYNC", "BREAK"}
UNIFORM = {"ELECT", "R2UR", "S2UR"}
#: integer opcodes of the ALU pipe (the DPX's; an assumption from their kind, not read off a profile) and of the FMA
#: pipe (IMAD and its forms); the rest of the arithmetic (VIADD, uniform-datapath U* ops, ...) counted apart
ALU = {"IADD3", "LOP3", "ISETP", "SEL", "SHF", "LEA", "VIMNMX", "VIADDMNMX", "PLOP3", "PRMT", "MOV", "IMNMX"}
FMA = {"IMAD"}
#: per kernel and role: {branch address: decisions in turn (True: taken), the last repeated}
PATHS = {
    4: {   # every thread: A's 3 vectors (the remainder blocks), B's pair rows: warps 0-1 two items, warps 2-3 one
        "warps 0 and 1 (two B items a thread)": {0x3a10: [False], 0x3b60: [False], 0x3c90: [False], 0x3dc0: [False],
                                                  0x3f00: [True], 0x4310: [False], 0x4540: [False], 0x4720: [False],
                                                  0x48c0: [True], 0x4a70: [True]},
        "warps 2 and 3 (one B item a thread)": {0x3a10: [False], 0x3b60: [False], 0x3c90: [False], 0x3dc0: [False],
                                                 0x3f00: [True], 0x4310: [False], 0x4540: [False], 0x4720: [True],
                                                 0x4a70: [True]},
    },
    5: {
        "warps 0, 2 and 3 (waiting only)": {0x3ac0: [True], 0x4c60: [False]},
        # lanes: A rows 0-31 (one copy each), B pair rows 0-31 and 32-47 (one copy each): the compiler's ELECT loop
        # (BRA.U.ANY) issues one lane's copy an iteration, 32, 32 and 16 iterations
        "warp 1 (issuing)": {0x3ac0: [False], 0x3ee0: [True], 0x3fb0: [True], 0x42c0: [True], 0x43a0: [True],
                             0x4480: [True], 0x4560: [True], 0x4640: [False], 0x47e0: [True] * 31 + [False],
                             0x4810: [False], 0x49d0: [True] * 31 + [False], 0x49f0: [False],
                             0x4bd0: [True] * 15 + [False], 0x4c60: [False]},
    },
}


def op_class(text: str) -> str:
    """The class of one SASS instruction (its predicate guard ignored).

    >>> [op_class(t) for t in ("@P0 LDGSTS.E.BYPASS.128 [R1], desc[UR4][R2.64]", "BAR.SYNC.DEFER_BLOCKING 0x0",
    ...                        "@!P0 BRA `(.L_x_1)", "STS.128 [R1], R4", "@P0 ELECT P1, URZ, PT", "IMAD R1, R2, 0x4, R3",
    ...                        "ISETP.GE.AND P0, PT, R1, R2, PT", "VIADD R1, R1, 0x1")]
    ['copy', 'sync', 'branch', 'STS', 'uniform', 'FMA', 'ALU', 'other']
    """
    op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]
    if op in COPY:
        return "copy"
    if op in SYNC:
        return "sync"
    if op in BRANCH:
        return "branch"
    if op in UNIFORM:
        return "uniform"
    if op in ALU:
        return "ALU"
    return "FMA" if op in FMA else op if op in ("STS", "LDS") else "other"


def walk(instructions, labels, start: int, stop, decisions: dict) -> list:
    """The instructions executed from index ``start`` until ``stop(text)`` holds (that one included), taking each
    conditional branch as ``decisions`` says (unconditional ones always)."""
    at = {address: index for index, (address, _) in enumerate(instructions)}
    visits, path, index = collections.Counter(), [], start
    while True:
        address, text = instructions[index]
        path.append(text)
        if stop(text):
            return path
        branch = re.search(r"BRA(?:\.U\.ANY)?\s+`\((\.L_x_\d+)\)", text)
        if branch:
            conditional = text.startswith("@")
            if conditional and address not in decisions:
                raise SystemExit(f"no decision for the branch at {address:#x}: {text}")
            turn = decisions.get(address, [True])
            taken = not conditional or turn[min(visits[address], len(turn) - 1)]
            visits[address] += 1
            if taken:
                index = at[labels[branch.group(1)]]
                continue
        index += 1


def sections(path) -> list:
    """The path's instruction counts between its section marks, each mark closing a section: cp.async's commits
    (LDGDEPBAR: STAGE 4's A rows, then B's pair rows) and the mbarrier's arrival (SYNCS.ARRIVE: STAGE 5's bounds
    and sentinels, before its copies); the last section runs to the wait.

    >>> sections(["IMAD", "LDGDEPBAR", "ISETP", "BRA", "LDGDEPBAR", "BAR.SYNC"])
    [2, 3, 1]
    """
    marks = [i + 1 for i, text in enumerate(path) if "LDGDEPBAR" in text or "SYNCS.ARRIVE" in text]
    bounds = [0, *marks, len(path)]
    return [b - a for a, b in zip(bounds, bounds[1:]) if b > a]


def build(stage: int, folder: str, nvdisasm=None) -> dict:
    """nvcc and nvdisasm of the production bpmax_products_pairs at ``stage``: each role's stage path, the group
    loop, registers and shared memory."""
    from host_kernels import PACKAGE, disassemble

    expression = f"bpmax_products_pairs<{SHAPE.format(stage=stage)}>"
    sass, ptxas = disassemble(PACKAGE / "interact" / "kernels" / "bpmax.cu", [expression], folder, nvdisasm)
    mangled = f"_Z20bpmax_products_pairsILi32ELi32ELi96ELi2ELi2ELi{stage}ELi8E"
    sass = sass[sass.index(f".text.{mangled}"):]
    instructions, labels = parse(sass)
    group = min((loop for loop in loops(instructions, labels, 64) if loop.get("DPX")), key=lambda loop: loop["total"])
    group_start = int(group["start"], 16)
    outer = [loop for loop in loops(instructions, labels, 64)
             if int(loop["start"], 16) < group_start and int(loop["end"], 16) > int(group["end"], 16)]
    stage_top = max(int(loop["start"], 16) for loop in outer)   # the innermost loop around the group loop: for kc
    start = next(i for i, (address, _) in enumerate(instructions) if address == stage_top)
    waits = ("BAR.SYNC", "SYNCS.PHASECHK")
    roles = {}
    for role, decisions in PATHS[stage].items():
        path = walk(instructions, labels, start, lambda text: any(w in text for w in waits) and not
                    BACK.search(text), decisions)
        if "SYNCS.PHASECHK" in path[-1]:
            path.append("@!P0 BRA (the try_wait's loop, once)")
        roles[role] = dict(collections.Counter(op_class(t) for t in path), total=len(path),
                           sections=sections(path))
    usage = re.search(rf"{mangled}.*?Used (\d+) registers.*?(\d+) bytes smem", ptxas, re.S)
    return dict(kernel=expression, stage_top=hex(stage_top), roles=roles,
                group_loop=dict(start=group["start"], end=group["end"], total=group["total"], DPX=group["DPX"]),
                registers=int(usage.group(1)), shared_bytes=int(usage.group(2)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvdisasm", default=None, help="nvdisasm's path (default: on PATH, else /tmp/nvdis's)")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        results = [build(stage, folder, args.nvdisasm) for stage in (4, 5)]
    keys = ("total", "copy", "ALU", "FMA", "other", "STS", "LDS", "uniform", "branch", "sync")
    print("| kernel | role | warps | " + " | ".join(keys) + " | sections |\n" + "|---" * (len(keys) + 4) + "|")
    for result in results:
        for role, counts in result["roles"].items():
            warps = 3 if "0, 2" in role else 2 if "0 and 1" in role or "2 and 3" in role else 1
            print(f"| STAGE {result['kernel'].split(',')[5].strip()} | {role} | {warps} | "
                  + " | ".join(str(counts.get(k, 0)) for k in keys) + " | "
                  + " + ".join(str(n) for n in counts["sections"]) + " |")
    for result in results:
        print(f"# {result['kernel']}: {result['registers']} registers, {result['shared_bytes']} bytes shared; "
              f"stage loop at {result['stage_top']}; group loop {result['group_loop']}")
    if args.json:
        save_json(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
