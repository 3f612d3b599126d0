"""The instruction and time side of bench/bpmax_products_model.py: non-DPX instructions from the loop structure,
calibrated on the measured profile of today's kernel, and the products' time at the measured ALU-pipe busy share.

Measured inputs (docs/bpmax-gpu-notes.md; H200, 1,980 MHz at most; 23 x 20,000 nt, window 128):
- products 0.0312 s a run (bpmaxgl, bpmaxband, bpmaxreg: 0.0310-0.0315);
- level 12, one products launch under Nsight Compute (bpmaxreg call 1, bpmaxband call 2): 1.951 ms, 1.337 G warp
  instructions, issue slots 66.5% busy, the ALU pipe 73.8% of its peak;
- the SASS (bpmaxgl): the group loop 77 instructions per 64 DPX (8 LDS.128, 3 VIADD, ISETP, BRA), the stage work
  about 5,400 instructions a row tile and k1 (8 stages x 4 warps);
- bpmaxband's lane plan computed in the loop: +43 M instructions for 32 M fewer DPX at level 12 (call 2).
Assumptions (stated where used): the ALU pipe takes 16 lanes a cycle a sub-partition for DPX and integer instructions
alike (a warp instruction 2 cycles); it stays 73.8% busy in every formulation; 40 of a warp-stage's instructions are
fixed (barriers, the wait, the group bounds), the rest scale with the stage's 16-byte copies.
"""
from dataclasses import asdict, dataclass

from _ceilings import INT16X2_DPX

SMSP = 132 * 4                 # H200 sub-partitions
CEILING = INT16X2_DPX          # updates/s (../shared/design/limits.md)
LEVEL12 = dict(seconds=1.951e-3, instructions=1.337e9, issue=0.665, alu=0.738)
PRODUCTS_S = 0.0312            # the measured products of a whole run
STAGE_INSTR_ROW_TILE_K1 = 5400.0
STAGE_FIXED = 40.0             # instructions of a warp-stage that do not depend on its copies (assumed)
# the group loop (two groups an iteration) by pairs of k2 a lane an iteration: non-DPX instructions per DPX and of
# them on the ALU pipe (3 VIADD, ISETP); 4 is today's (4 LDS.128 of A, 4 of B, 5 of control per 64 DPX), the others
# assumed by the same loads: 2 (LDS.64 of A), 1 (LDS.32), 8 (8 + 8 LDS.128 per 128 DPX)
LOOP_OTHER = {1: 10 / 16, 2: 11 / 32, 4: 13 / 64, 8: 21 / 128}
LOOP_ALU = {1: 4 / 16, 2: 4 / 32, 4: 4 / 64, 8: 4 / 128}
PLAN_LOOP_PER_DPX_SAVED = 43e6 / 32e6   # bpmaxband's call 2
PLAN_TABLE_STAGE, PLAN_TABLE_GROUP = 8.0, 1.0   # a launch-time plan: a table word a warp-stage, a select a group
OCCUPANCY_PENALTY = 0.02       # slower per block an SM below 8 (bpmaxreg call 2: chunk 96 at 7 blocks, 2%)


@dataclass
class Costs:
    """Calibrated per-unit instruction counts and the time per ALU-pipe cycle."""
    stage_per_copy: float      # instructions a warp-stage per 16-byte copy a thread
    block_per_warp: float      # instructions a warp a block (start, lanes' maxima, stores, border)
    alu_share: float           # share of the stage and block instructions on the ALU pipe
    seconds_per_alu: float     # products' seconds per ALU warp instruction (today's run / today's count)
    clock_hz: float

    def describe(self) -> str:
        """One line of the calibration (for the table's head).

        >>> Costs(20.0, 1600.0, 0.3, 3e-12, 1.95e9).describe().split(";")[0]
        'calibrated: stage 40 + 20.0 an item of copy a thread'
        """
        return (f"calibrated: stage {STAGE_FIXED:.0f} + {self.stage_per_copy:.1f} an item of copy a thread; "
                f"{self.block_per_warp:.0f} instructions a warp a block; {100 * self.alu_share:.0f}% of those on the "
                f"ALU pipe; clock {self.clock_hz / 1e9:.3f} GHz")

    def as_dict(self) -> dict:
        """The fields as a dict (for the JSON)."""
        return asdict(self)

    def target_line(self, base: dict) -> str:
        """What ~70% of the ceiling on useful updates asks, against today's (``base``: the table's first row): the
        ALU work, and r (1 + i) / b (r DPX issued per useful update, i integer ALU per DPX, b the ALU pipe's busy
        share), to which the fraction of the ceiling is inversely proportional.

        >>> Costs(0, 0, 0, 0, 0).target_line(dict(useful=3.45e11, products_s=0.0312, issued_per_useful=1.49,
        ...                                        int_alu_per_dpx=0.48, ceiling_fraction=0.357)).split("; ")[1]
        'r (1 + i) / b <= 1.52 (today 2.99)'
        """
        need = base["useful"] / CEILING / 0.7
        today = base["issued_per_useful"] * (1 + base["int_alu_per_dpx"]) / LEVEL12["alu"]
        return (f"70% of the ceiling on useful updates: products {need:.4f} s, ALU work <= "
                f"{need / base['products_s']:.3f} x today's at 73.8% busy, <= {need / base['products_s'] / 0.738:.3f} "
                f"x at 100% busy; r (1 + i) / b <= {today * base['ceiling_fraction'] / 0.7:.2f} (today {today:.2f})")


def loop_key(form) -> int:
    """Pairs of k2 a lane an iteration of two groups: G / P, P = 512 / (UR x UC) lanes a cell (4 x 4 cells a
    thread tile, 32 lanes a warp); G 1 (the exact-range bound) as today's loop.

    >>> from bpmax_products_model import Form
    >>> loop_key(Form("t")), loop_key(Form("t", G=4)), loop_key(Form("t", UR=8)), loop_key(Form("t", G=1))
    (4, 2, 2, 4)
    """
    lanes = 512 // (form.UR * form.UC)
    return 4 if form.G < 2 else min(8, max(1, form.G // lanes))


def instructions(form, c: dict, stage_per_copy: float, block_per_warp: float) -> dict:
    """DPX, loop, stage and block warp instructions of counts ``c`` (model.counts) for ``form``."""
    key = loop_key(form)
    per_thread = c["copies"] / max(c["warp_stages"], 1) / 32
    stage = c["warp_stages"] * (STAGE_FIXED + stage_per_copy * per_thread)
    return dict(dpx=c["dpx"], loop=c["dpx"] * LOOP_OTHER[key], loop_alu=c["dpx"] * LOOP_ALU[key], stage=stage,
                block=c["warps"] * block_per_warp)


def calibrate(level12: dict, run: dict) -> Costs:
    """Costs from today's kernel: counts of level 12 and of the whole run (model.counts of the baseline)."""
    row_tiles_k1 = level12["warp_stages"] / 32   # 4 warps, 8 stages a row tile and k1 at production
    stage_total = STAGE_INSTR_ROW_TILE_K1 * row_tiles_k1
    per_thread = level12["copies"] / level12["warp_stages"] / 32
    stage_per_copy = (stage_total / level12["warp_stages"] - STAGE_FIXED) / per_thread
    parts = instructions(_Baseline, level12, stage_per_copy, 0.0)
    rest = LEVEL12["instructions"] - parts["dpx"] - parts["loop"] - parts["stage"]
    block_per_warp = rest / level12["warps"]
    cycles = LEVEL12["instructions"] / SMSP / LEVEL12["issue"]
    alu = LEVEL12["alu"] * 0.5 * cycles * SMSP          # ALU warp instructions at 2 cycles each
    share = (alu - parts["dpx"] - parts["loop_alu"]) / (parts["stage"] + rest)
    whole = instructions(_Baseline, run, stage_per_copy, block_per_warp)
    alu_run = whole["dpx"] + whole["loop_alu"] + share * (whole["stage"] + whole["block"])
    return Costs(stage_per_copy, block_per_warp, share, PRODUCTS_S / alu_run, cycles / LEVEL12["seconds"])


class _Baseline:
    G, UR, UC = 8, 16, 16


def predict(form, c: dict, costs: Costs, dpx_saved: float = 0.0) -> dict:
    """Integer ALU instructions, registers, blocks an SM, ALU work and the products' time of ``form``.

    ``dpx_saved``: the DPX a lane plan removes against the same units without it (plan "loop" pays bpmaxband's
    measured instructions per DPX saved)."""
    p = instructions(form, c, costs.stage_per_copy, costs.block_per_warp)
    parts = dict(loop=p["loop_alu"], stage=costs.alu_share * p["stage"] * form.stage_scale,
                 block=costs.alu_share * p["block"] * form.block_scale, plan=0.0)
    registers = 64 + (form.accumulators - 16)
    if form.plan == "loop":
        parts["plan"] = PLAN_LOOP_PER_DPX_SAVED * dpx_saved
        registers += 4
    elif form.plan == "table":
        parts["plan"] = PLAN_TABLE_STAGE * c["warp_stages"] + PLAN_TABLE_GROUP * c["groups"]
        registers += 2
    int_alu = sum(parts.values())
    threads = form.TR * form.TC // 8
    blocks = min(8 * 128 // threads, 65536 // (-(-registers // 8) * 8 * threads))
    if form.row_block:
        threads = threads * (-(-(form.TR - 1 + 129) // form.TC))
        blocks = max(1, min(8, 65536 // (-(-registers // 8) * 8 * threads)))
    warps_an_sm = blocks * threads // 32
    penalty = 1 + OCCUPANCY_PENALTY * max(0, 32 - warps_an_sm) / 4
    work = c["dpx"] + int_alu
    time = work * costs.seconds_per_alu * penalty
    return dict(int_alu=int_alu, parts=parts, registers=registers, blocks_an_sm=blocks, alu_work=work, time=time,
                ceiling_fraction=c["useful"] / CEILING / time)
