// McCaskill's partition function and base-pair probabilities of ONE long RNA on the GPU, FP64 (variant
// "tiled" of the Turner partition function; host: bioaccel/fold/_turner_pf_long_gpu.py). The recurrences
// are docs/mccaskill.md's with one change: the multiloop sum is kept as its own table,
//   S(i, j) = sum_{u=i+5}^{j-4} QM(i, u-1) QM1(u, j),   QM = R + S,   QB's multiloop = S(i+1, j-1) MLc(i, j),
// so the inside has one O(n^3) sum, and the outside, with OS(i, j) = dZ/dS(i, j) = OM(i, j) + OML(i-1, j+1),
//   OM(i, j)  = sum_{jj>=j+5} OS(i, jj) QM1(j+1, jj),   OM1(i, j) = T(i, j) + b OM1(i, j+1) + sum_{a<=i-5} OS(a, j) QM(a, i-1)
// two. Five N x N float64 tables, N = n rounded up to TILE, row-major, (i, j) upper = [i][j], lower = [j][i]:
//   QB: qb upper, ob lower (before the outside, the lower holds qb times the exterior stem for q5);
//   QM: qm upper, OS lower;  QM1: qm1 upper, om1 lower;  X: S upper, R then T lower;
//   QI: qb times the inner pair's interior mismatch (generic interior loops in one multiply-add), then ob
//   times the outer one (upper, as the CPU).
// Tile-diagonal by tile-diagonal (tiles (I, I + D), TILE x TILE cells), the inside from the main diagonal
// out and the outside back: pf_product, the O(n^3) sums over splits k in finished tiles (a register-tiled
// FP64 product into a scratch tile), then pf_inside_finish / pf_outside_finish, one block per tile, its
// anti-diagonals in turn (a barrier each), LANES threads per cell: the rest of the sums, hairpin and
// interior loops, the cell's own recurrences. q5 and q3 (pf_exterior) between the two, P at the end.
#include "turner_pf_long.cuh"

namespace pflong {

// Where a tile's O(n^3) sum takes its splits k and its two operands A(i, k), B(k, j) (local i, j).
//   mode 0 (inside S):  k in [(I+1)T, JT + 1), A = QM(i, k-1) = QM[i][k-1], B = QM1(k, j) = QM1[k][j]
//   mode 1 (outside OM): k in [(J+1)T, n),    A = OS(i, k) = QM[k][i],    B = QM1(j+1, k) = QM1[j+1][k]
//   mode 2 (outside OM1): k in [0, IT),       A = QM(k, i-1) = QM[k][i-1], B = OS(k, j) = QM[j][k]
__device__ __forceinline__ void product_range(int mode, int I, int J, int T, int n, int& k0, int& k1) {
    if (mode == 0) { k0 = (I + 1) * T; k1 = J * T + 1; }
    else if (mode == 1) { k0 = (J + 1) * T; k1 = n; }
    else { k0 = 0; k1 = I * T; }
    if (k1 < k0) k1 = k0;
}

}  // namespace pflong

// The sequence's inputs (pflong::Pf's fields): CuPy passes arrays and scalars, not structs.
#define PF_ARGS const double* __restrict__ B, const int* __restrict__ E, const double* __restrict__ hp, \
    const unsigned char* __restrict__ S, const double* __restrict__ sc, const double* __restrict__ seg, \
    const double* __restrict__ cum, int n_, int no_lp

namespace pflong {

// A thread of a finish block (tile (I, J = I + D), TILE * LANES threads): its lane, its row r of the tile
// (thread row r = tid / LANES) and row i of the sequence; with the sequence's inputs x, its length n and
// the multiloop's unpaired-base factor mlb.
struct FinishThread {
    Pf x;
    int I, J, n, lane, r, i;
    double mlb;
};

template <int TILE, int LANES>
__device__ __forceinline__ FinishThread finish_thread(const Pf& x, int D) {
    const int I = blockIdx.x, tid = threadIdx.x;
    return FinishThread{x, I, I + D, x.n, tid % LANES, tid / LANES, I * TILE + tid / LANES, b(x, turner::ML_BASE)};
}

}  // namespace pflong

// One block per tile (I, I + D) and mode (blockIdx.y + mode0): scratch[slot][I] = the tile's sum over
// its k range. TILE x TILE cells, 256 threads of (TILE / 16)^2 cells each (rows ty + 16 x, columns
// tx + 16 y); KC splits a stage, the operands staged in shared memory.
template <int TILE, int KC>
__global__ void __launch_bounds__(256) pf_product(const double* __restrict__ QM, const double* __restrict__ QM1,
                                                  double* __restrict__ scratch, int n, long long N, int D,
                                                  int mode0) {
    constexpr int R = TILE / 16, PER = KC * TILE / 256;
    __shared__ double As[KC][TILE];
    __shared__ double Bs[KC][TILE];
    const int I = blockIdx.x, J = I + D, mode = mode0 + blockIdx.y, r0 = I * TILE, c0 = J * TILE;
    const int tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    int k0, k1;
    pflong::product_range(mode, I, J, TILE, n, k0, k1);
    double acc[R][R];
#pragma unroll
    for (int x = 0; x < R; ++x)
#pragma unroll
        for (int y = 0; y < R; ++y) acc[x][y] = 0.0;
    for (int ks = k0; ks < k1; ks += KC) {
        __syncthreads();
#pragma unroll
        for (int p = 0; p < PER; ++p) {
            const int e = tid + p * 256;
            // k along consecutive threads where the operand runs along a row in k, else i (or j)
            const int kr = e % KC, ir = e / KC;   // k fastest
            const int ic = e % TILE, kc = e / TILE;  // i or j fastest
            double a, bv;
            if (mode == 0) {
                const int k = ks + kr;
                a = k < k1 ? QM[(r0 + ir) * N + k - 1] : 0.0;
                const int k2 = ks + kc;
                bv = k2 < k1 ? QM1[k2 * N + c0 + ic] : 0.0;
                As[kr][ir] = a;
                Bs[kc][ic] = bv;
            } else if (mode == 1) {
                const int k = ks + kc;
                a = k < k1 ? QM[k * N + r0 + ic] : 0.0;
                const int k2 = ks + kr, row = c0 + ir + 1;
                bv = (k2 < k1 && row < n) ? QM1[row * N + k2] : 0.0;
                As[kc][ic] = a;
                Bs[kr][ir] = bv;
            } else {
                const int k = ks + kc;
                a = k < k1 ? QM[k * N + r0 + ic - 1] : 0.0;  // r0 >= TILE here (k1 > 0)
                const int k2 = ks + kr;
                bv = k2 < k1 ? QM[(c0 + ir) * N + k2] : 0.0;
                As[kc][ic] = a;
                Bs[kr][ir] = bv;
            }
        }
        __syncthreads();
#pragma unroll 4
        for (int kk = 0; kk < KC; ++kk) {
            double a[R], bb[R];
#pragma unroll
            for (int x = 0; x < R; ++x) a[x] = As[kk][ty + 16 * x];
#pragma unroll
            for (int y = 0; y < R; ++y) bb[y] = Bs[kk][tx + 16 * y];
#pragma unroll
            for (int x = 0; x < R; ++x)
#pragma unroll
                for (int y = 0; y < R; ++y) acc[x][y] = fma(a[x], bb[y], acc[x][y]);
        }
    }
    double* out = scratch + ((long long)blockIdx.y * gridDim.x + I) * TILE * TILE;
#pragma unroll
    for (int x = 0; x < R; ++x)
#pragma unroll
        for (int y = 0; y < R; ++y) out[(ty + 16 * x) * TILE + tx + 16 * y] = acc[x][y];
}

// The inside of the tiles (I, I + D), one block each, TILE * LANES threads: thread row r = tid / LANES
// takes cell (I TILE + r, (I + D) TILE + r + s - (TILE - 1)) at step s.
template <int TILE, int LANES>
__global__ void __launch_bounds__(TILE* LANES) pf_inside_finish(PF_ARGS, double* QB, double* QM, double* QM1,
                                                               double* X, double* QI, const double* scratch,
                                                               long long N, int D) {
    using namespace pflong;
    using namespace turner;
    const auto [x, I, J, n, lane, r, i, mlb] = finish_thread<TILE, LANES>(Pf{B, E, hp, S, sc, seg, cum, n_, no_lp}, D);
    const double* part = scratch + (long long)I * TILE * TILE;
    const int skip0 = (I + 1) * TILE, skip1 = J * TILE;  // the product's splits (none where D = 0)
    for (int s = 0; s < 2 * TILE - 1; ++s) {
        const int c = r + s - (TILE - 1), j = J * TILE + c;
        const bool active = c >= 0 && c < TILE && j < n && j - i >= 4;
        const int tp = active ? pair_type(x, i, j) : 0;
        double spec = 0.0, gen = 0.0, msum = 0.0;
        if (tp) {  // interior loops (i, j) > (p, q), the lanes taking every LANES-th u2
            for (int u1 = 0; u1 <= imin(MAX_LOOP, j - i - 6); ++u1) {
                const int p = i + 1 + u1, umax = imin(MAX_LOOP - u1, j - i - 6 - u1), top = special_top(u1, umax);
                double sp = 0.0, g = 0.0;
                for (int u2 = lane; u2 <= umax; u2 += LANES) {
                    const int q = j - 1 - u2;
                    const double right = __ldg(x.seg + (q + 1) * SEG + u2 + 1);
                    if (u2 <= top) {
                        const double z = QB[p * N + q];
                        if (z != 0.0) sp += exp_interior(x, i, j, p, q, tp, rtype(ptype(x, x.S[p], x.S[q]))) * z * right;
                    } else {
                        g += b(x, GENERIC + u2 * 31 + u1) * QI[p * N + q] * right;
                    }
                }
                const double left = __ldg(x.seg + i * SEG + u1 + 1);
                spec += sp * left;
                gen += g * left;
            }
        }
        if (active) {  // S(i, j): the splits the product did not take
            const int low_end = D > 0 ? imin(j - 4, skip0 - 1) : j - 4;
            for (int u = i + 5 + lane; u <= low_end; u += LANES) msum += QM[i * N + u - 1] * QM1[u * N + j];
            if (D > 0)
                for (int u = imax(i + 5, skip1 + 1) + lane; u <= j - 4; u += LANES)
                    msum += QM[i * N + u - 1] * QM1[u * N + j];
        }
        spec = lane_sum<LANES>(spec);
        gen = lane_sum<LANES>(gen);
        msum = lane_sum<LANES>(msum);
        if (active && lane == 0) {
            double qb = 0.0;
            if (tp) {
                qb = exp_hairpin(x, i, j, tp) * segment(x, i, j) + spec +
                     gen * b(x, MM_INTERIOR + (tp * 5 + x.S[i + 1]) * 5 + x.S[j - 1]);
                const double inner = X[(i + 1) * N + j - 1];
                if (inner != 0.0) qb += inner * ml_closing(x, i, j, tp) * __ldg(x.sc + i) * __ldg(x.sc + j);
            }
            QB[i * N + j] = qb;
            double qm1 = j - i >= 5 ? QM1[i * N + j - 1] * mlb * __ldg(x.sc + j) : 0.0;
            if (qb != 0.0) {
                if (i > 0 && j < n - 1)
                    QI[i * N + j] = qb * b(x, MM_INTERIOR + (rtype(tp) * 5 + x.S[j + 1]) * 5 + x.S[i - 1]);
                qm1 += qb * ml_stem(x, i, j, tp);
                QB[j * N + i] = qb * ext_stem(x, i, j, tp);  // for q5 (pf_exterior); the outside overwrites it
            }
            QM1[i * N + j] = qm1;
            const double rr = qm1 + X[j * N + i + 1] * mlb * __ldg(x.sc + i);
            const double sum = part[r * TILE + c] + msum;
            X[j * N + i] = rr;
            X[i * N + j] = sum;
            QM[i * N + j] = rr + sum;
        }
        __syncthreads();
    }
}

// q5 (block 0) and q3 (block 1), 1024 threads: q5[t+1] = q5[t] sc[t] + sum_k q5[k] qb(k, t) ext(k, t),
// q3[t] = q3[t+1] sc[t] + sum_l qb(t, l) ext(t, l) q3[l+1]; one position after the other.
__global__ void __launch_bounds__(1024) pf_exterior(PF_ARGS, const double* QB, long long N, double* q5,
                                                    double* q3) {
    using namespace pflong;
    const Pf x{B, E, hp, S, sc, seg, cum, n_, no_lp};
    __shared__ double warp_sums[32];
    const int n = x.n, tid = threadIdx.x;
    const bool five = blockIdx.x == 0;
    if (tid == 0) {
        if (five) q5[0] = 1.0;
        else q3[n] = 1.0;
    }
    __syncthreads();
    for (int step = 0; step < n; ++step) {
        const int t = five ? step : n - 1 - step;
        double v = 0.0;
        if (five) {
            for (int k = tid; k <= t - 4; k += 1024) v += q5[k] * QB[t * N + k];  // lower: qb(k, t) ext(k, t)
        } else {
            for (int l = t + 4 + tid; l < n; l += 1024) {
                const double z = QB[t * N + l];
                if (z != 0.0) v += z * ext_stem(x, t, l, ptype(x, x.S[t], x.S[l])) * q3[l + 1];
            }
        }
        for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
        if (tid % 32 == 0) warp_sums[tid / 32] = v;
        __syncthreads();
        if (tid < 32) {
            v = warp_sums[tid];
            for (int m = 16; m > 0; m /= 2) v += __shfl_xor_sync(0xffffffffu, v, m);
            if (tid == 0) {
                if (five) q5[t + 1] = q5[t] * __ldg(x.sc + t) + v;
                else q3[t] = q3[t + 1] * __ldg(x.sc + t) + v;
            }
        }
        __syncthreads();
    }
}

// The outside of the tiles (I, I + D), the anti-diagonals from the tile's far corner back; cell (i, j):
// om, T, OS, om1, then ob and its OI (the order within a cell of docs/mccaskill.md).
template <int TILE, int LANES>
__global__ void __launch_bounds__(TILE* LANES) pf_outside_finish(PF_ARGS, double* QB, double* QM, double* QM1,
                                                                double* X, double* QI, const double* scratch,
                                                                const double* q5, const double* q3, long long N,
                                                                int D) {
    using namespace pflong;
    using namespace turner;
    const auto [x, I, J, n, lane, r, i, mlb] = finish_thread<TILE, LANES>(Pf{B, E, hp, S, sc, seg, cum, n_, no_lp}, D);
    const double* part_om = scratch + (long long)I * TILE * TILE;
    const double* part_om1 = scratch + ((long long)gridDim.x + I) * TILE * TILE;
    for (int s = 2 * TILE - 2; s >= 0; --s) {
        const int c = r + s - (TILE - 1), j = J * TILE + c;
        const bool active = c >= 0 && c < TILE && j < n && j - i >= 4;
        const int tp = active ? pair_type(x, i, j) : 0;
        double om = 0.0, o1 = 0.0, spec = 0.0, gen = 0.0;
        if (active) {
            const int jend = imin(n, (J + 1) * TILE);  // OS(i, jj) QM1(j+1, jj) in this tile's columns
            for (int jj = j + 5 + lane; jj < jend; jj += LANES) om += QM[jj * N + i] * QM1[(j + 1) * N + jj];
            for (int a = I * TILE + lane; a <= i - 5; a += LANES) o1 += QM[j * N + a] * QM[a * N + i - 1];
        }
        if (tp) {  // interior loops (a, b) > (i, j)
            const int tq = rtype(tp);
            for (int u1 = 0; u1 <= imin(MAX_LOOP, i - 1); ++u1) {
                const int a = i - 1 - u1, umax = imin(MAX_LOOP - u1, n - j - 2), top = special_top(u1, umax);
                double sp = 0.0, g = 0.0;
                for (int u2 = lane; u2 <= umax; u2 += LANES) {
                    const int bb = j + 1 + u2;
                    const double right = __ldg(x.seg + (j + 1) * SEG + u2 + 1);
                    if (u2 <= top) {
                        const double z = QB[bb * N + a];
                        if (z != 0.0) sp += z * exp_interior(x, a, bb, i, j, ptype(x, x.S[a], x.S[bb]), tq) * right;
                    } else {
                        g += b(x, GENERIC + u2 * 31 + u1) * QI[a * N + bb] * right;
                    }
                }
                const double left = __ldg(x.seg + a * SEG + u1 + 1);
                spec += sp * left;
                gen += g * left;
            }
        }
        om = lane_sum<LANES>(om);
        o1 = lane_sum<LANES>(o1);
        spec = lane_sum<LANES>(spec);
        gen = lane_sum<LANES>(gen);
        if (active && lane == 0) {
            om += part_om[r * TILE + c];
            const double t = om + (i > 0 ? X[j * N + i - 1] * mlb * __ldg(x.sc + i - 1) : 0.0);
            X[j * N + i] = t;
            double os = om;
            if (i > 0 && j < n - 1) {
                const int to = pair_type(x, i - 1, j + 1);
                if (to)
                    os += QB[(j + 1) * N + i - 1] * ml_closing(x, i - 1, j + 1, to) * __ldg(x.sc + i - 1) *
                          __ldg(x.sc + j + 1);
            }
            QM[j * N + i] = os;
            o1 += t + part_om1[r * TILE + c];
            if (j + 1 < n) o1 += QM1[(j + 1) * N + i] * mlb * __ldg(x.sc + j + 1);
            QM1[j * N + i] = o1;
            if (tp) {
                double ob = q5[i] * ext_stem(x, i, j, tp) * q3[j + 1] + o1 * ml_stem(x, i, j, tp) + spec;
                if (i > 0 && j < n - 1) ob += gen * b(x, MM_INTERIOR + (rtype(tp) * 5 + x.S[j + 1]) * 5 + x.S[i - 1]);
                QB[j * N + i] = ob;
                QI[i * N + j] = ob * b(x, MM_INTERIOR + (tp * 5 + x.S[i + 1]) * 5 + x.S[j - 1]);
            }
        }
        __syncthreads();
    }
}

// P(i, j) = qb(i, j) ob(i, j) / Z into the n x n row-major out (zero on and below the diagonal).
__global__ void pf_probabilities(const double* __restrict__ QB, long long N, int n, double inv_z,
                                 double* __restrict__ out) {
    const long long e = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (e >= (long long)n * n) return;
    const int i = (int)(e / n), j = (int)(e % n);
    double p = 0.0;
    if (j - i >= 4) {
        const double z = QB[i * N + j];
        if (z != 0.0) p = z * QB[j * N + i] * inv_z;
    }
    out[e] = p;
}
