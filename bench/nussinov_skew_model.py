"""Skewed sub-wavefronts in the sub-tiled finish (issue 29, helper nbskew): a plain-Python check of the schedule,
cell by cell, before any CUDA, and the counts the notes' model uses (docs/gpu-notes.md, "Skewed sub-wavefronts").

finish_sub_tile (src/bioaccel/fold/kernels/nussinov_tiled.cu) finishes a tile of G x G sub-tiles of S = 16 cells a
side: sub-wavefront w takes the sub-tiles (a, b) with (G - 1 - a) + b = w, first their whole-sub-tile products (the
splits over every sub-tile below in column b and left in row a), then a 31-step closure (step t: the cells with
q - r = t - 15 inside the sub-tile; row lane `own` the splits over the sub-tile's own rows, column lane 16 + own over
its own columns), a block barrier between sub-wavefronts: 2 G - 1 closures of 31 steps on a tile's chain.

The skewed form checked here: sub-tile (a, b) starts its closure at step 16 ((G - 1 - a) + b), and the splits over
its two neighbours (a + 1, b) (rows below) and (a, b - 1) (columns left) join the closure's (32 a lane, not 16):
column ql of (a + 1, b) is final after that sub-tile's step 15 + ql, row rl of (a, b - 1) after its step 30 - rl,
so 16 steps behind them is enough. Warp b takes the sub-tile column b: its sub-tiles start 16 steps apart and, in
each 16-step phase, the new one's steps 0-15 and the old one's steps 16-30 use complementary lanes (lanes 15 - t ..
16 + t and the rest), so G warps hold all of a tile. The neighbour below is the warp's own (a __syncwarp a step
suffices); the left one is warp b - 1's, so either a block barrier every step (`skew16`) or the left neighbour 32
steps behind, a barrier only every 16 (`skew32`). The products over the farther sub-tiles (a + 2 .. below, .. b - 2
left) run at the phase boundary where the sub-tile starts (both final two steps before).

`check` runs a schedule on random cells and compares every cell with the finish done in dependency order; it also
asserts that every cell a step reads was written at an earlier step (an earlier phase for another warp's, where
barriers come only a phase), that no lane holds two cells in a step, and that every cell is written once.

    python3 bench/nussinov_skew_model.py [--sides 4,8] [--trials 3]
"""
import argparse
import random

S = 16                       # sub-tile side (FINISH_SUB)
STEPS = 2 * S - 1            # closure steps of one sub-tile
SCHEDULES = ("now", "skew16", "skew32")


def start_step(schedule: str, G: int, a: int, b: int) -> int:
    """Global step at which sub-tile (a, b)'s closure starts (`now`: closures of one sub-wavefront together).

    >>> start_step("skew16", 4, 3, 0), start_step("skew16", 4, 0, 3), start_step("now", 4, 0, 3)
    (0, 96, 186)
    """
    w = (G - 1 - a) + b
    if schedule == "now":
        return STEPS * w
    if schedule in ("skew16", "skew16flags"):
        return S * w
    return S * (G - 1 - a) + 2 * S * b


def closure_cells(t: int):
    """The cells (rl, ql) of a sub-tile that closure step t (0 .. 30) finishes: q - r = t - 15.

    >>> closure_cells(0), len(closure_cells(15)), closure_cells(30)
    ([(15, 0)], 16, [(0, 15)])
    """
    return [(rl, rl + t - (S - 1)) for rl in range(S) if 0 <= rl + t - (S - 1) < S]


def phase_of(step: int) -> int:
    """The 16-step phase a step lies in (the skewed forms' barriers every phase).

    >>> phase_of(15), phase_of(16)
    (0, 1)
    """
    return step // S


def random_tile(G: int, rng: random.Random):
    """Random int cells of a tile's finish: the bulk's X, A = tile (I, I), B = tile (J, J), pair weights, edges."""
    T = G * S
    X = [[rng.randrange(0, 40) for _ in range(T)] for _ in range(T)]
    A = [[rng.randrange(0, 40) if m > r else None for m in range(T)] for r in range(T)]
    B = [[rng.randrange(0, 40) if q > m else None for q in range(T)] for m in range(T)]
    W = [[rng.choice((0, 0, 1, 2, 3)) for _ in range(T)] for _ in range(T)]
    edge_row = [rng.randrange(0, 40) for _ in range(T)]      # X(T, q - 1): row TILE of the tile below
    edge_col = [rng.randrange(0, 40) for _ in range(T)]      # X(r + 1, -1): column -1 of the tile left
    return X, A, B, W, edge_row, edge_col


def below_left(X, edge_row, edge_col, r: int, q: int) -> int:
    """X(r + 1, q - 1), the pair term's inner cell (outside the tile: the edges)."""
    T = len(X)
    if r + 1 == T:
        return edge_row[q]
    if q == 0:
        return edge_col[r]
    return X[r + 1][q - 1]


def finish_in_order(tile):
    """The finished tile, cell by cell in dependency order (rows from the bottom, columns from the left)."""
    X0, A, B, W, edge_row, edge_col = tile
    T = len(X0)
    X = [row[:] for row in X0]
    for r in range(T - 1, -1, -1):
        for q in range(T):
            v = X[r][q]
            for m in range(r + 1, T):
                v = max(v, A[r][m] + X[m][q])
            for m in range(q):
                v = max(v, X[r][m] + B[m][q])
            if W[r][q]:
                v = max(v, below_left(X, edge_row, edge_col, r, q) + W[r][q])
            X[r][q] = v
    return X


def lane_of(rl: int, ql: int):
    """The two lanes of a warp that take cell (rl, ql) of a sub-tile: its row lane and its column lane."""
    return rl, S + ql


def check(schedule: str, G: int, seed: int = 0) -> dict:
    """Run `schedule` on a random G x G sub-tile tile: same cells as in dependency order, every read final.

    >>> check("skew16", 2)["equal"]
    True
    """
    rng = random.Random(seed)
    tile = random_tile(G, rng)
    X0, A, B, W, edge_row, edge_col = tile
    T = G * S
    X = [row[:] for row in X0]
    written = {}                                    # (r, q) -> global step of its closure's store
    skew = schedule != "now"
    warp_of = (lambda a, b: b) if skew else (lambda a, b: None)

    def final_before(cell, step: int, reader_warp, writer_warp) -> None:
        """A read at `step` (or at the boundary before it) needs the cell stored at an earlier step; another warp's
        store at an earlier phase where barriers come only a phase (skew32), or a sub-wavefront (now)."""
        assert cell in written, (schedule, G, cell, step, "read before any store")
        s = written[cell]
        if schedule == "skew16flags" and reader_warp != writer_warp:
            # finish_sub_tile's SKEW_FLAGS: warp b's step `step` waits for warp b - 1's first `step` steps, which
            # waited for b - 2's first step - 1, ...: warp b - k's steps before step - (k - 1), and never a warp right
            k = reader_warp - writer_warp
            assert k >= 1 and s < step - (k - 1), (schedule, G, cell, s, step, k)
        elif schedule == "skew32" and reader_warp != writer_warp:
            assert phase_of(s) < phase_of(step), (schedule, G, cell, s, step)
        else:
            assert s < step, (schedule, G, cell, s, step)

    starts = {(a, b): start_step(schedule, G, a, b) for a in range(G) for b in range(G)}
    last = max(starts.values()) + STEPS
    lanes_used = {}
    for step in range(last):
        # products of whole sub-tiles for the closures starting now (skewed: the farther ones only)
        for (a, b), t0 in starts.items():
            if t0 != step:
                continue
            below = range(a + 2 if skew else a + 1, G)
            left = range(0, b - 1 if skew else b)
            for rl in range(S):
                for ql in range(S):
                    r, q = a * S + rl, b * S + ql
                    v = X[r][q]
                    for a2 in below:
                        for m in range(a2 * S, a2 * S + S):
                            final_before((m, q), step, warp_of(a, b), warp_of(a2, b))
                            v = max(v, A[r][m] + X[m][q])
                    for b2 in left:
                        for m in range(b2 * S, b2 * S + S):
                            final_before((r, m), step, warp_of(a, b), warp_of(a, b2))
                            v = max(v, X[r][m] + B[m][q])
                    X[r][q] = v
        # one closure step of every running sub-tile: reads first (a step's loads precede its stores), then stores
        stores = []
        for (a, b), t0 in starts.items():
            t = step - t0
            if not 0 <= t < STEPS:
                continue
            for rl, ql in closure_cells(t):
                r, q = a * S + rl, b * S + ql
                for lane in lane_of(rl, ql):
                    key = (step, warp_of(a, b) if skew else (a, b), lane)
                    assert key not in lanes_used, (schedule, G, key, "lane taken twice")
                    lanes_used[key] = (a, b)
                v = X[r][q]                                          # held: the bulk and the products
                rows = list(range(r + 1, a * S + S)) + (list(range((a + 1) * S, (a + 2) * S)) if skew and a + 1 < G else [])
                for m in rows:                                       # row lane: own rows, then the neighbour below
                    final_before((m, q), step, warp_of(a, b), warp_of(m // S, b))
                    v = max(v, A[r][m] + X[m][q])
                cols = list(range(b * S, q)) + (list(range((b - 1) * S, b * S)) if skew and b >= 1 else [])
                for m in cols:                                       # column lane: own columns, the neighbour left
                    final_before((r, m), step, warp_of(a, b), warp_of(a, m // S))
                    v = max(v, X[r][m] + B[m][q])
                if W[r][q]:
                    if r + 1 < T and q >= 1:
                        final_before((r + 1, q - 1), step, warp_of(a, b), warp_of((r + 1) // S, (q - 1) // S))
                    v = max(v, below_left(X, edge_row, edge_col, r, q) + W[r][q])
                stores.append((r, q, v))
        for r, q, v in stores:
            assert (r, q) not in written, (schedule, G, r, q, "stored twice")
            X[r][q] = v
            written[(r, q)] = step
    assert len(written) == T * T
    return {"equal": X == finish_in_order(tile), "steps": last}


def lane_walks(G: int, b: int) -> dict:
    """Warp b's lanes under `skew16` (sub-tile column b, a sub-tile every 16 steps): {(kind, own): [(step, r, q)]},
    kind "row" (lane own) or "col" (lane 16 + own). Checks what a kernel would rely on: every lane busy every step
    from its first to its last (no gap); a column lane walks up its tile column one row a step (its line, X's row r,
    moves by -LD, never jumps; its splits' B operands are the warp's for good); a row lane walks right one column a
    step and, every 16 steps (at t = 15 - own of a phase), wraps to column 0 of the sub-tile above (row - 16: its A
    operands change, lane by lane); c - i grows by one every step of a row lane, wrap included (one pair mask); the
    row lane's column lane is lane 16 + (own + t + 1) % 16 at phase step t, for the old sub-tile and the new alike.

    >>> w = lane_walks(4, 1); len(w[("row", 3)]), w[("row", 3)][0], w[("col", 3)][0]
    (64, (28, 51, 16), (19, 63, 19))
    """
    walks = {}
    for a in range(G):
        t0 = start_step("skew16", G, a, b)
        for t in range(STEPS):
            for rl, ql in closure_cells(t):
                cell = (t0 + t, a * S + rl, b * S + ql)
                walks.setdefault(("row", rl), []).append(cell)
                walks.setdefault(("col", ql), []).append(cell)
    for (kind, own), walk in walks.items():
        walk.sort()
        assert len(walk) == G * S and walk[-1][0] - walk[0][0] == G * S - 1, (kind, own, "a gap")
        for (s0, r0, q0), (s1, r1, q1) in zip(walk, walk[1:]):
            if kind == "col":
                assert (r1, q1) == (r0 - 1, q0), (own, s1)
            elif q0 % S == S - 1:
                assert (r1, q1) == (r0 - S, q0 - (S - 1)) and (s1 % S) == (S - 1 - own) % S, (own, s1)
            else:
                assert (r1, q1) == (r0, q0 + 1), (own, s1)
            assert kind == "col" or q1 - r1 == q0 - r0 + 1
        if kind == "row":
            for s, r, q in walk:
                t = s % S
                assert q % S == (own + t + 1) % S              # its column lane: 16 + that
    return walks


def skew_kernel_walks(G: int, b: int) -> dict:
    """finish_sub_tile's SKEW index arithmetic (kernels/nussinov_tiled.cu, FINISH_SKEW, at commit 573ce6e: built,
    measured slower and reverted, docs/gpu-notes.md "Skewed sub-wavefronts built for one sequence") as it does it, for
    warp b: phase P's new sub-tile a_new = G - 1 - (P - b); at phase step t row lane `own` holds the new one's cell
    from t = 15 - own (else the old one's, a_new + 1), column ((own + t + 1) & 15); column lane 16 + own holds row
    a_new 16 + own + 15 - t of column b 16 + own. The cells of real sub-tiles, as lane_walks gives them:
    {(kind, own): [(step, r, q)]}; `test_nussinov_skew_model` compares the two.

    >>> skew_kernel_walks(4, 1) == lane_walks(4, 1)
    True
    """
    walks = {}
    for P in range(2 * G):
        a_new = G - 1 - (P - b)
        if not -1 <= a_new < G:
            continue
        for t in range(S):
            for own in range(S):
                a = a_new if own >= S - 1 - t else a_new + 1
                if 0 <= a < G:
                    walks.setdefault(("row", own), []).append((S * P + t, a * S + own, b * S + ((own + t + 1) & 15)))
                r = a_new * S + own + S - 1 - t
                if 0 <= r >> 4 < G:                     # the kernel's a = r >> 4 (arithmetic shift)
                    walks.setdefault(("col", own), []).append((S * P + t, r, b * S + own))
    return walks


def int16(v: int) -> int:
    """A 16-bit lane's sum as __viaddmax_s16x2 keeps it (wrapped to -32768 .. 32767).

    >>> int16(-32768 + 5), int16(32767 + 1)
    (-32763, -32768)
    """
    return (v + 32768) % 65536 - 32768


def skew_kernel_tile(G: int, seed: int = 0) -> bool:
    """finish_sub_tile's SKEW step as the kernel wrote it (kernels/nussinov_tiled.cu at 573ce6e), lane by lane on a
    random tile: the lines' pointers (a missing neighbour: the own line again), the split weights with their keep masks
    (masked: OUT = -32768, sums wrapped as int16), the row lanes' reloads at t = 15 - own (weights left from the
    sub-tile before until then), the shuffle from lane 16 + ((own + t + 1) & 15), the far products at the phase's
    start; every lane's loads of a step before any store (the barrier every step). True if the tile equals the
    finish in dependency order.

    >>> skew_kernel_tile(2), skew_kernel_tile(4)
    (True, True)
    """
    rng = random.Random(seed)
    tile = random_tile(G, rng)
    X0, A, B, W, edge_row, edge_col = tile
    T, OUT = G * S, -32768
    X = [row[:] for row in X0]
    AB = [[A[r][m] if m > r else (B[m][r] if m < r else 0) for m in range(T)] for r in range(T)]

    def weights(row: int, col0: int, keep: int):
        return [AB[row][col0 + m] if keep >> m & 1 else OUT for m in range(S)]

    pre = {}                                           # (warp, lane) -> (pre0, pre1)
    for b in range(G):
        for own in range(S):
            pre[(b, own)] = ([OUT] * S, [OUT] * S)     # a row lane before its first reload
            q = b * S + own
            pre[(b, S + own)] = (weights(q, (b - 1) * S if b >= 1 else b * S, 0xFFFF if b >= 1 else 0),
                                 weights(q, b * S, (1 << own) - 1))
    for P in range(2 * G):
        for b in range(G):                             # far products of the sub-tile starting now
            a_new = G - 1 - (P - b)
            if 0 <= a_new < G:
                for r in range(a_new * S, a_new * S + S):
                    for q in range(b * S, b * S + S):
                        v = X[r][q]
                        for m in range((a_new + 2) * S, T):
                            v = max(v, A[r][m] + X[m][q])
                        for m in range(0, max(0, b - 1) * S):
                            v = max(v, X[r][m] + B[m][q])
                        X[r][q] = v
        for t in range(S):
            stores = []
            for b in range(G):
                a_new = G - 1 - (P - b)
                if not -1 <= a_new < G:
                    continue
                best, cells = {}, {}
                for lane in range(32):
                    own = lane % S
                    if lane < S:
                        if t == S - 1 - own and a_new >= 0:
                            r = a_new * S + own
                            pre[(b, lane)] = (weights(r, a_new * S, 0xFFFF & ~((2 << own) - 1)),
                                              weights(r, (a_new + 1) * S if a_new + 1 < G else a_new * S,
                                                      0xFFFF if a_new + 1 < G else 0))
                        a = a_new if own >= S - 1 - t else a_new + 1
                        r, q = a * S + own, b * S + ((own + t + 1) & (S - 1))
                    else:
                        r, q = a_new * S + own + S - 1 - t, b * S + own
                        a = r >> 4
                    if not 0 <= a < G:
                        continue                       # the kernel reads clamped lines; nothing takes the result
                    ac = a
                    if lane < S:
                        line0 = [X[ac * S + m][q] for m in range(S)]
                        line1 = [X[(ac + 1) * S + m][q] for m in range(S)] if ac + 1 < G else line0
                    else:
                        line1 = [X[r][b * S + m] for m in range(S)]
                        line0 = [X[r][(b - 1) * S + m] for m in range(S)] if b >= 1 else line1
                    p0, p1 = pre[(b, lane)]
                    best[lane] = max(int16(w + v) for w, v in zip(p0 + p1, line0 + line1))
                    cells[lane] = (r, q)
                for own in range(S):
                    if own not in cells:
                        continue
                    r, q = cells[own]
                    col = S + ((own + t + 1) & (S - 1))
                    assert cells[col] == (r, q), (G, P, t, b, own)
                    pair = below_left(X, edge_row, edge_col, r, q) + W[r][q] if W[r][q] else 0
                    stores.append((r, q, max(best[own], best[col], X[r][q], pair)))
            for r, q, v in stores:
                X[r][q] = v
    return X == finish_in_order(tile)


def counts(schedule: str, G: int) -> dict:
    """What a tile's finish does under `schedule`: closure steps on its chain, warp-steps (a warp's step with any
    lane busy), lanes busy of those warp-steps, block barriers, whole-sub-tile product blocks (16 x 16 x 16) in all
    and on the chain (the largest a boundary, summed over boundaries: the others wait at its barrier).

    >>> c = counts("now", 4); c["chain_steps"], c["warp_steps"], c["products"], c["chain_products"]
    (217, 496, 48, 21)
    >>> c = counts("skew16", 4); c["chain_steps"], c["warp_steps"], c["products"], c["chain_products"]
    (127, 316, 24, 12)
    """
    skew = schedule != "now"
    starts = {(a, b): start_step(schedule, G, a, b) for a in range(G) for b in range(G)}
    chain_steps = max(starts.values()) + STEPS
    busy = {}                                       # (step, warp) -> lanes busy
    for (a, b), t0 in starts.items():
        for t in range(STEPS):
            key = (t0 + t, b if skew else (a, b))
            busy[key] = busy.get(key, 0) + 2 * len(closure_cells(t))
    far = {ab: (max(0, G - 2 - ab[0]) + max(0, ab[1] - 1)) if skew else (G - 1 - ab[0]) + ab[1] for ab in starts}
    by_start = {}
    for ab, t0 in starts.items():
        by_start[t0] = max(by_start.get(t0, 0), far[ab])
    if schedule == "now":
        barriers = 2 * G - 1
    elif schedule == "skew16":
        barriers = chain_steps + len(by_start)
    else:
        barriers = 2 * len(range(0, chain_steps, S))
    return {"chain_steps": chain_steps, "warp_steps": len(busy), "lane_fill": sum(busy.values()) / (32 * len(busy)),
            "products": sum(far.values()), "chain_products": sum(by_start.values()), "barriers": barriers,
            "warps": G if skew else G}


def on_wave(G: int, w: int):
    """The sub-tiles (a, b) of sub-wavefront w in warp order (finish_sub_tile: a = max(0, G - 1 - w) + warp).

    >>> on_wave(4, 1)
    [(2, 0), (3, 1)]
    """
    return [(a, w - (G - 1 - a)) for a in range(max(0, G - 1 - w), G) if w - (G - 1 - a) < G]


def far_blocks(G: int, a: int, b: int):
    """Sub-tile (a, b)'s product blocks over the farther sub-tiles (k >= 2 away), farthest first: below ones as
    ("below", a + k), then left ones as ("left", b - k); the nearest two, (a + 1, b) and (a, b - 1), are not here.

    >>> far_blocks(4, 0, 3)
    [('below', 3), ('below', 2), ('left', 0), ('left', 1)]
    """
    return [("below", x) for x in range(G - 1, a + 1, -1)] + [("left", x) for x in range(0, b - 1)]


def ahead_done(G: int, w: int, cap: int):
    """How many of each sub-tile's far blocks (in far_blocks' order) of sub-wavefront w + 1 the warps idle in w
    take (finish_sub_tile AHEAD): idle warp j of the I idle ones takes the targets j, j + I, ... in turn, at most
    `cap` blocks in all; a target's warp does the rest and the nearest two at w + 1.

    >>> ahead_done(8, 6, 6), ahead_done(8, 7, 6)
    ([6, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0])
    """
    targets = on_wave(G, w + 1) if w + 1 < 2 * G - 1 else []
    idle = G - len(on_wave(G, w))
    done = [0] * len(targets)
    if idle <= 0:
        return done
    for j in range(idle):
        budget = cap
        for t in range(j, len(targets), idle):
            done[t] = min(len(far_blocks(G, *targets[t])), budget)
            budget -= done[t]
    return done


def ahead_cover(G: int, cap: int) -> int:
    """finish_sub_tile's AHEAD index arithmetic as the kernel does it (the busy warps' ranges of rows below and
    columns left, the idle warps' targets and ranges), checked: every product block of every sub-tile is done exactly
    once, after its source sub-tile's sub-wavefront, never in the target's own range and an idle warp's at once.
    Returns the blocks done ahead.

    >>> ahead_cover(4, 10), ahead_cover(8, 10)
    (18, 188)
    """
    T, done_at = G * S, {}

    def add(a, b, rows, cols, w):
        for x in range(rows[0] // S, rows[1] // S):
            assert x >= a + 1 and (a, b, "below", x) not in done_at
            done_at[(a, b, "below", x)] = w
        for x in range(cols[0] // S, cols[1] // S):
            assert x <= b - 1 and (a, b, "left", x) not in done_at
            done_at[(a, b, "left", x)] = w

    def taken(w, t):                                 # the kernel's ahead_done<G, CAP>(w, t)
        idle = G - min(w + 1, 2 * G - 1 - w, G)
        if idle <= 0:
            return 0
        far = lambda u: len(far_blocks(G, *on_wave(G, w + 1)[u]))     # noqa: E731
        return max(0, min(far(t), cap - sum(far(u) for u in range(t % idle, t, idle))))

    for w in range(2 * G - 1):
        count = min(w + 1, 2 * G - 1 - w, G)
        for warp in range(G):
            if warp < count:
                a, b = on_wave(G, w)[warp]
                done = taken(w - 1, warp) if w >= 1 else 0
                below = min(done, max(0, G - 2 - a))
                add(a, b, ((a + 1) * S, T - below * S), ((done - below) * S, b * S), w)
            else:
                idle = G - count
                for t in range(warp - count, min(w + 2, 2 * G - 2 - w, G), idle):
                    ta, tb = on_wave(G, w + 1)[t]
                    done = taken(w, t)
                    below = min(done, max(0, G - 2 - ta))
                    add(ta, tb, (T - below * S, T), (0, (done - below) * S), w)
    for (a, b, kind, x), w in done_at.items():
        source = (G - 1 - x) + b if kind == "below" else (G - 1 - a) + x
        assert source < w
    assert len(done_at) == sum((G - 1 - a) + b for a in range(G) for b in range(G))
    return sum(1 for (a, b, _, _), w in done_at.items() if w < (G - 1 - a) + b)


def products_ahead(G: int, cap: int, closure_blocks: float = 10) -> dict:
    """`now`'s schedule with the far product blocks of sub-wavefront w + 1 taken ahead, in w, by the warps w leaves
    idle (ahead_done). The chain's products: a sub-wavefront lasts its busiest warp's products and closure
    (`closure_blocks`: a 31-step closure as long as that many product blocks, ~31 x 100 cycles over ~300), or its
    busiest idle warp's ahead blocks, if longer; less the closure, summed over sub-wavefronts.

    >>> products_ahead(4, 0)["chain_products"], products_ahead(8, 0)["chain_products"]
    (21, 105)
    """
    chain, ahead = 0, 0
    for w in range(2 * G - 1):
        done = ahead_done(G, w - 1, cap) if w >= 1 else [0] * len(on_wave(G, w))
        own = [(a + 1 < G) + (b >= 1) + len(far_blocks(G, a, b)) - done[t] for t, (a, b) in enumerate(on_wave(G, w))]
        taken = ahead_done(G, w, cap)
        idle = G - len(on_wave(G, w))
        by_idle = [sum(taken[t] for t in range(j, len(taken), idle)) for j in range(max(idle, 0))]
        chain += max([max(own) + closure_blocks] + by_idle) - closure_blocks
        ahead += sum(taken)
    return {"chain_products": chain, "ahead": ahead}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sides", default="4,8", help="sub-tiles a side: 4 (64-tiles, the batch), 8 (128-tiles)")
    ap.add_argument("--trials", type=int, default=2, help="random tiles a schedule and side")
    args = ap.parse_args()
    print("| sub-tiles a side | schedule | same cells as in order | closure steps on the chain | warp-steps | "
          "lanes busy | barriers | product blocks (on the chain) |")
    print("|---:|---|---|---:|---:|---:|---:|---|")
    for G in (int(x) for x in args.sides.split(",")):
        c_now = counts("now", G)
        for schedule in SCHEDULES:
            equal = all(check(schedule, G, seed)["equal"] for seed in range(args.trials))
            c = counts(schedule, G)
            print(f"| {G} | {schedule} | {equal} | {c['chain_steps']} | {c['warp_steps']} | {c['lane_fill']:.0%} | "
                  f"{c['barriers']} | {c['products']} ({c['chain_products']}) |")
        for capacity in (4, 6, 8):
            p = products_ahead(G, capacity)
            print(f"| {G} | now, farther products ahead on idle warps ({capacity} blocks a warp and sub-wavefront) | - | "
                  f"{c_now['chain_steps']} | | | {c_now['barriers']} | {c_now['products']} ({p['chain_products']}; "
                  f"{p['ahead']} ahead) |")


if __name__ == "__main__":
    main()
