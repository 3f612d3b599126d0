"""Every kernel instantiation the host launches, by .cu file, and nvcc builds of them (no GPU needed).

The .cu files hold templates only: CuPy instantiates each kernel from its name expression when a call
first launches it (bioaccel.runtime.gpu.kernel). nvcc instantiates the same expressions here by taking
each kernel's address in a small file that includes the source, as NVRTC does for CuPy. Used by
tests/test_kernels_compile.py and, for its SASS check, bench/gpu_smoke.sh:

    python3 tests/host_kernels.py          # per .cu file: VIADDMNMX (DPX) instructions in the SASS
"""
import shutil
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import numpy as np

import bioaccel
from bioaccel.fold._gpu_batch import SHORT_KERNELS, short_kernel_arguments
from bioaccel.fold._launch import FoldSizes, batch_lanes, stage_bytes
from bioaccel.fold._launch import finish_sub_blocks
from bioaccel.fold._launch import finish_diag_blocks
from bioaccel.fold._gpu_tiled import finish_shared_bytes, mixed_lanes
from bioaccel.fold._turner_gpu import TurnerSizes
from bioaccel.fold._turner_pf_launch import PfSizes
from bioaccel.fold._turner_pf_long_gpu import PfLongSizes
from bioaccel.fold._turner_tiled_gpu import TiledSizes
from bioaccel.interact._gpu_launch import BPMaxSizes, pairs_stage
from bioaccel.interact._maxplus_gpu import ALTERNATIVES, ProductSizes
from bioaccel.interact._partition_band_gpu import band_tiles_arguments
from bioaccel.interact._partition_band_sizes import band_cross_kernel
from bioaccel.interact._partition_launch import BPPartSizes
from bioaccel.motif._launch import BucketSizes
from bioaccel.runtime.launch import expression
from bioaccel.scan._gpu import ScanSizes

PACKAGE = Path(bioaccel.__file__).parent
SHARED = PACKAGE / "runtime" / "kernels"
CU_FILES = sorted(PACKAGE.rglob("kernels/*.cu"))
NVCC = shutil.which("nvcc")
PRODUCTION = SimpleNamespace(fold=FoldSizes(), bpmax=BPMaxSizes(), maxplus=ProductSizes(), motif=BucketSizes(),
                             scan=ScanSizes(), turner=TurnerSizes(), bppart=BPPartSizes())
#: the windowed BPPart cross products' other shapes (bench/bppart_gpu.py compares them; the tests' small one)
BAND_CROSS_ALTERNATIVES = [(32, 32, 16, True, 8), (64, 32, 16, False, 4), (64, 64, 16, True, 2), (64, 32, 16, True, 4),
                           (16, 8, 8, True, 1), (16, 8, 8, False, 1)]
#: the windowed cross products on tensor cores: other shapes (rows x columns x chunk x blocks x strip), the
#: tests' one
BAND_MMA_ALTERNATIVES = [(32, 32, 16, 8, False), (32, 64, 16, 4, False), (32, 160, 8, 2, True), (32, 160, 8, 1, True), (64, 192, 8, 1, True),
                         (16, 32, 8, 1, False)]
#: the windowed cross products on tensor cores through a ring of chunks across the query splits (v8: rows x columns
#: x chunk x blocks x stages x skip x group x hint x dynamic shared memory, v12: x skip form x a warp's columns), the
#: tests' small ones
BAND_RING_ALTERNATIVES = [shape + (False,) * (9 - len(shape)) + (0,) * (len(shape) < 10) for shape in [shape + (0, 0) for shape in [
    (32, 64, 16, 4, 2, False), (32, 64, 16, 4, 3, False), (32, 64, 16, 4, 2, True), (32, 64, 16, 4, 3, True),
    (32, 64, 8, 4, 4, True), (32, 64, 8, 4, 4, False), (64, 64, 16, 2, 2, False), (32, 32, 16, 8, 2, False),
    (64, 32, 16, 4, 2, False), (16, 32, 8, 1, 2, False), (16, 32, 8, 1, 3, True), (16, 32, 8, 1, 4, True),
    (32, 128, 16, 2, 2, False), (32, 64, 16, 5, 2, False)]] + [shape + (0,) for shape in [
    # a launch per sum and G query splits (the sums so far reloaded)
    (32, 64, 16, 4, 2, False, 1), (32, 64, 16, 4, 2, False, 2), (32, 64, 16, 4, 2, False, 4), (16, 32, 8, 1, 2, False, 2),
    (16, 32, 8, 1, 3, True, 1), (32, 64, 16, 4, 2, False, 32)]] + [
    # v9: L2 hints on the copies (128- or 256-byte fetches, evict_last)
    (32, 64, 16, 4, 2, False, 0, hint) for hint in (1, 2, 3)] + [
    # v11: chunks of 32 (half the steps); over 48 KB the ring in dynamic shared memory (the last argument)
    (32, 64, 32, 4, 2, False, 0, 0, True), (32, 64, 32, 3, 2, False, 0, 0, True), (32, 32, 32, 6, 2, False, 0, 0),
    (32, 64, 32, 1, 2, False, 0, 0, True), (16, 32, 32, 1, 3, False, 0, 0)]] + [
    # v12: the warps' skip at chunks of 32 (v8's, a step at a time), a chunk at a time (FORM 1), roles rotated (2), both
    (32, 64, 32, 3, 2, True, 0, 0, True, form) for form in (0, 1, 2, 3)] + [
    (32, 64, 32, 4, 2, True, 0, 0, True, 0), (32, 64, 32, 4, 2, True, 0, 0, True, 3), (32, 64, 16, 4, 2, True, 0, 0, False, 3),
    (16, 32, 8, 1, 2, True, 0, 0, False, 3), (16, 32, 32, 1, 3, True, 0, 0, False, 1), (32, 64, 32, 1, 2, True, 0, 0, True, 3)]
# v12: a warp's columns (the last argument): 32 as before, or 16 (8 warps at 32 x 64)
BAND_RING_ALTERNATIVES = [shape + (32,) for shape in BAND_RING_ALTERNATIVES] + [
    (32, 64, 32, blocks, 2, False, 0, 0, True, 0, 16) for blocks in (1, 2, 3, 4)] + [
    (32, 64, 16, 4, 2, False, 0, 0, False, 0, 16),
    (32, 64, 32, 2, 3, False, 0, 0, True, 0, 16), (32, 64, 16, 3, 2, False, 0, 0, False, 0, 16),
    (16, 32, 8, 1, 2, False, 0, 0, False, 0, 16), (16, 32, 32, 1, 3, True, 0, 0, False, 3, 16)] + [
    # v12: two accumulator chains a cell (FORM's bit 2; another summation order)
    (32, 64, 32, 3, 2, False, 0, 0, True, 4, 32), (32, 64, 32, 3, 2, False, 0, 0, True, 4, 16),
    (32, 64, 32, 3, 2, True, 0, 0, True, 5, 32), (16, 32, 8, 1, 2, False, 0, 0, False, 4, 32),
    (32, 64, 32, 1, 2, False, 0, 0, True, 4, 32), (16, 32, 32, 1, 3, True, 0, 0, False, 7, 16)] + [
    # v17: Hopper's larger FP64 mma (FORM's bits 3-4: m16n8k4, m16n8k8, m16n8k16), with the skip forms and chains too
    (32, 64, 32, 3, 2, False, 0, 0, True, 8 * shape, 32) for shape in (1, 2, 3)] + [
    (32, 64, 32, 3, 2, False, 0, 0, True, 8 * shape, 16) for shape in (1, 2, 3)] + [
    (16, 32, 8, 1, 2, True, 0, 0, False, 8 + 3, 32), (16, 32, 16, 1, 2, True, 0, 0, False, 16 + 7, 16),
    (16, 32, 32, 1, 3, True, 0, 0, False, 24 + 3, 32), (32, 64, 32, 1, 3, False, 0, 0, True, 8, 32),
    (32, 64, 32, 1, 3, False, 0, 0, True, 16, 16), (32, 64, 32, 1, 3, False, 0, 0, True, 24, 32)] + [
    # v21: a block a sum (FORM's bit 7; the production's since v21), and the forms before it at a block both sums
    (32, 64, 32, 3, 2, False, 0, 0, True, 24, 32), (16, 32, 8, 1, 2, False, 0, 0, False, 8 + 128, 16),
    (32, 64, 32, 1, 2, True, 0, 0, True, 24 + 128 + 1, 32), (32, 64, 16, 1, 3, True, 0, 0, False, 16 + 128 + 3, 32)] + [
    # v26: the blocks' order staggered in stripes of that many row tiles (FORM's bits 8 and up; the same bits)
    (32, 64, 32, 3, 2, False, 0, 0, True, 152 + (stripe << 8), 32) for stripe in (4, 24, 48, 96)] + [
    # v28: a block a run of query intervals (FORM's bit 16; the same bits): the production's tiles (its levels without
    # runs launch FORM 12440, listed with v26's stripes), the tests' small ones
    (32, 64, 32, 3, 2, False, 0, 0, True, 152 + (48 << 8) + 65536, 32),
    (16, 32, 8, 1, 2, False, 0, 0, False, 8 + 128 + (48 << 8) + 65536, 16),
    (32, 64, 16, 1, 2, True, 0, 0, False, 3 + 4 + 16 + 128 + (48 << 8) + 65536, 32),
    (32, 64, 32, 1, 3, False, 0, 0, True, 152 + (48 << 8) + 65536, 32)] + [
    # v30: the runs' copies from a cursor (FORM's bit 17; the same bits): the production's tiles, the tests' small ones
    (32, 64, 32, 3, 2, False, 0, 0, True, 152 + (48 << 8) + 65536 + 131072, 32),
    (16, 32, 8, 1, 2, False, 0, 0, False, 8 + 128 + (48 << 8) + 65536 + 131072, 16),
    (32, 64, 16, 1, 2, True, 0, 0, False, 3 + 4 + 16 + 128 + (48 << 8) + 65536 + 131072, 32),
    (32, 64, 32, 1, 3, False, 0, 0, True, 152 + (48 << 8) + 65536 + 131072, 32)] + [
    # v35: a bench's bounds on the production's tiles, QIa's open query splits skipped (FORM bit 18) or without their
    # copies (bit 19): band_cross_skip_open 1 and 2
    (32, 64, 32, 3, 2, False, 0, 0, True, 152 + (48 << 8) + 65536 + 131072 + bit, 32) for bit in (262144, 524288)] + [
    # v36: in-band chunks copied without the band tests (FORM bit 20; the same bits): the tests' small tiles (the
    # production's is the production's row)
    (16, 32, 8, 1, 2, False, 0, 0, False, 128 + (48 << 8) + 65536 + 131072 + 1048576, 32),
    (32, 64, 16, 1, 2, True, 0, 0, False, 3 + 4 + 16 + 128 + (48 << 8) + 65536 + 131072 + 1048576, 32),
    (32, 64, 32, 1, 3, False, 0, 0, True, 152 + (48 << 8) + 65536 + 131072 + 1048576, 32)] + [
    # v37: the copies by pairs of doubles (FORM bits 21-22, As's and Bs's; 24 with 22, Bs's pairs in the rows where they
    # start, v37c's 10; the same bits): the production's tiles with each form, the tests' small ones with both and with 10
    (32, 64, 32, 3, 2, False, 0, 0, True, 152 + (48 << 8) + 65536 + 131072 + (pairs << 21), 32) for pairs in (1, 2, 3, 10)] + [
    (16, 32, 8, 1, 2, False, 0, 0, False, 128 + (48 << 8) + 65536 + 131072 + (3 << 21), 32),
    (16, 32, 8, 1, 2, False, 0, 0, False, 128 + (48 << 8) + 65536 + 131072 + (10 << 21), 32),
    (16, 32, 8, 1, 2, False, 0, 0, False, 8 + 128 + (48 << 8) + 65536 + 131072 + (3 << 21), 16),
    (32, 64, 16, 1, 2, True, 0, 0, False, 3 + 4 + 16 + 128 + (48 << 8) + 65536 + 131072 + (3 << 21), 32),
    (32, 64, 32, 1, 3, False, 0, 0, True, 152 + (48 << 8) + 65536 + 131072 + (3 << 21), 32)]
#: the windowed sweep's other variants (tile side, split, blocks a multiprocessor, lanes, trim, cp.async ring, far
#: products, near part by one warp, dynamic shared memory, the far copies' L2 hint, v13's OUTER, v18's FARSHAPE): the
#: first designs', the split one at other occupancies, with a thread a cell in the near part or a group, whole tiles or
#: trimmed
BAND_TILE_ALTERNATIVES = [tiles + (0,) * (12 - len(tiles)) for tiles in [tiles + (False, False, 0) for tiles in [
    (8, False, 0, False, False, 0, 0), (16, False, 0, False, False, 0, 0), (8, True, 16, False, False, 0, 0),
    (8, True, 16, True, False, 0, 0), (16, True, 0, True, False, 0, 0), (16, True, 4, True, False, 0, 0),
    (16, True, 3, True, False, 0, 0), (16, True, 4, True, True, 0, 0), (8, True, 16, True, True, 0, 0),
    (16, True, 0, True, True, 0, 0), (8, True, 16, False, True, 0, 0)]] + [
    # the far part through a cp.async ring of 2 or 3 stages, its products a thread a cell, two k a load, tensor cores;
    # the near part by a group of lanes a cell or by one warp (v7), static or dynamic shared memory
    (tile, True, blocks, True, True, pipe, far, warp, dynamic, 0) for tile, blocks in ((16, 4), (8, 16))
    for pipe in (2, 3) for far in (0, 1, 2) for warp in (False, True) for dynamic in (False, True)] + [
    # the near part by one warp after the other far forms: registers a step ahead, whole tiles, persistent grids; 5
    # blocks a multiprocessor
    tiles + (0,) for tiles in [
        (16, True, 4, True, True, 0, 0, True, False), (8, True, 16, True, True, 0, 0, True, False),
        (8, True, 8, False, False, 0, 0, True, False), (16, False, 0, False, False, 0, 0, True, False),
        (16, True, 5, True, True, 2, 2, True, False), (16, True, 5, True, True, 3, 2, True, False)]] + [
    # v9: L2 hints on the far part's copies
    (16, True, 4, True, True, 3, 2, True, False, hint) for hint in (1, 2, 3)] + [
    # v13: QF's base computed by the sweep (OUTER = 1, after bppart_band_outer_lean); the production's far and near part
    # not split (the outer terms in the sweep, before or after the far part: OUTER 0, 2) at 4 and 3 blocks; the tests'
    # 8-tiles
    (16, True, 4, True, True, 3, 2, True, False, 0, 1), (8, True, 16, True, True, 3, 2, True, False, 0, 1)] + [
    (tile, False, blocks, True, True, 3, 2, True, False, 0, outer) for tile, blocks in ((16, 4), (16, 3), (8, 16))
    for outer in (0, 2)]] + [
    # v18 (a twelfth argument, FARSHAPE): the far part on m16n8k4, m16n8k8, m16n8k16 at the production's sweep; with a
    # ring of 2, lanes, the unsplit sweep, a dynamic ring
    (16, True, 4, True, True, 3, 2, True, False, 0, 1, shape) for shape in (0, 1, 2, 3)] + [
    (16, True, 4, True, True, 2, 2, True, False, 0, 1, 3), (16, True, 4, True, True, 3, 2, False, False, 0, 1, 1),
    (16, False, 4, True, True, 3, 2, True, False, 0, 0, 3), (16, True, 4, True, True, 3, 2, True, True, 0, 1, 2)]
#: the tiled wide BPMax finish's tile sides in tests (tests/test_interact_gpu.py LAYOUTS)
WIDE_TEST_TILES = (8, 16)
#: bpmax_products_split's (rows, cols, chunk, lanes) of tests/test_interact_gpu.py and bench/bpmax_gpu_sizes.py
SPLIT_TEST_SHAPES = [(8, 16, 8, 8, False), (8, 16, 8, 4, False), (8, 16, 96, 4, False), (16, 32, 16, 1, False),
                     (32, 32, 96, 4, False),
                     (8, 16, 8, 4, True), (8, 16, 32, 8, True), (32, 32, 32, 4, True), (32, 32, 64, 4, True),
                     (64, 64, 32, 1, True), (64, 64, 32, 1, False), (32, 32, 32, 8, True), (64, 64, 32, 2, True)]
#: bpmax_products_pairs's (rows, cols, chunk, lanes, groups an iteration, staging, blocks an SM) of
#: tests/test_interact_gpu.py and bench/bpmax_gpu_sizes.py (issue 29, bpmaxpk)
PAIRS_SHAPES = [shape + (0, 0) for shape in
                [(32, 32, 96, 2, 2), (32, 32, 96, 4, 2), (32, 32, 96, 2, 1), (32, 32, 64, 2, 1), (32, 32, 64, 2, 2),
                 (32, 32, 160, 2, 2), (64, 32, 96, 2, 2), (32, 64, 96, 2, 2), (8, 16, 8, 2, 2), (8, 16, 8, 4, 1),
                 (16, 32, 16, 1, 2), (16, 32, 32, 4, 1)]]
PAIRS_SHAPES += [shape + (1, blocks) for shape in
                 [(32, 32, 96, 2, 2), (32, 32, 96, 4, 2), (32, 32, 64, 2, 1), (8, 16, 8, 2, 2), (8, 16, 8, 4, 1),
                  (16, 32, 16, 1, 2)] for blocks in (0, 8, 10)]
PAIRS_SHAPES += [(32, 32, 96, 2, 2, 1, 12), (32, 32, 64, 2, 2, 1, 10), (32, 32, 128, 2, 2, 1, 10)]
# issue 29 (bpmaxcp2): A by cp.async, rows as they lie (STAGE 2), and B's rows read together (3); 2 lanes, STEP 2
PAIRS_SHAPES += [shape + (stage, blocks) for shape in [(32, 32, 96, 2, 2), (8, 16, 8, 2, 2), (8, 16, 16, 2, 2),
                                                       (16, 32, 32, 2, 2)] for stage in (2, 3) for blocks in (8, 10)]
PAIRS_SHAPES += [(32, 32, 64, 2, 2, 3, 10), (32, 32, 96, 2, 2, 2, 9), (32, 32, 96, 2, 2, 3, 9)]
# issue 29 (bpmaxcp3): B also by cp.async, from a paired copy of each level (STAGE 4)
PAIRS_SHAPES += [shape + (4, blocks) for shape in [(32, 32, 96, 2, 2), (8, 16, 8, 2, 2), (8, 16, 16, 2, 2),
                                                   (16, 32, 32, 2, 2)] for blocks in (8, 10)]
PAIRS_SHAPES += [(32, 32, 96, 2, 2, 4, 9), (32, 32, 64, 2, 2, 4, 8)]
# issue 29 (bpmaxreg): STAGE 4 on 64-row tiles (4 blocks of 256 threads) and with fewer stages a k1 (chunks 136, 168)
PAIRS_SHAPES += [(64, 32, 96, 2, 2, 4, 4), (32, 32, 136, 2, 2, 4, 8), (32, 32, 168, 2, 2, 4, 7), (32, 32, 96, 2, 2, 4, 7)]
#: the Turner batch's block width in tests (tests/conftest.py small_turner_sizes)
TEST_TURNER_THREADS = 32
#: the tiled Turner fill's sizes in tests (tests/conftest.py small_turner_tiled_sizes)
TEST_TURNER_TILED = TiledSizes(tile=16, stage=8, exterior=64, blocks_per_sm=3, min_chunk=16, product_min_blocks=1,
                               finish_lanes=4)
#: the long partition function's sizes in tests (tests/test_turner_pf_long_gpu.py)
TEST_PF_LONG = PfLongSizes(tile=16, stage=16, lanes=4)


def _band_cross(bp):
    """The windowed cross products' kernel under launch sizes ``bp`` (as _partition_band_gpu picks it)."""
    return band_cross_kernel(bp)[:2]


def host_kernels(sizes) -> dict:
    """Every kernel instantiation the host launches under ``sizes`` (one per family, as the fixture
    ``small_launch_sizes`` gives them), by .cu file (relative to the package): what fold/_gpu_*.py,
    interact/_gpu.py, interact/_maxplus_gpu.py, motif/_gpu.py and scan/_gpu.py ask
    bioaccel.runtime.gpu.kernel for, and the alternatives the benchmarks compare."""
    f, b, m, s = sizes.fold, sizes.bpmax, sizes.maxplus, sizes.scan
    bp = sizes.bppart
    t, bt = f.tile, f.batch_tile
    tiled = [("tiled_bulk", (lanes, t, 2, stage_bytes(t, 2))) for lanes in (f.int16_lanes, "Int16x2Dup", "Int16x2")]
    tiled += [("tiled_bulk", ("Int16x2", t, 2, 64)),           # bench/nussinov_gpu_profile.py: 64-byte stages
              ("tiled_bulk", ("Int32x1", t, 2, stage_bytes(t, 4))),
              ("batch_bulk", (batch_lanes(f.int16_lanes), bt, 2, stage_bytes(bt, 2))),
              ("batch_bulk", ("Int32x1", bt, 2, stage_bytes(bt, 4)))]
    # issue 29 (nbpersist): the chain fused (edge products and finish in one block), its closure forms; the
    # single sequence's finish with the batches' closure form 1
    tiled += [("tiled_chain", ("Int16x2Dup", t, stage_bytes(t, 2), tight)) for tight in (0, 1, 17)]
    tiled += [("tiled_chain", ("Int32x1", t, stage_bytes(t, 4), 0)), ("tiled_finish_sub_tight", ("short", t, 1))]
    # issue 29 (nbskew): finish_closure 2, form 1 with the far products ahead (FORM 1 | FINISH_AHEAD)
    tiled += [("tiled_finish_sub_tight", ("short", tile, 17)) for tile in sorted({t, 64, 128})]
    # issue 29 (nb16warps): finish_closure 7 and 8, the batches' slimmer closure steps (forms 4, 5 | FINISH_AHEAD)
    tiled += [("tiled_finish_sub_tight", ("short", tile, form)) for tile in sorted({t, 64, 128}) for form in (20, 21)]
    # issue 29 (nbunroll): finish_closure 10, form 4's steps unrolled (FORM 7 | FINISH_AHEAD)
    tiled += [("tiled_finish_sub_tight", ("short", tile, 23)) for tile in sorted({t, 64, 128})]
    # issue 29 (nbahead): finish_closure 11, form 7 with the lines a step ahead (FORM 8 | FINISH_AHEAD)
    tiled += [("tiled_finish_sub_tight", ("short", tile, 24)) for tile in sorted({t, 64, 128})]
    # ... and bench/nussinov_gpu_chain.py's 64-tiles (t64; s64: 64-byte stages of the interior products)
    tiled += [("tiled_bulk", (lanes, 64, blocks, stage)) for lanes in ("Int16x2Pre", "Int16x2Dup") for stage in (64, 128)
              for blocks in (2, 8)]
    # issue 29 (nbedges): every product form above with the atomics by rows (the edge and interior products' default)
    tiled += [("tiled_bulk_rows", arguments) for name, arguments in list(tiled) if name == "tiled_bulk"]
    # issue 29 (nbmix): the interior products (Int16x2Pre; 64-tiles: 8 blocks, 64-byte stages) and the split chain's
    # edge products (Int16x2Dup) with 8, 12 or 16 of a thread's 32 accumulator words' adds on the FMA pipe
    tiled += [("tiled_bulk_rows", (mixed_lanes(lanes, words), tile, blocks, stage)) for words in (8, 12, 16)
              for lanes, shapes in (("Int16x2Pre", {(t, 2, stage_bytes(t, 2)), (128, 2, 128), (64, 8, 64)}),
                                    ("Int16x2Dup", {(t, 2, stage_bytes(t, 2)), (128, 2, 128), (64, 2, 128)}))
              for tile, blocks, stage in sorted(shapes)]
    tiled += [("tiled_finish_sub_tight", ("short", 64, 1)), ("tiled_finish", ("short", 64)),
              ("tiled_finish_sub", ("short", 64))]
    for cell in ("short", "int"):
        tiled += [("tiled_finish", (cell, t)), ("tiled_finish_sub", (cell, t)), ("batch_finish", (cell, bt))]
        # issue 29: the tiled batch's sub-tiled form, compiled for as many blocks an SM as its shared memory allows
        sub_shared = finish_shared_bytes(np.int16 if cell == "short" else np.int32, bt, "sub")
        tiled += [("batch_finish_sub", (cell, bt, finish_sub_blocks(sub_shared)))]
        # issue 29 (nbtile2): the closure's tests as mask bits (int16 cells), the form the batches launch; (nbbatch4)
        # forms 4 and 5, the slimmer closure step
        tiled += [("batch_finish_sub_tight", (cell, bt, finish_sub_blocks(sub_shared), form)) for form in (1, 2, 3, 4, 5, 7, 8, 20)
                  if cell == "short"]   # 20: batch_closure 8 (nbskew), form 4 | FINISH_AHEAD; 7: form 4 unrolled; 8: batch_closure 11
    tiled += [("batch_bulk_direct", (batch_lanes(f.int16_lanes), bt, 2, f.batch_stage_bytes or stage_bytes(bt, 2))),
              ("batch_bulk_direct", ("Int32x1", bt, 2, stage_bytes(bt, 4)))]
    # the tiled batch's alternatives in bench/nussinov_gpu.py and tests/test_fold_gpu.py: 64-byte stages, 128-tiles
    tiled += [("batch_bulk_direct", (batch_lanes(f.int16_lanes), bt, 2, stage_bytes(bt, 2))),
              ("batch_bulk_direct", (batch_lanes(f.int16_lanes), 128, 2, f.batch_stage_bytes or stage_bytes(128, 2))),
              ("batch_finish_sub", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")))),
              ("batch_finish_sub_tight", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")), 1)),
              ("batch_finish_sub_tight", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")), 2)),
              ("batch_finish_sub_tight", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")), 3)),
              ("batch_finish_sub_tight", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")), 4)),
              ("batch_finish_sub_tight", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")), 5)),
              ("batch_finish_sub_tight", ("short", 128, finish_sub_blocks(finish_shared_bytes(np.int16, 128, "sub")), 20)),
              ("batch_finish", ("short", 128))]
    # issue 29 (nbtile3): the diagonal's tiles of the tiled batch alone (d = 0 a constant)
    tiled += [("batch_finish_diag", (cell, tile, finish_diag_blocks(tile))) for cell in ("short", "int")
              for tile in sorted({bt, 64, 128})]
    # issue 29 (nbdiag): the diagonal's tiles sub-tiled (batch_diagonal 2), int16 cells in every closure form
    sub_diag = {cell: {t: finish_sub_blocks(finish_shared_bytes(np.dtype(cell), t, "sub-diagonal"))
                       for t in sorted({bt, 64, 128})} for cell in ("int16", "int32")}
    tiled += [("batch_finish_sub_diag", ("short", t, sub_diag["int16"][t], form)) for t in sorted({bt, 64, 128})
              for form in (0, 1, 2, 3, 4, 7, 8)]
    tiled += [("batch_finish_sub_diag", ("int", t, sub_diag["int32"][t], 0)) for t in sorted({bt, 64})]
    traceback = [("traceback", ("int", "SquareLayout")), ("traceback", ("int", "PackedRowsLayout")),
                 ("traceback_offset", ("short", t))]
    traceback += [("traceback", (cell, f"TiledLayout<{t}>")) for cell in ("short", "int")]
    # the tiled batch's traceback: (issue 29, nbhost) the walk with the interval in hand (WALK 1) and the
    # one before (0: batch_traceback<cell, tile> as it was), (nbedge) the first scanning only the m where (i, m-1)
    # may pair (3), (nbwalk) the same stepping in a window staged in shared memory (5), (nbhost2) that reading the
    # codes and pair model from shared memory, its pops their V from the stack (6), and the batch's check
    traceback += [("batch_traceback", (cell, tile, walk)) for cell in ("short", "int") for tile in sorted({bt, 32, 128})
                  for walk in (0, 1, 3, 5, 6)]
    traceback += [("batch_unscored", ())]
    bpmax = [("bpmax_products_packed", (b.packed_rows, b.packed_cols, b.chunk)),
             ("bpmax_finish_packed", (b.finish_diagonals, b.finish_split, min(b.finish_form, 4)))]   # 5: roles
    # issue 29 (bpmaxst): the finish's 16-byte loads (form 1) and shortened tails (form 2), tests and bench
    bpmax += [("bpmax_finish_packed", shape) for shape in ((4, 1, 0), (4, 1, 1), (4, 1, 2), (8, 2, 2), (1, 1, 2),
                                                               (4, 1, 3), (8, 1, 3), (8, 2, 3), (8, 1, 2),
                                                               (8, 1, 4), (4, 1, 4), (8, 2, 4), (1, 1, 4))]
    # issue 29 (bpmaxfin): finish_form 5, the next group's final splits beside a group's tails (bulk and tail roles)
    bpmax += [("bpmax_finish_roles", (diagonals, 5, 1024)) for diagonals in (4, 8, 2, 3)]
    # issue 29 (bpmaxfin2): finish_form 6, a tail pass's operands read a pass ahead
    bpmax += [("bpmax_finish_roles", (diagonals, 6, 1024)) for diagonals in (4, 8, 2, 3)]
    bpmax += [("bpmax_finish_roles", (diagonals, 6, 896)) for diagonals in (4, 8)]   # BPMaxSizes.finish_bound 896 (the default since stop 54)
    # issue 29 (bpmaxunroll): finish_form 7, form 6's loops on compile-time offsets (tests and bench row 77)
    bpmax += [("bpmax_finish_roles", (diagonals, 7, 896)) for diagonals in (8, 4, 2, 3)]
    bpmax += [("bpmax_finish_roles", (8, 7, 1024))]
    bpmax += [("bpmax_finish_tiled", (tile, flag)) for tile in sorted({b.wide_tile, *WIDE_TEST_TILES})
              for flag in (False, True)]
    bpmax += [("bpmax_products_packed_unskipped", (b.packed_rows, b.packed_cols, b.chunk))]
    bpmax += [("bpmax_products_packed", (b.packed_rows, b.packed_cols, 64))]   # bench/bpmax_gpu_sizes.py: chunk 64
    bpmax += [("bpmax_products_unskipped", (cell, b.tile_rows, b.tile_cols, b.chunk)) for cell in ("short", "int")]
    # issue 29 (bpmaxw): the products split among P lanes a cell, at the tests' and the benchmark's tiles
    bpmax += [("bpmax_products_split", shape) for shape in
              [(b.split_rows, b.split_cols, b.split_chunk, parts, b.split_prefetch, b.split_own)
               for parts in (1, 2, 4, 8)] + [shape + (False,) for shape in SPLIT_TEST_SHAPES]]
    # issue 29 (bpmaxst): each lane starting and storing only its own words (OWN), tests and bench
    bpmax += [("bpmax_products_split", shape + (True,)) for shape in
              [(32, 32, 96, 4, False), (32, 32, 96, 1, False), (32, 32, 96, 2, False), (32, 32, 96, 8, False),
               (8, 16, 8, 4, False), (8, 16, 8, 8, False), (16, 32, 16, 1, False),
               (8, 16, 8, 4, True)]]
    # issue 29 (bpmaxpk): a word one cell, its halves over the even and the odd k2
    bpmax += [("bpmax_products_pairs", shape) for shape in
              sorted({*PAIRS_SHAPES, *[(b.split_rows, b.split_cols, b.split_chunk, parts, b.pairs_step,
                                        pairs_stage(b, parts), b.pairs_blocks) for parts in (1, 2, 4)]})]
    bpmax += [("bpmax_pair_rows", ())]   # issue 29 (bpmaxcp3): STAGE 4's paired copy
    bpmax += [("bpmax_finish_eager", (tile, flag, eager, form)) for tile in sorted({b.wide_tile, 32, *WIDE_TEST_TILES})
              for flag in (False, True) for eager, form in ((False, 0), (True, 0), (True, 1), (True, 2))]
    for cell in ("short", "int"):
        bpmax += [("bpmax_products", (cell, b.tile_rows, b.tile_cols, b.chunk)), ("bpmax_gather", (cell,)),
                  ("bpmax_to_tiles", (cell,)), ("bpmax_border", (cell,))]
        bpmax += [(name, (cell, flag)) for flag in (False, True)
                  for name in ("bpmax_finish", "bpmax_finish_diagonal", "bpmax_diagonals")]
    kernels = {
        "fold/kernels/nussinov_tiled.cu": tiled,
        "fold/kernels/nussinov_traceback.cu": traceback,
        "fold/kernels/nussinov_diagonal.cu": [("diagonal_cell_per_thread", ()),
                                              ("diagonal_cell_per_block", (f.two_kernel_block,)),
                                              ("diagonal_cell_per_block", (f.chang_block,)),
                                              ("diagonal_cell_per_grid", (f.chang_block,))],
        "fold/kernels/nussinov_blocked.cu": [("blocked_tile_diagonal", (layout, f.seed_tile))
                                             for layout in ("SquareLayout", "PackedRowsLayout")],
        "fold/kernels/nussinov_batch.cu": [("batch_fold", (f.batch_threads,))] + [
            short_kernel_arguments(name, cell, f)[1:] for name in SHORT_KERNELS for cell in ("signed char", "short")
            if SHORT_KERNELS[name][0] == "nussinov_batch.cu"],
        "fold/kernels/nussinov_batch_x4t.cu": [
            short_kernel_arguments(name, cell, f)[1:] for name in SHORT_KERNELS for cell in ("signed char", "short")
            if SHORT_KERNELS[name][0] == "nussinov_batch_x4t.cu"],
        "fold/kernels/turner_batch.cu": [("turner_fold", (turner.threads, turner.min_blocks)) for turner in
                                         (getattr(sizes, "turner", PRODUCTION.turner),
                                          PRODUCTION.turner.replace(threads=TEST_TURNER_THREADS))],
        "fold/kernels/turner_pf_batch.cu": [("turner_pf", (pf.threads, pf.min_blocks)) for pf in
                                            (PfSizes(), PfSizes(threads=TEST_TURNER_THREADS))],
        "fold/kernels/turner_tiled.cu": [kernel for tiled in (TiledSizes(), TEST_TURNER_TILED) for kernel in
                                         (("turner_bulk", (tiled.tile, tiled.stage, tiled.product_min_blocks)),
                                          # issue 29 item 2 (turnerrows): the products' minima by rows
                                          ("turner_bulk_rows", (tiled.tile, tiled.stage, tiled.product_min_blocks)),
                                          ("turner_finish", (tiled.tile, tiled.finish_lanes)))]
        + [("turner_exterior_bulk", ()), ("turner_exterior_chunk", ()), ("turner_tiled_trace", ())],
        "fold/kernels/turner_pf_long.cu": [kernel for pf in (PfLongSizes(), TEST_PF_LONG) for kernel in
                                           (("pf_product", (pf.tile, pf.stage)),
                                            ("pf_inside_finish", (pf.tile, pf.lanes)),
                                            ("pf_outside_finish", (pf.tile, pf.lanes)))]
        + [("pf_exterior", ()), ("pf_probabilities", ())],
        "interact/kernels/bpmax.cu": bpmax,
        "runtime/kernels/fill.cu": [("fill_vectors", ())],   # runtime/gpu.py filled (issue 29, bpmaxhost's fill)
        "interact/kernels/bppart.cu": [("bppart_init", ()), ("bppart_cross", (bp.tile, bp.chunk)),
                                       ("bppart_sweep", (bp.threads,)), ("bppart_tiles", (bp.sweep_tile,))],
        "interact/kernels/bppart_band.cu": [("bppart_band_single", ()), _band_cross(bp),
                                            ("bppart_band_tiles", band_tiles_arguments(bp))]
        + [("bppart_band_outer", ()), ("bppart_band_outer_cs", ()), ("bppart_band_outer_lean", ()),
           *[("bppart_band_outer_pair", (rq, open_)) for rq in (False, True) for open_ in (False, True)]] * bp.band_split
        + [("bppart_band_unneeded", ())]
        + [("bppart_band_cross", shape) for shape in BAND_CROSS_ALTERNATIVES]
        + [("bppart_band_cross_mma", shape) for shape in BAND_MMA_ALTERNATIVES]
        + [("bppart_band_cross_ring", shape) for shape in BAND_RING_ALTERNATIVES]
        + [("bppart_band_tiles", tiles) for tiles in BAND_TILE_ALTERNATIVES]
        # v22: the last tile diagonal by a warp a tile (band_last), after the lean split sweep (OUTER 1) and the parked base
        + [("bppart_band_last", (16, outer, 8)) for outer in (1, 0)],
        "interact/kernels/maxplus.cu": [(shape.kernel, shape.arguments) for shape in m.shapes + ALTERNATIVES],
        "motif/kernels/bucket.cu": [("slice_histogram", (False,)), ("slice_histogram", (True,)),
                                    ("slice_histogram_markov", ())],
        "scan/kernels/scan.cu": [("scan_fused", (4, s.threads, s.per_thread)),
                                 ("scan_fused", (1, s.threads, s.per_thread)),
                                 ("scan_segments", (s.segment, s.threads, s.buffer)),
                                 ("scan_lanes", (s.threads, max(1, s.per_thread // 4)))],
    }
    return {path: list(dict.fromkeys(expression(name, arguments) for name, arguments in names))
            for path, names in kernels.items()}


def nvcc_build(path, expressions, folder, kind="ptx", flags=()):
    """nvcc's ``kind`` ("ptx" or "cubin") of ``path`` with ``expressions`` instantiated (their addresses
    taken, as NVRTC does for CuPy), built in ``folder`` with nvcc's extra ``flags``; returns (path of the output,
    nvcc's process)."""
    folder = Path(folder)
    source = folder / f"instantiate_{path.stem}.cu"
    taken = "".join(f"    (void*)&{e},\n" for e in expressions)
    source.write_text(f'#include "{path}"\nvoid* const bioaccel_kernels[] = {{\n{taken}}};\n')
    out = folder / f"{path.stem}.{kind}"
    proc = subprocess.run(
        [NVCC, "-arch=sm_90", "--std=c++17", f"-I{path.parent}", f"-I{SHARED}", f"--{kind}", str(source), "-o",
         str(out), *flags],
        capture_output=True, text=True,
    )
    return out, proc


def disassemble(path, expressions, folder, nvdisasm=None):
    """(nvdisasm -c's text, ptxas's -v report) of ``path``'s cubin with ``expressions`` instantiated (one nvcc run);
    SystemExit with nvcc's errors where it fails. ``nvdisasm``: its path (default: on PATH, else this machine's
    /tmp/nvdis copy)."""
    cubin, proc = nvcc_build(path, expressions, folder, "cubin", ("-Xptxas", "-v"))
    if proc.returncode:
        raise SystemExit(proc.stderr)
    nvdisasm = nvdisasm or shutil.which("nvdisasm") or "/tmp/nvdis/nvidia/cu13/bin/nvdisasm"
    sass = subprocess.run([nvdisasm, "-c", str(cubin)], capture_output=True, text=True, check=True).stdout
    return sass, proc.stderr


def main():
    """Per .cu file: the DPX instructions (VIADDMNMX) in the SASS of its production kernels."""
    import tempfile

    cuobjdump = shutil.which("cuobjdump")
    with tempfile.TemporaryDirectory() as folder:
        for relative, expressions in host_kernels(PRODUCTION).items():
            cubin, proc = nvcc_build(PACKAGE / relative, expressions, folder, "cubin")
            if proc.returncode:
                print(f"{relative}: nvcc failed\n{proc.stderr}")
                continue
            sass = subprocess.run([cuobjdump, "--dump-sass", str(cubin)], capture_output=True, text=True).stdout
            print(f"{relative}: VIADDMNMX instructions in SASS: {sass.count('VIADDMNMX')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())


