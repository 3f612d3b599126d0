"""Traceback of an optimal BPMax joint structure (the recurrence of docs/bpmax.md), and its dot-bracket.

Tie-break rule (deterministic, the same for every variant since all give identical tables): at a cell
F(i1, j1, i2, j2) the first case below that reproduces the cell's value is taken:

1. a 1 x 1 cell: the intermolecular pair (i1, i2) when its score is positive;
2. value 0: no pair at all;
3. the pair (i1, j1) inside the query, then the pair (i2, j2) inside the (reversed) target;
4. R4 (k1 ascending), R3, R2 (k2 ascending), R1;
5. the double split D, k1 ascending, then k2 ascending.

A single-strand interval S(i, j) takes: value 0; the pair (i, j); the split k, ascending.
"""
import numpy as np
from numba import njit

from ..runtime.memory import format_bytes, require_memory
from ..errors import InternalError


@njit(cache=True, nogil=True)
def _cell(buf, rowstart, mat_id, i1, j1, i2, j2):
    return np.int64(buf[mat_id[i1, j1 - i1], rowstart[i2] + j2 - i2])


@njit(cache=True, nogil=True)
def _set3(row, kind, x, y):
    row[0] = kind
    row[1] = x
    row[2] = y


@njit(cache=True, nogil=True)
def _set5(row, k, i, j, i2, j2):
    row[0] = k
    row[1] = i
    row[2] = j
    row[3] = i2
    row[4] = j2


@njit(cache=True, nogil=True)
def _with_strand(row, i1, j1, i2, j2, strand, lo, hi):
    """``row`` = F(i1, j1, i2, j2) with the interval of ``strand`` (1 query, 2 target) made [lo, hi]."""
    if strand == 1:
        _set5(row, 0, lo, hi, i2, j2)
    else:
        _set5(row, 0, i1, j1, lo, hi)


@njit(cache=True, nogil=True)
def _split_strand(v, S, strand, buf, rowstart, mat_id, i1, j1, i2, j2, p0, p1):
    """The single-strand splits of ``strand``'s interval [lo, hi], in the order of the tie-break rule:
    F(.., lo..k, ..) + S(k+1, hi) (R4 on the query, R2 on the target), then S(lo, k) + F(.., k+1..hi, ..)
    (R3, R1), k ascending. The first that gives ``v`` is written to (p0, p1); False when none does."""
    lo, hi = (i1, j1) if strand == 1 else (i2, j2)
    for k in range(lo, hi):
        _with_strand(p0, i1, j1, i2, j2, strand, lo, k)
        if v == _cell(buf, rowstart, mat_id, p0[1], p0[2], p0[3], p0[4]) + S[k + 1, hi]:
            _set5(p1, strand, k + 1, hi, 0, 0)
            return True
    for k in range(lo, hi):
        _with_strand(p1, i1, j1, i2, j2, strand, k + 1, hi)
        if v == S[lo, k] + _cell(buf, rowstart, mat_id, p1[1], p1[2], p1[3], p1[4]):
            _set5(p0, strand, lo, k, 0, 0)
            return True
    return False


@njit(cache=True, nogil=True)
def _trace_strand(S, s, pairs, i, j, kind, out, n_out, splits):
    """The pairs of an optimal structure of S(i, j) over codes ``s`` (the single-strand rule above),
    written to ``out`` from row ``n_out`` on as (kind, x, y); returns the new row count, or -1 when no
    case reproduces a value. ``splits``: scratch rows for the right parts of splits (j - i + 1)."""
    top = 0
    while True:
        while True:
            v = S[i, j]
            if v == 0:
                break
            w = pairs[s[i], s[j]]
            if j - i >= 4 and w > 0 and v == S[i + 1, j - 1] + w:
                _set3(out[n_out], kind, i, j)
                n_out += 1
                i += 1
                j -= 1
                continue
            found = False
            for k in range(i, j):
                if v == S[i, k] + S[k + 1, j]:
                    splits[top, 0] = k + 1
                    splits[top, 1] = j
                    top += 1
                    j = k
                    found = True
                    break
            if not found:
                return -1
        if top == 0:
            return n_out
        top -= 1
        i = splits[top, 0]
        j = splits[top, 1]


@njit(cache=True, nogil=True)
def _trace(a, rb, pairs, S1, S2, buf, rowstart, mat_id):
    """Pairs of an optimal structure of F(0, M-1, 0, N-1) as an (n, 3) int64 array of (kind, x, y).

    kind 0: query pair (x, y); kind 1: target pair in reversed coordinates; kind 2: intermolecular
    (query x, reversed target y). Returns an empty array with kind -1 row if no rule reproduced a cell.
    """
    M = a.shape[0]
    N = rb.shape[0]
    out = np.empty((M + N + 1, 3), dtype=np.int64)
    n_out = 0
    stack = np.empty((4 * (M + N) + 16, 5), dtype=np.int64)  # (kind, i, j, i2, j2); kind 0 F, 1 S1, 2 S2
    splits = np.empty((max(M, N) + 1, 2), dtype=np.int64)
    _set5(stack[0], 0, 0, M - 1, 0, N - 1)
    top = 1
    while top > 0:
        top -= 1
        kind = stack[top, 0]
        i = stack[top, 1]
        j = stack[top, 2]
        if kind != 0:
            n_out = _trace_strand(S1 if kind == 1 else S2, a if kind == 1 else rb, pairs, i, j, kind - 1, out,
                                  n_out, splits)
            if n_out < 0:
                out[0, 0] = -1
                return out[:1]
            continue
        i1, j1, i2, j2 = i, j, stack[top, 3], stack[top, 4]
        v = _cell(buf, rowstart, mat_id, i1, j1, i2, j2)
        if i1 == j1 and i2 == j2:
            if v > 0:
                _set3(out[n_out], 2, i1, i2)
                n_out += 1
            continue
        if v == 0:
            continue
        w = pairs[a[i1], a[j1]]
        if j1 - i1 >= 4 and w > 0 and v == w + _cell(buf, rowstart, mat_id, i1 + 1, j1 - 1, i2, j2):
            _set3(out[n_out], 0, i1, j1)
            n_out += 1
            _set5(stack[top], 0, i1 + 1, j1 - 1, i2, j2)
            top += 1
            continue
        w = pairs[rb[i2], rb[j2]]
        if j2 - i2 >= 4 and w > 0 and v == w + _cell(buf, rowstart, mat_id, i1, j1, i2 + 1, j2 - 1):
            _set3(out[n_out], 1, i2, j2)
            n_out += 1
            _set5(stack[top], 0, i1, j1, i2 + 1, j2 - 1)
            top += 1
            continue
        # each case pushes (first, second) sub-problems; kinds: 0 F, 1 S1, 2 S2
        p0 = np.zeros(5, dtype=np.int64)
        p1 = np.zeros(5, dtype=np.int64)
        found = _split_strand(v, S1, 1, buf, rowstart, mat_id, i1, j1, i2, j2, p0, p1)  # R4, R3
        if not found:
            found = _split_strand(v, S2, 2, buf, rowstart, mat_id, i1, j1, i2, j2, p0, p1)  # R2, R1
        if not found:
            for k1 in range(i1, j1):  # D
                for k2 in range(i2, j2):
                    if v == (_cell(buf, rowstart, mat_id, i1, k1, i2, k2)
                             + _cell(buf, rowstart, mat_id, k1 + 1, j1, k2 + 1, j2)):
                        _set5(p0, 0, i1, k1, i2, k2)
                        _set5(p1, 0, k1 + 1, j1, k2 + 1, j2)
                        found = True
                        break
                if found:
                    break
        if not found:
            out[0, 0] = -1
            return out[:1]
        stack[top, :] = p1
        stack[top + 1, :] = p0
        top += 2
    return out[:n_out]


def dot_bracket(M, N, intra_query, intra_target, inter):
    """Dot-bracket of ``query & target`` (both in their original orientation).

    ``intra_query``: query pairs; ``intra_target``: target pairs (original positions); ``inter``:
    (query position, target position). Intermolecular pairs are written as brackets across the ``&``,
    as RNAcofold writes a dimer: ``(`` on the query, ``)`` on the target. BPMax also allows an
    intermolecular pair inside an intramolecular loop, which one bracket type cannot show; when that
    happens the intermolecular pairs are written ``[`` ``]`` instead (intramolecular stay ``( )``).

    >>> dot_bracket(3, 3, [], [], [(0, 2), (2, 0)]), dot_bracket(6, 2, [(0, 5)], [], [(2, 1)])
    ('(.(&).)', '(.[..)&.]')
    """
    chars = ["."] * (M + 1 + N)
    chars[M] = "&"
    for p, q in intra_query:
        chars[p], chars[q] = "(", ")"
    for p, q in intra_target:
        chars[M + 1 + p], chars[M + 1 + q] = "(", ")"
    intra = [(p, q) for p, q in intra_query] + [(M + 1 + p, M + 1 + q) for p, q in intra_target]
    joined = [(p, M + 1 + t) for p, t in inter]
    crossing = any(p < r < q < s or r < p < s < q for p, q in intra for r, s in joined)
    left, right = ("[", "]") if crossing else ("(", ")")
    for p, t in joined:
        chars[p], chars[t] = left, right
    return "".join(chars)


def traceback(a, rb, pairs, S1, S2, table):
    """Optimal structure of the whole (sub-)problem held in ``table`` = (buf, rowstart, mat_id).

    Returns (intra_query, intra_target, inter) with target positions in ORIGINAL orientation
    (0-based within ``rb[::-1]``); each a sorted list of tuples.
    """
    buf, rowstart, mat_id = table
    found = _trace(a, rb, pairs, S1.astype(np.int64), S2.astype(np.int64), buf, rowstart, mat_id)
    if found.shape[0] == 1 and found[0, 0] == -1:
        raise InternalError("BPMax traceback: no case of the recurrence reproduces a table value")
    N = rb.shape[0]
    intra_query, intra_target, inter = [], [], []
    for kind, x, y in found.tolist():
        if kind == 0:
            intra_query.append((x, y))
        elif kind == 1:
            intra_target.append((N - 1 - y, N - 1 - x))
        else:
            inter.append((x, N - 1 - y))
    return sorted(intra_query), sorted(intra_target), sorted(inter)


def strand_pairs(S: np.ndarray, codes: np.ndarray, pairs: np.ndarray) -> list:
    """The pairs of an optimal structure of a whole strand alone (the single-strand rule above), sorted;
    ``S``: its dense table (units), ``codes``: its letters.

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.interact import InteractParams
    >>> from bioaccel.interact._strands import single_strand_table
    >>> fold = InteractParams().fold_params
    >>> codes = encode("GGGAAACCC")
    >>> strand_pairs(single_strand_table(codes, fold), codes, fold.pair_table())
    [(0, 8), (1, 7), (2, 6)]
    """
    n = codes.shape[0]
    if n == 0:
        return []
    out = np.empty((n + 1, 3), dtype=np.int64)
    found = _trace_strand(S.astype(np.int64), codes, pairs, 0, n - 1, 0, out, 0, np.empty((n + 1, 2), dtype=np.int64))
    if found < 0:
        raise InternalError("BPMax traceback: no case of the single-strand recurrence reproduces a table value")
    return sorted((x, y) for _, x, y in out[:found].tolist())


def _trace_alone(a, rb, S1, S2, params, qs, ts, L1, L2, best):
    """trace_window where one window is empty (an empty strand): the other window folded alone."""
    from ._strands import dense_of_band

    if L2 == 0:
        codes, S, start = np.ascontiguousarray(a[qs:qs + L1]), S1, qs
    else:
        start = len(rb) - ts - L2
        codes, S = np.ascontiguousarray(rb[start:start + L2]), S2
    length = L1 + L2                    # the one window that is not empty, or none
    dense = dense_of_band(S, start, length)
    folded = int(dense[0, length - 1]) if length else 0
    if folded != best:
        raise InternalError(f"the BPMax traceback of a window of {length} nt alone gives {folded}, the fill gave "
                            f"{best} (units)")
    found = strand_pairs(dense, codes, params.pair_table())
    if L2 == 0:
        query = [(p + qs, q + qs) for p, q in found]
        return dot_bracket(L1, 0, found, [], []), query, [], []
    local = sorted((L2 - 1 - q, L2 - 1 - p) for p, q in found)       # the target window as given
    return dot_bracket(0, L2, [], local, []), [], [(p + ts, q + ts) for p, q in local], []


def trace_window(a, rb, S1, S2, params, qs, ts, L1, L2, best):
    """An optimal structure of the window pair (query [qs, qs + L1), target [ts, ts + L2)) whose score is
    ``best`` units: the pair is filled again without windows, keeping the whole table (``tiled``, on
    Numba's current thread count), and traced. ``S1``, ``S2``: the strands' bands (_strands), at least
    L1 and L2 wide. A window of an empty strand leaves the other window folded alone.

    Returns (dot-bracket, intra_query, intra_target, inter) in the coordinates of the whole strands.
    """
    from ._model import InteractParams
    from ._strands import dense_of_band, sub_band
    from .tiled import StreamPlan, fill_tiled

    if L1 == 0 or L2 == 0:
        return _trace_alone(a, rb, S1, S2, params, qs, ts, L1, L2, best)
    N = len(rb)
    i2 = N - ts - L2
    a_sub = np.ascontiguousarray(a[qs:qs + L1])
    rb_sub = np.ascontiguousarray(rb[i2:i2 + L2])
    whole = InteractParams(params.au, params.gu)
    plan = StreamPlan(L1, L2, whole, keep=True)
    require_memory(plan.nbytes, f"the traceback table of {L1} x {L2} nt ({format_bytes(plan.nbytes)})")
    win, plan, buf, rowstart, mat_id = fill_tiled(a_sub, rb_sub, sub_band(S1, qs, L1), sub_band(S2, i2, L2),
                                                  whole, keep=True)
    if int(win[0, 0]) != best:
        raise InternalError(f"the BPMax traceback table of {L1} x {L2} nt gives {int(win[0, 0])}, "
                            f"the fill gave {best} (units)")
    intra_q, intra_t, inter = traceback(a_sub, rb_sub, params.pair_table(), dense_of_band(S1, qs, L1),
                                        dense_of_band(S2, i2, L2), (buf, rowstart, mat_id))
    return (dot_bracket(L1, L2, intra_q, intra_t, inter),
            [(p + qs, q + qs) for p, q in intra_q],
            [(p + ts, q + ts) for p, q in intra_t],
            [(p + qs, t + ts) for p, t in inter])


def trace_site(a, rb, S1, S2, params, qs, ts, L1, L2, best):
    """:func:`trace_window`, and without the target's band (``S2`` None: the GPU path keeps it on the
    device) over the target window folded alone."""
    from ._strands import strand_band

    if S2 is not None:
        return trace_window(a, rb, S1, S2, params, qs, ts, L1, L2, best)
    i2 = len(rb) - ts - L2
    local = np.ascontiguousarray(rb[i2:i2 + L2])
    structure, intra_q, intra_t, inter = trace_window(a, local, S1, strand_band(local, params.fold_params, L2),
                                                      params, qs, 0, L1, L2, best)
    return (structure, intra_q, [(p + ts, q + ts) for p, q in intra_t], [(p, t + ts) for p, t in inter])
