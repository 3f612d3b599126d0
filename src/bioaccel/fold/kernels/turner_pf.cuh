// McCaskill's inside and outside recurrences of the Turner 2004 model, one cell at a time, in FP64: the
// recurrences of docs/mccaskill.md and bioaccel/fold/_turner_pf_fill.py / _turner_pf_loops.py, with the
// tables diagonal-major as the MFE batch keeps them (turner_energy.cuh: cell (i, j) at (j - i) * n + i),
// so that the threads of an anti-diagonal (consecutive i) read consecutive words at every step of every
// sum. turner_pf_batch.cu decides which thread runs which cell; tests/turner_pf_host.cpp builds this file
// for the host (TURNER_HOST) and runs the same cells serially against the CPU's Numba fill.
//
// B is the float64 Boltzmann factors of _turner_pf_params.boltzmann_tables (the layout and offsets of the
// MFE's int32 tables E, turner_energy.cuh); E is read for the pair types and the special hairpins'
// sequences only. Scaling: every base weighs exp(ls) (ViennaRNA's uniform scale, the CPU's default), so
// a stretch of L bases weighs pw(L) = exp(L ls): a value is a segment's partition function times the
// weight of its bases, each base counted once in every decomposition (docs/mccaskill.md, "Scaling").
#pragma once
#include "turner_boltz.cuh"  // the single loops' factors (and turner_energy.cuh)

#ifdef TURNER_HOST
#include <cmath>
#endif

namespace turner {

// Segment weights kept in the block's table: loops of at most MAX_LOOP unpaired bases + their 2 ends
constexpr int SEG = 34;
constexpr int GENERIC_SIZE = (MAX_LOOP + 1) * (MAX_LOOP + 1);

// The inputs of one sequence's fill. G[u2 * 31 + u1]: the generic interior loop's factor
// (B[GENERIC + ...], expinternal * expninio) times pw(u1 + u2 + 2), 0 where the loop is not generic
// (u1 or u2 < 2, 2x2, 2x3, 3x2: those take pf_interior).
struct PfCtx {
    const double* B;
    const int* E;
    const unsigned char* S;
    int n;
    const double* pw;  // pw[L] = exp(L ls), L < SEG
    const double* G;
    double ls, kT, lxc;
};

// The tables of one sequence, n x n each, diagonal-major. r holds R (inside), then T (outside); qi holds
// qb * the inner pair's interior mismatch (inside), then ob * the outer pair's (outside); om1 the
// outside of qm1; pt the allowed pair type of (i, j) (0: may not pair).
struct PfTables {
    double *qb, *qm, *qm1, *qi, *r, *ob, *om, *oml, *om1, *q5, *q3;
    unsigned char* pt;
};

TDEV double bl(const PfCtx& x, int at) { return __ldg(x.B + at); }
TDEV double seg_weight(const PfCtx& x, int L) { return L < SEG ? x.pw[L] : exp(L * x.ls); }
TDEV int pf_ptype(const PfCtx& x, int a, int b) { return boltz_ptype(x.E, a, b); }

// PT[i, j] of _turner_pf_cpu.pair_types (turner_boltz.cuh)
TDEV int pf_allowed(const PfCtx& x, int i, int j, bool no_lp) { return boltz_allowed(x.E, x.S, x.n, i, j, no_lp); }

// _turner_pf_loops.exp_hairpin (the size term extrapolated past 30 unrounded; a listed loop's factor
// instead of everything), u = j - i - 1 >= 3
TDEV double pf_hairpin(const PfCtx& x, int i, int j, int tp) {
    const int u = j - i - 1;
    const double q = u <= 30 ? bl(x, HAIRPIN + u) : bl(x, HAIRPIN + 30) * exp(-(x.lxc * log(u / 30.0)) * 10.0 / x.kT);
    return boltz_hairpin(x.B, x.E, x.S, i, j, tp, q);
}

// _turner_pf_loops.exp_interior: (i, j) > (p, q), tp = type(i, j), tq = type(q, p)
TDEV double pf_interior(const PfCtx& x, int i, int j, int p, int q, int tp, int tq) {
    return boltz_interior(x.B, x.S, i, j, p, q, tp, tq);
}

TDEV double pf_stem_ends(const PfCtx& x, int mismatch, int tp, int s5, int s3) {
    return boltz_stem_ends(x.B, mismatch, tp, s5, s3);
}
TDEV double pf_ml_stem(const PfCtx& x, int tp, int s5, int s3) { return pf_stem_ends(x, MM_MULTI, tp, s5, s3) * bl(x, ML_INTERN); }
TDEV double pf_ext_stem(const PfCtx& x, int tp, int s5, int s3) { return pf_stem_ends(x, MM_EXTERIOR, tp, s5, s3); }
TDEV double pf_ml_closing(const PfCtx& x, int i, int j, int tp) {
    return bl(x, ML_CLOSING) * pf_ml_stem(x, rtype(tp), x.S[j - 1], x.S[i + 1]);
}
TDEV int left_of(const PfCtx& x, int i) { return i > 0 ? x.S[i - 1] : -1; }
TDEV int right_of(const PfCtx& x, int j) { return j < x.n - 1 ? x.S[j + 1] : -1; }
TDEV bool generic_loop(int u1, int u2) {
    return u1 >= 2 && u2 >= 2 && !(u1 == 2 && u2 == 2) && !(u1 == 2 && u2 == 3) && !(u1 == 3 && u2 == 2);
}
// pw and G of one sequence whose bases weigh exp(ls) each (k: this thread's first entry, step: threads)
TDEV void pf_weights(const double* B, double ls, double* pw, double* G, int k, int step) {
    for (int L = k; L < SEG; L += step) pw[L] = exp(L * ls);
    for (int e = k; e < GENERIC_SIZE; e += step) {
        const int u2 = e / (MAX_LOOP + 1), u1 = e % (MAX_LOOP + 1);
        G[e] = (generic_loop(u1, u2) && u1 + u2 <= MAX_LOOP) ? __ldg(B + GENERIC + e) * exp((u1 + u2 + 2) * ls) : 0.0;
    }
}

// Cells of diagonals 0..3 (no pair) and every cell's pair type: one pass before the fill.
TDEV void pf_first_cell(const PfCtx& x, const PfTables& t, bool no_lp, int i, int d) {
    const int at = d * x.n + i;
    t.pt[at] = (unsigned char)pf_allowed(x, i, i + d, no_lp);
    if (d < 4) t.qb[at] = t.qm[at] = t.qm1[at] = t.qi[at] = t.r[at] = 0.0;
}

// One non-generic interior loop's term (the inside with outer (i, j), or the outside with inner (i, j)).
TDEV double pf_loop_term(const PfCtx& x, const PfTables& t, const double* v, int i, int j, int p, int q, int tp_out,
                         int tp_in, bool inside) {
    const int n = x.n;
    const int at = (q - p) * n + p;
    const int t2 = t.pt[inside ? at : (j - i) * n + i];
    if (!t2) return 0.0;
    const double z = v[inside ? at : (j - i) * n + i];
    if (z == 0.0) return 0.0;
    const double w = x.pw[(p - i - 1) + (j - q - 1) + 2];
    return inside ? pf_interior(x, i, j, p, q, tp_out, rtype(t2)) * z * w : z * pf_interior(x, i, j, p, q, t2, tp_in) * w;
}

// qb, qm1, R, qm of cell (i, i + d), d >= 4: every cell of a shorter span is final.
TDEV void pf_inside_cell(const PfCtx& x, const PfTables& t, int i, int d) {
    const int n = x.n, j = i + d, at = d * n + i;
    const unsigned char* S = x.S;
    const int tp = t.pt[at];
    const double sc = x.pw[1], mlb = bl(x, ML_BASE);
    double qb = 0.0;
    if (tp) {
        qb = pf_hairpin(x, i, j, tp) * seg_weight(x, d + 1);
        const int umax = imin(MAX_LOOP, d - 6);
        double special = 0.0, gen = 0.0;
        for (int u1 = 0; u1 <= umax; ++u1) {  // the non-generic loops: u1 < 2 (any u2), u2 < 2, 2x2 2x3 3x2
            const int top = u1 < 2 ? umax - u1 : (u1 == 2 ? imin(3, umax - u1) : (u1 == 3 ? imin(2, umax - u1) : imin(1, umax - u1)));
            for (int u2 = 0; u2 <= top; ++u2)
                special += pf_loop_term(x, t, t.qb, i, j, i + 1 + u1, j - 1 - u2, tp, 0, true);
        }
        for (int u2 = 2; u2 <= umax - 2; ++u2) {  // generic: one multiply-add each (qi: qb times the inner mismatch)
            const double* g = x.G + u2 * (MAX_LOOP + 1);
            const double* col = t.qi + (d - 2 - 2 - u2) * n + i + 3;  // (p, q) = (i + 3, j - 1 - u2)
            double s = 0.0;
            for (int u1 = 2; u1 <= umax - u2; ++u1, col -= n - 1) s += g[u1] * col[0];
            gen += s;
        }
        qb += special + gen * bl(x, MM_INTERIOR + (tp * 5 + S[i + 1]) * 5 + S[j - 1]);
        double s0 = 0.0, s1 = 0.0;  // multiloop: sum_u qm(i + 1, u - 1) qm1(u, j - 1), u = i + m
        int m = 6;
        for (; m + 1 <= d - 5; m += 2) {
            s0 += t.qm[(m - 2) * n + i + 1] * t.qm1[(d - 1 - m) * n + i + m];
            s1 += t.qm[(m - 1) * n + i + 1] * t.qm1[(d - 2 - m) * n + i + m + 1];
        }
        if (m <= d - 5) s0 += t.qm[(m - 2) * n + i + 1] * t.qm1[(d - 1 - m) * n + i + m];
        const double s = s0 + s1;
        if (s != 0.0) qb += s * pf_ml_closing(x, i, j, tp) * x.pw[2];
    }
    t.qb[at] = qb;
    t.qi[at] = (qb != 0.0 && i > 0 && j < n - 1) ? qb * bl(x, MM_INTERIOR + (rtype(tp) * 5 + S[j + 1]) * 5 + S[i - 1]) : 0.0;
    double v = d >= 5 ? t.qm1[(d - 1) * n + i] * mlb * sc : 0.0;
    if (qb != 0.0) v += qb * pf_ml_stem(x, tp, left_of(x, i), right_of(x, j));
    t.qm1[at] = v;
    const double r = v + t.r[(d - 1) * n + i + 1] * mlb * sc;
    t.r[at] = r;
    double m0 = 0.0, m1 = 0.0;  // sum_u qm(i, u - 1) qm1(u, j), u = i + m
    int m = 5;
    for (; m + 1 <= d - 4; m += 2) {
        m0 += t.qm[(m - 1) * n + i] * t.qm1[(d - m) * n + i + m];
        m1 += t.qm[m * n + i] * t.qm1[(d - m - 1) * n + i + m + 1];
    }
    if (m <= d - 4) m0 += t.qm[(m - 1) * n + i] * t.qm1[(d - m) * n + i + m];
    t.qm[at] = r + (m0 + m1);
}

// The exterior loop: lane's share of the stems ending at j (q5) or starting at i (q3); the caller adds
// the lanes and the unpaired base.
TDEV double pf_q5_part(const PfCtx& x, const PfTables& t, int j, int lane, int lanes) {
    double z = 0.0;
    for (int k = lane; k <= j - 4; k += lanes) {
        const int at = (j - k) * x.n + k, tp = t.pt[at];
        if (tp) z += t.q5[k] * t.qb[at] * pf_ext_stem(x, tp, left_of(x, k), right_of(x, j));
    }
    return z;
}
TDEV double pf_q3_part(const PfCtx& x, const PfTables& t, int i, int lane, int lanes) {
    double z = 0.0;
    for (int l = i + 4 + lane; l < x.n; l += lanes) {
        const int at = (l - i) * x.n + i, tp = t.pt[at];
        if (tp) z += t.qb[at] * pf_ext_stem(x, tp, left_of(x, i), right_of(x, l)) * t.q3[l + 1];
    }
    return z;
}

// om, T, om1, ob (and oml, oi) of cell (i, i + d), d >= 4: every cell of a longer span is final.
TDEV void pf_outside_cell(const PfCtx& x, const PfTables& t, int i, int d) {
    const int n = x.n, j = i + d, at = d * n + i;
    const unsigned char* S = x.S;
    const double sc = x.pw[1], mlb = bl(x, ML_BASE);
    // om(i, j): the left part of a longer qm(i, jj), jj = j + m, or the first part of a multiloop closed
    // by (i - 1, jj)
    double a0 = 0.0, a1 = 0.0;
    for (int m = 5; m <= n - 1 - j; ++m) a0 += t.om[(d + m) * n + i] * t.qm1[(m - 1) * n + j + 1];
    if (i > 0)
        for (int m = 6; m <= n - 1 - j; ++m) a1 += t.oml[(d + m + 1) * n + i - 1] * t.qm1[(m - 2) * n + j + 1];
    const double om = a0 + a1;
    t.om[at] = om;
    const double T = om + (i > 0 ? t.r[(d + 1) * n + i - 1] * mlb * sc : 0.0);
    t.r[at] = T;
    // om1(i, j): after a qm(a, i - 1), a = i - k; extended by an unpaired base; the last stem of a
    // multiloop closed by (a, j + 1)
    double b0 = 0.0, b1 = 0.0;
    for (int k = 5; k <= i; ++k) b0 += t.om[(d + k) * n + i - k] * t.qm[(k - 1) * n + i - k];
    double o1 = T;
    if (j + 1 < n) {
        o1 += t.om1[(d + 1) * n + i] * mlb * sc;
        for (int k = 6; k <= i; ++k) b1 += t.oml[(d + k + 1) * n + i - k] * t.qm[(k - 2) * n + i - k + 1];
    }
    o1 += b0 + b1;
    t.om1[at] = o1;
    const int tp = t.pt[at];
    if (!tp) {
        t.ob[at] = 0.0;
        t.oml[at] = 0.0;
        return;
    }
    const int s5 = left_of(x, i), s3 = right_of(x, j), tq = rtype(tp);
    double ob = t.q5[i] * pf_ext_stem(x, tp, s5, s3) * t.q3[j + 1] + o1 * pf_ml_stem(x, tp, s5, s3);
    double special = 0.0, gen = 0.0;
    for (int u1 = 0; u1 <= imin(MAX_LOOP, i - 1); ++u1) {  // the enclosing (a, b) = (i - 1 - u1, j + 1 + u2)
        const int umax = imin(MAX_LOOP - u1, n - j - 2);
        const int top = u1 < 2 ? umax : (u1 == 2 ? imin(3, umax) : (u1 == 3 ? imin(2, umax) : imin(1, umax)));
        for (int u2 = 0; u2 <= top; ++u2)
            special += pf_loop_term(x, t, t.ob, i - 1 - u1, j + 1 + u2, i, j, 0, tq, false);
        const double* g = x.G + u1;
        double s = 0.0;
        for (int u2 = top + 1; u2 <= umax; ++u2) s += g[u2 * (MAX_LOOP + 1)] * t.qi[(d + u1 + u2 + 2) * n + i - 1 - u1];
        gen += s;
    }
    ob += special;
    if (i > 0 && j < n - 1) ob += gen * bl(x, MM_INTERIOR + (tq * 5 + S[j + 1]) * 5 + S[i - 1]);
    t.ob[at] = ob;
    t.qi[at] = ob * bl(x, MM_INTERIOR + (tp * 5 + S[i + 1]) * 5 + S[j - 1]);
    t.oml[at] = ob * pf_ml_closing(x, i, j, tp) * x.pw[2];
}

}  // namespace turner
