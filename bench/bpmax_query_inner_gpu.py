"""BPMax in query-inner order on the GPU, a whole windowed fill as a bench prototype (issue 29; the kernel and its
schedule: bench/bpmax_query_inner.cu; the order's plain-Python reference: tests/bpmax_query_inner.py).

Every target cell (i2, j2) of the band holds the vector of all query intervals; the target is filled in 8 x 8 tiles,
one launch per tile diagonal, each tile's bulk of splits by the product micro-benchmark's loop
(bench/bpmax_query_product.cu), its in-tile chain and the closure over the query by a warp a cell.

Checks: tests/test_bpmax_query_inner_gpu.py (every cell of the band equal to fill_naive on small pairs); here, at
23 x 20,000 nt with target window 128 (bench/bpmax_gpu.py's pair of random.Random(5)), the window scores against the
production's window_scores in the same run and against its digest. Timing: the fill's device time (events, median
of --repeats), split by the kernel's parts (bulk alone, bulk + chain products, all), beside the production's.

    python3 bench/bpmax_query_inner_gpu.py [--target 20000] [--repeats 5] [--json docs/results/...json]
    python3 bench/bpmax_query_inner_gpu.py --smoke          # one small pair against fill_naive, every cell
"""
import argparse
import hashlib
import os
import random
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bpmax_query_product import warp_codes  # noqa: E402 (the balanced warps' query tiles)
from _ceilings import INT16X2_DPX  # noqa: E402
from _results import save_json  # noqa: E402

SOURCE = os.path.join(HERE, "bpmax_query_inner.cu")
VEC, THREADS, SIDE = 336, 224, 24
SHARED_BYTES = 43008 + 7 * SIDE * SIDE * 4 + SIDE * SIDE * 4 + 64 * 4   # qi::SHARED_BYTES
SENTINEL = 0xC000C000
PARTS = {"bulk": 1, "bulk + chain": 3, "all": 7}     # the kernel's Parts (only "all" gives the right values)
DIGEST_23X20000 = "c56b73387ac523d6"                 # the production's window scores at 23 x 20,000 nt, W = 128


def vector_index() -> tuple:
    """(A, B): for each (x, y), x <= y < 24, the word of the A copy (blocks column by column) and of the B copy
    (row by row) holding G[x][y]; -1 below the diagonal.

    >>> A, B = vector_index()
    >>> int(A[0, 1]), int(B[0, 1]), int(A[4, 23]), int(B[23, 4])
    (4, 1, 172, -1)
    """
    A = np.full((SIDE, SIDE), -1, dtype=np.int64)
    B = np.full((SIDE, SIDE), -1, dtype=np.int64)
    for x in range(SIDE):
        for y in range(x, SIDE):
            p, q = x // 4, y // 4
            block = 6 * p - p * (p - 1) // 2 + q - p
            A[x, y] = 16 * block + (y % 4) * 4 + x % 4
            B[x, y] = 16 * block + (x % 4) * 4 + y % 4
    return A, B


def band_shape(N: int, L2: int) -> tuple:
    """(tiles along the target, largest tile diagonal filled, slots a row) of the band storage.

    >>> band_shape(20000, 129)
    (2500, 16, 136)
    """
    tiles = -(-N // 8)
    deltas = min((L2 - 1 + 7) // 8, tiles - 1)
    return tiles, deltas, 8 * (deltas + 1)


def load(cp):
    """The compiled module (every Parts variant)."""
    from importlib import resources

    from bioaccel.runtime import gpu

    gpu.require_gpu()
    options = ("--std=c++17", f"-arch=sm_{gpu.compute_capability()}", f"-I{resources.files(gpu.SHARED_KERNELS)}",
               f"-I{HERE}")
    names = tuple(f"query_inner_delta<{p}>" for p in PARTS.values())
    return cp.RawModule(code=open(SOURCE).read(), options=options, name_expressions=names)


def prepare(cp, a, rb, params) -> dict:
    """The device inputs and the band storage of query codes ``a`` against reversed target codes ``rb``."""
    from bioaccel.interact._strands import strand_band

    M, N = len(a), len(rb)
    L1, L2 = params.spans(M, N)
    assert 1 <= M <= 23 and L1 == M, "the prototype holds a whole query of at most 23 nt (no query window)"
    S1band = strand_band(a, params.fold_params, L1)
    S2band = np.ascontiguousarray(strand_band(rb, params.fold_params, L2)[:, :L2], dtype=np.int32)
    S1 = np.zeros((SIDE, SIDE), dtype=np.int32)
    for i in range(M):
        for d in range(M - i):
            S1[i, i + d] = S1band[i, d]
    tiles, deltas, slots = band_shape(N, L2)
    rows = 8 * tiles + 8
    return dict(M=M, N=N, L2=L2, tiles=tiles, deltas=deltas, slots=slots, S2band=S2band,
                A=cp.full(rows * slots * VEC, SENTINEL, dtype=cp.uint32),
                B=cp.full(rows * (slots // 2) * VEC, SENTINEL, dtype=cp.uint32),
                S1=cp.asarray(S1), pairs=cp.asarray(params.pair_table().astype(np.int32).ravel()),
                a=cp.asarray(np.asarray(a, dtype=np.int32)), rb=cp.asarray(np.asarray(rb, dtype=np.int8)),
                S2=cp.asarray(S2band), codes=cp.asarray(np.array(warp_codes(), dtype=np.int32).ravel()),
                win=cp.zeros(N - L2 + 1, dtype=cp.int32))


def fill(cp, module, state: dict, parts: int = 7, events: "list | None" = None) -> None:
    """One fill, a launch per tile diagonal; ``events``, when given, gets each launch's (start, stop) events."""
    function = module.get_function(f"query_inner_delta<{parts}>")
    function.max_dynamic_shared_size_bytes = SHARED_BYTES
    s = state
    for delta in range(s["deltas"] + 1):
        args = (s["A"], s["B"], np.int32(s["slots"]), np.int32(delta), np.int32(s["M"]), np.int32(s["N"]),
                np.int32(s["L2"]), s["S1"], s["pairs"], s["a"], s["rb"], s["S2"], s["codes"], s["win"])
        if events is not None:
            events.append((cp.cuda.Event(), cp.cuda.Event()))
            events[-1][0].record()
        function((s["tiles"] - delta,), (THREADS,), args, shared_mem=SHARED_BYTES)
        if events is not None:
            events[-1][1].record()


def window_outputs(cp, state: dict) -> tuple:
    """(win, folds) as window_scores gives them: win (1, N - L2 + 1), folds (N - L2 + 1,), int32."""
    rows = state["N"] - state["L2"] + 1
    return cp.asnumpy(state["win"]).reshape(1, rows), state["S2band"][:rows, state["L2"] - 1].copy()


def band_cells(cp, state: dict) -> tuple:
    """(F, S2 diagonal, B agrees): the dense F[i1, j1, i2, j2] (int32, zero off the band and below j1 >= i1) the A
    copies hold, the diagonals G[x][x] of every band cell (M + 1, N, N) and whether every B copy equals its A copy."""
    M, N, L2, slots = state["M"], state["N"], state["L2"], state["slots"]
    A = cp.asnumpy(state["A"]).view(np.int16).reshape(-1, slots, VEC, 2)[..., 0]
    B = cp.asnumpy(state["B"]).view(np.int16).reshape(-1, slots // 2, VEC, 2)
    ai, bi = vector_index()
    x, y = np.triu_indices(M + 1)
    F = np.zeros((M, M, N, N), dtype=np.int32)
    diagonal = np.zeros((M + 1, N, N), dtype=np.int32)
    agrees = True
    for i2 in range(N):
        for j2 in range(i2, min(N, i2 + L2)):
            slot = j2 - 8 * (i2 // 8)
            a_vec, b_vec = A[i2, slot], B[i2, slot // 2, :, j2 & 1]
            agrees &= bool(np.array_equal(a_vec[ai[x, y]], b_vec[bi[x, y]]))
            G = np.zeros((SIDE, SIDE), dtype=np.int32)
            G[x, y] = a_vec[ai[x, y]]
            F[:, :, i2, j2] = np.triu(G[:M, 1:M + 1])
            diagonal[:, i2, j2] = np.diagonal(G)[:M + 1]
    return F, diagonal, agrees


def smoke(cp, module) -> int:
    """One small pair (23 x 61 nt, window 20) against fill_naive, every cell; 0 when equal."""
    from bioaccel.interact import InteractParams
    from bioaccel.interact._naive import fill_naive
    from bioaccel.interact._strands import single_strand_table
    from bpmax_gpu import random_codes

    rng = random.Random(3)
    params = InteractParams(window_target=20)
    a, rb = random_codes(rng, 23), random_codes(rng, 61)
    state = prepare(cp, a, rb, params)
    fill(cp, module, state)
    F, _, agrees = band_cells(cp, state)
    L1, L2 = params.spans(len(a), len(rb))
    want = fill_naive(a, rb, params.pair_table(), single_strand_table(a, params.fold_params),
                      single_strand_table(rb, params.fold_params), L1, L2)
    wrong = int((F != want).sum())
    print(f"smoke 23 x 61 nt, window 20: {wrong} cells differ from fill_naive; B copies equal A: {agrees}")
    if wrong:   # where: by target interval length, by place in the 8 x 8 tile, by query interval length
        i1, j1, i2, j2 = np.nonzero(F != want)
        for name, key in (("e", j2 - i2), ("tile delta", j2 // 8 - i2 // 8), ("u, v", (i2 % 8) * 8 + j2 % 8),
                          ("l1", j1 - i1 + 1)):
            values, counts = np.unique(key, return_counts=True)
            print(f"  differ by {name}:", dict(zip(values.tolist(), counts.tolist())))
        for k in range(min(8, wrong)):
            cell = (i1[k], j1[k], i2[k], j2[k])
            print(f"  F{tuple(int(v) for v in cell)} = {F[cell]}, fill_naive {want[cell]}")
    return 0 if wrong == 0 and agrees else 1


def row(cp, module, target: int, repeats: int) -> dict:
    """The 23 x target row, W = 128: checks against the production in the same run, then timings (ms)."""
    from bioaccel.interact import InteractParams
    from bioaccel.interact._model import work
    from bpmax_gpu import gpu_row

    params = InteractParams(window_target=128)
    production = gpu_row(cp, 23, target, params, repeats, random.Random(5))
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._strands import strand_band

    a, rb = production["a"], production["rb"]
    want = window_scores(a, strand_band(a, params.fold_params, 23), [rb], params)[0]
    state = prepare(cp, a, rb, params)
    fill(cp, module, state)
    win, folds = window_outputs(cp, state)
    digest = hashlib.sha256(win.astype(want[0].dtype).tobytes() + folds.astype(want[1].dtype).tobytes()).hexdigest()
    result = dict(M=23, N=target, window=128, digest=digest[:16], production_digest=production["scores_sha256"],
                  equal_to_production=bool(np.array_equal(win, want[0]) and np.array_equal(folds, want[1])),
                  production_end_to_end_s=production["end_to_end_s"], production_products_s=production["products_s"],
                  production_finish_s=production["finish_s"],
                  updates=work(23, target, *params.spans(23, target)) / 2)
    for name, parts in PARTS.items():
        totals, by_delta = [], []
        for _ in range(repeats):
            events = []
            fill(cp, module, state, parts, events)
            events[-1][1].synchronize()
            times = [cp.cuda.get_elapsed_time(start, stop) / 1e3 for start, stop in events]
            totals.append(sum(times))
            by_delta.append(times)
        result[f"{name}_s"] = statistics.median(totals)
        result[f"{name}_by_delta_s"] = [statistics.median(t) for t in zip(*by_delta)]
    return result


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    import cupy as cp

    module = load(cp)
    if args.smoke:
        return smoke(cp, module)
    r = row(cp, module, args.target, args.repeats)
    fill_s = r["all_s"]
    print(f"BPMax 23 x {args.target:,} nt, target window 128, query-inner order (8 x 8 target tiles, a launch per "
          f"tile diagonal); window scores' digest {r['digest']} (production {r['production_digest']}, wanted "
          f"{DIGEST_23X20000} at 20,000 nt), equal to the production's window_scores: {r['equal_to_production']}")
    print("| part | ms (device, median of launches' sums) | of int16x2 ceiling on the whole row's useful updates |")
    print("|---|---|---|")
    split = {"bulk (and the cells' writes)": r["bulk_s"], "chain products": r["bulk + chain_s"] - r["bulk_s"],
             "closure over the query": r["all_s"] - r["bulk + chain_s"], "whole fill": fill_s}
    for name, seconds in split.items():
        share = f"{r['updates'] / seconds / INT16X2_DPX:.1%}" if name == "whole fill" else ""
        print(f"| {name} | {seconds * 1e3:.2f} | {share} |")
    print(f"| production window_scores end to end (gpu_row, median) | {r['production_end_to_end_s'] * 1e3:.2f} | "
          f"{r['updates'] / r['production_end_to_end_s'] / INT16X2_DPX:.1%} |")
    print("by tile diagonal (ms, all parts):", " ".join(f"{t * 1e3:.2f}" for t in r["all_by_delta_s"]))
    if args.json:
        save_json({"ceiling": INT16X2_DPX, "row": r}, args.json)
    return 0 if r["equal_to_production"] and (args.target != 20000 or r["digest"] == DIGEST_23X20000) else 1


if __name__ == "__main__":
    sys.exit(main())
