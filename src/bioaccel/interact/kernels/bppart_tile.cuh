// The pieces of a BPPart tile that the square tables (kernels/bppart.cu, bppart_tiles) and the band
// tables (kernels/bppart_band.cu, bppart_band_tiles) share: the two differ only in how a cell's global
// address is formed and masked, never in the arithmetic of a tile once its operands are in shared
// memory. Every function here is called by all B x B threads of the block (they hold __syncthreads).
// (no headers: NVRTC has no C++ standard library here)
#pragma once

// All blocks of the grid meet here (they are all resident: the host sizes the grid to the device).
// ``target``: the number of arrivals that completes this round, (round + 1) * gridDim.x.
__device__ __forceinline__ void grid_barrier(unsigned int* counter, unsigned int target) {
    __syncthreads();
    if (threadIdx.x == 0) {
        __threadfence();
        atomicAdd(counter, 1u);
        while (*(volatile unsigned int*)counter < target) __nanosleep(40);
        __threadfence();
    }
    __syncthreads();
}

// The band tables' row pitch (v38, kernels/bppart_band.cu): a row of W1 = L2 + 1 cells, and one pad cell more where W1
// is even (L2 odd: even windows), so that cell (row, col) lies at row (P - 1) + col with P - 1 even and a pair of
// doubles (col even, col + 1) starts 16 bytes aligned in every row (the cross ring's 16-byte copies, FORM bits 21-22:
// v37 found that the rows alternating their alignment cost bank conflicts). No kernel writes a pad; the host zeroes
// the cross's operand tables' pads (_Tables.fill), so that a pair that straddles the band's edge (the pad left of a
// row's first cell is the row before's last, o = -1, or right of its last, o = L2 + 1) reads a zero there.
__device__ __forceinline__ int band_pitch(int W1) { return W1 | 1; }

// FP64 tensor-core products (DMMA) that the cross products (kernels/bppart_band.cu) and the sweep's far part
// (bppart_far_sums_async) share. mma.sync m8n8k4 f64: C (8 x 8) += A (8 x 4) B (4 x 8); lane = 4 g + t holds A[g][t]
// in a, B[t][g] in b, C[g][2 t + h] in ch.
__device__ __forceinline__ void mma_m8n8k4(double& c0, double& c1, double a, double b) {
    asm("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
        : "+d"(c0), "+d"(c1)
        : "d"(a), "d"(b));
}

// Hopper's larger FP64 shapes (v17, sm_90): C (16 x 8) += A (16 x 4 U) B (4 U x 8) by one mma.sync m16n8k4 (U = 1),
// m16n8k8 (2) or m16n8k16 (4). Fragments (PTX ISA, mma.m16n8kK .f64; lane = 4 g + t): A[g + 8 v][t + 4 u] in
// a[v + 2 u], B[t + 4 u][g] in b[u], C[g + 8 i][2 t + h] in c<i><h>. m16n8k4 sums a cell's 4 products as m8n8k4 does;
// k8 and k16 sum 8 or 16 in one instruction and on an H100 give the bits of m8n8k4's chain, 4 at a time, too (v17:
// the cross products; v18: the sweep's far part). Before Hopper (no such shapes): m8n8k4 over the same groups of 4
// in order, each 8-row half its own chain (the same bits).
template <int U>
__device__ __forceinline__ void mma_m16n8(double& c00, double& c01, double& c10, double& c11, const double (&a)[2 * U],
                                          const double (&b)[U]) {
    static_assert(U == 1 || U == 2 || U == 4, "m16n8k4, m16n8k8 or m16n8k16");
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 900
#pragma unroll
    for (int u = 0; u < U; ++u) {
        mma_m8n8k4(c00, c01, a[2 * u], b[u]);
        mma_m8n8k4(c10, c11, a[2 * u + 1], b[u]);
    }
#else
    if constexpr (U == 1) {
        asm("mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
            : "+d"(c00), "+d"(c01), "+d"(c10), "+d"(c11)
            : "d"(a[0]), "d"(a[1]), "d"(b[0]));
    } else if constexpr (U == 2) {
        asm("mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+d"(c00), "+d"(c01), "+d"(c10), "+d"(c11)
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    } else {
        asm("mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, "
            "{%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
            : "+d"(c00), "+d"(c01), "+d"(c10), "+d"(c11)
            : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
              "d"(b[1]), "d"(b[2]), "d"(b[3]));
    }
#endif
}

// One far step's four dot products for a thread's cell, by fma over k in order: QIa's and QIac's rows by
// the column tile while K < J, the two Q1 products while K > I (X: the step's 7 tiles, any row pitch).
template <int B, class Tiles>
__device__ __forceinline__ void bppart_far_step(Tiles X, int I, int J, int K, int ti, int tj, bool multiply,
                                                double& fa, double& fq, double& fr, double& fs) {
    if (K < J && multiply) {
#pragma unroll
        for (int k = 0; k < B; ++k) {
            fa += X[0][ti][k] * X[2][k][tj];
            fq += X[1][ti][k] * X[2][k][tj];
        }
    }
    if (K > I && multiply) {
#pragma unroll
        for (int k = 0; k < B; ++k) {
            fr += X[3][ti][k] * X[4][k][tj];
            fs += X[5][ti][k] * X[6][k][tj];
        }
    }
}

// A cell's far sums over the tiles K = I .. J of earlier tile diagonals (none on the first, d = 0): per
// K, ``load(K, v)`` reads this thread's values of the layout's tiles into v (T1 and QIac of (I, K) and Q1
// of (K, J) where K < J: v[0..2]; Q1 of (I, K) and of its next row, QF and AUX1 shifted of (K, J) where
// K > I: v[3..6]), stored into X, then this thread's cell of the block-local products: fa, fq (T1 and
// QIac by Q1), fr (Q1 by QF), fs (Q1 shifted by AUX1). PREFETCH: the loads of tile K + 1 in flight while
// tile K multiplies (read into registers, stored at the top of the next step). The same products in the
// same order of k either way. ``multiply``: false where no cell reads this thread's sums (they stay 0).
template <int B, bool PREFETCH, class Load>
__device__ __forceinline__ void bppart_far_sums(double (*X)[B][B + 1], int I, int J, int d, int ti, int tj,
                                                Load load, double& fa, double& fq, double& fr, double& fs,
                                                bool multiply = true) {
    if (d < 1) return;
    double v[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0};
    if (PREFETCH) load(I, v);
    for (int K = I; K <= J; ++K) {
        if (!PREFETCH) load(K, v);
#pragma unroll
        for (int t = 0; t < 7; ++t)
            if (t < 3 ? K < J : K > I) X[t][ti][tj] = v[t];
        __syncthreads();
        if (PREFETCH && K < J) load(K + 1, v);
        bppart_far_step<B>(X, I, J, K, ti, tj, multiply, fa, fq, fr, fs);
        __syncthreads();
    }
}

// The 16 x 8 output block of the far sums that warp ``w`` takes under bppart_far_sums_async's SHAPE > 0: sum
// (0: T1 by Q1, 1: QIac by Q1, 2: Q1 by QF, 3: Q1 shifted by AUX1), first row and column in the tile; the B B / 32 warps
// take the 4 sums' (B / 16) (B / 8) blocks each, one a warp.
template <int B>
struct FarBlock16 {
    static constexpr int PER = B * B / 128;      // blocks a sum
    int sum, r0, c0;
    __device__ explicit FarBlock16(int w) : sum(w / PER), r0(w % PER / (B / 8) * 16), c0(w % PER % (B / 8) * 8) {}
};

// One far step of warp ``warp``'s 16 x 8 block (FarBlock16) by mma_m16n8<U>, U = 1, 2, 4 for SHAPE 1, 2, 3: the step's
// B indices in B / (4 U) instructions, in order; acc[i][h]: C[8 i + g][2 t + h] of the block. The sums of T1 and QIac
// (0, 1) take the step while K < J, those of Q1 (2, 3) while K > I, as every form.
template <int B, int RP, int SHAPE>
__device__ __forceinline__ void far_mma16(const double (*X)[B][RP], int I, int J, int K, int warp, int g, int t,
                                          double (&acc)[2][2]) {
    constexpr int U = SHAPE == 1 ? 1 : SHAPE == 2 ? 2 : 4;
    static_assert(B % 16 == 0 && B % (4 * U) == 0, "16-row blocks, whole instructions a step");
    const FarBlock16<B> block(warp);
    const int sum = block.sum;
    if (sum < 2 ? K >= J : K <= I) return;      // warp-uniform
    const int left = sum == 0 ? 0 : sum == 1 ? 1 : sum == 2 ? 3 : 5, right = sum < 2 ? 2 : sum == 2 ? 4 : 6;
#pragma unroll
    for (int k0 = 0; k0 < B; k0 += 4 * U) {
        double a[2 * U], b[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            a[2 * u] = X[left][block.r0 + g][k0 + 4 * u + t];
            a[2 * u + 1] = X[left][block.r0 + 8 + g][k0 + 4 * u + t];
            b[u] = X[right][k0 + 4 * u + t][block.c0 + g];
        }
        mma_m16n8<U>(acc[0][0], acc[0][1], acc[1][0], acc[1][1], a, b);
    }
}

// Two of a far step's dot products for a thread's cell (FAR = 1): fx += row ti of x by column tj of cx, fy the same
// of y by cy, by fma over k in order (bppart_far_step's bits), the rows read two k at a time by ld.shared.v2.f64.
template <int B, int RP>
__device__ __forceinline__ void far_dot_pair(const double (*x)[RP], const double (*cx)[RP], const double (*y)[RP],
                                             const double (*cy)[RP], int ti, int tj, double& fx, double& fy) {
#pragma unroll
    for (int k = 0; k < B; k += 2) {
        const double2 a = *reinterpret_cast<const double2*>(&x[ti][k]);
        const double2 b = *reinterpret_cast<const double2*>(&y[ti][k]);
        fx += a.x * cx[k][tj];
        fy += b.x * cy[k][tj];
        fx += a.y * cx[k + 1][tj];
        fy += b.y * cy[k + 1][tj];
    }
}

// bppart_far_sums with the tiles of step K copied by cp.async, ``issue(K, tiles)`` (8-byte copies into the
// 7 tiles of one stage, zero-filled where the band or the trim leaves nothing: the values load() gives),
// STAGES - 1 steps ahead into a ring of STAGES x 7 tiles at ``ring``: no registers hold loads in flight, a
// step waits only for its own copies, and one barrier a step instead of two (a stage is refilled only after
// the barrier that follows its last product). The same products in the same order of k: the same bits.
// Ends with a barrier: the caller may reuse the ring's shared memory (the near part's tiles alias it).
// RP: the ring's row pitch. FAR: 0, a thread's cell by fma over k in order; 1, the same with the row operands
// read two k at a time by ld.shared.v2.f64 (rows 16-byte aligned, RP even; the same bits); 2, on FP64 tensor
// cores (mma.sync m8n8k4 f64, as bppart_band_cross_mma): warp w takes the two 8 x 8 output blocks 2 w, 2 w + 1
// of the 4 sums' (B / 8)^2 blocks each, steps of 4 k in order, and the sums reach their cells' threads through
// the ring's first 4 tiles at the end. ``multiply`` is per thread, so FAR = 2 multiplies every cell (the
// trimmed rows and columns are zero-filled: the band's cells get the same products).
// SHAPE (FAR = 2, v18; B a multiple of 16): the far products by mma_m16n8, 1 m16n8k4, 2 m16n8k8, 3 m16n8k16 (0: m8n8k4
// as above). The jobs regrouped by rows: warp w takes one 16 x 8 block of a sum (rows 0 .. 15 of a 16-row band of the
// tile, 8 columns), which m8n8k4 took as two 8 x 8 jobs of two warps; at B = 16 a step is B / (4 U) instructions a
// warp (m16n8k16: one) instead of 8. A cell's products over the step's k in the same groups of 4 in order (k8 and
// k16: the bits of m8n8k4's chain on an H100, v17), so the same bits; the sums reach the cells as before.
template <int B, int STAGES, int RP, int FAR, int SHAPE = 0, class Issue>
__device__ __forceinline__ void bppart_far_sums_async(double (*ring)[B][RP], int I, int J, int d, int ti, int tj,
                                                      Issue issue, double& fa, double& fq, double& fr, double& fs,
                                                      bool multiply = true) {
    static_assert(STAGES >= 2, "a stage in use and one in flight at least");
    static_assert(SHAPE == 0 || (FAR == 2 && B % 16 == 0), "the larger mma: tensor-core far sums of 16-row blocks");
    if (d < 1) return;
#pragma unroll
    for (int s = 0; s < STAGES - 1; ++s) {
        if (I + s <= J) issue(I + s, ring + 7 * s);
        asm volatile("cp.async.commit_group;\n" ::);   // empty groups too: group K - I is step K's
    }
    int stage = 0, refill = STAGES - 1;
    constexpr int QB = B / 8, Q = QB * QB;
    double acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4, warp = threadIdx.x / 32;
    for (int K = I; K <= J; ++K) {
        asm volatile("cp.async.wait_group %0;\n" ::"n"(STAGES - 2));   // step K's copies (this thread's) done
        __syncthreads();                                                // everyone's, and stage ``refill`` free
        if (K + STAGES - 1 <= J) issue(K + STAGES - 1, ring + 7 * refill);
        asm volatile("cp.async.commit_group;\n" ::);
        const double(*X)[B][RP] = ring + 7 * stage;
        if constexpr (FAR == 2 && SHAPE > 0) {
            far_mma16<B, RP, SHAPE>(X, I, J, K, warp, g, t, acc);
        } else if (FAR == 2) {
            static_assert(FAR != 2 || (B % 8 == 0 && 2 * (B * B / 32) == 4 * Q), "two 8 x 8 blocks a warp");
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int job = 2 * warp + h, sum = job / Q, r0 = (job % Q) / QB * 8, c0 = (job % Q) % QB * 8;
                if (sum < 2 ? K < J : K > I) {          // warp-uniform
                    const int left = sum == 0 ? 0 : sum == 1 ? 1 : sum == 2 ? 3 : 5;
                    const int right = sum < 2 ? 2 : sum == 2 ? 4 : 6;
#pragma unroll
                    for (int k0 = 0; k0 < B; k0 += 4) {
                        mma_m8n8k4(acc[h][0], acc[h][1], X[left][r0 + g][k0 + t], X[right][k0 + t][c0 + g]);
                    }
                }
            }
        } else if (FAR == 1) {
            static_assert(FAR != 1 || (RP % 2 == 0 && B % 2 == 0), "16-byte rows, k in pairs");
            if (K < J && multiply) far_dot_pair<B, RP>(X[0], X[2], X[1], X[2], ti, tj, fa, fq);
            if (K > I && multiply) far_dot_pair<B, RP>(X[3], X[4], X[5], X[6], ti, tj, fr, fs);
        } else {
            bppart_far_step<B>(X, I, J, K, ti, tj, multiply, fa, fq, fr, fs);
        }
        stage = stage == STAGES - 1 ? 0 : stage + 1;
        refill = refill == STAGES - 1 ? 0 : refill + 1;
    }
    __syncthreads();
    if (FAR == 2) {             // fragments (lane 4 g + t: C[g][2 t], C[g][2 t + 1]) to their cells' threads
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            if constexpr (SHAPE > 0) {          // acc[h]: rows 8 h + g of the warp's 16 x 8 block
                const FarBlock16<B> block(warp);
                ring[block.sum][block.r0 + 8 * h + g][block.c0 + 2 * t] = acc[h][0];
                ring[block.sum][block.r0 + 8 * h + g][block.c0 + 2 * t + 1] = acc[h][1];
            } else {
                const int job = 2 * warp + h, sum = job / Q, r0 = (job % Q) / QB * 8, c0 = (job % Q) % QB * 8;
                ring[sum][r0 + g][c0 + 2 * t] = acc[h][0];
                ring[sum][r0 + g][c0 + 2 * t + 1] = acc[h][1];
            }
        }
        __syncthreads();
        fa = ring[0][ti][tj];
        fq = ring[1][ti][tj];
        fr = ring[2][ti][tj];
        fs = ring[3][ti][tj];
        __syncthreads();
    }
}

// The per-cell values the near part reads: the far sums and the terms over other query intervals.
template <int B>
__device__ __forceinline__ void bppart_keep_far(double (*V)[B][B + 1], int ti, int tj, double fs, double m, double fa,
                                                double acca, double fq, double s0, double both, double qfbase,
                                                double fr, double pqx) {
    V[0][ti][tj] = fs;                    // s1's far part (before its pair weight)
    V[1][ti][tj] = m;
    V[2][ti][tj] = fa;                    // AUX1's far part
    V[3][ti][tj] = acca + fq + s0 + both; // QIa's but its near part and s1
    V[4][ti][tj] = qfbase;
    V[5][ti][tj] = fr;                    // R's far part
    V[6][ti][tj] = s0 + both;
    V[7][ti][tj] = pqx;
}

// The near parts, local diagonal after local diagonal (j - i from -(B - 1) to B - 1), with the Q1
// tiles (I, I) and (J, J) in X[0], X[1] and AUX1 of tile (I, J - 1)'s last column in ``halo``; writes
// the cell's T1, AUX1 (at t1s[c], aux1[c]) and its interval's QIac, QF, R, QX, QI (at qiac[c] ...);
// w2[y0 * 5 + y1]: the target pair's weight.
template <int B>
__device__ __forceinline__ void bppart_near(const double (*X)[B][B + 1], double (*C)[B][B + 1],
                                            const double (*V)[B][B + 1], const double* halo, int ti, int tj,
                                            bool valid, int IB, int JB, int b0, int b1, int l2, const double* w2,
                                            int y0, int y1,
                                            double qibase, size_t c, double* t1s, double* aux1, double* qiac,
                                            double* qfs, double* rs, double* qxs, double* qis) {
    for (int step = 1 - B; step < B; ++step) {
        if (tj - ti == step && valid) {
            const int i = ti, j = tj;
            double s1n = 0.0;
            const int s1_last = min(b1 - 2 - IB, B - 1);
            for (int k = i + 1; k <= s1_last; ++k)
                s1n += X[0][i + 1][k] * (j >= 1 ? C[3][k][j - 1] : halo[k]);
            const double s1 = l2 >= 5 ? w2[y0 * 5 + y1] * (V[0][i][j] + s1n) : 0.0;
            const double t1 = s1 + V[1][i][j];
            double auxn = 0.0, qian = 0.0;
            for (int k = max(0, b0 + 1 - JB); k < j; ++k) {
                auxn += C[0][i][k] * X[1][k][j];
                qian += C[1][i][k] * X[1][k][j];
            }
            const double aux = V[2][i][j] + auxn + t1;
            const double closed = V[6][i][j] + s1;
            const double qf = V[4][i][j] + V[3][i][j] + qian + s1;
            C[0][i][j] = t1;
            C[1][i][j] = closed;
            C[2][i][j] = qf;
            C[3][i][j] = aux;
            double rn = 0.0;
            const int r_last = min(B - 1, b1 - 1 - IB);
            for (int k = i + 1; k <= r_last; ++k) rn += X[0][i][k] * C[2][k][j];
            const double r = V[5][i][j] + rn + qf;
            const double qx = V[7][i][j] + r;
            t1s[c] = t1;
            aux1[c] = aux;
            qiac[c] = closed;
            qfs[c] = qf;
            rs[c] = r;
            qxs[c] = qx;
            qis[c] = qibase + qx;
        }
        __syncthreads();
    }
}

// bppart_near with the B threads of a tile row's group (ti = i) on one cell a step, the cell (i, i + step):
// lane q takes the q-th term of each of its four sums over earlier steps' cells (s1's, AUX1's, QIac's,
// R's), the group adds them by shuffles, lane 0 finishes the cell. 2 B - 1 steps as before, each one
// round of loads and log2(B) of shuffles instead of chains of up to B - 1. The cell's own values come
// from V (V[8]: QI's base), its bases from yrow[i] = target code at b0, ycol[j] = at b1 - 1. Steps
// ``first`` .. ``last`` only (block-uniform; the caller may leave out steps where no cell lies in the band).
template <int B>
__device__ __forceinline__ void bppart_near_lanes(const double (*X)[B][B + 1], double (*C)[B][B + 1],
                                                  const double (*V)[B][B + 1], const double* halo,
                                                  const unsigned char* yrow, const unsigned char* ycol, int ti, int tj,
                                                  int IB, int JB, int n, int W1, const double* w2, double* t1s,
                                                  double* aux1, double* qiac, double* qfs, double* rs, double* qxs,
                                                  double* qis, int first = 1 - B, int last = B - 1) {
    const int i = ti, q = tj, b0 = IB + i;
    const unsigned mask = B >= 32 ? 0xffffffffu : ((1u << B) - 1u) << ((threadIdx.x % 32) / B * B);
    for (int step = first; step <= last; ++step) {
        const int j = i + step, b1 = JB + j, l2 = b1 - b0;
        if (j >= 0 && j < B && l2 > 0 && l2 < W1 && b1 <= n) {       // the same for the group's B lanes
            double s1n = 0.0, auxn = 0.0, qian = 0.0, rn = 0.0;
            int k = i + 1 + q;
            if (k <= min(b1 - 2 - IB, B - 1)) s1n = X[0][i + 1][k] * (j >= 1 ? C[3][k][j - 1] : halo[k]);
            if (k <= min(B - 1, b1 - 1 - IB)) rn = X[0][i][k] * C[2][k][j];
            k = q;
            if (k >= b0 + 1 - JB && k < j) {
                auxn = C[0][i][k] * X[1][k][j];
                qian = C[1][i][k] * X[1][k][j];
            }
#pragma unroll
            for (int off = B / 2; off > 0; off /= 2) {
                s1n += __shfl_xor_sync(mask, s1n, off, B);
                auxn += __shfl_xor_sync(mask, auxn, off, B);
                qian += __shfl_xor_sync(mask, qian, off, B);
                rn += __shfl_xor_sync(mask, rn, off, B);
            }
            if (q == 0) {
                const double s1 = l2 >= 5 ? w2[yrow[i] * 5 + ycol[j]] * (V[0][i][j] + s1n) : 0.0;
                const double t1 = s1 + V[1][i][j];
                const double aux = V[2][i][j] + auxn + t1;
                const double closed = V[6][i][j] + s1;
                const double qf = V[4][i][j] + V[3][i][j] + qian + s1;
                C[0][i][j] = t1;
                C[1][i][j] = closed;
                C[2][i][j] = qf;
                C[3][i][j] = aux;
                const double r = V[5][i][j] + rn + qf;
                const double qx = V[7][i][j] + r;
                const size_t c = (size_t)b0 * band_pitch(W1) + l2;
                t1s[c] = t1;
                aux1[c] = aux;
                qiac[c] = closed;
                qfs[c] = qf;
                rs[c] = r;
                qxs[c] = qx;
                qis[c] = V[8][i][j] + qx;
            }
        }
        __syncthreads();
    }
}

// The near part by ONE warp (bppart_band_tiles' WARP): lanes i and i + B take tile row i's cell of a step, lane i
// its sums along the row (AUX1's and QIac's: T1 and QIac of the row's earlier cells by Q1 of tile (J, J)), lane
// i + B those down the columns (s1's: Q1 of tile (I, I) by AUX1 of column j - 1; R's: by QF of column j); a
// __syncwarp a step instead of a block barrier, and the cells' seven values stored to global memory after the
// last step, a thread a cell (coalesced rows) instead of a lane per cell and step. The same arithmetic as
// bppart_near_lanes, bit for bit: each sum's B terms are rounded products (__dmul_rn: never fused) added in the
// lanes' xor butterfly's order (near_tree), and the cell finished by the same expressions. The lanes leave out
// (as zero) exactly the terms whose tile cell has no interval (l2 <= 0), is not computed yet (to the right in
// the row), lies past the tile (k >= B) or has no Q1 row: here every term is multiplied, and those operands are
// zeros (E and D zeroed before the steps and written only for cells of the band, P's columns past B zero) by
// finite ones (Q1 and the cells' values), so the products are +0 and the sums the same bits.
// Shared memory (NearWarp, aliasing the far part's ring): double2 tiles P[i][k] = (Q1(I)[i + 1][k], Q1(I)[i][k])
// (k < 2 B, zero past B), Y[k][j] = (Q1(J)[k][j], twice), E[i][j] = (T1, QIac), D[k][j] = (AUX1 of (k, j - 1),
// QF of (k, j)) (D[k][0].x: AUX1 of tile (I, J - 1)'s last column), then a cell's ten values Vc[i][j][0..9] (the
// far sums and terms as bppart_keep_far's V[0..7], QI's base, the target pair's weight; after the cell: R, QX,
// QI), finite everywhere: D's rows past B (read for zero P columns) fall in Vc. Pitches P 2 B, E B + 1, Y and D
// B + 2 (double2), so that 8 lanes' 16-byte loads meet distinct banks.
template <int B>
struct NearWarp {
    static constexpr int PP = 2 * B, PE = B + 1, PD = B + 2, SLOTS = 10;
    static constexpr int OY = 2 * B * PP, OE = OY + 2 * B * PD, OD = OE + 2 * B * PE, OV = OD + 2 * B * PD;
    static constexpr int DOUBLES = OV + SLOTS * B * B;
    static_assert((2 * B - 1) * PD + B <= B * PD + SLOTS * B * B / 2, "D's rows read past B lie in Vc");
    double2 (*P)[PP];
    double2 (*Y)[PD];
    double2 (*E)[PE];
    double2 (*D)[PD];
    double (*Vc)[B][SLOTS];
    __device__ explicit NearWarp(double* U)
        : P(reinterpret_cast<double2(*)[PP]>(U)), Y(reinterpret_cast<double2(*)[PD]>(U + OY)),
          E(reinterpret_cast<double2(*)[PE]>(U + OE)), D(reinterpret_cast<double2(*)[PD]>(U + OD)),
          Vc(reinterpret_cast<double(*)[B][SLOTS]>(U + OV)) {}
};

struct NearPair {
    double a, b;
};

// The butterfly's sum of the terms leaf(0 .. B - 1) (two sums at once): node(q, half) = node(q, 2 half) +
// node(q + half, 2 half), leaves at half = B, the root node(0, 1): what lane 0 of a group of B holds after xor
// shuffles at B / 2, B / 4, .., 1 (each a commutative add of two equal partial sums). Depth first: few live terms.
template <int B, int Q, int HALF, class Leaf>
__device__ __forceinline__ NearPair near_tree(const Leaf& leaf) {
    if constexpr (HALF == B) {
        return leaf(Q);
    } else {
        const NearPair x = near_tree<B, Q, 2 * HALF>(leaf), y = near_tree<B, Q + HALF, 2 * HALF>(leaf);
        return {x.a + y.a, x.b + y.b};
    }
}

// Before bppart_near_warp, every thread (ti, tj) its cell's values and its elements of the Q1 tiles: q1i_next =
// Q1(I)[ti + 1][tj], q1i = Q1(I)[ti][tj], q1j = Q1(J)[ti][tj], halo = AUX1 of tile (I, J - 1)'s last column at
// row ti (read where tj == 0), w: the target pair's weight; zeros where NearWarp needs them. The values as
// bppart_keep_far's (the same expressions).
template <int B>
__device__ __forceinline__ void bppart_near_warp_stage(const NearWarp<B>& S, int ti, int tj, double fs, double m,
                                                       double fa, double acca, double fq, double s0, double both,
                                                       double qfbase, double fr, double pqx, double qibase, double w,
                                                       double q1i_next, double q1i, double q1j, double halo) {
    double2* v = reinterpret_cast<double2*>(S.Vc[ti][tj]);
    v[0] = make_double2(fs, m);
    v[1] = make_double2(fa, acca + fq + s0 + both);
    v[2] = make_double2(qfbase, fr);
    v[3] = make_double2(s0 + both, pqx);
    v[4] = make_double2(qibase, w);
    const double2 zero = make_double2(0.0, 0.0);
    S.P[ti][tj] = make_double2(q1i_next, q1i);
    S.P[ti][B + tj] = zero;
    S.Y[ti][tj] = make_double2(q1j, q1j);
    S.E[ti][tj] = zero;
    S.D[ti][tj] = make_double2(tj == 0 ? halo : 0.0, 0.0);
}

// The near part's steps ``first`` .. ``last`` (as bppart_near_lanes'), called by one whole warp after
// bppart_near_warp_stage and a block barrier; cell (i, i + step) of each step by lanes i and i + B (B <= 16;
// lanes 2 B .. 31 idle), its values left in shared memory for the block's stores (bppart_near_warp_cell).
template <int B>
__device__ __forceinline__ void bppart_near_warp(const NearWarp<B>& S, int IB, int JB, int n, int W1, int first,
                                                 int last) {
    static_assert(2 * B <= 32, "two lanes a tile row");
    const int lane = threadIdx.x % 32, i = lane % B, h = lane / B, b0 = IB + i;
    for (int step = first; step <= last; ++step) {
        const int j = i + step, b1 = JB + j, l2 = b1 - b0;
        const bool valid = j >= 0 && j < B && l2 > 0 && l2 < W1 && b1 <= n;
        // this lane's B terms: h = 0, k = q: (T1, QIac)(i, k) by Q1(J)[k][j]; h = 1, k = i + 1 + q: Q1(I)[i + 1][k]
        // by AUX1(k, j - 1), Q1(I)[i][k] by QF(k, j) (other lanes: anything inside U, never used)
        const double2* f = h == 0 ? &S.E[i][0] : h == 1 ? &S.P[i][i + 1] : &S.P[0][0];
        const double2* g = h == 0 ? &S.Y[0][0] + j : h == 1 ? &S.D[i + 1][0] + j : &S.Y[0][0];
        if (!valid) g = &S.Y[0][0];
        const NearPair sums = near_tree<B, 0, 1>([&](int q) {
            const double2 x = f[q], y = g[q * NearWarp<B>::PD];
            return NearPair{__dmul_rn(x.x, y.x), __dmul_rn(x.y, y.y)};
        });
        const double s1n = __shfl_down_sync(0xffffffffu, sums.a, B);
        const double rn = __shfl_down_sync(0xffffffffu, sums.b, B);
        if (valid && h == 0) {
            double2* v = reinterpret_cast<double2*>(S.Vc[i][j]);
            const double2 v01 = v[0], v23 = v[1], v45 = v[2], v67 = v[3], v89 = v[4];
            const double auxn = sums.a, qian = sums.b;
            const double s1 = l2 >= 5 ? __dmul_rn(v89.y, v01.x + s1n) : 0.0;
            const double t1 = s1 + v01.y;
            const double aux = v23.x + auxn + t1;
            const double closed = v67.x + s1;
            const double qf = v45.x + v23.y + qian + s1;
            const double r = v45.y + rn + qf;
            const double qx = v67.y + r;
            const double qi = v89.x + qx;
            S.E[i][j] = make_double2(t1, closed);
            S.D[i][j].y = qf;
            S.D[i][j + 1].x = aux;
            v[0] = make_double2(r, qx);
            v[1].x = qi;
        }
        __syncwarp();
    }
}

// After bppart_near_warp and a block barrier: cell (ti, tj)'s T1, AUX1, QIac, QF, R, QX, QI (at index c of each).
template <int B>
__device__ __forceinline__ void bppart_near_warp_cell(const NearWarp<B>& S, int ti, int tj, size_t c, double* t1s,
                                                      double* aux1, double* qiac, double* qfs, double* rs, double* qxs,
                                                      double* qis) {
    const double2 e = S.E[ti][tj];
    const double2* v = reinterpret_cast<const double2*>(S.Vc[ti][tj]);
    const double2 rq = v[0];
    t1s[c] = e.x;
    aux1[c] = S.D[ti][tj + 1].x;
    qiac[c] = e.y;
    qfs[c] = S.D[ti][tj].y;
    rs[c] = rq.x;
    qxs[c] = rq.y;
    qis[c] = v[1].x;
}

// A cell's terms over other query intervals (previous launches wrote them), from the split sums ps0 and
// pa0 and the cells named by pointer (read only where the lengths l1, l2 use them): s0, m and both, the
// cross sum acca, the bases of QF and QI; writes the cell's T0 and AUX0. ``closes`` false (the caller knows
// w1[x0][x1] is 0): both is 0 without reading qx_inner (v33).
__device__ __forceinline__ void bppart_outer_terms(int l1, int l2, const double* w1, const double* w2,
                                                   const double* wi, int x0, int x1, int y0, int y1, double ps0,
                                                   double pa0, const double* accm, const double* acca_at,
                                                   const double* qf_short, const double* qx_inner,
                                                   const double* qi_inner, double q0, double q1, double* t0,
                                                   double* aux0, double& s0, double& m, double& both, double& acca,
                                                   double& qfbase, double& qibase, bool closes = true) {
    s0 = l1 >= 5 ? w1[x0 * 5 + x1] * ps0 : 0.0;
    if (l1 == 1 && l2 == 1)
        m = wi[x0 * 5 + y0];
    else if (l1 >= 2 && l2 >= 2)
        m = *accm + wi[x1 * 5 + y1] * *qf_short;
    if (l1 >= 5 && l2 >= 5 && closes)
        both = *qx_inner * w1[x0 * 5 + x1]
               * w2[y0 * 5 + y1];
    acca = l1 >= 2 ? *acca_at : 0.0;
    qfbase = wi[x0 * 5 + y0] * *qi_inner;
    qibase = q0 * q1;
    *t0 = s0 + m;
    *aux0 = pa0 + s0 + m;
}

// The cross products' register tiles (bppart_cross, bppart_band_cross): a thread's 4 x 4 output cells,
// rows ty + RS i and columns tx + CS j of the block's tile.
__device__ __forceinline__ void cross_zero(double (&acc)[4][4]) {
#pragma unroll
    for (int i = 0; i < 4; ++i)
#pragma unroll
        for (int j = 0; j < 4; ++j) acc[i][j] = 0.0;
}

// acc += As Bs over one staged chunk of KC (As: rows by chunk columns, padded; Bs: chunk rows by columns),
// one FMA a cell and k, k in order.
template <int KC, int RS, int CS, int ROWS, int COLS>
__device__ __forceinline__ void cross_chunk(const double (&As)[ROWS][KC + 1], const double (&Bs)[KC][COLS], int ty,
                                            int tx, double (&acc)[4][4]) {
#pragma unroll
    for (int k = 0; k < KC; ++k) {
        double av[4], bv[4];
#pragma unroll
        for (int i = 0; i < 4; ++i) av[i] = As[ty + RS * i][k];
#pragma unroll
        for (int j = 0; j < 4; ++j) bv[j] = Bs[k][tx + CS * j];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j] = fma(av[i], bv[j], acc[i][j]);
    }
}

// A cell's sum: added to what other blocks of the same cell add (gridDim.z > 1 splits the products;
// the host zeroed the sums), or stored.
__device__ __forceinline__ void cross_put(double* at, double v) {
    if (gridDim.z > 1)
        atomicAdd(at, v);
    else
        *at = v;
}
