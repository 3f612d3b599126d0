// BPPart with target windows on the GPU (interact/_partition_band_gpu.py): docs/bppart.md's recurrence
// in bioaccel's form, FP64, every query interval of at most L1 bases against every target interval of
// at most L2 bases of one long target (the pieces of many targets laid back to back).
//
// Layout: band storage. A table holds, per query interval, the cells [b0, b1) of the reversed target
// with 0 <= b1 - b0 <= L2 as rows of W1 = L2 + 1 cells: T[interval][b0][b1 - b0], rows b0 = 0 .. n, a row
// band_pitch(W1) cells apart (v38: W1, or W1 + 1 where W1 is even; bppart_tile.cuh), S = (n + 1) band_pitch(W1)
// cells a matrix
// (n = the launch's bases). Query intervals are numbered 0 for every empty one, then by length and
// start (band_interval). Level tables (T1, AUX1, ACCA, ACCM) hold one matrix per query interval of the
// level being filled: L[a0][b0][b1 - b0]. A cell outside the band (or past n) is read as zero: the
// cells a banded cell reads are its sub-intervals, all inside the band, and the rest are zero exactly
// where the full matrices of kernels/bppart.cu are zero (below the diagonal, unwritten), so the
// tiled sums of that file carry over with every global read masked by the band.
//
// Cells that cross from one target (piece) to the next are computed and never read by the cells of
// either: a cell reads sub-intervals of its own only.
//
// One level (query intervals of one length l1) is two launches, as in kernels/bppart.cu:
// - bppart_band_cross: QIa's and QIm's double sums over the other query intervals, tiled FP64 products
//   of TR x TC output tiles in absolute target coordinates, only the tiles that meet the band, each
//   reduction clipped to the indices the band leaves nonzero;
// - bppart_band_tiles: every cell of the level by B x B tiles, tile diagonal after tile diagonal (a
//   grid barrier between them): about L2 / B + 1 diagonals a level, whatever the target's length.
// bppart_band_single folds the target alone (Q1 on the band), one launch per interval length.
// (no standard headers: NVRTC has no C++ standard library here)
#include "bppart_tile.cuh"

__device__ __forceinline__ long long band_interval(int M, int i, int e) {
    const long long len = e - i;
    return len == 0 ? 0 : len * (M + 1) - len * (len - 1) / 2 + i - M;
}

// T[row][col - row] of a band matrix with W1 cells a row and rows 0 .. n; zero outside.
__device__ __forceinline__ double band_at(const double* T, int row, int col, int W1, int n) {
    const int o = col - row;
    return (o >= 0 && o < W1 && col <= n) ? T[(size_t)row * band_pitch(W1) + o] : 0.0;
}

__device__ __forceinline__ double band_cg(const double* T, int row, int col, int W1, int n) {
    const int o = col - row;
    return (o >= 0 && o < W1 && col <= n) ? __ldcg(T + (size_t)row * band_pitch(W1) + o) : 0.0;
}

// The single-strand band of the codes, intervals of length ``len`` (shorter ones done): a thread per
// start i, as _partition_band.single_strand_band (Z: i pairs inside; powers[k] = u^k, pair = u^2 w).
__global__ void bppart_band_single(const unsigned char* __restrict__ codes, const double* __restrict__ w,
                                   const double* __restrict__ powers, double* __restrict__ Q, double* __restrict__ Z,
                                   int n, int W1, int len) {
    const int i = blockIdx.x * blockDim.x + threadIdx.x, P = band_pitch(W1);
    if (i + len > n) return;
    const int e = i + len;
    if (len < 5) {
        Q[(size_t)i * P + len] = powers[len];
        return;
    }
    const double pair = powers[2];
    double z = 0.0;
    for (int p = i + 4; p < e; ++p)
        z += w[codes[i] * 5 + codes[p]] * pair * Q[(size_t)(i + 1) * P + (p - i - 1)] * Q[(size_t)(p + 1) * P + (e - p - 1)];
    Z[(size_t)i * P + len] = z;
    double total = powers[len] + z;             // d = i: this thread's z
    for (int d = i + 1; d < e - 4; ++d) total += powers[d - i] * Z[(size_t)d * P + (e - d)];
    Q[(size_t)i * P + len] = total;
}

// cp.async of SIZE bytes (8: a double; 16, v37: two, both addresses 16-byte aligned) global -> shared. IGNORE false:
// the first ``bytes`` read where ``valid`` (SIZE, 8 of 16, or 0), none else, the rest zero-filled (cp.async's src-size).
// IGNORE true (v37): all SIZE bytes where ``valid``, zeros else through cp.async's ignore-src, the source then ignored
// completely (not read: ``gmem`` may point anywhere), the address neither selected nor adjusted. HINT (v9, the same
// values): 0, none; 1 and 2, a miss fetches 128 or 256 bytes into L2 (L2::128B, L2::256B: a band row's next chunk,
// copied a step later, then hits); 3, an L2 evict_last policy (operands other blocks read again). (.ca: cached in L1.)
// (Before review bppcopy16: band_copy8, band_copy16 and band_copy16_if, each with the four hints' branches; the same
// SASS, every kernel of this file, nvcc and NVRTC.)
template <int SIZE, int HINT = 0, bool IGNORE = false>
__device__ __forceinline__ void band_copy(double* smem, const double* gmem, bool valid, int bytes = SIZE) {
    static_assert(SIZE == 8 || SIZE == 16, "cp.async of a double or two");
    const unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    const int src = IGNORE ? !valid : valid ? bytes : 0;   // (ignore-src's flag, or src-size)
    // one cp.async of the hint's qualifier LEVEL, its policy operand's text POLICY and operand (the variadic tail: a
    // comma and "l"(policy), or nothing)
#define BAND_COPY(LEVEL, POLICY, ...)                                                                                  \
    if (IGNORE)                                                                                                       \
        asm volatile("{\n .reg .pred q;\n setp.ne.b32 q, %2, 0;\n cp.async.ca.shared.global" LEVEL " [%0], [%1], %3, q" \
                     POLICY ";\n}\n" ::"r"(dst), "l"(gmem), "r"(src), "n"(SIZE) __VA_ARGS__);                          \
    else                                                                                                              \
        asm volatile("cp.async.ca.shared.global" LEVEL " [%0], [%1], %3, %2" POLICY ";\n" ::"r"(dst), "l"(gmem), "r"(src), \
                     "n"(SIZE) __VA_ARGS__)
    if (HINT == 1) {
        BAND_COPY(".L2::128B", "", );
    } else if (HINT == 2) {
        BAND_COPY(".L2::256B", "", );
    } else if (HINT == 3) {
        unsigned long long policy;
        asm("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;\n" : "=l"(policy));
        BAND_COPY(".L2::cache_hint", ", %4", , "l"(policy));
    } else {
        BAND_COPY("", "", );
    }
#undef BAND_COPY
}

// cp.async of band cell T[row][col - row] into ``smem``; zero where it lies outside the band or past n, or
// where ``want`` is false (the values band_at and band_cg give there).
template <int HINT = 0>
__device__ __forceinline__ void band_async(double* smem, const double* T, int row, int col, int W1, int n, bool want) {
    const int o = col - row;
    const bool in = want && o >= 0 && o < W1 && col <= n;
    band_copy<8, HINT>(smem, in ? T + (size_t)row * band_pitch(W1) + o : T, in);
}

// The double sums of the level l1 for each (query interval [a0, a0 + l1), output tile (I, J)):
//   ACCA[b0, b1] = sum_{k1 = a0 .. a1-2} sum_k QIac([a0, k1+1))[b0, k] * QI([k1+1, a1))[k, b1]
//   ACCM[b0, b1] = sum_{k1 = a0+1 .. a1-1} sum_k QF([a0, k1))[b0, k] * QIac([k1, a1))[k, b1]
// as bppart_cross, on band matrices: tile (I, J = I + delta) for delta = 0 .. D, k clipped to
// [max(r0 + 1, c0 - L2), min(c0 + TC, r0 + TR + L2, n + 1)). 4 x 4 cells a thread. gridDim.z > 1 splits
// the l1 - 1 products among blocks (atomicAdd into sums the host zeroed). PREFETCH: two shared buffers,
// each chunk copied with cp.async (zero-filled outside the band) while the previous one multiplies.
// MINB: blocks a multiprocessor should hold (launch bounds; the registers a thread may use follow).
template <int TR, int TC, int KC, bool PREFETCH, int MINB>
__global__ void __launch_bounds__((TR / 4) * (TC / 4), MINB)
bppart_band_cross(const double* __restrict__ QIac, const double* __restrict__ QI, const double* __restrict__ QF,
                  double* __restrict__ ACCA, double* __restrict__ ACCM, int M, int n, int W1, int l1, int nt, int D) {
    constexpr int RT = TR / 4, CT = TC / 4, THREADS = RT * CT;
    static_assert(TR % 4 == 0 && TC % 4 == 0 && (TR * KC) % THREADS == 0 && (TC * KC) % THREADS == 0,
                  "tile and chunk must share the threads evenly");
    constexpr int BUFS = PREFETCH ? 2 : 1;
    __shared__ double As[BUFS][TR][KC + 1];
    __shared__ double Bs[BUFS][KC][TC];
    const int I = blockIdx.x / (D + 1), J = (I * TR) / TC + blockIdx.x % (D + 1);
    const int r0 = I * TR, c0 = J * TC, L2 = W1 - 1;
    if (r0 > n || c0 > n || c0 + TC - 1 <= r0 || c0 - (r0 + TR - 1) > L2) return;   // block-uniform
    const int P = band_pitch(W1);
    const size_t S = (size_t)(n + 1) * P;
    const int a0 = blockIdx.y, a1 = a0 + l1;
    const int kbeg = max(r0 + 1, c0 - L2), kend = min(min(c0 + TC, r0 + TR + L2), n + 1);
    const int tx = threadIdx.x % CT, ty = threadIdx.x / CT;
    for (int which = 0; which < 2; ++which) {
        double acc[4][4];
        cross_zero(acc);
        const int first = which == 0 ? a0 : a0 + 1, last = which == 0 ? a1 - 2 : a1 - 1;
        for (int k1 = first + blockIdx.z; k1 <= last; k1 += gridDim.z) {
            const double* L = which == 0 ? QIac + band_interval(M, a0, k1 + 1) * S : QF + band_interval(M, a0, k1) * S;
            const double* R = which == 0 ? QI + band_interval(M, k1 + 1, a1) * S : QIac + band_interval(M, k1, a1) * S;
            // PREFETCH: chunk k0 + KC is copied (cp.async) into the other buffer while chunk k0 multiplies
            auto issue = [&](int buf, int from) {
                for (int e = threadIdx.x; e < TR * KC; e += THREADS) {
                    const int r = e / KC, k = e % KC, row = r0 + r, col = from + k, o = col - row;
                    const bool in = col < kend && o >= 0 && o < W1 && col <= n;
                    band_copy<8>(&As[buf][r][k], in ? L + (size_t)row * P + o : L, in);
                }
                for (int e = threadIdx.x; e < TC * KC; e += THREADS) {
                    const int k = e / TC, c = e % TC, row = from + k, col = c0 + c, o = col - row;
                    const bool in = row < kend && o >= 0 && o < W1 && col <= n;
                    band_copy<8>(&Bs[buf][k][c], in ? R + (size_t)row * P + o : R, in);
                }
                asm volatile("cp.async.commit_group;\n" ::);
            };
            if (PREFETCH && kbeg < kend) issue(0, kbeg);
            int buf = 0;
            for (int k0 = kbeg; k0 < kend; k0 += KC, buf ^= BUFS - 1) {
                if (PREFETCH) {
                    if (k0 + KC < kend) {
                        issue(buf ^ 1, k0 + KC);
                        asm volatile("cp.async.wait_group 1;\n" ::);   // this chunk's copies are done
                    } else {
                        asm volatile("cp.async.wait_group 0;\n" ::);
                    }
                } else {
                    for (int e = threadIdx.x; e < TR * KC; e += THREADS) {
                        const int r = e / KC, k = e % KC, col = k0 + k;
                        As[0][r][k] = col < kend ? band_at(L, r0 + r, col, W1, n) : 0.0;
                    }
                    for (int e = threadIdx.x; e < TC * KC; e += THREADS) {
                        const int k = e / TC, c = e % TC, row = k0 + k;
                        Bs[0][k][c] = row < kend ? band_at(R, row, c0 + c, W1, n) : 0.0;
                    }
                }
                __syncthreads();
                cross_chunk<KC, RT, CT>(As[buf], Bs[buf], ty, tx, acc);
                __syncthreads();
            }
        }
        double* out = (which == 0 ? ACCA : ACCM) + (size_t)a0 * S;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) {
                const int row = r0 + ty + RT * i, col = c0 + tx + CT * j, o = col - row;
                if (o >= 0 && o < W1 && col <= n) {
                    cross_put(out + (size_t)row * P + o, acc[i][j]);
                }
            }
    }
}

// The tensor-core cross products' step and store (bppart_band_cross_mma, bppart_band_cross_ring): a warp's 16 x 8 NJ
// block (NJ = 4: 16 x 32; the ring's WN = 16 columns a warp: NJ = 2), 2 x NJ products of 8 x 8 over the 4 indices from
// ks of the staged chunk (fragments: lane = 4 g + t holds A[g][t], B[t][g] and C[g][2 t], C[g][2 t + 1]).
template <int AP, int BP, int NJ>
__device__ __forceinline__ void band_mma_step(const double (*As)[AP], const double (*Bs)[BP], int wr, int wc, int ks,
                                              int g, int t, double (&acc)[2][NJ][2]) {
    double af[2], bf[NJ];
#pragma unroll
    for (int i = 0; i < 2; ++i) af[i] = As[wr + 8 * i + g][ks + t];
#pragma unroll
    for (int j = 0; j < NJ; ++j) bf[j] = Bs[ks + t][wc + 8 * j + g];
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j) mma_m8n8k4(acc[i][j][0], acc[i][j][1], af[i], bf[j]);
}

// band_mma_step with Hopper's larger FP64 shapes (v17, mma_m16n8 of bppart_tile.cuh; FORM bits 3-4 of
// bppart_band_cross_ring: SHAPE 1, mma.m16n8k4, both 8-row halves of a warp's block in one instruction over the same 4
// indices: a step's 2 NJ mma become NJ; 2, m16n8k8, 8 indices from ks; 3, m16n8k16, 16). The fragments as mma_m16n8's:
// acc[i][j][h] = C[g + 8 i][2 t + h] of the block's j-th 8 columns. SHAPE 2 and 3 give the bits of m8n8k4's chain on an
// H100 (v17: `==` at production sizes, the windows digest at 23 x 20,000); before Hopper m8n8k4 steps.
template <int SHAPE, int AP, int BP, int NJ>
__device__ __forceinline__ void band_mma_step16(const double (*As)[AP], const double (*Bs)[BP], int wr, int wc, int ks,
                                                int g, int t, double (&acc)[2][NJ][2]) {
    constexpr int U = SHAPE == 1 ? 1 : SHAPE == 2 ? 2 : 4;     // groups of 4 indices an instruction
    double af[2 * U], bf[NJ][U];
#pragma unroll
    for (int u = 0; u < U; ++u)
#pragma unroll
        for (int v = 0; v < 2; ++v) af[v + 2 * u] = As[wr + 8 * v + g][ks + 4 * u + t];
#pragma unroll
    for (int j = 0; j < NJ; ++j)
#pragma unroll
        for (int u = 0; u < U; ++u) bf[j][u] = Bs[ks + 4 * u + t][wc + 8 * j + g];
#pragma unroll
    for (int j = 0; j < NJ; ++j) mma_m16n8<U>(acc[0][j][0], acc[0][j][1], acc[1][j][0], acc[1][j][1], af, bf[j]);
}

// A warp's accumulator cells (its block's first row r and column c; lane = 4 g + t holds C[g][2 t + h] of each 8 x 8
// product i, j): f(acc[i][j][h], offset of the cell in a band matrix, whether the cell is in the band). The ring's
// load of the sums so far (band_group) and band_mma_put walk the same cells (v12: one loop, the same SASS).
template <int NJ, typename F>
__device__ __forceinline__ void band_mma_cells(double (&acc)[2][NJ][2], int r, int c, int g, int t, int W1, int n,
                                               F f) {
#pragma unroll
    for (int i = 0; i < 2; ++i)
#pragma unroll
        for (int j = 0; j < NJ; ++j)
#pragma unroll
            for (int h = 0; h < 2; ++h) {
                const int row = r + 8 * i + g, col = c + 8 * j + 2 * t + h, o = col - row;
                f(acc[i][j][h], (size_t)row * band_pitch(W1) + o, o >= 0 && o < W1 && col <= n);
            }
}

// The warp's sums (its block's first row r and column c) into band matrix ``out``, the cells in the band only. Z: the
// blocks of a tile and query interval along grid z that are not splits of one sum (v21's one-sum blocks: 2), so that
// the sums are added atomically only where several blocks share a sum's cells (cross_put's gridDim.z > 1).
template <int NJ, int Z = 1>
__device__ __forceinline__ void band_mma_put(double* out, double (&acc)[2][NJ][2], int r, int c, int g, int t,
                                             int W1, int n) {
    band_mma_cells(acc, r, c, g, t, W1, n, [&](double& v, size_t at, bool in) {
        if (in && Z == 1) cross_put(out + at, v);
        else if (in && gridDim.z > Z) atomicAdd(out + at, v);
        else if (in) out[at] = v;
    });
}

// bppart_band_cross on FP64 tensor cores (DMMA, mma.sync m8n8k4 f64: an 8 x 4 by 4 x 8 product a warp
// instruction, twice the FMA ceiling): a warp per 16 x 32 block of the output tile, 2 x 4 products of
// 8 x 8 a step of 4 indices; the chunks copied as in bppart_band_cross (cp.async, two buffers). Fragments
// (PTX ISA, mma.m8n8k4 .f64): lane = 4 g + t holds A[g][t], B[t][g] and C[g][2 t], C[g][2 t + 1]. Rows of
// As padded to KC + 4 and of Bs to TC + 4 doubles: a half warp's fragment loads meet 16 distinct banks.
// STRIP: the column tiles start at the row tile's first row (c0 = r0 + j TC, j = 0 .. D), so that one
// tile of TC >= TR + L2 columns holds the whole band of its rows: each operand row is copied once a
// product (absolute tiles copy a row into every tile it meets), and a warp skips the chunks where its
// rows' and columns' bands leave no nonzero product.
template <int TR, int TC, int KC, int MINB, bool STRIP>
__global__ void __launch_bounds__((TR / 16) * (TC / 32) * 32, MINB)
bppart_band_cross_mma(const double* __restrict__ QIac, const double* __restrict__ QI, const double* __restrict__ QF,
                      double* __restrict__ ACCA, double* __restrict__ ACCM, int M, int n, int W1, int l1, int nt, int D) {
    constexpr int WC = TC / 32, THREADS = (TR / 16) * WC * 32;
    static_assert(TR % 16 == 0 && TC % 32 == 0 && KC % 4 == 0, "whole warps of 16 x 32 cells, steps of 4");
    __shared__ double As[2][TR][KC + 4];
    __shared__ double Bs[2][KC][TC + 4];
    const int I = blockIdx.x / (D + 1), J = (I * TR) / TC + blockIdx.x % (D + 1);
    const int r0 = I * TR, c0 = STRIP ? r0 + (blockIdx.x % (D + 1)) * TC : J * TC, L2 = W1 - 1;
    if (r0 > n || c0 > n || c0 + TC - 1 <= r0 || c0 - (r0 + TR - 1) > L2) return;   // block-uniform
    const int P = band_pitch(W1);
    const size_t S = (size_t)(n + 1) * P;
    const int a0 = blockIdx.y, a1 = a0 + l1;
    const int kbeg = max(r0 + 1, c0 - L2), kend = min(min(c0 + TC, r0 + TR + L2), n + 1);
    const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    const int wr = (warp / WC) * 16, wc = (warp % WC) * 32;
    // the indices k where this warp's rows and columns both have band cells: A[row][k] needs row <= k <=
    // row + L2, B[k][col] needs col - L2 <= k <= col
    const int klo = max(r0 + wr, c0 + wc - L2), khi = min(r0 + wr + 15 + L2, c0 + wc + 31);
    for (int which = 0; which < 2; ++which) {
        double acc[2][4][2];
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j) acc[i][j][0] = acc[i][j][1] = 0.0;
        const int first = which == 0 ? a0 : a0 + 1, last = which == 0 ? a1 - 2 : a1 - 1;
        for (int k1 = first + blockIdx.z; k1 <= last; k1 += gridDim.z) {
            const double* L = which == 0 ? QIac + band_interval(M, a0, k1 + 1) * S : QF + band_interval(M, a0, k1) * S;
            const double* R = which == 0 ? QI + band_interval(M, k1 + 1, a1) * S : QIac + band_interval(M, k1, a1) * S;
            auto issue = [&](int buf, int from) {
#pragma unroll 1
                for (int e = threadIdx.x; e < TR * KC; e += THREADS) {
                    const int r = e / KC, k = e % KC, row = r0 + r, col = from + k, o = col - row;
                    const bool in = col < kend && o >= 0 && o < W1 && col <= n;
                    band_copy<8>(&As[buf][r][k], in ? L + (size_t)row * P + o : L, in);
                }
#pragma unroll 1
                for (int e = threadIdx.x; e < TC * KC; e += THREADS) {
                    const int k = e / TC, c = e % TC, row = from + k, col = c0 + c, o = col - row;
                    const bool in = row < kend && o >= 0 && o < W1 && col <= n;
                    band_copy<8>(&Bs[buf][k][c], in ? R + (size_t)row * P + o : R, in);
                }
                asm volatile("cp.async.commit_group;\n" ::);
            };
            if (kbeg < kend) issue(0, kbeg);
            int buf = 0;
            for (int k0 = kbeg; k0 < kend; k0 += KC, buf ^= 1) {
                if (k0 + KC < kend) {
                    issue(buf ^ 1, k0 + KC);
                    asm volatile("cp.async.wait_group 1;\n" ::);
                } else {
                    asm volatile("cp.async.wait_group 0;\n" ::);
                }
                __syncthreads();
#pragma unroll
                for (int ks = 0; ks < KC; ks += 4) {
                    if (STRIP && (k0 + ks > khi || k0 + ks + 3 < klo)) continue;   // warp-uniform: zero products
                    band_mma_step(As[buf], Bs[buf], wr, wc, ks, g, t, acc);
                }
                __syncthreads();
            }
        }
        band_mma_put((which == 0 ? ACCA : ACCM) + (size_t)a0 * S, acc, r0 + wr, c0 + wc, g, t, W1, n);
    }
}

#include "bppart_band_cross.cuh"   // bppart_band_cross_ring (v8): the same products, a deeper copy ring

// Every cell of the level l1 by B x B tiles, tile diagonal after tile diagonal (d = J - I = dfirst ..
// dlast), a block per tile: bppart_tiles of kernels/bppart.cu on band matrices (its comments hold here).
// A cell is valid when 0 < b1 - b0 <= L2 and b1 <= n; tiles with no valid cell are skipped. With
// dfirst < dlast the grid is persistent (sized to be resident: a barrier between tile diagonals); the
// production launches one tile diagonal a launch (dfirst = dlast, a block per tile, no barrier), so
// that as many blocks as fit share a multiprocessor: a tile's near part is a chain of 2 B - 1 steps
// with few threads busy, and other blocks fill the gaps.
//
// SPLIT: the terms over other query intervals come parked by bppart_band_outer (five loads a cell instead
// of three sums over the query), and the far part's tile K + 1 is loaded while tile K multiplies.
// MINB: blocks a multiprocessor should hold (0: 8 for 8-tiles, 2 for larger). LANES: the near part a
// group of B threads a cell (bppart_near_lanes), else a thread a cell (bppart_near). TRIM: the far part
// loads only the rows and columns of its tiles that a cell of the band reads (cell (i, j) of tile
// diagonal d has l2 = d B + j - i: rows i >= d B - L2, columns j <= L2 + B - 1 - d B) and multiplies only
// for the cells at their crossings; on the last tile diagonal (d B - (B - 1) = L2 at 16-tiles and window
// 128) a tile holds one cell of the band, and without TRIM loads and multiplies whole tiles for it. With
// LANES, TRIM also runs only the near part's steps j - i that hold a band cell (0 < d B + step <= L2):
// 15 of 31 on the first tile diagonal, 1 on the last at window 128.
//
// PIPE (0, 2 or 3; launches mode only, as cp.async reads through L1, which another block's writes of the
// same launch would leave stale under grid barriers): the far part's tiles copied by cp.async PIPE - 1 steps
// ahead into a ring of PIPE stages (bppart_far_sums_async: one barrier a step, no loads held in registers),
// the ring's shared memory reused by the near part's tiles (X, C, V) after it: 21 tiles of 16 x 17 doubles
// at PIPE = 3, 45.7 KB a block, 4 blocks a multiprocessor as PIPE = 0's 43.5 KB. Same products, same bits.
// FAR (with PIPE only; bppart_far_sums_async): 0, the far products a thread a cell, 7 shared loads a k for its
// 4 multiply-adds; 1, the ring's rows padded to B + 2 doubles (16-byte aligned; 48.4 KB at PIPE = 3) and the
// row operands read two k at a time (ld.shared.v2.f64, 5 loads a k); 2, on FP64 tensor cores (mma m8n8k4,
// a fragment load feeds 64 multiply-adds), rows padded to B + 4 where the ring fits 48 KB (conflict-free
// fragment loads), else B + 2. 0 and 1: the same products in the same order (the same bits).
//
// WARP: the near part by one warp of the block (bppart_near_warp: two lanes a tile row, a __syncwarp a step
// instead of a block barrier, the cells stored after the last step, a thread a cell), the same arithmetic as
// LANES (the same bits); LANES is then not read. The warp is blockIdx.x % (B B / 32), so that the near parts of
// the blocks a multiprocessor holds spread over its four schedulers.
// DYN: the block's shared memory dynamic (the host gives band_tiles_shared(sizes) bytes, checked here), so that
// the tensor-core ring's rows are padded to B + 4 at PIPE = 3 too (52.5 KB at 16-tiles; static memory stops at 48).
// HINT (v9): band_copy's L2 hint on the far part's copies (0: none).
// OUTER (v13): with SPLIT, 1: QF's base (wi(a0, b0) QI of the inner interval) computed here from QI, not parked in R
// by bppart_band_outer_lean (which then reads no QI and writes no R: two of its ~3 l1 + 10 transfers a cell); the
// same rounded product (__dmul_rn: nothing fuses it into a later sum), so the same bits. Without SPLIT, 2: the terms
// over other query intervals summed after the far part, not before it (fewer values live across the far part; its
// copies issued without waiting for those loads); the same bits as the unsplit form (which adds s0 and both apart, in
// another order than the split form's parked s0 + both: within 1e-12 of it, not its bits; v13).
// FARSHAPE (v18; FAR = 2, B a multiple of 16): the far products by Hopper's larger FP64 mma (bppart_far_sums_async's
// SHAPE: 1 m16n8k4, 2 m16n8k8, 3 m16n8k16; a warp a 16 x 8 block of a sum), 0 m8n8k4; the same bits on an H100.
template <int B, bool SPLIT, int MINB, bool LANES, bool TRIM, int PIPE, int FAR, bool WARP = false, bool DYN = false,
          int HINT = 0, int OUTER = 0, int FARSHAPE = 0>
__global__ void __launch_bounds__(B * B, MINB > 0 ? MINB : (B <= 8 ? 8 : 2))
bppart_band_tiles(const unsigned char* __restrict__ a, const unsigned char* __restrict__ rb,
                  const double* __restrict__ Q0, const double* __restrict__ Q1, const double* __restrict__ W, double* QI,
                  double* QX, double* QIac, double* QF, double* R, double* T0, double* AUX0, double* T1, double* AUX1,
                  const double* __restrict__ ACCA, const double* __restrict__ ACCM, int M, int n, int W1, int l1,
                  int nt, int dfirst, int dlast, unsigned int* counter, const int* __restrict__ ends) {
    static_assert(PIPE == 0 || PIPE == 2 || PIPE == 3, "cp.async ring of 2 or 3 stages (static shared memory)");
    static_assert(PIPE > 0 || FAR == 0, "the far part's other forms read the ring");
    constexpr int NV = LANES ? 9 : 8, NEAR = 7 + 4 + NV;
    constexpr int RP = FAR == 0 ? B + 1 : FAR == 1 || (!DYN && 7 * PIPE * B * (B + 4) * 8 > 47 * 1024) ? B + 2 : B + 4;
    constexpr int RING = 7 * PIPE * B * RP, TILES = (PIPE > 0 ? 2 + 4 + NV : NEAR) * B * (B + 1);
    constexpr int WTILES = WARP ? NearWarp<B>::DOUBLES : 0, FIRST = RING > TILES ? RING : TILES;
    // PIPE: the near part's tiles X[0..1], C, V alias the ring (free once bppart_far_sums_async returns); WARP: its
    // tiles (NearWarp) likewise
    constexpr int UD = FIRST > WTILES ? FIRST : WTILES;
    __shared__ __align__(16) double Ustatic[DYN ? 2 : UD];
    extern __shared__ __align__(16) double Udynamic[];
    double* const U = DYN ? Udynamic : Ustatic;
    if (DYN) {
        unsigned given;
        asm("mov.u32 %0, %%dynamic_smem_size;" : "=r"(given));
        if (given < UD * 8u) __trap();          // the host's band_tiles_shared disagrees with this kernel
    }
    double(*X)[B][B + 1] = reinterpret_cast<double(*)[B][B + 1]>(U);
    double(*C)[B][B + 1] = X + (PIPE > 0 ? 2 : 7);
    double(*V)[B][B + 1] = X + (PIPE > 0 ? 6 : 11);
    double(*ring)[B][RP] = reinterpret_cast<double(*)[B][RP]>(U);
    __shared__ double halo[B];
    __shared__ unsigned char yrow[B], ycol[B];
    const int ti = threadIdx.x / B, tj = threadIdx.x % B;
    const int mats = M - l1 + 1, M1 = M + 1, L2 = W1 - 1;
    const size_t S = (size_t)(n + 1) * band_pitch(W1);
    const double* w1 = W;
    const double* w2 = W + 25;
    const double* wi = W + 50;
    for (int d = dfirst; d <= dlast; ++d) {
        const long long items = (long long)mats * (nt - d);
        for (long long item = blockIdx.x; item < items; item += gridDim.x) {
            const int I = item % (nt - d);
            const int a0 = item / (nt - d), J = I + d, a1 = a0 + l1;
            const int IB = I * B, JB = J * B;
            if (JB - (IB + B - 1) > L2) continue;          // block-uniform: no cell in the band
            if (JB > ends[IB]) continue;                   // block-uniform: no cell a window needs (band_ends)
            const size_t lb = (size_t)a0 * S;
            const size_t A = band_interval(M, a0, a1) * S;
            const int b0 = IB + ti, b1 = JB + tj, l2 = b1 - b0;
            const bool valid = l2 > 0 && l2 <= L2 && b1 <= n;
            const size_t c = valid ? (size_t)b0 * band_pitch(W1) + l2 : 0;
            const int x0 = a[a0], x1 = a[a1 - 1];
            const int y0 = valid ? rb[b0] : 4, y1 = valid ? rb[b1 - 1] : 4;
            double s0 = 0.0, m = 0.0, both = 0.0, pqx = 0.0, qfbase = 0.0, qibase = 0.0, acca = 0.0;
            if (valid && SPLIT) {
                m = ACCM[lb + c];
                s0 = QIac[A + c];                   // s0 + both
                pqx = QX[A + c];
                qfbase = OUTER == 1 ? __dmul_rn(wi[x0 * 5 + y0],
                                          QI[band_interval(M, a0 + 1, a1) * S + (size_t)(b0 + 1) * band_pitch(W1) + l2 - 1])
                              : R[A + c];
                acca = l1 >= 2 ? ACCA[lb + c] : 0.0;
                qibase = Q0[a0 * M1 + a1] * Q1[c];
            }
            auto outer_terms = [&]() {
                double ps0 = 0.0, pa0 = 0.0;
                // three loops without branches, unrolled: their loads are in flight together
                if (l1 >= 5) {
#pragma unroll 4
                    for (int k = a0 + 1; k <= a1 - 2; ++k)
                        ps0 += Q0[(a0 + 1) * M1 + k] * AUX0[band_interval(M, k, a1 - 1) * S + c];
                }
#pragma unroll 4
                for (int k = a0; k <= a1 - 2; ++k) pa0 += Q0[(k + 1) * M1 + a1] * T0[band_interval(M, a0, k + 1) * S + c];
#pragma unroll 4
                for (int k = a0 + 1; k <= a1 - 1; ++k) pqx += Q0[a0 * M1 + k] * R[band_interval(M, k, a1) * S + c];
                bppart_outer_terms(l1, l2, w1, w2, wi, x0, x1, y0, y1, ps0, pa0, ACCM + (lb + c), ACCA + (lb + c),
                                   QF + (band_interval(M, a0, a1 - 1) * S + c - 1),
                                   QX + (band_interval(M, a0 + 1, a1 - 1) * S + (size_t)(b0 + 1) * band_pitch(W1) + l2 - 2),
                                   QI + (band_interval(M, a0 + 1, a1) * S + (size_t)(b0 + 1) * band_pitch(W1) + l2 - 1),
                                   Q0[a0 * M1 + a1], Q1[c], T0 + (A + c), AUX0 + (A + c), s0, m, both, acca, qfbase,
                                   qibase);
            };
            if (!SPLIT && valid && OUTER != 2) outer_terms();
            double fa = 0.0, fq = 0.0, fr = 0.0, fs = 0.0;
            // TRIM: this thread's row (column) of the left (right) tiles is read by a cell of the band
            const bool rowed = !TRIM || ti >= d * B - L2, columned = !TRIM || tj <= L2 + B - 1 - d * B;
            auto load = [&](int K, double (&v)[7]) {
                const int KB = K * B, row = IB + ti, col = KB + tj;
                if (K < J) {
                    v[0] = rowed ? band_cg(T1 + lb, row, col, W1, n) : 0.0;
                    v[1] = rowed ? band_cg(QIac + A, row, col, W1, n) : 0.0;
                    v[2] = columned ? band_at(Q1, KB + ti, JB + tj, W1, n) : 0.0;
                }
                if (K > I) {
                    v[3] = rowed ? band_at(Q1, row, col, W1, n) : 0.0;
                    v[4] = columned ? band_cg(QF + A, KB + ti, JB + tj, W1, n) : 0.0;
                    v[5] = rowed ? band_at(Q1, row + 1, col, W1, n) : 0.0;
                    v[6] = columned ? band_cg(AUX1 + lb, KB + ti, JB + tj - 1, W1, n) : 0.0;
                }
            };
            if (PIPE > 0) {
                // the same cells as load(), copied (zero-filled where load() gives 0.0)
                auto issue = [&](int K, double(*T)[B][RP]) {
                    const int KB = K * B, row = IB + ti, col = KB + tj;
                    if (K < J) {
                        band_async<HINT>(&T[0][ti][tj], T1 + lb, row, col, W1, n, rowed);
                        band_async<HINT>(&T[1][ti][tj], QIac + A, row, col, W1, n, rowed);
                        band_async<HINT>(&T[2][ti][tj], Q1, KB + ti, JB + tj, W1, n, columned);
                    }
                    if (K > I) {
                        band_async<HINT>(&T[3][ti][tj], Q1, row, col, W1, n, rowed);
                        band_async<HINT>(&T[4][ti][tj], QF + A, KB + ti, JB + tj, W1, n, columned);
                        band_async<HINT>(&T[5][ti][tj], Q1, row + 1, col, W1, n, rowed);
                        band_async<HINT>(&T[6][ti][tj], AUX1 + lb, KB + ti, JB + tj - 1, W1, n, columned);
                    }
                };
                bppart_far_sums_async<B, PIPE < 2 ? 2 : PIPE, RP, FAR, FARSHAPE>(ring, I, J, d, ti, tj, issue, fa, fq,
                                                                                   fr, fs, !TRIM || (rowed && columned));
            } else {
                bppart_far_sums<B, SPLIT>(X, I, J, d, ti, tj, load, fa, fq, fr, fs, !TRIM || (rowed && columned));
            }
            if (!SPLIT && valid && OUTER == 2) outer_terms();
            if (WARP) {
                const NearWarp<B> S(U);
                bppart_near_warp_stage<B>(S, ti, tj, fs, m, fa, acca, fq, s0, both, qfbase, fr, pqx, qibase,
                                          valid ? w2[y0 * 5 + y1] : 0.0, band_at(Q1, IB + ti + 1, IB + tj, W1, n),
                                          band_at(Q1, IB + ti, IB + tj, W1, n), band_at(Q1, JB + ti, JB + tj, W1, n),
                                          tj == 0 && d >= 1 ? band_cg(AUX1 + lb, IB + ti, JB - 1, W1, n) : 0.0);
                __syncthreads();
                if (threadIdx.x / 32 == blockIdx.x % (B * B / 32))
                    bppart_near_warp<B>(S, IB, JB, n, W1, TRIM ? max(1 - B, 1 - d * B) : 1 - B,
                                        TRIM ? min(B - 1, L2 - d * B) : B - 1);
                __syncthreads();
                if (valid)
                    bppart_near_warp_cell<B>(S, ti, tj, c, T1 + lb, AUX1 + lb, QIac + A, QF + A, R + A, QX + A, QI + A);
                __syncthreads();      // (a persistent grid's next tile reuses U)
                continue;
            }
            bppart_keep_far<B>(V, ti, tj, fs, m, fa, acca, fq, s0, both, qfbase, fr, pqx);
            X[0][ti][tj] = band_at(Q1, IB + ti, IB + tj, W1, n);
            X[1][ti][tj] = band_at(Q1, JB + ti, JB + tj, W1, n);
            if (threadIdx.x < B)
                halo[threadIdx.x] = d >= 1 ? band_cg(AUX1 + lb, IB + threadIdx.x, JB - 1, W1, n) : 0.0;
            if (LANES) {
                V[LANES ? 8 : 0][ti][tj] = qibase;
                if (ti == 0) {
                    yrow[tj] = IB + tj < n ? rb[IB + tj] : 4;
                    ycol[tj] = JB + tj - 1 >= 0 && JB + tj - 1 < n ? rb[JB + tj - 1] : 4;
                }
            }
            __syncthreads();
            if (LANES)
                bppart_near_lanes<B>(X, C, V, halo, yrow, ycol, ti, tj, IB, JB, n, W1, w2, T1 + lb, AUX1 + lb,
                                     QIac + A, QF + A, R + A, QX + A, QI + A,
                                     TRIM ? max(1 - B, 1 - d * B) : 1 - B, TRIM ? min(B - 1, L2 - d * B) : B - 1);
            else
                bppart_near<B>(X, C, V, halo, ti, tj, valid, IB, JB, b0, b1, l2, w2, y0, y1, qibase, c, T1 + lb,
                               AUX1 + lb, QIac + A, QF + A, R + A, QX + A, QI + A);
        }
        if (d < dlast) grid_barrier(counter, (unsigned int)(d - dfirst + 1) * gridDim.x);
    }
}

// The last tile diagonal (v22, launch size ``band_last``) where its tiles hold one band cell each, (B - 1, 0): the
// host's condition L2 = d B - (B - 1) for its d = dmax (window 128: L2 = 129, B = 16, d = 9). bppart_band_tiles runs a
// whole block on such a tile: d + 1 far steps of 7 tiles through the ring for one cell, and one near step whose sums
// are all zero (the cell's near operands are the tile's own later cells, and Q1(I)'s columns past B). Here one warp a
// tile: the cell's four far sums by the same mma.sync m16n8k16 (SHAPE 3) as the far part, a step of 16 k an
// instruction, K in order from its first step, so the same chains of products: rows 0, 1 of A the row operands T1 and
// QIac of (b0, k), K = I .. J - 1, by B's column 0, Q1(k, b1); rows 2, 3 Q1 of (b0, k) and (b0 + 1, k), K = I + 1 .. J,
// by columns 1, 2, QF(k, b1) and AUX1(k, b1 - 1) (the other entries of C are not read). The loads are band_at's and
// band_cg's of the same cells as the far part's copies (the trim keeps row B - 1 and column 0 whole), the finish
// bppart_near_warp's expressions with its zero near sums, the cell's split values as bppart_band_tiles reads them:
// the same bits as the far part on tensor cores (FAR 2; m8n8k4 and m16n8k16 give the same bits on an H100).
// A block of WARPS warps takes WARPS tiles (items of the diagonal, as bppart_band_tiles numbers them).
template <int B, int OUTER, int WARPS>
__global__ void __launch_bounds__(32 * WARPS)
bppart_band_last(const unsigned char* __restrict__ a, const unsigned char* __restrict__ rb,
                 const double* __restrict__ Q0, const double* __restrict__ Q1, const double* __restrict__ W, double* QI,
                 double* QX, double* QIac, double* QF, double* R, double* T0, double* AUX0, double* T1, double* AUX1,
                 const double* __restrict__ ACCA, const double* __restrict__ ACCM, int M, int n, int W1, int l1, int nt,
                 int d, const int* __restrict__ ends) {
    static_assert(B == 16, "one m16n8k16 a tile step");
    const int mats = M - l1 + 1, M1 = M + 1, L2 = W1 - 1;
    const long long items = (long long)mats * (nt - d);
    const long long item = (long long)blockIdx.x * WARPS + threadIdx.x / 32;
    if (item >= items) return;                                 // warp-uniform from here on
    const int I = item % (nt - d), a0 = item / (nt - d), J = I + d, a1 = a0 + l1;
    const int IB = I * B, JB = J * B;
    if (JB - (IB + B - 1) > L2 || JB > ends[IB]) return;       // as bppart_band_tiles' skips
    const int b0 = IB + B - 1, b1 = JB, l2 = b1 - b0;
    if (l2 <= 0 || l2 > L2 || b1 > n) return;                  // the cell's ``valid``
    const size_t S = (size_t)(n + 1) * band_pitch(W1), lb = (size_t)a0 * S, A = band_interval(M, a0, a1) * S;
    const size_t c = (size_t)b0 * band_pitch(W1) + l2;
    const int lane = threadIdx.x % 32, g = lane / 4, t = lane % 4;
    // the cell's values, by the lanes that finish it (lane 0), before the products (their loads in flight meanwhile)
    double m = 0.0, s0 = 0.0, pqx = 0.0, qfbase = 0.0, acca = 0.0, qibase = 0.0, w = 0.0;
    if (lane == 0) {
        const int x0 = a[a0], y0 = rb[b0], y1 = rb[b1 - 1];
        const double* w2 = W + 25;
        const double* wi = W + 50;
        m = ACCM[lb + c];
        s0 = QIac[A + c];
        pqx = QX[A + c];
        qfbase = OUTER == 1 ? __dmul_rn(wi[x0 * 5 + y0], QI[band_interval(M, a0 + 1, a1) * S + (size_t)(b0 + 1) * band_pitch(W1) + l2 - 1])
                            : R[A + c];
        acca = l1 >= 2 ? ACCA[lb + c] : 0.0;
        qibase = __dmul_rn(Q0[a0 * M1 + a1], Q1[c]);
        w = w2[y0 * 5 + y1];
    }
    // lane 4 g + t: A's row g (g < 4) and B's column g (g < 3), the k = t + 4 u of each step; rows 0, 1 and column 0
    // from K = I, the others from K = I + 1 (d steps each)
    const double* left = g == 0 ? T1 + lb : g == 1 ? QIac + A : Q1;
    const double* right = g == 0 ? Q1 : g == 1 ? QF + A : AUX1 + lb;
    const int row = g == 3 ? b0 + 1 : b0, col = g == 2 ? b1 - 1 : b1;
    const int kl = (g < 2 ? IB : IB + B) + t, kr = (g == 0 ? IB : IB + B) + t;
    double acc[2][2] = {{0.0, 0.0}, {0.0, 0.0}};
#pragma unroll 2       // (two steps' loads in flight: 98 registers, no spill; 3: 128 and spills)
    for (int s = 0; s < d; ++s) {
        double fa[8], fb[4];
#pragma unroll
        for (int u = 0; u < 4; ++u) {
            fa[2 * u] = g < 4 ? band_cg(left, row, kl + s * B + 4 * u, W1, n) : 0.0;
            fa[2 * u + 1] = 0.0;
            fb[u] = g < 3 ? band_cg(right, kr + s * B + 4 * u, col, W1, n) : 0.0;
        }
        mma_m16n8<4>(acc[0][0], acc[0][1], acc[1][0], acc[1][1], fa, fb);
    }
    // C[g][2 t + h] in acc[0][h]: fa = C[0][0] (lane 0), fq = C[1][0] (lane 4), fr = C[2][1] (lane 8), fs = C[3][2] (lane 13)
    const double fq = __shfl_sync(0xffffffffu, acc[0][0], 4);
    const double fr = __shfl_sync(0xffffffffu, acc[0][1], 8);
    const double fs = __shfl_sync(0xffffffffu, acc[0][0], 13);
    if (lane != 0) return;
    const double fa = acc[0][0], both = 0.0, zero = 0.0;    // (both: the split sweep's; zero: the near sums)
    const double s1 = l2 >= 5 ? __dmul_rn(w, fs + zero) : 0.0;
    const double t1 = s1 + m;
    const double aux = fa + zero + t1;
    const double closed = (s0 + both) + s1;
    const double qf = qfbase + (acca + fq + s0 + both) + zero + s1;
    const double r = fr + zero + qf;
    const double qx = pqx + r;
    T1[lb + c] = t1;
    AUX1[lb + c] = aux;
    QIac[A + c] = closed;
    QF[A + c] = qf;
    R[A + c] = r;
    QX[A + c] = qx;
    QI[A + c] = qibase + qx;
}

// The terms of the level l1's cells over other query intervals, a thread per cell (grid y: the query
// interval's start): they read only shorter query intervals, so they need no order inside the level.
// Writes T0 and AUX0 as bppart_band_tiles does, and parks what its near part reads in this interval's
// own cells, which the sweep overwrites after reading them: s0 + both in QIac, the query sum of R in
// QX, QF's base in R, m in ACCM (the level table; the cross sum stays in ACCA).
// LEAN (bppart_band_outer_lean, v13): QF's base not parked (the sweep's OUTER = 1 computes it): no QI read, no R write.
// CS (bppart_band_outer_cs, v9): the three sums' loads (each cell read once a level) evict-first in L2 (ld.global.cs),
// so that they leave the cross products' operands in L2 (another stream's launch runs them at the same time).
#define BAND_OUTER_PARAMETERS const unsigned char* __restrict__ a, const unsigned char* __restrict__ rb, \
    const double* __restrict__ Q0, const double* __restrict__ Q1, const double* __restrict__ W, \
    const double* __restrict__ QI, double* QX, double* QIac, const double* __restrict__ QF, double* R, double* T0, \
    double* AUX0, const double* __restrict__ ACCA, double* ACCM, int M, int n, int W1, int l1, const int* __restrict__ ends
template <bool CS>
__device__ __forceinline__ double band_outer_load(const double* p) { return CS ? __ldcs(p) : *p; }

// PAIR (bppart_band_outer_pair<false>, v15's production; with LEAN): the levels paired, ``role`` given by the host a level. The sums of
// AUX0 and T0 of the level l1 + 1 read values the level l1 reads too: the first level of a pair (role 1) takes them
// from its loads and parks them, the second (role 2) reads them back instead of its l1 - 1 and l1 - 2 loads.
//   pa0(l1 + 1, a0) = sum_{k = a0 .. a1 - 1} Q0[k + 1][a1 + 1] T0([a0, k + 1)): the level's own loads of T0 in the
//     same order, then this thread's own T0 of [a0, a1) last; parked in T0([a0, a1 + 1)) (the cell that level writes).
//   ps0(l1 + 1, a0 - 1) = sum_{k = a0 .. a1 - 2} Q0[a0][k] AUX0([k, a1 - 1)): one more load (k = a0, first), then the
//     level's own loads in the same order; parked in AUX0([a0 - 1, a1)).
// Each chain adds its terms in the production's order (each a multiply-add into the sum so far, from 0): the same
// bits. (R's sum cannot be shared so: its first term, R([a0, a1)), is the level's own sweep's output.) Transfers a
// cell over the 23 levels of M = 23: 16% fewer (pairs from l1 = 5: roles 1 at odd l1 >= 5, 2 at even l1 >= 6).
// RQ (with PAIR): R's sum in the other order, k from a1 - 1 down (shortest R first; **another summation order**, within
// the tests' 1e-12 of the CPU, not the production's bits), so that it is shared too: role 1 parks the next level's
//   pqx(l1 + 1, a0 - 1) but its last term (sum_{k = a1 - 1 .. a0 + 1} Q0[a0 - 1][k] R([k, a1)), the level's own loads)
// in QX([a0 - 1, a1)), and role 2 adds the one term left, Q0[a0][a0 + 1] R([a0 + 1, a1)): 25% fewer transfers a cell.
// (v15 at 23 x 20,000 on an H100: the outer terms 0.0589 s without pairs, 0.0498 with, 0.0469 with RQ.)
// OPEN (v33, band_outer_open): a query interval that cannot close (w1 of its end bases 0; the grid's y, so the test is
// the block's) has s0 = w1 ps0 = 0 and both = QX w1 w2 = 0 whatever the sums: its AUX0 chain (l1 - 2 loads a cell, or
// role 2's parked sum) and QX's inner cell are not loaded, ps0 and both stay 0 (0 x a finite sum >= 0 is +0: the
// same bits); role 1 parks the next level's AUX0 sum only where that level's interval [a0 - 1, a1) can close.
template <bool OPEN>
__device__ __forceinline__ bool band_outer_closes(const double* w1, int x0, int x1) {
    return !OPEN || w1[x0 * 5 + x1] != 0.0;
}

template <bool CS, bool LEAN = false, bool PAIR = false, bool RQ = false, bool OPEN = false>
__device__ __forceinline__ void band_outer(BAND_OUTER_PARAMETERS, int role = 0) {
    const int P = band_pitch(W1);            // (v38: a thread for each row's pad too, which returns here)
    const long long cells = (long long)(n + 1) * P;
    const long long c = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (c >= cells) return;
    const int b0 = c / P, l2 = c % P, b1 = b0 + l2;
    if (l2 == 0 || l2 >= W1 || b1 > n || b1 > ends[b0]) return;      // (band_ends: a cell no window needs; zeroed)
    const int a0 = blockIdx.y, a1 = a0 + l1, M1 = M + 1;
    const size_t S = (size_t)(n + 1) * band_pitch(W1), lb = (size_t)a0 * S, A = band_interval(M, a0, a1) * S;
    const double* w1 = W;
    const double* w2 = W + 25;
    const double* wi = W + 50;
    double ps0 = 0.0, pa0 = 0.0, pqx = 0.0;
    const bool closes = band_outer_closes<OPEN>(w1, a[a0], a[a1 - 1]);
    // PAIR: the next level's sums (role 1), where that level has the interval (OPEN: and it can close)
    const bool next_a = PAIR && role == 1 && a1 + 1 <= M,
               next_s = PAIR && role == 1 && l1 >= 4 && a0 >= 1 && band_outer_closes<OPEN>(w1, a[a0 - 1], a[a1 - 1]);
    double na0 = 0.0, ns0 = 0.0;
    if (PAIR && role == 2) {
        ps0 = l1 >= 5 && closes ? AUX0[A + c] : 0.0;
        pa0 = T0[A + c];
    } else {
        if (next_s) {
            ns0 += Q0[a0 * M1 + a0] * AUX0[band_interval(M, a0, a1 - 1) * S + c];
#pragma unroll 4
            for (int k = a0 + 1; k <= a1 - 2; ++k) {
                const double v = AUX0[band_interval(M, k, a1 - 1) * S + c];
                ps0 += Q0[(a0 + 1) * M1 + k] * v;
                ns0 += Q0[a0 * M1 + k] * v;
            }
            if (l1 < 5) ps0 = 0.0;
        } else if (l1 >= 5 && closes) {
#pragma unroll 4
            for (int k = a0 + 1; k <= a1 - 2; ++k) ps0 += Q0[(a0 + 1) * M1 + k] * band_outer_load<CS>(AUX0 + band_interval(M, k, a1 - 1) * S + c);
        }
        if (next_a) {
#pragma unroll 4
            for (int k = a0; k <= a1 - 2; ++k) {
                const double v = T0[band_interval(M, a0, k + 1) * S + c];
                pa0 += Q0[(k + 1) * M1 + a1] * v;
                na0 += Q0[(k + 1) * M1 + a1 + 1] * v;
            }
        } else {
#pragma unroll 4
            for (int k = a0; k <= a1 - 2; ++k) pa0 += Q0[(k + 1) * M1 + a1] * band_outer_load<CS>(T0 + band_interval(M, a0, k + 1) * S + c);
        }
    }
    double nqx = 0.0;
    const bool next_q = RQ && role == 1 && a0 >= 1;
    if (RQ && role == 2) {
        pqx = QX[A + c];
        pqx += Q0[a0 * M1 + a0 + 1] * R[band_interval(M, a0 + 1, a1) * S + c];
    } else if (RQ) {
#pragma unroll 4
        for (int k = a1 - 1; k >= a0 + 1; --k) {
            const double v = R[band_interval(M, k, a1) * S + c];
            pqx += Q0[a0 * M1 + k] * v;
            if (next_q) nqx += Q0[(a0 - 1) * M1 + k] * v;
        }
    } else {
#pragma unroll 4
        for (int k = a0 + 1; k <= a1 - 1; ++k) pqx += Q0[a0 * M1 + k] * band_outer_load<CS>(R + band_interval(M, k, a1) * S + c);
    }
    double s0 = 0.0, m = 0.0, both = 0.0, acca = 0.0, qfbase = 0.0, qibase = 0.0;
    bppart_outer_terms(l1, l2, w1, w2, wi, a[a0], a[a1 - 1], rb[b0], rb[b1 - 1], ps0, pa0, ACCM + (lb + c),
                       ACCA + (lb + c), QF + (band_interval(M, a0, a1 - 1) * S + c - 1),
                       QX + (band_interval(M, a0 + 1, a1 - 1) * S + (size_t)(b0 + 1) * band_pitch(W1) + l2 - 2),
                       QI + (band_interval(M, a0 + 1, a1) * S + (size_t)(b0 + 1) * band_pitch(W1) + l2 - 1), Q0[a0 * M1 + a1],
                       Q1[c], T0 + (A + c), AUX0 + (A + c), s0, m, both, acca, qfbase, qibase, closes);
    QIac[A + c] = s0 + both;
    QX[A + c] = pqx;
    if (!LEAN) R[A + c] = qfbase;    // (LEAN: qfbase unused, so its QI load is dead and not issued)
    ACCM[lb + c] = m;
    if (next_a) {
        const double t0 = T0[A + c];   // (the value just stored: the next level reads it so)
        na0 += Q0[a1 * M1 + a1 + 1] * t0;
        T0[band_interval(M, a0, a1 + 1) * S + c] = na0;
    }
    if (next_s) AUX0[band_interval(M, a0 - 1, a1) * S + c] = ns0;
    if (next_q) QX[band_interval(M, a0 - 1, a1) * S + c] = nqx;
}

__global__ void __launch_bounds__(256) bppart_band_outer(BAND_OUTER_PARAMETERS) {
    band_outer<false>(a, rb, Q0, Q1, W, QI, QX, QIac, QF, R, T0, AUX0, ACCA, ACCM, M, n, W1, l1, ends);
}

__global__ void __launch_bounds__(256) bppart_band_outer_cs(BAND_OUTER_PARAMETERS) {
    band_outer<true>(a, rb, Q0, Q1, W, QI, QX, QIac, QF, R, T0, AUX0, ACCA, ACCM, M, n, W1, l1, ends);
}

__global__ void __launch_bounds__(256) bppart_band_outer_lean(BAND_OUTER_PARAMETERS) {
    band_outer<false, true>(a, rb, Q0, Q1, W, QI, QX, QIac, QF, R, T0, AUX0, ACCA, ACCM, M, n, W1, l1, ends);
}

template <bool RQ, bool OPEN>
__global__ void __launch_bounds__(256) bppart_band_outer_pair(BAND_OUTER_PARAMETERS, int role) {
    band_outer<false, true, true, RQ, OPEN>(a, rb, Q0, Q1, W, QI, QX, QIac, QF, R, T0, AUX0, ACCA, ACCM, M, n, W1, l1,
                                            ends, role);
}

// band_ends (v9): the cells past their piece's bases (b1 > ends[b0]: filler bases and the cells that cross
// into the next piece) that the launch does not compute, zeroed at its start in ``count`` matrices of S cells
// from T (a block per row of ``rows``, the rows within L2 of their piece's end, and per 16 matrices): the
// kernels read such a cell only as the other factor of a zero product (outside the band), where it must be
// finite; the cells a window needs never read it otherwise (a cell's sub-intervals end within its piece).
__global__ void __launch_bounds__(128)
bppart_band_unneeded(double* T, long long count, long long S, const int* __restrict__ rows,
                     const int* __restrict__ ends, int W1) {
    const int b0 = rows[blockIdx.x], first = ends[b0] - b0 + 1;
    for (long long m = blockIdx.y * 16LL; m < count && m < blockIdx.y * 16LL + 16; ++m)
        for (int l2 = max(first, 1) + threadIdx.x; l2 < W1; l2 += blockDim.x) T[m * S + (size_t)b0 * band_pitch(W1) + l2] = 0.0;
}
