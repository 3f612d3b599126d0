"""Where the tiled GPU fill's time goes: the bulk products and the in-tile finishes, timed apart.

Runs each launch sequence of the fill alone (bulk only, finish only) on a random sequence; the
results of those partial runs are meaningless, only their times matter.

    python3 bench/nussinov_gpu_profile.py [n ...]
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "src"))

from bioaccel.runtime import gpu as _gpu  # noqa: E402
from bioaccel.fold import FoldParams  # noqa: E402
from bioaccel.fold import _gpu as gpu  # noqa: E402
from bioaccel.fold import _gpu_table, _gpu_tiled, _launch  # noqa: E402
from _ceilings import INT16X2_DPX  # noqa: E402


def timed(cp, fn, repeats=3):
    fn()
    times = []
    for _ in range(repeats):
        a, b = cp.cuda.Event(), cp.cuda.Event()
        a.record()
        fn()
        b.record()
        b.synchronize()
        times.append(cp.cuda.get_elapsed_time(a, b) / 1e3)
    return float(np.median(times))


def main():
    cp = _gpu.require_gpu()
    T = _launch.SIZES.tile
    threads = (T // 8) ** 2
    params = FoldParams()
    sms = cp.cuda.Device().attributes["MultiProcessorCount"]
    for n in [int(x) for x in sys.argv[1:]] or [26000]:
        codes = np.random.default_rng(n).integers(0, 4, n).astype(np.uint8)
        codes_dev = cp.asarray(codes)
        pm = _gpu_table.pair_model(cp, params)
        nt = math.ceil((n + 1) / T)
        table = cp.zeros(nt * (nt + 1) // 2 * T ** 2, dtype=np.int16)
        scratch = cp.zeros(nt * T ** 2, dtype=np.int32)
        bulk, bulk_shared = _gpu_tiled.bulk_kernel(np.int16, T, lanes=_gpu_tiled.int16_lanes("int16"))
        adup = cp.zeros(table.size, dtype=np.uint32)        # Int16x2Pre's A operands (the finish writes them)
        edge, edge_shared = _gpu_tiled.bulk_kernel(np.int16, T, lanes="Int16x2Dup")
        finishes = {form: _gpu_tiled.finish_kernels(np.int16, T, form, _launch.SIZES.finish_closure)
                    for form in ("sub", "wavefront")}
        plan = _gpu_tiled.bulk_plan(nt, _launch.SIZES.bulk_blocks_per_sm * sms, _launch.SIZES.bulk_min_products)

        def bulk_only():
            for d, tiles, splits, chunk in plan:
                bulk((tiles, splits), (threads,),
                     (table, scratch, np.int32(nt), np.int32(d), np.int32(chunk), np.int32(0), None, np.int32(0), adup),
                     shared_mem=bulk_shared)
            for d in range(2, nt):      # the edge products in the Int16x2Dup form, as in the fill
                edge((nt - d, 2), (threads,), (table, scratch, np.int32(nt), np.int32(d), np.int32(1), np.int32(1),
                                               None, np.int32(0), adup), shared_mem=edge_shared)

        def finish_only(form=_launch.SIZES.finish):
            for d in range(nt):
                finish, finish_threads, shared = finishes[form][min(d, 1)]
                sub = (adup,) if d and form == "sub" else ()
                finish((nt - d,), (finish_threads,), (table, scratch, codes_dev, pm, np.int32(n), np.int32(nt),
                                                      np.int32(d), None) + sub, shared_mem=shared)

        def whole():
            gpu.fill(codes_dev, n, params, pm, "tiled")

        # one big diagonal alone: the bulk kernel's own rate with the GPU full
        d = nt // 2
        tiles, products = nt - d, d - 3

        def one_diagonal(kernel, shared_bytes):
            return lambda: kernel((tiles, 1), (threads,),
                                  (table, scratch, np.int32(nt), np.int32(d), np.int32(products), np.int32(0), None,
                                   np.int32(0), adup), shared_mem=shared_bytes)

        t_whole, t_bulk, t_finish = (timed(cp, f) for f in (whole, bulk_only, finish_only))
        useful = n ** 3 / 6
        print(f"n={n}: whole {t_whole:.4f} s ({useful / t_whole / INT16X2_DPX:.1%} of ceiling); bulk only {t_bulk:.4f} s; "
              f"finish only {t_finish:.4f} s", flush=True)
        for form in finishes:
            print(f"   finish only, {form} form: {timed(cp, lambda: finish_only(form)):.4f} s", flush=True)
        # the same diagonal with K split into chunks of 8 products: several waves of blocks, every SM
        # full (two blocks each): the bulk kernel's steady rate
        chunk = 8
        splits = math.ceil(products / chunk)
        for lanes in ("Int16x2Dup", "Int16x2Pre"):
            kernel, shared_bytes = _gpu_tiled.bulk_kernel(np.int16, T, lanes=lanes)
            t_full = timed(cp, lambda: kernel((tiles, splits), (threads,),
                                              (table, scratch, np.int32(nt), np.int32(d), np.int32(chunk), np.int32(0),
                                               None, np.int32(0), adup), shared_mem=shared_bytes))
            rate = tiles * products * T ** 3 / t_full
            print(f"   bulk kernel {lanes} on diagonal d={d}, {tiles} tiles x {splits} splits of {chunk} products "
                  f"({tiles * splits / (2 * sms):.1f} waves of two blocks per SM): {rate / 1e12:.2f} T updates/s = "
                  f"{rate / INT16X2_DPX:.1%} of the int16x2 ceiling", flush=True)
        for lanes, stage_bytes in (("Int16x2", 64), ("Int16x2", 128), ("Int16x2Dup", 128), ("Int16x2Pre", 128)):
            t_diag = timed(cp, one_diagonal(*_gpu_tiled.bulk_kernel(np.int16, T, stage_bytes, lanes=lanes)))
            rate = tiles * products * T ** 3 / t_diag
            print(f"   bulk kernel {lanes} ({stage_bytes}-byte stages) on one diagonal d={d} ({tiles} tiles x "
                  f"{products} "
                  f"products): {rate / 1e12:.2f} T updates/s = {rate / INT16X2_DPX:.1%} of the int16x2 ceiling", flush=True)


if __name__ == "__main__":
    main()
