// BPPart on the GPU (interact/_partition_gpu.py, variant "diagonals"): docs/bppart.md's recurrence in
// bioaccel's form, FP64, many (query, target) pairs of one query per launch.
//
// Layout: every table is a square (N + 1) x (N + 1) matrix over reversed-target intervals [b0, b1) per
// query interval, the query intervals numbered length by length as _partition_cpu.interval_index numbers
// them, one block of n_int matrices per pair: T[p][interval(a0, a1)][b0][b1]. N is the launch's longest
// target; a pair of Np < N bases uses the cells b1 <= Np of its matrices. The level-local matrices (T1,
// AUX1 and the two cross sums ACCA, ACCM; the diagonal sweep: T1, AUX1T, QFT transposed) hold one matrix
// per query interval of the level being filled: L[p][a0][b0][b1]. Cells never written are zero, which
// the recurrence reads as "no structure".
//
// One level (query intervals of one length l1) is two launches:
// - bppart_cross: QIa's and QIm's double sums over the other query intervals (the triangular matrix
//   products of _partition_cpu._query_interval), a tiled FP64 product per (pair, interval, output tile);
//   the matrices' zeros below the diagonal bound the reduction, so no cell needs a mask;
// - bppart_tiles (production): every cell of the level by tiles, tile diagonal after tile diagonal (below);
// - bppart_sweep (the first design, the benchmark's peer): every cell of the level, target diagonal by
//   target diagonal (l2 = b1 - b0), a warp per cell; a cell reads its own interval's cells of shorter l2
//   only (rows below, the row to its left), so one diagonal is parallel; a persistent grid with a
//   barrier between diagonals.
// The persistent grids are sized to be resident at once (multiprocessors x blocks_per_sm, which the
// launch bounds allow), as their software barrier needs.
// (no standard headers: NVRTC has no C++ standard library here)
#include "bppart_tile.cuh"

// The packed index of the query interval [i, e) among M + 1 ... (by length, then start).
__device__ __forceinline__ long long interval(int M, int i, int e) {
    const long long len = e - i;
    return len * (M + 1) - len * (len - 1) / 2 + i;
}

__device__ __forceinline__ double warp_sum(double v) {
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
    return v;
}

// QI of the empty intervals: an empty target interval is the query interval alone (Q0), an empty query
// interval the target interval alone (Q1); every other cell starts at zero (cp.zeros).
__global__ void bppart_init(double* __restrict__ QI, const double* __restrict__ Q0, const double* __restrict__ Q1,
                            const int* __restrict__ Np, int M, int N, int n_int, int pairs) {
    const int n1 = N + 1;
    const size_t S = (size_t)n1 * n1;
    const long long diagonal = (long long)pairs * (M + 1) * (M + 1) * n1;
    const long long empty = (long long)pairs * (M + 1) * n1 * n1;
    const long long stride = (long long)gridDim.x * blockDim.x;
    for (long long t = blockIdx.x * (long long)blockDim.x + threadIdx.x; t < diagonal + empty; t += stride) {
        if (t < diagonal) {
            const int c = t % n1;
            const long long rest = t / n1;
            const int e = rest % (M + 1), i = (rest / (M + 1)) % (M + 1), p = rest / ((M + 1) * (M + 1));
            if (e < i || c > Np[p]) continue;
            QI[((size_t)p * n_int + interval(M, i, e)) * S + (size_t)c * n1 + c] = Q0[i * (M + 1) + e];
        } else {
            const long long u = t - diagonal;
            const int d = u % n1, c = (u / n1) % n1;
            const long long rest = u / S;
            const int i = rest % (M + 1), p = rest / (M + 1);
            if (d < c || d > Np[p]) continue;
            QI[((size_t)p * n_int + interval(M, i, i)) * S + (size_t)c * n1 + d] = Q1[p * S + (size_t)c * n1 + d];
        }
    }
}

// The double sums of the level l1 for each (pair, query interval [a0, a0 + l1), output tile (I, J)):
//   ACCA[b0, b1] = sum_{k1 = a0 .. a1-2} sum_k QIac([a0, k1+1))[b0, k] * QI([k1+1, a1))[k, b1]
//   ACCM[b0, b1] = sum_{k1 = a0+1 .. a1-1} sum_k QF([a0, k1))[b0, k] * QIac([k1, a1))[k, b1]
// k over (b0, b1] (QIa) or (b0, b1 - 1] (QIm): the left matrices are zero at k <= b0 and the right ones
// at k > b1 (and QIac at k = b1), so the sum over the tile's whole k range is exact. 4 x 4 cells a thread.
// gridDim.z > 1 splits the l1 - 1 products of each sum among blocks (a single pair's deep levels have
// few tiles): each adds its part with atomicAdd into ACCA / ACCM, zeroed by the host.
template <int TILE, int KC>
__global__ void __launch_bounds__((TILE / 4) * (TILE / 4))
bppart_cross(const double* __restrict__ QIac, const double* __restrict__ QI, const double* __restrict__ QF,
             double* __restrict__ ACCA, double* __restrict__ ACCM, const int* __restrict__ Np,
             int M, int N, int n_int, int l1, int nt) {
    constexpr int TPR = TILE / 4;
    constexpr int THREADS = TPR * TPR;
    static_assert(TILE % 4 == 0 && (TILE * KC) % THREADS == 0, "tile and chunk must share the threads evenly");
    __shared__ double As[TILE][KC + 1];   // +1: the two rows a warp reads fall in different banks
    __shared__ double Bs[KC][TILE];
    const int I = blockIdx.x / nt, J = blockIdx.x % nt;
    if (J < I) return;
    const int mats = M - l1 + 1;
    const int p = blockIdx.y / mats, a0 = blockIdx.y % mats, a1 = a0 + l1;
    const int n = Np[p];
    const int r0 = I * TILE, c0 = J * TILE;
    if (r0 > n) return;
    const int n1 = N + 1;
    const size_t S = (size_t)n1 * n1;
    const size_t tb = (size_t)p * n_int * S;
    const int kbeg = r0 + 1, kend = min(c0 + TILE, n + 1);
    const int tx = threadIdx.x % TPR, ty = threadIdx.x / TPR;
    for (int which = 0; which < 2; ++which) {
        double acc[4][4];
        cross_zero(acc);
        const int first = which == 0 ? a0 : a0 + 1, last = which == 0 ? a1 - 2 : a1 - 1;
        for (int k1 = first + blockIdx.z; k1 <= last; k1 += gridDim.z) {
            const double* L = which == 0 ? QIac + tb + interval(M, a0, k1 + 1) * S : QF + tb + interval(M, a0, k1) * S;
            const double* R = which == 0 ? QI + tb + interval(M, k1 + 1, a1) * S : QIac + tb + interval(M, k1, a1) * S;
            for (int k0 = kbeg; k0 < kend; k0 += KC) {
                for (int e = threadIdx.x; e < TILE * KC; e += THREADS) {
                    const int r = e / KC, k = e % KC, row = r0 + r, col = k0 + k;
                    As[r][k] = (row <= n && col < kend) ? L[(size_t)row * n1 + col] : 0.0;
                }
                for (int e = threadIdx.x; e < TILE * KC; e += THREADS) {
                    const int k = e / TILE, c = e % TILE, row = k0 + k, col = c0 + c;
                    Bs[k][c] = (row < kend && col <= n) ? R[(size_t)row * n1 + col] : 0.0;
                }
                __syncthreads();
                cross_chunk<KC, TPR, TPR>(As, Bs, ty, tx, acc);
                __syncthreads();
            }
        }
        double* out = (which == 0 ? ACCA : ACCM) + ((size_t)p * M + a0) * S;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int row = r0 + ty + TPR * i, col = c0 + tx + TPR * j;
                if (row <= n && col <= n) {
                    cross_put(out + (size_t)row * n1 + col, acc[i][j]);
                }
            }
    }
}

// Every cell of the level l1, target diagonal after diagonal (l2 = 1 .. max_n), a warp per cell (its
// sums split over the lanes). Reads of what this launch writes (T1, AUX1T, QFT, the interval's QIac) go
// around the non-coherent L1 (__ldcg): another block wrote them before the last barrier.
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
bppart_sweep(const unsigned char* __restrict__ a, const unsigned char* __restrict__ rb, const int* __restrict__ Np,
             const double* __restrict__ Q0, const double* __restrict__ Q1, const double* __restrict__ Q1T,
             const double* __restrict__ W, double* QI, double* QX, double* QIac, double* QF, double* R, double* T0,
             double* AUX0, double* T1, double* AUX1T, double* QFT, const double* __restrict__ ACCA,
             const double* __restrict__ ACCM, int M, int N, int n_int, int l1, int pairs, int max_n,
             unsigned int* counter) {
    const int lane = threadIdx.x & 31;
    const long long warps = (long long)gridDim.x * THREADS / 32;
    const int mats = M - l1 + 1, M1 = M + 1, n1 = N + 1;
    const size_t S = (size_t)n1 * n1;
    for (int l2 = 1; l2 <= max_n; ++l2) {
        const long long per_mat = max_n - l2 + 1;
        const long long items = (long long)pairs * mats * per_mat;
        for (long long item = (blockIdx.x * (long long)THREADS + threadIdx.x) / 32; item < items; item += warps) {
            const int b0 = item % per_mat;
            const long long pm = item / per_mat;
            const int a0 = pm % mats, p = pm / mats;
            const int b1 = b0 + l2, a1 = a0 + l1;
            if (b1 > Np[p]) continue;
            const size_t tb = (size_t)p * n_int * S, lb = ((size_t)p * M + a0) * S, c = (size_t)b0 * n1 + b1;
            const size_t A = tb + interval(M, a0, a1) * S;
            const double* q1 = Q1 + p * S;
            const double* w1 = W + p * 75;   // pairs inside the query, inside the target, intermolecular
            const double* w2 = w1 + 25;
            const double* wi = w1 + 50;
            double ps0 = 0.0, pa0 = 0.0, pqx = 0.0, ps1 = 0.0, paux = 0.0, pqia = 0.0, pr = 0.0;
            for (int k = a0 + lane; k <= a1 - 1; k += 32) {   // the sums over other query intervals
                if (l1 >= 5 && k >= a0 + 1 && k <= a1 - 2)
                    ps0 += Q0[(a0 + 1) * M1 + k] * AUX0[tb + interval(M, k, a1 - 1) * S + c];
                if (k <= a1 - 2) pa0 += Q0[(k + 1) * M1 + a1] * T0[tb + interval(M, a0, k + 1) * S + c];
                if (k >= a0 + 1) pqx += Q0[a0 * M1 + k] * R[tb + interval(M, k, a1) * S + c];
            }
            const double* t1row = T1 + lb + (size_t)b0 * n1;
            const double* qiacrow = QIac + A + (size_t)b0 * n1;
            const double* q1tb1 = Q1T + p * S + (size_t)b1 * n1;
            const double* qftrow = QFT + lb + (size_t)b1 * n1;
            const double* q1b0 = q1 + (size_t)b0 * n1;
            const double* aux1row = AUX1T + lb + (size_t)(b1 - 1) * n1;
            const double* q1b01 = q1 + (size_t)(b0 + 1) * n1;
            for (int k = b0 + 1 + lane; k < b1; k += 32) {    // this interval's cells of shorter l2
                const double qt = q1tb1[k];
                paux += __ldcg(t1row + k) * qt;
                pqia += __ldcg(qiacrow + k) * qt;
                pr += q1b0[k] * __ldcg(qftrow + k);
                if (k <= b1 - 2) ps1 += q1b01[k] * __ldcg(aux1row + k);
            }
            ps0 = warp_sum(ps0); pa0 = warp_sum(pa0); pqx = warp_sum(pqx); ps1 = warp_sum(ps1);
            paux = warp_sum(paux); pqia = warp_sum(pqia); pr = warp_sum(pr);
            const int x0 = a[a0], x1 = a[a1 - 1], y0 = rb[(size_t)p * N + b0], y1 = rb[(size_t)p * N + b1 - 1];
            const double s0 = l1 >= 5 ? w1[x0 * 5 + x1] * ps0 : 0.0;
            const double s1 = l2 >= 5 ? w2[y0 * 5 + y1] * ps1 : 0.0;
            double m = 0.0;   // QIm: first element at (a0, b0), last at (a1 - 1, b1 - 1)
            if (l1 == 1 && l2 == 1)
                m = wi[x0 * 5 + y0];
            else if (l1 >= 2 && l2 >= 2)
                m = ACCM[lb + c] + wi[x1 * 5 + y1] * QF[tb + interval(M, a0, a1 - 1) * S + (size_t)b0 * n1 + b1 - 1];
            const double t0 = s0 + m, t1 = s1 + m;
            double both = 0.0;
            if (l1 >= 5 && l2 >= 5)
                both = QX[tb + interval(M, a0 + 1, a1 - 1) * S + (size_t)(b0 + 1) * n1 + b1 - 1] * w1[x0 * 5 + x1]
                       * w2[y0 * 5 + y1];
            const double closed = s0 + s1 + both;
            const double qia = (l1 >= 2 ? ACCA[lb + c] : 0.0) + pqia + closed;
            const double qf = wi[x0 * 5 + y0] * QI[tb + interval(M, a0 + 1, a1) * S + (size_t)(b0 + 1) * n1 + b1] + qia;
            const double r = pr + qf;
            const double qx = pqx + r;
            if (lane == 0) {
                T0[A + c] = t0;
                T1[lb + c] = t1;
                AUX0[A + c] = pa0 + t0;
                AUX1T[lb + (size_t)b1 * n1 + b0] = paux + t1;
                QIac[A + c] = closed;
                QF[A + c] = qf;
                QFT[lb + (size_t)b1 * n1 + b0] = qf;
                R[A + c] = r;
                QX[A + c] = qx;
                QI[A + c] = Q0[a0 * M1 + a1] * q1[(size_t)b0 * n1 + b1] + qx;
            }
        }
        if (l2 < max_n) grid_barrier(counter, (unsigned int)l2 * gridDim.x);
    }
}

// Every cell of the level l1 by B x B tiles of each target matrix, tile diagonal after tile diagonal
// (d = J - I), a persistent grid with a barrier between tile diagonals; a block per tile. A cell's four
// sums along the target split into a far part, over tiles of earlier tile diagonals (complete: a
// block-local matrix product of staged tiles, every thread its cell), and a near part inside the tile
// (its B cells of the row or column), swept by the tile's local diagonals in shared memory. The level
// tables T1 and AUX1 (row-major here) and unwritten cells are zero, which bounds every far sum.
template <int B>
__global__ void __launch_bounds__(B * B, 2)
bppart_tiles(const unsigned char* __restrict__ a, const unsigned char* __restrict__ rb, const int* __restrict__ Np,
             const double* __restrict__ Q0, const double* __restrict__ Q1, const double* __restrict__ W, double* QI,
             double* QX, double* QIac, double* QF, double* R, double* T0, double* AUX0, double* T1, double* AUX1,
             const double* __restrict__ ACCA, const double* __restrict__ ACCM, int M, int N, int n_int, int l1,
             int pairs, int nt, unsigned int* counter) {
    __shared__ double X[7][B][B + 1];       // far operands; then Q1 tiles (I, I) and (J, J) in X[0], X[1]
    __shared__ double C[4][B][B + 1];       // this tile's T1, QIac, QF, AUX1
    __shared__ double V[8][B][B + 1];       // per cell: far sums and the terms over other query intervals
    __shared__ double halo[B];              // AUX1 at column J B - 1, rows of block I (tile (I, J - 1))
    const int ti = threadIdx.x / B, tj = threadIdx.x % B;
    const int mats = M - l1 + 1, M1 = M + 1, n1 = N + 1;
    const size_t S = (size_t)n1 * n1;
    for (int d = 0; d < nt; ++d) {
        const long long items = (long long)pairs * mats * (nt - d);
        for (long long item = blockIdx.x; item < items; item += gridDim.x) {
            const int I = item % (nt - d);
            const long long pm = item / (nt - d);
            const int a0 = pm % mats, p = pm / mats, J = I + d, a1 = a0 + l1;
            const int n = Np[p], IB = I * B, JB = J * B;
            if (IB > n) continue;                  // block-uniform
            const size_t tb = (size_t)p * n_int * S, lb = ((size_t)p * M + a0) * S;
            const size_t A = tb + interval(M, a0, a1) * S;
            const double* q1 = Q1 + p * S;
            const double* w1 = W + p * 75;
            const double* w2 = w1 + 25;
            const double* wi = w1 + 50;
            const int b0 = IB + ti, b1 = JB + tj, l2 = b1 - b0;
            const bool valid = b0 < b1 && b1 <= n;
            const size_t c = (size_t)b0 * n1 + b1;
            const int x0 = a[a0], x1 = a[a1 - 1];
            const int y0 = valid ? rb[(size_t)p * N + b0] : 4, y1 = valid ? rb[(size_t)p * N + b1 - 1] : 4;
            // the terms over other query intervals (previous launches wrote them)
            double s0 = 0.0, m = 0.0, both = 0.0, pqx = 0.0, qfbase = 0.0, qibase = 0.0, acca = 0.0;
            if (valid) {
                double ps0 = 0.0, pa0 = 0.0;
                for (int k = a0; k <= a1 - 1; ++k) {
                    if (l1 >= 5 && k >= a0 + 1 && k <= a1 - 2)
                        ps0 += Q0[(a0 + 1) * M1 + k] * AUX0[tb + interval(M, k, a1 - 1) * S + c];
                    if (k <= a1 - 2) pa0 += Q0[(k + 1) * M1 + a1] * T0[tb + interval(M, a0, k + 1) * S + c];
                    if (k >= a0 + 1) pqx += Q0[a0 * M1 + k] * R[tb + interval(M, k, a1) * S + c];
                }
                bppart_outer_terms(l1, l2, w1, w2, wi, x0, x1, y0, y1, ps0, pa0, ACCM + (lb + c), ACCA + (lb + c),
                                   QF + (tb + interval(M, a0, a1 - 1) * S + (size_t)b0 * n1 + b1 - 1),
                                   QX + (tb + interval(M, a0 + 1, a1 - 1) * S + (size_t)(b0 + 1) * n1 + b1 - 1),
                                   QI + (tb + interval(M, a0 + 1, a1) * S + (size_t)(b0 + 1) * n1 + b1),
                                   Q0[a0 * M1 + a1], q1[c], T0 + (A + c), AUX0 + (A + c), s0, m, both, acca, qfbase,
                                   qibase);
            }
            // far sums over the tiles of earlier tile diagonals (this launch wrote them: __ldcg)
            double fa = 0.0, fq = 0.0, fr = 0.0, fs = 0.0;
            auto load = [&](int K, double (&v)[7]) {
                const int KB = K * B, row = IB + ti, col = KB + tj;
                if (K < J) {
                    const bool in = row <= N && col <= N;
                    v[0] = in ? __ldcg(T1 + lb + (size_t)row * n1 + col) : 0.0;
                    v[1] = in ? __ldcg(QIac + A + (size_t)row * n1 + col) : 0.0;
                    v[2] = (KB + ti <= N && JB + tj <= N) ? q1[(size_t)(KB + ti) * n1 + JB + tj] : 0.0;
                }
                if (K > I) {
                    v[3] = (row <= N && col <= N) ? q1[(size_t)row * n1 + col] : 0.0;
                    const bool kin = KB + ti <= N && JB + tj <= N;
                    v[4] = kin ? __ldcg(QF + A + (size_t)(KB + ti) * n1 + JB + tj) : 0.0;
                    v[5] = (row + 1 <= N && col <= N) ? q1[(size_t)(row + 1) * n1 + col] : 0.0;
                    v[6] = (KB + ti <= N && JB + tj - 1 <= N) ? __ldcg(AUX1 + lb + (size_t)(KB + ti) * n1 + JB + tj - 1)
                                                                 : 0.0;
                }
            };
            bppart_far_sums<B, false>(X, I, J, d, ti, tj, load, fa, fq, fr, fs);
            bppart_keep_far<B>(V, ti, tj, fs, m, fa, acca, fq, s0, both, qfbase, fr, pqx);
            X[0][ti][tj] = (IB + ti <= N && IB + tj <= N) ? q1[(size_t)(IB + ti) * n1 + IB + tj] : 0.0;
            X[1][ti][tj] = (JB + ti <= N && JB + tj <= N) ? q1[(size_t)(JB + ti) * n1 + JB + tj] : 0.0;
            if (threadIdx.x < B)
                halo[threadIdx.x] = (d >= 1 && IB + threadIdx.x <= N) ? __ldcg(AUX1 + lb + (size_t)(IB + threadIdx.x) * n1 + JB - 1)
                                                                     : 0.0;
            __syncthreads();
            bppart_near<B>(X, C, V, halo, ti, tj, valid, IB, JB, b0, b1, l2, w2, y0, y1, qibase, c, T1 + lb, AUX1 + lb,
                           QIac + A, QF + A, R + A, QX + A, QI + A);
        }
        if (d + 1 < nt) grid_barrier(counter, (unsigned int)(d + 1) * gridDim.x);
    }
}
