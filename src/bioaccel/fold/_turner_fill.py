"""The fill of the Turner 2004 minimum free energy tables on the CPU (Zuker's algorithm with ViennaRNA's
default model), with Numba: one tile of the tables (:func:`fill_tile`) and the exterior loop
(:func:`exterior`). :mod:`._turner_traceback` reads one optimal structure back from the tables and
:mod:`._turner_cpu` drives both, for one long sequence or many short ones.

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
"impossible" (_turner_tables.INFINITE). A sum involving INF may come out a little below it (INF plus a
negative energy), so every value is stored exactly INF when it is at or above HALF = INF // 2, far above
any real energy; two stored values add up within int32.
"""
import numpy as np
from numba import njit

from ._tiled_cpu import tile_span
from ._turner_energy import RTYPE, ext_stem_energy, hairpin_energy, interior_energy, ml_stem_energy
from ._turner_tables import (BULGE, GENERIC, MAX_LOOP, ML_BASE, ML_CLOSING, MM_1N, MM_INTERIOR, ONE_N, PAIR_TYPE,
                            STACK, TERMINAL_AU)
from ._turner_tables import INFINITE as INF

HALF = INF // 2

# (u1, u2) of the interior loops interior_min scores with interior_energy itself, by u1 + u2
_SMALL_LOOPS = np.array([(0, 0), (0, 1), (1, 0), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3), (3, 2)], dtype=np.int64)

# Compile time: Numba optimises a function together with every function it calls, again in each
# caller, so a deep chain of small kernels costs its bottom levels many times over (measured: each level
# above the loop energies added 2.5-3.3 s of LLVM time on this project's 2-core machine). The kernels are
# therefore few and flat (_fill_tile holds the whole cell update, _traceback the whole traceback), the
# ones only kernels call have no Python or C wrappers (1 s less on the first call), and
# Python calls them directly: one sequence is filled tile by tile, or tile-diagonal by tile-diagonal
# through the one parallel kernel (_parallel), which also folds batches.

@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def interior_min(E, lxc, S, c, i, j, tp):
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
def fill_tile(E, lxc, S, no_lp, c, fm, m2, ti, tj, tile):
    """Fill tile (ti, tj) of the tables (rows ti * tile.., columns tj * tile..); every tile of an
    earlier tile-diagonal is final.

    First the bulk of M2 (k in [r1 - 1, c0 - 1]: FML(i, k) in tiles left of this one, FML(k + 1, j) in
    tiles below) as row broadcasts; then the cells bottom-up, left to right, each adding the splits k
    inside this tile's rows or columns, then C, CC (no_lp), FML.
    """
    n = S.shape[0]
    r0, r1, c0, c1 = tile_span(n, tile, ti, tj)
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
                e = min(e, interior_min(E, lxc, S, c, i, j, tp))
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
def exterior(E, S, c):
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


