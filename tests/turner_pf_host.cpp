// Host build of the GPU partition function's device code (fold/kernels/turner_pf.cuh with TURNER_HOST),
// driven as turner_pf_batch.cu drives it on the GPU, one "thread" after another: the pair types, the
// inside diagonal by diagonal, the exterior loop (the lanes of a warp one after another), the outside,
// the probabilities. tests/test_turner_pf_gpu.py builds it with g++ and compares ln Z and every
// probability with the CPU's Numba fill (fold/_turner_pf_cpu.py).
#include <cmath>
#include <vector>

#include "turner_pf.cuh"

using namespace turner;

extern "C" double pf_host(const double* B, const int* E, const unsigned char* S, int n, int no_lp, double ls,
                          double kT, double lxc, double* P) {
    std::vector<double> pw(SEG), G(GENERIC_SIZE);
    pf_weights(B, ls, pw.data(), G.data(), 0, 1);
    const size_t nn = (size_t)n * n;
    std::vector<double> mem(9 * nn + 2 * (n + 1), -12345.0);  // not zero: every cell must write its entries
    std::vector<unsigned char> pt(nn, 99);
    PfTables t;
    t.qb = mem.data(); t.qm = t.qb + nn; t.qm1 = t.qm + nn; t.qi = t.qm1 + nn; t.r = t.qi + nn;
    t.ob = t.r + nn; t.om = t.ob + nn; t.oml = t.om + nn; t.om1 = t.oml + nn;
    t.q5 = t.om1 + nn; t.q3 = t.q5 + n + 1; t.pt = pt.data();
    const PfCtx x{B, E, S, n, pw.data(), G.data(), ls, kT, lxc};
    for (int d = 0; d < n; ++d)
        for (int i = 0; i + d < n; ++i) pf_first_cell(x, t, no_lp != 0, i, d);
    for (int d = 4; d < n; ++d)
        for (int i = 0; i + d < n; ++i) pf_inside_cell(x, t, i, d);
    t.q5[0] = 1.0;
    for (int j = 0; j < n; ++j) {
        double z = 0.0;
        for (int lane = 0; lane < 32; ++lane) z += pf_q5_part(x, t, j, lane, 32);
        t.q5[j + 1] = t.q5[j] * pw[1] + z;
    }
    t.q3[n] = 1.0;
    for (int i = n - 1; i >= 0; --i) {
        double z = 0.0;
        for (int lane = 0; lane < 32; ++lane) z += pf_q3_part(x, t, i, lane, 32);
        t.q3[i] = t.q3[i + 1] * pw[1] + z;
    }
    const double z = t.q5[n];
    for (int d = n - 1; d >= 4; --d)
        for (int i = 0; i + d < n; ++i) pf_outside_cell(x, t, i, d);
    for (int d = 4; d < n; ++d)
        for (int i = 0; i + d < n; ++i)
            P[(size_t)i * n + i + d] = t.pt[d * n + i] ? t.qb[d * n + i] * t.ob[d * n + i] / z : 0.0;
    return std::log(z);
}
