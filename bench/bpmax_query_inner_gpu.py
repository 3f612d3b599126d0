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
from typing import NamedTuple

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bpmax_query_product import vector_index, warp_codes  # noqa: E402 (the vector layout, the warps' tiles)
from _ceilings import INT16X2_DPX  # noqa: E402
from _results import save_json  # noqa: E402

SOURCE = os.path.join(HERE, "bpmax_query_inner.cu")
VEC, THREADS, SIDE = 336, 224, 24
TABLE_BYTES = SIDE * 25 * 4 + 64 * 4                          # qi::TABLE_BYTES: S1, pairs and codes
SHARED_BYTES = 43008 + 7 * 2 * VEC * 4 + TABLE_BYTES          # qi::SHARED_BYTES: the fused kernel's
BULK_BYTES = 2 * 12 * 85 * 16                                 # the split form's bulk: two stages
CHAIN_WARPS = 8
SENTINEL = 0xC000C000
PARTS = {"bulk": 1, "bulk + chain": 3, "all": 7}     # the kernel's Parts (only "all" gives the right values)
FORMS = {0: "fused, first (chain operands from global memory, a lane an interval's closure)",
         1: "fused, chain splits staged in shared memory, closure split among lanes",
         2: "split (bulk launch, then chain launch of 8 warps a tile, 4 tiles an SM), staged, a lane an interval",
         3: "split, staged, closure split among lanes",
         4: "split, staged, a lane an interval, 5 tiles an SM (48 registers)",
         8: "form 4 with the bulk's fixed copy lanes, the chain's products by balanced lanes (3 untrimmed blocks a "
            "lane at most) through a ring of 2 buffers a warp, 4 tiles an SM",
         10: "fixed bulk copies, balanced lanes on padded blocks (no bank conflicts), 1 chain buffer a warp, 5 tiles",
         11: "form 10 at 4 tiles an SM"}
#: Forms 5-7, 9 and 12 (rings of 2 or 3 chain buffers a warp at 3-5 tiles an SM: no gain, bpmaxqc's calls 1 and 2 in
#: docs/bpmax-gpu-notes.md) are left in commit 6071de2; the kernel keeps its DEPTH (form 8's ring).


class Split(NamedTuple):
    """A split form's kernels: the chain's closure split among lanes, its tiles an SM (launch bounds), its buffers a
    warp, the bulk's fixed copy lanes, the chain's products by balanced lanes, their blocks padded to 5 groups."""
    grouped: bool
    blocks: int
    depth: int = 1
    fixed_bulk: bool = False
    balanced: bool = False
    padded: bool = False


SPLIT = {2: Split(False, 4), 3: Split(True, 4), 4: Split(False, 5), 8: Split(False, 4, 2, True, True),
         10: Split(False, 5, 1, True, True, True), 11: Split(False, 4, 1, True, True, True)}
DIGEST_23X20000 = "c56b73387ac523d6"                 # the production's window scores at 23 x 20,000 nt, W = 128


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
    names = tuple(f"query_inner_delta<{p}, {f}>" for p in PARTS.values() for f in (0, 1))
    names += tuple(bulk_name(form) for form in (2, 8))
    names += tuple(chain_name(p, form) for p in (3, 7) for form in SPLIT)
    return cp.RawModule(code=open(SOURCE).read(), options=options, name_expressions=names)


def chain_name(parts: int, form: int) -> str:
    """The split form's chain kernel.

    >>> chain_name(7, 3), chain_name(3, 10)
    ('query_inner_chain<7, true, 4, 1, false, false>', 'query_inner_chain<3, false, 5, 1, true, true>')
    """
    f, flag = SPLIT[form], {True: "true", False: "false"}
    return (f"query_inner_chain<{parts}, {flag[f.grouped]}, {f.blocks}, {f.depth}, {flag[f.balanced]}, "
            f"{flag[f.padded]}>")


def chain_bytes(form: int) -> int:
    """The split form's chain kernel's shared memory (qi: CHAIN_WARPS * DEPTH * SLOT_BYTES + TABLE_BYTES).

    >>> chain_bytes(4), chain_bytes(8), chain_bytes(10)
    (24160, 45664, 29536)
    """
    f = SPLIT[form]
    return CHAIN_WARPS * f.depth * (2 * 21 * (5 if f.padded else 4) * 16) + TABLE_BYTES


def bulk_name(form: int) -> str:
    """The split form's bulk kernel.

    >>> bulk_name(4), bulk_name(8)
    ('query_inner_bulk<false>', 'query_inner_bulk<true>')
    """
    return f"query_inner_bulk<{'true' if SPLIT[form].fixed_bulk else 'false'}>"


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
                win=cp.zeros(N - L2 + 1, dtype=cp.int32), scratch=cp.empty(tiles * 32 * VEC, dtype=cp.uint32))


def fill(cp, module, state: dict, parts: int = 7, events: "list | None" = None, form: int = 1) -> None:
    """One fill by the kernel's ``form``, by tile diagonals; ``events``, when given, gets each launch's (kind, start,
    stop), kind "fused", "bulk" or "chain"."""
    s = state
    tables = (np.int32(s["M"]), np.int32(s["N"]), np.int32(s["L2"]), s["S1"], s["pairs"], s["a"], s["rb"], s["S2"])

    def launch(kind, function, threads, shared, args, grid):
        function.max_dynamic_shared_size_bytes = shared
        if events is not None:
            events.append((kind, cp.cuda.Event(), cp.cuda.Event()))
            events[-1][1].record()
        function((grid,), (threads,), args, shared_mem=shared)
        if events is not None:
            events[-1][2].record()

    band = (s["A"], s["B"], np.int32(s["slots"]))
    for delta in range(s["deltas"] + 1):
        grid = s["tiles"] - delta
        if form in SPLIT:
            if delta:
                launch("bulk", module.get_function(bulk_name(form)), THREADS, BULK_BYTES,
                       band + (np.int32(delta), s["codes"], s["scratch"]), grid)
            launch("chain", module.get_function(chain_name(parts if parts != 1 else 3, form)), 32 * CHAIN_WARPS,
                   chain_bytes(form), band + (np.int32(delta),) + tables + (s["scratch"], s["win"]), grid)
        else:
            launch("fused", module.get_function(f"query_inner_delta<{parts}, {form}>"), THREADS, SHARED_BYTES,
                   band + (np.int32(delta),) + tables + (s["codes"], s["win"]), grid)


def chain_occupancy(cp, module, form: int) -> int:
    """The split form's chain kernel's resident tiles an SM, by the driver's occupancy calculator (-1 if not given)."""
    function = module.get_function(chain_name(7, form))
    function.max_dynamic_shared_size_bytes = chain_bytes(form)
    try:
        return int(cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(function.ptr, 32 * CHAIN_WARPS,
                                                                            chain_bytes(form)))
    except Exception:   # noqa: BLE001 (a diagnostic only)
        return -1


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
    L1, L2 = params.spans(len(a), len(rb))
    want = fill_naive(a, rb, params.pair_table(), single_strand_table(a, params.fold_params),
                      single_strand_table(rb, params.fold_params), L1, L2)
    failed = 0
    for form in FORMS:
        state = prepare(cp, a, rb, params)
        fill(cp, module, state, form=form)
        F, _, agrees = band_cells(cp, state)
        wrong = int((F != want).sum())
        print(f"smoke form {form}, 23 x 61 nt, window 20: {wrong} cells differ from fill_naive; B copies equal A: "
              f"{agrees}")
        failed += wrong > 0 or not agrees
        if wrong:
            where(F, want, wrong)
    return 1 if failed else 0


def where(F, want, wrong: int) -> None:
    """Where the cells differ: by target interval length, tile diagonal, place in the 8 x 8 tile, query length."""
    i1, j1, i2, j2 = np.nonzero(F != want)
    for name, key in (("e", j2 - i2), ("tile delta", j2 // 8 - i2 // 8), ("u, v", (i2 % 8) * 8 + j2 % 8),
                      ("l1", j1 - i1 + 1)):
        values, counts = np.unique(key, return_counts=True)
        print(f"  differ by {name}:", dict(zip(values.tolist(), counts.tolist())))
    for k in range(min(8, wrong)):
        cell = (i1[k], j1[k], i2[k], j2[k])
        print(f"  F{tuple(int(v) for v in cell)} = {F[cell]}, fill_naive {want[cell]}")


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
    result = dict(M=23, N=target, window=128, production_digest=production["scores_sha256"],
                  production_end_to_end_s=production["end_to_end_s"], production_products_s=production["products_s"],
                  production_finish_s=production["finish_s"],
                  updates=work(23, target, *params.spans(23, target)) / 2, forms={})
    for form in FORMS:
        state = prepare(cp, a, rb, params)
        fill(cp, module, state, form=form)
        win, folds = window_outputs(cp, state)
        digest = hashlib.sha256(win.astype(want[0].dtype).tobytes() + folds.astype(want[1].dtype).tobytes())
        mine = result["forms"][form] = dict(
            digest=digest.hexdigest()[:16],
            equal_to_production=bool(np.array_equal(win, want[0]) and np.array_equal(folds, want[1])))
        for name, parts in PARTS.items():
            if form in SPLIT and parts == 1:
                continue   # the split form's bulk is its own launches
            totals, kinds, by_launch = [], [], []
            for _ in range(repeats):
                events = []
                fill(cp, module, state, parts, events, form)
                events[-1][2].synchronize()
                times = [cp.cuda.get_elapsed_time(start, stop) / 1e3 for _, start, stop in events]
                totals.append(sum(times))
                kinds = [kind for kind, _, _ in events]
                by_launch.append(times)
            mine[f"{name}_s"] = statistics.median(totals)
            mine[f"{name}_by_launch_s"] = [statistics.median(t) for t in zip(*by_launch)]
            mine[f"{name}_launches"] = kinds
        if form in SPLIT:
            mine["chain_tiles_an_sm"] = chain_occupancy(cp, module, form)
        if form in SPLIT:   # bulk: its launches; "bulk + chain": those and the chain's without the closure
            mine["bulk_s"] = sum(t for t, kind in zip(mine["all_by_launch_s"], mine["all_launches"]) if kind == "bulk")
        del state
    return result


def profile(cp, module, target: int, form: int) -> int:
    """Two fills of the 23 x target row (W = 128, the row's pair) by ``form`` alone, nothing else on the device."""
    from bioaccel.interact import InteractParams
    from bpmax_gpu import random_codes

    rng = random.Random(5)
    a, rb = random_codes(rng, 23), random_codes(rng, target)
    state = prepare(cp, a, rb, InteractParams(window_target=128))
    for _ in range(2):
        fill(cp, module, state, form=form)
    cp.cuda.Device().synchronize()
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", type=int, default=20000)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--smoke", action="store_true")
    ap.add_argument("--json", default="")
    ap.add_argument("--profile", type=int, default=-1, help="FORM: two fills by it alone (for Nsight Compute)")
    args = ap.parse_args(argv)
    import cupy as cp

    module = load(cp)
    if args.smoke:
        return smoke(cp, module)
    if args.profile >= 0:
        return profile(cp, module, args.target, args.profile)
    r = row(cp, module, args.target, args.repeats)
    print(f"BPMax 23 x {args.target:,} nt, target window 128, query-inner order (8 x 8 target tiles, a launch per "
          f"tile diagonal); the production's window scores' digest {r['production_digest']} (wanted "
          f"{DIGEST_23X20000} at 20,000 nt)")
    print("| form | digest | equal to the production | bulk (and the cells' writes) ms | chain products ms | closure ms "
          "| whole fill ms | of int16x2 ceiling |")
    print("|---|---|---|---|---|---|---|---|")
    ok = True
    for form, m in r["forms"].items():
        print(f"| {form}: {FORMS[form]} | {m['digest']} | {m['equal_to_production']} | {m['bulk_s'] * 1e3:.2f} | "
              f"{(m['bulk + chain_s'] - m['bulk_s']) * 1e3:.2f} | {(m['all_s'] - m['bulk + chain_s']) * 1e3:.2f} | "
              f"{m['all_s'] * 1e3:.2f} | {r['updates'] / m['all_s'] / INT16X2_DPX:.1%} |")
        if form in SPLIT:
            print(f"form {form}: chain tiles an SM {m['chain_tiles_an_sm']}; bulk launches "
                  f"{m['bulk_s'] * 1e3:.2f} ms, chain launches {(m['all_s'] - m['bulk_s']) * 1e3:.2f} ms")
        print(f"form {form} by launch (ms, all parts):", " ".join(f"{k[0]}{t * 1e3:.2f}" for k, t in
                                                                zip(m["all_launches"], m["all_by_launch_s"])))
        ok &= m["equal_to_production"] and (args.target != 20000 or m["digest"] == DIGEST_23X20000)
    print(f"production window_scores end to end (gpu_row, median of {args.repeats}): "
          f"{r['production_end_to_end_s'] * 1e3:.2f} ms ({r['updates'] / r['production_end_to_end_s'] / INT16X2_DPX:.1%}"
          f" of the ceiling; products {r['production_products_s'] * 1e3:.2f} ms, finish "
          f"{r['production_finish_s'] * 1e3:.2f} ms)")
    if args.json:
        save_json({"ceiling": INT16X2_DPX, "forms": FORMS, "row": r}, args.json)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
