"""Many sequences folded together on the GPU (variant ``tiled``): binned by length, many per launch.

The sequences arrive back to back (uint8 codes on the device, ``starts`` on the host: sequence k is
``codes[starts[k]:starts[k + 1]]``) and the results leave the same way: one score per sequence, and
``pair_to`` and the dot-bracket letters at each sequence's own place. Nothing is copied per sequence;
the host loops over bins, never over sequences.

* up to ``SIZES.batch_shared_max`` nt: one block per sequence, the whole table in shared memory,
  traceback by the same block (kernels/nussinov_batch.cu); one launch per bin of block widths. The
  kernel is batch_fold_x2t (row and column copies, a 2 x 2 tile of cells a thread, two splits per DPX
  instruction, int8 cells where every V <= 127, else int16 to 16,383; the traceback's stack in the row
  copy once the fill is done, so that five blocks share an SM up to 200 nt, walked by one warp;
  batch_fold_x2, a thread a cell, with ``SHORT_KERNEL = "x2"``; the others of :data:`SHORT_KERNELS`,
  measured slower, for A/B), b1's batch_fold past that or with ``SHORT_KERNEL = "b1"``.
* up to ``BATCH_TILED_MAX`` nt: the tiled fill's kernels (kernels/nussinov_tiled.cu) with a batch index:
  a bin's tables back to back, each launch one tile diagonal of every table (the products' maxima into
  the tiles, the sub-tiled finish: issue 29), then one traceback block per table (:mod:`._gpu_batch_tiled`).
* longer: one at a time, the split-K tiled fill on two streams (:mod:`._gpu_tiled`, through
  :mod:`._gpu_fill`).

Every path gives the CPU's scores and structures (the traceback rule of fold/_traceback.py).
"""
import functools
import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..runtime import gpu as _gpu
from ..errors import InternalError
from . import _launch
from ._gpu_fill import check_fits
from ._gpu_batch_tiled import bins, fold_tiled_group, tiled_groups
from ._gpu_table import kernel, score_units, trace_structure
from ._gpu_tiled import fill_tiled
from ._gpu_upload import pack, upload_packed
from ._batch_shapes import SHORT_KERNELS, block_threads, shared_bytes, short_shared_bytes, short_threads

#: Longest sequence folded in a tiled batch; longer ones fill the GPU on their own.
BATCH_TILED_MAX = 6000
#: The shared-memory kernel of short sequences: "x2t5w" (the default since issue 29's nbwarp: x2t5 with the
#: traceback walked by warp 0 alone, no block barrier: 1M x 200 nt fold 1.08x x2t5's on an H200, the same
#: bits), "x2t5" (issue 29's nb5blk: batch_fold_x2t with the traceback stack in the row copy, 5 blocks an SM
#: to 200 nt: 1.11x x2t's), "x2t" (batch_fold_x2t: a 2 x 2 tile of cells a thread, issue 29, 2026-11-27),
#: "x2" (batch_fold_x2: a thread a cell, row and column copies, two splits a DPX instruction), "x4t"
#: (batch_fold_x4t: a 4 x 4 tile a thread), "x2tr", "x4tr" (with turns, see SHORT_KERNELS) or "b1"
#: (batch_fold: a thread per cell, one split at a time), all but x2t5w kept for A/B (docs/gpu-notes.md: x4t
#: 1.54x, x2tr 1.47x, x4tr 2.3x slower than x2t at 1M x 200 nt on an H100).
SHORT_KERNEL = "x2t5w"
#: Preferred shared-memory carveout (percent) of the shared-memory kernels, None: the driver's choice.
#: Not measured yet (docs/gpu-notes.md, issue 29): the bench's setting ``x2c`` sets it to 100.
SHARED_CARVEOUT = None
#: Blocks an SM that batch_fold_x4t is compiled for (its __launch_bounds__): four tables of 200 nt (47.5 KB
#: each) fit in an H100 SM's shared memory.
X4T_MIN_BLOCKS = 4
#: Largest V that batch_fold_x2 holds in int8 and in int16 cells (empty cells -128 and -16384: a sum
#: with an empty operand stays below 0, two empty ones within int16).
X2_MAX_SCORE = (127, 16_383)
#: Batches of at most this many sequences keep their launch plan (:func:`_plan`; 0: none kept), the last
#: PLANS_KEPT of them: a batch of the same starts, model and sizes is planned once (issue 29, helper nbfin).
PLAN_CACHE_MAX = 65_536
PLANS_KEPT = 8
#: A kept plan also keeps its upload on each device it ran on (the starts, the pair model, each launch's ids,
#: the scores' first values: read-only there), so that a batch of the same starts copies nothing before its
#: first launch and its scores and status are a device-to-device copy made behind that launch (issue 29,
#: helper nbhost2). False: uploaded again each fold, before the first launch (the bench's ``h0``).
KEEP_UPLOADS = True
#: check_packed reads the status words through pinned memory (runtime.gpu.to_host); False: by
#: ``ndarray.get`` into pageable memory, as before (the bench's ``r0``).
PINNED_STATUS = True
_plans = OrderedDict()


@dataclass
class PackedFolds:
    """The folds of a batch on the device: ``scores`` (int32 units, one per sequence), ``pair_to``
    (int32, partner or -1) and ``chars`` (uint8 dot-bracket letters), each of the last two the length
    of all sequences together, sequence k at ``starts[k]:starts[k + 1]``."""

    scores: object
    pair_to: object
    chars: object
    status: object = None       # int32 on the device: [0] non-zero where a traceback failed, [1] where a score is
    #                             missing (fold_packed: set by check_packed's batch_unscored; others may hold one)
    inputs: object = None       # the device arrays the launches read (a kept plan's upload): alive while these are


#: Counters of the turns (kernels/nussinov_batch.cu, SM_TURNS), by the device's number.
SM_TURNS = 1024
_turns = {}


def short_kernel_arguments(name, cell, sizes):
    """``(file, kernel, template arguments)`` of the shared-memory kernel ``name`` with ``cell``.

    >>> short_kernel_arguments("x4tr", "signed char", _launch.SIZES)
    ('nussinov_batch_x4t.cu', 'batch_fold_x4t', (128, 4, 'signed char', True))
    >>> short_kernel_arguments("x2t5", "signed char", _launch.SIZES)
    ('nussinov_batch.cu', 'batch_fold_x2t', (128, 'signed char', False, True, False))
    >>> short_kernel_arguments("x2t5w", "signed char", _launch.SIZES)
    ('nussinov_batch.cu', 'batch_fold_x2t', (128, 'signed char', False, True, True))
    """
    filename, function, layout, _, turns, walk = SHORT_KERNELS[name]
    widest = int(short_threads(name, np.array([sizes.batch_shared_max]), sizes)[0])
    if function == "batch_fold_x2":
        return filename, function, (widest, cell)
    if function == "batch_fold_x2t":
        return filename, function, (widest, cell, turns, layout == "x2t5", walk == "warp")
    return filename, function, (widest, X4T_MIN_BLOCKS, cell, turns)


def _short_kernel(name, cell, sizes):
    """The kernel object of a shared-memory kernel: b1 (``cell`` None), else ``name`` with ``cell``."""
    if cell is None:
        return kernel("nussinov_batch.cu", "batch_fold", sizes.batch_threads)
    filename, function, arguments = short_kernel_arguments(name, cell, sizes)
    return kernel(filename, function, *arguments)


def _shared_launches(ids, lengths, cell, sizes, name):
    """``("shared", cell, threads, bin ids)`` of each launch of the shared-memory kernel (b1 with ``cell``
    None, else ``name``): one per bin of block widths. (``name`` has no default: a default would be
    SHORT_KERNEL as it was at import, not as a caller or test set it since.)"""
    if cell is None:
        widths = block_threads(lengths[ids], sizes)
    else:
        widths = short_threads(name, lengths[ids], sizes)
    return [("shared", cell, threads, bin_ids) for threads, bin_ids in bins(widths, ids)]


def _fold_shared(cp, codes_dev, starts_dev, ids_dev, longest, threads, pm, out, walk, cell, name):
    """One launch of a shared-memory bin: b1 (``cell`` None), or with ``cell`` ("short", "signed char") the
    kernel ``name``; ``longest`` its longest sequence."""
    sizes = _launch.SIZES
    fold = _short_kernel(name, cell, sizes)
    if cell is None:
        shared = shared_bytes(longest)
        extra = ()
    else:
        shared = short_shared_bytes(name, longest, cell)
        device = cp.cuda.Device().id
        if device not in _turns:
            _turns[device] = cp.zeros(SM_TURNS, dtype=np.uint32)
        extra = (_turns[device],)
    fold.max_dynamic_shared_size_bytes = shared
    if SHARED_CARVEOUT is not None:
        fold.preferred_shared_memory_carveout = SHARED_CARVEOUT
    fold((len(ids_dev),), (threads,), (codes_dev, starts_dev, ids_dev, pm, np.int32(walk), out.scores, out.pair_to,
                                       out.chars, out.status) + extra, shared_mem=shared)


def _fold_alone(cp, codes_dev, starts, ids, params, pm, out, walk):
    """Sequences too long for a batch: one at a time, each filling the GPU."""
    from ._traceback import dot_bracket        # (the CPU traceback module: imported only when needed)

    for k in ids.tolist():
        a, b = int(starts[k]), int(starts[k + 1])
        check_fits(b - a, "tiled", params)
        table = fill_tiled(codes_dev[a:b], b - a, params, pm)
        out.scores[k] = score_units(table)
        if walk:
            pair_to = trace_structure(table, codes_dev[a:b], pm)
            out.pair_to[a:b] = cp.asarray(pair_to)
            out.chars[a:b] = cp.asarray(np.frombuffer(dot_bracket(pair_to).encode("ascii"), dtype=np.uint8))
        del table
        cp.get_default_memory_pool().free_all_blocks()


def fold_packed(codes_dev, starts, params, *, traceback=True, check=True) -> PackedFolds:
    """Fold every sequence of a packed batch (``codes_dev`` on the device, ``starts`` int64 on the host,
    one more than the sequences); device arrays of scores, pair_to and dot-bracket letters (the last two
    left at -1 and '.' with ``traceback=False``). ``check=False``: return once the launches are queued
    (sequences up to BATCH_TILED_MAX nt), the caller checks later with :func:`check_packed`.

    The GPU waits, idle, for the host's work before the first launch (issue 29, helpers nbhost, nbhost2): the
    launches are planned on the host first (a batch of the same starts once: :func:`_plan`), everything they
    read goes up in one copy from pinned memory (a kept plan's once per device: :func:`_uploaded`), and the
    scores, status, pair_to and the letters are made once the first launch is queued where it does not write
    them (``ready``)."""
    cp = _gpu.require_gpu()
    starts = np.asarray(starts, dtype=np.int64)
    plan = _plan(starts, params, _launch.SIZES)
    inputs, kept = _uploaded(cp, plan)
    head_dev, starts_dev, pm, *ids_dev = inputs
    out = PackedFolds(scores=None, pair_to=None, chars=None, inputs=inputs)
    if codes_dev.size == 0:
        codes_dev = cp.zeros(1, dtype=np.uint8)
    walk = bool(traceback)
    ready = _Outputs(cp, out, max(int(starts[-1]) if len(starts) else 0, 1), head_dev, kept)
    for (kind, first, second, longest), part_dev in zip(plan.launches, ids_dev):
        if kind == "shared":
            ready()
            _fold_shared(cp, codes_dev, starts_dev, part_dev, longest, second, pm, out, walk, first, SHORT_KERNEL)
        else:
            fold_tiled_group(cp, codes_dev, starts_dev, part_dev, longest, first, second, pm, out, walk, ready)
    ready()
    if len(plan.alone):
        _fold_alone(cp, codes_dev, starts, plan.alone, params, pm, out, walk)
    if check:
        check_packed(out)
    return out


@dataclass
class _Plan:
    """A batch's launches, each ``(kind, cell or nt, threads or dtype, longest)`` in order; ``packed``: the host
    arrays its one upload holds (fold/_gpu_upload.pack: status and the scores' first values, starts, the pair
    model, each launch's ids); ``alone``: the ids folded alone; ``on_device``: a kept plan's upload by device
    (:func:`_uploaded`), None where the plan is not kept."""

    launches: list
    packed: tuple
    alone: np.ndarray
    on_device: dict = None


def _uploaded(cp, plan):
    """``(device arrays of plan.packed, kept)``: a kept plan's own on this device, uploaded by its first fold
    there and read-only after (``kept`` True: the head is a template to copy), else a fresh upload.

    A stream other than the upload's first waits for the copy's event (a host wait would stall a caller
    queueing folds ahead)."""
    if not KEEP_UPLOADS or plan.on_device is None:
        return upload_packed(cp, *plan.packed), False
    device = cp.cuda.Device().id
    entry = plan.on_device.get(device)
    stream = cp.cuda.get_current_stream()
    if entry is None:
        entry = plan.on_device[device] = (upload_packed(cp, *plan.packed), stream.ptr, stream.record())
    elif entry[1] != stream.ptr:
        stream.wait_event(entry[2])
    return entry[0], True


def _plan(starts, params, sizes):
    """The :class:`_Plan` of a batch. Kept for batches of at most PLAN_CACHE_MAX sequences (with its upload on
    each device: :func:`_uploaded`): the host's planning held the GPU idle before the first launch (0.3-1 ms a
    2,000-sequence batch)."""
    key = None
    if len(starts) <= PLAN_CACHE_MAX + 1:
        key = (starts.tobytes(), params, sizes, SHORT_KERNEL, X2_MAX_SCORE)
        plan = _plans.get(key)
        if plan is not None:
            return plan
    lengths = starts[1:] - starts[:-1]
    widest, model = _pair_model(params)
    score = (lengths // 2) * widest
    # int16 cells hold every score of these lengths (FoldParams.cell_dtype, vectorised)
    shared = (lengths >= 2) & (lengths <= sizes.batch_shared_max) & (score <= np.iinfo(np.int16).max)
    tiled = (lengths >= 2) & ~shared & (lengths <= BATCH_TILED_MAX)
    ids = np.arange(len(lengths))
    if SHORT_KERNEL in SHORT_KERNELS:
        byte = shared & (score <= X2_MAX_SCORE[0])
        short = shared & (score > X2_MAX_SCORE[0]) & (score <= X2_MAX_SCORE[1])
        parts = ((shared & ~byte & ~short, None), (byte, "signed char"), (short, "short"))
    else:
        parts = ((shared, None),)
    launches = [launch for part, cell in parts if part.any()
                for launch in _shared_launches(ids[part], lengths, cell, sizes, SHORT_KERNEL)]
    launches += [("tiled", nt, dtype, group) for nt, dtype, group in tiled_groups(ids[tiled], lengths, params, sizes,
                                                                                   widest)]
    # one copy: status (traceback failed, a sequence unscored), the scores (< 2 nt: no pair, 0), starts,
    # the pair model (nussinov_common.cuh PairModel) and each launch's ids
    head = np.zeros(2 + len(lengths), dtype=np.int32)
    head[2:] = np.where(lengths < 2, 0, -1)
    uploads = [head, starts, model] + [launch[3].astype(np.int32) for launch in launches]
    plan = _Plan([(a, b, c, int(lengths[part].max())) for a, b, c, part in launches], pack(uploads),
                 ids[(lengths >= 2) & ~shared & ~tiled], None if key is None else {})
    if key is not None:
        _plans[key] = plan
        while len(_plans) > PLANS_KEPT:
            _plans.popitem(last=False)
    return plan


@functools.lru_cache(maxsize=64)
def _pair_model(params):
    """The largest pair weight in units and the PairModel struct of nussinov_common.cuh (25 weights, then
    min_loop, int32) of ``params``: FoldParams.pair_table searches fractions each time."""
    table = params.pair_table()
    return int(table.max()), np.append(table.ravel(), params.min_loop).astype(np.int32)


class _Outputs:
    """The outputs of a batch: scores and status (a kept plan's head copied on the device, else its fresh
    upload itself: ``copied`` False), pair_to (-1) and the letters ('.'), made once, when first called: a
    copy and memsets (all bytes 0xFF, all '.') on the current stream."""

    def __init__(self, cp, out, size, head, copied):
        self.cp, self.out, self.size, self.head, self.copied = cp, out, size, head, copied
        if not copied:
            out.scores, out.status = head[2:], head[:2]

    def __call__(self):
        if self.out.pair_to is not None:
            return
        cp, out = self.cp, self.out
        stream = cp.cuda.get_current_stream()
        if self.copied:
            head = cp.empty(self.head.size, dtype=np.int32)
            head.data.copy_from_device_async(self.head.data, self.head.nbytes, stream)
            out.scores, out.status = head[2:], head[:2]
        out.pair_to = cp.empty(self.size, dtype=np.int32)
        out.chars = cp.empty(self.size, dtype=np.uint8)
        for array, byte in ((out.pair_to, 0xFF), (out.chars, ord("."))):
            cp.cuda.runtime.memsetAsync(array.data.ptr, byte, array.nbytes, stream.ptr)


def check_packed(out, *, units=None, stream=None) -> None:
    """Raise InternalError where a batch's traceback failed or a sequence got no score (waits for the
    batch's launches, or for ``stream``). ``units``: the scores already copied to the host, checked there;
    else the scores are tested on the device (kernels/nussinov_traceback.cu batch_unscored, into status[1])
    and one copy of status brings both answers.

    >>> check_packed(PackedFolds(np.zeros(2, np.int32), None, None, np.zeros(1, np.int32)))
    >>> check_packed(PackedFolds(None, None, None, np.ones(1, np.int32)), units=np.zeros(2))
    Traceback (most recent call last):
    bioaccel.errors.InternalError: internal error: the GPU batch traceback found a table value no split ...
    """
    scores = out.scores if units is None else units
    on_device = not isinstance(scores, np.ndarray) and len(out.status) > 1
    if on_device:
        flag = kernel("nussinov_traceback.cu", "batch_unscored")
        blocks = max(1, min(1024, (len(scores) + 255) // 256))
        flag((blocks,), (256,), (scores, np.int64(len(scores)), out.status), stream=stream)
    if isinstance(out.status, np.ndarray):
        status = out.status
    elif PINNED_STATUS:
        status = _gpu.to_host(out.status, stream)
    else:
        status = out.status.get(stream=stream)
    if int(status[0]) != 0:
        raise InternalError("the GPU batch traceback found a table value no split reproduces")
    if bool(status[1]) if on_device else bool((scores < 0).any()):
        raise InternalError("the GPU batch left a sequence without a score")


def fold_list(codes_list, params, *, traceback=True) -> list:
    """``[(score in units, pair_to or None)]`` of each sequence (uint8 codes), for FoldResult objects.

    The folding is :func:`fold_packed`; only the split into per-sequence arrays loops in Python.
    """
    cp = _gpu.require_gpu()
    lengths = np.fromiter(map(len, codes_list), dtype=np.int64, count=len(codes_list))
    starts = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    joined = np.concatenate(codes_list).astype(np.uint8) if len(codes_list) else np.zeros(0, np.uint8)
    out = fold_packed(cp.asarray(joined), starts, params, traceback=traceback)
    scores = cp.asnumpy(out.scores).tolist()
    if not traceback:
        return [(s, None) for s in scores]
    pair_to = cp.asnumpy(out.pair_to)
    return [(s, pair_to[starts[k]:starts[k + 1]].copy()) for k, s in enumerate(scores)]


def ceiling_fraction(lengths, seconds, ceiling=30.8e12):
    """Useful updates (n^3 / 6 per sequence) per second over the int16x2 DPX ceiling of limits.md.

    >>> round(ceiling_fraction([26_000], 0.095), 2)
    1.0
    """
    work = float(np.sum(np.asarray(lengths, dtype=np.float64) ** 3)) / 6
    return work / seconds / ceiling if seconds > 0 else math.inf
