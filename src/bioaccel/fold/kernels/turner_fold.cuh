// One sequence's Turner fill, exterior loop and traceback: the recurrences and tie-break of
// docs/turner.md and bioaccel/fold/_turner_fill.py / _turner_traceback.py, so that every table value,
// the energy and the structure equal the CPU's. turner_batch.cu decides which thread runs which cell;
// this file is per-cell code (the host check builds it without CUDA: first_true then runs serially).
//
// Tables, diagonal-major (cell(n, i, j) = (j - i) * n + i, turner_energy.cuh): c = C, cm = C + the inner
// mismatch of (i, j) seen from outside, fm = FML, cc = CC (no_lp only: (i, j) stacked on from outside).
// M2 is read one cell later only as M2(i + 1, j - 1): it lives in a ring of three diagonals (m2).
#pragma once
#include "turner_energy.cuh"

namespace turner {

struct Tables {
    int* c;
    int* cm;
    int* fm;
    int* cc;   // no_lp only
    int* m2;   // 3 x n: M2 of diagonal d at (d % 3) * n
    int* stk;  // traceback stack: 2n + 4 entries of 3
};

// Cell (i, i + d): every cell of the diagonals below d is final. Writes each of its entries (c, cm, fm,
// the M2 ring, cc with no_lp), so the tables need no initialisation.
TDEV void fill_cell(const Ctx& x, const Tables& t, bool no_lp, int i, int d) {
    const int n = x.n, j = i + d, at = d * n + i;
    const unsigned char* S = x.S;
    int* m2_out = t.m2 + (d % 3) * n;
    if (d < 4) {  // no pair, no FML, no M2 (the hairpin needs 3 unpaired bases)
        t.c[at] = INF; t.cm[at] = INF; t.fm[at] = INF; m2_out[i] = INF;
        if (no_lp) t.cc[at] = INF;
        return;
    }
    // M2(i, j) = min_k FML(i, k) + FML(k + 1, j), k = i + 4 .. j - 5: FML(i, k) one diagonal up per k
    // (n words on), FML(k + 1, j) one down and one right (n - 1 back); coalesced across the warp. Two
    // accumulators and an unrolled loop keep several loads in flight.
    int s0 = INF, s1 = INF;
    {
        const int* a = t.fm + 4 * n + i;            // FML(i, i + 4)
        const int* b = t.fm + (d - 5) * n + i + 5;  // FML(i + 5, j)
        const int count = d - 8, up = n, down = n - 1;
        int k = 0;
#pragma unroll 2
        for (; k + 2 <= count; k += 2) {
            s0 = __viaddmin_s32(a[0], b[0], s0);
            s1 = __viaddmin_s32(a[up], b[-down], s1);
            a += 2 * up;
            b -= 2 * down;
        }
        if (k < count) s0 = __viaddmin_s32(a[0], b[0], s0);
    }
    const int split = imin(s0, s1);
    m2_out[i] = split < HALF ? split : INF;
    // C(i, j), and CC(i, j) with no_lp
    const int tp = ptype(x, S[i], S[j]);
    int C = INF, cc = INF;
    if (tp) {
        int e = imin(hairpin_energy(x, i, j, tp), interior_min<1>(x, DiagLayout{n}, t.c, t.cm, i, j, tp, 0));
        const int ml = t.m2[((d - 2) % 3) * n + i + 1];  // M2(i + 1, j - 1), the multiloop's inside
        if (ml < INF) e = imin(e, ml + ml_stem(x, rtype(tp), S[j - 1], S[i + 1]) + lt(x, ML_CLOSING));
        if (no_lp) {
            // ViennaRNA's noLP: C(i, j) = CC(i + 1, j - 1) + stack; CC adds that case to the loops
            int stacked = INF;
            const int t_in = ptype(x, S[i + 1], S[j - 1]);
            const int inner = t.cc[(d - 2) * n + i + 1];
            if (t_in && d >= 6 && inner < INF) stacked = inner + ld(x, STACK + tp * 8 + rtype(t_in));
            const int best = imin(e, stacked);
            cc = best < HALF ? best : INF;
            C = stacked < HALF ? stacked : INF;
        } else {
            C = e < HALF ? e : INF;
        }
    }
    if (no_lp) t.cc[at] = cc;
    t.c[at] = C;
    t.cm[at] = (C < INF && i > 0 && j < n - 1)
                   ? C + ld(x, MM_INTERIOR + (rtype(tp) * 5 + S[j + 1]) * 5 + S[i - 1]) : INF;
    // FML(i, j): two stems or more, the stem (i, j), or an unpaired end (DPX three-way min)
    int v = split;
    if (C < INF) v = imin(v, C + ml_stem(x, tp, i > 0 ? S[i - 1] : -1, j < n - 1 ? S[j + 1] : -1));
    const int ml_base = lt(x, ML_BASE);
    const int* prev = t.fm + (d - 1) * n;  // FML(i + 1, j) and FML(i, j - 1)
    v = __vimin3_s32(v, prev[i + 1] + ml_base, prev[i] + ml_base);
    t.fm[at] = v < HALF ? v : INF;
}

// The exterior loop, pulled: f(t) = min(f(t - 1), min_k f(k) + C(k, t - 1) + its exterior stem). This is
// one lane's part of the inner minimum (k = lane, lane + lanes, ...); INF when it has none.
template <class L>
TDEV int exterior_part(const Ctx& x, const L& lay, const int* c, const int* f, int t, int lane, int lanes) {
    const int n = x.n, j = t - 1;
    const unsigned char* S = x.S;
    int best = INF;
    for (int k = lane; k <= j - 4; k += lanes) {
        const int v = c[lay.up(k, j)];
        if (v < INF) {
            const int e = f[k] + v + ext_stem(x, ptype(x, S[k], S[j]), k > 0 ? S[k - 1] : -1, j < n - 1 ? S[j + 1] : -1);
            best = imin(best, e);
        }
    }
    return best;
}

// The smallest k in [0, count) with pred(k), or -1: the traceback's searches in the CPU's order. On the
// device one warp runs the traceback, every lane with the same state: each round tests 32 candidates and
// a ballot takes the first, so the tie-break is the serial one's.
#ifdef TURNER_HOST
template <class Pred>
inline int first_true(int count, Pred pred) {
    for (int k = 0; k < count; ++k)
        if (pred(k)) return k;
    return -1;
}
#else
template <class Pred>
__device__ __forceinline__ int first_true(int count, Pred pred) {
    const int lane = threadIdx.x & 31;
    for (int base = 0; base < count; base += 32) {
        const int k = base + lane;
        const unsigned hit = __ballot_sync(0xffffffffu, k < count && pred(k));
        if (hit) return base + __ffs(hit) - 1;
    }
    return -1;
}
#endif

constexpr int PAIR = 0, PAIR_STACKED = 1, MULTI = 2;  // traceback stack entries

// Lane 0 writes; the warp meets before (no lane still reads the old entry) and after (all see the new).
TDEV void push(int* stk, int& top, bool writer, int kind, int i, int j) {
    __syncwarp();
    if (writer) { stk[3 * top] = kind; stk[3 * top + 1] = i; stk[3 * top + 2] = j; }
    __syncwarp();
    ++top;
}

// One optimal structure into pair_to (preset to -1), by the CPU's tie-break (_turner_traceback):
// exterior stems from the 3' end with the smallest k; a pair: hairpin, interior loops by p ascending
// then q descending, multiloop by the smallest split (no_lp: C is the stack on CC(i+1, j-1), CC tries
// the loops first, then that stack); FML: the stem, i unpaired, j unpaired, the smallest split.
// Run by all 32 lanes of a warp in step (lane 0 writes); false if some value is reproduced by no case.
// Tables at the layout L's places (the batch's DiagLayout; the tiled fill's RowLayout, whose CC is the
// lower triangle of its M2 table: tb.cc = that table).
template <class L>
TCOLD bool traceback(const Ctx& x, const L& lay, const Tables& tb, const int* f, bool no_lp, int* pair_to,
                     bool writer) {
    const int n = x.n;
    const unsigned char* S = x.S;
    const int* c = tb.c;
    const int* fm = tb.fm;
    int* stk = tb.stk;
    const int ml_base = lt(x, ML_BASE);
    int top = 0;
    int t = n;
    while (t > 0) {
        if (f[t] == f[t - 1]) { --t; continue; }
        const int j = t - 1, target = f[t], s3 = j < n - 1 ? S[j + 1] : -1;
        const int k = first_true(j - 3, [&](int u) {
            const int v = c[lay.up(u, j)];
            return v < INF && f[u] + v + ext_stem(x, ptype(x, S[u], S[j]), u > 0 ? S[u - 1] : -1, s3) == target;
        });
        if (k < 0) return false;
        push(stk, top, writer, PAIR, k, j);
        t = k;
    }
    while (top > 0) {
        --top;
        const int kind = stk[3 * top], i = stk[3 * top + 1], j = stk[3 * top + 2];
        const int tp = ptype(x, S[i], S[j]);
        if (kind == MULTI) {
            const int v = fm[lay.up(i, j)];
            const int cij = c[lay.up(i, j)];
            if (cij < INF && cij + ml_stem(x, tp, i > 0 ? S[i - 1] : -1, j < n - 1 ? S[j + 1] : -1) == v) {
                push(stk, top, writer, PAIR, i, j);
            } else if (fm[lay.up(i + 1, j)] + ml_base == v) {
                push(stk, top, writer, MULTI, i + 1, j);
            } else if (fm[lay.up(i, j - 1)] + ml_base == v) {
                push(stk, top, writer, MULTI, i, j - 1);
            } else {
                const int k = i + 4 + first_true(j - i - 8, [&](int u) {
                    return fm[lay.up(i, i + 4 + u)] + fm[lay.up(i + 5 + u, j)] == v;
                });
                if (k < i + 4) return false;
                push(stk, top, writer, MULTI, k + 1, j);
                push(stk, top, writer, MULTI, i, k);
            }
            continue;
        }
        if (writer) { pair_to[i] = j; pair_to[j] = i; }
        if (kind == PAIR && no_lp) {  // C(i, j) = CC(i + 1, j - 1) + stack
            push(stk, top, writer, PAIR_STACKED, i + 1, j - 1);
            continue;
        }
        const int target = kind == PAIR ? c[lay.up(i, j)] : tb.cc[lay.low(i, j)];
        if (hairpin_energy(x, i, j, tp) == target) continue;
        const int umax = imin(MAX_LOOP, j - i - 6);
        bool found = false;
        for (int u1 = 0; u1 <= umax && !found; ++u1) {
            const int p = i + 1 + u1;
            const int u2 = first_true(umax - u1 + 1, [&](int w) {
                const int q = j - 1 - w;
                const int v = c[lay.up(p, q)];
                return v < INF && v + interior_energy(x, i, j, p, q, tp, rtype(ptype(x, S[p], S[q]))) == target;
            });
            if (u2 >= 0) {
                push(stk, top, writer, PAIR, p, j - 1 - u2);
                found = true;
            }
        }
        if (found) continue;
        const int closing = ml_stem(x, rtype(tp), S[j - 1], S[i + 1]) + lt(x, ML_CLOSING);
        const int k = i + 5 + first_true(j - i - 10, [&](int u) {
            return fm[lay.up(i + 1, i + 5 + u)] + fm[lay.up(i + 6 + u, j - 1)] + closing == target;
        });
        if (k >= i + 5) {
            push(stk, top, writer, MULTI, k + 1, j - 1);
            push(stk, top, writer, MULTI, i + 1, k);
            continue;
        }
        if (kind == PAIR_STACKED) {  // CC(i, j) = CC(i + 1, j - 1) + stack: the helix goes on
            const int t_in = ptype(x, S[i + 1], S[j - 1]);
            const int inner = tb.cc[lay.low(i + 1, j - 1)];
            if (t_in && j - i >= 6 && inner < INF && inner + ld(x, STACK + tp * 8 + rtype(t_in)) == target) {
                push(stk, top, writer, PAIR_STACKED, i + 1, j - 1);
                continue;
            }
        }
        return false;
    }
    return true;
}

}  // namespace turner
