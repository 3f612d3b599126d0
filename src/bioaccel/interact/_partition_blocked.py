"""BPPart's fill on the CPU, variant ``blocked``: the ``matrices`` variant's sums (docs/bppart.md,
"bioaccel's form"; :mod:`._partition_cpu`) with its two costly parts rewritten.

- QIa's and QIm's double sums over the other query intervals: register-blocked products, one a split
  point (:mod:`._partition_blocked_split`). A tile of 8 target rows x 16 ends stays in 16 vector
  registers (:mod:`._partition_band_cross`'s ``lanes8``) over every inner index, and is added to the
  output once a split point (the ``matrices`` form loads and stores an output row segment for every
  four multiply-adds). The tables are padded to rows of a multiple of 16 cells and to a multiple of 8
  rows (zeros) so that a tile's loads never leave its row nor its matrix.
- The sums along the target inside one query interval (s1's, AUX1's, QIa's last and R's): the
  ``matrices`` form computes each cell's as a dot product (a reduction of about 35 terms, 1.4 M cells
  at 23 x 100). Here they are row products: for a target row b0, each of them for every end b1 at
  once is a vector times an upper-triangular matrix, summed as row updates (AXPYs) along contiguous
  rows, four matrix rows at a time. Every term a row needs is ready before it (AUX1 of later rows, this
  row's T1 and QIac, QF of this row and later ones), so the row's cells go in three passes. Rows go in
  pairs: s1's and R's sums of both rows over the later rows are one pass over AUX1's and QF's rows.

The same terms as the ``matrices`` variant, summed in another order: equal to rounding (the tests hold
both to the plain-Python reference to 1e-12 relative in log Z).
"""
import types as pytypes

import numpy as np
from numba import njit, prange

from ._partition_band_cross import _add_row, _fma, _load, _prefetch, _prefetch_write, _zero, wide_vectors
from ._partition_blocked_split import _split_products
from ._partition_cpu import _FLAGS, interval_index, single_strand_scaled


def fill_partition_blocked(a: np.ndarray, rb: np.ndarray, weights: np.ndarray, c1: float, c2: float) -> tuple:
    """(log QI, log QX, log Q0, log Q1) of the whole strands, as
    :func:`._partition_cpu.fill_partition` gives them (same arguments), by the blocked form.

    >>> import numpy as np
    >>> w = np.zeros((5, 5)); w[1, 2] = w[2, 1] = np.exp(3.0)
    >>> [round(float(x), 4) for x in fill_partition_blocked(np.array([2], np.uint8), np.array([1], np.uint8), w, 0.0, 0.0)]
    [3.0486, 3.0, 0.0, 0.0]
    """
    return _fill(a, rb, weights, c1, c2, *blocked_tables(a.shape[0], rb.shape[0]), wide_vectors())


def blocked_tables(M: int, N: int, value: float = None) -> list:
    """The seven tables :func:`_fill` fills at M x N nt (query intervals x target rows x target ends,
    padded to whole tiles: rows to a multiple of 8, ends of 16), not zeroed (or all ``value``).

    >>> [t.shape for t in blocked_tables(2, 20)][:2]
    [(6, 24, 32), (6, 24, 32)]
    """
    shape = table_shape(M, N)
    # allocated here, not in Numba: NumPy asks the kernel for huge pages for large arrays (first touch
    # of the 7 tables at 23 x 100: 0.03 s against 0.09 s with Numba's allocation, its 4 KiB pages).
    # Not zeroed here: each query interval's QI, QIac and QF are cleared where the fill reads zeros
    # (next to and on the diagonal, the padding) by the thread that fills them, just before (_clear);
    # of an empty query interval only QI and QX are read
    make = np.empty if value is None else (lambda s: np.full(s, value))
    return [make(shape) for _ in range(7)]


def table_shape(M: int, N: int) -> tuple:
    """The shape of each table at M x N nt: query intervals x target rows x target ends, padded to whole
    tiles (rows to a multiple of 8, ends of 16).

    >>> table_shape(23, 100)
    (300, 104, 112)
    """
    n = N + 1
    return ((M + 1) * (M + 2) // 2, (n + 7) // 8 * 8, (n + 15) // 16 * 16)


@njit(cache=True, nogil=True, parallel=True, fastmath=_FLAGS)
def _fill(a, rb, weights, c1, c2, QI, QX, QIac, QF, R, T0, AUX0, wide):
    """fill_partition_blocked's fill, on its tables (:func:`blocked_tables`); ``wide``: the double sums in
    tiles of eight lanes (AVX-512), else of four."""
    M = a.shape[0]
    Q0, Q1p, idx, w1, w2, wi = _start(a, rb, weights, c1, c2, QI, QX)
    for l1 in range(1, M + 1):
        for a0 in prange(M - l1 + 1):
            _interval(a0, a0 + l1, a, rb, w1, w2, wi, Q0, Q1p, idx, QI, QX, QIac, QF, R, T0, AUX0, wide)
    return _logs(a, rb, c1, c2, Q0, Q1p, idx, QI, QX)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _start(a, rb, weights, c1, c2, QI, QX):
    """What every query interval reads before the fill: the strands' scaled folds Q0 and Q1 (Q1 padded as
    the tables), the interval index, the reweighted pair weights, and the empty query intervals' QI and QX."""
    M, N = a.shape[0], rb.shape[0]
    u1, u2 = np.exp(-c1), np.exp(-c2)
    Q0 = single_strand_scaled(a, weights, u1)
    Q1 = single_strand_scaled(rb, weights, u2)
    idx = interval_index(M)
    n = N + 1
    Q1p = np.zeros(QI.shape[1:])
    Q1p[:n, :n] = Q1
    w1 = weights * (u1 * u1)   # pairs inside the query
    w2 = weights * (u2 * u2)   # pairs inside the target
    wi = weights * (u1 * u2)   # intermolecular pairs
    for i in range(M + 1):     # an empty query interval: the target alone, no interaction (QX read when M = 0)
        empty = QI[idx[i, i]]
        empty[:] = 0.0
        empty[:n, :n] = Q1
        QX[idx[i, i]][:] = 0.0
    return Q0, Q1p, idx, w1, w2, wi


@njit(cache=True, nogil=True)
def _logs(a, rb, c1, c2, Q0, Q1p, idx, QI, QX):
    """(log QI, log QX, log Q0, log Q1) of the whole strands, unscaled, from the filled tables."""
    M, N = a.shape[0], rb.shape[0]
    whole = idx[0, M]
    return (np.log(QI[whole, 0, N]) + c1 * M + c2 * N, np.log(QX[whole, 0, N]) + c1 * M + c2 * N,
            np.log(Q0[0, M]) + c1 * M, np.log(Q1p[0, N]) + c2 * N)


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _interval(a0, a1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, wide):
    """Every table at the query interval [a0, a1) (non-empty): the terms over other query intervals for
    the whole target matrix, then the target rows b0 from the last up (:func:`_row`)."""
    n = rb.shape[0] + 1
    acc_a, acc_m = _interval_open(a0, a1, n, Q0, idx, QI, QX, QIac, QF)
    _split_products(QIac, QI, idx, a0, a1, acc_a, n, wide)   # a closed block [a0, c) x [b0, k), QI on the rest
    _split_products(QF, QIac, idx, a0, a1, acc_m, n, wide)   # first-anchored [a0, c), last-anchored the rest
    _interval_rows(a0, a1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, acc_a, acc_m)


@njit(cache=True, nogil=True)
def _interval_open(a0, a1, n, Q0, idx, QI, QX, QIac, QF):
    """The query interval [a0, a1)'s tables cleared where read as zeros, its empty target intervals, and
    its double sums' two outputs (zeroed): ``(acc_a, acc_m)``."""
    A = idx[a0, a1]
    shape = (QI.shape[1], QI.shape[2])
    for table in (QI, QIac, QF):   # QX, R, T0 and AUX0 are read only above their diagonals (and QX
        _clear(table[A], n)        # at [0, N]: on it when N = 0)
    for c in range(n):         # an empty target interval: the query alone
        QI[A, c, c] = Q0[a0, a1]
        QX[A, c, c] = 0.0
    return np.zeros(shape), np.zeros(shape)   # QIa's terms with a non-empty rest of the query; QIm's double sum


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _interval_rows(a0, a1, a, rb, w1, w2, wi, Q0, Q1, idx, QI, QX, QIac, QF, R, T0, AUX0, acc_a, acc_m):
    """:func:`_interval` after its double sums (``acc_a``, ``acc_m``): the target rows b0 from the last up."""
    N = rb.shape[0]
    n = N + 1
    l1 = a1 - a0
    A = idx[a0, a1]
    shape = (QI.shape[1], QI.shape[2])
    aux1 = np.zeros(shape)     # this query interval's AUX1 (read by later rows' s1)
    work = np.zeros((9, shape[1]))   # a row's s1 sums, T1, QIa, R, the sums of s0, AUX0 and QX; the pair's s1, R
    prev = idx[a0, a1 - 1]     # [a0, a1 - 1): QIm's last term
    inner = idx[a0 + 1, a1 - 1] if l1 >= 2 else A   # QIe's interior (read only when l1 >= 5)
    QIa_, QXa, Ca, Fa, Ra, T0a, X0a = QI[A], QX[A], QIac[A], QF[A], R[A], T0[A], AUX0[A]
    Fprev, Qin, Xin = QF[prev], QI[idx[a0 + 1, a1]], QX[inner]
    v, r, v2, r2 = work[0], work[3], work[7], work[8]
    # Rows in pairs (hi = b0, lo = b0 - 1): s1's sums v and R's sums r of both rows over the rows past
    # hi are one pass over AUX1's and QF's rows (each matrix row loaded once for two), then each row's
    # own near term is added: v[c] = sum_{b0 < k < c} Q1(b0 + 1, k) AUX1([k, c)) (s1's at b1 = c + 1),
    # r[c] = sum_{b0 <= k < c} Q1(b0, k) QF([k, c)) (R's, the row's own QF included).
    for hi in range(N - 1, -1, -2):
        lo = hi - 1
        start = max(lo, 0)
        v[start:] = 0.0
        r[start:] = 0.0
        v2[start:] = 0.0
        r2[start:] = 0.0
        _vecmat2(Q1[hi + 1], Q1[hi], hi + 1, N, aux1, v, v2, n)
        if hi >= 3:                # the next pair's rows of other query intervals, asked for ahead
            _ask_rows(a0, a1, hi - 2, n, idx, AUX0, T0, R)
            _ask_rows(a0, a1, hi - 3, n, idx, AUX0, T0, R)
            for T in (QIa_, QXa, Ca, Fa, Ra, T0a, X0a):   # and this interval's rows they write, to write
                _ask_write(T[hi - 2], hi - 1, n)
                _ask_write(T[hi - 3], hi - 2, n)
        _cross_rows(a0, a1, hi, n, Q0, idx, AUX0, T0, R, work)
        _row(a0, a1, hi, N, a, rb, w1, w2, wi, Q1, Ca, Fa, T0a, X0a, Fprev, Qin, Xin, aux1, work, v, acc_a, acc_m)
        if lo >= 0:
            _vecmat2(Q1[hi], Q1[lo], hi, N, Fa, r, r2, n)
        else:
            _vecmat(Q1[hi], hi, N, Fa, r, n)
        _row_end(a0, a1, hi, N, Q0, Q1, QIa_, QXa, Ra, r, work)
        if lo >= 0:
            _axpy(v2[hi:n], Q1[hi, hi], aux1[hi, hi:n])
            _cross_rows(a0, a1, lo, n, Q0, idx, AUX0, T0, R, work)
            _row(a0, a1, lo, N, a, rb, w1, w2, wi, Q1, Ca, Fa, T0a, X0a, Fprev, Qin, Xin, aux1, work, v2, acc_a,
                 acc_m)
            _axpy(r2[lo:n], Q1[lo, lo], Fa[lo, lo:n])
            _row_end(a0, a1, lo, N, Q0, Q1, QIa_, QXa, Ra, r2, work)


@njit(cache=True, nogil=True)
def _clear(T, n):
    """Zero the cells of a target matrix ``T`` (QI, QIac or QF; ``n`` = N + 1 cells a side, padded)
    that the fill does not write but reads as zeros: in each row b < n from column b // 16 * 16 to the
    diagonal (a tile's rows and k below the diagonal: :mod:`._partition_blocked_split`, :func:`_vecmat`),
    and the padding (read into the tiles' lanes past the last end, never used: zeros keep them finite).
    The fill writes every cell above the diagonal; no reader goes left of the 16-column block of the
    diagonal, so most of the lower triangle stays as it was (its cache lines never loaded)."""
    for b in range(T.shape[0]):
        if b < n:
            T[b, b // 16 * 16:b + 1] = 0.0
            T[b, n:] = 0.0
        else:
            T[b, :] = 0.0


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _cross_rows(a0, a1, b0, n, Q0, idx, AUX0, T0, R, work):
    """Row b0 of the single sums over the query's split points: s0's (into work[4]), AUX0's but its last
    term (work[5]) and QX's but its first (work[6]), each a sum of other query intervals' rows."""
    s0, aux0, qx = work[4, b0 + 1:n], work[5, b0 + 1:n], work[6, b0 + 1:n]
    s0[:] = 0.0
    aux0[:] = 0.0
    qx[:] = 0.0
    if a1 - a0 >= 5:
        for k in range(a0 + 1, a1 - 1):
            _axpy(s0, Q0[a0 + 1, k], AUX0[idx[k, a1 - 1], b0, b0 + 1:n])
    for k in range(a0, a1 - 1):
        _axpy(aux0, Q0[k + 1, a1], T0[idx[a0, k + 1], b0, b0 + 1:n])
    for k in range(a0 + 1, a1):
        _axpy(qx, Q0[a0, k], R[idx[k, a1], b0, b0 + 1:n])


@njit(cache=True, nogil=True)
def _ask_rows(a0, a1, b0, n, idx, AUX0, T0, R):
    """Prefetch the rows :func:`_cross_rows` reads at row b0 (other query intervals' matrices)."""
    if a1 - a0 >= 5:
        for k in range(a0 + 1, a1 - 1):
            _ask(AUX0[idx[k, a1 - 1], b0], b0 + 1, n)
    for k in range(a0, a1 - 1):
        _ask(T0[idx[a0, k + 1], b0], b0 + 1, n)
    for k in range(a0 + 1, a1):
        _ask(R[idx[k, a1], b0], b0 + 1, n)


@njit(cache=True, nogil=True)
def _ask_write(row, start, end):
    """Prefetch row[start:end] to write it (its lines are in L3 or memory: a write would wait for
    them), a cache line at a time."""
    for j in range(start, end + 7, 8):
        _prefetch_write(row, min(j, end - 1))


@njit(cache=True, nogil=True)
def _ask(row, start, end):
    """Prefetch row[start:end], a cache line at a time."""
    for j in range(start, end + 7, 8):
        _prefetch(row, min(j, end - 1))


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _axpy(out, factor, row):
    """out += factor * row."""
    for j in range(out.shape[0]):
        out[j] += factor * row[j]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _row(a0, a1, b0, N, a, rb, w1, w2, wi, Q1, Ca, Fa, T0a, X0a, Fprev, Qin, Xin, aux1, work, v, acc_a, acc_m):
    """Target row b0 of the query interval [a0, a1) up to its QF: the cells [b0, b1) for every b1 > b0
    in docs/bppart.md's order, given ``v``, s1's sums (``*a``: this interval's tables; ``Fprev``: QF
    of [a0, a1 - 1), ``Qin``: QI of [a0 + 1, a1), ``Xin``: QX of [a0 + 1, a1 - 1))."""
    n = N + 1
    l1 = a1 - a0
    t1, qia = work[1], work[2]
    wq = w1[a[a0], a[a1 - 1]]  # a0 pairs a1 - 1 (l1 >= 5)
    first = wi[a[a0], rb[b0]]
    for b1 in range(b0 + 1, n):
        l2 = b1 - b0
        s0 = work[4, b1] * wq if l1 >= 5 else 0.0
        s1 = v[b1 - 1] * w2[rb[b0], rb[b1 - 1]] if l2 >= 5 else 0.0
        m = 0.0
        if l1 == 1 and l2 == 1:
            m = first
        elif l1 >= 2 and l2 >= 2:
            m = acc_m[b0, b1] + wi[a[a1 - 1], rb[b1 - 1]] * Fprev[b0, b1 - 1]
        T0a[b0, b1] = s0 + m
        t1[b1] = s1 + m
        X0a[b0, b1] = work[5, b1] + (s0 + m)
        both = 0.0
        if l1 >= 5 and l2 >= 5:
            both = Xin[b0 + 1, b1 - 1] * wq * w2[rb[b0], rb[b1 - 1]]
        Ca[b0, b1] = s0 + s1 + both
        qia[b1] = acc_a[b0, b1]
    aux = aux1[b0]             # AUX1 and QIa's last term: T1's and QIac's row times Q1
    _vecmat2(t1, Ca[b0], b0 + 1, n, Q1, aux, qia, n)
    for b1 in range(b0 + 1, n):
        Fa[b0, b1] = first * Qin[b0 + 1, b1] + qia[b1]


@njit(cache=True, nogil=True, fastmath=_FLAGS)
def _row_end(a0, a1, b0, N, Q0, Q1, QIa_, QXa, Ra, r, work):
    """Target row b0's R (given ``r``), QX and QI."""
    n = N + 1
    q0 = Q0[a0, a1]
    for b1 in range(b0 + 1, n):
        Ra[b0, b1] = r[b1]
        qx = work[6, b1] + r[b1]
        QXa[b0, b1] = qx
        QIa_[b0, b1] = q0 * Q1[b0, b1] + qx


@njit(cache=True, nogil=True)
def _vecmat(x, lo, hi, Mx, out, n):
    """out[c] += sum of x[k] Mx[k, c] over lo <= k < hi, for every c < n (``Mx`` zero where c < k, its
    rows and ``out`` padded to whole tiles): tiles of 16 ends in registers over every k, even and odd k
    in two sets of accumulators (two chains of dependent multiply-adds each)."""
    for B in range(lo // 16 * 16, n, 16):
        kend = min(B + 16, hi)
        p0 = p1 = p2 = p3 = _zero()
        q0 = q1 = q2 = q3 = _zero()
        k = lo
        while k + 1 < kend:
            y, v = Mx[k], x[k]
            p0, p1 = _fma(p0, v, _load(y, B)), _fma(p1, v, _load(y, B + 4))
            p2, p3 = _fma(p2, v, _load(y, B + 8)), _fma(p3, v, _load(y, B + 12))
            y, v = Mx[k + 1], x[k + 1]
            q0, q1 = _fma(q0, v, _load(y, B)), _fma(q1, v, _load(y, B + 4))
            q2, q3 = _fma(q2, v, _load(y, B + 8)), _fma(q3, v, _load(y, B + 12))
            k += 2
        if k < kend:
            y, v = Mx[k], x[k]
            p0, p1 = _fma(p0, v, _load(y, B)), _fma(p1, v, _load(y, B + 4))
            p2, p3 = _fma(p2, v, _load(y, B + 8)), _fma(p3, v, _load(y, B + 12))
        _add_row(out, B, p0, p1, p2, p3)
        _add_row(out, B, q0, q1, q2, q3)


@njit(cache=True, nogil=True)
def _vecmat2(x, y, lo, hi, Mx, outx, outy, n):
    """:func:`_vecmat` of two vectors against the same matrix: each of its rows loaded once (the last
    block of ends, when it holds at most 8, two vectors wide)."""
    for B in range(lo // 16 * 16, n, 16):
        kend = min(B + 16, hi)
        if n - B <= 8:
            _vecmat2_half(x, y, lo, kend, Mx, outx, outy, B)
            continue
        p0 = p1 = p2 = p3 = _zero()
        q0 = q1 = q2 = q3 = _zero()
        for k in range(lo, kend):
            row = Mx[k]
            r0, r1, r2, r3 = _load(row, B), _load(row, B + 4), _load(row, B + 8), _load(row, B + 12)
            v, u = x[k], y[k]
            p0, p1, p2, p3 = _fma(p0, v, r0), _fma(p1, v, r1), _fma(p2, v, r2), _fma(p3, v, r3)
            q0, q1, q2, q3 = _fma(q0, u, r0), _fma(q1, u, r1), _fma(q2, u, r2), _fma(q3, u, r3)
        _add_row(outx, B, p0, p1, p2, p3)
        _add_row(outy, B, q0, q1, q2, q3)


@njit(cache=True, nogil=True)
def _vecmat2_half(x, y, lo, kend, Mx, outx, outy, B):
    """:func:`_vecmat2`'s last block of ends B .. B + 7 (the rest of the 16 is padding)."""
    z = _zero()
    p0 = p1 = q0 = q1 = _zero()
    for k in range(lo, kend):
        row = Mx[k]
        r0, r1 = _load(row, B), _load(row, B + 4)
        v, u = x[k], y[k]
        p0, p1 = _fma(p0, v, r0), _fma(p1, v, r1)
        q0, q1 = _fma(q0, u, r0), _fma(q1, u, r1)
    _add_row(outx, B, p0, p1, z, z)
    _add_row(outy, B, q0, q1, z, z)


def _rebound(function, inline, **callees):
    """A copy of the njit ``function`` (its code, its fastmath flags) whose globals ``callees`` are other
    functions (its inlined callees' copies); inlined into its callers (``inline``: Numba's ``inline="always"``,
    so not cached of its own) or compiled and cached under its own name (``<name>_inline``)."""
    py = function.py_func
    copy = pytypes.FunctionType(py.__code__, {**py.__globals__, **callees}, f"{py.__name__}_inline",
                                py.__defaults__, py.__closure__)
    copy.__qualname__ = copy.__name__
    copy.__doc__ = py.__doc__
    flags = function.targetoptions.get("fastmath", False)
    if inline:
        return njit(nogil=True, fastmath=flags, inline="always")(copy)
    return njit(cache=True, nogil=True, fastmath=flags)(copy)


# _interval with its row functions inlined (bppinline, stop 49): a called function that takes arrays pays
# their reference counts around the call (atomic, out of line, the registers spilled around them; a tile
# of the double sums 40-47 ns called, 17 ns inlined: docs/bppart.md, "bppsparse, stop 49"), and _interval
# calls them about 12 times a pair of target rows. Inlined at Numba's IR level, a callee's float operations
# take its caller's fastmath flags: those with float operations of their own (_cross_rows, _axpy, _row,
# _row_end) have _interval's flags already, the others (_vecmat2, _vecmat, _clear, the asks) have none of
# their own (their vector multiply-adds and adds are intrinsics' calls and _add_row's, which stays called
# and keeps its own flags). The same operations in the same order: the same bits (tests/test_bppart_cpu36.py).
_vecmat2_half_inline = _rebound(_vecmat2_half, True)
_vecmat2_inline = _rebound(_vecmat2, True, _vecmat2_half=_vecmat2_half_inline)
_vecmat_inline = _rebound(_vecmat, True)
_axpy_inline = _rebound(_axpy, True)
_ask_inline = _rebound(_ask, True)
_interval_open_inline = _rebound(_interval_open, True, _clear=_rebound(_clear, True))
_interval_rows_inline = _rebound(
    _interval_rows, True, _vecmat=_vecmat_inline, _vecmat2=_vecmat2_inline,
    _axpy=_axpy_inline, _ask_write=_rebound(_ask_write, True),
    _ask_rows=_rebound(_ask_rows, True, _ask=_ask_inline),
    _cross_rows=_rebound(_cross_rows, True, _axpy=_axpy_inline),
    _row=_rebound(_row, True, _vecmat2=_vecmat2_inline), _row_end=_rebound(_row_end, True))
_interval_inline = _rebound(_interval, False, _interval_open=_interval_open_inline,
                            _interval_rows=_interval_rows_inline)
