// Turner 2004 loop energies on the device: the integer arithmetic of bioaccel/fold/_turner_energy.py and
// of _turner_cpu._interior_min, line for line, so that every cell of the GPU fill equals the CPU's.
//
// E is the flat int32 array of TurnerModel.kernel_tables() (copied to the device once per model); the
// offsets below are _turner_model's (tests/test_turner_gpu.py checks them against the Python ones).
// S holds a sequence in the tables' codes (N=0, A=1, C=2, G=3, U=4). Energies are int dcal/mol; INF is
// _turner_model.INFINITE. Two stored values add up within int32 (2 INF < 2^31), as on the CPU.
//
// Built twice: by NVRTC for the GPU, and (TURNER_HOST, no CUDA) by a C++ compiler for a host check of
// the same code against the CPU fill; the few device-only pieces have host stand-ins here.
#pragma once

#ifdef TURNER_HOST
#define TDEV inline
static inline int __vimin3_s32(int a, int b, int c) { int m = a < b ? a : b; return m < c ? m : c; }
static inline int __viaddmin_s32(int a, int b, int c) { int s = a + b; return s < c ? s : c; }
static inline int __ldg(const int* p) { return *p; }
static inline void __syncwarp() {}
#define TCOLD inline
#else
#define TDEV __device__ __forceinline__
// Not inlined: the traceback's inlined searches would set the register count of the whole kernel (115
// against the fill's 64); on its own it runs within the cap without spilling, and once per sequence.
#define TCOLD __device__ __noinline__
#endif

namespace turner {

constexpr int INF = 1000000000;
constexpr int HALF = INF / 2;
constexpr int MAX_LOOP = 30;
constexpr int MAX_SPECIAL = 40;

// table offsets in E (_turner_model._OFFSETS)
constexpr int STACK = 0, HAIRPIN = 64, BULGE = 95, INTERIOR = 126;
constexpr int MM_HAIRPIN = 157, MM_INTERIOR = 357, MM_1N = 557, MM_23 = 757, MM_MULTI = 957, MM_EXTERIOR = 1157;
constexpr int DANGLE5 = 1357, DANGLE3 = 1397, INT11 = 1437, INT21 = 3037, INT22 = 11037;
constexpr int TETRALOOPS = 51037, TRILOOPS = 51317, HEXALOOPS = 51557;
constexpr int GENERIC = 51917, ONE_N = 52878, PAIR_TYPE = 52909, SCALARS = 52934;
constexpr int ML_BASE = SCALARS + 0, ML_CLOSING = SCALARS + 1, ML_INTERN = SCALARS + 2, NINIO = SCALARS + 3,
              MAX_NINIO = SCALARS + 4, TERMINAL_AU = SCALARS + 5;
constexpr int TABLE_SIZE = 52940;
// The block's shared copy Es of the small tables every cell reads (4,060 ints, 16 KB): Es[0, INT21) is
// E[0, INT21) (stacks .. int11), Es[INT21, SHARED_INTS) is E[GENERIC, TABLE_SIZE) (the generic interior
// terms, 1xn terms, pair types, scalars). int21 (32 KB), int22 (160 KB) and the special hairpins stay in
// global memory: rare look-ups, too big to share.
constexpr int TAIL_SHIFT = GENERIC - INT21;
constexpr int SHARED_INTS = INT21 + TABLE_SIZE - GENERIC;

TDEV int rtype(int t) {  // type(j, i) from type(i, j): CG <-> GC, GU <-> UG, AU <-> UA (7 stays 7)
    return (t == 0 || t == 7) ? t : (t & 1 ? t + 1 : t - 1);
}
TDEV int imin(int a, int b) { return a < b ? a : b; }
TDEV int imax(int a, int b) { return a > b ? a : b; }

// The read-only inputs of one sequence's fill.
struct Ctx {
    const int* E;        // flat tables (global)
    const int* Es;       // the shared copy of the small ones (SHARED_INTS, above)
    const int* hp_size;  // hairpin[min(u, 30)] + the loop extrapolation of u, for u = 0..longest (host-made:
                         // the extrapolation takes C's log, which the device's log need not round alike)
    const unsigned char* S;
    int n;
    const int* generic_pairs = nullptr;  // LANES > 1 only: GENERIC_PAIRS (u1 | u2 << 8), generic_pairs() below
};

// The generic interior loops' (u1, u2), u1, u2 >= 2, u1 + u2 <= MAX_LOOP, by u1 + u2 (then u2): those of
// a loop with at most umax unpaired bases are the first (umax - 3)(umax - 2) / 2, so the lanes of the
// tiled fill walk one flat list (several loads in flight each) instead of a short row per u2.
constexpr int GENERIC_PAIRS = (MAX_LOOP - 3) * (MAX_LOOP - 2) / 2;
TDEV void generic_pairs(int* out, int tid, int threads) {
    for (int e = tid; e < GENERIC_PAIRS; e += threads) {
        int s = 4, first = 0;  // u1 + u2 = s holds s - 3 pairs
        while (first + s - 3 <= e) first += s++ - 3;
        const int u2 = 2 + (e - first), u1 = s - u2;
        out[e] = u1 | (u2 << 8);
    }
}

// The three ways to a table entry: ld (at < INT21, shared), lt (at >= GENERIC, shared), lg (global).
TDEV int ld(const Ctx& x, int at) { return x.Es[at]; }
TDEV int lt(const Ctx& x, int at) { return x.Es[at - TAIL_SHIFT]; }
TDEV int lg(const Ctx& x, int at) { return __ldg(x.E + at); }
TDEV int ptype(const Ctx& x, int a, int b) { return lt(x, PAIR_TYPE + a * 5 + b); }

// Copy the small tables into the block's shared Es (then a barrier before any read).
TDEV void stage_tables(const int* E, int* Es, int tid, int threads) {
    for (int k = tid; k < SHARED_INTS; k += threads) Es[k] = __ldg(E + (k < INT21 ? k : k + TAIL_SHIFT));
}

// Tables are diagonal-major: cell (i, j) of an n x n table at [(j - i) * n + i], so that the threads of
// an anti-diagonal (consecutive i) read consecutive words at each step of their inner loops.
TDEV int cell(int n, int i, int j) { return (j - i) * n + i; }

// Where cell (i, j) of a table lies, for the code both fills share (interior_min, the exterior loop, the
// traceback): `up` is the first table of a pair (C, FML), `low` the second (C + the inner mismatch, CC),
// `low_step` how far low(p + 1, q) lies from low(p, q).
// DiagLayout: the batch's diagonal-major tables (turner_batch.cu), each its own array.
struct DiagLayout {
    int n;
    TDEV int up(int i, int j) const { return (j - i) * n + i; }
    TDEV int low(int i, int j) const { return (j - i) * n + i; }
    TDEV int low_step() const { return 1 - n; }
};
// RowLayout: the CPU's row-major n x n tables (_turner_fill.py), the second table in the lower
// triangle of the same array (turner_tiled.cu): low(p, q) = [q][p], so the generic interior loops' reads
// run along a row. 64-bit offsets: n^2 passes 2^31 at 46,341 nt.
struct RowLayout {
    long long n;
    TDEV long long up(int i, int j) const { return i * n + j; }
    TDEV long long low(int i, int j) const { return j * n + i; }
    TDEV long long low_step() const { return 1; }
};

// _turner_energy.hairpin_energy (u = j - i - 1 >= 3)
TDEV int hairpin_energy(const Ctx& x, int i, int j, int tp) {
    const int size = j - i - 1;
    const unsigned char* S = x.S;
    int e = __ldg(x.hp_size + size);
    if (size == 3 || size == 4 || size == 6) {
        const int loops = size == 3 ? TRILOOPS : (size == 4 ? TETRALOOPS : HEXALOOPS);
        const int width = size + 2;
        for (int row = 0; row < MAX_SPECIAL; ++row) {
            const int at = loops + row * (width + 1);
            if (lg(x, at) < 0) break;
            int k = 0;
            while (k < width && S[i + k] == lg(x, at + k)) ++k;
            if (k == width) return lg(x, at + width);
        }
        if (size == 3) return e + (tp > 2 ? lt(x, TERMINAL_AU) : 0);
    }
    return e + ld(x, MM_HAIRPIN + (tp * 5 + S[i + 1]) * 5 + S[j - 1]);
}

// _turner_energy.interior_energy for loops of at most MAX_LOOP unpaired bases (the fill's and the
// traceback's: the extrapolation beyond 30 never applies)
TDEV int interior_energy(const Ctx& x, int i, int j, int p, int q, int tp, int tq) {
    const unsigned char* S = x.S;
    const int n1 = p - i - 1, n2 = j - q - 1;
    const int nl = imax(n1, n2), ns = imin(n1, n2);
    if (nl == 0) return ld(x, STACK + tp * 8 + tq);
    const int si = S[i + 1], sj = S[j - 1], sp = S[p - 1], sq = S[q + 1];
    if (ns == 0) {
        int e = ld(x, BULGE + nl);
        if (nl == 1) return e + ld(x, STACK + tp * 8 + tq);
        if (tp > 2) e += lt(x, TERMINAL_AU);
        if (tq > 2) e += lt(x, TERMINAL_AU);
        return e;
    }
    if (ns == 1) {
        if (nl == 1) return ld(x, INT11 + ((tp * 8 + tq) * 5 + si) * 5 + sj);
        if (nl == 2) {
            if (n1 == 1) return lg(x, INT21 + (((tp * 8 + tq) * 5 + si) * 5 + sq) * 5 + sj);
            return lg(x, INT21 + (((tq * 8 + tp) * 5 + sq) * 5 + si) * 5 + sp);
        }
        int e = ld(x, INTERIOR + imin(nl + 1, 30)) + imin(lt(x, MAX_NINIO), (nl - ns) * lt(x, NINIO));
        return e + ld(x, MM_1N + (tp * 5 + si) * 5 + sj) + ld(x, MM_1N + (tq * 5 + sq) * 5 + sp);
    }
    if (ns == 2) {
        if (nl == 2) return lg(x, INT22 + ((((tp * 8 + tq) * 5 + si) * 5 + sp) * 5 + sq) * 5 + sj);
        if (nl == 3) {
            int e = ld(x, INTERIOR + 5) + lt(x, NINIO);
            return e + ld(x, MM_23 + (tp * 5 + si) * 5 + sj) + ld(x, MM_23 + (tq * 5 + sq) * 5 + sp);
        }
    }
    int e = ld(x, INTERIOR + imin(nl + ns, 30)) + imin(lt(x, MAX_NINIO), (nl - ns) * lt(x, NINIO));
    return e + ld(x, MM_INTERIOR + (tp * 5 + si) * 5 + sj) + ld(x, MM_INTERIOR + (tq * 5 + sq) * 5 + sp);
}

// _turner_energy.ml_stem_energy / ext_stem_energy (a code < 0: no neighbour)
TDEV int stem_energy(const Ctx& x, int mismatch, int tp, int s5, int s3) {
    int e = 0;
    if (s5 >= 0 && s3 >= 0) e = ld(x, mismatch + (tp * 5 + s5) * 5 + s3);
    else if (s5 >= 0) e = ld(x, DANGLE5 + tp * 5 + s5);
    else if (s3 >= 0) e = ld(x, DANGLE3 + tp * 5 + s3);
    return e + (tp > 2 ? lt(x, TERMINAL_AU) : 0);
}
TDEV int ml_stem(const Ctx& x, int tp, int s5, int s3) { return lt(x, ML_INTERN) + stem_energy(x, MM_MULTI, tp, s5, s3); }
TDEV int ext_stem(const Ctx& x, int tp, int s5, int s3) { return stem_energy(x, MM_EXTERIOR, tp, s5, s3); }

// (u1, u2) of the small loops scored by interior_energy itself, by u1 + u2 (_turner_cpu._SMALL_LOOPS)
TDEV int small_u1(int k) { return (int)((0x322211100ULL >> (4 * k)) & 0xf); }  // 0 0 1 1 1 2 2 2 3
TDEV int small_u2(int k) { return (int)((0x232121010ULL >> (4 * k)) & 0xf); }  // 0 1 0 1 2 1 2 3 2

// _turner_cpu._interior_min: min over the interior loops closed by (i, j) of loop energy + C(p, q).
// c holds C(p, q) at L.up(p, q), cm C(p, q) + its inner mismatch at L.low(p, q). Diagonal-major, the
// candidate (p, q) of cell (i, j) is at the same offset from every thread's cell, so a warp's reads
// coalesce; row-major (the tiled fill), a thread's generic candidates run along a row of cm.
// LANES > 1 (the tiled fill): LANES threads share the cell, `lane` taking every LANES-th candidate of
// each loop (neighbouring lanes on neighbouring words); the caller takes the minimum over the lanes.
template <int LANES, class L>
TDEV int interior_min(const Ctx& x, const L& lay, const int* c, const int* cm, int i, int j, int tp, int lane) {
    const unsigned char* S = x.S;
    const int umax = imin(MAX_LOOP, j - i - 6);  // the inner pair needs q - p >= 4
    int best = INF;
    if (umax < 0) return best;
    const int au = lt(x, TERMINAL_AU);
    const int au_out = tp > 2 ? au : 0;
    const int si = S[i + 1], sj = S[j - 1];
    const int mm1n_out = ld(x, MM_1N + (tp * 5 + si) * 5 + sj);
    // bulges of 2.. on the 3' side (p = i + 1), 1xn loops with the 1 on the 5' side (p = i + 2)
#pragma unroll (LANES > 1 ? 4 : 1)  // the batch's LANES = 1 code as it was (its 64 registers)
    for (int u2 = 2 + lane; u2 <= umax; u2 += LANES) {
        const int p = i + 1, q = j - 1 - u2;
        const int v = c[lay.up(p, q)];
        if (v < INF) {
            const int t_in = ptype(x, S[p], S[q]);
            best = imin(best, v + ld(x, BULGE + u2) + au_out + (t_in > 2 ? au : 0));
        }
    }
#pragma unroll (LANES > 1 ? 4 : 1)
    for (int u2 = 3 + lane; u2 < umax; u2 += LANES) {
        const int p = i + 2, q = j - 1 - u2;
        const int v = c[lay.up(p, q)];
        if (v < INF) {
            const int t_in = rtype(ptype(x, S[p], S[q]));
            best = imin(best, v + lt(x, ONE_N + u2) + mm1n_out + ld(x, MM_1N + (t_in * 5 + S[q + 1]) * 5 + si));
        }
    }
    // bulges of 2.. on the 5' side (q = j - 1), 1xn loops with the 1 on the 3' side (q = j - 2)
#pragma unroll (LANES > 1 ? 4 : 1)
    for (int u1 = 2 + lane; u1 <= umax; u1 += LANES) {
        const int p = i + 1 + u1, q = j - 1;
        const int v = c[lay.up(p, q)];
        if (v < INF) {
            const int t_in = ptype(x, S[p], S[q]);
            best = imin(best, v + ld(x, BULGE + u1) + au_out + (t_in > 2 ? au : 0));
        }
    }
#pragma unroll (LANES > 1 ? 4 : 1)
    for (int u1 = 3 + lane; u1 < umax; u1 += LANES) {
        const int p = i + 1 + u1, q = j - 2;
        const int v = c[lay.up(p, q)];
        if (v < INF) {
            const int t_in = rtype(ptype(x, S[p], S[q]));
            best = imin(best, v + lt(x, ONE_N + u1) + mm1n_out + ld(x, MM_1N + (t_in * 5 + sj) * 5 + S[p - 1]));
        }
    }
    // the stack, bulges of 1, 1x1, 1x2, 2x1, 2x2, 2x3, 3x2: their own tables
    for (int k = lane; k < 9 && small_u1(k) + small_u2(k) <= umax; k += LANES) {
        const int p = i + 1 + small_u1(k), q = j - 1 - small_u2(k);
        const int v = c[lay.up(p, q)];
        if (v < INF) best = imin(best, v + interior_energy(x, i, j, p, q, tp, rtype(ptype(x, S[p], S[q]))));
    }
    // generic loops: cm holds C(p, q) + the inner mismatch, interior_generic the size and asymmetry terms
    // (INF where not generic), so each candidate is one DPX add-then-min. For one u2, the candidates
    // p = i + 3 + t, q = j - 1 - u2 step by low_step (diagonal-major: one diagonal down and one place
    // right, n - 1 words back; row-major: the next word of row q).
    // Two accumulators and an unrolled loop keep several loads in flight (min is exact in any order).
    int g0 = INF, g1 = INF;
    const auto step = lay.low_step();
    if (LANES > 1) {
        const int total = umax >= 4 ? (umax - 3) * (umax - 2) / 2 : 0;
        const int* pen = x.Es + (GENERIC - TAIL_SHIFT);
#pragma unroll 8
        for (int e = lane; e < total; e += LANES) {
            const int w = x.generic_pairs[e], u1 = w & 0xff, u2 = w >> 8;
            g0 = __viaddmin_s32(cm[lay.low(i + 1 + u1, j - 1 - u2)], pen[u2 * (MAX_LOOP + 1) + u1], g0);
        }
    }
    for (int u2 = 2; LANES == 1 && u2 < umax - 1; ++u2) {
        const int count = umax - u2 - 1;
        const int* col = cm + lay.low(i + 3, j - 1 - u2);
        const int* pen = x.Es + (GENERIC - TAIL_SHIFT) + u2 * (MAX_LOOP + 1) + 2;
        int t = 0;
#pragma unroll 2
        for (; t + 2 <= count; t += 2) {
            g0 = __viaddmin_s32(col[0], pen[t], g0);
            g1 = __viaddmin_s32(col[step], pen[t + 1], g1);
            col += 2 * step;
        }
        if (t < count) g0 = __viaddmin_s32(col[0], pen[t], g0);
    }
    const int generic = imin(g0, g1);
    if (generic < HALF) best = imin(best, generic + ld(x, MM_INTERIOR + (tp * 5 + si) * 5 + sj));
    return best;
}

}  // namespace turner
