// The per-cell code of the tiled Turner fill of one long RNA (turner_tiled.cu decides who runs what):
// the CPU's fill_tile cell update (bioaccel/fold/_turner_fill.py) on the CPU's row-major tables, term for
// term, so that every table value equals the CPU's; and the exterior loop's pushes. Built by NVRTC for
// the GPU and (TURNER_HOST) by a C++ compiler for the host check of tests/test_turner_tiled_host.py.
//
// Tables (RowLayout, n x n int32 each, INF where the fill never writes, as on the CPU):
//   c[i][j]  = C(i, j)      c[j][i]  = C(i, j) + the inner mismatch of (i, j) seen from outside
//   fm[i][j] = FML(i, j)    fm[j][i] = FML(i, j)
//   m2[i][j] = M2(i, j)     m2[j][i] = CC(i, j) (no_lp only)
#pragma once
#include "turner_fold.cuh"

namespace turner {

// The minimum of part(l) over the LANES lanes l that share a cell (consecutive threads of a warp, lane
// this thread's): on the device each lane computes its own part and a butterfly of shuffles meets them;
// the host build (one "thread" a cell) computes every lane's part in turn.
#ifdef TURNER_HOST
template <int LANES, class F>
inline int lanes_min(F part, int) {
    int v = part(0);
    for (int l = 1; l < LANES; ++l) v = imin(v, part(l));
    return v;
}
#else
template <int LANES, class F>
__device__ __forceinline__ int lanes_min(F part, int lane) {
    static_assert(LANES >= 1 && LANES <= 16 && (LANES & (LANES - 1)) == 0, "LANES: a power of two up to 16");
    int v = part(lane);
    if (LANES > 1) {
        const unsigned mask = ((1u << LANES) - 1) << ((threadIdx.x & 31) & ~(LANES - 1));
#pragma unroll
        for (int o = LANES / 2; o; o >>= 1) v = imin(v, __shfl_xor_sync(mask, v, o));
    }
    return v;
}
#endif

// Cell (i, j) of tile (I, J), rows [r0, r1), columns [c0, c1); `bulk` is the part of M2(i, j) over the
// splits k in [r1 - 1, c0 - 1] (the min-plus product of finished tiles; INF on the diagonal tiles). The
// cells of the tile this one reads are final: (i + 1, j), (i, j - 1) and every inner pair (the
// wavefront's order, as the CPU's bottom-up, left-to-right one). LANES threads share the cell (`lane`
// is this one's): each takes every LANES-th split and interior candidate, and lane 0 writes.
template <int LANES>
TDEV void tiled_cell(const Ctx& x, const RowLayout& L, bool no_lp, int* c, int* fm, int* m2, int i, int j,
                     int r1, int c0, bool diagonal, int bulk, int lane) {
    const int n = x.n;
    const unsigned char* S = x.S;
    const bool writer = lane == 0;
    // M2(i, j): the splits this tile holds, k in [i + 4, j - 5] minus the bulk's, along row i of FML and
    // row j of its transposed copy
    const int split = lanes_min<LANES>([&](int l) {
        int s0 = bulk, s1 = INF;
        for (int part = 0; part < 2; ++part) {
            int k_lo, k_hi;
            if (diagonal) {
                k_lo = part == 0 ? i + 4 : j;
                k_hi = j - 5;
            } else if (part == 0) {
                k_lo = i + 4;
                k_hi = imin(r1 - 2, j - 5);
            } else {
                k_lo = imax(c0, i + 4);
                k_hi = j - 5;
            }
            const int* a = fm + L.up(i, k_lo);       // FML(i, k)
            const int* b = fm + L.low(k_lo + 1, j);  // FML(k + 1, j)
            const int count = k_hi - k_lo + 1;
            int t = l;
#pragma unroll 4
            for (; t + LANES < count; t += 2 * LANES) {
                s0 = __viaddmin_s32(a[t], b[t], s0);
                s1 = __viaddmin_s32(a[t + LANES], b[t + LANES], s1);
            }
            if (t < count) s0 = __viaddmin_s32(a[t], b[t], s0);
        }
        return imin(s0, s1);
    }, lane);
    if (writer) m2[L.up(i, j)] = split < HALF ? split : INF;
    // C(i, j), and CC(i, j) with no_lp
    const int tp = ptype(x, S[i], S[j]);
    int C = INF;
    if (tp) {
        int e = imin(hairpin_energy(x, i, j, tp),
                     lanes_min<LANES>([&](int l) { return interior_min<LANES>(x, L, c, c, i, j, tp, l); }, lane));
        const int ml = m2[L.up(i + 1, j - 1)];  // M2 of the multiloop's inside
        if (ml < INF) e = imin(e, ml + ml_stem(x, rtype(tp), S[j - 1], S[i + 1]) + lt(x, ML_CLOSING));
        if (no_lp) {
            // ViennaRNA's noLP: C(i, j) = CC(i + 1, j - 1) + stack; CC adds that case to the loops
            int stacked = INF;
            const int t_in = ptype(x, S[i + 1], S[j - 1]);
            const int inner = m2[L.low(i + 1, j - 1)];
            if (t_in && j - i >= 6 && inner < INF) stacked = inner + ld(x, STACK + tp * 8 + rtype(t_in));
            const int best = imin(e, stacked);
            if (writer) m2[L.low(i, j)] = best < HALF ? best : INF;
            C = stacked < HALF ? stacked : INF;
        } else {
            C = e < HALF ? e : INF;
        }
    }
    if (!writer) return;
    c[L.up(i, j)] = C;
    c[L.low(i, j)] = (C < INF && i > 0 && j < n - 1)
                         ? C + ld(x, MM_INTERIOR + (rtype(tp) * 5 + S[j + 1]) * 5 + S[i - 1]) : INF;
    // FML(i, j): two stems or more, the stem (i, j), or an unpaired end
    int v = split;
    if (C < INF) v = imin(v, C + ml_stem(x, tp, i > 0 ? S[i - 1] : -1, j < n - 1 ? S[j + 1] : -1));
    const int ml_base = lt(x, ML_BASE);
    v = __vimin3_s32(v, fm[L.up(i + 1, j)] + ml_base, fm[L.up(i, j - 1)] + ml_base);
    v = v < HALF ? v : INF;
    fm[L.up(i, j)] = v;
    fm[L.low(i, j)] = v;
}

// The exterior loop's stem (k, j) from f(k): f(k) + C(k, j) + its exterior stem energy, or INF.
TDEV int exterior_stem(const Ctx& x, const RowLayout& L, const int* c, int fk, int k, int j) {
    const int v = c[L.up(k, j)];
    if (v >= INF) return INF;
    const unsigned char* S = x.S;
    return fk + v + ext_stem(x, ptype(x, S[k], S[j]), k > 0 ? S[k - 1] : -1, j < x.n - 1 ? S[j + 1] : -1);
}

}  // namespace turner
