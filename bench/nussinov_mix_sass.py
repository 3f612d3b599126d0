"""SASS counts of the tiled fill's interior products with part of their adds on the FMA pipe (issue 29, helper nbmix),
no GPU needed: nvcc -arch=sm_90 -cubin of tiled_bulk_rows<lanes, 128, 2, 128> for Int16x2Pre and FmaMix<Int16x2Pre, W>
(W of a thread's 32 accumulator words in the IMAD.IADD + VIMNMX3 form; kernels/nussinov_tiled.cu), nvdisasm -c, then
the inner loop's (the loop with the most max-plus instructions: dup_stage) instructions by pipe per 64 updates, and
ptxas's registers and spill bytes.

Pipes (Hopper; the DPX, the three-input maximum and the integer logic issue on the ALU pipe, half a warp instruction
a cycle a scheduler; IMAD on the FMA pipe): ALU (VIADDMNMX, VIMNMX3, VIMNMX, LOP3, IADD3, VIADD, PRMT, ISETP, SEL,
SHF, LEA, MOV), FMA (IMAD*), MIO (LDS, STS, BAR, SYNCS), other. Updates: 2 a VIADDMNMX.S16x2, 4 a VIMNMX3.S16x2.

    PATH=/usr/local/bin:$PATH PYTHONPATH=src:tests python3 bench/nussinov_mix_sass.py --words 0,8,12,16 \\
        --json docs/results/nbmix/nussinov_mix_sass.json
"""
import argparse
import collections
import re
import sys
import tempfile

from _results import save_json
from bpmax_finish_sass import BACK, parse

ALU = {"VIADDMNMX", "VIMNMX3", "VIMNMX", "LOP3", "IADD3", "VIADD", "PRMT", "ISETP", "SEL", "SHF", "LEA", "MOV"}
MIO = {"LDS", "STS", "BAR", "SYNCS"}


def opcode(text: str) -> str:
    """The opcode of one SASS instruction, its guard and modifiers dropped.

    >>> opcode("@!P0 VIADDMNMX.S16x2 R1, R2, R3, R4, !PT"), opcode("IMAD.IADD R1, R2, 0x1, R3")
    ('VIADDMNMX', 'IMAD')
    """
    return re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]


def pipe(op: str) -> str:
    """The pipe an opcode issues to (see the module's docstring).

    >>> [pipe(o) for o in ("VIMNMX3", "IMAD", "LDS", "BRA")]
    ['ALU', 'FMA', 'MIO', 'other']
    """
    return "ALU" if op in ALU else "FMA" if op == "IMAD" else "MIO" if op in MIO else "other"


def updates(ops) -> int:
    """Max-plus updates of int16x2 instructions: 2 a DPX, 4 a three-input maximum of two packed sums.

    >>> updates(["VIADDMNMX", "VIMNMX3", "IMAD"])
    6
    """
    return sum(2 if op == "VIADDMNMX" else 4 if op == "VIMNMX3" else 0 for op in ops)


def inner_loop(instructions, labels) -> list:
    """The opcodes of the loop (a branch back to an earlier label) with the most updates."""
    at = {address: index for index, (address, _) in enumerate(instructions)}
    best = []
    for index, (address, text) in enumerate(instructions):
        back = BACK.search(text)
        if back and labels.get(back.group(1), address + 1) <= address:
            ops = [opcode(t) for _, t in instructions[at[labels[back.group(1)]]:index + 1]]
            if updates(ops) > updates(best):
                best = ops
    return best


def build(words: int, nvdisasm, folder: str) -> dict:
    """The inner loop's counts per 64 updates, registers and spills of the interior products with ``words`` mixed."""
    from host_kernels import PACKAGE, disassemble

    lanes = f"FmaMix<Int16x2Pre,{words}>" if words else "Int16x2Pre"
    expression = f"tiled_bulk_rows<{lanes},128,2,128>"
    sass, ptxas = disassemble(PACKAGE / "fold" / "kernels" / "nussinov_tiled.cu", [expression], folder, nvdisasm)
    ops = inner_loop(*parse(sass))
    scale = 64 / updates(ops)
    by_op = collections.Counter(ops)
    by_pipe = collections.Counter(pipe(op) for op in ops)
    registers = re.search(r"Used (\d+) registers", ptxas)
    spill = re.search(r"(\d+) bytes spill stores", ptxas)
    return dict(kernel=expression, mixed_words=words, loop_updates=updates(ops), loop_instructions=len(ops),
                per_64_updates={k: round(v * scale, 2) for k, v in sorted(by_op.items(), key=lambda kv: -kv[1])},
                pipes_per_64_updates={k: round(by_pipe.get(k, 0) * scale, 2) for k in ("ALU", "FMA", "MIO", "other")},
                registers=int(registers.group(1)), spill_stores=int(spill.group(1)))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvdisasm", default=None, help="nvdisasm's path (default: on PATH, else /tmp/nvdis's)")
    parser.add_argument("--words", default="0,8,12,16", help="mixed accumulator words of 32 (0: Int16x2Pre)")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        results = [build(int(w), args.nvdisasm, folder) for w in args.words.split(",")]
    print("| mixed words of 32 | ALU / 64 updates | FMA | MIO | other | VIADDMNMX | VIMNMX3 | IMAD | registers | spills |")
    print("|---" * 10 + "|")
    for r in results:
        p, o = r["pipes_per_64_updates"], r["per_64_updates"]
        print(f"| {r['mixed_words']} | {p['ALU']} | {p['FMA']} | {p['MIO']} | {p['other']} | {o.get('VIADDMNMX', 0)} "
              f"| {o.get('VIMNMX3', 0)} | {o.get('IMAD', 0)} | {r['registers']} | {r['spill_stores']} |")
    for r in results:
        print(r["kernel"], r["per_64_updates"])
    if args.json:
        save_json(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
