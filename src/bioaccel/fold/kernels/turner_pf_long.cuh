// Boltzmann factors of single loops of the Turner 2004 model in FP64, for the partition function of one
// long RNA on the GPU (turner_pf_long.cu): bioaccel/fold/_turner_pf_loops.py line for line (ViennaRNA's
// vrna_exp_E_hairpin, vrna_exp_E_internal, exp_E_MLstem, exp_E_ExtLoop), reading the float64 factors B of
// _turner_pf_params.boltzmann_tables (the layout of the int32 tables E: turner_energy.cuh's offsets) and E
// itself for the pair types and the special hairpins' codes.
#pragma once

#include "turner_energy.cuh"  // table offsets, rtype, MAX_LOOP, MAX_SPECIAL

namespace pflong {

using turner::imin;
using turner::imax;
using turner::rtype;

constexpr int SEG = 33;  // stretches of at most SEG - 1 bases take the per-base scale table seg

// The read-only inputs of one sequence (all in global memory).
struct Pf {
    const double* B;          // Boltzmann factors (E's layout)
    const int* E;             // int32 tables: pair types, special hairpins' codes
    const double* hp;         // the hairpin size factor of u unpaired bases, u = 0..n (host-made, unrounded)
    const unsigned char* S;   // table codes (N=0, A=1, C=2, G=3, U=4)
    const double* sc;         // per-base scale
    const double* seg;        // seg[a * SEG + L]: product of sc over a .. a + L - 1 (L < SEG)
    const double* cum;        // prefix sums of ln sc (n + 1)
    int n;
    int no_lp;
};

__device__ __forceinline__ double b(const Pf& x, int at) { return __ldg(x.B + at); }
__device__ __forceinline__ int ptype(const Pf& x, int a, int c) {
    return __ldg(x.E + turner::PAIR_TYPE + a * 5 + c);
}

// The pair type of (i, j) where it may pair (j - i >= 4, inside the sequence; with noLP ViennaRNA's rule
// for the partition function: (i - 1, j + 1) or (i + 1, j - 1) could pair too), else 0
// (_turner_pf_cpu.pair_types).
__device__ __forceinline__ int pair_type(const Pf& x, int i, int j) {
    if (i < 0 || j >= x.n || j - i < 4) return 0;
    const int t = ptype(x, x.S[i], x.S[j]);
    if (!t || !x.no_lp) return t;
    const bool outer = i > 0 && j < x.n - 1 && ptype(x, x.S[i - 1], x.S[j + 1]);
    const bool inner = j - i >= 6 && ptype(x, x.S[i + 1], x.S[j - 1]);
    return (outer || inner) ? t : 0;
}

// The product of the scales of bases a .. c (1 if c < a).
__device__ __forceinline__ double segment(const Pf& x, int a, int c) {
    const int L = c - a + 1;
    if (L < SEG) return L > 0 ? __ldg(x.seg + a * SEG + L) : 1.0;
    return exp(__ldg(x.cum + c + 1) - __ldg(x.cum + a));
}

// exp_hairpin: size term, a listed tetra-/hexa-/triloop's factor instead, a loop of 3 with the terminal
// AU/GU factor, or the hairpin mismatch.
__device__ __forceinline__ double exp_hairpin(const Pf& x, int i, int j, int tp) {
    using namespace turner;
    const int u = j - i - 1;
    const double q = __ldg(x.hp + u);
    if (u == 3 || u == 4 || u == 6) {
        const int loops = u == 3 ? TRILOOPS : (u == 4 ? TETRALOOPS : HEXALOOPS);
        const int width = u + 2;
        for (int row = 0; row < MAX_SPECIAL; ++row) {
            const int at = loops + row * (width + 1);
            if (__ldg(x.E + at) < 0) break;
            int k = 0;
            while (k < width && x.S[i + k] == __ldg(x.E + at + k)) ++k;
            if (k == width) return b(x, at + width);
        }
        if (u == 3) return tp > 2 ? q * b(x, TERMINAL_AU) : q;
    }
    return q * b(x, MM_HAIRPIN + (tp * 5 + x.S[i + 1]) * 5 + x.S[j - 1]);
}

// exp_interior: the interior loop (i, j) > (p, q), tp = type(i, j), tq = type(q, p).
__device__ __forceinline__ double exp_interior(const Pf& x, int i, int j, int p, int q, int tp, int tq) {
    using namespace turner;
    const int u1 = p - i - 1, u2 = j - q - 1;
    const int nl = imax(u1, u2), ns = imin(u1, u2);
    if (nl == 0) return b(x, STACK + tp * 8 + tq);
    const int si = x.S[i + 1], sj = x.S[j - 1], sp = x.S[p - 1], sq = x.S[q + 1];
    if (ns == 0) {
        double z = b(x, BULGE + nl);
        if (nl == 1) return z * b(x, STACK + tp * 8 + tq);
        if (tp > 2) z *= b(x, TERMINAL_AU);
        if (tq > 2) z *= b(x, TERMINAL_AU);
        return z;
    }
    if (ns == 1) {
        if (nl == 1) return b(x, INT11 + ((tp * 8 + tq) * 5 + si) * 5 + sj);
        if (nl == 2) {
            if (u1 == 1) return b(x, INT21 + (((tp * 8 + tq) * 5 + si) * 5 + sq) * 5 + sj);
            return b(x, INT21 + (((tq * 8 + tp) * 5 + sq) * 5 + si) * 5 + sp);
        }
        return b(x, ONE_N + nl) * (b(x, MM_1N + (tp * 5 + si) * 5 + sj) * b(x, MM_1N + (tq * 5 + sq) * 5 + sp));
    }
    if (ns == 2) {
        if (nl == 2) return b(x, INT22 + ((((tp * 8 + tq) * 5 + si) * 5 + sp) * 5 + sq) * 5 + sj);
        if (nl == 3)
            return (b(x, INTERIOR + 5) * b(x, NINIO)) *
                   (b(x, MM_23 + (tp * 5 + si) * 5 + sj) * b(x, MM_23 + (tq * 5 + sq) * 5 + sp));
    }
    return b(x, GENERIC + u2 * 31 + u1) *
           (b(x, MM_INTERIOR + (tp * 5 + si) * 5 + sj) * b(x, MM_INTERIOR + (tq * 5 + sq) * 5 + sp));
}

__device__ __forceinline__ double stem_ends(const Pf& x, int mismatch, int tp, int s5, int s3) {
    using namespace turner;
    double z = 1.0;
    if (s5 >= 0 && s3 >= 0) z = b(x, mismatch + (tp * 5 + s5) * 5 + s3);
    else if (s5 >= 0) z = b(x, DANGLE5 + tp * 5 + s5);
    else if (s3 >= 0) z = b(x, DANGLE3 + tp * 5 + s3);
    if (tp > 2) z *= b(x, TERMINAL_AU);
    return z;
}
// a stem of pair (i, j), type tp, in a multiloop (with MLintern) or in the exterior loop; its neighbours
// i - 1 and j + 1 where they exist
__device__ __forceinline__ double ml_stem(const Pf& x, int i, int j, int tp) {
    return stem_ends(x, turner::MM_MULTI, tp, i > 0 ? x.S[i - 1] : -1, j < x.n - 1 ? x.S[j + 1] : -1) *
           b(x, turner::ML_INTERN);
}
__device__ __forceinline__ double ext_stem(const Pf& x, int i, int j, int tp) {
    return stem_ends(x, turner::MM_EXTERIOR, tp, i > 0 ? x.S[i - 1] : -1, j < x.n - 1 ? x.S[j + 1] : -1);
}
// MLclosing and the closing stem of (i, j) read from inside the loop
__device__ __forceinline__ double ml_closing(const Pf& x, int i, int j, int tp) {
    return b(x, turner::ML_CLOSING) *
           (stem_ends(x, turner::MM_MULTI, rtype(tp), x.S[j - 1], x.S[i + 1]) * b(x, turner::ML_INTERN));
}

// The largest u2 of a loop with u1 unpaired on the 5' side scored by exp_interior (stacks, bulges, 1xn,
// 2x2, 2x3, 3x2); above it the generic loops: one factor times the precomputed QI (_turner_pf_fill).
__device__ __forceinline__ int special_top(int u1, int umax) {
    if (u1 < 2) return umax;
    if (u1 == 2) return imin(3, umax);
    if (u1 == 3) return imin(2, umax);
    return imin(1, umax);
}

// Sum over the LANES consecutive threads sharing a cell (every thread of the warp takes part).
template <int LANES>
__device__ __forceinline__ double lane_sum(double v) {
#pragma unroll
    for (int m = LANES / 2; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
    return v;
}

}  // namespace pflong
