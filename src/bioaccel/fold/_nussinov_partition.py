"""The base-pair-counting (Nussinov) partition function and its base-pair probabilities on the CPU:
the recurrences of docs/nussinov-partition.md, for :class:`~bioaccel.fold._model.FoldParams` (allowed
pairs, weights, minimum hairpin loop). A structure weighs exp(sum of its pairs' weights).

Intervals are half-open, ``Q[i, e]`` the partition function of ``codes[i:e]``; the fills are
:mod:`._nussinov_partition_fill`'s. Here: which runs where (many sequences one per core, a lone long one
on every core), the scaled fill's limit and its fallback, and the checks.

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
from ._nussinov_partition_fill import inside, inside_parallel, inside_sweep, outside, outside_parallel, sweep_width

_FLAGS = {"reassoc", "contract"}   # lets LLVM vectorise the dot products; inf/NaN stay detectable

#: The smallest scaled inside value with which the scaled outside is safe (module docstring): outside
#: values stay below 1e200, and a pair factor that underflows cannot carry a probability above 1e-100.
TINY = 1e-200

#: Below TINY, log Z alone is still exact when no pair weighs more than this: a lost (underflowed) cell
#: times a pair factor (at most exp(weight)) stays below 1e-308 * e^300 of a column's sum.
SAFE_WEIGHT = 300

#: Sequences up to this length are computed several at a time, one per core; longer ones too when there
#: are at least as many as threads, else one at a time (see PARALLEL_LENGTH).
ONE_CORE_MAX_LENGTH = 800

#: A lone sequence this long or longer has each column's rows shared by the threads (a column is then
#: millions of multiply-adds); shorter ones run on one thread, with the columns swept four at a time,
#: which on the 2-core machine was faster than sharing (2,000 nt with probabilities: 1.9 s against
#: 3.3 s on two threads, bench/nussinov_partition_cpu.py).
PARALLEL_LENGTH = 4000

#: Below this much work (sum of n^3) a list runs on the calling thread: a parallel region costs more.
PARALLEL_WORK = 2e7


def _many(codes_all, starts, order, logw, allowed, min_loop, scaled, want_bpp, workers, width, log_z, bpp_all,
          bpp_starts, low):
    for t in prange(workers):
        for q in range(t, order.shape[0], workers):
            s = order[q]
            codes = codes_all[starts[s]:starts[s + 1]]
            n = codes.shape[0]
            M = np.empty((n + 1, n + 1))
            cs = np.zeros(max(n, 1))
            b = np.empty(n + 1)
            if width > 0:
                low[s] = inside_sweep(codes, logw, allowed, min_loop, scaled, M, cs, width)
            else:
                low[s] = inside(codes, logw, allowed, min_loop, scaled, M, cs, b)
            log_z[s] = np.sum(cs[:n]) + math.log(M[0, n])
            if want_bpp and n > 0 and (low[s] >= TINY or not scaled):
                O = np.empty((n + 1, n + 1))
                P = bpp_all[bpp_starts[s]:bpp_starts[s + 1]].reshape((n, n))
                outside(codes, logw, allowed, min_loop, M, cs, O, P, b)


_many_serial, _many_parallel = serial_and_parallel(_many, nogil=True, fastmath=_FLAGS)


def _weights(params):
    """(log weight float64 5 x 5, allowed bool 5 x 5) of ``params``' pairs."""
    table = params.pair_table()
    return table.astype(np.float64) / params.unit, table > 0


def _checked(log_z, bpp, n):
    """``(log_z, bpp)`` once they are finite and each base's probabilities sum to at most 1."""
    sane = math.isfinite(log_z)
    if sane and bpp is not None and n:
        per_base = bpp.sum(axis=0) + bpp.sum(axis=1)
        sane = bool(np.isfinite(per_base).all() and per_base.max() <= 1 + 1e-9 and bpp.min() >= 0)
    if not sane:
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
    parallel = workers > 1 and n >= PARALLEL_LENGTH
    if parallel:
        low = inside_parallel(codes, logw, allowed, int(params.min_loop), bool(scaled), M, cs, workers)
    elif sweep_width(float(logw.max()), n):
        low = inside_sweep(codes, logw, allowed, int(params.min_loop), bool(scaled), M, cs,
                           sweep_width(float(logw.max()), n))
    else:
        low = inside(codes, logw, allowed, int(params.min_loop), bool(scaled), M, cs, b)
    log_z = float(np.sum(cs[:n]) + math.log(M[0, n]))
    if scaled and low < TINY and (want_bpp or params.pair_table().max() > SAFE_WEIGHT * params.unit):
        del M
        return _checked(*_in_logs(codes, logw, allowed, params, want_bpp), n)
    if not want_bpp:
        return _checked(log_z, None, n)
    P = np.zeros((n, n))
    if parallel:
        outside_parallel(codes, logw, allowed, int(params.min_loop), M, cs, np.empty((n + 1, n + 1)), P, workers)
    elif n:
        outside(codes, logw, allowed, int(params.min_loop), M, cs, np.empty((n + 1, n + 1)), P, b)
    return _checked(log_z, P, n)


def _in_logs(codes, logw, allowed, params, want_bpp):
    """``(log Z, P or None)`` of a sequence the scaled fill cannot take, from the log-space fill."""
    from ._nussinov_partition_log import partition_log

    return partition_log(codes, logw, allowed, int(params.min_loop), want_bpp)


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
           workers if kernel is _many_parallel else 1, sweep_width(float(logw.max()), int(lengths.max(initial=0))), log_z,
           bpp_all, bpp_starts, low)
    results = []
    heavy = params.pair_table().max() > SAFE_WEIGHT * params.unit
    for s, n in enumerate(lengths.tolist()):
        if scaled and low[s] < TINY and (want_bpp or heavy):
            results.append(_checked(*_in_logs(codes_all[starts[s]:starts[s + 1]], logw, allowed, params, want_bpp),
                                    n))
            continue
        bpp = bpp_all[bpp_starts[s]:bpp_starts[s + 1]].reshape(n, n) if want_bpp else None
        results.append(_checked(float(log_z[s]), bpp, n))
    return results
