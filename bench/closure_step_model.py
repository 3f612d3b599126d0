"""The sub-tiled finish's closure step in SASS: instructions a step and a modelled dependent chain (issue 29, nbahead).

No GPU: nvcc builds ``tiled_finish_sub_tight<short, 128, FORM>`` (tests/host_kernels.nvcc_build) and nvdisasm prints its
SASS. The unrolled forms (23: finish_closure 10, 24 and 25: 11 and 12) end each closure step in the NOP of
``__syncwarp``; their steps 1 .. 30 are counted from the first immediate shuffle on. The chain is an in-order issue
model of one warp alone: an instruction issues a cycle after the one before or when its registers and predicates are
ready; a result is ready a latency after issue (shared loads 30 cycles, shuffles 25, every other instruction ALU, a
parameter: the DPX latencies on sm_90 are not measured here). It prints the mean cycles between the NOPs of steps
6 .. 25, the table and a JSON:

    python3 bench/closure_step_model.py --forms 23,24,25 --json docs/results/closure_step_model_nbahead.json

--copy k models the k-th copy of the 31 steps in the kernel (nbstep2's forms 26 and 27, reverted, code at f744d70, held
two: the LEAN one and form 8's). --latency JSON (bench/closure_latency.py's measured "latency" by opcode; on an H200
docs/results/nbstep2_call2/closure_latency_nbstep2_call2_h200.json: ALU and DPX 4.0 cycles, SHFL 24, LDS 23, LDS.128
26.5) adds a column modelled with the device's latencies in place of the guesses:

    python3 bench/closure_step_model.py --forms 23,24 \
        --latency docs/results/nbstep2_call2/closure_latency_nbstep2_call2_h200.json
"""
import argparse
import json
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests"))

from _results import save_json  # noqa: E402

LATENCY = {"LDS": 30, "SHFL": 25}          # cycles a result takes, by opcode; others: the ALU parameter
NO_RESULT = ("STS", "NOP", "BRA", "BAR", "WARPSYNC")


def instructions(sass: str) -> list:
    """The instructions of nvdisasm's text, without addresses, predicates kept.

    >>> instructions("        /*8510*/                   LDS.128 R20, [R39] ;\\n.L_x_1:\\n")
    ['LDS.128 R20, [R39]']
    """
    return [re.sub(r"^\s*/\*[0-9a-f]+\*/\s*", "", line).strip().rstrip(" ;")
            for line in sass.splitlines() if re.search(r"/\*[0-9a-f]{4,}\*/", line)]


def step_ends(code: list, copy: int = 0) -> list:
    """Indices of the NOPs that end the unrolled closure steps: the 31 after the first immediate shuffle down by 1
    (``copy`` k: after the k-th copy's 31).

    >>> step_ends(["SHFL.DOWN PT, R1, R2, 0x1, 0x1f", "NOP", "IADD3 R1, R1, 1, RZ", "NOP"])
    [1, 3]
    """
    after = -1
    for _ in range(copy + 1):
        first = next(i for i, s in enumerate(code)
                     if i > after and re.match(r"SHFL\.DOWN PT, R\d+, R\d+, 0x1, 0x1f", s))
        ends = [i for i in range(first, len(code)) if code[i].startswith("NOP")][:31]
        after = ends[-1]
    return ends


def operands(instruction: str) -> tuple:
    """(opcode, registers written, registers and predicates read) of one SASS instruction.

    >>> operands("@P0 VIADDMNMX R22, R22, R23, R39, !PT")
    ('VIADDMNMX', ['R22'], ['R22', 'R23', 'R39', 'P0'])
    >>> operands("LDS.128 R24, [R0+0x10]")
    ('LDS.128', ['R24', 'R25', 'R26', 'R27'], ['R0'])
    """
    guard = []
    if instruction.startswith("@"):
        predicate, instruction = instruction.split(None, 1)
        guard = [predicate.lstrip("@!")]
    opcode, _, rest = instruction.partition(" ")
    fields = [f.strip() for f in rest.split(",")] if rest else []
    base = opcode.split(".")[0]
    if base in NO_RESULT:
        written, read = [], fields
    elif base == "SHFL":
        written, read = fields[:2], fields[2:]
    elif base in ("LOP3", "ISETP") and fields and fields[0].startswith("P"):
        written, read = fields[:2] if base == "ISETP" else fields[:1], fields[1:]
    else:
        written, read = fields[:1], fields[1:]
    found = lambda texts: [r for t in texts for r in re.findall(r"\b(R\d+|P\d)\b", t)]
    wide = 4 if ".128" in opcode else 2 if ".64" in opcode else 1
    out = []
    for register in found(written):
        first = int(register[1:])
        out += [f"R{first + k}" for k in range(wide)] if register[0] == "R" else [register]
    return opcode, out, found(read) + guard


def latency_of(opcode: str, alu: float, measured: dict = None) -> float:
    """Cycles until ``opcode``'s result is ready: ``measured`` by opcode (the whole one, e.g. LDS.128, else its
    first part), else LATENCY's guess, else ``alu``.

    >>> latency_of("LDS.128", 4), latency_of("LDS.128", 4, {"LDS": 29.0, "LDS.128": 33.0}), latency_of("PRMT", 6)
    (30, 33.0, 6)
    """
    base = opcode.split(".")[0]
    if measured:
        for key in (opcode, base):
            if key in measured:
                return measured[key]
    return LATENCY.get(base, alu)


def issue_times(code: list, alu: float, measured: dict = None) -> list:
    """The cycle each instruction of ``code`` issues at, in order, one warp alone (see the module's docstring).

    >>> issue_times(["LDS R1, [R2]", "IADD3 R3, R1, 1, RZ", "IADD3 R4, R3, 1, RZ"], 4)
    [1, 31, 35]
    """
    ready, now, times = {}, 0, []
    for instruction in code:
        opcode, written, read = operands(instruction)
        now = max([now + 1] + [ready.get(r, 0) for r in read])
        times.append(now)
        for register in written:
            ready[register] = now + latency_of(opcode, alu, measured)
    return times


def step_model(sass: str, alus=(4, 6, 8), measured: dict = None, copy: int = 0) -> dict:
    """SASS a step (steps 1 .. 30) and the modelled cycles a step (steps 6 .. 25) for each ALU latency, and with the
    ``measured`` latencies (key "measured") where given."""
    code = instructions(sass)
    ends = step_ends(code, copy)
    counts = [b - a for a, b in zip(ends, ends[1:])]
    cycles = {}
    for alu in alus + (("measured",) if measured else ()):
        times = issue_times(code[ends[0] + 1: ends[-1] + 1], 4 if alu == "measured" else alu,
                            measured if alu == "measured" else None)
        at = {i: times[i - ends[0] - 1] for i in ends[1:]}
        gaps = [at[b] - at[a] for a, b in zip(ends[5:25], ends[6:26])]
        cycles[alu] = round(sum(gaps) / len(gaps), 1)
    return {"sass_a_step": round(sum(counts) / len(counts), 2), "cycles_a_step": cycles}


def build_sass(form: int, tile: int, folder: str) -> str:
    """nvdisasm's text of tiled_finish_sub_tight<short, tile, form> (nvcc sm_90 here)."""
    from host_kernels import PACKAGE, disassemble

    kernel = f"tiled_finish_sub_tight<short, {tile}, {form}>"
    return disassemble(PACKAGE / "fold/kernels/nussinov_tiled.cu", [kernel], folder)[0]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--forms", default="23,24,25")
    ap.add_argument("--tile", type=int, default=128)
    ap.add_argument("--json", default="")
    ap.add_argument("--copy", type=int, default=0, help="the k-th copy of the steps in the kernel (0: the first)")
    ap.add_argument("--latency", default="", help="bench/closure_latency.py's JSON: a column with its latencies")
    args = ap.parse_args()
    measured = None
    if args.latency:
        with open(args.latency) as handle:
            measured = json.load(handle)["latency"]
    rows = {}
    with tempfile.TemporaryDirectory() as folder:
        for form in map(int, args.forms.split(",")):
            rows[form] = step_model(build_sass(form, args.tile, folder), measured=measured, copy=args.copy)
    print("FORM  SASS a step  modelled cycles a step (ALU 4 / 6 / 8" + (" / measured)" if measured else ")"))
    for form, row in rows.items():
        cycles = " / ".join(f"{c:.1f}" for c in row["cycles_a_step"].values())
        print(f"{form:4d}  {row['sass_a_step']:11.2f}  {cycles}")
    if args.json:
        save_json({"tile": args.tile, "latency": LATENCY, "measured": measured, "copy": args.copy, "forms": rows},
                  args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
