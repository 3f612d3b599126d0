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
from numba import njit, prange

from ..results.digits import put_int


#: exact powers of ten (a global array is a constant to Numba: no pow per value)
POW10 = 10.0 ** np.arange(23)


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
        m = x * POW10[k] if k >= 0 else x / POW10[-k]
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
def _put_digits(out, at, v, nd, point):
    """The nd digits of v, a point after the first ``point`` of them (none where point >= nd)."""
    width = nd + (1 if point < nd else 0)
    for w in range(nd - 1, -1, -1):
        out[at + w + (1 if w >= point else 0)] = 48 + v % 10
        v //= 10
    if point < nd:
        out[at + point] = 46
    return at + width


@njit(cache=True, nogil=True)
def _put_g6(out, at, digits, e):
    """Python's ``.6g`` of digits * 10^(e - 5): fixed for -4 <= e < 6, else d.ddddde+XX; trailing zeros
    (and a bare point) left out."""
    nd = 6
    while nd > 1 and digits % 10 == 0:
        digits //= 10
        nd -= 1
    if -4 <= e < 6:
        if e >= 0:
            if nd <= e + 1:
                at = put_int(out, at, digits)
                for _ in range(e + 1 - nd):
                    out[at] = 48
                    at += 1
                return at
            return _put_digits(out, at, digits, nd, e + 1)
        out[at], out[at + 1] = 48, 46
        at += 2
        for _ in range(-e - 1):
            out[at] = 48
            at += 1
        return _put_digits(out, at, digits, nd, nd)
    at = _put_digits(out, at, digits, nd, 1)
    out[at], out[at + 1] = 101, 45 if e < 0 else 43
    at += 2
    a = abs(e)
    if a < 10:
        out[at] = 48
        at += 1
    return put_int(out, at, a)


@njit(cache=True, parallel=True)
def _unformatted(p, chosen):
    """Whether each chosen value needs Python's formatting."""
    bad = np.zeros(chosen.shape[0], np.bool_)
    for t in prange(chosen.shape[0]):
        bad[t] = not _digits(p[chosen[t]])[2]
    return bad


@njit(cache=True, nogil=True)
def _width(v):
    w = 1
    while v >= 10:
        w += 1
        v //= 10
    return w


@njit(cache=True, nogil=True)
def _widest(offsets, I, J):
    """The largest index of each record's entries (its lines' widest number, less one)."""
    out = np.zeros(offsets.shape[0] - 1, np.int64)
    for r in range(out.shape[0]):
        for e in range(offsets[r], offsets[r + 1]):
            out[r] = max(out[r], I[e], J[e])
    return out


@njit(cache=True, nogil=True)
def _lines(out, at, id_bytes, id0, id1, chosen, a, b, I, J, p, spare_of, spare, spare_starts):
    """Write the lines of chosen[a:b] (one record's) from out[at]; the end."""
    for t in range(a, b):
        e = chosen[t]
        for c in range(id0, id1):
            out[at] = id_bytes[c]
            at += 1
        out[at] = 9
        at = put_int(out, at + 1, I[e] + 1)
        out[at] = 9
        at = put_int(out, at + 1, J[e] + 1)
        out[at] = 9
        at += 1
        s = spare_of[t]
        if s >= 0:
            for c in range(spare_starts[s], spare_starts[s + 1]):
                out[at] = spare[c]
                at += 1
        else:
            digits, ex, _ = _digits(p[e])
            at = _put_g6(out, at, digits, ex)
        out[at] = 10
        at += 1
    return at


@njit(cache=True, parallel=True)
def _write(id_bytes, id_starts, ranges, widest, chosen, I, J, p, spare_of, spare, spare_starts):
    """Each record's lines into its own slot (bounded by its id, its widest index and 12 characters of
    probability, or its spare text), in parallel over records, then joined."""
    count = ranges.shape[0] - 1
    slots = np.zeros(count + 1, np.int64)
    longest_spare = 0
    for s in range(spare_starts.shape[0] - 1):
        longest_spare = max(longest_spare, spare_starts[s + 1] - spare_starts[s])
    for r in range(count):
        per_line = id_starts[r + 1] - id_starts[r] + 4 + 2 * _width(widest[r] + 1) + max(12, longest_spare)
        slots[r + 1] = slots[r] + per_line * (ranges[r + 1] - ranges[r])
    out = np.empty(slots[count], np.uint8)
    used = np.zeros(count + 1, np.int64)
    for r in prange(count):
        used[r + 1] = _lines(out, slots[r], id_bytes, id_starts[r], id_starts[r + 1], chosen, ranges[r],
                             ranges[r + 1], I, J, p, spare_of, spare, spare_starts) - slots[r]
    ends = np.cumsum(used)
    joined = np.empty(ends[count], np.uint8)
    for r in prange(count):
        joined[ends[r]:ends[r + 1]] = out[slots[r]:slots[r] + used[r + 1]]
    return joined, ends


def _flat(chunks):
    starts = np.zeros(len(chunks) + 1, np.int64)
    np.cumsum([len(c) for c in chunks], out=starts[1:])
    flat = np.frombuffer(b"".join(chunks), np.uint8) if chunks else np.zeros(0, np.uint8)
    return (flat if len(flat) else np.zeros(0, np.uint8)), starts


def bpp_text(ids: list, offsets: np.ndarray, i: np.ndarray, j: np.ndarray, p: np.ndarray,
             threshold: float, per_record: bool = False) -> "str | list[str]":
    """The lines ``id\\ti\\tj\\tprobability\\n`` of record r's listed pairs offsets[r]:offsets[r + 1] of
    (i, j, p) (0-based, written 1-based) of probability at least ``threshold``, in their order; with
    ``per_record``, a list of each record's lines.

    >>> bpp_text(["s"], np.array([0, 2]), np.array([0, 0]), np.array([3, 4]), np.array([0.5, 1e-6]), 1e-5)
    's\\t1\\t4\\t0.5\\n'
    >>> bpp_text(["a", "b"], np.array([0, 1, 2]), np.array([0, 1]), np.array([3, 4]), np.array([0.5, 1.0]), 1e-5, True)
    ['a\\t1\\t4\\t0.5\\n', 'b\\t2\\t5\\t1\\n']
    """
    p = np.asarray(p, dtype=np.float64)
    chosen = np.flatnonzero(p >= threshold)
    if not len(chosen):
        return [""] * len(ids) if per_record else ""
    offsets = np.asarray(offsets, dtype=np.int64)
    i, j = np.asarray(i, dtype=np.int64), np.asarray(j, dtype=np.int64)
    ranges = np.searchsorted(chosen, offsets)
    widest = _widest(offsets, i, j)
    id_bytes, id_starts = _flat([str(x).encode() for x in ids])
    bad = np.flatnonzero(_unformatted(p, chosen))
    spare, spare_starts = _flat([f"{p[chosen[t]]:.6g}".encode() for t in bad.tolist()])
    spare_of = np.full(len(chosen), -1, np.int64)
    spare_of[bad] = np.arange(len(bad))
    out, ends = _write(id_bytes, id_starts, ranges, widest, chosen, i, j, p, spare_of, spare, spare_starts)
    if per_record:
        ends = ends.tolist()
        return [out[a:b].tobytes().decode() for a, b in zip(ends[:-1], ends[1:])]
    return out.tobytes().decode()
