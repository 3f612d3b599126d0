"""Turner 2004 minimum free energy on the CPU (Zuker's algorithm with ViennaRNA's default model), with
Numba: the fill of the tables, the exterior loop, and the traceback of one optimal structure.

The recurrences, the layout and the tie-break are written up in docs/turner.md. In short, for 0-based
positions and intervals [i, j]:

- ``C(i, j)``: the best energy of [i, j] with i and j paired (hairpin, interior loop, multiloop);
- ``FML(i, j)``: the best multiloop part of [i, j] with at least one stem;
- ``M2(i, j) = min_k FML(i, k) + FML(k + 1, j)``: at least two stems (the O(n^3) part);
- ``f(t)``: the best energy of the prefix of length t (the exterior loop).

Layout: three n x n int32 tables whose lower triangles hold a second table, so that every inner loop
reads contiguous memory::

    c[i, j]  = C(i, j)            c[j, i]  = C(i, j) + the interior mismatch of (i, j) seen from outside
    fm[i, j] = FML(i, j)          fm[j, i] = FML(i, j)   (the transposed copy: FML(k + 1, j) along k)
    m2[i, j] = M2(i, j)           m2[j, i] = CC(i, j)    (no_lp only: (i, j) stacked on from outside)

The fill goes by tiles of ``tile`` x ``tile`` cells, tile-diagonal by tile-diagonal (the tiles of one
tile-diagonal are independent and spread over the cores with prange). Inside a tile, the part of M2
whose operands lie in finished tiles is a min-plus product computed first as row broadcasts
(``acc[i, :] = min(acc[i, :], FML(i, k) + FML(k + 1, c0:c1))``, the house's Nussinov bulk); then the
cells are finished bottom-up, left to right. Energies are exact integers (dcal/mol); INF = 10**9 is
"impossible" (_turner_model.INFINITE). A sum involving INF may come out a little below it (INF plus a
negative energy), so every value is stored exactly INF when it is at or above HALF = INF // 2, far above
any real energy; two stored values add up within int32.
"""
import heapq

import numpy as np
from numba import get_num_threads, njit, prange

from ..errors import InternalError, InvalidParameter
from ..runtime.memory import require_memory
from ._turner_energy import RTYPE, ext_stem_energy, hairpin_energy, interior_energy, ml_stem_energy
from ._turner_model import (BULGE, GENERIC, MAX_LOOP, ML_BASE, ML_CLOSING, MM_1N, MM_INTERIOR, ONE_N, PAIR_TYPE,
                            STACK, TERMINAL_AU, TurnerModel, table_codes)
from ._turner_model import INFINITE as INF
from ._turner_model import MAX_LENGTH

HALF = INF // 2

#: Tile edge of the fill (tests pass small tiles so that short sequences cross many tiles).
TILE = 64
#: Shorter sequences are filled on the calling thread: each tile-diagonal ends with a barrier, and below
#: this length the barriers cost more than the second core saves (200 nt: 16 ms serial, 84 ms with two
#: threads on a loaded 2-core machine).
PARALLEL_LENGTH = 500

# traceback stack entries
_PAIR, _PAIR_STACKED, _MULTI = 0, 1, 2
# (u1, u2) of the interior loops _interior_min scores with interior_energy itself, by u1 + u2
_SMALL_LOOPS = np.array([(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2)], dtype=np.int64)

# Compile time: Numba optimises a function together with every function it calls, again in each
# caller, so a deep chain of small kernels costs its bottom levels many times over (measured: each level
# above the loop energies added 2.5-3.3 s of LLVM time on this project's 2-core machine). The kernels are
# therefore few and flat (_fill_tile holds the whole cell update, _traceback the whole traceback), the
# ones only kernels call have no Python or C wrappers (1 s less on the first call), and
# Python calls them directly: one sequence is filled tile by tile, or tile-diagonal by tile-diagonal
# through the one parallel kernel (_parallel), which also folds batches.


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _interior_min(E, lxc, S, c, i, j, tp):
    """min over the interior loops closed by (i, j) (stacks, bulges, interior loops of at most MAX_LOOP
    unpaired bases) of the loop energy + C(p, q) of the inner pair.

    The same energies as interior_energy (the traceback's), arranged for speed: the generic loops and
    the bulges and 1xn loops (nearly all the candidates) are written out here with their tables' terms
    precomputed (interior_generic, interior_1n); the nine other small loops call interior_energy.
    """
    umax = min(MAX_LOOP, j - i - 6)  # the inner pair needs q - p >= 4
    best = np.int64(INF)
    if umax < 0:
        return best
    au = E[TERMINAL_AU]
    au_out = au if tp > 2 else 0
    si = S[i + 1]
    sj = S[j - 1]
    mm1n_out = E[MM_1N + (tp * 5 + si) * 5 + sj]
    # bulges of 2.. on the 3' side (p = i + 1) and 1xn loops with the 1 on the 5' side (p = i + 2)
    p = i + 1
    row = c[p]
    for u2 in range(2, umax + 1):
        q = j - 1 - u2
        v = row[q]
        if v < INF:
            t_in = E[PAIR_TYPE + S[p] * 5 + S[q]]
            best = min(best, v + E[BULGE + u2] + au_out + (au if t_in > 2 else 0))
    p = i + 2
    row = c[p]
    for u2 in range(3, umax):
        q = j - 1 - u2
        v = row[q]
        if v < INF:
            t_in = RTYPE[E[PAIR_TYPE + S[p] * 5 + S[q]]]
            best = min(best, v + E[ONE_N + u2] + mm1n_out + E[MM_1N + (t_in * 5 + S[q + 1]) * 5 + si])
    # bulges of 2.. on the 5' side (q = j - 1) and 1xn loops with the 1 on the 3' side (q = j - 2)
    q = j - 1
    for u1 in range(2, umax + 1):
        p = i + 1 + u1
        v = c[p, q]
        if v < INF:
            t_in = E[PAIR_TYPE + S[p] * 5 + S[q]]
            best = min(best, v + E[BULGE + u1] + au_out + (au if t_in > 2 else 0))
    q = j - 2
    for u1 in range(3, umax):
        p = i + 1 + u1
        v = c[p, q]
        if v < INF:
            t_in = RTYPE[E[PAIR_TYPE + S[p] * 5 + S[q]]]
            best = min(best, v + E[ONE_N + u1] + mm1n_out + E[MM_1N + (t_in * 5 + sj) * 5 + S[p - 1]])
    # the stack, bulges of 1, 1x1, 1x2, 2x1, 2x2, 2x3, 3x2: their own tables (a loop whose trip count
    # LLVM cannot see, so that it keeps one copy of interior_energy rather than unrolling nine)
    k = 0
    while k < _SMALL_LOOPS.shape[0] and _SMALL_LOOPS[k, 0] + _SMALL_LOOPS[k, 1] <= umax:
        p = i + 1 + _SMALL_LOOPS[k, 0]
        q = j - 1 - _SMALL_LOOPS[k, 1]
        k += 1
        v = c[p, q]
        if v < INF:
            e = v + interior_energy(E, lxc, S, i, j, p, q, tp, RTYPE[E[PAIR_TYPE + S[p] * 5 + S[q]]])
            best = min(best, e)
    # generic loops: c[q, p] already holds C(p, q) + the inner mismatch, interior_generic the size and
    # asymmetry terms (INF where the loop is not generic), so the inner loop is a contiguous min-plus
    # (slices indexed from 0 so that LLVM vectorises it: measured 8x faster than indexing from i + 3)
    generic = np.int32(INF)  # row + pen <= 2 INF: within int32
    for u2 in range(2, umax - 1):
        count = umax - u2 - 1
        row = c[j - 1 - u2, i + 3:i + 3 + count]
        at = GENERIC + u2 * (MAX_LOOP + 1) + 2
        pen = E[at:at + count]
        for t in range(count):
            x = np.int32(row[t] + pen[t])
            generic = x if x < generic else generic
    if generic < HALF:
        best = min(best, generic + np.int64(E[MM_INTERIOR + (tp * 5 + si) * 5 + sj]))
    return best


@njit(cache=True, nogil=True)
def _fill_tile(E, lxc, S, no_lp, c, fm, m2, ti, tj, tile):
    """Fill tile (ti, tj) of the tables (rows ti * tile.., columns tj * tile..); every tile of an
    earlier tile-diagonal is final.

    First the bulk of M2 (k in [r1 - 1, c0 - 1]: FML(i, k) in tiles left of this one, FML(k + 1, j) in
    tiles below) as row broadcasts; then the cells bottom-up, left to right, each adding the splits k
    inside this tile's rows or columns, then C, CC (no_lp), FML.
    """
    n = S.shape[0]
    r0 = ti * tile
    r1 = min(n, r0 + tile)
    c0 = tj * tile
    c1 = min(n, c0 + tile)
    width = c1 - c0
    acc = np.empty((r1 - r0, width), dtype=np.int32)  # (np.full compiles slowly in Numba: loops instead)
    for r in range(r1 - r0):
        for jj in range(width):
            acc[r, jj] = INF
    if ti < tj:
        # two rows i and four splits k at a time, so that each row of FML(k + 1, c0:c1) is loaded once
        # for both rows and each accumulator once for four k (measured 2.1x faster than one of each)
        for i in range(r0, r1, 2):
            e = min(i + 1, r1 - 1)  # the second row (the first again when the tile has an odd row left)
            out0 = acc[i - r0]
            out1 = acc[e - r0]
            m = r1
            while m + 4 <= c0 + 1:
                a0 = fm[i, m - 1]
                a1 = fm[i, m]
                a2 = fm[i, m + 1]
                a3 = fm[i, m + 2]
                e0 = fm[e, m - 1]
                e1 = fm[e, m]
                e2 = fm[e, m + 1]
                e3 = fm[e, m + 2]
                b0 = fm[m, c0:c1]
                b1 = fm[m + 1, c0:c1]
                b2 = fm[m + 2, c0:c1]
                b3 = fm[m + 3, c0:c1]
                for jj in range(width):
                    x0 = b0[jj]
                    x1 = b1[jj]
                    x2 = b2[jj]
                    x3 = b3[jj]
                    y = min(min(np.int32(a0 + x0), np.int32(a1 + x1)), min(np.int32(a2 + x2), np.int32(a3 + x3)))
                    out0[jj] = min(out0[jj], y)
                    z = min(min(np.int32(e0 + x0), np.int32(e1 + x1)), min(np.int32(e2 + x2), np.int32(e3 + x3)))
                    out1[jj] = min(out1[jj], z)
                m += 4
            while m <= c0:
                a0 = fm[i, m - 1]
                e0 = fm[e, m - 1]
                b0 = fm[m, c0:c1]
                for jj in range(width):
                    out0[jj] = min(out0[jj], np.int32(a0 + b0[jj]))
                    out1[jj] = min(out1[jj], np.int32(e0 + b0[jj]))
                m += 1
    ml_base = np.int64(E[ML_BASE])
    for i in range(r1 - 1, r0 - 1, -1):
        for j in range(max(c0, i + 4), c1):
            # M2(i, j): the splits this tile holds, k in [i + 4, j - 5] minus the bulk's, read along row
            # i of FML and row j of its transposed copy (slices indexed from 0: LLVM vectorises them)
            split = acc[i - r0, j - c0]
            for part in range(2):
                if ti == tj:
                    k_lo = i + 4 if part == 0 else j
                    k_hi = j - 5
                elif part == 0:
                    k_lo = i + 4
                    k_hi = min(r1 - 2, j - 5)
                else:
                    k_lo = max(c0, i + 4)
                    k_hi = j - 5
                count = k_hi - k_lo + 1
                if count > 0:
                    a = fm[i, k_lo:k_lo + count]
                    b = fm[j, k_lo + 1:k_lo + 1 + count]
                    for t in range(count):
                        x = np.int32(a[t] + b[t])
                        split = x if x < split else split
            m2[i, j] = split if split < HALF else INF
            # C(i, j) (and CC(i, j) with no_lp)
            tp = np.int64(E[PAIR_TYPE + S[i] * 5 + S[j]])
            C = np.int64(INF)
            if tp:
                e = hairpin_energy(E, lxc, S, i, j, tp)
                e = min(e, _interior_min(E, lxc, S, c, i, j, tp))
                ml = np.int64(m2[i + 1, j - 1])  # M2 of the multiloop's inside
                if ml < INF:
                    e = min(e, ml + ml_stem_energy(E, RTYPE[tp], S[j - 1], S[i + 1]) + E[ML_CLOSING])
                if no_lp:
                    # ViennaRNA's noLP: C(i, j) = CC(i + 1, j - 1) + stack, so (i, j) stacks inward;
                    # CC(i, j), what a pair stacked on from outside may close, adds that case to e
                    stacked = np.int64(INF)
                    t_in = E[PAIR_TYPE + S[i + 1] * 5 + S[j - 1]]
                    if t_in and j - i >= 6 and m2[j - 1, i + 1] < INF:
                        stacked = np.int64(m2[j - 1, i + 1]) + E[STACK + tp * 8 + RTYPE[t_in]]
                    cc = min(e, stacked)
                    m2[j, i] = cc if cc < HALF else INF
                    C = stacked if stacked < HALF else INF
                else:
                    C = e if e < HALF else INF
            c[i, j] = C
            if C < INF and i > 0 and j < n - 1:
                c[j, i] = C + E[MM_INTERIOR + (RTYPE[tp] * 5 + S[j + 1]) * 5 + S[i - 1]]
            else:
                c[j, i] = INF
            # FML(i, j)
            v = np.int64(split)
            if C < INF:
                v = min(v, C + ml_stem_energy(E, tp, S[i - 1] if i > 0 else -1, S[j + 1] if j < n - 1 else -1))
            v = min(v, fm[i + 1, j] + ml_base)
            v = min(v, fm[i, j - 1] + ml_base)
            v = v if v < HALF else INF
            fm[i, j] = v
            fm[j, i] = v


@njit(cache=True, nogil=True)
def _exterior(E, S, c):
    """f[t] = the best energy of the prefix [0, t), each stem (k, j) taking its dangles-2 exterior
    energy. Pushed forward from each final f[k] along row k of C (contiguous)."""
    n = S.shape[0]
    f = np.empty(n + 1, dtype=np.int64)
    best_stem_end = np.empty(n + 1, dtype=np.int64)
    for t in range(n + 1):
        best_stem_end[t] = INF
    f[0] = 0
    for k in range(n):
        fk = f[k]
        s5 = S[k - 1] if k > 0 else -1
        row = c[k]
        for j in range(k + 4, n):
            v = row[j]
            if v < INF:
                s3 = S[j + 1] if j < n - 1 else -1
                e = fk + v + ext_stem_energy(E, np.int64(E[PAIR_TYPE + S[k] * 5 + S[j]]), s5, s3)
                if e < best_stem_end[j + 1]:
                    best_stem_end[j + 1] = e
        f[k + 1] = min(f[k], best_stem_end[k + 1])
    return f


@njit(cache=True, nogil=True)
def _traceback(E, lxc, S, no_lp, c, fm, m2, f):
    """One optimal structure (pair_to, int64, -1 unpaired) by the tie-break of docs/turner.md;
    pair_to[0] = -2 if some value is reproduced by no case (a corrupt table).

    Exterior loop, from the 3' end: j unpaired if f keeps its value, else the stem (k, j) with the
    smallest k. A pair (i, j): the hairpin, then the interior loops by p ascending then q descending,
    then the multiloop with the smallest split (with no_lp: C(i, j) is always the stack on (i + 1, j - 1),
    and CC tries those cases before that stack). FML(i, j): the stem (i, j), then i unpaired, then j
    unpaired, then the smallest split.
    """
    n = S.shape[0]
    pair_to = np.empty(n, dtype=np.int64)
    for k in range(n):
        pair_to[k] = -1
    stack = np.empty((2 * n + 4, 3), dtype=np.int64)
    top = 0
    t = n
    while t > 0:
        if f[t] == f[t - 1]:
            t -= 1
            continue
        j = t - 1
        k = 0
        while k <= j - 4:
            v = c[k, j]
            if v < INF:
                s5 = S[k - 1] if k > 0 else -1
                s3 = S[j + 1] if j < n - 1 else -1
                if f[k] + v + ext_stem_energy(E, np.int64(E[PAIR_TYPE + S[k] * 5 + S[j]]), s5, s3) == f[t]:
                    break
            k += 1
        if k > j - 4:
            pair_to[0] = -2
            return pair_to
        stack[top, 0] = _PAIR
        stack[top, 1] = k
        stack[top, 2] = j
        top += 1
        t = k
    while top > 0:
        top -= 1
        kind = stack[top, 0]
        i = stack[top, 1]
        j = stack[top, 2]
        tp = np.int64(E[PAIR_TYPE + S[i] * 5 + S[j]])
        if kind == _MULTI:
            v = fm[i, j]
            if c[i, j] < INF and np.int64(c[i, j]) + ml_stem_energy(
                    E, tp, S[i - 1] if i > 0 else -1, S[j + 1] if j < n - 1 else -1) == v:
                stack[top, 0] = _PAIR
                top += 1
            elif fm[i + 1, j] + np.int64(E[ML_BASE]) == v:
                stack[top, 1] = i + 1
                top += 1
            elif fm[i, j - 1] + np.int64(E[ML_BASE]) == v:
                stack[top, 2] = j - 1
                top += 1
            else:
                k = i + 4
                while k <= j - 5 and np.int64(fm[i, k]) + fm[k + 1, j] != v:
                    k += 1
                if k > j - 5:
                    pair_to[0] = -2
                    return pair_to
                stack[top, 0] = _MULTI
                stack[top, 1] = k + 1
                stack[top, 2] = j
                stack[top + 1, 0] = _MULTI
                stack[top + 1, 1] = i
                stack[top + 1, 2] = k
                top += 2
            continue
        pair_to[i] = j
        pair_to[j] = i
        if kind == _PAIR and no_lp:  # C(i, j) = CC(i + 1, j - 1) + stack
            stack[top, 0] = _PAIR_STACKED
            stack[top, 1] = i + 1
            stack[top, 2] = j - 1
            top += 1
            continue
        target = np.int64(c[i, j]) if kind == _PAIR else np.int64(m2[j, i])
        # the loop closed by (i, j): hairpin, interior loops, multiloop
        if hairpin_energy(E, lxc, S, i, j, tp) == target:
            continue
        found = False
        umax = min(MAX_LOOP, j - i - 6)
        for u1 in range(0, umax + 1):
            p = i + 1 + u1
            for u2 in range(0, umax - u1 + 1):
                q = j - 1 - u2
                v = c[p, q]
                if v < INF and v + interior_energy(
                        E, lxc, S, i, j, p, q, tp, RTYPE[E[PAIR_TYPE + S[p] * 5 + S[q]]]) == target:
                    stack[top, 0] = _PAIR
                    stack[top, 1] = p
                    stack[top, 2] = q
                    top += 1
                    found = True
                    break
            if found:
                break
        if found:
            continue
        closing = ml_stem_energy(E, RTYPE[tp], S[j - 1], S[i + 1]) + E[ML_CLOSING]
        for k in range(i + 5, j - 5):
            if np.int64(fm[i + 1, k]) + fm[k + 1, j - 1] + closing == target:
                stack[top, 0] = _MULTI
                stack[top, 1] = k + 1
                stack[top, 2] = j - 1
                stack[top + 1, 0] = _MULTI
                stack[top + 1, 1] = i + 1
                stack[top + 1, 2] = k
                top += 2
                found = True
                break
        if found:
            continue
        if kind == _PAIR_STACKED:  # CC(i, j) = CC(i + 1, j - 1) + stack: the helix goes on
            t_in = E[PAIR_TYPE + S[i + 1] * 5 + S[j - 1]]
            if t_in and j - i >= 6 and m2[j - 1, i + 1] < INF and \
                    np.int64(m2[j - 1, i + 1]) + E[STACK + tp * 8 + RTYPE[t_in]] == target:
                stack[top, 0] = _PAIR_STACKED
                stack[top, 1] = i + 1
                stack[top, 2] = j - 1
                top += 1
                continue
        pair_to[0] = -2
        return pair_to
    return pair_to


@njit(cache=True, nogil=True, parallel=True)
def _parallel(E, lxc, no_lp, S_all, starts, worker_start, worker_items, tile, diag, c, fm, m2, energies,
              pair_to_all):
    """The one parallel kernel (one, because each compiles everything it calls over again). Worker w
    takes the items worker_items[worker_start[w]:worker_start[w + 1]]:

    - ``diag >= 0``: item t is tile (t, t + diag) of the one sequence S_all, in the tables c, fm, m2;
    - ``diag < 0``: item s is sequence s, S_all[starts[s]:starts[s + 1]], folded whole on this core in
      tables of its own: its energy to energies[s], its structure to pair_to_all.
    """
    for w in prange(worker_start.shape[0] - 1):
        for q in range(worker_start[w], worker_start[w + 1]):
            item = worker_items[q]
            if diag >= 0:
                _fill_tile(E, lxc, S_all[starts[0]:starts[1]], no_lp, c, fm, m2, item, item + diag, tile)
                continue
            lo = starts[item]
            n = starts[item + 1] - lo
            if n == 0:
                continue
            S = S_all[lo:lo + n]
            cs = np.empty((n, n), dtype=np.int32)
            fms = np.empty((n, n), dtype=np.int32)
            m2s = np.empty((n, n), dtype=np.int32)
            for i in range(n):
                for j in range(n):
                    cs[i, j] = INF
                    fms[i, j] = INF
                    m2s[i, j] = INF
            tiles = (n + tile - 1) // tile
            for d in range(tiles):
                for t in range(tiles - d):
                    _fill_tile(E, lxc, S, no_lp, cs, fms, m2s, t, t + d, tile)
            f = _exterior(E, S, cs)
            energies[item] = f[n]
            pair_to_all[lo:lo + n] = _traceback(E, lxc, S, no_lp, cs, fms, m2s, f)


def table_bytes(n):
    """Memory the fill of an n-long sequence takes: three n x n int32 tables."""
    return 3 * 4 * n * n


def _check_traced(pair_to, what):
    if len(pair_to) and pair_to[0] == -2:
        raise InternalError(f"the traceback of {what} found a value no case of the recurrence reproduces")
    return pair_to


def _check_length(n, what):
    if n > MAX_LENGTH:
        raise InvalidParameter(f"{what} has {n:,} bases; the fold accepts at most {MAX_LENGTH:,} (its int32 "
                               "tables keep every energy far from their infinity up to there)")


def _check_tile(tile):
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or tile < 1:
        raise InvalidParameter(f"tile must be a whole number >= 1, got {tile!r}")
    return int(tile)


_NO_TABLE = np.zeros((0, 0), dtype=np.int32)
_NO_ENERGY = np.zeros(0, dtype=np.int64)
_NO_PAIRS = np.zeros(0, dtype=np.int64)


def mfe(codes, model=None, *, tile=TILE, parallel=None):
    """Minimum free energy (int, dcal/mol) and one optimal structure (``pair_to``, int64: the partner of
    each position, -1 when unpaired) of one sequence of bioaccel.inputs.alphabet codes.

    ``parallel``: None (default) spreads each tile-diagonal's tiles over the cores for sequences of
    PARALLEL_LENGTH or more; True or False forces it. The result does not depend on it, nor on ``tile``.

    >>> from bioaccel.inputs.alphabet import encode
    >>> energy, pair_to = mfe(encode("GGGGAAACCCC"))
    >>> energy, pair_to.tolist()
    (-450, [10, 9, 8, 7, -1, -1, -1, 3, 2, 1, 0])
    >>> mfe(encode(""))[0], mfe(encode("GGGGAAACCCCA"), TurnerModel(no_gu=True), tile=3)[0]
    (0, -620)
    """
    model = TurnerModel() if model is None else model
    tile = _check_tile(tile)
    S = np.ascontiguousarray(table_codes(codes))
    n = S.shape[0]
    if n == 0:
        return 0, np.zeros(0, dtype=np.int64)
    _check_length(n, "the sequence")
    require_memory(table_bytes(n), f"folding a sequence of length {n:,} with the Turner model",
                   "fold shorter sequences (or fewer at a time)")
    E, lxc = model.kernel_tables()
    no_lp = model.no_lp
    c = np.full((n, n), INF, dtype=np.int32)
    fm = np.full((n, n), INF, dtype=np.int32)
    m2 = np.full((n, n), INF, dtype=np.int32)
    tiles = (n + tile - 1) // tile
    if parallel is None:
        parallel = n >= PARALLEL_LENGTH and get_num_threads() > 1
    starts = np.array([0, n], dtype=np.int64)
    for d in range(tiles):
        if parallel:
            workers = max(1, min(get_num_threads(), tiles - d))
            worker_start = np.linspace(0, tiles - d, workers + 1).round().astype(np.int64)
            _parallel(E, lxc, no_lp, S, starts, worker_start, np.arange(tiles - d, dtype=np.int64), tile, d,
                      c, fm, m2, _NO_ENERGY, _NO_PAIRS)
        else:
            for t in range(tiles - d):
                _fill_tile(E, lxc, S, no_lp, c, fm, m2, t, t + d, tile)
    f = _exterior(E, S, c)
    pair_to = _traceback(E, lxc, S, no_lp, c, fm, m2, f)
    return int(f[n]), _check_traced(pair_to, f"a sequence of length {n:,}")


def _deal(lengths, workers):
    """``(worker_start, worker_items)``: longest first onto the least loaded core (cost n^3).

    >>> start, items = _deal(np.array([5, 1, 9, 3]), 2)
    >>> [items[start[w]:start[w + 1]].tolist() for w in range(2)]
    [[2], [0, 3, 1]]
    """
    loads = [(0, w) for w in range(workers)]
    assigned = [[] for _ in range(workers)]
    for s in np.argsort(-lengths, kind="stable").tolist():
        load, w = heapq.heappop(loads)
        assigned[w].append(s)
        heapq.heappush(loads, (load + int(lengths[s]) ** 3 + 1, w))
    worker_start = np.zeros(workers + 1, dtype=np.int64)
    worker_start[1:] = np.cumsum([len(a) for a in assigned])
    items = np.array([s for a in assigned for s in a], dtype=np.int64)
    return worker_start, items


def mfe_many(codes_list, model=None, *, tile=TILE):
    """Fold many (short) sequences, each whole on one core, the cores balanced by cost (n^3).

    Returns a list of ``(energy, pair_to)`` in input order, as :func:`mfe` gives for each.

    >>> from bioaccel.inputs.alphabet import encode
    >>> [e for e, _ in mfe_many([encode("GGGGAAACCCC"), encode(""), encode("A")])]
    [-450, 0, 0]
    """
    model = TurnerModel() if model is None else model
    tile = _check_tile(tile)
    encoded = [np.asarray(table_codes(codes)) for codes in codes_list]
    lengths = np.array([len(s) for s in encoded], dtype=np.int64)
    if len(encoded) == 0:
        return []
    _check_length(int(lengths.max()), f"sequence {int(np.argmax(lengths)) + 1} of the batch")
    workers = max(1, min(get_num_threads(), len(encoded)))
    worker_start, worker_items = _deal(lengths, workers)
    busiest = sorted(lengths.tolist(), reverse=True)[:workers]
    require_memory(sum(table_bytes(n) for n in busiest),
                   f"folding {len(encoded):,} sequences ({workers} at a time, the longest {int(lengths.max()):,}) "
                   "with the Turner model", "fold shorter sequences (or fewer at a time)")
    starts = np.zeros(len(encoded) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    S_all = np.concatenate(encoded) if lengths.sum() else np.zeros(0, dtype=np.int64)
    energies = np.zeros(len(encoded), dtype=np.int64)
    pair_to_all = np.full(S_all.shape[0], -1, dtype=np.int64)
    E, lxc = model.kernel_tables()
    _parallel(E, lxc, model.no_lp, S_all, starts, worker_start, worker_items, tile, -1, _NO_TABLE, _NO_TABLE,
              _NO_TABLE, energies, pair_to_all)
    results = []
    for s in range(len(encoded)):
        pair_to = pair_to_all[starts[s]:starts[s + 1]].copy()
        results.append((int(energies[s]), _check_traced(pair_to, f"sequence {s + 1} of the batch")))
    return results
