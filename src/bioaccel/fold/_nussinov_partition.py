"""The base-pair-counting (Nussinov) partition function and its base-pair probabilities on the CPU:
the recurrences of docs/nussinov-partition.md, for :class:`~bioaccel.fold._model.FoldParams` (allowed
pairs, weights, minimum hairpin loop). A structure weighs exp(sum of its pairs' weights).

Intervals are half-open, ``Q[i, e]`` the partition function of ``codes[i:e]``. One square array holds
``Q[i, e]`` above the diagonal and its mirror ``Q[e, i]`` below, so that every sum of the inside and of
the outside reads two contiguous rows (the same for the outside table ``O``).

Scaling (``scaled=True``): each base b carries a factor ``exp(-c_b)`` chosen as the table fills, so
that every prefix has scaled partition function 1: ``c_b = log Q[0, b+1] - log Q[0, b]``, what a hidden
Markov model's forward algorithm does per column. Then every scaled inside value is at most 1 (a
structure of ``[0, i)`` and one of ``[i, e)`` make one of ``[0, e)``), so no length overflows, and
``log Z = sum c_b``. ``scaled=False`` is plain doubles (tests compare the two).

The outside values are then at most 1 / (the smallest scaled inside value), since a node's probability
is its inside times its outside: when every scaled inside value is at least ``TINY`` nothing overflows
and every product that matters stays a normal double. A sequence below that (long near-perfect repeats:
(G)200 (C)200 (G)200 (C)200 reaches e^-674; random RNAs stay above e^-20) gets its probabilities from
the log-space fill (:mod:`._nussinov_partition_log`), slower but without a limit; so does its log Z
when a pair weighs more than ``SAFE_WEIGHT`` (an interval's scaled value can then be tiny inside a
pair whose factor is huge).
"""
import math

import numpy as np
from numba import get_num_threads, prange

from ..errors import InternalError
from ..runtime.memory import require_memory
from ..runtime.parallel import serial_and_parallel

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the dot products; inf/NaN stay detectable

#: A column whose largest provisional pair factor would pass exp(HEADROOM) is shifted down first, so
#: that pair weights up to FoldParams' limit (1,000 a pair) cannot overflow before the column is scaled.
HEADROOM = 600.0

#: The smallest scaled inside value with which the scaled outside is safe (module docstring): outside
#: values stay below 1e200, and a pair factor that underflows cannot carry a probability above 1e-100.
TINY = 1e-200

#: Below TINY, log Z alone is still exact when no pair weighs more than this: a lost (underflowed) cell
#: times a pair factor (at most exp(weight)) stays below 1e-308 * e^300 of a column's sum.
SAFE_WEIGHT = 300

#: Sequences up to this length are computed several at a time, one per core; longer ones one at a
#: time, each column's cells on every core.
ONE_CORE_MAX_LENGTH = 800

#: Below this much work (sum of n^3) a list runs on the calling thread: a parallel region costs more.
PARALLEL_WORK = 2e7


def _inside(codes, logw, allowed, min_loop, scaled, workers, M, cs, b):
    """Fill ``M`` ((n+1) x (n+1)): the scaled Q[i, e] and its mirror; ``cs[b]``: each base's log scale
    (all 0 when not ``scaled``). ``b``: scratch of n + 1 doubles. Returns the smallest value of M."""
    n = codes.shape[0]
    low = 1.0
    for e in range(n + 1):
        M[e, e] = 1.0
    for e in range(1, n + 1):
        j = e - 1                      # the new last base
        cj = codes[j]
        last = j - 1 - min_loop        # the last base that may pair with j
        g = 0.0                        # provisional log scale of base j
        if scaled:
            top = -np.inf
            for k in range(last + 1):
                if allowed[codes[k], cj]:
                    top = max(top, logw[codes[k], cj] - cs[k])
            if top > HEADROOM:
                g = top - HEADROOM
        for k in range(last + 1):      # b[k] = B(k, j): k pairs j around Q[k+1, j]
            if allowed[codes[k], cj]:
                b[k] = math.exp(logw[codes[k], cj] - cs[k] - g) * M[j, k + 1]
            else:
                b[k] = 0.0
        u = math.exp(-g)
        for t in prange(workers):
            for i in range(t, e, workers):
                s = M[i, j] * u        # j unpaired
                for k in range(i, last + 1):
                    s += M[i, k] * b[k]
                M[i, e] = s
        if scaled:                     # base j's scale makes the prefix's Q exactly 1
            ratio = M[0, e]
            cs[j] = g + math.log(ratio)
            inv = 1.0 / ratio
            for i in range(e):
                M[i, e] *= inv
        for i in range(e):
            M[e, i] = M[i, e]
            low = min(low, M[i, e])
    return low


def _outside(codes, logw, allowed, min_loop, workers, M, cs, O, P, brow):
    """Fill ``O`` (the scaled outside of every Q[i, e], mirrored as ``M``) and ``P[k, l]`` (k < l), the
    probability that k pairs l. ``brow``: scratch of n + 1 doubles."""
    n = codes.shape[0]
    z = M[0, n]
    for i in range(n + 1):
        O[i, n] = 0.0
        O[n, i] = 0.0
    O[0, n] = 1.0
    O[n, 0] = 1.0
    for e in range(n - 1, -1, -1):
        ce = codes[e]
        last = e - 1 - min_loop        # pairs (k, e), k <= last
        first = e + 1 + min_loop       # pairs (e, j), j >= first
        for j in range(first, n):      # brow[j] = B(e, j)
            if allowed[ce, codes[j]]:
                brow[j] = math.exp(logw[ce, codes[j]] - cs[e] - cs[j]) * M[e + 1, j]
            else:
                brow[j] = 0.0
        u = math.exp(-cs[e])
        for t in prange(workers):      # one region a column: cell i also takes the pair (i-1, e)
            for i in range(t, e + 1, workers):
                s = O[i, e + 1] * u    # Q[i, e+1] = Q[i, e] u_e + ...
                for j in range(first, n):
                    s += O[i, j + 1] * brow[j]
                k = i - 1              # Q[i, e] is the inside of the pair (k, e)
                if 0 <= k <= last and allowed[codes[k], ce]:
                    bo = 0.0           # outside of the pair (k, e): sum_i' O[i', e+1] Q[i', k]
                    for h in range(k + 1):
                        bo += O[e + 1, h] * M[k, h]
                    bo *= math.exp(logw[codes[k], ce] - cs[k] - cs[e])
                    P[k, e] = bo * M[e, k + 1] / z
                    s += bo
                O[i, e] = s
        for i in range(e + 1):
            O[e, i] = O[i, e]


_inside_serial, _inside_parallel = serial_and_parallel(_inside, nogil=True, fastmath=_FLAGS)
_outside_serial, _outside_parallel = serial_and_parallel(_outside, nogil=True, fastmath=_FLAGS)


def _many(codes_all, starts, order, logw, allowed, min_loop, scaled, want_bpp, workers, log_z, bpp_all,
          bpp_starts, low):
    for t in prange(workers):
        for q in range(t, order.shape[0], workers):
            s = order[q]
            codes = codes_all[starts[s]:starts[s + 1]]
            n = codes.shape[0]
            M = np.empty((n + 1, n + 1))
            cs = np.zeros(max(n, 1))
            b = np.empty(n + 1)
            low[s] = _inside_serial(codes, logw, allowed, min_loop, scaled, 1, M, cs, b)
            log_z[s] = np.sum(cs[:n]) + math.log(M[0, n])
            if want_bpp and n > 0 and (low[s] >= TINY or not scaled):
                O = np.empty((n + 1, n + 1))
                P = bpp_all[bpp_starts[s]:bpp_starts[s + 1]].reshape((n, n))
                _outside_serial(codes, logw, allowed, min_loop, 1, M, cs, O, P, b)


_many_serial, _many_parallel = serial_and_parallel(_many, nogil=True, fastmath=_FLAGS)


def _weights(params):
    """(log weight float64 5 x 5, allowed bool 5 x 5) of ``params``' pairs."""
    table = params.pair_table()
    return table.astype(np.float64) / params.unit, table > 0


def _checked(log_z, bpp, n):
    if not math.isfinite(log_z) or (bpp is not None and not (np.isfinite(bpp).all() and bpp.max(initial=0) <= 1.5)):
        raise InternalError(f"the partition function of a sequence of length {n:,} over- or underflowed "
                            "its scaled arithmetic")
    return log_z, bpp


def partition_one(codes, params, want_bpp: bool, *, scaled: bool = True, workers: int = 0) -> tuple:
    """``(log Z, P or None)`` of one sequence, each column's cells on ``workers`` threads (0: Numba's
    current count); P is (n, n) float64, ``P[k, l]`` the probability that k pairs l (k < l, 0-based),
    zero elsewhere.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> log_z, P = partition_one(encode("GAAAC"), FoldParams(gc=3), True)
    >>> bool(abs(log_z - math.log(1 + math.exp(3))) < 1e-15), round(float(P[0, 4]), 6)   # Z = 1 + e^3
    (True, 0.952574)
    """
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    n = codes.shape[0]
    require_memory(8 * (n + 1) ** 2 * (3 if want_bpp else 1),
                   f"the partition function of a sequence of length {n:,}", "use shorter sequences")
    workers = workers or get_num_threads()
    logw, allowed = _weights(params)
    M = np.empty((n + 1, n + 1))
    cs = np.zeros(max(n, 1))
    b = np.empty(n + 1)
    parallel = workers > 1 and n >= 200
    inside = _inside_parallel if parallel else _inside_serial
    low = inside(codes, logw, allowed, int(params.min_loop), bool(scaled), workers, M, cs, b)
    log_z = float(np.sum(cs[:n]) + math.log(M[0, n]))
    if scaled and low < TINY and (want_bpp or params.pair_table().max() > SAFE_WEIGHT * params.unit):
        del M
        return _checked(*_in_logs(codes, logw, allowed, params, want_bpp, workers), n)
    if not want_bpp:
        return _checked(log_z, None, n)
    P = np.zeros((n, n))
    if n:
        outside = _outside_parallel if parallel else _outside_serial
        outside(codes, logw, allowed, int(params.min_loop), workers, M, cs, np.empty((n + 1, n + 1)), P, b)
    return _checked(log_z, P, n)


def _in_logs(codes, logw, allowed, params, want_bpp, workers):
    """``(log Z, P or None)`` of a sequence the scaled fill cannot take, from the log-space fill."""
    from ._nussinov_partition_log import partition_log

    return partition_log(codes, logw, allowed, int(params.min_loop), want_bpp, workers or get_num_threads())


def partition_many(codes_list, params, want_bpp: bool, *, scaled: bool = True) -> list:
    """``[(log Z, P or None)]`` of each sequence in order, on Numba's current thread count: several at a
    time, one per core (longest first), except sequences longer than ``ONE_CORE_MAX_LENGTH`` when there
    are fewer of them than threads: those one at a time, each column's cells on every core.

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> [round(z, 4) for z, _ in partition_many([encode("GAAAC"), encode("")], FoldParams(gc=3), False)]
    [3.0486, 0.0]
    """
    out = [None] * len(codes_list)
    long = [s for s, codes in enumerate(codes_list) if len(codes) > ONE_CORE_MAX_LENGTH]
    if len(long) >= get_num_threads():
        long = []                      # enough of them to keep every core busy, one per core
    for s in long:
        out[s] = partition_one(codes_list[s], params, want_bpp, scaled=scaled)
    short = [s for s in range(len(codes_list)) if out[s] is None]
    if short:
        for s, result in zip(short, _partition_short([codes_list[s] for s in short], params, want_bpp, scaled)):
            out[s] = result
    return out


def _partition_short(codes_list, params, want_bpp, scaled):
    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    bpp_starts = np.zeros(len(lengths) + 1, dtype=np.int64)
    if want_bpp:
        np.cumsum(lengths * lengths, out=bpp_starts[1:])
    codes_all = np.concatenate([np.asarray(c, dtype=np.uint8) for c in codes_list])
    order = np.argsort(-lengths, kind="stable").astype(np.int64)
    workers = max(1, min(get_num_threads(), len(lengths)))
    largest = lengths[order[:workers]].astype(np.float64) + 1
    require_memory(int(8 * (bpp_starts[-1] + (2 if want_bpp else 1) * np.sum(largest * largest))),
                   f"the partition functions of {len(lengths):,} sequences", "give fewer sequences at a time")
    work = float(np.sum(lengths.astype(np.float64) ** 3))
    kernel = _many_parallel if workers > 1 and work >= PARALLEL_WORK else _many_serial
    log_z = np.zeros(len(lengths))
    low = np.ones(len(lengths))
    bpp_all = np.zeros(int(bpp_starts[-1]))
    logw, allowed = _weights(params)
    kernel(codes_all, starts, order, logw, allowed, int(params.min_loop), bool(scaled), bool(want_bpp),
           workers if kernel is _many_parallel else 1, log_z, bpp_all, bpp_starts, low)
    results = []
    heavy = params.pair_table().max() > SAFE_WEIGHT * params.unit
    for s, n in enumerate(lengths.tolist()):
        if scaled and low[s] < TINY and (want_bpp or heavy):
            results.append(_checked(*_in_logs(codes_all[starts[s]:starts[s + 1]], logw, allowed, params, want_bpp,
                                              0), n))
            continue
        bpp = bpp_all[bpp_starts[s]:bpp_starts[s + 1]].reshape(n, n) if want_bpp else None
        results.append(_checked(float(log_z[s]), bpp, n))
    return results
