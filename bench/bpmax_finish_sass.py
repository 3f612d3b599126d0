"""SASS counts of the segment finish bpmax_finish_roles (kernels/bpmax.cu) by loop and by tail pass, no GPU needed
(issue 29, helper bpmaxunroll): nvcc -arch=sm_90 -cubin of each instantiation (tests/host_kernels.py's nvcc_build),
nvdisasm -c, then

- every loop (a branch back to an earlier label): its instructions by class, and per split where its DPX count is a
  multiple of the group's G (a split is one row word against G column words: G DPX);
- every stretch between two of the tail threads' named barriers (``BAR.SYNC 0x1``): a tail pass and what the
  compiler scheduled beside it;
- ptxas's registers and spill bytes.

Classes: DPX (VIADDMNMX), LDS, STS, value (PRMT, SHF, VIMNMX, VIMNMX3, SEL: halves and maxima), other (address, mask,
predicate and loop work: IMAD, IADD3, LEA, VIADD, ISETP, BRA, BSSY, ...).

    PATH=/usr/local/bin:$PATH PYTHONPATH=src:tests python3 bench/bpmax_finish_sass.py --nvdisasm NVDISASM \\
        --kernels "8,6,896;8,7,896" --json docs/results/bpmax_unroll_sass.json
"""
import argparse
import collections
import re
import sys
import tempfile

from _results import save_json

VALUE = {"PRMT", "SHF", "VIMNMX", "VIMNMX3", "SEL"}
LINE = re.compile(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^\s*(\.L_x_\d+):")
BACK = re.compile(r"BRA\s+(?:!?U?P\w+,\s*)?`\((\.L_x_\d+)\)")


def op_class(text: str) -> str:
    """The class of one SASS instruction (its predicate guard ignored).

    >>> [op_class(t) for t in ("@!P0 LDS R1, [R2+0x4]", "VIADDMNMX.S16x2 R1, R2, R3, R4, !PT", "PRMT R1, R2, 0x1032, RZ",
    ...                        "IMAD R1, R2, 0x4, R3", "STS.U16 [R1], R2")]
    ['LDS', 'DPX', 'value', 'other', 'STS']
    """
    op = re.sub(r"^@!?U?P\w+\s+", "", text).split()[0].split(".")[0]
    if op == "VIADDMNMX":
        return "DPX"
    if op in ("LDS", "STS"):
        return op
    return "value" if op in VALUE else "other"


def parse(sass: str) -> tuple:
    """(instructions as (address, text), {label: address}) of nvdisasm -c output.

    >>> parse(".L_x_1:\\n        /*0010*/                   BRA `(.L_x_1) ;\\n")
    ([(16, 'BRA `(.L_x_1)')], {'.L_x_1': 16})
    """
    instructions, labels, pending = [], {}, []
    for line in sass.splitlines():
        label = LABEL.match(line)
        if label:
            pending.append(label.group(1))
            continue
        found = LINE.match(line)
        if found:
            address = int(found.group(1), 16)
            labels.update((name, address) for name in pending)
            pending = []
            instructions.append((address, found.group(2)))
    return instructions, labels


def counts(texts) -> dict:
    """Instructions by class, and their total.

    >>> counts(["LDS R1, [R2]", "LDS R3, [R2+0x4]", "BRA `(.L_x_0)"])
    {'LDS': 2, 'other': 1, 'total': 3}
    """
    by_class = dict(collections.Counter(op_class(text) for text in texts))
    return {**by_class, "total": len(texts)}


def loops(instructions, labels, G: int) -> list:
    """Every loop body (a branch back to an earlier label) with its counts, per split where its DPX are a multiple
    of G. Nested loops appear whole (an outer body includes its inner loops)."""
    at = {address: index for index, (address, _) in enumerate(instructions)}
    found = []
    for index, (address, text) in enumerate(instructions):
        back = BACK.search(text)
        if back and labels.get(back.group(1), address + 1) <= address:
            start = at[labels[back.group(1)]]
            body = counts([t for _, t in instructions[start:index + 1]])
            splits = body.get("DPX", 0) // G if body.get("DPX", 0) % G == 0 else 0
            found.append(dict(start=hex(instructions[start][0]), end=hex(address), splits=splits,
                              per_split=round(body["total"] / splits, 2) if splits else None, **body))
    return found


def tail_stretches(instructions) -> list:
    """The stretches between consecutive tail barriers (BAR.SYNC 0x1, the tail threads' named barrier), counted."""
    bars = [i for i, (_, text) in enumerate(instructions) if re.search(r"BAR\.SYNC\S*\s+0x1\b", text)]
    return [dict(start=hex(instructions[a][0]), end=hex(instructions[b][0]),
                 **counts([t for _, t in instructions[a:b]])) for a, b in zip(bars, bars[1:])]


def build(G: int, form: int, bound: int, nvdisasm: str, folder: str) -> dict:
    """nvcc and nvdisasm of bpmax_finish_roles<G, form, bound>: its loops, tail stretches, registers and spills."""
    from host_kernels import PACKAGE, disassemble

    expression = f"bpmax_finish_roles<{G}, {form}, {bound}>"
    sass, ptxas = disassemble(PACKAGE / "interact" / "kernels" / "bpmax.cu", [expression], folder, nvdisasm)
    mangled = f"_Z18bpmax_finish_rolesILi{G}ELi{form}ELi{bound}E"
    sass = sass[sass.index(f".text.{mangled}"):]
    sass = sass[:sass.index("//----", 1)] if "//----" in sass[1:] else sass
    instructions, labels = parse(sass)
    usage = re.search(rf"{mangled}.*?Used (\d+) registers", ptxas, re.S)
    spill = re.search(rf"{mangled}.*?(\d+) bytes spill stores", ptxas, re.S)
    return dict(kernel=expression, instructions=len(instructions), registers=int(usage.group(1)) if usage else None,
                spill_stores=int(spill.group(1)) if spill else None, loops=loops(instructions, labels, G),
                tail_stretches=tail_stretches(instructions))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--nvdisasm", default=None, help="nvdisasm's path (default: on PATH, else /tmp/nvdis's)")
    parser.add_argument("--kernels", default="8,6,896;8,7,896", help="G,FORM,BOUND;...")
    parser.add_argument("--json", default="")
    args = parser.parse_args(argv)
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for shape in args.kernels.split(";"):
            G, form, bound = (int(x) for x in shape.split(","))
            results.append(build(G, form, bound, args.nvdisasm, folder))
    keys = ("total", "LDS", "DPX", "STS", "value", "other")
    for result in results:
        print(f"# {result['kernel']}: {result['instructions']} SASS, {result['registers']} registers, "
              f"{result['spill_stores']} bytes of spill stores")
        rule = "|---" * (len(keys) + 3) + "|"
        print("| loop | " + " | ".join(keys) + " | splits | a split |\n" + rule)
        for loop in result["loops"]:
            print(f"| {loop['start']}-{loop['end']} | " + " | ".join(str(loop.get(k, 0)) for k in keys)
                  + f" | {loop['splits']} | {loop['per_split']} |")
        print("\n| tail stretch | " + " | ".join(keys) + " |\n" + "|---" * (len(keys) + 1) + "|")
        for stretch in result["tail_stretches"]:
            print(f"| {stretch['start']}-{stretch['end']} | " + " | ".join(str(stretch.get(k, 0)) for k in keys) + " |")
    if args.json:
        save_json(results, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
