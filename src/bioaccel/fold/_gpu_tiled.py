"""bioaccel's tiled Nussinov fill on the GPU (variant ``tiled``; kernels/nussinov_tiled.cu).

TILE x TILE tiles of the upper triangle only, int16 cells with Hopper's two-lane DPX max-plus (where
scores pass int16, past 65,535 nt, the same int16 cells count from an int32 base per tile: see
:func:`cell_encoding`), split-K bulk products, the in-tile finish in shared memory (sub-tiled off the
diagonal). The finish chain (edge products, then finish, diagonal after diagonal) runs on a
high-priority stream; the interior products of diagonal d run on two side streams, diagonals
alternating, as soon as diagonal d-2 is finished, so they overlap the chain and each other's last wave;
launches of few products take one block an SM (padded shared memory), so that the chain's blocks fit beside
them (docs/gpu-notes.md has what each step measured).
"""
import math

import numpy as np

from ..runtime import gpu as _gpu
from . import _launch
from ._gpu_table import BASE_POISON, POISON, DeviceTable, kernel

FINISH_LANES = 4                  # nussinov_tiled.cu: threads per cell in the wavefront finish
FINISH_SUB = 16                   # nussinov_tiled.cu: sub-tile edge of the sub-tiled finish
SIDE_STREAMS = 2                  # streams the interior products of consecutive diagonals alternate on
INT16_MAX = 32767


def tiles_per_side(n, tile):
    return math.ceil((n + 1) / tile)


def cell_encoding(n, params, tile):
    """How the tiled table of an n-long sequence stores its cells on the GPU.

    ``"int16"`` where every score fits int16; else ``"offset"``: int16 cells holding V less an int32
    base per tile, the smallest V of the tile (kernels/nussinov_tiled.cu, bulk_tile). A tile's cells lie
    within 2 T w of its base (one letter changes V by at most w, the largest weight in units), a
    cell within 4 T w of the base that its bulk counts from, and a product's sums within 8 T w of it:
    so ``offset`` needs 8 T w <= 32767 (w <= 31 with 128-tiles); ``"int32"`` beyond.

    >>> from bioaccel.fold import FoldParams
    >>> [cell_encoding(n, FoldParams(), 128) for n in (65_000, 100_000)]
    ['int16', 'offset']
    >>> cell_encoding(100_000, FoldParams(gc=40), 128)
    'int32'
    """
    if params.cell_dtype(n) == np.int16:
        return "int16"
    return "offset" if 8 * tile * int(params.pair_table().max()) <= INT16_MAX else "int32"


def skip_below(params, tile):
    """The bulk skips a product whose operands' bases sum to less than R + this (see bulk_tile): the
    most negative frame that keeps every accumulator (at most 4 T w above R) inside int16.

    >>> from bioaccel.fold import FoldParams
    >>> skip_below(FoldParams(), 128)
    -32255
    """
    return -(INT16_MAX - 4 * tile * int(params.pair_table().max()))


def int16_lanes(encoding, sizes=None):
    """The bulk's int16 lanes for a table in ``encoding``: SIZES.int16_lanes, except that the ready-made
    A operands of Int16x2Pre (4 more bytes a cell, written by the sub-tiled finish) are kept to the int16
    encoding, below 65,535 nt; past it the offset encoding's tables are large, and use Int16x2Dup.

    >>> int16_lanes("int16"), int16_lanes("offset")
    ('Int16x2Pre', 'Int16x2Dup')
    """
    sizes = sizes or _launch.SIZES
    lanes = sizes.int16_lanes
    if lanes == "Int16x2Pre" and (encoding != "int16" or sizes.finish != "sub"):
        return "Int16x2Dup"
    return lanes


def mixed_lanes(lanes, words):
    """The name of the bulk's int16 ``lanes`` with ``words`` of a thread's 32 accumulator words in the FMA-pipe form
    (kernels/nussinov_tiled.cu FmaMix: two IMAD.IADD and one VIMNMX3 for four updates; 0: ``lanes`` as they are).
    Exact only in the int16 encoding, where int16_lanes gives Int16x2Pre: fill_tiled mixes nothing else.

    >>> mixed_lanes("Int16x2Pre", 16), mixed_lanes("Int16x2Dup", 0)
    ('FmaMix<Int16x2Pre, 16>', 'Int16x2Dup')
    """
    return f"FmaMix<{lanes}, {words}>" if words else lanes


def table_bytes(n, params, tile):
    """Device bytes of the tiled table of an n-long sequence, its bases, three scratch rows of tiles and,
    with Int16x2Pre, the A operands."""
    nt = tiles_per_side(n, tile)
    encoding = cell_encoding(n, params, tile)
    itemsize = 4 if encoding == "int32" else 2
    if int16_lanes(encoding) == "Int16x2Pre":                # only ever the int16 encoding
        itemsize += 4
    table = nt * (nt + 1) // 2 * (tile * tile * itemsize + 4)
    return table + 3 * nt * tile * tile * 4


def bulk_kernel(score_type, tile, stage_bytes=None, kernel_name="tiled_bulk", lanes=None, min_blocks=2, mix=0):
    """The ``kernel_name`` (tiled_bulk, the tiled fill's bulk product, or batch_bulk for many tables)
    instantiation for ``score_type`` (with int16, ``lanes`` or SIZES.int16_lanes, ``mix`` words of them in the
    FMA-pipe form: :func:`mixed_lanes`; ``min_blocks`` its __launch_bounds__ blocks an SM) and its dynamic shared
    memory in bytes."""
    itemsize = np.dtype(score_type).itemsize
    stage_bytes = stage_bytes or _launch.stage_bytes(tile, itemsize)
    lanes = (lanes or _launch.SIZES.int16_lanes) if itemsize == 2 else "Int32x1"
    if kernel_name == "batch_bulk":
        lanes = _launch.batch_lanes(lanes)
    bulk = kernel("nussinov_tiled.cu", kernel_name, mixed_lanes(lanes, mix), tile, min_blocks, stage_bytes)
    shared = bulk_shared_bytes(itemsize, tile, stage_bytes, lanes)
    if kernel_name == "tiled_bulk_rows":     # its stage buffers then hold the tile's maxima as int32
        shared = max(shared, 4 * tile * tile)
    bulk.max_dynamic_shared_size_bytes = shared
    return bulk, shared


def edge_kernel(score_type, tile, rows, mix=0):
    """The split chain's edge products (K = I + 1 and K = J - 1 of each tile of a diagonal) in Int16x2Dup (Int32x1 for
    int32 cells; ``mix`` words in the FMA-pipe form): (kernel, dynamic shared bytes); ``rows`` (SIZES.edge_rows)
    tiled_bulk_rows, else tiled_bulk."""
    return bulk_kernel(score_type, tile, lanes="Int16x2Dup", kernel_name="tiled_bulk_rows" if rows else "tiled_bulk",
                       mix=mix)


def bulk_shared_bytes(itemsize, tile, stage_bytes, lanes):
    """Dynamic shared memory of the bulk product's stages (bulk_tile) with cells of ``itemsize`` bytes in ``lanes``.
    At 128-tiles with int16 cells they hold the tile's int32 maxima too (tiled_bulk_rows: 65,536 bytes), and the edge
    products' fit beside a padded interior block on one SM (228 KB, 1 KB reserved a block):

    >>> bulk_shared_bytes(2, 128, 128, "Int16x2Pre"), bulk_shared_bytes(2, 128, 128, "Int16x2Dup")
    (98320, 102400)
    >>> bulk_shared_bytes(2, 128, 128, "Int16x2Dup") + 1024 + _launch.SIZES.bulk_shared_pad + 1024 <= 233_472
    True
    """
    k_per_stage = stage_bytes // itemsize
    if lanes == "Int16x2Pre":     # Ad (4 bytes a cell) and Bs, double-buffered, and each buffer's mbarrier
        shared = 2 * k_per_stage * tile * 4 + 2 * k_per_stage * tile * itemsize + 2 * 8
    else:
        shared = 2 * tile * (k_per_stage + 16 // itemsize) * itemsize + 2 * k_per_stage * tile * itemsize
    if lanes == "Int16x2Dup":
        shared += k_per_stage * tile * 4                     # Ad: the duplicated A operands of a stage
    return shared


def finish_shared_bytes(score_type, tile, form="wavefront"):
    """Dynamic shared memory of tiled_finish (``form`` "wavefront": three TILE x LD tiles) or
    tiled_finish_sub ("sub": the same, one extra row and 16 rows of padding; LD as in nussinov_tiled.cu;
    "sub-diagonal": batch_finish_sub_diag, the same with S rows of padding in place of the tile AB, which is X
    itself on the diagonal: the closure's lanes outside their sub-tile read up to S - 1 rows above X).
    The sub-tiled finish's int16 form fits beside a bulk block on one SM (228 KB):

    >>> finish_shared_bytes(np.int16, 128, "sub"), finish_shared_bytes(np.int16, 128)
    (109072, 99840)
    >>> finish_shared_bytes(np.int16, 64, "sub-diagonal"), finish_shared_bytes(np.int32, 64, "sub-diagonal")
    (23184, 43792)
    """
    itemsize = np.dtype(score_type).itemsize
    if form in ("sub", "sub-diagonal"):
        rows = 3 * tile + 1 + FINISH_SUB if form == "sub" else 2 * tile + 1 + 2 * FINISH_SUB
        return rows * (tile + 16 // itemsize) * itemsize
    return 3 * tile * (tile + 4 // itemsize) * itemsize


def finish_kernels(score_type, tile, form, closure=0):
    """The finish of the diagonal d = 0 and that of the tiles off it (``form``: "sub" or "wavefront"):
    two (kernel, threads, shared bytes); the sub-tiled finish has no form for the diagonal's tiles.
    ``closure`` 1 (int16 cells, "sub"): the sub-tiled finish with the batches' closure form 1; 2 that with the
    far products taken ahead by idle warps (_launch.closure_form); 7 and 8 the batches' slimmer steps (forms 4, 5);
    10 form 4's steps unrolled (form 7); 11 form 7 with the lines loaded a step ahead (form 8)."""
    tag = "short" if np.dtype(score_type) == np.int16 else "int"
    out = []
    off_diagonal = "tiled_finish_sub" if form == "sub" else "tiled_finish"
    for name, kind in (("tiled_finish", "wavefront"), (off_diagonal, form)):
        if closure and kind == "sub" and tag == "short":
            finish = kernel("nussinov_tiled.cu", "tiled_finish_sub_tight", tag, tile,
                            _launch.closure_form(closure, "finish"))
        else:
            finish = kernel("nussinov_tiled.cu", name, tag, tile)
        shared = finish_shared_bytes(score_type, tile, kind)
        finish.max_dynamic_shared_size_bytes = shared
        threads = 2 * tile if kind == "sub" else tile * FINISH_LANES
        out.append((finish, threads, shared))
    return out


def chain_kernel(score_type, tile, edge_lanes, closure=0):
    """tiled_chain (SIZES.chain "fused": a diagonal's edge products and sub-tiled finish in one block a
    tile, d >= 1) for ``score_type`` with the edge products in ``edge_lanes`` (int16; Int32x1 for int32
    cells): (kernel, threads, shared bytes), the shared memory the larger of the finish's and the bulk's."""
    itemsize = np.dtype(score_type).itemsize
    lanes = edge_lanes if itemsize == 2 else "Int32x1"
    tight = _launch.closure_form(closure, "finish") if itemsize == 2 else 0
    if tight % _launch.FINISH_AHEAD >= 4:
        # finish_closure 7, 8, 10 and 11 (the slimmer steps) were built and measured for the split chain only
        # (nb16warps, nbunroll, nbahead): the fused chain runs finish_closure 2's form instead (form 1 with the far
        # products ahead)
        tight = _launch.closure_form(2, "finish")
    chain = kernel("nussinov_tiled.cu", "tiled_chain", lanes, tile, _launch.stage_bytes(tile, itemsize), tight)
    _, bulk_shared = bulk_kernel(score_type, tile, lanes=lanes)
    shared = max(bulk_shared, finish_shared_bytes(score_type, tile, "sub"))
    chain.max_dynamic_shared_size_bytes = shared
    return chain, 2 * tile, shared


def bulk_plan(nt, want_blocks, min_products):
    """(d, tiles, splits, chunk) of every launch of interior products (I+1 < K < J-1): the K range
    of a tile is split only as far as needed to give the GPU ``want_blocks`` blocks, and never below
    ``min_products`` tile products a block (partial results cost atomics)."""
    plan = []
    for d in range(4, nt):
        tiles, products = nt - d, d - 3
        splits = max(1, min(math.ceil(want_blocks / tiles), products // min_products))
        chunk = math.ceil(products / splits)
        plan.append((d, tiles, math.ceil(products / chunk), chunk))
    return plan


def _priority_stream(cp, high):
    """A non-blocking stream; the chain of finishes gets the device's highest priority, so that its
    blocks take SMs as soon as bulk blocks leave them (CUDA clamps a priority outside the range)."""
    return cp.cuda.Stream(non_blocking=True, priority=-5 if high else 0)


def mixed_words(setting: int, n: int) -> int:
    """The interior products' accumulator words with their adds on the FMA pipe (``FoldSizes.bulk_mix``): the setting
    itself, or by length where it is -1: 8 below 16,000 nt, 16 from it (16 words take 117 registers, and at 10,000
    nt, where fewer tiles share a diagonal, ran slower than 8 on an H200; at 26,000 faster: issue 29, nbmix).

    >>> mixed_words(-1, 10_000), mixed_words(-1, 16_000), mixed_words(0, 26_000), mixed_words(12, 100)
    (8, 16, 0, 12)
    """
    return setting if setting >= 0 else (16 if n >= 16_000 else 8)


def fill_tiled(codes_dev, n, params, pm, encoding=None, timeline=None):
    """Fill the tiled table of one sequence (codes on the device); returns a DeviceTable.

    ``encoding`` (tests and benchmarks): ``"int16"``, ``"offset"`` or ``"int32"`` cells instead of
    :func:`cell_encoding`'s choice; each gives the same table values where it holds them.
    ``timeline`` (bench/nussinov_gpu_profile.py): a list that gets (d, what, event) for the start and end of
    every launch of the chain and of the interior products (an event on the launch's stream).
    """
    cp = _gpu.cupy()
    sizes = _launch.SIZES
    T = sizes.tile
    encoding = encoding or cell_encoding(n, params, T)
    score_type = np.dtype(np.int32 if encoding == "int32" else np.int16)
    nt = tiles_per_side(n, T)
    by_cell = not sizes.table_fill
    table = _gpu.filled(nt * (nt + 1) // 2 * T * T, POISON, score_type, by_cell=by_cell)
    bases = _gpu.filled(nt * (nt + 1) // 2, BASE_POISON, np.int32, by_cell=by_cell) if encoding == "offset" else None
    skip = np.int32(skip_below(params, T) if encoding == "offset" else 0)
    # three scratch buffers in rotation: diagonal d's interior products are accumulated while the
    # finish of d-1 still reads its own buffer (and that of d-2 was reset before d's products start)
    scratch = cp.zeros((3, nt * T * T), dtype=np.int32)
    lanes = int16_lanes(encoding) if encoding != "int32" else None
    interior_stage = sizes.tiled_stage_bytes if score_type == np.int16 and sizes.tiled_stage_bytes else None
    # the adds of part of the products on the FMA pipe (issue 29, nbmix) only in the int16 encoding, the one where
    # int16_lanes gives Int16x2Pre: there every operand a product reads for a cell of the sequence is 0 .. 32767
    # (kernels/nussinov_tiled.cu FmaMix)
    exact_mix = lanes == "Int16x2Pre"
    bulk, bulk_shared = bulk_kernel(score_type, T, interior_stage, lanes=lanes, min_blocks=sizes.tiled_bulk_blocks,
                                    kernel_name="tiled_bulk_rows" if sizes.bulk_rows else "tiled_bulk",
                                    mix=mixed_words(sizes.bulk_mix, n) if exact_mix else 0)
    # the edge products (on the chain) in the Int16x2Dup form beside Int16x2Pre's interior products: on an
    # H100 the fill then took 0.0423 s at n = 16,000 and 0.1300 s at 26,000, against 0.0465 and 0.1310 s
    # with Int16x2Pre for both (docs/gpu-notes.md)
    separate = lanes == "Int16x2Pre" or interior_stage is not None or sizes.tiled_bulk_blocks != 2 or \
        sizes.bulk_shared_pad > 0
    # edge_rows (issue 29, nbedges): the edge products' atomics by rows of consecutive cells, a kernel of their own
    if separate or sizes.edge_rows:
        edge_bulk, edge_shared = edge_kernel(score_type, T, sizes.edge_rows, sizes.edge_mix if exact_mix else 0)
    else:
        edge_bulk, edge_shared = bulk, bulk_shared
    # Int16x2Pre: the A operands in the bulk's form, written by the finish of each tile off the diagonal
    adup = cp.empty(nt * (nt + 1) // 2 * T * T, dtype=np.uint32) if lanes == "Int16x2Pre" else None
    bulk_threads = (T // 8) ** 2
    finishes = finish_kernels(score_type, T, sizes.finish, sizes.finish_closure)
    fused = sizes.chain == "fused" and sizes.finish == "sub"
    if fused:        # d >= 1: edge products and finish in one launch
        finishes[1] = chain_kernel(score_type, T, "Int16x2Dup", sizes.finish_closure)
    # fewer interior blocks an SM, room for the chain's beside them; set last: the edges' kernel and tiled_chain's
    # sizing may be the same function as the interior's (Int16x2Dup), and bulk_kernel resets its limit (a launch
    # over it failed: CUDA_ERROR_INVALID_VALUE, call 3)
    padded = max(bulk_shared, sizes.bulk_shared_pad if score_type == np.int16 else 0)
    bulk.max_dynamic_shared_size_bytes = padded
    sms = _gpu.multiprocessors()
    plan = {d: (tiles, splits, chunk)
            for d, tiles, splits, chunk in bulk_plan(nt, sizes.bulk_blocks_per_sm * sms, sizes.bulk_min_products)}

    def mark(stream, d, what):
        if timeline is not None:
            timeline.append((d, what, stream.record()))
    n_, nt_ = np.int32(n), np.int32(nt)

    caller = cp.cuda.get_current_stream()
    chain = _priority_stream(cp, high=True)
    # two side streams, diagonals alternating: the interior products of d + 1 may start while those of
    # d are still on the GPU (they need only d - 1 finished), so a launch's last wave of blocks does not
    # leave SMs idle
    sides = [_priority_stream(cp, high=False) for _ in range(SIDE_STREAMS)]
    start = caller.record()
    for stream in [chain, *sides]:
        stream.wait_event(start)
    finished = []
    for d in range(nt):
        buf = scratch[d % 3]
        if d in plan:
            tiles, splits, chunk = plan[d]
            side = sides[d % len(sides)]
            side.wait_event(finished[d - 2])
            mark(side, d, "interior start")
            pad = sizes.bulk_pad_products == 0 or tiles * (d - 3) <= sizes.bulk_pad_products
            with side:
                bulk((tiles, splits), (bulk_threads,),
                     (table, buf, nt_, np.int32(d), np.int32(chunk), np.int32(0), bases, skip, adup),
                     shared_mem=padded if pad else bulk_shared)
            interior_done = side.record()
            mark(side, d, "interior end")
        if d >= 2 and not fused:
            mark(chain, d, "edges start")
            with chain:
                edge_bulk((nt - d, 2), (bulk_threads,),
                          (table, buf, nt_, np.int32(d), np.int32(1), np.int32(1), bases, skip, adup),
                          shared_mem=edge_shared)
            mark(chain, d, "edges end")
        if d in plan:
            chain.wait_event(interior_done)
        finish, threads, shared = finishes[min(d, 1)]
        args = (table, buf, codes_dev, pm, n_, nt_, np.int32(d), bases)
        if d and fused:
            args += (skip, adup)                              # tiled_chain: the edge products' skip too
        elif d and sizes.finish == "sub":
            args += (adup,)                                   # the sub-tiled finish writes Int16x2Pre's operands
        mark(chain, d, "finish start")
        with chain:
            finish((nt - d,), (threads,), args, shared_mem=shared)
        finished.append(chain.record())
        mark(chain, d, "finish end")
    caller.wait_event(chain.record())
    return DeviceTable(table, "tiled", np.int64(nt), n, tile=T, bases=bases)
