"""The tiled batch's diagonal tiles by batch_finish_diag (SIZES.batch_diagonal 1) against batch_finish_sub_diag (2),
cell by cell (issue 29, helper nbdiag): both kernels alone on the same tables (sentinel -7 elsewhere), every cell
the first writes compared, the first differing cells printed as (tile I, row r, column q, d1, d2). On a GPU:
``python3 bench/nbdiag_check.py``."""
import numpy as np

import cupy as cp
from bioaccel.fold import FoldParams, _launch
from bioaccel.fold._gpu_batch_tiled import tiled_kernels
from bioaccel.fold._gpu_table import pair_model
from bioaccel.fold._gpu_tiled import tiles_per_side


def diagonal_tables(params, codes, n, tile, closure, diagonal, cells):
    sizes = _launch.SIZES.replace(batch_tile=tile, batch_diagonal=diagonal, batch_closure=closure)
    k = tiled_kernels(sizes, cells)
    nt = tiles_per_side(n, tile)
    tc = nt * (nt + 1) // 2 * tile * tile
    V = cp.full(tc, -7, dtype=np.int16 if cells == "short" else np.int32)
    k.first((nt, 1), (k.first_threads,), (V, cp.asarray(codes), cp.asarray(np.array([0, n], np.int64)),
                                          cp.asarray(np.zeros(1, np.int32)), pair_model(cp, params), np.int32(nt),
                                          np.int64(tc)), shared_mem=k.first_shared)
    return V.get(), nt


def main():
    rng = np.random.default_rng(29)
    for params, cells in [(FoldParams(), "short"), (FoldParams(min_loop=0, au=2, gc=3, gu=1), "short"),
                          (FoldParams(min_loop=0, au=1000, gc=700, gu=0), "int"), (FoldParams(min_loop=0), "short")]:
        for tile, closure in [(32, 4), (64, 4), (64, 1), (64, 0)]:
            if cells == "int" and closure:
                continue
            for n in (20, 40, 100, 1000):
                codes = rng.integers(0, 4, n).astype(np.uint8)
                old, nt = diagonal_tables(params, codes, n, tile, closure, 1, cells)
                new, _ = diagonal_tables(params, codes, n, tile, closure, 2, cells)
                diff = np.flatnonzero((old != -7) & (old != new))
                print(f"min_loop {params.min_loop} {cells} tile {tile} c{closure} n {n}: {int((old != -7).sum())} cells,"
                      f" {len(diff)} differ", flush=True)
                for x in diff[:12]:
                    t, rq = divmod(int(x), tile * tile)
                    I = next(I for I in range(nt) if I * nt - I * (I - 1) // 2 == t)
                    print(f"    tile {I} r {rq // tile} q {rq % tile}: d1 {old[x]} d2 {new[x]}")


if __name__ == "__main__":
    main()
