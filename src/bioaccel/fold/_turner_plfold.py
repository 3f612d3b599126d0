"""RNAplfold on the CPU: the windowed base-pair probabilities of a sequence of any length, cut into
stretches that run one per core (:mod:`._turner_plfold_fill` fills each), in order, with memory
bounded by the stretch whatever the sequence's length.

Why stretches are independent: the probability of (i, j) is a mean over the windows of W bases that
hold it, and every quantity it needs (the enclosing pairs, the windows' partition functions) lies in
``[j - W + 1, i + W - 1]``. A stretch whose left pair ends lie in ``[s, e)`` is therefore computed
exactly from the bases ``[s - W - 1, e + W + 1)``; the halo of 2 W bases is the only work done twice.

>>> from bioaccel.inputs.alphabet import encode
>>> part = next(window_chunks(encode("GGGGAAACCCCAUAUGGGGAAACCCC"), window=11, span=11, cutoff=0.5))
>>> [(int(i), int(j), round(float(p), 3)) for i, j, p in zip(part.i, part.j, part.p)][:2]
[(1, 11, 0.935), (9, 18, 0.66)]
"""
import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import InternalError, InvalidParameter
from ..runtime.memory import require_memory
from ._turner_pf_params import boltzmann_tables
from ._turner_plfold_fill import window_stretch
from ._turner_tables import PAIR_TYPE, kernel_inputs, table_codes

#: RNAplfold's defaults: window (-W) 70 bases, span (-L) the window, cutoff (-c) 0.01
WINDOW, CUTOFF = 70, 0.01
#: memory of one stretch's tables, at most (bytes); a stretch is at least 4 windows long
STRETCH_BYTES = 64 << 20


@dataclass(frozen=True)
class WindowChunk:
    """The pairs of one stretch: ``i``, ``j`` (1-based, i < j, by i then j) and ``p``, the windowed
    probability of each pair at least the cutoff; ``start``/``end``: the stretch's left pair ends
    (1-based, inclusive); ``unpaired``: with ``unpaired=True``, the probability that each base of
    ``start .. end`` is unpaired (RNAplfold -u 1), else None.

    >>> from bioaccel.inputs.alphabet import encode
    >>> chunk = next(window_chunks(encode("GGGGAAACCCC"), window=11, cutoff=0.5, unpaired=True))
    >>> chunk.start, chunk.end, chunk.i.tolist(), chunk.j.tolist(), chunk.unpaired.shape
    (1, 11, [1, 2, 3, 4], [11, 10, 9, 8], (11,))
    """

    start: int
    end: int
    i: np.ndarray
    j: np.ndarray
    p: np.ndarray
    unpaired: "np.ndarray | None" = None


def check_window(window, span, cutoff) -> "tuple[int, int, float]":
    """``(window, span, cutoff)`` checked; ``span`` None is the window (as RNAplfold's -L).

    >>> check_window(70, None, 0.01)
    (70, 70, 0.01)
    >>> check_window(70, 80, 0.01)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: the span (80) must be at most the window (70): a pair spans one window at most
    """
    for name, value in (("window", window), ("span", span)):
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1):
            raise InvalidParameter(f"the {name} must be a whole number of bases, 1 or more, got {value!r}")
    span = window if span is None else span
    if span > window:
        raise InvalidParameter(f"the span ({span}) must be at most the window ({window}): a pair spans one "
                               "window at most")
    if isinstance(cutoff, bool) or not isinstance(cutoff, (int, float)) or not 0 <= cutoff <= 1:
        raise InvalidParameter(f"the cutoff must be a probability from 0 to 1, got {cutoff!r}")
    return int(window), int(span), float(cutoff)


def stretch_bytes(rows: int, window: int, span: int) -> int:
    """Memory of the tables of a stretch of ``rows`` bases (twelve band tables of ``span`` cells per
    base, two of ``window`` cells).

    >>> stretch_bytes(1_000, 70, 70)
    7910000
    """
    return rows * (12 * span + 2 * window) * 8 + rows * span


def plan(n: int, window: int, span: int, workers: int) -> list:
    """The stretches' left pair ends, ``[(s, e)]`` 0-based: about four per worker (a core slowed by
    another process does not hold up the rest), each at least 16 windows long (the halo of 2 windows
    stays below 12% of the work) and at most what STRETCH_BYTES allows; as many as a multiple of
    ``workers``.

    >>> plan(10_000, 70, 70, 2)
    [(0, 1250), (1250, 2500), (2500, 3750), (3750, 5000), (5000, 6250), (6250, 7500), (7500, 8750), (8750, 10000)]
    >>> len(plan(10_000, 240, 160, 2)), len(plan(300, 70, 70, 2))
    (4, 2)
    """
    workers = max(1, workers)
    rows = max(4 * window, STRETCH_BYTES // max(1, stretch_bytes(1, window, span)) - 2 * window)
    size = max(4 * window, min(rows, max(16 * window, math.ceil(n / (4 * workers)))))
    count = workers * math.ceil(math.ceil(n / size) / workers)
    size = max(4 * window, math.ceil(n / count))
    return [(s, min(n, s + size)) for s in range(0, n, size)] or [(0, 0)]


def _stretch(args):
    E, B, kT, lxc, PTAB, codes, n, W, D, no_lp, s, e = args
    lo, hi = max(0, s - W - 1), min(n, e + W + 1)
    # the stretch's table codes with a neighbour each side (-1 past the sequence's ends): a genome's
    # codes stay one byte a base, converted a stretch at a time
    Sx = np.full(hi - lo + 2, -1, np.int64)
    a, b = max(0, lo - 1), min(n, hi + 1)
    Sx[1 - (lo - a):hi - lo + 1 + (b - hi)] = table_codes(codes[a:b])
    P, mass, ok = window_stretch(E, B, kT, lxc, PTAB, Sx, W, D, no_lp, s - lo + 1, e - lo + 1)
    if not ok:
        raise InternalError(f"the windowed partition function of bases {s + 1:,}..{e:,} left double range")
    return P, mass


def window_chunks(codes, model=None, *, window: int = WINDOW, span: "int | None" = None,
                  cutoff: float = CUTOFF, unpaired: bool = False, workers: int = 1) -> Iterator[WindowChunk]:
    """The windowed probabilities of one sequence (bioaccel.alphabet codes) under ``model`` (a
    TurnerModel; None: 37 C), stretch by stretch in order, ``workers`` stretches at once on threads of
    their own (the fill releases the GIL). A window longer than the sequence is the sequence (as
    RNAplfold); pairs span at most ``span`` bases (``j - i < span``)."""
    window, span, cutoff = check_window(window, span, cutoff)
    E, lxc, no_lp = kernel_inputs(model)
    temperature = 37.0 if model is None else model.temperature
    B, kT = boltzmann_tables(temperature, False if model is None else model.no_gu)
    PTAB = np.ascontiguousarray(np.asarray(E[PAIR_TYPE:PAIR_TYPE + 25]).reshape(5, 5), dtype=np.int64)
    codes = np.asarray(codes, dtype=np.uint8)
    n = codes.shape[0]
    W = min(window, n)
    D = min(span, W) - 1
    if n < 5 or D < 4:                               # no pair fits: every base unpaired
        if n:
            yield WindowChunk(1, n, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0),
                              np.ones(n) if unpaired else None)
        return
    stretches = plan(n, W, D + 1, workers)
    longest = max(e - s for s, e in stretches) + 2 * W + 4
    require_memory(stretch_bytes(longest, W, D + 1) * min(workers, len(stretches)),
                   f"the windowed partition function (window {W}, span {D + 1})",
                   "use fewer threads or a smaller window")
    mass = np.zeros(0)                               # paired mass carried into the next stretch (-u)
    jobs = ((E, B, kT, lxc, PTAB, codes, n, W, D, no_lp, s, e) for s, e in stretches)
    pool = None
    if workers <= 1 or len(stretches) == 1:
        done = map(_stretch, jobs)
    else:
        from concurrent.futures import ThreadPoolExecutor

        pool = ThreadPoolExecutor(workers)
        done = _bounded(pool, jobs, 2 * workers)
    try:
        for (s, e), (P, part) in zip(stretches, done):
            rows, d = np.nonzero(P >= cutoff) if cutoff > 0 else np.nonzero(P)
            up = None
            if unpaired:
                carried = np.zeros(part.shape[0])
                carried[:mass.shape[0]] = mass[:part.shape[0]]
                total = part + carried
                k = np.arange(s, e)                      # the windows that hold each base
                up = 1.0 - total[:e - s] / (np.minimum(k, n - W) - np.maximum(0, k - W + 1) + 1)
                mass = total[e - s:]
            yield WindowChunk(s + 1, e, rows + s + 1, rows + s + 1 + d, P[rows, d], up)
    finally:
        if pool is not None:
            pool.shutdown(cancel_futures=True)


def _bounded(pool, jobs, ahead):
    """The results of ``_stretch`` over ``jobs`` in order, at most ``ahead`` submitted and not yet taken
    (a genome's stretches are not all held at once)."""
    from collections import deque

    queue = deque()
    for job in jobs:
        queue.append(pool.submit(_stretch, job))
        if len(queue) >= ahead:
            yield queue.popleft().result()
    while queue:
        yield queue.popleft().result()
