"""A CPU model of BPMax's products (kernels/bpmax.cu ``bpmax_products_pairs``) and of candidate formulations of the
same useful updates (issue 29, helper bpmaxmodel; docs/bpmax-gpu-notes.md, its section of 2026-11-29).

The products of a level reduce, for every band cell (i2, j2 = i2 + e) of every matrix and every k1, over k2 from
i2 - 1 to j2: e + 2 useful updates a cell. The kernel gives each warp a *unit* of 4 x 4-cell thread tiles (production:
a 16 x 16 square) and runs every k2 of the unit's range, in groups of G k2 aligned on multiples of G; a warp's group
is 16 x 16 x 8 cell-k2 = 32 DPX warp instructions (int16x2, two updates a lane). A formulation here is how the row
tile's cells are cut into units (their bars: row blocks with a k2 offset), the group size and the stage chunk; the
model counts DPX issued, the staged bytes and the non-DPX instructions, and predicts the products' time at the issue
rate measured on an H200 (bpmaxreg's and bpmaxband's Nsight Compute profiles of level 12).

Its time is ALU-pipe work at today's busy share; measurements since say that is optimistic for cuts of that work (stop
58, docs/bpmax-gpu-notes.md): a tenth of the ALU work moved to the FMA pipe ran 0.7% faster, and a fifth of B's or A's
staged bytes removed (an L2 probe) 0.6% and 3%. A predicted gain from fewer ALU instructions or fewer staged bytes is
an upper bound, not an estimate.

    python3 bench/bpmax_products_model.py [--json docs/results/bpmax_products_model.json]
"""
import argparse
import math
import os
import sys
from dataclasses import dataclass, replace

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bpmax_products_costs import Costs, calibrate, predict   # noqa: E402
from _results import save_json   # noqa: E402


@dataclass(frozen=True)
class Form:
    """A formulation: block tile TR x TC, unit (warp) UR x UC cells, G k2 a group, KC k2 a stage, and its shape."""
    name: str
    TR: int = 32
    TC: int = 32
    UR: int = 16
    UC: int = 16
    G: int = 8
    KC: int = 96
    shape: str = "square"       # "square"; "parallelogram" (each 4-row group's columns and k2 shifted by 4)
    sub: int = 0                # > 0: the unit's k2 range counted per sub x sub cells (ideal lane packing)
    narrow_edge: bool = False   # the band's last column strip cut into 4-column units (64 rows a warp)
    row_block: bool = False     # a row tile's column tiles in one block: A staged once for all of them
    plan: str = ""              # integer work of a lane plan: "" none, "loop" (bpmaxband's), "table" (launch time)
    accumulators: int = 16      # registers a thread for its cells' words
    stage_scale: float = 1.0    # the stage's instructions against the model's (e.g. a producer warp: assumed)
    block_scale: float = 1.0    # a block's fixed instructions against today's (assumed)
    note: str = ""


def useful_row_tile(r0: int, TR: int, N: int, Wb: int) -> int:
    """Useful cell-k2 of a row tile for one k1: sum of e + 2 over its band cells inside the target.

    >>> useful_row_tile(0, 32, 20000, 129)   # 32 rows x (sum over e = 0 .. 128 of e + 2)
    272448
    """
    total = 0
    for i in range(r0, min(r0 + TR, N)):
        emax = min(Wb - 1, N - 1 - i)
        total += (emax + 1) * (emax + 2) // 2 + (emax + 1)
    return total


def unit_range(bars, N: int, Wb: int):
    """(lo, hi, cells) of a unit: its k2 range relative to each bar's offset (the kernel's kw0 / kw1 per bar, the
    union over bars), None where no bar holds a band cell inside the target.

    >>> unit_range([(16, 32, 16, 16, 0)], 20000, 129)   # a square: d = 16, k2 from R0 - 1 to C0 + 15
    (15, 47, 256)
    """
    lo, hi, cells, live = None, None, 0, False
    for R, C, rows, cols, off in bars:
        cells += rows * cols
        if C >= N or C + cols - 1 < R or C - (R + rows - 1) > Wb - 1:
            continue
        live = True
        a = max(R - 1, C - Wb) - off
        b = min(R + rows - 1 + Wb - 1, C + cols - 1, N - 1) - off
        lo, hi = (a, b) if lo is None else (min(lo, a), max(hi, b))
    return (lo, hi, cells) if live else None


def groups(lo: int, hi: int, G: int) -> int:
    """Groups of G k2 aligned on multiples of G that meet [lo, hi] (the kernel's k_lo & ~7 .. k_hi).

    >>> groups(15, 47, 8), groups(-1, 2, 8), groups(16, 23, 8)
    (5, 2, 1)
    """
    return hi // G - math.floor(lo / G) + 1 if hi >= lo else 0


def units(form: Form, r0: int, c0: int, N: int, Wb: int):
    """The units (each a list of bars (R, C, rows, cols, k2 offset)) of the block tile at (r0, c0)."""
    out = []
    for ur in range(0, form.TR, form.UR):
        for uc in range(0, form.TC, form.UC):
            R, C = r0 + ur, c0 + uc
            if form.shape == "parallelogram":
                C += ur   # the unit rows of a block follow the band too; offsets from the block's first row
                out.append([(R + g, C + g, 4, form.UC, ur + g) for g in range(0, form.UR, 4)])
            elif form.sub:
                out += [[(R + a, C + b, form.sub, form.sub, 0)] for a in range(0, form.UR, form.sub)
                        for b in range(0, form.UC, form.sub)]
            else:
                out.append([(R, C, form.UR, form.UC, 0)])
    return out


def edge_units(form: Form, r0: int, c0: int, N: int, Wb: int):
    """narrow_edge: the block tile's units, those that start past the band's last full 16-column strip cut into
    4-column strips (a parallelogram's keeps its 4-row steps)."""
    last = (Wb - 1) // form.UC * form.UC   # the strip that holds the band's last diagonals
    out = []
    for u in units(form, r0, c0, N, Wb):
        R, C = u[0][0], u[0][1]
        if C - R < last:
            out.append(u)
            continue
        for s in range(0, form.UC, 4):
            out.append([(r, c + s, rows, 4, off) for r, c, rows, cols, off in u])
    return out


def b_staged(form: Form, k: int) -> int:
    """B's cells staged for a stage of k relative k2: k rows x TC columns for squares; for parallelograms each row
    k2 the union of the columns of the row groups (offsets 0, 4, .. TR - 4) whose k2 window holds it.

    >>> b_staged(Form("s"), 96), b_staged(Form("p", shape="parallelogram"), 96)
    (3072, 6544)
    """
    if form.shape != "parallelogram":
        return k * form.TC
    total = 0
    for t in range(k + form.TR - 4):
        offs = [o for o in range(0, form.TR, 4) if 0 <= t - o < k]
        total += form.TC + max(offs) - min(offs)
    return total


def row_tile(form: Form, r0: int, N: int, Wb: int) -> dict:
    """Per k1 counts of the row tile at r0: issued cell-k2, DPX warp instructions, groups, warp-stages, blocks,
    warps, the staged bytes and 16-byte copies."""
    col_tiles = -(-(form.TR - 1 + Wb) // form.TC)
    c = dict(issued=0, dpx=0, groups=0, warp_stages=0, blocks=0, warps=0, bytes=0, copies=0, stages=0)
    warps_a_block = form.TR * form.TC // 256
    cut = edge_units if form.narrow_edge else units
    stage_rows = []   # (rows of k2 staged, ..) per block stage, to count A once for a row block
    for ct in range(col_tiles):
        c0 = r0 + ct * form.TC
        if c0 >= N:
            continue
        kb, ke = max(r0 - 1, c0 - Wb), min(c0 + form.TC - 1, r0 + form.TR - 1 + Wb - 1, N - 1)
        block = [unit_range(u, N, Wb) for u in cut(form, r0, c0, N, Wb)]
        if form.shape == "parallelogram":   # the units' k2 relative to their rows' offsets
            live = [b for b in block if b]
            kb, ke = (min(b[0] for b in live), max(b[1] for b in live)) if live else (0, -1)
        stages = max(0, -(-(ke - (kb & ~7) + 1) // form.KC)) if ke >= kb else 0
        c["blocks"] += 1
        c["warps"] += warps_a_block
        c["stages"] += stages
        c["warp_stages"] += stages * warps_a_block
        for s in range(stages):
            k = 8 * min(form.KC // 8, ((ke - (kb & ~7) - s * form.KC) >> 3) + 1)   # the kernel's NV x 8
            a_bytes = form.TR * k * 2
            b_bytes = b_staged(form, k) * 2
            stage_rows.append((a_bytes, b_bytes))
        for rng in block:
            if rng is None:
                continue
            n = groups(rng[0], rng[1], form.G)
            c["groups"] += n
            c["issued"] += n * form.G * rng[2]
    for a_bytes, b_bytes in stage_rows:
        c["bytes"] += b_bytes + (0 if form.row_block else a_bytes)
        c["copies"] += (b_bytes + (0 if form.row_block else a_bytes)) / 16
    if form.row_block:   # A staged once a row tile and k1: rows x the row tile's k2 span
        span = min(r0 + form.TR - 1 + Wb - 1, N - 1) - max(r0 - 1, 0) + 8
        c["bytes"] += form.TR * span * 2
        c["copies"] += form.TR * span * 2 / 16
        c["warps"], c["blocks"] = c["warps"], 1
    if form.shape == "ideal":   # a bound: every issued update useful, today's blocks, stages and staging
        c["issued"] = useful_row_tile(r0, form.TR, N, Wb)
    c["dpx"] = c["issued"] / 64
    return c


def level_weights(M: int):
    """(sum over levels of matrices x k1, sum of matrices) for a query of M nt: the per-k1 and per-block weights.

    >>> level_weights(23)
    (2024, 253)
    """
    per_k1 = sum((M - l1 + 1) * (l1 - 1) for l1 in range(2, M + 1))
    return per_k1, sum(M - l1 + 1 for l1 in range(2, M + 1))


def counts(form: Form, N: int, Wb: int, M: int, level: int = 0) -> dict:
    """Whole-run counts (every level, or one level where ``level``): the interior row tile's once, times the
    interior row tiles, plus the last row tiles (those that meet the target's end) one by one."""
    TR = form.TR
    tiles = -(-N // TR)
    reach = TR + Wb + form.TC + TR
    interior = row_tile(form, 5 * TR, N, Wb) if N > 5 * TR + reach else None
    useful_in = useful_row_tile(5 * TR, TR, N, Wb) if interior else 0
    total = dict.fromkeys(("issued", "dpx", "groups", "warp_stages", "blocks", "warps", "bytes", "copies",
                           "stages", "useful"), 0.0)
    for rt in range(tiles):
        r0 = rt * TR
        if interior and r0 + reach < N:
            part, useful = interior, useful_in
        else:
            part, useful = row_tile(form, r0, N, Wb), useful_row_tile(r0, TR, N, Wb)
        for key in total:
            total[key] += useful if key == "useful" else part[key]
    k1s, mats = ((M - level + 1) * (level - 1), M - level + 1) if level else level_weights(M)
    out = {key: value * k1s for key, value in total.items()}
    out["blocks"] = total["blocks"] * mats
    out["warps"] = total["warps"] * mats
    return out


def forms():
    """The candidates: today's kernel first (the baseline), then the others."""
    base = Form("today: 16 x 16 squares, G 8, chunk 96 (baseline)")
    return [
        base,
        replace(base, name="squares, chunk 136", KC=136, note="bpmaxreg measured 0-1.3% faster products"),
        replace(base, name="squares, G 4 (single pairs)", G=4),
        replace(base, name="squares, G 16", G=16),
        replace(base, name="8 x 32 units (2 x 8 thread tiles)", UR=8, UC=32),
        replace(base, name="32 x 8 units (8 x 2 thread tiles)", UR=32, UC=8),
        replace(base, name="8 x 16 units, 4 lanes a cell", UR=8, UC=16, TC=32, note="P = 4"),
        replace(base, name="16 x 32 units, 1 lane a cell", UR=16, UC=32, note="P = 1"),
        replace(base, name="squares, 8 x 8 boundary k-tiles, plan in the loop", sub=8, plan="loop", accumulators=32,
                note="ideal lane packing; a lane's borrowed sub-square: 16 more registers"),
        replace(base, name="squares, 8 x 8 boundary k-tiles, plan a launch-time table", sub=8, plan="table",
                accumulators=32, note="as above, the plan's integer work a table word a stage"),
        replace(base, name="squares, 8 x 8 boundary, table, no extra registers", sub=8, plan="table",
                note="if the packing needed no second accumulator set (optimistic)"),
        replace(base, name="parallelograms (k2 offset by 4-row groups)", shape="parallelogram"),
        replace(base, name="parallelograms, narrow far-edge strip", shape="parallelogram", narrow_edge=True,
                plan="table", note="far edge as 4-column strips, 64 rows a warp"),
        replace(base, name="parallelograms, narrow edge, 32 x 64 tiles", shape="parallelogram", narrow_edge=True,
                plan="table", TC=64, note="B's spread over twice the columns"),
        replace(base, name="parallelograms, narrow edge, chunk 136", shape="parallelogram", narrow_edge=True,
                plan="table", KC=136),
        replace(base, name="squares, a row tile a block (A staged once)", row_block=True, TC=32,
                note="20 warps a block"),
        replace(base, name="exact k2 ranges, 16 x 16 (G 1)", G=1, note="a bound: no alignment waste"),
        replace(base, name="every issued update useful (bound)", shape="ideal", note="today's integer work"),
        replace(base, name="today's units, stage integer work / 4 (producer warp, assumed)", stage_scale=0.25),
        replace(base, name="parallelograms, narrow edge, chunk 136, stage / 4, block / 2 (assumed)",
                shape="parallelogram", narrow_edge=True, plan="table", KC=136, stage_scale=0.25, block_scale=0.5),
        replace(base, name="every issued update useful, stage / 4, block / 2 (bound)", shape="ideal",
                stage_scale=0.25, block_scale=0.5),
        replace(base, name="validation: 4 x 8 cells a thread (bpmaxreg: 0.0341-0.0351 s measured)",
                accumulators=32, note="same loads per DPX; registers 80 at 6 blocks"),
        replace(base, name="validation: 64 x 32 tiles (bpmaxreg: 0.0358 s measured)", TR=64),
    ]


def table(N=20000, Wb=129, M=23, costs: Costs = None) -> list:
    """Rows of the model for every candidate (dicts), the baseline first; ``costs`` from :func:`calibrate`.

    >>> rows = table(N=2000)
    >>> rows[0]["name"].startswith("today"), 1.4 < rows[0]["issued_per_useful"] < 1.6
    (True, True)
    """
    costs = costs or calibrate(counts(forms()[0], 20000, 129, 23, level=12), counts(forms()[0], 20000, 129, 23))
    rows = []
    for form in forms():
        c = counts(form, N, Wb, M)
        saved = 0.0
        if form.plan == "loop":   # the DPX the plan saves against the same units run whole
            saved = counts(replace(form, sub=0, narrow_edge=False, plan=""), N, Wb, M)["dpx"] - c["dpx"]
        p = predict(form, c, costs, saved)
        rows.append(dict(name=form.name, issued_per_useful=c["issued"] / c["useful"],
                         dpx=c["dpx"], useful=c["useful"], bytes_per_useful=c["bytes"] / c["useful"],
                         int_alu_per_dpx=p["int_alu"] / c["dpx"], accumulators=form.accumulators,
                         registers=p["registers"], blocks_an_sm=p["blocks_an_sm"], alu_work=p["alu_work"],
                         alu_parts={key: value / c["dpx"] for key, value in p["parts"].items()},
                         products_s=p["time"], ceiling_fraction=p["ceiling_fraction"], note=form.note))
    base = rows[0]["alu_work"]
    for row in rows:
        row["alu_vs_today"] = row["alu_work"] / base
    return rows


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=20000, help="target length (nt)")
    parser.add_argument("--window", type=int, default=128, help="target window (band Wb = window + 1)")
    parser.add_argument("--query", type=int, default=23, help="query length (nt)")
    parser.add_argument("--json", default="docs/results/bpmax_products_model.json")
    args = parser.parse_args(argv)
    costs = calibrate(counts(forms()[0], 20000, 129, 23, level=12), counts(forms()[0], 20000, 129, 23))
    rows = table(args.n, args.window + 1, args.query, costs)
    print(f"BPMax products, {args.query} x {args.n:,} nt, band {args.window + 1}; {costs.describe()}")
    print("| formulation | DPX issued / useful | staged bytes / useful | int ALU / DPX (loop+stage+block+plan) |"
          " accum. regs | regs (blocks/SM) | ALU work vs today | products s (pred.) | of int16x2 ceiling |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        parts = "+".join(f"{r['alu_parts'][key]:.2f}" for key in ("loop", "stage", "block", "plan"))
        print(f"| {r['name']} | {r['issued_per_useful']:.3f} | {r['bytes_per_useful']:.3f} | "
              f"{r['int_alu_per_dpx']:.2f} ({parts}) | {r['accumulators']} | {r['registers']} ({r['blocks_an_sm']}) |"
              f" {r['alu_vs_today']:.3f} | {r['products_s']:.4f} | {100 * r['ceiling_fraction']:.1f}% |")
    print(costs.target_line(rows[0]))
    save_json(dict(n=args.n, window=args.window, query=args.query, costs=costs.as_dict(), rows=rows), args.json)


if __name__ == "__main__":
    main()
