"""The query-inner chain of a target tile counted both ways (issue 29): the prototype's PULLS (bench/
bpmax_query_inner.cu: anti-diagonal steps, a warp a cell running its own splits one after the other) against PUSHES
(tests/bpmax_query_chain.py: a cell that closes applies at once every own split it is the last operand of). No
timing: counts of the schedules, per step and per tile, for the tile kinds of a row (T x T tiles at a band).

    python3 bench/bpmax_query_chain_counts.py [--tile 8] [--band 129] [--warps 8]
                                              [--json docs/results/bpmax_query_chain_counts.json]
"""
import argparse
import heapq
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))
from _results import save_json                                        # noqa: E402
from bpmax_query_chain import pull_steps, tile_cells, tile_schedule   # noqa: E402


def warp_rounds(loads: list, warps: int) -> int:
    """The largest load of a warp when ``loads`` (splits a target cell, one warp a cell: the owner computes) go to
    ``warps`` warps, the largest first to the least loaded warp.

    >>> warp_rounds([2, 2, 1, 1, 1], 2), warp_rounds([1] * 9, 8), warp_rounds([], 8)
    (4, 2, 0)
    """
    heap = [0] * warps
    for load in sorted(loads, reverse=True):
        heapq.heappush(heap, heapq.heappop(heap) + load)
    return max(heap)


def step_counts(delta: int, T: int, band: int, warps: int) -> list:
    """Per step of an unbounded-target tile of diagonal ``delta`` at ``band`` (the same cells close at step s both
    ways): the cells that close; the pull's own splits in all and of its slowest cell (the step's sequential splits)
    and its rounds on ``warps`` warps (a warp a cell); the pushes in all, those into a cell closing next step
    (urgent), the most into one cell, the DPX products when an A push pairs the two cells of a B pair word (columns
    2c, 2c + 1; delta >= 1), and the rounds on ``warps`` warps, a warp a target cell.

    >>> rows = step_counts(1, 8, 129, 8)
    >>> [row["pushes"] for row in rows][:8], sum(row["pull_max"] for row in rows)
    ([14, 26, 36, 44, 50, 54, 56, 56], 105)
    """
    cells = tile_cells(0, delta, T, 10 ** 6, band)
    pushes, pulls = tile_schedule(delta, T, cells), pull_steps(delta, T, cells)
    closes_at = {cell: s for s, step in enumerate(pushes) for cell in step.close}
    rows = []
    for s, (step, pull) in enumerate(zip(pushes, pulls)):
        assert sorted(step.close) == sorted(cell for cell, _ in pull)
        into = {}
        for push in step.pushes:
            into[push.target] = into.get(push.target, 0) + 1
        words = {(p.source, p.k, p.target[0], p.target[1] // 2) for p in step.pushes if p.role == "A" and delta}
        paired = sum(p.role == "B" or not delta for p in step.pushes) + len(words)
        splits = [count for _, count in pull]
        rows.append(dict(step=s, closes=len(step.close), pull_splits=sum(splits), pull_max=max(splits),
                         pull_rounds=-(-len(splits) // warps) * max(splits), pushes=len(step.pushes),
                         urgent=sum(closes_at[p.target] == s + 1 for p in step.pushes),
                         push_max=max(into.values(), default=0), dpx_products=paired,
                         push_rounds=warp_rounds(list(into.values()), warps)))
    return rows


def deferred_rounds(delta: int, T: int, band: int, warps: int) -> tuple:
    """The fewest rounds of splits on ``warps`` warps over a tile's steps when a push may wait for a later step (to
    the step before its target closes; earliest deadline first, a warp a target cell) and every step but the last
    runs at least ``budget`` rounds: (total rounds, budget, rounds per step), the smallest total over budgets.

    >>> deferred_rounds(1, 8, 129, 8)[:2]
    (63, 6)
    """
    steps = tile_schedule(delta, T, tile_cells(0, delta, T, 10 ** 6, band))
    closes_at = {cell: s for s, step in enumerate(steps) for cell in step.close}
    best = None
    for budget in range(1, 2 * T):
        ready, per_step = [], []
        for s, step in enumerate(steps):
            ready += [(closes_at[p.target] - 1, p.target) for p in step.pushes]
            ready.sort()
            loads, rest = {}, []
            for deadline, target in ready:
                trial = dict(loads)
                trial[target] = trial.get(target, 0) + 1
                if deadline == s or warp_rounds(list(trial.values()), warps) <= budget:
                    loads = trial
                else:
                    rest.append((deadline, target))
            ready = rest
            per_step.append(warp_rounds(list(loads.values()), warps))
        if best is None or sum(per_step) < best[0]:
            best = (sum(per_step), budget, per_step)
    return best


def vector_reads(delta: int, T: int, band: int) -> tuple:
    """Operand vectors a tile's chain reads: (the pull's, two a split from global memory; the pushes', one a push
    besides its source, which has just closed in shared memory; the distinct such others: the cells of the diagonal
    tiles (I, I) and (J, J), or on a diagonal tile its own earlier cells, which shared memory could hold).

    >>> vector_reads(1, 8, 129), vector_reads(0, 8, 129)
    ((896, 448, 56), (168, 84, 28))
    """
    pushes = [push for step in tile_schedule(delta, T, tile_cells(0, delta, T, 10 ** 6, band)) for push in step.pushes]
    distinct = {("I", push.target[0], push.k) if push.role == "B" else ("J", push.k + 1 - T * delta, push.target[1])
                for push in pushes}
    return 2 * len(pushes), len(pushes), len(distinct)


def tile_kinds(T: int, band: int) -> list:
    """(name, delta) of the row's tile kinds: the diagonal tile, a whole tile, and the band's edge tiles.

    >>> tile_kinds(8, 129)
    [('delta 0', 0), ('delta 1 .. 15', 1), ('delta 16', 16)]
    """
    edge = [delta for delta in range(1, band // T + 2) if len(tile_cells(0, delta, T, 10 ** 6, band)) < T * T]
    kinds = [("delta 0", 0)]
    if edge and edge[0] > 1:
        kinds.append((f"delta 1 .. {edge[0] - 1}" if edge[0] > 2 else "delta 1", 1))
    return kinds + [(f"delta {delta}", delta) for delta in edge if tile_cells(0, delta, T, 10 ** 6, band)]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile", type=int, default=8)
    parser.add_argument("--band", type=int, default=129)
    parser.add_argument("--warps", type=int, default=8)
    parser.add_argument("--json", default="docs/results/bpmax_query_chain_counts.json")
    args = parser.parse_args(argv)
    T, band, warps = args.tile, args.band, args.warps
    kinds = []
    print(f"{T} x {T} target tiles at band {band}, {warps} warps a tile: the chain by pulls (the prototype) and by "
          "pushes, per step (cell-splits)")
    for name, delta in tile_kinds(T, band):
        rows = step_counts(delta, T, band, warps)
        print(f"\n{name}: | step | cells closing | pull splits | pull max a cell | pull rounds | pushes | urgent | "
              "push max into a cell | DPX products (A pairs) | push rounds |")
        for row in rows:
            print("| " + " | ".join(str(row[key]) for key in ("step", "closes", "pull_splits", "pull_max",
                                                                "pull_rounds", "pushes", "urgent", "push_max",
                                                                "dpx_products", "push_rounds")) + " |")
        reads = vector_reads(delta, T, band)
        deferred = deferred_rounds(delta, T, band, warps)
        summary = dict(kind=name, delta=delta, cells=sum(r["closes"] for r in rows), steps=len(rows),
                       own_splits=sum(r["pushes"] for r in rows),
                       pull_critical_splits=sum(r["pull_max"] for r in rows),
                       push_critical_splits=sum(r["push_max"] for r in rows),
                       pull_rounds=sum(r["pull_rounds"] for r in rows), push_rounds=sum(r["push_rounds"] for r in rows),
                       deferred_rounds=deferred[0], deferred_budget=deferred[1], deferred_per_step=deferred[2],
                       dpx_products=sum(r["dpx_products"] for r in rows), pull_vector_reads=reads[0],
                       push_vector_reads=reads[1], distinct_other_vectors=reads[2], steps_detail=rows)
        kinds.append(summary)
    keys = ("cells", "steps", "own_splits", "pull_critical_splits", "push_critical_splits", "pull_rounds",
            "push_rounds", "deferred_rounds", "dpx_products", "pull_vector_reads", "push_vector_reads",
            "distinct_other_vectors")
    print("\n| tile kind | " + " | ".join(keys) + " |")
    for kind in kinds:
        print(f"| {kind['kind']} | " + " | ".join(str(kind[key]) for key in keys) + " |")
    save_json({"tile": T, "band": band, "warps": warps, "kinds": kinds}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
