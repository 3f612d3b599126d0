"""SCAN and MULTIPLESCAN: the hits of many motifs in many sequences, on both strands, chunk by chunk.

How a scan runs, once its setup is made (:func:`._setup.prepare`: thresholds, plan, distributions):

1. The sequences are read in chunks that overlap by the longest motif less one letter
   (:mod:`._sequences`), so memory is bounded by the chunk size whatever the genome's length, and every
   chunk is scanned on every core (:mod:`._cpu`) or on the GPU (:mod:`._gpu`), the backend's scanner
   taken from :data:`SCANNERS`. Windows holding a letter other than A, C, G, T/U are skipped, as FIMO
   skips them (MOODS 1.9.4 skips them too, but misses hits of motifs shorter than its window that end at
   an N or a sequence's end).
2. Hits are priced in batches: each hit's exact P-value (:mod:`._pvalues`); at the end, each
   motif's q-values (Benjamini-Hochberg over every window scored on every strand scanned, as FIMO
   counts tests; windows that were not hits count as P = 1).

Scores are integer sums on the motif's grid (:class:`bioaccel.motif.Grid`), so every variant, on the
CPU and the GPU, reports the same hits with the same scores; the score is shown in the motif's own
units.
"""
import collections
import math
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..runtime.parallel import threads as using_threads
from ._defaults import CHUNK_SIZE, MAX_STORED_HITS
from ._hits import Hits, add_qvalues, chunk_hits, in_key_order
from ._index_store import keep_stored_index
from ._price import FLOOR_MARGIN, price, price_best
from ._price_cache import SMALL
from ._sequences import chunks, read_ahead, valid_windows
from ._variants import SCAN_VARIANTS

#: Hits priced (P-values) together: each motif's distinct scores in one search.
PRICE_BATCH = 1 << 22
#: Batches waiting for their P-values while the scan goes on (each up to PRICE_BATCH hits, ~250 MB):
#: enough to cover the first batch's searches (3.7 s on an H100 machine's 16 cores for every JASPAR 2024
#: CORE matrix, while the GPU scans a batch in 0.3-0.4 s), so the scan does not wait for them.
IN_FLIGHT = 10


@dataclass
class ScanState:
    """What a scan has seen so far: the sequence names (hits refer to them by index), each motif's
    number of tests, the letters read, and the hits dropped by ``max_stored_hits``."""

    names: list = field(default_factory=list)
    tests: np.ndarray = None
    letters: int = 0
    dropped: int = 0
    cut: float = math.inf          # hits with this P-value or a larger one are dropped (max_stored_hits)
    floor_cut: float = math.inf    # the batches' own cuts so far (pricing thread): see _note_cut
    bound_cut: float = math.inf    # the batches' cuts from upper bounds so far: see bound_floor
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False, compare=False)

    def drop(self, count, cut=math.inf) -> None:
        """Count ``count`` hits dropped and lower the cut to ``cut``: from the pricing thread and the
        consumer's, so under a lock (``+=`` on an attribute is not atomic between threads)."""
        with self._lock:
            self.dropped += int(count)
            self.cut = min(self.cut, cut)


class _CpuScanner:
    """A chunk scanned on every core (:func:`._cpu.scan_chunk`), done on submission."""

    def __init__(self, plan, variant):
        self.plan, self.variant = plan, variant

    def submit(self, codes, windows):
        from ._cpu import scan_chunk

        found = scan_chunk(self.plan, codes, windows, self.variant)
        return lambda: found

    def withhold_below(self, floor) -> None:
        pass                    # the CPU kernels keep every hit: _Found.add holds them to the floor

    def take_withheld(self) -> int:
        return 0


def _gpu_scanner(plan, variant):
    from ._gpu import GpuScanner           # CuPy loads with the first GPU scan

    return GpuScanner(plan, variant)


#: Each backend's scanner of chunks: (plan, variant) -> an object with ``submit``, ``withhold_below``
#: and ``take_withheld`` (see :class:`Scanner`).
SCANNERS = {"cpu": _CpuScanner, "gpu": _gpu_scanner}


class Scanner:
    """Scans chunks with one backend and variant: ``submit(codes, windows)`` starts a chunk and returns
    a function that gives its hits ``(entry, start, units)``. On the GPU the scan runs while the host
    goes on (reads the next chunk, prices the last one's hits); on the CPU it is done on submission."""

    def __init__(self, plan, backend, variant):
        self.plan = plan
        self.backend = backend
        self.variant = variant
        self._engine = SCANNERS[backend](plan, variant) if plan.entries else None

    def submit(self, codes, windows):
        if self._engine is None:
            empty = np.zeros(0, np.int64)
            return lambda: (empty, empty, empty)
        return self._engine.submit(codes, windows)

    def scan(self, codes, windows):
        return self.submit(codes, windows)()

    def withhold_below(self, floor) -> None:
        """Hits of entry e scoring below ``floor[e]`` only counted from now on, where the backend can
        (the GPU's ``fused`` kernels: :meth:`._gpu.GpuScanner.withhold_below`)."""
        if self._engine is not None:
            self._engine.withhold_below(floor)

    def take_withheld(self) -> int:
        """How many hits were withheld since the last call."""
        return self._engine.take_withheld() if self._engine is not None else 0


def _hits_of_chunk(setup, chunk, sequence, entry, pos, units, words):
    # kernels write hits in whatever order their threads find them: sorted here, so that streamed
    # output (--text, iter_scan) is the same on every run, variant, thread count and backend
    plan = setup.plan
    if not in_key_order(pos, entry, max(plan.entries, 1)):           # (the GPU's come sorted)
        order = np.argsort(pos.astype(np.int64) * max(plan.entries, 1) + entry)    # by position, then entry
        entry, pos, units = entry[order], pos[order], units[order]
    return Hits(*chunk_hits(chunk.codes, entry, pos, units, plan.motif_of, plan.strand_of, plan.length,
                            chunk.start, sequence, words))


def scan_batches(setup, sequences, *, backend="cpu", variant=None, threads=0, chunk_size=CHUNK_SIZE,
                 state=None, on_chunk=None, batch=PRICE_BATCH, best=None):
    """Yield the hits of ``sequences`` in priced batches (:class:`Hits`, P-values filled, q-values not),
    in sequence order (by start, then motif and strand). ``state`` (a :class:`ScanState`) collects
    names, tests and drops; ``on_chunk(chunk)`` is called after each chunk (progress bars). Hits whose
    P-value is at or above ``state.cut`` (set by :func:`collect` when it prunes) are left out and counted
    in ``state.dropped``; with ``best`` (:func:`collect`'s ``max_stored_hits``) a batch is also cut
    to its own ``best`` hits of smallest P-value, which sets ``state.cut`` from the first batch on. Each
    batch is priced on a thread of its own while the next one is read and
    scanned (on the GPU, the scan of a chunk also runs while the host reads the next)."""
    state = state if state is not None else ScanState()
    state.tests = np.zeros(len(setup.motifs), np.int64) if state.tests is None else state.tests
    variant = SCAN_VARIANTS.resolve(variant, backend)
    keep_stored_index(setup, backend, variant)
    scanner = Scanner(setup.plan, backend, variant)
    lengths = np.array([m.length for m in setup.motifs], dtype=np.int64)
    distinct = np.unique(lengths)
    where = np.searchsorted(distinct, lengths)
    found = _Found(setup, on_chunk, state)
    current = None
    started = None                 # the chunk being scanned: (chunk, sequence, result)
    priced = collections.deque()   # the batches being priced, in order
    batches = 0                    # taken full (found.count >= batch)
    floor = None                   # with best: the floor the chunks scanned now are held to
    pricing = ThreadPoolExecutor(max_workers=1)
    try:
        with using_threads(threads):
            for chunk in read_ahead(chunks(sequences, size=chunk_size, overlap=setup.longest - 1)):
                if chunk.start == 0 or current != chunk.record:
                    state.names.append(chunk.record)
                    current = chunk.record
                sequence = len(state.names) - 1
                state.tests += valid_windows(chunk.codes, chunk.windows, distinct)[where] * len(setup.strands)
                state.letters += chunk.windows
                result = scanner.submit(chunk.codes, chunk.windows)
                if started is not None:
                    # held to the floor of every batch taken before now (the GPU withheld those below the
                    # floor when it was submitted): the same hits on every run and backend
                    found.add(*started, floor)
                    state.drop(scanner.take_withheld())
                started = (chunk, sequence, result)
                if found.count >= batch:
                    pending = found.take()
                    if best is not None:
                        # the chunks from here on are held to the floor this batch's bounds set (no
                        # waiting for its P-values): which hits reach pricing, and so which values are
                        # searched together, is the same on every run and backend
                        floor = bound_floor(setup, state, pending, best)
                        if floor is not None:
                            scanner.withhold_below(floor)
                    priced.append(pricing.submit(_priced, setup, pending, threads, state, best, state.bound_cut, True))
                    batches += 1
                # batches are yielded in order as their pricing ends; scanning waits only when
                # IN_FLIGHT batches are queued (memory)
                while priced and (priced[0].done() or len(priced) > IN_FLIGHT):
                    yield priced.popleft().result()
            if started is not None:
                found.add(*started, floor)
                state.drop(scanner.take_withheld())
        if found.count:
            # a scan of one batch prices every hit: its P-values are then those of the same motifs scanned in
            # any groups (the batch layer's, scan/_work.py), since which values a search answers
            # together moves the last bits of a sum (and a bound's grid)
            priced.append(pricing.submit(_priced, setup, found.take(), threads, state, best, state.bound_cut,
                                         batches > 0))
        while priced:
            yield priced.popleft().result()
    finally:
        pricing.shutdown(wait=False, cancel_futures=True)


class _Found:
    """The hits of the chunks scanned since the last batch was taken."""

    def __init__(self, setup, on_chunk, state):
        self.setup = setup
        self.on_chunk = on_chunk
        self.state = state
        self.words = (setup.longest + 31) // 32
        self.pending, self.count = [], 0

    def add(self, chunk, sequence, result, floor=None):
        entry, pos, units = result()
        if floor is not None and entry.shape[0]:
            # below the floor a hit cannot be kept (the GPU's fused kernels withheld these already)
            keep = units >= floor[entry]
            below = entry.shape[0] - int(np.count_nonzero(keep))
            if below:
                entry, pos, units = entry[keep], pos[keep], units[keep]
                self.state.drop(below)
        if entry.shape[0]:
            self.pending.append(_hits_of_chunk(self.setup, chunk, sequence, entry, pos, units, self.words))
            self.count += entry.shape[0]
        if self.on_chunk is not None:
            self.on_chunk(chunk)

    def take(self) -> list:
        pending, self.pending, self.count = self.pending, [], 0
        return pending


def _priced(setup, pending, threads, state, best=None, bound_cut=math.inf, lazy=False):
    """The hits of ``pending`` (a batch: Hits of its chunks) priced and cut; with ``best`` and ``lazy``
    only those that may be kept are priced (:func:`._price.price_best`), below the smaller of the
    batches' cuts so far (``state.floor_cut``, this thread's) and ``bound_cut`` (:func:`bound_floor`'s
    when the batch was taken)."""
    # state.cut is the smallest P-value already dropped: a hit at it or above can never be kept, one
    # below it may still be (keeping only those <= the largest kept P-value lost hits that the
    # final pruning would keep, when ties at an earlier cut had left fewer than max_stored_hits)
    cut = state.cut
    if math.isfinite(cut):
        # once a genome's first batches are priced nearly every value is known: each chunk's hits are
        # looked up and cut on their own and only the few kept are copied (a whole batch of 6 M hits
        # joined first took 0.3 s of this thread per batch on an H100 machine). A batch with a value
        # not yet known is priced as below, so which values are searched together stays the same.
        many = sum(len(part) for part in pending) > SMALL
        looked = [setup.priced.look_up_hits(setup.dist_index, part, many) for part in pending]
        if not any(missing.any() for _, missing in looked):
            # below this batch's own cut too, as below: the same hits as the batch joined first and cut
            # (the hits >= `cut` are not among the best + 1 smallest when they could lower it), only the
            # few kept copied (the last batch of the 100 Mb scan keeps 100,000 of 2.8 M, not 700,000)
            own = _note_cut(state, np.concatenate([p for p, _ in looked]) if looked else np.zeros(0), best)
            below = min(cut, own)
            kept = []
            for part, (p, _) in zip(pending, looked):
                part.pvalue[:] = p
                kept.append(part.take(p < below))
            state.drop(sum(len(part) for part in pending) - sum(len(part) for part in kept), own)
            return Hits.concat(kept)
    if best is None or not lazy:
        hits = Hits.concat(pending)
        price(setup, hits, threads)
    else:
        # only what may be among the best (the rest left at P = inf, and dropped here), the batch's
        # chunks priced and cut apart: joining 6 M hits first cost this thread 0.4 s on an H100 machine
        price_best(setup, pending, best, threads, min(state.floor_cut, bound_cut))
        total = sum(len(part) for part in pending)
        hits = Hits.concat([part.take(np.flatnonzero(np.isfinite(part.pvalue))) for part in pending])
        state.drop(total - len(hits))
    _note_cut(state, hits.pvalue, best)
    if math.isfinite(cut):
        keep = hits.pvalue < cut
        state.drop(keep.size - np.count_nonzero(keep))
        hits = hits.take(keep)
    if best is not None and len(hits) > best:
        # a hit at or above this batch's own cut has `best` better ones already, so is never kept
        kept, batch_cut = hits.best(best)
        state.drop(len(hits) - len(kept), batch_cut)
        hits = kept
    return hits


def _note_cut(state, pvalues, best) -> float:
    """With ``best``: ``state.floor_cut`` lowered to this batch's own cut (pricing thread only, batches in
    order), which unlike ``state.cut`` (also lowered by :func:`collect`) does not depend on timing; the
    batch's own cut (inf without one)."""
    if best is None or pvalues.size <= best:
        return math.inf
    own = float(np.partition(pvalues, best)[best])
    state.floor_cut = min(state.floor_cut, own)
    return own


def bound_floor(setup, state, pending, best):
    """With ``best``: the floor (per plan entry, grid units) that the chunks scanned from now on are held
    to, from the upper bounds of this batch's hits (``pending``, Hits of its chunks) and of the batches
    before: theta = the smallest of their (``best`` + 1)-th smallest upper bounds is at least the
    P-value the scan's final cut will have, and a hit whose lower bound is at or above theta can never be
    kept (:class:`._bounds.PriceBounds`). None while no batch has had more than ``best`` hits.

    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._hits import Hits
    >>> from bioaccel.scan._setup import prepare
    >>> setup = prepare([PSSM(np.eye(4)[:3])], threshold=1, strands=(0,))
    >>> units = np.repeat([3, 2, 1], [2, 8, 40]) << setup.grids[0].bits
    >>> hits = Hits(np.zeros(50, np.int32), np.zeros(50, np.int8), np.zeros(50, np.int32), np.arange(50),
    ...             units, np.zeros((50, 1), np.uint64), np.zeros(50), np.zeros(50))
    >>> floor = bound_floor(setup, ScanState(), [hits], best=5)     # theta = P(S >= 2) = 10/64
    >>> [bool(score << setup.grids[0].bits >= floor[0]) for score in (3, 2, 1)]   # P(S >= 1) = 37/64
    [True, True, False]
    """
    if sum(len(part) for part in pending) > best:
        upper = np.concatenate([setup.bounds.of_hits(setup.dist_index, part)[1] for part in pending])
        state.bound_cut = min(state.bound_cut, float(np.partition(upper, best)[best]))
    if not math.isfinite(state.bound_cut):
        return None
    plan = setup.plan
    floors = setup.bounds.floors(state.bound_cut * (1.0 + FLOOR_MARGIN))
    return np.maximum(floors[setup.dist_index[plan.motif_of, plan.strand_of]], plan.threshold)


def collect(setup, sequences, *, max_stored_hits=MAX_STORED_HITS, qvalues=True, state=None, **options):
    """Every hit of ``sequences`` (at most ``max_stored_hits``, the best by P-value; None: no limit),
    q-values filled when ``qvalues``, in FIMO's order; and the :class:`ScanState`."""
    state = state if state is not None else ScanState()
    kept = []
    stored = 0
    for hits in scan_batches(setup, sequences, state=state, best=max_stored_hits, **options):
        kept.append(hits)
        stored += len(hits)
        if max_stored_hits is not None and stored > max_stored_hits:
            merged, cut = Hits.concat(kept).best(max_stored_hits)
            state.drop(stored - len(merged), cut)
            kept, stored = [merged], len(merged)
    hits = Hits.concat(kept) if kept else Hits.empty((setup.longest + 31) // 32)
    if max_stored_hits is not None:
        # a later batch's own cut may fall below hits kept before (ties at it: none of them is among
        # the best), without bringing enough hits for the merge above to cut them
        below = hits.pvalue < state.cut
        state.drop(below.size - np.count_nonzero(below))
        hits = hits.take(below)
    if qvalues:
        add_qvalues(hits, state.tests)
    return hits.take(hits.fimo_order()), state
