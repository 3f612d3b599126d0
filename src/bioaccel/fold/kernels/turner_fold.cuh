// One sequence's Turner fill, exterior loop and traceback, cell by cell: the recurrences, layout and
// tie-break of docs/turner.md and bioaccel/fold/_turner_cpu.py (_fill_tile, _exterior, _traceback), so
// that every table value, the energy and the structure equal the CPU's. turner_batch.cu decides which
// thread runs which cell; this file is plain per-cell code (the host check builds it without CUDA).
//
// Tables: three n x n int32 arrays with the CPU's layout, c (C, and C + inner mismatch below the
// diagonal), fm (FML and its transposed copy), m2 (M2, and CC below the diagonal with no_lp).
#pragma once
#include "turner_energy.cuh"

namespace turner {

// Cell (i, j), j - i = d: every cell of the diagonals below d is final. Writes all six entries of the
// cell (both triangles of c, fm, m2), so the tables need no initialisation.
TDEV void fill_cell(const Ctx& x, int* c, int* fm, int* m2, bool no_lp, int i, int j) {
    const int n = x.n;
    const unsigned char* S = x.S;
    const int up = i * n + j, down = j * n + i;
    if (j - i < 4) {  // no pair, no FML, no M2 (the hairpin needs 3 unpaired bases)
        c[up] = INF; c[down] = INF; fm[up] = INF; fm[down] = INF; m2[up] = INF; m2[down] = INF;
        return;
    }
    // M2(i, j) = min_k FML(i, k) + FML(k + 1, j): row i of fm, and row j of its transposed copy
    int split = INF;
    const int* a = fm + i * n;
    const int* b = fm + j * n + 1;
    for (int k = i + 4; k <= j - 5; ++k) split = __viaddmin_s32(a[k], b[k], split);
    m2[up] = split < HALF ? split : INF;
    // C(i, j), and CC(i, j) with no_lp
    const int tp = ptype(x, S[i], S[j]);
    int C = INF, cc = INF;
    if (tp) {
        int e = imin(hairpin_energy(x, i, j, tp), interior_min(x, c, i, j, tp));
        const int ml = m2[(i + 1) * n + j - 1];  // M2 of the multiloop's inside
        if (ml < INF) e = imin(e, ml + ml_stem(x, rtype(tp), S[j - 1], S[i + 1]) + ld(x, ML_CLOSING));
        if (no_lp) {
            // ViennaRNA's noLP: C(i, j) = CC(i + 1, j - 1) + stack; CC adds that case to the loops
            int stacked = INF;
            const int t_in = ptype(x, S[i + 1], S[j - 1]);
            const int inner = m2[(j - 1) * n + i + 1];
            if (t_in && j - i >= 6 && inner < INF) stacked = inner + ld(x, STACK + tp * 8 + rtype(t_in));
            const int best = imin(e, stacked);
            cc = best < HALF ? best : INF;
            C = stacked < HALF ? stacked : INF;
        } else {
            C = e < HALF ? e : INF;
        }
    }
    m2[down] = cc;
    c[up] = C;
    c[down] = (C < INF && i > 0 && j < n - 1)
                  ? C + ld(x, MM_INTERIOR + (rtype(tp) * 5 + S[j + 1]) * 5 + S[i - 1]) : INF;
    // FML(i, j): two stems or more, the stem (i, j), or an unpaired end (DPX three-way min)
    int v = split;
    if (C < INF) v = imin(v, C + ml_stem(x, tp, i > 0 ? S[i - 1] : -1, j < n - 1 ? S[j + 1] : -1));
    const int ml_base = ld(x, ML_BASE);
    v = __vimin3_s32(v, fm[(i + 1) * n + j] + ml_base, fm[i * n + j - 1] + ml_base);
    v = v < HALF ? v : INF;
    fm[up] = v;
    fm[down] = v;
}

// The exterior loop, pulled: f(t) = min(f(t - 1), min_k f(k) + C(k, t - 1) + its exterior stem). This is
// one lane's part of the inner minimum (k = lane, lane + lanes, ...); INF when it has none.
TDEV int exterior_part(const Ctx& x, const int* c, const int* f, int t, int lane, int lanes) {
    const int n = x.n, j = t - 1;
    const unsigned char* S = x.S;
    int best = INF;
    for (int k = lane; k <= j - 4; k += lanes) {
        const int v = c[k * n + j];
        if (v < INF) {
            const int e = f[k] + v + ext_stem(x, ptype(x, S[k], S[j]), k > 0 ? S[k - 1] : -1, j < n - 1 ? S[j + 1] : -1);
            best = imin(best, e);
        }
    }
    return best;
}

constexpr int PAIR = 0, PAIR_STACKED = 1, MULTI = 2;  // traceback stack entries

TDEV void push(int* stk, int& top, int kind, int i, int j) {
    stk[3 * top] = kind; stk[3 * top + 1] = i; stk[3 * top + 2] = j;
    ++top;
}

// One optimal structure into pair_to (preset to -1), by the CPU's tie-break (_turner_cpu._traceback):
// exterior stems from the 3' end with the smallest k; a pair: hairpin, interior loops by p ascending
// then q descending, multiloop by the smallest split (no_lp: C is the stack on CC(i+1, j-1), CC tries
// the loops first, then that stack); FML: the stem, i unpaired, j unpaired, the smallest split.
// stk holds 2n + 4 entries of 3 ints. False if some value is reproduced by no case (corrupt table).
TDEV bool traceback(const Ctx& x, const int* c, const int* fm, const int* m2, const int* f, bool no_lp,
                    int* pair_to, int* stk) {
    const int n = x.n;
    const unsigned char* S = x.S;
    const int ml_base = ld(x, ML_BASE);
    int top = 0;
    int t = n;
    while (t > 0) {
        if (f[t] == f[t - 1]) { --t; continue; }
        const int j = t - 1;
        int k = 0;
        for (; k <= j - 4; ++k) {
            const int v = c[k * n + j];
            if (v < INF && f[k] + v + ext_stem(x, ptype(x, S[k], S[j]), k > 0 ? S[k - 1] : -1,
                                                j < n - 1 ? S[j + 1] : -1) == f[t]) break;
        }
        if (k > j - 4) return false;
        push(stk, top, PAIR, k, j);
        t = k;
    }
    while (top > 0) {
        --top;
        const int kind = stk[3 * top], i = stk[3 * top + 1], j = stk[3 * top + 2];
        const int tp = ptype(x, S[i], S[j]);
        if (kind == MULTI) {
            const int v = fm[i * n + j];
            const int cij = c[i * n + j];
            if (cij < INF && cij + ml_stem(x, tp, i > 0 ? S[i - 1] : -1, j < n - 1 ? S[j + 1] : -1) == v) {
                push(stk, top, PAIR, i, j);
            } else if (fm[(i + 1) * n + j] + ml_base == v) {
                push(stk, top, MULTI, i + 1, j);
            } else if (fm[i * n + j - 1] + ml_base == v) {
                push(stk, top, MULTI, i, j - 1);
            } else {
                int k = i + 4;
                while (k <= j - 5 && fm[i * n + k] + fm[(k + 1) * n + j] != v) ++k;
                if (k > j - 5) return false;
                push(stk, top, MULTI, k + 1, j);
                push(stk, top, MULTI, i, k);
            }
            continue;
        }
        pair_to[i] = j;
        pair_to[j] = i;
        if (kind == PAIR && no_lp) {  // C(i, j) = CC(i + 1, j - 1) + stack
            push(stk, top, PAIR_STACKED, i + 1, j - 1);
            continue;
        }
        const int target = kind == PAIR ? c[i * n + j] : m2[j * n + i];
        if (hairpin_energy(x, i, j, tp) == target) continue;
        const int umax = imin(MAX_LOOP, j - i - 6);
        bool found = false;
        for (int u1 = 0; u1 <= umax && !found; ++u1) {
            const int p = i + 1 + u1;
            for (int u2 = 0; u2 <= umax - u1; ++u2) {
                const int q = j - 1 - u2;
                const int v = c[p * n + q];
                if (v < INF && v + interior_energy(x, i, j, p, q, tp, rtype(ptype(x, S[p], S[q]))) == target) {
                    push(stk, top, PAIR, p, q);
                    found = true;
                    break;
                }
            }
        }
        if (found) continue;
        const int closing = ml_stem(x, rtype(tp), S[j - 1], S[i + 1]) + ld(x, ML_CLOSING);
        for (int k = i + 5; k < j - 5; ++k) {
            if (fm[(i + 1) * n + k] + fm[(k + 1) * n + j - 1] + closing == target) {
                push(stk, top, MULTI, k + 1, j - 1);
                push(stk, top, MULTI, i + 1, k);
                found = true;
                break;
            }
        }
        if (found) continue;
        if (kind == PAIR_STACKED) {  // CC(i, j) = CC(i + 1, j - 1) + stack: the helix goes on
            const int t_in = ptype(x, S[i + 1], S[j - 1]);
            const int inner = m2[(j - 1) * n + i + 1];
            if (t_in && j - i >= 6 && inner < INF && inner + ld(x, STACK + tp * 8 + rtype(t_in)) == target) {
                push(stk, top, PAIR_STACKED, i + 1, j - 1);
                continue;
            }
        }
        return false;
    }
    return true;
}

}  // namespace turner
