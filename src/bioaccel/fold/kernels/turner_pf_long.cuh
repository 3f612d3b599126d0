// Boltzmann factors of single loops of the Turner 2004 model in FP64, for the partition function of one
// long RNA on the GPU (turner_pf_long.cu): bioaccel/fold/_turner_pf_loops.py line for line (ViennaRNA's
// vrna_exp_E_hairpin, vrna_exp_E_internal, exp_E_MLstem, exp_E_ExtLoop), reading the float64 factors B of
// _turner_pf_params.boltzmann_tables (the layout of the int32 tables E: turner_energy.cuh's offsets) and E
// itself for the pair types and the special hairpins' codes.
#pragma once

#include "turner_boltz.cuh"  // the single loops' factors; turner_energy.cuh: offsets, rtype, MAX_LOOP

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
__device__ __forceinline__ int ptype(const Pf& x, int a, int c) { return turner::boltz_ptype(x.E, a, c); }

// The pair type of (i, j) where it may pair (turner_boltz.cuh), 0 outside the sequence.
__device__ __forceinline__ int pair_type(const Pf& x, int i, int j) {
    if (i < 0 || j >= x.n) return 0;
    return turner::boltz_allowed(x.E, x.S, x.n, i, j, x.no_lp != 0);
}

// The product of the scales of bases a .. c (1 if c < a).
__device__ __forceinline__ double segment(const Pf& x, int a, int c) {
    const int L = c - a + 1;
    if (L < SEG) return L > 0 ? __ldg(x.seg + a * SEG + L) : 1.0;
    return exp(__ldg(x.cum + c + 1) - __ldg(x.cum + a));
}

// exp_hairpin with the host-made size term (turner_boltz.cuh)
__device__ __forceinline__ double exp_hairpin(const Pf& x, int i, int j, int tp) {
    return turner::boltz_hairpin(x.B, x.E, x.S, i, j, tp, __ldg(x.hp + (j - i - 1)));
}

// exp_interior: the interior loop (i, j) > (p, q), tp = type(i, j), tq = type(q, p).
__device__ __forceinline__ double exp_interior(const Pf& x, int i, int j, int p, int q, int tp, int tq) {
    return turner::boltz_interior(x.B, x.S, i, j, p, q, tp, tq);
}

__device__ __forceinline__ double stem_ends(const Pf& x, int mismatch, int tp, int s5, int s3) {
    return turner::boltz_stem_ends(x.B, mismatch, tp, s5, s3);
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
