"""What issue 29's BPMax row (23 x 20,000 nt, target window 128, end to end <= 0.03 s) asks of each phase: the
measured phases beside bounds from the work, the hardware's pipes and the products' model (docs/bpmax-gpu-notes.md,
"What is left").

No timing runs here: the measured times are a pipelined device run's (bench/bpmax_gpu_timeline.py's JSON), the products' bounds
bench/bpmax_products_model.py's rows, the finish's from its instruction mix (forms 5 to 7: one shared load of a column
word for each DPX instruction, which does a split's R1 and R2 terms at once) and its segments' recomputed halo.

    python3 bench/bpmax_row_bound.py [--measured docs/results/stop58_timeline/timeline.json]
        [--model docs/results/bpmax_products_model.json] [--json docs/results/bpmax_row_bound.json]
"""
import argparse
import json
import os
import sys
from statistics import median

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _results import save_json   # noqa: E402
from bpmax_products_costs import CEILING, LEVEL12   # noqa: E402 (CEILING: the int16x2 DPX ceiling, limits.md)

GOAL_S = 0.03       # issue 29's row


def terms(M: int, N: int, L1: int, L2: int) -> dict:
    """Useful updates (an add and a max each) of the recurrence's terms with intervals of at most L1 and L2 bases:
    a cell of lengths (l1, l2) has (l1 - 1)(l2 - 1) terms of D, 2 (l1 - 1) of R3/R4, 2 (l2 - 1) of R1/R2 (the sum is
    ``bioaccel.interact._model.work / 2``). The products compute D and R3/R4, the finish R1/R2.

    >>> t = terms(23, 20000, 23, 129)
    >>> round(t["D"] / 1e11, 2), round(t["R1/R2"] / 1e11, 2), round(t["R3/R4"] / 1e11, 2)
    (3.33, 0.91, 0.1)
    """
    def lengths(n, L):     # sum over intervals of at most L bases of (length - 1)
        return n * L * (L - 1) // 2 - (L - 1) * L * (2 * L - 1) // 6

    def intervals(n, L):   # intervals of at most L bases
        return n * L - L * (L - 1) // 2

    return {"D": lengths(M, L1) * lengths(N, L2), "R3/R4": 2 * lengths(M, L1) * intervals(N, L2),
            "R1/R2": 2 * intervals(M, L1) * lengths(N, L2)}


def halo_factor(rows: int, band: int) -> float:
    """Work a finish block does over the work its segment owns: the block closes ``rows`` rows, the last band - 1 of
    them a halo that the next segment owns and recomputes; a row's cell on diagonal e (inside the block: r + e < rows)
    costs 2 e updates.

    >>> round(halo_factor(416, 129), 3)
    1.147
    >>> halo_factor(1000000, 129) < 1.001
    True
    """
    done = sum(2 * e for r in range(rows) for e in range(min(band, rows - r)))
    owned = (rows - (band - 1)) * sum(2 * e for e in range(band))
    return done / owned


def measured(path: str) -> dict:
    """A pipelined run's phases (s) from bench/bpmax_gpu_timeline.py's JSON (its default row): each kernel's device
    time summed by kind, and the rest of the end to end (the host's set-up and fold, fills, copies, gaps).

    >>> m = measured("docs/results/stop58_timeline/timeline.json")
    >>> round(m["products_s"] + m["finish_s"] + m["pairing_s"] + m["outside_s"], 6) == round(m["end_to_end_s"], 6)
    True
    """
    with open(path) as handle:
        row = next(r for r in json.load(handle)["rows"] if r["setting"] == "default")
    kinds = {"products": 0.0, "finish": 0.0, "pairing": 0.0}
    for op in row["ops"]:
        if op.get("device") and op["label"] in kinds:
            kinds[op["label"]] += (op["stop_ms"] - op["start_ms"]) / 1e3
    total = row["wall_ms"] / 1e3
    return {"products_s": kinds["products"], "finish_s": kinds["finish"], "pairing_s": kinds["pairing"],
            "outside_s": total - sum(kinds.values()), "end_to_end_s": total}


def model_rows(path: str) -> dict:
    """bench/bpmax_products_model.py's rows (its JSON at ``path``) by name."""
    with open(path) as handle:
        model = json.load(handle)
    return {r["name"]: r for r in model["rows"]}


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--measured", default="docs/results/stop58_timeline/timeline.json")
    parser.add_argument("--model", default="docs/results/bpmax_products_model.json")
    parser.add_argument("--segment-rows", type=int, default=416, help="a finish block's rows, halo included")
    parser.add_argument("--alu-busy", type=float, default=LEVEL12["alu"],
                        help="the products' ALU pipe busy share (Nsight Compute, level 12; the model's calibration)")
    parser.add_argument("--json", default="docs/results/bpmax_row_bound.json")
    args = parser.parse_args(argv)

    work = terms(23, 20000, 23, 129)
    m = measured(args.measured)
    rows = model_rows(args.model)
    products_useful = work["D"] + work["R3/R4"]
    finish_useful = work["R1/R2"]
    halo = halo_factor(args.segment_rows, 129)
    outside = m["outside_s"]
    best = rows["every issued update useful, stage / 4, block / 2 (bound)"]["products_s"]
    useful_only = rows["every issued update useful (bound)"]["products_s"]
    phases = [
        ("products (D, R3/R4)", products_useful, m["products_s"],
         [("every issued update useful, today's staging (model)", useful_only),
          ("that, a quarter of the staging, half the block's fixed work (model)", best),
          (f"that with the ALU pipe 100% busy instead of {100 * args.alu_busy:.1f}%", best * args.alu_busy),
          ("DPX only, every update useful", products_useful / CEILING)]),
        ("finish (R1/R2)", finish_useful, m["finish_s"],
         [(f"one shared load a DPX (forms 5-7: the shared pipe at 1 wavefront a cycle, DPX at 2): 50%, halo {halo:.3f}x", finish_useful * halo / (0.5 * CEILING)),
          (f"DPX only, halo {halo:.3f}x", finish_useful * halo / CEILING)]),
        ("paired copy", 0, m["pairing_s"], [("a form that reads the table as it lies", 0.0)]),
        ("outside the kernels (host, fills, copies)", 0, outside, [("as measured", outside)]),
    ]
    print(f"BPMax 23 x 20,000 nt, window 128 (band 129): useful updates {products_useful + finish_useful:.3e} "
          f"(products {products_useful:.3e}, finish {finish_useful:.3e}); int16x2 DPX ceiling {CEILING / 1e12:.1f} T/s")
    print("| phase | measured s | of the ceiling | bound | bound s |")
    print("|---|---|---|---|---|")
    out = []
    for name, useful, seconds, bounds in phases:
        share = f"{useful / seconds / CEILING:.1%}" if useful else ""
        for i, (what, s) in enumerate(bounds):
            print(f"| {name if i == 0 else ''} | {f'{seconds:.4f}' if i == 0 else ''} | {share if i == 0 else ''} "
                  f"| {what} | {s:.4f} |")
        out.append(dict(phase=name, useful=useful, measured_s=seconds, bounds=[dict(what=w, s=s) for w, s in bounds]))
    total = m["end_to_end_s"]
    modeled = best + finish_useful * halo / (0.5 * CEILING) + outside
    print(f"\nmeasured end to end {total:.4f} s ({(products_useful + finish_useful) / total / CEILING:.1%} of the "
          f"ceiling) against the goal {GOAL_S} s")
    print(f"the products at the model's best form and the finish at its shared-load cap: {modeled:.4f} s")
    left = GOAL_S - outside - m["pairing_s"]
    print(f"the goal leaves {left * 1e3:.1f} ms for products + finish: with the products at the model's best "
          f"({best * 1e3:.1f} ms) the finish needs <= {(left - best) * 1e3:.1f} ms "
          f"({finish_useful / (left - best) / CEILING:.0%} of the ceiling; measured {m['finish_s'] * 1e3:.1f} ms), "
          f"with today's finish the products need <= {(left - m['finish_s']) * 1e3:.1f} ms "
          f"({products_useful / (left - m['finish_s']) / CEILING:.0%}; measured {m['products_s'] * 1e3:.1f} ms)")
    save_json(dict(terms=work, halo=halo, measured=m, phases=out, modeled_best_s=modeled, goal_s=GOAL_S), args.json)


if __name__ == "__main__":
    main()
