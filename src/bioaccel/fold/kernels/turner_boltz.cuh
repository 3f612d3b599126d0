// Boltzmann factors of single loops of the Turner 2004 model in FP64, shared by the partition function
// of the batch (turner_pf.cuh) and of one long RNA (turner_pf_long.cuh): bioaccel/fold/_turner_pf_loops.py
// line for line (ViennaRNA's vrna_exp_E_hairpin, vrna_exp_E_internal, exp_E_MLstem, exp_E_ExtLoop).
// B: the float64 factors of _turner_pf_params.boltzmann_tables (the layout and offsets of the MFE's
// int32 tables E, turner_energy.cuh); E is read for the pair types and the special hairpins' codes;
// S: the sequence in the tables' codes. Built for the host too (TURNER_HOST: tests/turner_pf_host.cpp).
#pragma once
#include "turner_energy.cuh"  // table offsets, TDEV, rtype, imin, imax, MAX_SPECIAL

#ifdef TURNER_HOST
static inline double __ldg(const double* p) { return *p; }
#endif

namespace turner {

TDEV double boltz(const double* B, int at) { return __ldg(B + at); }
TDEV int boltz_ptype(const int* E, int a, int b) { return __ldg(E + PAIR_TYPE + a * 5 + b); }

// The pair type of (i, j) where it may pair (j - i >= 4; under noLP ViennaRNA's rule for the partition
// function: (i - 1, j + 1) or (i + 1, j - 1) could pair too), else 0 (_turner_pf_cpu.pair_types).
TDEV int boltz_allowed(const int* E, const unsigned char* S, int n, int i, int j, bool no_lp) {
    if (j - i < 4) return 0;
    const int tp = boltz_ptype(E, S[i], S[j]);
    if (!tp || !no_lp) return tp;
    const bool outer = i > 0 && j < n - 1 && boltz_ptype(E, S[i - 1], S[j + 1]);
    const bool inner = j - i - 2 >= 4 && boltz_ptype(E, S[i + 1], S[j - 1]);
    return (outer || inner) ? tp : 0;
}

// exp_hairpin given q, the size term of the loop (i, j) (u = j - i - 1 >= 3 unpaired): a listed
// tetra-/hexa-/triloop's factor instead, a loop of 3 with the terminal AU/GU factor, or the mismatch.
TDEV double boltz_hairpin(const double* B, const int* E, const unsigned char* S, int i, int j, int tp, double q) {
    const int u = j - i - 1;
    if (u == 3 || u == 4 || u == 6) {
        const int loops = u == 3 ? TRILOOPS : (u == 4 ? TETRALOOPS : HEXALOOPS);
        const int width = u + 2;
        for (int row = 0; row < MAX_SPECIAL; ++row) {
            const int at = loops + row * (width + 1);
            if (__ldg(E + at) < 0) break;
            int k = 0;
            while (k < width && S[i + k] == __ldg(E + at + k)) ++k;
            if (k == width) return boltz(B, at + width);
        }
        if (u == 3) return tp > 2 ? q * boltz(B, TERMINAL_AU) : q;
    }
    return q * boltz(B, MM_HAIRPIN + (tp * 5 + S[i + 1]) * 5 + S[j - 1]);
}

// exp_interior: the interior loop (i, j) > (p, q), tp = type(i, j), tq = type(q, p)
TDEV double boltz_interior(const double* B, const unsigned char* S, int i, int j, int p, int q, int tp, int tq) {
    const int u1 = p - i - 1, u2 = j - q - 1;
    const int nl = imax(u1, u2), ns = imin(u1, u2);
    if (nl == 0) return boltz(B, STACK + tp * 8 + tq);
    const int si = S[i + 1], sj = S[j - 1], sp = S[p - 1], sq = S[q + 1];
    if (ns == 0) {
        double z = boltz(B, BULGE + nl);
        if (nl == 1) return z * boltz(B, STACK + tp * 8 + tq);
        if (tp > 2) z *= boltz(B, TERMINAL_AU);
        if (tq > 2) z *= boltz(B, TERMINAL_AU);
        return z;
    }
    if (ns == 1) {
        if (nl == 1) return boltz(B, INT11 + ((tp * 8 + tq) * 5 + si) * 5 + sj);
        if (nl == 2) {
            if (u1 == 1) return boltz(B, INT21 + (((tp * 8 + tq) * 5 + si) * 5 + sq) * 5 + sj);
            return boltz(B, INT21 + (((tq * 8 + tp) * 5 + sq) * 5 + si) * 5 + sp);
        }
        return boltz(B, ONE_N + nl) * (boltz(B, MM_1N + (tp * 5 + si) * 5 + sj) * boltz(B, MM_1N + (tq * 5 + sq) * 5 + sp));
    }
    if (ns == 2) {
        if (nl == 2) return boltz(B, INT22 + ((((tp * 8 + tq) * 5 + si) * 5 + sp) * 5 + sq) * 5 + sj);
        if (nl == 3)
            return (boltz(B, INTERIOR + 5) * boltz(B, NINIO)) *
                   (boltz(B, MM_23 + (tp * 5 + si) * 5 + sj) * boltz(B, MM_23 + (tq * 5 + sq) * 5 + sp));
    }
    return boltz(B, GENERIC + u2 * 31 + u1) *
           (boltz(B, MM_INTERIOR + (tp * 5 + si) * 5 + sj) * boltz(B, MM_INTERIOR + (tq * 5 + sq) * 5 + sp));
}

// A stem's mismatch or dangles (s5, s3: its neighbours' codes, -1 where none) and terminal AU/GU factor.
TDEV double boltz_stem_ends(const double* B, int mismatch, int tp, int s5, int s3) {
    double z = 1.0;
    if (s5 >= 0 && s3 >= 0) z = boltz(B, mismatch + (tp * 5 + s5) * 5 + s3);
    else if (s5 >= 0) z = boltz(B, DANGLE5 + tp * 5 + s5);
    else if (s3 >= 0) z = boltz(B, DANGLE3 + tp * 5 + s3);
    if (tp > 2) z *= boltz(B, TERMINAL_AU);
    return z;
}

}  // namespace turner
