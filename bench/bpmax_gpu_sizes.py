"""BPMax on the GPU: the launch sizes of interact/_gpu_launch.py compared on Gildemaster 2021's shape
(a 23 nt query against a 20,000 nt target, target window 128), one row per setting, all in one run;
with ``--wide``, the finishes of bands too wide for shared memory (targets without a window: the tiled
finish against the older diagonal-by-diagonal one) on 23 x --targets nt.

Each row: device seconds of the products and of the finish (each phase synchronised on its own), end to
end (median of --repeats), and the fraction of the int16x2 DPX ceiling of ../shared/design/limits.md
(30.8 T/s) on the recurrence's useful updates. Every row of a shape must find the same window scores
(all of them, compared by SHA-256).

    python3 bench/bpmax_gpu_sizes.py [--repeats 5] [--json bench/results/bpmax_gpu_sizes.json]
    python3 bench/bpmax_gpu_sizes.py --wide --targets 1000,2000 [--repeats 3] [--only 1,2,3,4,5] [--launches 1,4]

--only picks settings by number (from 0, in the order of SETTINGS or WIDE); --launches times every tiled
finish launch of the named settings once more at the longest target (a profile by level); --levels (windows)
times every launch of the named settings once more (products, finish and paired copy by level).
"""
import argparse
import os
import random
import sys
from dataclasses import asdict, replace

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from bpmax_gpu import CEILING_INT16X2, gpu_row   # noqa: E402
from _results import save_json  # noqa: E402

#: the products of every row below up to bpmaxpk's: the split kernel, 4 lanes (the default before 2026-11-28)
BEFORE_PAIRS = dict(split_pairs=False, products_parts=4)

SETTINGS = {   # finish: diagonals a row closes at a time, threads per row
    "finish 1 diagonal, 1 thread a row": dict(finish_diagonals=1, finish_split=1),
    "finish 4 diagonals, 1 thread a row (the default before bpmaxst)": dict(finish_diagonals=4, finish_split=1),
    "finish 8 diagonals, 1 thread a row": dict(finish_diagonals=8, finish_split=1),
    "finish 4 diagonals, 2 threads a row": dict(finish_diagonals=4, finish_split=2),
    "finish 8 diagonals, 2 threads a row": dict(finish_diagonals=8, finish_split=2),
    "finish 4 diagonals, 1 thread a row, products without the skip": dict(products_parts=0, products_skip=False),
    # issue 29 (bpmaxw): the products with each cell's k2 split among P lanes (bpmax_products_split; the
    # default since 2026-11-27: 4 lanes, 32-tiles, chunk 96) against the packed kernel before it
    "products packed, 64-tiles (before the split)": dict(products_parts=0),
    "products split, 1 lane (warps outside the band skipped), 64-tiles, chunk 32": dict(
        products_parts=1, split_rows=64, split_cols=64, split_chunk=32),
    "products split among 4 lanes, 32-tiles, chunk 32": dict(products_parts=4, split_chunk=32),
    "products split among 4 lanes, 32-tiles, chunk 96": dict(products_parts=4, split_chunk=96),
    "products split among 4 lanes, 32-tiles, chunk 32, prefetch": dict(products_parts=4, split_chunk=32,
                                                                       split_prefetch=True),
    "products split among 4 lanes, 32-tiles, chunk 64, prefetch": dict(products_parts=4, split_chunk=64,
                                                                       split_prefetch=True),
    "products split, 1 lane, 64-tiles, chunk 32, prefetch": dict(products_parts=1, split_rows=64, split_cols=64,
                                                                 split_chunk=32, split_prefetch=True),
    "products split among 8 lanes, 32-tiles, chunk 32, prefetch": dict(products_parts=8, split_chunk=32,
                                                                       split_prefetch=True),
    "products split among 2 lanes, 64-tiles, chunk 32, prefetch": dict(products_parts=2, split_rows=64,
                                                                       split_cols=64, split_chunk=32,
                                                                       split_prefetch=True),
    # issue 29 (bpmaxst): the segment finish reading its rows 8 cells a 16-byte load (form 1), with shortened
    # tails (form 2), and the windowed band through the tiled finish of wide bands (eager, rows in registers)
    "finish form 1 (16-byte loads)": dict(finish_form=1),
    "finish form 2 (16-byte loads, shortened tails)": dict(finish_form=2),
    "finish form 2, 8 diagonals": dict(finish_form=2, finish_diagonals=8),
    "finish form 2, segments of 320 rows (227 KB)": dict(finish_form=2, finish_bytes=227 * 1024),
    "windows through the tiled finish, 64-tiles": dict(window_tile=64),
    "windows through the tiled finish, 32-tiles": dict(window_tile=32),
    "windows through the tiled finish, 16-tiles": dict(window_tile=16),
    "products, each lane its own words (start, store)": dict(split_own=True),
    "products, own words; finish form 2": dict(split_own=True, finish_form=2),
    # calls 2 and 3 (bpmaxst): own words, finish form 3, 8 diagonals, 320-row segments (227 KB) the default in
    # call 2 and 3; since call 4 own words, finish form 4, 4 diagonals, 320-row segments ("dict()" below)
    "before bpmaxst (products all words; finish form 0, 4 diagonals, 256-row segments)": dict(
        split_own=False, finish_form=0, finish_diagonals=4, finish_bytes=200 * 1024),
    "own words; finish form 4, 4 diagonals, 320 rows (default since call 4)": dict(),
    "own words; finish form 2, 4 diagonals, 256 rows": dict(finish_form=2, finish_diagonals=4, finish_bytes=200 * 1024),
    "own words; finish form 2, 8 diagonals, 320 rows": dict(finish_form=2, finish_diagonals=8),
    "own words; finish form 3, 4 diagonals, 256 rows": dict(finish_form=3, finish_diagonals=4,
                                                            finish_bytes=200 * 1024),
    "own words; finish form 3, 8 diagonals, 256 rows": dict(finish_form=3, finish_diagonals=8,
                                                            finish_bytes=200 * 1024),
    "own words; finish form 3, 4 diagonals, 320 rows": dict(finish_form=3, finish_diagonals=4),
    "own words; finish form 3, 8 diagonals, 2 threads a row, 320 rows": dict(finish_form=3, finish_diagonals=8,
                                                                             finish_split=2),
    "own words; finish form 4, 8 diagonals, 320 rows": dict(finish_form=4, finish_diagonals=8),
    "own words; finish form 4, 4 diagonals, 320 rows": dict(finish_form=4, finish_diagonals=4),
    "own words; finish form 3, 8 diagonals, 320 rows (the default of calls 2 and 3)": dict(finish_form=3,
                                                                                          finish_diagonals=8),
}
SETTINGS = {name: {**BEFORE_PAIRS, **change} for name, change in SETTINGS.items()}
#: the pairs kernel as calls 1-2 of bpmaxpk ran it: every staged vector through band_vector, 64 registers
CALLS_1_2 = dict(pairs_stage=0, pairs_blocks=0)
SETTINGS |= {name: {**CALLS_1_2, **change} for name, change in {
    # issue 29 (bpmaxpk): the products with a word one cell, its halves over the even and the odd k2
    # (bpmax_products_pairs: A as it lies, B's rows interleaved at staging), 32-tiles; the first the default since
    # 2026-11-28 (call 1)
    "products k2 pairs in a word, 2 lanes, chunk 96, two groups an iteration": dict(split_pairs=True,
                                                                                   products_parts=2),
    "products k2 pairs in a word, 4 lanes, chunk 96, two groups an iteration": dict(split_pairs=True,
                                                                                   products_parts=4),
    "products k2 pairs in a word, 2 lanes, chunk 96, one group an iteration": dict(split_pairs=True,
                                                                                  products_parts=2, pairs_step=1),
    "products k2 pairs in a word, 2 lanes, chunk 160, two groups an iteration": dict(split_pairs=True,
                                                                                    products_parts=2, split_chunk=160),
    "products k2 pairs in a word, 2 lanes, chunk 64, two groups an iteration": dict(split_pairs=True,
                                                                                   products_parts=2, split_chunk=64),
    "products k2 pairs in a word, 2 lanes, 64 x 32 tiles, chunk 96": dict(split_pairs=True, products_parts=2,
                                                                           split_rows=64),
    "products k2 pairs in a word, 2 lanes, 32 x 64 tiles, chunk 96": dict(split_pairs=True, products_parts=2,
                                                                           split_cols=64),
    "products k2 pairs in a word, 2 lanes, chunk 96, two groups an iteration (the default of calls 1-3)": dict(
        split_pairs=True, products_parts=2, pairs_step=2),
}.items()}
SETTINGS |= {
    # bpmaxpk call 3: the staging with a thread's row of A and column of B fixed (pairs_stage=1), and the register
    # cap for 10 and 12 blocks an SM (48 and 40 registers)
    "products k2 pairs in a word, 2 lanes, chunk 96, rows staged fixed": dict(split_pairs=True, products_parts=2,
                                                                             pairs_stage=1, pairs_blocks=8),
    "products k2 pairs in a word, rows staged fixed, 10 blocks an SM": dict(split_pairs=True, products_parts=2,
                                                                           pairs_stage=1, pairs_blocks=10),
    "products k2 pairs in a word, rows staged fixed, 12 blocks an SM": dict(split_pairs=True, products_parts=2,
                                                                           pairs_stage=1, pairs_blocks=12),
    "the default (k2 pairs, 2 lanes, chunk 96, two groups an iteration, rows staged fixed, 10 blocks an SM)": dict(
        pairs_stage=1, pairs_blocks=10),   # the default from bpmaxpk's call 4 (dict() until bpmaxcp2)
    "products k2 pairs, rows staged fixed, 10 blocks an SM, chunk 64": dict(split_pairs=True, products_parts=2,
                                                                           pairs_stage=1, pairs_blocks=10,
                                                                           split_chunk=64),
    "products k2 pairs, rows staged fixed, 10 blocks an SM, chunk 128": dict(split_pairs=True, products_parts=2,
                                                                            pairs_stage=1, pairs_blocks=10,
                                                                            split_chunk=128),
}
SETTINGS |= {   # bpmaxcp2: A row-major by cp.async (pairs_stage=2), and B's rows read together (3)
    f"products k2 pairs, A by cp.async{', B rows together' if stage == 3 else ''}, {blocks} blocks an SM": dict(
        split_pairs=True, products_parts=2, pairs_stage=stage, pairs_blocks=blocks)
    for stage in (2, 3) for blocks in (10, 8)}
SETTINGS |= {   # bpmaxcp2's call 2: 9 blocks an SM (56 registers; 10 spill 64 and 72 bytes, 8 none)
    f"products k2 pairs, A by cp.async{', B rows together' if stage == 3 else ''}, 9 blocks an SM": dict(
        split_pairs=True, products_parts=2, pairs_stage=stage, pairs_blocks=9) for stage in (2, 3)}
#: every row above keeps the finish it measured: form 4 (the default from bpmaxst to bpmaxfin) and 4 diagonals
#: (the default until bpmaxfin2) where it names none
SETTINGS = {name: {"finish_form": 4, "finish_diagonals": 4, **change} for name, change in SETTINGS.items()}
SETTINGS["the default (BPMaxSizes())"] = dict()
SETTINGS |= {   # bpmaxfin: finish_form 5, the next group's final splits (bulk threads) beside a group's tails
    f"finish form 5 (bulk and tail threads), {g} diagonals": dict(finish_form=5, finish_diagonals=g) for g in (4, 8, 2)}
SETTINGS["finish form 4, 8 diagonals (default products)"] = dict(finish_form=4, finish_diagonals=8)
SETTINGS["finish form 4, 4 diagonals (the default before bpmaxfin)"] = dict(finish_form=4, finish_diagonals=4)
SETTINGS |= {   # bpmaxfin2: finish_form 6, a tail pass's operands read a pass ahead (one shared load between barriers)
    f"finish form 6 (tail operands a pass ahead), {g} diagonals": dict(finish_form=6, finish_diagonals=g)
    for g in (4, 8)}
#: every row above but the default keeps the products it measured: pairs_stage 2 (bpmaxcp2's, the default until
#: bpmaxcp3) where it names none
SETTINGS = {name: change if name == "the default (BPMaxSizes())" or "pairs_stage" in change else
            {"pairs_stage": 2, **change} for name, change in SETTINGS.items()}
SETTINGS |= {   # bpmaxcp3: B by cp.async too, from a paired copy of each level (pairs_stage=4; the default since call 2)
    f"products k2 pairs, A and B by cp.async (paired copy), {blocks} blocks an SM": dict(pairs_stage=4,
                                                                                         pairs_blocks=blocks)
    for blocks in (8, 9, 10)}
# (bpmaxcp3's call 2 had two more rows here, 66 and 67: pairs_stage=5, the level just finished staged from the table
# and its copy on a second stream, at 8 and 9 blocks an SM; reverted, docs/bpmax-gpu-notes.md keeps their numbers)
SETTINGS["the default before bpmaxcp3 (A by cp.async, B interleaved: pairs_stage=2)"] = dict(pairs_stage=2)
# (bpmaxcp5's call 1 had row 67 here: pairs_copy=1, the paired copy written by the finish's segment store; slower
# end to end, reverted: commit 810456e has it, docs/bpmax-gpu-notes.md keeps its numbers)
# (bpmaxgl's calls 1-2 had rows 67-79 here: pairs_trim 1-3 (a warp's first k2 by one pair, squares rotated by the
# block), pairs_stage 6 (4 double-buffered), 7 (4's copies without a branch) and 8 (both); none faster, reverted:
# commit 9d9819d has them, docs/bpmax-gpu-notes.md keeps their numbers)
# (bpmaxreg's call 1 had rows 67-69 here: pairs_cols=8, bpmax_products_wide, 4 x 8 cells a thread, at 8, 7 and 6 blocks
# an SM; slower, reverted: commit 9801e52 has it, docs/bpmax-gpu-notes.md keeps its numbers)
SETTINGS |= {   # bpmaxreg, call 2 (rows 67-70): pairs_stage 4 on 64-row tiles (4 blocks of 256 threads an SM), and
    # fewer stages a k1: chunk 136 (a 32 x 32 tile's k2 range in one stage but at the band's far edge; 8 blocks still
    # fit), 168 (always one stage; 7 blocks) against chunk 96 at 7 blocks
    "products 64 x 32 tiles, 4 blocks an SM": dict(split_rows=64, pairs_blocks=4),
    **{f"products chunk {chunk}, {blocks} blocks an SM": dict(split_chunk=chunk, pairs_blocks=blocks)
       for chunk, blocks in ((136, 8), (168, 7), (96, 7))}}
# (bpmaxband's calls 1-3 had rows 71-74 here: pairs_edge 1-3, the warp squares cut by the band's edge with 3 lanes a
# thread tile, a warp without cells sharing the heaviest square, both, and both at 7 blocks an SM; none faster, reverted:
# commit 4bfc288 has them, docs/bpmax-gpu-notes.md keeps their numbers)

SETTINGS |= {   # bpmaxwave (rows 71-73): each level's finish segments sized to fill whole waves of the SMs
    # (interact/_finish_waves.py; a block's fixed cost 224 rows' worth, about a third of a 416-row block, the tails'
    # share in bpmaxfin's cycle count: the model picks the same segments for 0 to 416 here), and every level's
    # segments shorter (the per-level profile's block cost against its rows: the model's fixed cost measured)
    "finish segments fitted to waves (segment_fit=224)": dict(segment_fit=224),
    **{f"finish segments of {rows} rows at every level": dict(segment_rows=rows, segment_fit=0) for rows in (224, 152)},
    # call 2 (row 74): the default before (segment_fit 224 the default since call 1)
    "finish segments of the largest length at every level (segment_fit=0, the default before bpmaxwave)": dict(
        segment_fit=0)}
# (bpmaxring's call 2 had row 75 here: finish_slide, a block sliding up consecutive segments; slower (its loop spilled),
# reverted: commit 7fdaa32 has it, docs/bpmax-gpu-notes.md keeps its numbers)
SETTINGS |= {   # stop 54 (row 75): bpmax_finish_roles compiled for 896 threads a block, not 1,024: 72 registers, no
    # spill (segments and halo at most 448 rows: the production's 416 fit)
    "finish blocks bounded at 896 threads (finish_bound=896)": dict(finish_bound=896),
    # row 76: the default before (finish_bound 896 the default since stop 54's call)
    "finish blocks bounded at 1,024 threads (finish_bound=1024, the default before stop 54)": dict(finish_bound=1024)}
SETTINGS |= {   # bpmaxunroll (row 77): finish form 7, form 6's loops on compile-time offsets (the bulk's splits 4 at a
    # time, 19.7 SASS a split against 23.5; the tails' passes from two bases a group), the same cells
    "finish form 7 (loops unrolled on compile-time offsets)": dict(finish_form=7),
    # stop 57 (row 78): form 6, the default before stop 57 (form 7 the default since: rows 55 and 77 are the same run)
    "finish form 6 (the default before stop 57)": dict(finish_form=6)}
# (bpmaxtma had a row 78, before stop 57's, here: pairs_stage 5, the products' stages as bulk copies (TMA) by one
# warp's lanes; never run on a GPU: its SASS issues each copy one lane at a time, 959 warp instructions a stage against
# 772, so no call was made; reverted: commit b4ad432 has it and bench/bpmax_tma_sass.py, docs/bpmax-gpu-notes.md keeps
# the counts)
# (bpmaxfin3's calls 1-2 had rows 79-80 here: finish forms 8 and 9, a bulk thread's two rows at one absolute split
# point, a pair's next-group splits on one or two threads; the same time as form 7 and 9% slower, reverted: commit
# 02d4ce7 has them, docs/bpmax-gpu-notes.md keeps their numbers)
# (bpmaxfin4's call, on its branch, had rows 79-80 back, with row 81: finish form 10, form 8 with a warp's pairs
# swizzled on its lanes for its 8-byte loads' banks; those loads were conflict-free already, form 10 no faster:
# reverted, commit 901beed has it)
# bpmaxhost (row 79): the tables poisoned by 16-byte stores (cupy.full's fill: 3.85 ms of the run; the default since
# stop 57, by runtime.gpu.filled: rows 55 and 79 are the same run)
SETTINGS["tables poisoned by 16-byte stores (table_fill=1)"] = dict(table_fill=1)
# stop 57 (row 80): the tables poisoned by cupy.full, the default before stop 57 (table_fill 1 the default since)
SETTINGS["tables poisoned by cupy.full (table_fill=0, the default before stop 57)"] = dict(table_fill=0)
# (bpmaxco's calls 1-2 had rows 81-88 here: overlap_products 1 and 2, the next level's interior products on a
# low-priority stream beside a level's finish, at 227 / 170 / 140 KB finish segments, and 170 / 140 KB without; slower
# end to end, reverted: commit 2008eba has them, docs/bpmax-gpu-notes.md keeps their numbers)
# (stop 58's call had rows 81-83 here: pairs_mix 4 / 8 / 16, part of the products' adds on the FMA pipe; -0.7% at 8,
# slower at 4 and 16, reverted: commit a7fde3a has them)
# (bpmaxws's calls 1-2 had rows 81-88 here: pairs_stage 5 / 6, the products' stages in a ring of 2 / 3 slots handed over
# by mbarriers with no block barrier in the k loop, at chunks 48 / 32 (8 blocks an SM) and 96 / 48; pairs_stage 4 at
# chunks 48 and 32; pairs_stage 7, 5 with a lane a warp arriving and waiting, at 48 and 96; all slower, the rings 10-35%:
# reverted, commit 53ab3eb has them and bench/calls/bpmaxws_call.sh, docs/bpmax-gpu-notes.md keeps their numbers)
# (bpmaxpipe's calls 1-2 had rows 81-83 here: finish forms 11-13, the segment's read and store spread over its groups
# (a 16-byte vector of F and S2 a row a group, by the tail threads in a group's first phase), 12 with an L2 prefetch a
# group ahead, 13 with the loads issued at the end of the group before; 10-12% slower than form 7 in every pair:
# reverted, commit 07356bf has them and bench/calls/bpmaxpipe_call.sh, docs/bpmax-gpu-notes.md keeps their numbers)
# (bpmaxsplit's calls 1-2 had rows 81-82 here: finish forms 14, each first phase's range B (splits k in
# [e0 - G + 1, e0)) of cells 1 .. G - 1 on the tail threads, and 15, 14 with range A's k in [c + G - 1, 2G - 2) in the
# rest before; faster in 5 of 7 pairs and slower in the first of each call (the default run first): reverted, commit
# bb1508b has them and bench/calls/bpmaxsplit_call.sh, docs/bpmax-gpu-notes.md keeps their numbers)

WIDE = {   # targets without a window: the finish of bands too wide for segments in shared memory
    "wide finish diagonal by diagonal (v4)": dict(wide_finish="diagonal", products_skip=False),
    "tiled 64 (c22e9df), products without the skip (old)": dict(wide_finish="tiled", wide_tile=64, products_skip=False),
    "tiled 64 (c22e9df), products with the skip": dict(wide_finish="tiled", wide_tile=64),
    "prefetch 64, products with the skip": dict(wide_finish="prefetch", wide_tile=64),
    "eager 64 unpadded, products with the skip": dict(wide_finish="eager-unpadded", wide_tile=64),
    "eager 64 padded, products with the skip": dict(wide_finish="eager-padded", wide_tile=64),
    "eager 32 padded, products with the skip": dict(wide_finish="eager-padded", wide_tile=32),
    "eager 64 rows in registers, products with the skip (default)": dict(wide_finish="eager-rows", wide_tile=64),
    "eager 64 rows in registers, products with the skip, chunk 64": dict(wide_finish="eager-rows", wide_tile=64,
                                                                         chunk=64),
    "eager 64 rows in registers, products split among 4 lanes": dict(wide_finish="eager-rows", wide_tile=64,
                                                                     products_parts=4, split_band=1 << 20,
                                                                     split_pairs=False),
}


def phase_updates(M, N, params):
    """Useful updates of the products (D, R3, R4) and of the finish (R1, R2): _model.work's terms / 2."""
    L1, L2 = params.spans(M, N)

    def T(n, L):
        return n * L * (L - 1) // 2 - (L - 1) * L * (2 * L - 1) // 6

    def P(n, L):
        return n * L - L * (L - 1) // 2

    return T(M, L1) * T(N, L2) + 2 * T(M, L1) * P(N, L2), 2 * P(M, L1) * T(N, L2)


def launch_profile(cp, M, N, params, sizes):
    """One more run of the setting with every tiled finish launch timed by events (interact/_gpu_wide):
    rows (matrices of the level, launches, their sum s, the slowest s, its tile diagonal) per level."""
    from bioaccel.interact import _gpu_wide
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._strands import strand_band
    from bpmax_gpu import random_codes

    rng = random.Random(5)
    a, rb = random_codes(rng, M), random_codes(rng, N)
    L1 = params.spans(M, N)[0]
    _gpu_wide.LAUNCH_EVENTS = []
    try:
        window_scores(a, strand_band(a, params.fold_params, L1), [rb], params, sizes=sizes)
        cp.cuda.Device().synchronize()
        events = _gpu_wide.LAUNCH_EVENTS
    finally:
        _gpu_wide.LAUNCH_EVENTS = None
    levels, out = [], []
    for m, d, (start, stop) in events:
        if d == 0:
            levels.append([])
        levels[-1].append((cp.cuda.get_elapsed_time(start, stop) / 1e3, d, m))
    for launches in levels:
        slowest = max(launches)
        out.append((launches[0][2], len(launches), sum(t for t, _, _ in launches), slowest[0], slowest[1]))
    return out


def level_profile(cp, M, N, params, sizes):
    """One more run of the setting with every launch timed by events: per level (0: the fold of S2 alone), the
    seconds of its products, finish and paired copy."""
    from bioaccel.interact._gpu import window_scores
    from bioaccel.interact._strands import strand_band
    from bpmax_gpu import random_codes

    rng = random.Random(5)
    a, rb = random_codes(rng, M), random_codes(rng, N)
    timings = {"launches": []}
    window_scores(a, strand_band(a, params.fold_params, params.spans(M, N)[0]), [rb], params, sizes=sizes,
                  timings=timings)
    levels = [{}]
    for key, seconds in timings["launches"]:
        if key == "products":
            levels.append({})
        levels[-1][key] = levels[-1].get(key, 0.0) + seconds
    return levels


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--target", type=int, default=20_000)
    parser.add_argument("--wide", action="store_true", help="no window: compare the wide-band finishes")
    parser.add_argument("--targets", default="1000,2000", help="with --wide: target lengths (nt)")
    parser.add_argument("--only", default="", help="comma-separated numbers (from 0) of the settings to run")
    parser.add_argument("--launches", default="", help="with --wide: numbers of the settings whose finish launches "
                        "are timed one by one at the longest target (a profile by level and tile diagonal)")
    parser.add_argument("--levels", default="", help="numbers of the settings whose launches are timed one by one "
                        "once more (a profile by level: products, finish, paired copy)")
    parser.add_argument("--json", default=os.path.join(HERE, "results", "bpmax_gpu_sizes.json"))
    args = parser.parse_args(argv)
    import cupy as cp

    from bioaccel.interact import InteractParams
    from bioaccel.interact._gpu_launch import SIZES

    params = InteractParams() if args.wide else InteractParams(window_target=128)
    targets = [int(n) for n in args.targets.split(",")] if args.wide else [args.target]
    print(f"# load average {os.getloadavg()}", flush=True)
    rows, same = [], True
    for N in targets:
        found = []
        settings = list((WIDE if args.wide else SETTINGS).items())
        if args.only:
            settings = [settings[int(k)] for k in args.only.split(",")]
        for name, change in settings:
            sizes = replace(SIZES, **change)
            row = gpu_row(cp, 23, N, params, args.repeats, random.Random(5), sizes=sizes)
            row.pop("a"), row.pop("rb")
            rows.append(dict(setting=name, sizes=asdict(sizes), **row))
            found.append(row["scores_sha256"])
            print(rows[-1]["setting"], N, row["products_s"], row["pairing_s"], row["finish_s"], row["end_to_end_s"],
                  row["best_units"],
                  row["scores_sha256"], flush=True)
            if not args.wide and name in [list(SETTINGS)[int(k)] for k in args.levels.split(",") if k] and \
                    not any("level_profile" in r and r["setting"] == name for r in rows):   # each setting once
                rows[-1]["level_profile"] = level_profile(cp, 23, N, params, sizes)
            if args.wide and N == targets[-1] and name in [list(WIDE)[int(k)] for k in args.launches.split(",") if k]:
                rows[-1]["launch_profile"] = launch_profile(cp, 23, N, params, sizes)
        same = same and len(set(found)) == 1
    print(f"## BPMax launch sizes on {cp.cuda.runtime.getDeviceProperties(0)['name'].decode()}, "
          f"window {params.window_target or 'none'} (every window score the same in every row of a shape, by SHA-256: {same})")
    print("| setting | query x target | products s | paired copy s | finish s | end to end s | of int16x2 ceiling | "
          "products: of ceiling on D, R3, R4 | finish: on R1, R2 |")
    print("|---|---|---|---|---|---|---|---|---|")
    for r in rows:
        products, finish = phase_updates(23, r["N"], params)
        print(f"| {r['setting']} | 23 x {r['N']:,} | {r['products_s']:.4f} | {r['pairing_s']:.4f} | "
              f"{r['finish_s']:.4f} | "
              f"{r['end_to_end_s']:.4f} | {100 * r['updates_per_s'] / CEILING_INT16X2:.1f}% | "
              f"{100 * products / r['products_s'] / CEILING_INT16X2:.1f}% | "
              f"{100 * finish / r['finish_s'] / CEILING_INT16X2:.1f}% |")
    for r in rows:
        if "launch_profile" in r:
            print(f"## finish launches of '{r['setting']}', 23 x {r['N']:,}: seconds by matrices in the level "
                  "(the S2 fold is the first 1), the launches' sum and the slowest launch (tile diagonal d)")
            print("| matrices | launches | sum s | slowest s | its d |")
            print("|---|---|---|---|---|")
            for m, count, total, slowest, d in r["launch_profile"]:
                print(f"| {m} | {count} | {total:.5f} | {slowest:.5f} | {d} |")
    profiled = [r for r in rows if "level_profile" in r]
    if profiled:
        print("## launches by level (ms; level 0 is the fold of S2 alone): products / finish / paired copy, "
              "one column per profiled row")
        print("| level | " + " | ".join(r["setting"] for r in profiled) + " |")
        print("|---|" + "---|" * len(profiled))
        for level in range(len(profiled[0]["level_profile"])):
            cells = [" / ".join(f"{1e3 * r['level_profile'][level].get(k, 0.0):.3f}"
                                for k in ("products", "finish", "pairing")) for r in profiled]
            print(f"| {level} | " + " | ".join(cells) + " |")
    save_json(rows, args.json)
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
