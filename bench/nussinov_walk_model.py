"""How much shorter the batch traceback's longest chain gets when a block's warps walk intervals side by side.

A CPU count (issue 29, helper nbedge), not a timing: for random RNAs folded on the CPU (dense table), it replays
the GPU's held walk (kernels/nussinov_traceback.cu walk_structure_held) in units of one dependent load latency:
a step (the pair and m = i + 1 tested, two loads issued together) costs 1, a split's scan 1 a round of
``--width`` values of m, a pop from the stack 1 (its V load). With k walkers (warps) the right part of a split goes
on a shared stack that the first free walker takes; the count is the makespan of that greedy schedule, against
k = 1 (the serial walk). The kernel (one wave of blocks) lasts as long as its slowest walk, so the table reports
the mean and the largest over the sequences. It also counts the scans' column loads V(m, c) a walk (one 32-byte
sector each): every m of a round, and only the m where (i, m-1) may pair (batch_walk 3), and with one walker the
windows batch_walk 5 stages (nbwalk): a step outside the window in use stages the one holding its two cells, except
across a window column's edge.

Measured against it (H200, docs/gpu-notes.md, nbedge): two walkers a block were slower (0.82 ms against 0.73), so the
walk's time is not one chain of load latencies; scanning only the pairable m took 0.70 ms.

    python3 bench/nussinov_walk_model.py [--count 40] [--length 1000] [--walkers 1,2,4,8]
"""
import argparse
import heapq

import numpy as np

from bioaccel.fold import FoldParams
from bioaccel.fold._cpu import fill_table
from bioaccel.inputs.alphabet import encode


def walk_pieces(V, codes, pairs, min_loop, i, c, width, loads=None, window=None):
    """The held walk of [i, c) until it ends: ``(cost, right parts pushed [(m, c, cost so far)])``; ``loads``
    (a list of two counts, or None) gets the scans' column loads: every m of their rounds, the pairable m;
    ``window`` (a dict of "size", or None) gets batch_walk 5's counts: "staged" windows, "edge" steps across a
    window column's edge (global loads), with "at" the window in use.

    >>> V = np.zeros((4, 5), dtype=np.int32)
    >>> walk_pieces(V, np.zeros(4, np.uint8), np.zeros((4, 4), np.int32), 3, 0, 4, 128)
    (0, [])
    """
    cost, pushed = 0, []
    while c - i >= 2 and V[i, c - 1] > 0:
        v = V[i, c - 1]
        cost += 1
        if window is not None:
            size = window["size"]
            if c % size == 0:
                window["edge"] = window.get("edge", 0) + 1
            elif window.get("at") != ((i + 1) // size, c // size):
                window["at"] = ((i + 1) // size, c // size)
                window["staged"] = window.get("staged", 0) + 1
        w = pairs[codes[i], codes[c - 1]]
        inner = V[i + 1, c - 2] if c - 2 >= i + 1 else 0
        if w > 0 and c - 1 - i - 1 >= min_loop and inner + w == v:
            i, c = i + 1, c - 1
            continue
        if V[i + 1, c - 1] == v:
            i += 1
            continue
        m = i + 2
        while V[i, m - 1] + V[m, c - 1] != v:
            m += 1
        cost += (m - (i + 2)) // width + 1
        if loads is not None:
            end = min(c, i + 2 + ((m - (i + 2)) // width + 1) * width)
            loads[0] += end - (i + 2)
            loads[1] += sum(1 for k in range(i + 2, end) if k - 2 - i >= min_loop and pairs[codes[i], codes[k - 1]] > 0)
        if V[m, c - 1] > 0:
            pushed.append((m, c, cost))
        c = m
    return cost, pushed


def makespan(V, codes, pairs, min_loop, n, walkers, width, pop_cost, loads=None, window=None):
    """The greedy schedule's length: walkers take the stack's newest interval when free."""
    free = [0] * walkers                    # the time each walker is free again (a heap)
    stack = [(0, n, 0)]                     # (i, c, time it was pushed)
    events = []                             # (time, i, c): pushes not yet visible
    end = 0
    while stack or events:
        if not stack:
            t, i, c = heapq.heappop(events)
            stack.append((i, c, t))
            continue
        t_free = heapq.heappop(free)
        while events and events[0][0] <= t_free:          # what was pushed before the walker came free
            t, i, c = heapq.heappop(events)
            stack.append((i, c, t))
        i, c, t_push = stack.pop()
        start = max(t_free, t_push) + pop_cost
        cost, pushed = walk_pieces(V, codes, pairs, min_loop, i, c, width, loads, window)
        for m, cc, at in pushed:
            heapq.heappush(events, (start + at, m, cc))
        heapq.heappush(free, start + cost)
        end = max(end, start + cost)
    return end


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--count", type=int, default=40)
    ap.add_argument("--length", type=int, default=1000)
    ap.add_argument("--walkers", default="1,2,4,8")
    ap.add_argument("--width", type=int, default=128, help="values of m a scan round tests")
    ap.add_argument("--window", type=int, default=64, help="batch_walk 5's window edge (cells)")
    args = ap.parse_args()
    params = FoldParams()
    pairs = params.pair_table()
    rng = np.random.default_rng(args.count + args.length)
    ks = [int(k) for k in args.walkers.split(",")]
    rows = {k: [] for k in ks}
    loads = [0, 0]
    window = {"size": args.window}
    for _ in range(args.count):
        seq = "".join(np.array(list("ACGU"))[rng.integers(0, 4, args.length)])
        codes = encode(seq)
        table, base = fill_table(codes, params, "naive")
        V = table.reshape(args.length, args.length)
        for k in ks:
            rows[k].append(makespan(V, codes, pairs, params.min_loop, args.length, k, args.width, 1,
                                    loads if k == ks[0] else None, window if k == 1 else None))
    serial = np.array(rows[ks[0]], dtype=float)
    print(f"{args.count} random RNAs of {args.length} nt, scan rounds of {args.width}; units: one load latency")
    print("| walkers | mean chain | largest chain | largest against k = 1 |")
    print("|---:|---:|---:|---:|")
    for k in ks:
        r = np.array(rows[k], dtype=float)
        print(f"| {k} | {r.mean():.0f} | {r.max():.0f} | {r.max() / serial.max():.2f} |")
    print(f"scans' column loads a walk: {loads[0] / args.count:,.0f} at every m, {loads[1] / args.count:,.0f} at the "
          f"pairable m ({loads[1] / max(loads[0], 1):.0%})")
    if 1 in ks:
        staged, edge = window.get("staged", 0) / args.count, window.get("edge", 0) / args.count
        print(f"one walker, {args.window} x {args.window} windows (batch_walk 5): {staged:.1f} staged a walk, "
              f"{edge:.1f} steps across a window column's edge")


if __name__ == "__main__":
    main()
