"""The query-inner product of BPMax on the device: how near the DPX ceiling its register-tiled form runs (issue 29).

Today's GPU BPMax runs query levels outer: products of banded target matrices, then a Nussinov-like finish along the
target. In query-inner order (target diagonal outer, each target cell the vector of all query intervals) D, R1 and R2
are, for every interior target split, one triangular max-plus product of two 24 x 24 triangles (2,576 terms for a
23-nt query), whose every operand is used 4 times from registers and whose stages are reused by a tile of 8 x 8
target cells: no band squares, no finish chain along the target. Whether that order can reach issue 29's row hangs
first on this product's rate, measured here on random operands (bench/bpmax_query_product.cu has the layout):

  variant  KS splits a stage, MINB blocks an SM, restage (false: one stage computed again and again, no copies)

Every restaged variant's output is checked against numpy on two tiles (every output of every lane and half).

    python3 bench/bpmax_query_product.py [--tiles 4096] [--splits 128] [--repeats 5] [--json docs/results/...json]
"""
import argparse
import os
import statistics
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "tests"))

from bpmax_query_tiles import balanced_warps  # noqa: E402 (the plain-Python tiled form the kernel follows)
from _ceilings import INT16X2_DPX  # noqa: E402
from _results import save_json  # noqa: E402

SOURCE = os.path.join(HERE, "bpmax_query_product.cu")
SIDE, VEC, THREADS = 512, 336, 224        # the random table's rows and columns (cells); words a vector; a block
VARIANTS = ((2, 2, True), (2, 3, True), (1, 3, True), (1, 4, True), (2, 2, False), (2, 3, False), (1, 4, False))


def expressions() -> list:
    return [f"query_tiles<{ks}, {minb}, {'true' if restage else 'false'}>" for ks, minb, restage in VARIANTS]


def warp_codes() -> list:
    """Each warp's query tiles as a * 8 + b (-1 for an empty slot), the kernel's WARP_TILES.

    >>> warp_codes()[0]
    [5, 0, 9]
    """
    return [[a * 8 + b for a, b in w] + [-1] * (3 - len(w)) for w in balanced_warps(7)]


def operands(cp, seed: int = 5):
    """A random table of cells, each 21 blocks of 4 x 4 int16 values, as the two layouts the kernel reads."""
    rng = cp.random.default_rng(seed)
    cells = rng.integers(0, 400, size=(SIDE, SIDE, VEC), dtype=cp.int16)
    within = cp.arange(VEC).reshape(21, 4, 4)
    transposed = within.transpose(0, 2, 1).reshape(VEC)           # each block column by column
    single = cells[:, :, transposed].astype(cp.uint32) & 0xFFFF
    Ad = single | (single << 16)                                   # a cell's value in both halves
    low = cells[:, 0::2, :].astype(cp.uint32) & 0xFFFF
    high = cells[:, 1::2, :].astype(cp.uint32) & 0xFFFF
    Bp = low | (high << 16)                                        # columns 2c and 2c + 1 in one word
    return cells, Ad, Bp


def vector_index() -> tuple:
    """(A, B): for each (x, y), x <= y < 24, the word of the A copy (blocks column by column) and of the B copy
    (row by row) holding G[x][y]; -1 below the diagonal.

    >>> A, B = vector_index()
    >>> int(A[0, 1]), int(B[0, 1]), int(A[4, 23]), int(B[23, 4])
    (4, 1, 172, -1)
    """
    A = np.full((24, 24), -1, dtype=np.int64)
    B = np.full((24, 24), -1, dtype=np.int64)
    for x in range(24):
        for y in range(x, 24):
            p, q = x // 4, y // 4
            block = 6 * p - p * (p - 1) // 2 + q - p
            A[x, y] = 16 * block + (y % 4) * 4 + x % 4
            B[x, y] = 16 * block + (x % 4) * 4 + y % 4
    return A, B


def expand(vectors):
    """Vectors of 336 block-ordered values (the B layout) as 24 x 24 triangles (x <= y), -10^6 elsewhere (numpy).

    >>> import numpy as np
    >>> G = expand(np.arange(336))
    >>> int(G[0, 1]), int(G[4, 23]), int(G[23, 23]), int(G[1, 0])
    (1, 163, 335, -1000000)
    """
    _, order = vector_index()
    x, y = np.triu_indices(24)
    full = np.full(vectors.shape[:-1] + (24, 24), -10**6, dtype=np.int64)
    full[..., x, y] = vectors[..., order[x, y]]
    return full


def check_tile(cells, out, tile: int, tiles, K: int) -> int:
    """Outputs of one tile that differ from numpy's product (every lane, half and output with i < j', i <= 22)."""
    row0, pair0, k0 = (int(v) for v in tiles[tile])
    A = expand(cells[row0:row0 + 8, k0:k0 + K].astype(np.int64))                       # (8, K, 24, 24)
    B = expand(cells[k0 + 1:k0 + K + 1, 2 * pair0:2 * pair0 + 8].astype(np.int64))     # (K, 8, 24, 24)
    i, j = np.indices((24, 24))
    wrong = 0
    for lane in range(32):
        r, p = lane >> 2, lane & 3
        got = expand(out[tile, lane].view(np.int16).reshape(VEC, 2).T.astype(np.int64))   # (2, 24, 24)
        for h in range(2):
            sums = A[r][:, :, :, None] + B[:, 2 * p + h][:, None, :, :]                  # (K, i, m, j')
            m = np.arange(24)
            inside = (m[None, :, None] >= i[:, None, :]) & (m[None, :, None] <= j[:, None, :])
            want = np.where(inside[None], sums, -10**7).max(axis=(0, 2))
            valid = (i < j) & (i <= 22)
            wrong += int((got[h][valid] != want[valid]).sum())
    return wrong


def measure(n_tiles: int, K: int, repeats: int, only=None) -> list:
    import cupy as cp
    from bioaccel.runtime import gpu

    gpu.require_gpu()
    from importlib import resources

    shared = f"-I{resources.files(gpu.SHARED_KERNELS)}"
    module = cp.RawModule(code=open(SOURCE).read(), options=("--std=c++17", f"-arch=sm_{gpu.compute_capability()}",
                                                             shared, f"-I{HERE}"), name_expressions=tuple(expressions()))
    cells, Ad, Bp = operands(cp)
    t = np.arange(n_tiles)
    tiles = np.stack([8 * (t % (SIDE // 8)), 4 * ((t // (SIDE // 8)) % (SIDE // 8)),
                      (14 * t) % (SIDE - K - 2) // 2 * 2], axis=1).astype(np.int32)
    codes = np.array(warp_codes(), dtype=np.int32)
    tiles_d, codes_d = cp.asarray(tiles.ravel()), cp.asarray(codes.ravel())
    out = cp.zeros((n_tiles, 32, VEC), dtype=cp.uint32)
    cells_host = cp.asnumpy(cells)
    rows = []
    for index, ((ks, minb, restage), expression) in enumerate(zip(VARIANTS, expressions())):
        if only is not None and index not in only:
            continue
        assert K % ks == 0, f"{K} splits are not whole stages of {ks}"
        function = module.get_function(expression)
        shared_bytes = 2 * ks * 12 * 85 * 16
        function.max_dynamic_shared_size_bytes = shared_bytes
        args = (Ad, Bp, np.int32(SIDE), np.int32(SIDE // 2), tiles_d, np.int32(K), codes_d, out)
        function((n_tiles,), (THREADS,), args, shared_mem=shared_bytes)
        cp.cuda.Device().synchronize()
        wrong = None
        if restage:
            host = cp.asnumpy(out)
            wrong = sum(check_tile(cells_host, host, tile, tiles, K) for tile in (0, n_tiles - 1))
        times = []
        for _ in range(repeats):
            start, stop = cp.cuda.Event(), cp.cuda.Event()
            start.record()
            function((n_tiles,), (THREADS,), args, shared_mem=shared_bytes)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop) / 1e3)
        seconds = statistics.median(times)
        useful = 2 * n_tiles * 32 * K * 2576            # updates: two a DPX lane operation
        rows.append({"splits_a_stage": ks, "blocks_an_sm": minb, "restage": restage, "seconds": seconds,
                     "useful_updates_per_s": useful / seconds, "of_ceiling": useful / seconds / INT16X2_DPX,
                     "wrong_outputs": wrong, "registers": function.num_regs, "spill_bytes": function.local_size_bytes, "shared_bytes": shared_bytes})
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tiles", type=int, default=4096)
    ap.add_argument("--splits", type=int, default=128)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--only", default="", help="comma-separated indices into VARIANTS (default: all)")
    ap.add_argument("--json", default="")
    args = ap.parse_args(argv)
    only = {int(i) for i in args.only.split(",")} if args.only else None
    rows = measure(args.tiles, args.splits, args.repeats, only)
    print(f"query-inner product: {args.tiles} tiles of 8 x 8 target cells x {args.splits} splits, 23-nt query "
          f"(2,576 useful terms a split, 2,600 issued); fraction of the int16x2 DPX ceiling {INT16X2_DPX / 1e12:.1f} T/s")
    print("| splits a stage | blocks an SM | restaged | registers (spilled bytes) | ms | useful T updates/s | of ceiling "
          "| wrong |")
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['splits_a_stage']} | {r['blocks_an_sm']} | {r['restage']} | {r['registers']} ({r['spill_bytes']}) | "
              f"{r['seconds'] * 1e3:.3f} | {r['useful_updates_per_s'] / 1e12:.2f} | {r['of_ceiling']:.1%} | "
              f"{r['wrong_outputs'] if r['wrong_outputs'] is not None else 'n/a'} |")
    if args.json:
        save_json({"tiles": args.tiles, "splits": args.splits, "repeats": args.repeats, "ceiling": INT16X2_DPX,
                   "rows": rows}, args.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
