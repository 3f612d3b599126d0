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

#: Sequences up to this length are computed several at a time, one per core; longer ones one at a
#: time, each column's cells on every core.
ONE_CORE_MAX_LENGTH = 800

#: Below this much work (sum of n^3) a list runs on the calling thread: a parallel region costs more.
PARALLEL_WORK = 2e7


def _inside(codes, logw, allowed, min_loop, scaled, workers, M, cs, b):
    """Fill ``M`` ((n+1) x (n+1)): the scaled Q[i, e] and its mirror; ``cs[b]``: each base's log scale
    (all 0 when not ``scaled``). ``b``: scratch of n + 1 doubles."""
    n = codes.shape[0]
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


def _outside(codes, logw, allowed, min_loop, workers, M, cs, O, P, bo, brow):
    """Fill ``O`` (the scaled outside of every Q[i, e], mirrored as ``M``) and ``P[k, l]`` (k < l), the
    probability that k pairs l. ``bo``, ``brow``: scratch of n + 1 doubles."""
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
        for t in prange(workers):      # outside of the pair (k, e): sum_i O[i, e+1] Q[i, k]
            for k in range(t, last + 1, workers):
                if allowed[codes[k], ce]:
                    s = 0.0
                    for i in range(k + 1):
                        s += O[e + 1, i] * M[k, i]
                    bo[k] = s * math.exp(logw[codes[k], ce] - cs[k] - cs[e])
                    P[k, e] = bo[k] * M[e, k + 1] / z
                else:
                    bo[k] = 0.0
        first = e + 1 + min_loop       # pairs (e, j), j >= first
        for j in range(first, n):
            if allowed[ce, codes[j]]:
                brow[j] = math.exp(logw[ce, codes[j]] - cs[e] - cs[j]) * M[e + 1, j]
            else:
                brow[j] = 0.0
        u = math.exp(-cs[e])
        for t in prange(workers):
            for i in range(t, e + 1, workers):
                s = O[i, e + 1] * u    # Q[i, e+1] = Q[i, e] u_e + ...
                for j in range(first, n):
                    s += O[i, j + 1] * brow[j]
                if 1 <= i <= last + 1:  # Q[i, e] is the inside of the pair (i-1, e)
                    s += bo[i - 1]
                O[i, e] = s
        for i in range(e + 1):
            O[e, i] = O[i, e]


_inside_serial, _inside_parallel = serial_and_parallel(_inside, nogil=True, fastmath=_FLAGS)
_outside_serial, _outside_parallel = serial_and_parallel(_outside, nogil=True, fastmath=_FLAGS)


def _many(codes_all, starts, order, logw, allowed, min_loop, scaled, want_bpp, workers, log_z, bpp_all,
          bpp_starts):
    for t in prange(workers):
        for q in range(t, order.shape[0], workers):
            s = order[q]
            codes = codes_all[starts[s]:starts[s + 1]]
            n = codes.shape[0]
            M = np.empty((n + 1, n + 1))
            cs = np.zeros(max(n, 1))
            b = np.empty(n + 1)
            _inside_serial(codes, logw, allowed, min_loop, scaled, 1, M, cs, b)
            log_z[s] = np.sum(cs[:n]) + math.log(M[0, n])
            if want_bpp and n > 0:
                O = np.empty((n + 1, n + 1))
                P = bpp_all[bpp_starts[s]:bpp_starts[s + 1]].reshape((n, n))
                _outside_serial(codes, logw, allowed, min_loop, 1, M, cs, O, P, b, np.empty(n + 1))


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
    >>> log_z, P = partition_one(encode("GGGAAAUCC"), FoldParams(), True)
    >>> round(log_z, 6), round(float(P[0, 8]), 6)       # Z = 1 + 3 e + 3 e^2 + e^3 (+ G-U pairs)
    (3.048587, 0.643595)
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
    inside(codes, logw, allowed, int(params.min_loop), bool(scaled), workers, M, cs, b)
    log_z = float(np.sum(cs[:n]) + math.log(M[0, n]))
    if not want_bpp:
        return _checked(log_z, None, n)
    P = np.zeros((n, n))
    if n:
        outside = _outside_parallel if parallel else _outside_serial
        outside(codes, logw, allowed, int(params.min_loop), workers, M, cs, np.empty((n + 1, n + 1)), P, b,
                np.empty(n + 1))
    return _checked(log_z, P, n)


def partition_many(codes_list, params, want_bpp: bool, *, scaled: bool = True) -> list:
    """``[(log Z, P or None)]`` of each sequence in order: sequences longer than ``ONE_CORE_MAX_LENGTH``
    one at a time on every core, the others several at a time, one per core (longest first).

    >>> from bioaccel.fold import FoldParams
    >>> from bioaccel.inputs.alphabet import encode
    >>> [round(z, 4) for z, _ in partition_many([encode("GGGAAAUCC"), encode("")], FoldParams(), False)]
    [3.0486, 0.0]
    """
    out = [None] * len(codes_list)
    short = []
    for s, codes in enumerate(codes_list):
        if len(codes) > ONE_CORE_MAX_LENGTH:
            out[s] = partition_one(codes, params, want_bpp, scaled=scaled)
        else:
            short.append(s)
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
    work = float(np.sum(lengths.astype(np.float64) ** 3))
    kernel = _many_parallel if workers > 1 and work >= PARALLEL_WORK else _many_serial
    log_z = np.zeros(len(lengths))
    bpp_all = np.zeros(int(bpp_starts[-1]))
    logw, allowed = _weights(params)
    kernel(codes_all, starts, order, logw, allowed, int(params.min_loop), bool(scaled), bool(want_bpp),
           workers if kernel is _many_parallel else 1, log_z, bpp_all, bpp_starts)
    results = []
    for s, n in enumerate(lengths.tolist()):
        bpp = bpp_all[bpp_starts[s]:bpp_starts[s + 1]].reshape(n, n) if want_bpp else None
        results.append(_checked(float(log_z[s]), bpp, n))
    return results
