"""``--bpp``'s lines of many records at once: ``id i j probability`` (tab-separated, 1-based, the
probability as Python's ``f"{p:.6g}"``) of every listed pair of probability at least a threshold, written
by a Numba byte formatter from the sparse pair lists, never a Python step per pair.

Six significant digits come from p * 10^k (one rounding of an exact power of ten, at most half an ulp
off); a value whose seventh digit is within 1e-7 of a tie (where that half ulp could matter) is formatted
by Python instead, so every byte is Python's.

>>> text = bpp_text(["r1", "r2"], np.array([0, 2, 3]), np.array([0, 1, 0]), np.array([5, 4, 9]),
...                 np.array([0.25, 1.23456789e-5, 1.0]), 1e-5)
>>> print(text, end="")
r1	1	6	0.25
r1	2	5	1.23457e-05
r2	1	10	1
"""
import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def _digits(x):
    """``(six digits as an int, decimal exponent, ok)`` of x > 0 rounded to six significant digits (half
    to even); ok False where a Python formatting is needed (a near tie, or out of range)."""
    if not (x > 0.0) or x >= 1e16 or x < 1e-16:
        return 0, 0, False
    e = int(np.floor(np.log10(x)))
    m = 0.0
    for _ in range(3):                  # log10 may be one off at a power of ten
        k = 5 - e
        m = x * 10.0 ** k if k >= 0 else x / 10.0 ** (-k)
        if m >= 1e6:
            e += 1
        elif m < 1e5:
            e -= 1
        else:
            break
    r = np.floor(m)
    frac = m - r
    if abs(frac - 0.5) < 1e-7:
        return 0, 0, False
    if frac > 0.5:
        r += 1.0
    digits = int(r)
    if digits >= 1000000:
        digits //= 10
        e += 1
    return digits, e, True


@njit(cache=True, nogil=True)
def _put_int(out, at, v):
    if v == 0:
        out[at] = 48
        return at + 1
    width = 0
    t = v
    while t:
        width += 1
        t //= 10
    for w in range(width - 1, -1, -1):
        out[at + w] = 48 + v % 10
        v //= 10
    return at + width


@njit(cache=True, nogil=True)
def _put_g6(out, at, digits, e):
    """Python's ``.6g`` of digits * 10^(e - 5): fixed for -4 <= e < 6, else d.ddddde+XX; trailing zeros
    (and a bare point) left out."""
    buf = np.empty(6, np.uint8)
    for w in range(5, -1, -1):
        buf[w] = 48 + digits % 10
        digits //= 10
    last = 5
    while last > 0 and buf[last] == 48:
        last -= 1
    if -4 <= e < 6:
        if e >= 0:
            for w in range(e + 1):
                out[at] = buf[w]
                at += 1
            if last > e:
                out[at] = 46
                at += 1
                for w in range(e + 1, last + 1):
                    out[at] = buf[w]
                    at += 1
        else:
            out[at], out[at + 1] = 48, 46
            at += 2
            for _ in range(-e - 1):
                out[at] = 48
                at += 1
            for w in range(last + 1):
                out[at] = buf[w]
                at += 1
        return at
    out[at] = buf[0]
    at += 1
    if last > 0:
        out[at] = 46
        at += 1
        for w in range(1, last + 1):
            out[at] = buf[w]
            at += 1
    out[at], out[at + 1] = 101, 45 if e < 0 else 43
    at += 2
    a = abs(e)
    if a < 10:
        out[at] = 48
        at += 1
    return _put_int(out, at, a)


@njit(cache=True, nogil=True)
def _unformatted(p, chosen):
    """The positions in ``chosen`` of the values that need Python's formatting."""
    bad = np.zeros(chosen.shape[0], np.bool_)
    for t in range(chosen.shape[0]):
        bad[t] = not _digits(p[chosen[t]])[2]
    return np.flatnonzero(bad)


@njit(cache=True, nogil=True)
def _write(id_bytes, id_starts, owner, chosen, I, J, p, bad, spare, spare_starts):
    size = spare_starts[-1]
    for t in range(chosen.shape[0]):
        r = owner[t]
        size += id_starts[r + 1] - id_starts[r] + 64
    out = np.empty(size, np.uint8)
    at = 0
    b = 0
    for t in range(chosen.shape[0]):
        e, r = chosen[t], owner[t]
        for c in range(id_starts[r], id_starts[r + 1]):
            out[at] = id_bytes[c]
            at += 1
        out[at] = 9
        at = _put_int(out, at + 1, I[e] + 1)
        out[at] = 9
        at = _put_int(out, at + 1, J[e] + 1)
        out[at] = 9
        at += 1
        if b < bad.shape[0] and bad[b] == t:
            for c in range(spare_starts[b], spare_starts[b + 1]):
                out[at] = spare[c]
                at += 1
            b += 1
        else:
            digits, ex, _ = _digits(p[e])
            at = _put_g6(out, at, digits, ex)
        out[at] = 10
        at += 1
    return out[:at]


def _flat(chunks):
    starts = np.zeros(len(chunks) + 1, np.int64)
    np.cumsum([len(c) for c in chunks], out=starts[1:])
    flat = np.frombuffer(b"".join(chunks), np.uint8) if chunks else np.zeros(0, np.uint8)
    return (flat if len(flat) else np.zeros(0, np.uint8)), starts


def bpp_text(ids: list, offsets: np.ndarray, i: np.ndarray, j: np.ndarray, p: np.ndarray,
             threshold: float) -> str:
    """The lines ``id\\ti\\tj\\tprobability\\n`` of record r's listed pairs offsets[r]:offsets[r + 1] of
    (i, j, p) (0-based, written 1-based) of probability at least ``threshold``, in their order.

    >>> bpp_text(["s"], np.array([0, 2]), np.array([0, 0]), np.array([3, 4]), np.array([0.5, 1e-6]), 1e-5)
    's\\t1\\t4\\t0.5\\n'
    """
    p = np.asarray(p, dtype=np.float64)
    chosen = np.flatnonzero(p >= threshold)
    if not len(chosen):
        return ""
    owner = np.searchsorted(np.asarray(offsets, dtype=np.int64), chosen, side="right") - 1
    id_bytes, id_starts = _flat([str(x).encode() for x in ids])
    bad = _unformatted(p, chosen)
    spare, spare_starts = _flat([f"{p[chosen[t]]:.6g}".encode() for t in bad.tolist()])
    out = _write(id_bytes, id_starts, owner, chosen, np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64),
                 p, bad, spare, spare_starts)
    return out.tobytes().decode()
