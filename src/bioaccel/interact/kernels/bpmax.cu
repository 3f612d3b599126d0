// BPMax on the GPU (variant "fused"): the recurrence of docs/bpmax.md, query intervals as the outer
// grid, the target as long upper-banded matrices.
//
// Layout. Each query interval (i1, l1 = j1 - i1 + 1), l1 <= L1, owns one target matrix, the band of
// F(i1, j1, ., .): row i2 (0 <= i2 <= N) holds F(i1, j1, i2, i2 + e) for e = -1 .. Wb - 1 at
// F[m * mat_stride + cell_at(i2, e)]. The slot e = -1 is the empty-target border of bpmax.md's compact
// form, F(i1, j1, i2, i2 - 1) = S1(i1, j1); row N holds only that slot (R4 reads it at the last column).
// A row's RS slots (a multiple of 8, at least Wb + 8) hold the absolute target columns from
// base(i2) = (i2 - 1) rounded down to a multiple of 8: every row's slots are aligned the same way on
// absolute columns, so 8 columns at a multiple of 8 are one aligned 16-byte load in any row, and the
// slots outside the band are never written (they keep the sentinel the table starts with).
// Matrices are numbered level by level: m(i1, l1) = (l1 - 1) M - (l1 - 1)(l1 - 2) / 2 + i1. S2, the
// target's own fold, has the same band layout (one matrix). Cells whose interval crosses the end of
// the (concatenated) target are never read by a cell inside it, so they hold whatever was computed.
//
// A level l1 is two launches:
//   products: every cell of every matrix of the level at once, from shorter query intervals only:
//     the base case, the strand-1 pair, and the double reduction D with R3 and R4 as its border terms
//     (k2 = i2 - 1 reads the e = -1 slot of the left operand, k2 = j2 that of the right one):
//       T(i2, j2) = max over k1 in [i1, j1), k2 in [i2 - 1, j2] of F(i1,k1)(i2, k2) + F(k1+1,j1)(k2+1, j2)
//     a sum (max) of banded max-plus products, tiled in registers, operands staged in shared memory;
//   finish: the terms inside the matrix (R1, R2, the strand-2 pair), Nussinov-like along the target
//     band, diagonal by diagonal in shared memory over a segment of rows plus the Wb - 1 rows below it
//     that its cells read (recomputed by the neighbouring segment too: no block waits for another).
// The target's own fold S2 is the finish of an all-zero matrix reading itself (SELF).
//
// Values are exact integers in units; cells are stored as T (short where every score fits, else int),
// computed in int. The sentinel (max-plus zero) is far below any score and twice it does not overflow.

#include <cuda_runtime.h>

#include "dpx.cuh"   // runtime/kernels: cp.async (the pairs products' STAGE 2 and 3)

typedef unsigned char code_t;

struct Dims {
    int M;                  // query length
    int N;                  // target length (targets of a batch back to back)
    int L1;                 // longest query interval
    int Wb;                 // band width: intervals of at most Wb target bases
    int RS;                 // row stride in cells (>= Wb + 1)
    long long mat_stride;   // cells per matrix: (N + 1) * RS
    const int* pairs;       // 5 x 5 pair scores in units over codes A, C, G, U, other
};

// Kernel arguments are plain scalars and pointers (what CuPy passes); each kernel rebuilds its Dims.
#define DIMS_ARGS const int M, const int N, const int L1, const int Wb, const int RS, \
                  const long long mat_stride, const int* __restrict__ pairs
#define DIMS Dims g{M, N, L1, Wb, RS, mat_stride, pairs}

template <typename T> __device__ __forceinline__ int sentinel();
template <> __device__ __forceinline__ int sentinel<short>() { return -16384; }
template <> __device__ __forceinline__ int sentinel<int>() { return -(1 << 30); }

__device__ __forceinline__ long long mat_of(const Dims& g, int i1, int l1) {
    return (long long)(l1 - 1) * g.M - (long long)(l1 - 1) * (l1 - 2) / 2 + i1;
}

// the cell F(., ., i2, i2 + e) of a matrix's band rows (e = -1: the empty-target slot)
__device__ __forceinline__ long long cell_at(const Dims& g, int i2, int e) {
    return (long long)i2 * g.RS + e + 1 + ((i2 - 1) & 7);
}

__device__ __forceinline__ int pair_score(const Dims& g, code_t x, code_t y) {
    return g.pairs[x * 5 + y];
}

// ---------------------------------------------------------------------------------------------------
// Shared by the products kernels (and bpmax_border): which tile a block computes, the terms of a cell
// that need no reduction, and the empty-target slot of the tile's rows.
struct Tile {
    int i1, l1, rt, ct, r0, c0;
    long long m;
};

__device__ __forceinline__ Tile tile_of(const Dims& g, int l1, int col_tiles, int row_tiles, int rows, int cols) {
    int b = blockIdx.x;
    Tile t;
    t.ct = b % col_tiles; b /= col_tiles;
    t.rt = b % row_tiles; b /= row_tiles;
    t.i1 = b;
    t.l1 = l1;
    t.r0 = t.rt * rows;
    t.c0 = t.r0 + t.ct * cols;
    t.m = mat_of(g, t.i1, l1);
    return t;
}

// the base case and the strand-1 pair of cell (i2, j2) of matrix (i1, l1); 0 where neither applies
template <typename T>
__device__ __forceinline__ int start_value(const Dims& g, const code_t* __restrict__ a, const code_t* __restrict__ rb,
                                           const T* __restrict__ F, int i1, int l1, int i2, int j2) {
    const int e = j2 - i2;
    int v = 0;
    if (l1 == 1 && e == 0 && i2 < g.N) v = pair_score(g, a[i1], rb[i2]);
    if (l1 >= 5 && e >= 0 && e < g.Wb && j2 < g.N)     // the pair (i1, j1) inside the query
        v = max(v, pair_score(g, a[i1], a[i1 + l1 - 1]) +
                       (int)F[mat_of(g, i1 + 1, l1 - 2) * g.mat_stride + cell_at(g, i2, e)]);
    return v;
}

// F(i1, j1, i2, i2 - 1) = S1(i1, j1) for the tile's rows (and row N after the last tile): column tile 0
template <typename T>
__device__ __forceinline__ void write_border(const Dims& g, const int* __restrict__ S1, T* __restrict__ out,
                                             int i1, int l1, int rt, int rows, int row_tiles) {
    const T s1 = (T)S1[i1 * g.L1 + l1 - 1];
    for (int row = threadIdx.x; row < rows; row += blockDim.x)
        if (rt * rows + row < g.N) out[cell_at(g, rt * rows + row, -1)] = s1;
    if (rt == row_tiles - 1 && threadIdx.x == 0) out[cell_at(g, g.N, -1)] = s1;
}

// ---------------------------------------------------------------------------------------------------
// The register tile's step, shared by every products loop: acc[r][c] = max(acc[r][c], a[r] + b[c]) for
// one reduction index, a thread's 4 operand words of each side (int cells: one update a word; packed
// int16 cells: two, one DPX instruction).
__device__ __forceinline__ int maxplus(int c, int a, int b) { return max(c, a + b); }
__device__ __forceinline__ unsigned maxplus(unsigned c, unsigned a, unsigned b) { return __viaddmax_s16x2(a, b, c); }

template <typename V, typename W>   // (int4, int) or (uint4, unsigned)
__device__ __forceinline__ void tile_step(const V av, const V bv, W (&acc)[4][4]) {
    const W ar[4] = {(W)av.x, (W)av.y, (W)av.z, (W)av.w};
    const W br[4] = {(W)bv.x, (W)bv.y, (W)bv.z, (W)bv.w};
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = maxplus(acc[r][c], ar[r], br[c]);
}

// ---------------------------------------------------------------------------------------------------
// products: one block per (matrix of the level, tile of TR rows x TC absolute columns of its band).
// Threads hold 4 x 4 cells; the reduction index k2 runs in chunks of KC staged in shared memory.
template <typename T, int TR, int TC, int KC, bool SKIP>
__device__ __forceinline__ void products_int(const code_t* __restrict__ a, const code_t* __restrict__ rb,
                                             const int* __restrict__ S1, T* __restrict__ F, DIMS_ARGS, const int l1,
                                             const int col_tiles, const int row_tiles) {
    DIMS;
    constexpr int THREADS = (TR / 4) * (TC / 4);
    constexpr int AS = TR + 4, BS = TC + 4;        // padded rows, still 16-byte aligned
    __shared__ __align__(16) int As[KC * AS];      // As[k][row] = F(i1,k1)(i2, k2)
    __shared__ __align__(16) int Bs[KC * BS];      // Bs[k][col] = F(k1+1,j1)(k2+1, j2)

    const int SENT = sentinel<T>();
    const Tile t = tile_of(g, l1, col_tiles, row_tiles, TR, TC);
    const int i1 = t.i1, j1 = i1 + l1 - 1, r0 = t.r0, c0 = t.c0;
    T* out = F + t.m * g.mat_stride;

    const int tid = threadIdx.x;
    const int tr = tid / (TC / 4), tc = tid % (TC / 4);
    const int row0 = r0 + tr * 4, col0 = c0 + tc * 4;

    int acc[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = start_value(g, a, rb, F, i1, l1, row0 + r, col0 + c);

    if (l1 >= 2 && !(SKIP && c0 >= N)) {   // SKIP: no column of the tile in the target (the packed kernel's)
        // k2 where some cell of the tile can read both operands inside their bands
        const int kb = max(r0 - 1, c0 - Wb);
        const int ke = min(min(c0 + TC - 1, r0 + TR - 1 + Wb - 1), N - 1);
        for (int k1 = i1; k1 < j1; ++k1) {
            const T* left = F + mat_of(g, i1, k1 - i1 + 1) * g.mat_stride;
            const T* right = F + mat_of(g, k1 + 1, j1 - k1) * g.mat_stride;
            for (int kc = kb; kc <= ke; kc += KC) {
                // stage: global reads run along band rows (coalesced), shared writes transpose A
                for (int x = tid; x < KC * TR; x += THREADS) {
                    const int k = x % KC, row = x / KC;
                    const int i2 = r0 + row, k2 = kc + k, e = k2 - i2;
                    int v = SENT;
                    if (i2 < N && k2 <= ke && e >= -1 && e < Wb) v = left[cell_at(g, i2, e)];
                    As[k * AS + row] = v;
                }
                for (int x = tid; x < KC * TC; x += THREADS) {
                    const int col = x % TC, k = x / TC;
                    const int k2 = kc + k, j2 = c0 + col, e = j2 - k2 - 1;
                    int v = SENT;
                    if (j2 < N && k2 <= ke && e >= -1 && e < Wb) v = right[cell_at(g, k2 + 1, e)];
                    Bs[k * BS + col] = v;
                }
                __syncthreads();
#pragma unroll 8
                for (int k = 0; k < KC; ++k) {
                    tile_step(*reinterpret_cast<const int4*>(&As[k * AS + tr * 4]),
                              *reinterpret_cast<const int4*>(&Bs[k * BS + tc * 4]), acc);
                }
                __syncthreads();
            }
        }
    }

#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) {
            const int i2 = row0 + r, j2 = col0 + c, e = j2 - i2;
            if (i2 < N && j2 < N && e >= 0 && e < Wb) out[cell_at(g, i2, e)] = (T)acc[r][c];
        }
    if (blockIdx.x % col_tiles == 0)
        write_border(g, S1, out, i1, l1, (blockIdx.x / col_tiles) % row_tiles, TR, row_tiles);
}

template <typename T, int TR, int TC, int KC>
__global__ void __launch_bounds__((TR / 4) * (TC / 4))
bpmax_products(const code_t* __restrict__ a, const code_t* __restrict__ rb, const int* __restrict__ S1,
               T* __restrict__ F, DIMS_ARGS, const int l1, const int col_tiles, const int row_tiles) {
    products_int<T, TR, TC, KC, true>(a, rb, S1, F, M, N, L1, Wb, RS, mat_stride, pairs, l1, col_tiles, row_tiles);
}

template <typename T, int TR, int TC, int KC>
__global__ void __launch_bounds__((TR / 4) * (TC / 4))
bpmax_products_unskipped(const code_t* __restrict__ a, const code_t* __restrict__ rb, const int* __restrict__ S1,
                         T* __restrict__ F, DIMS_ARGS, const int l1, const int col_tiles, const int row_tiles) {
    products_int<T, TR, TC, KC, false>(a, rb, S1, F, M, N, L1, Wb, RS, mat_stride, pairs, l1, col_tiles, row_tiles);
}

// ---------------------------------------------------------------------------------------------------
// products in packed int16 (short cells): two target columns per 32-bit word and one DPX instruction
// (__viaddmax_s16x2, VIADDMNMX.S16x2 on Hopper) per two updates. A thread holds 4 rows x 8 columns (4
// words); the left operand is staged duplicated into both lanes. Sums of two cells stay within int16:
// scores are below 16384 (cell_dtype) and two sentinels make -32768.
// The threads of a warp hold a square of 32 rows x 32 columns (where the tile allows): a warp runs the
// reduction only over the k2 its own cells can use, [first row - 1, last column], which a square keeps
// short (a warp of 16 rows x 64 columns ran 1.2x the updates over the band). Operands are staged 8
// cells per aligned 16-byte load (cell_at's layout), with no test per cell: a k2 outside a cell's
// range meets a sentinel in one operand or the other, and a sentinel plus any score is below zero.
__device__ __forceinline__ unsigned pack2(int lo, int hi) {
    return (unsigned)(lo & 0xFFFF) | ((unsigned)hi << 16);
}

// 8 cells of sentinels (two a word): what a staged vector holds outside a row's slots or the matrix
__device__ __forceinline__ uint4 sentinel_vector() {
    return make_uint4(0xC000C000u, 0xC000C000u, 0xC000C000u, 0xC000C000u);
}

// 8 cells of band row `row` at absolute target columns col .. col + 7 (col a multiple of 8) as one
// aligned 16-byte load; sentinels where those columns lie outside the row's slots or the row outside
// the matrix (rows 0 .. N). Slots of the row outside the band already hold sentinels.
__device__ __forceinline__ uint4 band_vector(const Dims& g, const short* __restrict__ m, int row, int col) {
    const int o = col - ((row - 1) & ~7);          // the slot of column col: a multiple of 8
    if (row < 0 || row > g.N || o < 0 || o + 8 > g.RS) return sentinel_vector();
    return *reinterpret_cast<const uint4*>(m + (long long)row * g.RS + o);
}

#define PRODUCTS_ARGS(T) const code_t* __restrict__ a, const code_t* __restrict__ rb, const int* __restrict__ S1, \
                          T* __restrict__ F, DIMS_ARGS, const int l1, const int col_tiles, const int row_tiles
#define PRODUCTS_PASS a, rb, S1, F, M, N, L1, Wb, RS, mat_stride, pairs, l1, col_tiles, row_tiles

// Shared by the packed products kernels: the thread tile (4 rows x 8 columns) of thread group `group`,
// its warp's unit of SW column slots x GW row groups, and the start and the store of its 4 x 4 words
// where P lanes hold the same cells (lane `part` starts and stores the words (4 r + w) % P == part).
template <int SW, int GW, int UNITS_ACROSS>
struct ThreadTile {
    int unit, tr, tc;
    __device__ __forceinline__ explicit ThreadTile(int group) {
        unit = group / (SW * GW);
        const int lane = group % (SW * GW);
        tr = (unit / UNITS_ACROSS) * GW + lane / SW;
        tc = (unit % UNITS_ACROSS) * SW + lane % SW;
    }
};

template <int P>
__device__ __forceinline__ void start_words(const Dims& g, const code_t* __restrict__ a, const code_t* __restrict__ rb,
                                            const short* __restrict__ F, int i1, int l1, int row0, int col0, int part,
                                            unsigned (&acc)[4][4]) {
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int w = 0; w < 4; ++w) {
            int v[2] = {sentinel<short>(), sentinel<short>()};
            if ((4 * r + w) % P == part)
#pragma unroll
                for (int h = 0; h < 2; ++h) v[h] = start_value(g, a, rb, F, i1, l1, row0 + r, col0 + 2 * w + h);
            acc[r][w] = pack2(v[0], v[1]);
        }
}

template <int P>
__device__ __forceinline__ void store_words(const Dims& g, short* __restrict__ out, const unsigned (&acc)[4][4],
                                            int row0, int col0, int part) {
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int w = 0; w < 4; ++w)
            if ((4 * r + w) % P == part)
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int i2 = row0 + r, j2 = col0 + 2 * w + h, e = j2 - i2;
                    const short v = (short)(h ? (acc[r][w] >> 16) : (acc[r][w] & 0xFFFF));
                    if (i2 < g.N && j2 < g.N && e >= 0 && e < g.Wb) out[cell_at(g, i2, e)] = v;
                }
}

// A lane's own 16 / P words of the 4 x 4 accumulators: own word j is word 4 r + w = part + P j, so word (r, w) is
// own word (4 r + w) / P, a constant (start_own / store_own and the pairs kernel's start_cells / store_cells).
// spread_own: the accumulators from the own words, the other lanes' words the sentinels (-16384 in each half).
template <int P>
__device__ __forceinline__ void spread_own(const unsigned (&own)[16 / P], int part, unsigned (&acc)[4][4]) {
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int w = 0; w < 4; ++w) acc[r][w] = (4 * r + w) % P == part ? own[(4 * r + w) / P] : 0xC000C000u;
}

// gather_own: the own words out of the accumulators (after the lanes' reduction)
template <int P>
__device__ __forceinline__ void gather_own(const unsigned (&acc)[4][4], int part, unsigned (&own)[16 / P]) {
#pragma unroll
    for (int j = 0; j < 16 / P; ++j) own[j] = 0;
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int w = 0; w < 4; ++w)
            if ((4 * r + w) % P == part) own[(4 * r + w) / P] = acc[r][w];
}

// The P parts of a tile are adjacent lanes (of a block of THREADS): a butterfly leaves every lane the maxima
template <int P, int THREADS>
__device__ __forceinline__ void lanes_max(unsigned (&acc)[4][4]) {
    constexpr unsigned MASK = THREADS >= 32 ? 0xFFFFFFFFu : (1u << (THREADS % 32)) - 1;
#pragma unroll
    for (int d = 1; d < P; d *= 2)
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int w = 0; w < 4; ++w) acc[r][w] = __vmaxs2(acc[r][w], __shfl_xor_sync(MASK, acc[r][w], d));
}

// OWN (issue 29, helper bpmaxst): the same start and store, each lane computing only its own 16 / P words
// (spread_own, gather_own), where start_words / store_words run the code of all 16 words predicated by lane
template <int P>
__device__ __forceinline__ void start_own(const Dims& g, const code_t* __restrict__ a, const code_t* __restrict__ rb,
                                          const short* __restrict__ F, int i1, int l1, int row0, int col0, int part,
                                          unsigned (&acc)[4][4]) {
    constexpr int K = 16 / P;
    unsigned own[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const int x = part + P * j, r = x / 4, w = x % 4;
        own[j] = pack2(start_value(g, a, rb, F, i1, l1, row0 + r, col0 + 2 * w),
                       start_value(g, a, rb, F, i1, l1, row0 + r, col0 + 2 * w + 1));
    }
    spread_own<P>(own, part, acc);
}

template <int P>
__device__ __forceinline__ void store_own(const Dims& g, short* __restrict__ out, const unsigned (&acc)[4][4],
                                          int row0, int col0, int part) {
    constexpr int K = 16 / P;
    unsigned own[K];
    gather_own<P>(acc, part, own);
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const int x = part + P * j, r = x / 4, w = x % 4;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            const int i2 = row0 + r, j2 = col0 + 2 * w + h, e = j2 - i2;
            const short v = (short)(h ? (own[j] >> 16) : (own[j] & 0xFFFF));
            if (i2 < g.N && j2 < g.N && e >= 0 && e < g.Wb) out[cell_at(g, i2, e)] = v;
        }
    }
}

template <int TR, int TC, int KC, bool SKIP>
__device__ __forceinline__ void products_packed(PRODUCTS_ARGS(short)) {
    DIMS;
    constexpr int THREADS = (TR / 4) * (TC / 8);
    constexpr int SW = (TC / 8) < 4 ? (TC / 8) : 4;                  // a warp's column slots (8 columns)
    constexpr int GW = (TR / 4) < 32 / SW ? (TR / 4) : 32 / SW;      // and row groups (4 rows)
    constexpr int UNITS_ACROSS = (TC / 8) / SW;
    static_assert((TR / 4) % GW == 0 && KC % 8 == 0, "tile shape");
    constexpr int AS = TR + 4, BS = TC / 2 + 4;     // words per staged row, 16-byte aligned
    __shared__ __align__(16) unsigned As[KC * AS];  // As[k][row]: F(i1,k1)(i2, k2) in both lanes
    __shared__ __align__(16) unsigned Bs[KC * BS];  // Bs[k][w]: F(k1+1,j1)(k2+1, c0 + 2w, + 1)
    const int SENT = sentinel<short>();
    const Tile t = tile_of(g, l1, col_tiles, row_tiles, TR, TC);
    const int i1 = t.i1, j1 = i1 + l1 - 1, r0 = t.r0, c0 = t.c0;
    short* out = F + t.m * g.mat_stride;

    const int tid = threadIdx.x;
    const ThreadTile<SW, GW, UNITS_ACROSS> th(tid);
    const int unit = th.unit, tr = th.tr, tc = th.tc;
    const int row0 = r0 + tr * 4, col0 = c0 + tc * 8;

    unsigned acc[4][4];
    start_words<1>(g, a, rb, F, i1, l1, row0, col0, 0, acc);

    // SKIP: a tile whose columns all lie past the target has no cell to compute (its column tile is not 0,
    // so it writes no border either). Without a window col_tiles spans the band's whole width from every
    // row tile, so about half of the grid is such tiles, and each ran every k2 from its first row to the
    // target's end: 2.2x the useful updates in all (1.08x without them, a count in docs/bpmax-gpu-notes.md).
    // (an early return there made ptxas spill 8 bytes)
    if (l1 >= 2 && !(SKIP && c0 >= N)) {
        const int kb = max(r0 - 1, c0 - Wb);
        const int ke = min(min(c0 + TC - 1, r0 + TR - 1 + Wb - 1), N - 1);
        // the k2 this warp's cells can use: from its first row - 1 (and B's band) to its last column
        const int R0 = r0 + (unit / UNITS_ACROSS) * GW * 4, C0 = c0 + (unit % UNITS_ACROSS) * SW * 8;
        const int kw0 = max(R0 - 1, C0 - Wb);
        const int kw1 = SKIP && C0 >= N ? -(1 << 30)     // SKIP: the warp's columns all lie past the target
                                        : min(min(R0 + GW * 4 - 1 + Wb - 1, C0 + SW * 8 - 1), ke);
        for (int k1 = i1; k1 < j1; ++k1) {
            const short* left = F + mat_of(g, i1, k1 - i1 + 1) * g.mat_stride;
            const short* right = F + mat_of(g, k1 + 1, j1 - k1) * g.mat_stride;
            for (int kc = kb & ~7; kc <= ke; kc += KC) {   // from a multiple of 8: aligned loads
                // A: 8 k2 of one row per 16-byte load, transposed and duplicated into both lanes
                for (int x = tid; x < (KC / 8) * TR; x += THREADS) {
                    const int row = x % TR, v = x / TR;
                    const uint4 q = band_vector(g, left, r0 + row, kc + 8 * v);
                    unsigned* column = As + 8 * v * AS + row;
                    column[0 * AS] = __byte_perm(q.x, 0, 0x1010);
                    column[1 * AS] = __byte_perm(q.x, 0, 0x3232);
                    column[2 * AS] = __byte_perm(q.y, 0, 0x1010);
                    column[3 * AS] = __byte_perm(q.y, 0, 0x3232);
                    column[4 * AS] = __byte_perm(q.z, 0, 0x1010);
                    column[5 * AS] = __byte_perm(q.z, 0, 0x3232);
                    column[6 * AS] = __byte_perm(q.w, 0, 0x1010);
                    column[7 * AS] = __byte_perm(q.w, 0, 0x3232);
                }
                // B: 8 columns of row k2 + 1 per 16-byte load, as they lie (two columns a word)
                for (int x = tid; x < KC * (TC / 8); x += THREADS) {
                    const int v = x % (TC / 8), k = x / (TC / 8);
                    *reinterpret_cast<uint4*>(&Bs[k * BS + 4 * v]) = band_vector(g, right, kc + k + 1, c0 + 8 * v);
                }
                __syncthreads();
                // whole groups of 8 k (fully unrolled; a k outside the warp's range only adds sentinels
                // or terms already counted): a loop bounded by k_lo/k_hi itself, unrolled by 4, read one
                // row past the stage (compute-sanitizer, KC = 8)
                const int k_lo = max(0, kw0 - kc), k_hi = min(KC, kw1 - kc + 1);
#pragma unroll 1
                for (int k0 = 0; k0 < KC; k0 += 8) {
                    if (k0 + 8 <= k_lo || k0 >= k_hi) continue;
#pragma unroll
                    for (int k = k0; k < k0 + 8; ++k)
                        tile_step(*reinterpret_cast<const uint4*>(&As[k * AS + tr * 4]),
                                  *reinterpret_cast<const uint4*>(&Bs[k * BS + tc * 4]), acc);
                }
                __syncthreads();
            }
        }
    }

    store_words<1>(g, out, acc, row0, col0, 0);
    if (blockIdx.x % col_tiles == 0)
        write_border(g, S1, out, i1, l1, (blockIdx.x / col_tiles) % row_tiles, TR, row_tiles);
}

// bpmax_products_packed skips the tiles and warps whose columns all lie past the target; the form
// without that skip (as measured before it) stays for the benchmark's A/B (BPMaxSizes.products_skip).
template <int TR, int TC, int KC>
__global__ void __launch_bounds__((TR / 4) * (TC / 8), 8)   // 64 registers: 56 and a spill without the 8
bpmax_products_packed(PRODUCTS_ARGS(short)) { products_packed<TR, TC, KC, true>(PRODUCTS_PASS); }

template <int TR, int TC, int KC>
__global__ void __launch_bounds__((TR / 4) * (TC / 8), 8)
bpmax_products_packed_unskipped(PRODUCTS_ARGS(short)) { products_packed<TR, TC, KC, false>(PRODUCTS_PASS); }

// ---------------------------------------------------------------------------------------------------
// products in packed int16 with the reduction split among P threads a cell (issue 29, "split").
// A warp runs every k2 from its cells' first row - 1 to their last column: a 32 x 32 square of the
// packed kernel above runs about 31 more k2 a cell than the cell can use, and at the band's edges
// squares that are half (or wholly) outside the band run the whole range; in all 2.2x the useful
// updates at window 128 (a count in docs/bpmax-gpu-notes.md). Here the P lanes p of a thread group hold
// the same 4 x 8 cells, each lane the k2 of its own part of every group of 8 (k0 + (8 / P) p + s), so
// a warp holds 32 / P thread tiles: 1024 / P cells (8 x 16 for P = 8), whose range of k2 is that much
// shorter; warps with no cell in the band run nothing. The lanes' partial maxima meet by shuffles at
// the end. The register tile and the shared-memory operands are the packed kernel's (2 loads per 16
// DPX instructions); with blocked parts, the 2 P tile rows a warp reads at once fall on distinct banks
// (16-byte granules) where a 68-word row of A and a 36-word row of B (TR = 64 or 32, TC = 64 or 32) allow.
template <int TR, int TC, int KC, int P>
struct SplitShape {
    static_assert(P == 1 || P == 2 || P == 4 || P == 8, "parts of a group of 8 k2");
    static constexpr int GROUPS = 32 / P;                                // thread tiles a warp holds
    static constexpr int SW0 = GROUPS >= 16 ? 4 : GROUPS >= 4 ? 2 : 1;   // its column slots (8 columns),
    static constexpr int SW = SW0 < TC / 8 ? SW0 : TC / 8;
    static constexpr int GW0 = GROUPS / SW;                              // and row groups (4 rows): near square
    static constexpr int GW = GW0 < TR / 4 ? GW0 : TR / 4;
    static constexpr int THREADS = (TR / 4) * (TC / 8) * P;
    static constexpr int UNITS_ACROSS = (TC / 8) / SW;
    static_assert((TR / 4) % GW == 0 && (TC / 8) % SW == 0 && KC % 8 == 0, "tile shape");
};

// 8 k2 of a band row (one 16-byte load) into the staged A: transposed, each cell in both lanes
template <int AS>
__device__ __forceinline__ void stage_row8(unsigned* __restrict__ As, const uint4 q, int row, int v) {
    unsigned* column = As + 8 * v * AS + row;
    const unsigned w[4] = {q.x, q.y, q.z, q.w};
#pragma unroll
    for (int h = 0; h < 4; ++h) {
        column[(2 * h) * AS] = __byte_perm(w[h], 0, 0x1010);
        column[(2 * h + 1) * AS] = __byte_perm(w[h], 0, 0x3232);
    }
}

// PF (prefetch): the next stage's operands are read from global memory into registers before the
// current stage's products and stored after them, so their latency overlaps the products (at the price
// of the registers: 85 a thread, 24 warps an SM); without PF a stage reads, stores, then multiplies
// (64 registers a thread: 32 warps an SM, as the packed kernel).
template <int TR, int TC, int KC, int P, bool PF, bool OWN>
__global__ void __launch_bounds__(SplitShape<TR, TC, KC, P>::THREADS,
                                  (PF ? 768 : 1024) / SplitShape<TR, TC, KC, P>::THREADS > 0
                                      ? (PF ? 768 : 1024) / SplitShape<TR, TC, KC, P>::THREADS : 1)
bpmax_products_split(PRODUCTS_ARGS(short)) {
    DIMS;
    using S = SplitShape<TR, TC, KC, P>;
    constexpr int SW = S::SW, GW = S::GW, THREADS = S::THREADS, UNITS_ACROSS = S::UNITS_ACROSS;
    constexpr int AS = TR + 4, BS = TC / 2 + 4;     // words per staged row, 16-byte aligned
    __shared__ __align__(16) unsigned As[KC * AS];  // As[k][row]: F(i1,k1)(i2, k2) in both lanes
    __shared__ __align__(16) unsigned Bs[KC * BS];  // Bs[k][w]: F(k1+1,j1)(k2+1, c0 + 2w, + 1)
    const Tile t = tile_of(g, l1, col_tiles, row_tiles, TR, TC);
    const int i1 = t.i1, j1 = i1 + l1 - 1, r0 = t.r0, c0 = t.c0;
    short* out = F + t.m * g.mat_stride;

    const int tid = threadIdx.x;
    const int part = tid % P;                       // the part of the k2; tid / P: the thread tile
    const ThreadTile<SW, GW, UNITS_ACROSS> th(tid / P);
    const int unit = th.unit, tr = th.tr, tc = th.tc;
    const int row0 = r0 + tr * 4, col0 = c0 + tc * 8;

    // part p starts the words w with (4 r + w) % P == p from the base case and the strand-1 pair (one
    // global read a cell among the P lanes), the others from sentinels: the reduction below takes the max
    unsigned acc[4][4];
    if (OWN) start_own<P>(g, a, rb, F, i1, l1, row0, col0, part, acc);
    else start_words<P>(g, a, rb, F, i1, l1, row0, col0, part, acc);

    if (l1 >= 2 && c0 < N) {   // a tile whose columns all lie past the target has no cell (the skip)
        const int kb = max(r0 - 1, c0 - Wb);
        const int ke = min(min(c0 + TC - 1, r0 + TR - 1 + Wb - 1), N - 1);
        // the k2 this warp's cells can use: from its first row - 1 (and B's band) to its last column;
        // none where no cell of the warp lies in the band (or the target)
        const int R0 = r0 + (unit / UNITS_ACROSS) * GW * 4, C0 = c0 + (unit % UNITS_ACROSS) * SW * 8;
        const bool none = C0 >= N || C0 + SW * 8 - 1 < R0 || C0 - (R0 + GW * 4 - 1) > Wb - 1;
        const int kw0 = max(R0 - 1, C0 - Wb);
        const int kw1 = none ? -(1 << 30) : min(min(R0 + GW * 4 - 1 + Wb - 1, C0 + SW * 8 - 1), ke);
        // the whole groups of 8 k2 of a stage at kc that meet the warp's range (a loop over them alone:
        // with a long chunk most groups lie outside a warp's range); a k2 outside a cell's range meets a
        // sentinel in one operand (as in the packed kernel)
        auto multiply = [&](const int kc) {
            const int k_lo = max(0, kw0 - kc), k_hi = min(KC, kw1 - kc + 1);
#pragma unroll 1
            for (int k0 = k_lo & ~7; k0 < k_hi; k0 += 8) {
#pragma unroll
                for (int s = 0; s < 8 / P; ++s) {
                    const int k = k0 + (8 / P) * part + s;
                    tile_step(*reinterpret_cast<const uint4*>(&As[k * AS + tr * 4]),
                              *reinterpret_cast<const uint4*>(&Bs[k * BS + tc * 4]), acc);
                }
            }
        };
        if constexpr (!PF) {
            for (int k1 = i1; k1 < j1; ++k1) {
                const short* left = F + mat_of(g, i1, k1 - i1 + 1) * g.mat_stride;
                const short* right = F + mat_of(g, k1 + 1, j1 - k1) * g.mat_stride;
                for (int kc = kb & ~7; kc <= ke; kc += KC) {   // from a multiple of 8: aligned loads
                    // the stage's groups of 8 k2 up to ke's (no warp reads further): a last chunk runs short
                    const int NV = min(KC / 8, ((ke - kc) >> 3) + 1);
                    for (int x = tid; x < NV * TR; x += THREADS)   // as the packed kernel stages them
                        stage_row8<AS>(As, band_vector(g, left, r0 + x % TR, kc + 8 * (x / TR)), x % TR, x / TR);
                    for (int x = tid; x < NV * 8 * (TC / 8); x += THREADS) {
                        const int v = x % (TC / 8), k = x / (TC / 8);
                        *reinterpret_cast<uint4*>(&Bs[k * BS + 4 * v]) = band_vector(g, right, kc + k + 1, c0 + 8 * v);
                    }
                    __syncthreads();
                    multiply(kc);
                    __syncthreads();
                }
            }
        } else {   // the stages (k1, kc) in one sequence, each read a stage ahead into registers
            constexpr int NA = ((KC / 8) * TR + THREADS - 1) / THREADS, NB = (KC * (TC / 8) + THREADS - 1) / THREADS;
            const int first = kb & ~7, chunks = (ke - first) / KC + 1, stages = (j1 - i1) * chunks;
            uint4 qa[NA], qb[NB];
            auto fetch = [&](const int s) {
                const int k1 = i1 + s / chunks, kc = first + (s % chunks) * KC;
                const short* left = F + mat_of(g, i1, k1 - i1 + 1) * g.mat_stride;
                const short* right = F + mat_of(g, k1 + 1, j1 - k1) * g.mat_stride;
                const int NV = min(KC / 8, ((ke - kc) >> 3) + 1);
#pragma unroll
                for (int n = 0; n < NA; ++n) {
                    const int x = tid + n * THREADS;
                    if (x < NV * TR) qa[n] = band_vector(g, left, r0 + x % TR, kc + 8 * (x / TR));
                }
#pragma unroll
                for (int n = 0; n < NB; ++n) {
                    const int x = tid + n * THREADS;
                    if (x < NV * TC) qb[n] = band_vector(g, right, kc + x / (TC / 8) + 1, c0 + 8 * (x % (TC / 8)));
                }
            };
            fetch(0);
            for (int s = 0; s < stages; ++s) {
                const int kc = first + (s % chunks) * KC;
                const int NV = min(KC / 8, ((ke - kc) >> 3) + 1);
#pragma unroll
                for (int n = 0; n < NA; ++n) {
                    const int x = tid + n * THREADS;
                    if (x < NV * TR) stage_row8<AS>(As, qa[n], x % TR, x / TR);
                }
#pragma unroll
                for (int n = 0; n < NB; ++n) {
                    const int x = tid + n * THREADS;
                    if (x < NV * TC) *reinterpret_cast<uint4*>(&Bs[(x / (TC / 8)) * BS + 4 * (x % (TC / 8))]) = qb[n];
                }
                __syncthreads();
                if (s + 1 < stages) fetch(s + 1);
                multiply(kc);
                __syncthreads();
            }
        }
    }

    lanes_max<P, THREADS>(acc);
    if (OWN) store_own<P>(g, out, acc, row0, col0, part);   // each part stores its share of the words
    else store_words<P>(g, out, acc, row0, col0, part);
    if (blockIdx.x % col_tiles == 0)
        write_border(g, S1, out, i1, l1, (blockIdx.x / col_tiles) % row_tiles, TR, row_tiles);
}

// ---------------------------------------------------------------------------------------------------
// products with pairs of k2 packed in a word (issue 29, helper bpmaxpk; BPMaxSizes.split_pairs).
// bpmax_products_split holds two cells a word (columns c, c + 1) and so stages A transposed with each
// cell duplicated into both halves (8 PRMT and 8 shared stores a 16-byte vector of A). Here a word
// holds one cell and two k2: its low half the max over the even k2, its high half over the odd ones
// (max is order-free, so the cell is max(low, high) at the end). Then a word of A is two consecutive k2
// of a row as they lie in the table (staged transposed by 32-bit words, 4 stores a vector, no PRMT),
// and B is staged with rows k2 + 1 and k2 + 2 interleaved (4 PRMT a 16-byte vector of B instead of
// A's 8). Each half sums one A cell and one B cell, as the split kernel's halves do: the same values
// (a sentinel plus a score or a sentinel, at least -32768, fits int16 as there). Thread tiles of 4 x 4
// cells, P lanes a cell as in the split kernel (lane p runs the pairs (4 / P) p + s of each group of 4
// pairs), one 16-byte load of A (4 rows) and one of B (4 columns) a pair: 16 DPX instructions.
// STEP 2: two groups an iteration, the operands' addresses stepped (bpmaxcp's split_step=2).
template <int TR, int TC, int KC, int P>
struct PairShape {
    static_assert(P == 1 || P == 2 || P == 4, "parts of a group of 4 pairs of k2");
    static constexpr int GROUPS = 32 / P;                                // thread tiles (4 x 4) a warp holds
    static constexpr int SW = 4 < TC / 4 ? 4 : TC / 4;                   // its column slots (4 columns)
    static constexpr int GW0 = GROUPS / SW;                              // and row groups (4 rows)
    static constexpr int GW = GW0 < TR / 4 ? GW0 : TR / 4;
    static constexpr int THREADS = (TR / 4) * (TC / 4) * P;
    static constexpr int UNITS_ACROSS = (TC / 4) / SW;
    // words a staged pair row: A's 4 parts (P = 4) or 2 (P = 2, 2 pairs apart) of a quarter warp on distinct
    // 16-byte granules (AS = 4 mod 32 for TR = 32), B's 2 parts x 4 column slots or 4 x 2 (BS = 8 mod 32)
    static constexpr int AS = TR + 4, BS = TC + 8;
    static_assert((TR / 4) % GW == 0 && (TC / 4) % SW == 0 && KC % 8 == 0 && TC % 8 == 0, "tile shape");
    // blocks an SM the registers are capped for: 0, 1024 threads' worth (64 registers; calls 1-2 of bpmaxpk),
    // else B, at most 2048 threads' worth
    static constexpr int blocks(int B) {
        return B == 0 ? (1024 / THREADS > 0 ? 1024 / THREADS : 1) : (B < 2048 / THREADS ? B : 2048 / THREADS);
    }
    // STAGE 2 and 3 (issue 29, helper bpmaxcp2): A row-major, a row's KC / 2 pairs as they lie (cp.async), rows
    // of AR words (an odd number of 16-byte granules) and rows 8 .. 15 of every 16 moved 2 granules on: the 4 row
    // groups x 2 parts a warp reads at once fall on 8 distinct granules. B's pair rows of BR words (14 granules at
    // TC = 32: a single group's 2 parts, 2 pairs apart, on distinct halves of the banks), every second block of 4
    // pair rows moved 4 granules on (a double group's 2 parts, 4 pairs apart, on distinct halves too; a moved
    // row ends 8 words before the next row starts).
    static constexpr int AR = 4 * ((KC / 8 + 2) | 1), BR = TC + 24;
};

// STAGE 2 / 3's staged layouts: word of A's row `row` (and pair 0), word of B's pair row q (and column 0)
template <int AR>
__device__ __forceinline__ int row_word(int row) { return row * AR + 8 * ((row >> 3) & 1); }
template <int BR>
__device__ __forceinline__ int pair_word(int q) { return q * BR + 16 * ((q >> 2) & 1); }

template <int P>
__device__ __forceinline__ void start_cells(const Dims& g, const code_t* __restrict__ a, const code_t* __restrict__ rb,
                                            const short* __restrict__ F, int i1, int l1, int row0, int col0, int part,
                                            unsigned (&acc)[4][4]) {
    constexpr int K = 16 / P;   // own cell j of lane `part`: cell 4 r + c = part + P j (as start_own's words)
    unsigned own[K];
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const int x = part + P * j;
        const int v = start_value(g, a, rb, F, i1, l1, row0 + x / 4, col0 + x % 4);
        own[j] = pack2(v, v);
    }
    spread_own<P>(own, part, acc);
}

template <int P>
__device__ __forceinline__ void store_cells(const Dims& g, short* __restrict__ out, const unsigned (&acc)[4][4],
                                            int row0, int col0, int part) {
    constexpr int K = 16 / P;
    unsigned own[K];
    gather_own<P>(acc, part, own);
#pragma unroll
    for (int j = 0; j < K; ++j) {
        const int x = part + P * j, i2 = row0 + x / 4, j2 = col0 + x % 4, e = j2 - i2;
        const short v = (short)max((int)(short)(own[j] & 0xFFFF), (int)(short)(own[j] >> 16));   // even, odd k2
        if (i2 < g.N && j2 < g.N && e >= 0 && e < g.Wb) out[cell_at(g, i2, e)] = v;
    }
}

// 8 slots from `o` of a band row that starts at row_at, or sentinels where the row is outside the matrix
// (!ok) or the slots outside the row (band_vector's test, as one unsigned compare)
__device__ __forceinline__ uint4 slot_vector(const short* __restrict__ row_at, int o, bool ok, int RS) {
    uint4 q = sentinel_vector();
    if (ok && (unsigned)o <= (unsigned)(RS - 8)) q = *reinterpret_cast<const uint4*>(row_at + o);
    return q;
}

// 8 columns of B's rows k2 (e, the even k2) and k2 + 1 (o) as 8 words, a column's two cells a word (low: e)
__device__ __forceinline__ void interleave_rows(const uint4& e, const uint4& o, uint4* to) {
    to[0] = make_uint4(__byte_perm(e.x, o.x, 0x5410), __byte_perm(e.x, o.x, 0x7632),
                       __byte_perm(e.y, o.y, 0x5410), __byte_perm(e.y, o.y, 0x7632));
    to[1] = make_uint4(__byte_perm(e.z, o.z, 0x5410), __byte_perm(e.z, o.z, 0x7632),
                       __byte_perm(e.w, o.w, 0x5410), __byte_perm(e.w, o.w, 0x7632));
}

// STAGE 2 / 3 (issue 29, helper bpmaxcp2): a thread's vectors of A (its fixed row, vectors first, first + VS, ...
// below NV; `to` at its row in the staged A) copied by cp.async as they lie, no registers and no PRMT; sentinels
// stored where a vector leaves the row's slots or the row the matrix (cp.async's zero fill is no sentinel)
template <int VS>
__device__ __forceinline__ void copy_row(unsigned* __restrict__ to, const short* __restrict__ row_at, int first, int NV,
                                         int o0, bool ok, int RS) {
    const short* from = row_at + o0 + 8 * first;   // stepped, not rebuilt from the slot a vector
    for (int v = first, o = o0 + 8 * first; v < NV; v += VS, o += 8 * VS, from += 8 * VS) {
        if (ok && (unsigned)o <= (unsigned)(RS - 8)) cp_async16(to + 4 * v, from);
        else *reinterpret_cast<uint4*>(to + 4 * v) = sentinel_vector();
    }
    cp_async_commit();
}

// STAGE 2 / 3: B's pair rows q = first, first + QS, ... below count (rows kc + 2q + 1 and + 2) of a thread's fixed
// column vector (bcol) as STAGE 1 stages them, at STAGE 2 / 3's pair rows; BATCH (STAGE 3): all NQ of a thread's
// pairs of rows read before any is stored (one wait on global memory a stage instead of one a pair)
template <int BR, int NQ, bool BATCH>
__device__ __forceinline__ void stage_pair_rows(unsigned* __restrict__ Bs, const short* __restrict__ right, int kc,
                                                int first, int QS, int count, int bcol, int c0, int N, int RS) {
    auto read = [&](int q, bool in, uint4& e, uint4& o) {
        const int row = kc + 2 * q + 1;
        const short* at = right + (long long)row * RS;
        e = slot_vector(at, bcol - ((row - 1) & ~7), in && (unsigned)row <= (unsigned)N, RS);
        o = slot_vector(at + RS, bcol - (row & ~7), in && (unsigned)(row + 1) <= (unsigned)N, RS);
    };
    if constexpr (BATCH) {
        uint4 e[NQ], o[NQ];
#pragma unroll
        for (int j = 0; j < NQ; ++j) read(first + QS * j, first + QS * j < count, e[j], o[j]);
#pragma unroll
        for (int j = 0; j < NQ; ++j)
            if (first + QS * j < count)
                interleave_rows(e[j], o[j], reinterpret_cast<uint4*>(Bs + pair_word<BR>(first + QS * j) + bcol - c0));
    } else {
        for (int q = first; q < count; q += QS) {
            uint4 e, o;
            read(q, true, e, o);
            interleave_rows(e, o, reinterpret_cast<uint4*>(Bs + pair_word<BR>(q) + bcol - c0));
        }
    }
}

// STAGE 4 (issue 29, helper bpmaxcp3): B's pair rows q = first, first + QS, ... below count of a thread's fixed column
// vector (bcol) copied by cp.async from the level's paired copy (bpmax_pair_rows: pair row p holds rows 2p - 1 and
// 2p of a matrix interleaved as stage_pair_rows interleaves them), 8 words (two 16-byte copies) an item: no
// registers, no PRMT, no sentinel presets but where the item leaves the copy's pair rows or slots (stored then).
// Pair row p = kc / 2 + q + 1 (rows kc + 2q + 1, + 2) from slot o = bcol - kc - (2q & ~7): stepping q by QS (a
// multiple of 8) steps p by QS, o by -2 QS and the staged word by QS BR (pair_word's shift unchanged).
template <int BR, int QS>
__device__ __forceinline__ void copy_pair_rows(unsigned* __restrict__ Bs, const unsigned* __restrict__ paired, int kc,
                                               int first, int count, int bcol, int c0, int NP, int RS) {
    static_assert(QS % 8 == 0, "pair rows stepped with pair_word's shift unchanged");
    int p = (kc >> 1) + first + 1, o = bcol - kc - ((2 * first) & ~7);
    const unsigned* from = paired + (long long)p * RS + o;
    unsigned* to = Bs + pair_word<BR>(first) + bcol - c0;
    for (int q = first; q < count; q += QS, p += QS, o -= 2 * QS, from += QS * RS - 2 * QS, to += QS * BR) {
        if ((unsigned)p < (unsigned)NP && (unsigned)o <= (unsigned)(RS - 8)) {
            cp_async16(to, from);
            cp_async16(to + 4, from + 4);
        } else {
            const uint4 s = sentinel_vector();
            reinterpret_cast<uint4*>(to)[0] = s, reinterpret_cast<uint4*>(to)[1] = s;
        }
    }
    cp_async_commit();
}

// STAGE 2 / 3's groups of 8 k2 (P = 2, STEP = 2) from pair q: a single group first where their count n is odd
// (lane p: pairs 2p, 2p + 1, one 8-byte load of each of its 4 rows of A), then two groups an iteration (lane p:
// pairs 4p .. 4p + 3, one 16-byte load a row): 8 shared loads per 64 DPX instructions, as STAGE 0 and 1. `at`:
// the thread tile's first row of the staged A, `bt`: its first column of B's pair row 0.
template <int AR, int BR>
__device__ __forceinline__ void multiply_rows(const unsigned* __restrict__ at, const unsigned* __restrict__ bt, int q,
                                              int n, int part, unsigned (&acc)[4][4]) {
    if (n & 1) {
        const unsigned* pa = at + q + 2 * part;
        const unsigned* pb = bt + pair_word<BR>(q) + 2 * part * BR;
        uint2 a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) a[r] = *reinterpret_cast<const uint2*>(pa + r * AR);
        tile_step(make_uint4(a[0].x, a[1].x, a[2].x, a[3].x), *reinterpret_cast<const uint4*>(pb), acc);
        tile_step(make_uint4(a[0].y, a[1].y, a[2].y, a[3].y), *reinterpret_cast<const uint4*>(pb + BR), acc);
        q += 4, --n;
    }
    const unsigned* pa = at + q + 4 * part;
    const unsigned* pb = bt + pair_word<BR>(q + 4 * part);
#pragma unroll 1
    for (; n > 0; n -= 2) {
        uint4 a[4];
#pragma unroll
        for (int r = 0; r < 4; ++r) a[r] = *reinterpret_cast<const uint4*>(pa + r * AR);
        tile_step(make_uint4(a[0].x, a[1].x, a[2].x, a[3].x), *reinterpret_cast<const uint4*>(pb), acc);
        tile_step(make_uint4(a[0].y, a[1].y, a[2].y, a[3].y), *reinterpret_cast<const uint4*>(pb + BR), acc);
        tile_step(make_uint4(a[0].z, a[1].z, a[2].z, a[3].z), *reinterpret_cast<const uint4*>(pb + 2 * BR), acc);
        tile_step(make_uint4(a[0].w, a[1].w, a[2].w, a[3].w), *reinterpret_cast<const uint4*>(pb + 3 * BR), acc);
        pa += 8, pb += 8 * BR;
    }
}

// STAGE 0: every staged vector through band_vector (its row, offset and bounds from the vector's index);
// STAGE 1: each thread stages one fixed row of A (tid % TR) and one fixed column vector of B, their offsets
// and bases worked out once a block (STAGE 0 ran 39 SASS instructions a vector of A, 65 a pair of B rows).
// BLOCKS: blocks an SM the registers are capped for (PairShape::blocks; 8 and 0: 64 registers at 128 threads).
// STAGE 2 (issue 29, helper bpmaxcp2; P = 2, STEP = 2): A row-major by cp.async (copy_row; STAGE 1 waited on each
// of a thread's vectors of A in turn, 14 instructions a vector), B as STAGE 1; STAGE 3: also B's rows read
// together (stage_pair_rows' BATCH); the groups by multiply_rows. STAGE 4 (issue 29, helper bpmaxcp3): B also by
// cp.async, from `paired` (the levels' pair rows, pair_stride words a matrix; unused by STAGE 0 to 3).
template <int TR, int TC, int KC, int P, int STEP, int STAGE, int BLOCKS>
__global__ void __launch_bounds__(PairShape<TR, TC, KC, P>::THREADS, PairShape<TR, TC, KC, P>::blocks(BLOCKS))
bpmax_products_pairs(PRODUCTS_ARGS(short), const unsigned* __restrict__ paired, const long long pair_stride) {
    DIMS;
    using S = PairShape<TR, TC, KC, P>;
    constexpr int SW = S::SW, GW = S::GW, THREADS = S::THREADS, UNITS_ACROSS = S::UNITS_ACROSS, AS = S::AS, BS = S::BS;
    constexpr int CV = TC / 8, VS = THREADS / TR, QS = THREADS / CV;   // B's column vectors; strides of the items
    constexpr int AR = S::AR, BR = S::BR, NQ = (KC / 2 + QS - 1) / QS;   // STAGE 2 / 3's rows; B's pairs a thread
    static_assert(STEP == 1 || STEP == 2, "groups an iteration");
    static_assert(THREADS % TR == 0 && THREADS % CV == 0, "a thread's staged row and column fixed");
    static_assert(STAGE < 2 || (P == 2 && STEP == 2), "STAGE 2 to 4: 2 lanes, two groups an iteration");
    // STAGE 0 / 1: As[q][row]: F(i1,k1)(i2, kc + 2q, + 1); STAGE 2 / 3: row-major, word row_word(row) + q
    __shared__ __align__(16) unsigned As[STAGE >= 2 ? TR * AR : (KC / 2) * AS];
    // Bs[q][c]: F(k1+1,j1)(kc + 2q + 1, + 2; c0 + c), STAGE 2 / 3 at word pair_word(q) + c
    __shared__ __align__(16) unsigned Bs[STAGE >= 2 ? (KC / 2) * BR : (KC / 2) * BS];
    const Tile t = tile_of(g, l1, col_tiles, row_tiles, TR, TC);
    const int i1 = t.i1, j1 = i1 + l1 - 1, r0 = t.r0, c0 = t.c0;
    short* out = F + t.m * g.mat_stride;

    const int tid = threadIdx.x;
    const int part = tid % P;
    const ThreadTile<SW, GW, UNITS_ACROSS> th(tid / P);
    const int unit = th.unit, tr = th.tr, tc = th.tc;
    const int row0 = r0 + tr * 4, col0 = c0 + tc * 4;

    unsigned acc[4][4];   // acc[r][c]: cell (row0 + r, col0 + c), (even k2, odd k2)
    start_cells<P>(g, a, rb, F, i1, l1, row0, col0, part, acc);
    // STAGE 1: this thread's row of A (slot o of column c: c - abase) and column vector of B
    const int arow = tid % TR, ai = r0 + arow, abase = (ai - 1) & ~7;
    const long long aoff = (long long)ai * RS;
    const int bcol = c0 + 8 * (tid % CV);

    if (l1 >= 2 && c0 < N) {   // a tile whose columns all lie past the target has no cell (the skip)
        const int kb = max(r0 - 1, c0 - Wb);
        const int ke = min(min(c0 + TC - 1, r0 + TR - 1 + Wb - 1), N - 1);
        const int R0 = r0 + (unit / UNITS_ACROSS) * GW * 4, C0 = c0 + (unit % UNITS_ACROSS) * SW * 4;
        const bool none = C0 >= N || C0 + SW * 4 - 1 < R0 || C0 - (R0 + GW * 4 - 1) > Wb - 1;
        const int kw0 = max(R0 - 1, C0 - Wb);
        const int kw1 = none ? -(1 << 30) : min(min(R0 + GW * 4 - 1 + Wb - 1, C0 + SW * 4 - 1), ke);
        for (int k1 = i1; k1 < j1; ++k1) {
            const short* left = F + mat_of(g, i1, k1 - i1 + 1) * g.mat_stride;
            const short* right = F + mat_of(g, k1 + 1, j1 - k1) * g.mat_stride;
            for (int kc = kb & ~7; kc <= ke; kc += KC) {   // from a multiple of 8: aligned loads, even pairs
                const int NV = min(KC / 8, ((ke - kc) >> 3) + 1);
                if constexpr (STAGE == 4) {
                    copy_row<VS>(As + row_word<AR>(arow), left + aoff, tid / TR, NV, kc - abase, ai <= N, RS);
                    copy_pair_rows<BR, QS>(Bs, paired + mat_of(g, k1 + 1, j1 - k1) * pair_stride, kc, tid / CV,
                                           NV * 4, bcol, c0, N / 2 + 2, RS);
                    cp_async_wait<0>();
                } else if constexpr (STAGE >= 2) {
                    copy_row<VS>(As + row_word<AR>(arow), left + aoff, tid / TR, NV, kc - abase, ai <= N, RS);
                    stage_pair_rows<BR, NQ, STAGE == 3>(Bs, right, kc, tid / CV, QS, NV * 4, bcol, c0, N, RS);
                    cp_async_wait<0>();
                } else if constexpr (STAGE == 1) {
                    for (int v = tid / TR; v < NV; v += VS) {
                        const uint4 q = slot_vector(left + aoff, kc + 8 * v - abase, ai <= N, RS);
                        unsigned* column = As + 4 * v * AS + arow;
                        column[0] = q.x, column[AS] = q.y, column[2 * AS] = q.z, column[3 * AS] = q.w;
                    }
                    for (int q = tid / CV; q < NV * 4; q += QS) {   // rows kc + 2q + 1 (even k2) and + 2 (odd)
                        const int row = kc + 2 * q + 1;
                        const short* at = right + (long long)row * RS;
                        const uint4 e = slot_vector(at, bcol - ((row - 1) & ~7), (unsigned)row <= (unsigned)N, RS);
                        const uint4 o = slot_vector(at + RS, bcol - (row & ~7), (unsigned)(row + 1) <= (unsigned)N, RS);
                        interleave_rows(e, o, reinterpret_cast<uint4*>(&Bs[q * BS + bcol - c0]));
                    }
                } else {
                for (int x = tid; x < NV * TR; x += THREADS) {   // A: a row's 8 k2 (4 pairs) a load, as they lie
                    const int row = x % TR, v = x / TR;
                    const uint4 q = band_vector(g, left, r0 + row, kc + 8 * v);
                    unsigned* column = As + 4 * v * AS + row;
                    column[0] = q.x, column[AS] = q.y, column[2 * AS] = q.z, column[3 * AS] = q.w;
                }
                for (int x = tid; x < NV * 4 * (TC / 8); x += THREADS) {   // B: rows 2q + 1, 2q + 2 interleaved
                    const int v = x % (TC / 8), q = x / (TC / 8);
                    const uint4 e = band_vector(g, right, kc + 2 * q + 1, c0 + 8 * v);
                    const uint4 o = band_vector(g, right, kc + 2 * q + 2, c0 + 8 * v);
                    interleave_rows(e, o, reinterpret_cast<uint4*>(&Bs[q * BS + 8 * v]));
                }
                }
                __syncthreads();
                // the whole groups of 8 k2 (4 pairs) of the stage that meet the warp's range
                const int k_lo = max(0, kw0 - kc) & ~7, k_hi = min(KC, kw1 - kc + 1);
                int n = k_hi > k_lo ? (k_hi - k_lo + 7) >> 3 : 0;
                if constexpr (STAGE >= 2) {
                    multiply_rows<AR, BR>(As + row_word<AR>(tr * 4), Bs + tc * 4, k_lo / 2, n, part, acc);
                } else {
                    const int q0 = k_lo / 2 + (4 / P) * part;
                    const unsigned* pa = As + q0 * AS + tr * 4;
                    const unsigned* pb = Bs + q0 * BS + tc * 4;
                    if (STEP == 2 && (n & 1)) {
#pragma unroll
                        for (int s = 0; s < 4 / P; ++s)
                            tile_step(*reinterpret_cast<const uint4*>(pa + s * AS),
                                      *reinterpret_cast<const uint4*>(pb + s * BS), acc);
                        pa += 4 * AS, pb += 4 * BS, --n;
                    }
#pragma unroll 1
                    for (; n > 0; n -= STEP) {
#pragma unroll
                        for (int s = 0; s < STEP * 4; ++s)
                            if (s % 4 < 4 / P)
                                tile_step(*reinterpret_cast<const uint4*>(pa + s * AS),
                                          *reinterpret_cast<const uint4*>(pb + s * BS), acc);
                        pa += STEP * 4 * AS, pb += STEP * 4 * BS;
                    }
                }
                __syncthreads();
            }
        }
    }

    lanes_max<P, THREADS>(acc);
    store_cells<P>(g, out, acc, row0, col0, part);
    if (blockIdx.x % col_tiles == 0)
        write_border(g, S1, out, i1, l1, (blockIdx.x / col_tiles) % row_tiles, TR, row_tiles);
}

// STAGE 4's paired copy of matrices first_mat + blockIdx.y (issue 29, helper bpmaxcp3), written after a
// level's finish: pair row p (0 <= p < N / 2 + 2, pair_stride = (N / 2 + 2) RS words a matrix) holds rows 2p - 1
// (low halves) and 2p (high) of the band, slot by slot (both rows' slots start at the same column: (2p - 2) & ~7),
// sentinels for rows outside 0 .. N. A thread one 8-slot vector of a pair row: two 16-byte loads, two stores.
__global__ void bpmax_pair_rows(const short* __restrict__ F, unsigned* __restrict__ paired, DIMS_ARGS,
                                const int first_mat, const long long pair_stride) {
    const int V = RS / 8, NP = N / 2 + 2;
    const int x = blockIdx.x * blockDim.x + threadIdx.x;   // grid: (vectors of a matrix / threads, matrices)
    if (x >= NP * V) return;
    const int v = x % V, p = x / V;
    const long long m = first_mat + blockIdx.y;
    const short* lo = F + m * mat_stride + (2 * p - 1) * (long long)RS + 8 * v;
    const uint4 e = (unsigned)(2 * p - 1) <= (unsigned)N ? *reinterpret_cast<const uint4*>(lo) : sentinel_vector();
    const uint4 o = 2 * p <= N ? *reinterpret_cast<const uint4*>(lo + RS) : sentinel_vector();
    interleave_rows(e, o, reinterpret_cast<uint4*>(paired + m * pair_stride + (long long)p * RS + 8 * v));
}

// ---------------------------------------------------------------------------------------------------
// The variant "banded-library" (Gildemaster 2021's design): the double reduction D of a level is one
// launch of the banded max-plus product library (interact/kernels/maxplus.cu) over matrices kept in its
// jagged tile-major layout; R3 and R4 are separate parallel reductions over k1 (the thesis's H3/H4),
// here fused with the base case and the strand-1 pair. Two kernels move cells between the layouts.
// The library stores cell (i, j) of a matrix at column j + 1 of tile (i / T, (j + 1) / T); tile row I
// starts at tile starts[I]; each matrix has `tiles` tiles of T x T cells.
__device__ __forceinline__ long long tile_cell(const int* __restrict__ starts, int T, int i, int j) {
    const int I = i / T, J = (j + 1) / T;
    return ((long long)(starts[I] + J - I) * T + i % T) * T + (j + 1) % T;
}

// level l1's matrices (band rows, final) into the library's pool
template <typename T>
__global__ void bpmax_to_tiles(const T* __restrict__ F, T* __restrict__ pool, DIMS_ARGS, const int first_mat,
                               const int mats, const int* __restrict__ starts, const int tile, const int tiles) {
    DIMS;
    const long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= (long long)mats * N * Wb) return;
    const int e = (int)(x % Wb);
    const int i2 = (int)((x / Wb) % N);
    const int q = (int)(x / ((long long)Wb * N));
    if (i2 + e >= N) return;
    const long long m = first_mat + q;
    pool[m * tiles * tile * tile + tile_cell(starts, tile, i2, i2 + e)] = F[m * g.mat_stride + cell_at(g, i2, e)];
}

// every cell of level l1's matrices: the library's D (from the pool), R3, R4, the strand-1 pair and the
// base case, into band rows (and the empty-target slot of each row)
template <typename T>
__global__ void bpmax_border(const code_t* __restrict__ a, const code_t* __restrict__ rb, const int* __restrict__ S1,
                             T* __restrict__ F, const T* __restrict__ pool, DIMS_ARGS, const int l1,
                             const int* __restrict__ starts, const int tile, const int tiles) {
    DIMS;
    const long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const int mats = M - l1 + 1;
    if (x >= (long long)mats * (N + 1) * (Wb + 1)) return;
    const int e = (int)(x % (Wb + 1)) - 1;
    const int i2 = (int)((x / (Wb + 1)) % (N + 1));
    const int i1 = (int)(x / ((long long)(Wb + 1) * (N + 1))), j1 = i1 + l1 - 1;
    const long long m = mat_of(g, i1, l1);
    T* out = F + m * g.mat_stride;
    if (e < 0) {                                         // F(i1, j1, i2, i2 - 1) = S1(i1, j1)
        out[cell_at(g, i2, -1)] = (T)S1[i1 * L1 + l1 - 1];
        return;
    }
    const int j2 = i2 + e;
    if (j2 >= N) return;
    int v = start_value(g, a, rb, F, i1, l1, i2, j2);
    if (l1 >= 2) {
        v = max(v, (int)pool[m * tiles * tile * tile + tile_cell(starts, tile, i2, j2)]);   // D
        for (int k1 = i1; k1 < j1; ++k1) {
            const long long at = cell_at(g, i2, e);
            v = max(v, S1[i1 * L1 + k1 - i1] + (int)F[mat_of(g, k1 + 1, j1 - k1) * g.mat_stride + at]);   // R3
            v = max(v, (int)F[mat_of(g, i1, k1 - i1 + 1) * g.mat_stride + at] + S1[(k1 + 1) * L1 + j1 - k1 - 1]);  // R4
        }
    }
    out[cell_at(g, i2, e)] = (T)v;
}

// ---------------------------------------------------------------------------------------------------
// finish: one block per (matrix of the level, segment of `seg` rows). The segment's rows and the
// Wb - 1 rows below it go to shared memory, with the same rows of S2 (row stride SR, odd: no bank
// conflicts down a diagonal; S2 read from global memory instead, a row per thread, made this 15x slower);
// diagonal e = 1 .. Wb - 1 of every row is then closed under
//   R1: S2(i2, k2) + F(k2+1, j2),   R2: F(i2, k2) + S2(k2+1, j2)   (i2 <= k2 < j2),
//   the strand-2 pair score(rb[i2], rb[j2]) + F(i2+1, j2-1)        (j2 - i2 >= 4),
// and the segment's rows are written back. The rows below were started from global memory, where the
// next segment's block may already have written their final values: any value between the products'
// T and the final F is a valid start (the closure of either is the final F), so that race is benign.
// SELF: the matrix is S2 itself (all cells start at 0; R1 and R2 are then the same split).
template <typename T, bool SELF>
__global__ void __launch_bounds__(512)
bpmax_finish(const code_t* __restrict__ rb, T* __restrict__ F, const T* __restrict__ S2, DIMS_ARGS,
             const int first_mat, const int seg, const int segments) {
    DIMS;
    extern __shared__ __align__(16) unsigned char smem[];
    const int SR = (Wb + 1) | 1;
    const int q = blockIdx.x / segments, s = (blockIdx.x % segments) * seg;
    T* mat = F + (first_mat + q) * g.mat_stride;
    const int H = min(seg + Wb - 1, N - s);   // rows in shared memory
    T* sh = reinterpret_cast<T*>(smem);      // the matrix's rows s .. s + H - 1
    T* s2 = sh + (SELF ? 0 : H * SR);         // and S2's (the same array when SELF)

    for (int x = threadIdx.x; x < H * Wb; x += blockDim.x) {
        const int r = x / Wb, e = x % Wb;
        sh[r * SR + e] = SELF ? (T)0 : mat[cell_at(g, s + r, e)];
        if (!SELF) s2[r * SR + e] = S2[cell_at(g, s + r, e)];
    }
    __syncthreads();
    for (int e = 1; e < Wb; ++e) {
        for (int r = threadIdx.x; r < H - e; r += blockDim.x) {
            const int i2 = s + r;
            int v = sh[r * SR + e];
            // the cell's row runs along shared memory, its column down a diagonal of stride SR - 1
            const T* row = sh + r * SR;
            const T* column = sh + (r + 1) * SR + e - 1;
            if (SELF) {
                for (int k = 0; k < e; ++k) v = max(v, (int)row[k] + (int)column[k * (SR - 1)]);
            } else {
                const T* s2row = s2 + r * SR;
                const T* s2column = s2 + (r + 1) * SR + e - 1;
                for (int k = 0; k < e; ++k) {
                    v = max(v, (int)s2row[k] + (int)column[k * (SR - 1)]);   // R1: S2(i2, k2) + F(k2+1, j2)
                    v = max(v, (int)row[k] + (int)s2column[k * (SR - 1)]);   // R2: F(i2, k2) + S2(k2+1, j2)
                }
            }
            if (e >= 4) v = max(v, pair_score(g, rb[i2], rb[i2 + e]) + (int)sh[(r + 1) * SR + e - 2]);
            sh[r * SR + e] = (T)v;
        }
        __syncthreads();
    }
    const int rows = min(seg, N - s);
    for (int x = threadIdx.x; x < rows * Wb; x += blockDim.x) {
        const int r = x / Wb, e = x % Wb;
        if (s + r + e < N) mat[cell_at(g, s + r, e)] = sh[r * SR + e];
    }
}

// ---------------------------------------------------------------------------------------------------
// finish for short cells, two terms per instruction: shared memory holds, for each cell, the word
// (F(i2, j2), S2(i2, j2)). For the split at k2 the row word with its halves swapped, (S2(i2,k2),
// F(i2,k2)), plus the column word (F(k2+1,j2), S2(k2+1,j2)) is (R1 term, R2 term): one
// __viaddmax_s16x2 does both, where the plain finish does four 16-bit loads and two int updates.
// G diagonals at a time: a thread holds the G cells (r, e0 .. e0 + G - 1) of its row, which share the
// row word of each split, so a split costs 1 + G shared loads for G cells (2 G one diagonal at a time)
// and the G accumulators are independent chains. Every split whose two operands lie on diagonals below
// e0 (k in [G - 1, e0)) runs first for all G cells at once; the few left (k < G - 1, whose column cell
// may lie on diagonals e0 .. e0 + G - 2, and k >= e0, whose row cell does) close the cells one
// diagonal at a time. G = 1 is the plain diagonal-by-diagonal order. SPLIT threads share a row in the
// first phase, each with G / SPLIT of its cells: more warps to hide the latency of each split's loads
// (a segment's rows fill only a fifth of an SM's warps, one thread per row).
__device__ __forceinline__ unsigned swap_halves(unsigned w) { return __byte_perm(w, 0, 0x1032); }

// eight (F, S2) pairs of a row stored as the products read them: F's and S2's eight shorts (f, s) interleaved
// into eight words at `to` (16-byte aligned)
__device__ __forceinline__ void put_pairs(unsigned* to_words, const uint4 f, const uint4 s) {
    uint4* to = reinterpret_cast<uint4*>(to_words);
    to[0] = make_uint4(__byte_perm(f.x, s.x, 0x5410), __byte_perm(f.x, s.x, 0x7632),
                       __byte_perm(f.y, s.y, 0x5410), __byte_perm(f.y, s.y, 0x7632));
    to[1] = make_uint4(__byte_perm(f.z, s.z, 0x5410), __byte_perm(f.z, s.z, 0x7632),
                       __byte_perm(f.w, s.w, 0x5410), __byte_perm(f.w, s.w, 0x7632));
}

// a thread's 4 x 4 words of a staged chunk: acc[r][c] = max over its KC k of As[k][4 tr + r] + Bs[k][4 tc + c],
// both halves at once (DPX)
template <int KC, int AS>
__device__ __forceinline__ void chunk_products(const unsigned* As, const unsigned* Bs, int tr, int tc,
                                               unsigned (&acc)[4][4]) {
#pragma unroll 8
    for (int k = 0; k < KC; ++k)
        tile_step(*reinterpret_cast<const uint4*>(&As[k * AS + tr * 4]),
                  *reinterpret_cast<const uint4*>(&Bs[k * AS + tc * 4]), acc);
}

// the segment's rows s .. s + H - 1 of the matrix and of S2 into (F, S2) words P[r * SR + e], 8 slots per aligned
// 16-byte load of each table (cell_at's layout), 4 loads of each in flight a thread (bpmax_finish_packed's FORM 1 and up)
__device__ __forceinline__ void segment_words(const Dims& g, const short* __restrict__ mat, const short* __restrict__ S2,
                                              unsigned* P, int SR, int s, int H) {
    constexpr int U = 4;                         // 16-byte loads of each table in flight a thread
    const int V = g.RS / 8, X = H * V;           // a row's slots as 16-byte chunks
    for (int x0 = threadIdx.x; x0 < X; x0 += U * blockDim.x) {
        uint4 f[U], t[U];
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int x = x0 + u * blockDim.x;
            if (x < X) {
                const long long at = (long long)(s + x / V) * g.RS + 8 * (x % V);
                f[u] = *reinterpret_cast<const uint4*>(mat + at);
                t[u] = *reinterpret_cast<const uint4*>(S2 + at);
            }
        }
#pragma unroll
        for (int u = 0; u < U; ++u) {
            const int x = x0 + u * blockDim.x;
            if (x >= X) continue;
            const int r = x / V, e0 = 8 * (x % V) - 1 - ((s + r - 1) & 7);   // the band cell of slot 8 (x % V)
            const unsigned fw[4] = {f[u].x, f[u].y, f[u].z, f[u].w}, sw[4] = {t[u].x, t[u].y, t[u].z, t[u].w};
#pragma unroll
            for (int h = 0; h < 8; ++h) {
                const int e = e0 + h;
                if (e >= 0 && e < g.Wb) P[r * SR + e] = __byte_perm(fw[h / 2], sw[h / 2], h % 2 ? 0x7632 : 0x5410);
            }
        }
    }
}

// the segment's codes and the pair scores into shared memory (FORM 2 and up)
__device__ __forceinline__ void segment_codes(const Dims& g, const code_t* __restrict__ rb, code_t* cs, int* pt,
                                              int s, int H) {
    for (int x = threadIdx.x; x < H; x += blockDim.x) cs[x] = rb[s + x];
    for (int x = threadIdx.x; x < 25; x += blockDim.x) pt[x] = g.pairs[x];
}

// the segment's `rows` rows back from the (F, S2) words, 8 slots a 16-byte store where all 8 are cells to write
// (FORM 3 and up)
__device__ __forceinline__ void segment_store(const Dims& g, short* __restrict__ mat, const unsigned* P, int SR, int s,
                                              int rows) {
    const short* Pf = reinterpret_cast<const short*>(P);
    const int V = g.RS / 8;
    for (int x = threadIdx.x; x < rows * V; x += blockDim.x) {
        const int r = x / V, i2 = s + r, e0 = 8 * (x % V) - 1 - ((i2 - 1) & 7);
        short* to = mat + (long long)i2 * g.RS + 8 * (x % V);
        if (e0 >= 0 && e0 + 7 < g.Wb && i2 + e0 + 7 < g.N) {
            const unsigned* from = P + r * SR + e0;     // (F, S2) words: their low halves, two a word
            *reinterpret_cast<uint4*>(to) = make_uint4(
                __byte_perm(from[0], from[1], 0x5410), __byte_perm(from[2], from[3], 0x5410),
                __byte_perm(from[4], from[5], 0x5410), __byte_perm(from[6], from[7], 0x5410));
        } else {
#pragma unroll
            for (int h = 0; h < 8; ++h) {
                const int e = e0 + h;
                if (e >= 0 && e < g.Wb && i2 + e < g.N) to[h] = Pf[2 * (r * SR + e)];
            }
        }
    }
}

// FORM (issue 29, helper bpmaxst): 0 as before; 1 the segment's rows read 8 slots per aligned 16-byte
// load (cell_at's layout), 4 loads of each table in flight a thread (form 0 read one 16-bit cell of each
// per iteration, waiting for it, while the SM's one block had nothing else to run); 2 also the group's
// splits k < G - 1 whose operands are final (k >= d for cell d) in the first phase, the tails' two ranges
// of splits as two independent chains, and the codes of the segment and the pair scores in shared memory;
// 3 also the rows written back 8 cells a 16-byte store; 4 also the group's first diagonal closed in the
// first phase (its cells have every split there: with the pair term they are final), one pass and one
// barrier less a group.
template <int G, int SPLIT, int FORM>
__global__ void __launch_bounds__(1024)
bpmax_finish_packed(const code_t* __restrict__ rb, short* __restrict__ F, const short* __restrict__ S2, DIMS_ARGS,
                    const int first_mat, const int seg, const int segments) {
    DIMS;
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned* P = reinterpret_cast<unsigned*>(smem);
    short* Pf = reinterpret_cast<short*>(smem);     // the F halves: Pf[2 * (r * SR + e)]
    const int SR = (Wb + 1) | 1;
    const int q = blockIdx.x / segments, s = (blockIdx.x % segments) * seg;
    short* mat = F + (first_mat + q) * g.mat_stride;
    const int H = min(seg + Wb - 1, N - s);
    __shared__ int pt[FORM >= 2 ? 25 : 1];
    code_t* cs = reinterpret_cast<code_t*>(P + H * SR);   // FORM 2: rb[s .. s + H - 1] (the host adds H bytes)

    if (FORM == 0) {
        for (int x = threadIdx.x; x < H * Wb; x += blockDim.x) {
            const int r = x / Wb, e = x % Wb;
            const long long at = cell_at(g, s + r, e);
            P[r * SR + e] = pack2(mat[at], S2[at]);
        }
    } else {
        segment_words(g, mat, S2, P, SR, s, H);
        if (FORM >= 2) segment_codes(g, rb, cs, pt, s, H);
    }
    __syncthreads();
    // cell (r, e)'s closing pair: the pair's score (FORM 2: from the shared codes and scores) plus the inner cell
    auto pair_term = [&](int r, int e) {
        return (FORM >= 2 ? pt[cs[r] * 5 + cs[r + e]] : pair_score(g, rb[s + r], rb[s + r + e])) +
               (int)Pf[2 * ((r + 1) * SR + e - 2)];
    };
    for (int e0 = 1; e0 < Wb; e0 += G) {
        // the splits final before the group, for its G cells at once (partial maxima into the F halves:
        // no thread reads diagonals e0 and up in this phase)
        if (e0 > G - 1) {
            constexpr int C = G / SPLIT;                             // cells of a thread: d = h + SPLIT c
            const int h = threadIdx.x % SPLIT;
            for (int r = threadIdx.x / SPLIT; r < H - e0; r += blockDim.x / SPLIT) {
                unsigned acc[C];
#pragma unroll
                for (int c = 0; c < C; ++c) acc[c] = 0xC000C000u;    // sentinels
                const unsigned* row = P + r * SR;
                // + k (SR - 1) + d - h: cell (r+1+k, e0+d-1-k)
                const unsigned* column = P + (r + 1) * SR + e0 - 1 + h;
                if (FORM >= 2) {                                     // k < G - 1: final for cells d <= k
#pragma unroll
                    for (int k = 0; k < G - 1; ++k) {
                        const unsigned w = swap_halves(row[k]);
                        const unsigned* col = column + k * (SR - 1);
#pragma unroll
                        for (int c = 0; c < C; ++c)
                            if (k >= h + SPLIT * c) acc[c] = __viaddmax_s16x2(w, col[SPLIT * c], acc[c]);
                    }
                }
#pragma unroll 2
                for (int k = G - 1; k < e0; ++k) {
                    const unsigned w = swap_halves(row[k]);
                    const unsigned* col = column + k * (SR - 1);
#pragma unroll
                    for (int c = 0; c < C; ++c) acc[c] = __viaddmax_s16x2(w, col[SPLIT * c], acc[c]);
                }
#pragma unroll
                for (int c = 0; c < C; ++c) {
                    const int d = h + SPLIT * c;
                    if (e0 + d >= Wb || r >= H - e0 - d) break;
                    short* cell = Pf + 2 * (r * SR + e0 + d);
                    int v = max((int)*cell, max((int)(short)(acc[c] & 0xFFFF), (int)(short)(acc[c] >> 16)));
                    if (FORM >= 4 && d == 0 && e0 >= 4)   // cell d = 0 has all its splits: final with its pair term
                        v = max(v, pair_term(r, e0));
                    *cell = (short)v;
                }
            }
            __syncthreads();
        }
        // the remaining splits of each diagonal of the group, in order
        for (int d = FORM >= 4 && e0 > G - 1 ? 1 : 0; d < G && e0 + d < Wb; ++d) {
            const int e = e0 + d;
            for (int r = threadIdx.x; r < H - e; r += blockDim.x) {
                const unsigned* row = P + r * SR;
                const unsigned* column = P + (r + 1) * SR + e - 1;
                unsigned both = 0xC000C000u, right = 0xC000C000u;
                // FORM 2 after a first phase: k in [0, d) and [e0, e); else [0, G - 1) and [G - 1, e) or [e0, e)
                const bool moved = FORM >= 2 && e0 > G - 1;
                const int lo = moved ? d : min(G - 1, e), hi = moved ? e0 : max(G - 1, e0);
                for (int k = 0; k < lo; ++k) both = __viaddmax_s16x2(swap_halves(row[k]), column[k * (SR - 1)], both);
                for (int k = hi; k < e; ++k) {
                    const unsigned w = __viaddmax_s16x2(swap_halves(row[k]), column[k * (SR - 1)], FORM >= 2 ? right : both);
                    if (FORM >= 2) right = w; else both = w;
                }
                if (FORM >= 2) both = __vmaxs2(both, right);
                int v = max((int)Pf[2 * (r * SR + e)], max((int)(short)(both & 0xFFFF), (int)(short)(both >> 16)));
                if (e >= 4) v = max(v, pair_term(r, e));
                Pf[2 * (r * SR + e)] = (short)v;
            }
            __syncthreads();
        }
    }
    const int rows = min(seg, N - s);
    if (FORM >= 3) {   // the segment's rows back 8 slots a 16-byte store where all 8 are cells to write
        segment_store(g, mat, P, SR, s, rows);
        return;
    }
    for (int x = threadIdx.x; x < rows * Wb; x += blockDim.x) {
        const int r = x / Wb, e = x % Wb;
        if (s + r + e < N) mat[cell_at(g, s + r, e)] = Pf[2 * (r * SR + e)];
    }
}

// finish_form 5 (issue 29, helper bpmaxfin): form 4's splits, each group's work shared between two roles of threads,
// a row a thread in each (2 x R threads, R >= H a multiple of 32). Form 4 ran a group's splits whose operands are
// final (its first phase, bound by shared loads) and then closed its G - 1 last diagonals one at a time, a barrier
// each, every row a short dependent chain while the SM ran nothing else. Here, while the tail threads close
// diagonals e0 + 1 .. e0 + G - 1 (a named barrier between them, the bulk threads not waiting), the bulk threads run
// the next group's splits whose operands are final already: for its cell c (diagonal e0 + G + c),
// k in [2G - 2, e0 + 1) (row cell on diagonal k <= e0, column cell on e0 + G + c - 1 - k <= e0), kept in registers
// over the barrier. The next group's first phase is then short: k in [c, 2G - 2) and [e0 + 1, e0 + G) (max is
// idempotent: the ranges may overlap for the first groups). The latency of the tails hides under the bulk's loads.
__device__ __forceinline__ void tail_barrier(int threads) {   // the tail threads only (barrier 1)
    asm volatile("bar.sync 1, %0;\n" ::"r"(threads) : "memory");
}

// finish_form 6 (issue 29, helper bpmaxfin2): form 5 with each tail pass cut to one shared-memory latency. Form 5's
// block waited on the chain of a segment's diagonal closures: a tail pass read its column cells, the codes, the pair
// score and the inner cell after its barrier, one dependent load after another. Of pass d's operands (cell (r, e),
// e = e0 + d) only the column cell (r + 1, e - 1) is written by the pass just before; the column cells of k in [1, d)
// lie on diagonals closed two passes back or more, those of k in [e0, e) on diagonals below G, the row cells k < G - 1
// since the first group, the row cells k in [e0, e) are the thread's own closures (registers), the inner cell
// (r + 1, e - 2) is the previous pass's column cell, and the pair score needs no cell at all. So a tail thread reads
// the pair scores, its row's first words and pass 1's inner cell while the first phase runs (ChainAhead), each pass
// reads the next pass's operands after its barrier, and between two barriers only the column cell's load, one DPX, a
// max and the store wait on one another.
template <int G>
struct ChainAhead {          // read by a tail thread before a group's first phase is done (nothing it writes)
    unsigned low[G - 1];     // the row's words k < G - 1, halves swapped (final since the first group)
    int score[G];            // score[d], d >= 1: the pair score of cell (r, e0 + d)
    int inner;               // F(r + 1, e0 - 1): pass 1's inner cell
};

template <int G>
__device__ __forceinline__ void chain_ahead(ChainAhead<G>& a, const unsigned* P, const short* Pf, const code_t* cs,
                                            const int* pt, int SR, int r, int e0, int H, int Wb) {
    if (r >= H - e0 - 1 || e0 + 1 >= Wb) return;   // no pass of this group for row r
    const unsigned* row = P + r * SR;
#pragma unroll
    for (int k = 0; k < G - 1; ++k) a.low[k] = swap_halves(row[k]);
#pragma unroll
    for (int d = 1; d < G; ++d)
        if (e0 + d < Wb && r < H - e0 - d) a.score[d] = pt[cs[r] * 5 + cs[r + e0 + d]];
    a.inner = Pf[2 * ((r + 1) * SR + e0 - 1)];
}

// a group's passes d = 1 .. G - 1 of a tail thread (row r), after its first phase (form 5's [0, d) and [e0, e) splits;
// the result max(-16384, partial, pair term, splits) as form 5's, the pair term and the partial folded into the start)
// UNROLLED (finish form 7, issue 29, helper bpmaxunroll): the same terms with every offset a compile-time one from two
// bases a group (step = SR - 1: a column word k splits down-left of another, held once), the closed words kept with
// their halves swapped (one PRMT a closure instead of one a closure a pass), the splits not on the column word just
// written in two chains (the near and the far ones, max is associative: the same bits) whose maximum is taken before
// the barrier, and with INSIDE (every cell of the group's passes in the band and the segment, decided once a group)
// no test a pass but the barrier's
template <int G, bool UNROLLED, bool INSIDE>
__device__ __forceinline__ void chain_passes(const ChainAhead<G>& a, const unsigned* P, short* Pf, int SR, int r,
                                             int e0, int H, int Wb, int R) {
    unsigned own[G];    // own[j]: the word (F, S2) of cell (r, e0 + j) once closed (UNROLLED: halves swapped)
    unsigned near[G];   // near[k], k in [1, d): pass d's column words (r + 1 + k, e - 1 - k), read a pass ahead
    unsigned far[G];    // far[j], j in [0, d): pass d's column words (r + 1 + e0 + j, d - 1 - j) of its splits k = e0 + j
    unsigned part = 0;  // the word of cell (r, e): the first phase's partial maximum, and S2
    int inner = a.inner;
    const unsigned* row = P + r * SR;
    const int step = UNROLLED ? SR - 1 : 0;
    const unsigned* nbase = UNROLLED ? P + (r + 1) * SR + e0 : P;   // near[k] of pass d + 1: nbase[d + k step]; the column
    const unsigned* fbase = UNROLLED ? P + (r + 1 + e0) * SR : P;   // word of pass d: nbase[d - 1]; far[j] of pass d + 1:
    //                                                                 fbase[d + j step]
    unsigned ahead_near = 0;   // UNROLLED: pass d's maximum over (m, m) and its near splits, taken before its barrier
    int ahead_far = 0;         // UNROLLED: pass d's maximum over its far splits, both halves, taken before its barrier
    if (INSIDE || (r < H - e0 - 1 && e0 + 1 < Wb)) {
        own[0] = UNROLLED ? swap_halves(row[e0]) : row[e0];
        far[0] = P[(r + 1 + e0) * SR];
        part = row[e0 + 1];
        if (UNROLLED) {   // pass 1: no near split, one far split
            ahead_near = __byte_perm(max(max(-16384, (int)(short)(part & 0xFFFF)), a.score[1] + inner), 0, 0x1010);
            const unsigned f = __viaddmax_s16x2(own[0], far[0], ahead_near);
            ahead_far = max((int)(short)(f & 0xFFFF), (int)(short)(f >> 16));
        }
    }
#pragma unroll
    for (int d = 1; d < G; ++d) {
        const int e = e0 + d;
        if (!INSIDE && e >= Wb) break;
        if (INSIDE || r < H - e) {
            if (UNROLLED) {
                const unsigned col = nbase[d - 1];                // the one operand the pass before wrote
                const unsigned w = __viaddmax_s16x2(a.low[0], col, ahead_near);
                const int v = max(max((int)(short)(w & 0xFFFF), (int)(short)(w >> 16)), ahead_far);
                Pf[2 * (r * SR + e)] = (short)v;
                own[d] = __byte_perm(v, part, 0x1076);            // (S2(r, e), v)
                inner = (int)(short)(col & 0xFFFF);               // F(r + 1, e - 1): the next pass's inner cell
            } else {
                const unsigned col = P[(r + 1) * SR + e - 1];    // the one operand the pass before wrote
                int m = max(-16384, (int)(short)(part & 0xFFFF));
                if (e >= 4) m = max(m, a.score[d] + inner);
                unsigned pre = __byte_perm(m, 0, 0x1010);        // (m, m)
#pragma unroll
                for (int k = 1; k < d; ++k) pre = __viaddmax_s16x2(a.low[k], near[k], pre);
#pragma unroll
                for (int j = 0; j < d; ++j) pre = __viaddmax_s16x2(swap_halves(own[j]), far[j], pre);
                const unsigned w = __viaddmax_s16x2(a.low[0], col, pre);
                const int v = max((int)(short)(w & 0xFFFF), (int)(short)(w >> 16));
                Pf[2 * (r * SR + e)] = (short)v;
                own[d] = __byte_perm(v, part, 0x7610);            // (v, S2(r, e))
                inner = (int)(short)(col & 0xFFFF);               // F(r + 1, e - 1): the next pass's inner cell
            }
            if (d + 1 < G && (INSIDE || e + 1 < Wb) && (INSIDE || r < H - e - 1)) {   // the next pass's operands
#pragma unroll                                                   // final since this pass's barrier, read after the store
                for (int k = 1; k <= d; ++k) near[k] = UNROLLED ? nbase[d + k * step] : P[(r + 1 + k) * SR + e - k];
#pragma unroll
                for (int j = 0; j <= d; ++j) far[j] = UNROLLED ? fbase[d + j * step] : P[(r + 1 + e0 + j) * SR + d - j];
                part = row[e + 1];
                if (UNROLLED) {   // pass d + 1's splits but the column word's, two chains, before the barrier
                    ahead_near = __byte_perm(max(max(-16384, (int)(short)(part & 0xFFFF)), a.score[d + 1] + inner), 0,
                                             0x1010);
                    unsigned f = __viaddmax_s16x2(own[0], far[0], ahead_near);
#pragma unroll
                    for (int k = 1; k <= d; ++k) ahead_near = __viaddmax_s16x2(a.low[k], near[k], ahead_near);
#pragma unroll
                    for (int j = 1; j <= d; ++j) f = __viaddmax_s16x2(own[j], far[j], f);
                    ahead_far = max((int)(short)(f & 0xFFFF), (int)(short)(f >> 16));
                }
            }
        }
        if (d + 1 < G && (INSIDE || e + 1 < Wb)) tail_barrier(R);
    }
}

// BPMAX_FINISH_CLOCKS (bench/bpmax_finish_clocks.py only; never in a production build): thread 0 of each of the first
// CLOCK_BLOCKS blocks of bpmax_finish_roles records clock64() at its phases' barriers: 0 start, 1 the segment read,
// 2 + 2 i after group i's first phase, 3 + 2 i at group i's end, CLOCK_SLOTS - 2 before the store, CLOCK_SLOTS - 1 end;
// with groups of 8 diagonals (16 groups at most: slots 0 .. 33) also CLOCK_READY + 2 i (thread 0, a bulk thread) and
// CLOCK_READY + 1 + 2 i (the first tail thread) as they reach group i's first-phase barrier (issue 29, bpmaxpipe's
// commit 07356bf, brought back by bpmaxsplit)
#ifdef BPMAX_FINISH_CLOCKS
constexpr int CLOCK_BLOCKS = 132, CLOCK_SLOTS = 136, CLOCK_READY = 40;
__device__ long long finish_clocks[CLOCK_BLOCKS * CLOCK_SLOTS];
#define FINISH_CLOCK_BY(slot, thread) \
    if (threadIdx.x == (thread) && blockIdx.x < CLOCK_BLOCKS && (slot) < CLOCK_SLOTS) \
        finish_clocks[blockIdx.x * CLOCK_SLOTS + (slot)] = clock64()
#define FINISH_CLOCK(slot) FINISH_CLOCK_BY(slot, 0)
#else
#define FINISH_CLOCK_BY(slot, thread)
#define FINISH_CLOCK(slot)
#endif

// the splits of U consecutive words row[u] (halves swapped) against the G column words column[u step + c]: every
// offset but u step a compile-time one (finish form 7)
template <int G, int U>
__device__ __forceinline__ void split_words(const unsigned* row, const unsigned* column, int step, unsigned (&acc)[G]) {
#pragma unroll
    for (int u = 0; u < U; ++u, column = reinterpret_cast<const unsigned*>(reinterpret_cast<const char*>(column) + step)) {
        const unsigned w = swap_halves(row[u]);
#pragma unroll
        for (int c = 0; c < G; ++c) acc[c] = __viaddmax_s16x2(w, column[c], acc[c]);
    }
}
constexpr int SPLITS_AT_ONCE = 4;   // form 7: the bulk's splits an iteration (the count is 4 mod 8 at G = 8: no rest)

// FORM 5 (bpmaxfin) or 6 (bpmaxfin2: the tails' passes as chain_passes). bpmaxfin2 also measured, and reverted
// (docs/bpmax-gpu-notes.md): the segment read and stored with a warp's lanes across rows, for fewer bank conflicts
// (its read and store took twice the cycles, the global accesses 16 bytes a row); each group's first phase run by the
// tail threads after their passes, beside the bulk threads' splits, one block barrier a group (slower: the first
// phase then waited on the passes and shared the load pipe with the bulk threads' splits)
// bpmaxfin3 measured, and reverted (commit 02d4ce7 has them): forms 8 and 9, a bulk thread's rows r and r + 1 at one
// absolute split point (2 row words and G + 1 column words, 8-byte loads, for 2G DPX), the pair's next-group splits
// on one thread (8) or two (9): the same time as form 7 (8) and 9% slower (9); their groups' rests grew although their
// loads a split fell by a third. bpmaxfin4 measured those 8-byte loads conflict-free (Nsight Compute: 2 wavefronts
// each; a warp's 8-byte loads go as its two half warps) and form 10, form 8 with a warp's pairs swizzled on its lanes
// (commit 901beed), no faster: form 8 cut level 12's shared wavefronts 13% and its time did not move (the finish is
// bound by its warps' paths between block barriers, not the shared-memory pipe)
// BOUND: the most threads a block (two a row: BOUND / 2 rows of segment and halo); 1024 gives ptxas 64 registers and
// 12 bytes of spill at <8, 6>, 896 gives 72 and none (bpmaxring's Next; BPMaxSizes.finish_bound)
template <int G, int FORM, int BOUND = 1024>
__global__ void __launch_bounds__(BOUND)
bpmax_finish_roles(const code_t* __restrict__ rb, short* __restrict__ F, const short* __restrict__ S2, DIMS_ARGS,
                   const int first_mat, const int seg, const int segments) {
    static_assert(G >= 2, "a group closes at least two diagonals");
    static_assert(FORM >= 5 && FORM <= 7, "bpmax_finish_roles runs finish forms 5, 6 and 7");
    constexpr bool UNROLLED = FORM >= 7;
    DIMS;
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned* P = reinterpret_cast<unsigned*>(smem);
    short* Pf = reinterpret_cast<short*>(smem);     // the F halves: Pf[2 * (r * SR + e)]
    const int SR = (Wb + 1) | 1;
    const int q = blockIdx.x / segments, s = (blockIdx.x % segments) * seg;
    short* mat = F + (first_mat + q) * g.mat_stride;
    const int H = min(seg + Wb - 1, N - s);
    __shared__ int pt[25];
    code_t* cs = reinterpret_cast<code_t*>(P + H * SR);   // rb[s .. s + H - 1] (the host adds H bytes)
    FINISH_CLOCK(0);
    segment_words(g, mat, S2, P, SR, s, H);
    segment_codes(g, rb, cs, pt, s, H);
    __syncthreads();
    FINISH_CLOCK(1);

    const int R = blockDim.x / 2;
    const bool bulk = threadIdx.x < R;
    const int r = bulk ? threadIdx.x : threadIdx.x - R;   // the row of this thread in its role
    const unsigned* row = P + r * SR;
    auto pair_term = [&](int e) { return pt[cs[r] * 5 + cs[r + e]] + (int)Pf[2 * ((r + 1) * SR + e - 2)]; };
    unsigned acc[G];   // bulk: the partial maxima of the cells (r, e0 + c) of the group to come
#pragma unroll
    for (int c = 0; c < G; ++c) acc[c] = 0xC000C000u;
    ChainAhead<G> ahead;   // FORM 6, tail threads
    for (int e0 = 1; e0 < Wb; e0 += G) {
        const bool first = e0 <= G - 1;   // the first group: no first phase, its tails run every split
        if (!first) {
            if (bulk && r < H - e0) {   // the first phase's splits the tails' turn left: k in [c, 2G - 2), [e0 - G + 1, e0)
                const unsigned* column = P + (r + 1) * SR + e0 - 1;   // + k (SR - 1) + c: cell (r+1+k, e0+c-1-k)
                // form 7: every split and cell of the two ranges there (no test a split or a cell)
                const bool whole = UNROLLED && e0 >= 3 * G - 3 && e0 + G <= Wb && r + e0 + G <= H;
#pragma unroll
                for (int k = 0; k < 2 * G - 2; ++k) {
                    if (!whole && k >= e0) break;
                    const unsigned w = swap_halves(row[k]);
                    const unsigned* col = column + k * (SR - 1);
#pragma unroll
                    for (int c = 0; c < G; ++c)
                        if (k >= c) acc[c] = __viaddmax_s16x2(w, col[c], acc[c]);
                }
                if (whole) {   // k in [e0 - G + 1, e0): G - 1 splits
                    split_words<G, G - 1>(row + e0 - G + 1, column + (e0 - G + 1) * (SR - 1), (SR - 1) * 4, acc);
                } else {
                    for (int k = max(e0 - G + 1, 2 * G - 2); k < e0; ++k) {
                        const unsigned w = swap_halves(row[k]);
                        const unsigned* col = column + k * (SR - 1);
#pragma unroll
                        for (int c = 0; c < G; ++c) acc[c] = __viaddmax_s16x2(w, col[c], acc[c]);
                    }
                }
#pragma unroll
                for (int c = 0; c < G; ++c) {
                    if (!whole && (e0 + c >= Wb || r >= H - e0 - c)) break;
                    short* cell = Pf + 2 * (r * SR + e0 + c);
                    int v = max((int)*cell, max((int)(short)(acc[c] & 0xFFFF), (int)(short)(acc[c] >> 16)));
                    if (c == 0 && e0 >= 4) v = max(v, pair_term(e0));   // cell c = 0 has all its splits: final
                    *cell = (short)v;
                }
            } else if (FORM >= 6 && !bulk) {
                chain_ahead(ahead, P, Pf, cs, pt, SR, r, e0, H, Wb);
            }
#pragma unroll
            for (int c = 0; c < G; ++c) acc[c] = 0xC000C000u;
            if (G == 8) {   // the clocked build only: who the first-phase barrier waits for
                FINISH_CLOCK_BY(CLOCK_READY + 2 * ((e0 - 1) / G), 0);
                FINISH_CLOCK_BY(CLOCK_READY + 1 + 2 * ((e0 - 1) / G), R);
            }
            __syncthreads();
            FINISH_CLOCK(2 + 2 * ((e0 - 1) / G));
        }
        if (bulk) {   // the next group's splits final since the first phase: k in [2G - 2, e0 + 1)
            const int e1 = e0 + G;
            if (e1 < Wb && r < H - e1) {
                const unsigned* column = P + (r + 1) * SR + e1 - 1;
                if (UNROLLED) {   // SPLITS_AT_ONCE splits an iteration, their offsets but u (SR - 1) compile-time ones
                    const int step = (SR - 1) * 4;   // bytes
                    const unsigned* at = row + 2 * G - 2;
                    const char* col = reinterpret_cast<const char*>(column + (2 * G - 2) * (SR - 1));
                    int n = e0 + 1 - (2 * G - 2);
                    for (; n >= SPLITS_AT_ONCE; n -= SPLITS_AT_ONCE, at += SPLITS_AT_ONCE, col += SPLITS_AT_ONCE * step)
                        split_words<G, SPLITS_AT_ONCE>(at, reinterpret_cast<const unsigned*>(col), step, acc);
                    for (; n > 0; --n, ++at, col += step) split_words<G, 1>(at, reinterpret_cast<const unsigned*>(col), step, acc);
                } else {
#pragma unroll 2
                    for (int k = 2 * G - 2; k <= e0; ++k) {
                        const unsigned w = swap_halves(row[k]);
                        const unsigned* col = column + k * (SR - 1);
#pragma unroll
                        for (int c = 0; c < G; ++c) acc[c] = __viaddmax_s16x2(w, col[c], acc[c]);
                    }
                }
            }
        } else if (FORM >= 6 && !first) {
            // form 7: the INSIDE copy for a warp whose every row has the group's passes whole; the copy a warp's, since
            // bar.sync is .aligned: a warp's threads must meet the same barrier instruction (rows split between the
            // two copies in one warp hung the block on the device, bpmaxunroll's call 1)
            if (!UNROLLED) chain_passes<G, false, false>(ahead, P, Pf, SR, r, e0, H, Wb, R);
            else if (__all_sync(0xFFFFFFFFu, e0 + G <= Wb && r + e0 + G <= H))
                chain_passes<G, true, true>(ahead, P, Pf, SR, r, e0, H, Wb, R);
            else chain_passes<G, true, false>(ahead, P, Pf, SR, r, e0, H, Wb, R);
        } else {   // the group's diagonals after its first, in order (the first group's every diagonal)
            for (int d = first ? 0 : 1; d < G && e0 + d < Wb; ++d) {
                const int e = e0 + d;
                if (r < H - e) {
                    const unsigned* column = P + (r + 1) * SR + e - 1;
                    unsigned both = 0xC000C000u, right = 0xC000C000u;
                    // after a first phase k in [0, d) and [e0, e); the first group [0, G - 1) and [G - 1, e)
                    const int lo = first ? min(G - 1, e) : d, hi = first ? G - 1 : e0;
                    for (int k = 0; k < lo; ++k) both = __viaddmax_s16x2(swap_halves(row[k]), column[k * (SR - 1)], both);
                    for (int k = hi; k < e; ++k) right = __viaddmax_s16x2(swap_halves(row[k]), column[k * (SR - 1)], right);
                    both = __vmaxs2(both, right);
                    int v = max((int)Pf[2 * (r * SR + e)], max((int)(short)(both & 0xFFFF), (int)(short)(both >> 16)));
                    if (e >= 4) v = max(v, pair_term(e));
                    Pf[2 * (r * SR + e)] = (short)v;
                }
                if (d + 1 < G && e + 1 < Wb) tail_barrier(R);
            }
        }
        __syncthreads();
        FINISH_CLOCK(3 + 2 * ((e0 - 1) / G));
    }
    FINISH_CLOCK(CLOCK_SLOTS - 2);
    segment_store(g, mat, P, SR, s, min(seg, N - s));
    FINISH_CLOCK(CLOCK_SLOTS - 1);
}

// ---------------------------------------------------------------------------------------------------
// finish for short cells in bands too wide for a segment in shared memory (long targets without a
// window), by tiles: the band's cells in B x B tiles (I, J) of rows i2 and absolute columns j2, one
// launch per tile diagonal d = J - I, a block per (matrix of the level, tile of the diagonal). A cell's
// splits k2 in [i2, j2) fall in three ranges:
//   the middle, k2 in [IB + B, JB): both operands in tiles of smaller diagonals, final: a max-plus
//     product over (d - 1) B splits staged in shared memory KC at a time, 4 x 4 cells a thread, the
//     (F, S2) words of the windowed finish (one __viaddmax_s16x2 for the R1 and the R2 term of a split);
//   the two edges, k2 in [i2, IB + B) and [JB, j2): one operand in the tile itself (the column below
//     the cell, the row left of it), so the tile is closed anti-diagonal by anti-diagonal (c - r), its
//     row-tile (I, I) and column-tile (J, J) beside it in shared memory, L threads per cell;
// and the strand-2 pair reads F(i2 + 1, j2 - 1), in the tile or in a final one. d = 0 (tiles on the
// band's diagonal) is a Nussinov-like closure of the tile, diagonal by diagonal. Where the old finish
// (bpmax_finish_diagonal) ran a thread per cell of a diagonal of the whole band in global memory, this
// keeps a tile's closure in shared memory and runs the bulk of the splits as a register-tiled product.
// SELF: the matrix is S2 itself (cells start at 0, both halves of a word updated).
template <int B>
struct TiledShape {
    static constexpr int PT = B * B / 16;                 // threads of the product: 4 x 4 cells each
    static constexpr int THREADS = PT > B ? PT : B;
    static constexpr int L = THREADS / B;                 // threads per cell in the closure
    static constexpr int KC = B < 32 ? B : 32;            // splits staged at a time
    static constexpr int SR = B + 1;                      // words per tile row in shared memory
    static constexpr int AS = B + 4;                      // words per staged row (16-byte aligned)
    static constexpr int UNION = 2 * KC * AS > 2 * B * SR ? 2 * KC * AS : 2 * B * SR;
    static constexpr int WORDS = B * SR + UNION + B;      // tile, staging or (I, I) and (J, J), row below
};

// the (F, S2) word of cell (i, j) from global memory; sentinels outside the band and the target
__device__ __forceinline__ unsigned band_word(const Dims& g, const short* __restrict__ m,
                                              const short* __restrict__ s2, int i, int j) {
    if (i >= g.N || j >= g.N || j < i || j - i >= g.Wb) return 0xC000C000u;
    const long long at = cell_at(g, i, j - i);
    return pack2(m[at], s2[at]);
}

template <int B, bool SELF>
__global__ void __launch_bounds__(TiledShape<B>::THREADS)
bpmax_finish_tiled(const code_t* __restrict__ rb, short* __restrict__ F, const short* __restrict__ S2, DIMS_ARGS,
                   const int first_mat, const int tiles, const int d) {
    DIMS;
    using S = TiledShape<B>;
    constexpr int SR = S::SR, AS = S::AS, KC = S::KC, L = S::L;
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned* Pc = reinterpret_cast<unsigned*>(smem);       // the tile: Pc[r * SR + c] = (F, S2)(IB + r, JB + c)
    short* Pf = reinterpret_cast<short*>(smem);              // its F halves: Pf[2 * (r * SR + c)]
    unsigned* U = Pc + B * SR;
    unsigned* As = U;                                        // middle: As[k][r] = (S2, F)(IB + r, kc + k)
    unsigned* Bs = U + KC * AS;                              //         Bs[k][c] = (F, S2)(kc + k + 1, JB + c)
    unsigned* PdI = U;                                       // closure: (F, S2)(IB + r, IB + x)
    unsigned* PdJ = U + B * SR;                              //          (F, S2)(JB + y, JB + c)
    unsigned* Pext = U + S::UNION;                           //          (F, S2)(IB + B, JB + c)
    const int q = blockIdx.x / tiles, I = blockIdx.x % tiles;
    const int IB = I * B, JB = (I + d) * B;
    short* mat = F + (first_mat + q) * g.mat_stride;
    const int tid = threadIdx.x;

    unsigned acc[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = 0xC000C000u;
    const int tr = tid / (B / 4), tc = tid % (B / 4);
    for (int kc = IB + B; kc < JB && kc < N; kc += KC) {
        for (int x = tid; x < (KC / 8) * B; x += S::THREADS) {
            const int row = x % B, v = x / B;
            const uint4 f = band_vector(g, mat, IB + row, kc + 8 * v), s = band_vector(g, S2, IB + row, kc + 8 * v);
            unsigned* column = As + 8 * v * AS + row;
            const unsigned fw[4] = {f.x, f.y, f.z, f.w}, sw[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
            for (int h = 0; h < 4; ++h) {
                column[(2 * h) * AS] = __byte_perm(sw[h], fw[h], 0x5410);
                column[(2 * h + 1) * AS] = __byte_perm(sw[h], fw[h], 0x7632);
            }
        }
        for (int x = tid; x < KC * (B / 8); x += S::THREADS) {
            const int v = x % (B / 8), k = x / (B / 8);
            const uint4 f = band_vector(g, mat, kc + k + 1, JB + 8 * v), s = band_vector(g, S2, kc + k + 1, JB + 8 * v);
            put_pairs(Bs + k * AS + 8 * v, f, s);
        }
        __syncthreads();
        if (tid < S::PT) chunk_products<KC, AS>(As, Bs, tr, tc, acc);
        __syncthreads();
    }

    // the tile (the products' T, or 0 for S2), its row- and column-tiles and the row below it
    for (int x = tid; x < B * B; x += S::THREADS) {
        const int r = x / B, c = x % B, i = IB + r, j = JB + c;
        Pc[r * SR + c] = SELF ? (i < N && j < N && j >= i && j - i < Wb ? 0u : 0xC000C000u) : band_word(g, mat, S2, i, j);
        if (d > 0) {
            PdI[r * SR + c] = band_word(g, mat, S2, i, IB + c);
            PdJ[r * SR + c] = band_word(g, mat, S2, JB + r, j);
        }
    }
    if (d > 0)
        for (int c = tid; c < B; c += S::THREADS) Pext[c] = band_word(g, mat, S2, IB + B, JB + c);
    __syncthreads();
    if (tid < S::PT && d > 1) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int at = (tr * 4 + r) * SR + tc * 4 + c;
                const int v = max((int)Pf[2 * at], max((int)(short)(acc[r][c] & 0xFFFF), (int)(short)(acc[r][c] >> 16)));
                Pf[2 * at] = (short)v;
                if (SELF) Pf[2 * at + 1] = (short)v;
            }
    }
    __syncthreads();

    // the closure: d = 0 diagonal by diagonal (e = c - r), else anti-diagonal by anti-diagonal (s = c - r)
    const int cell = tid / L, h = tid % L;
    for (int s = d == 0 ? 1 : 1 - B; s < B; ++s) {
        const int r = (s < 0 ? -s : 0) + cell, c = r + s, i = IB + r, j = JB + c;
        const bool active = r < B && c < B && i < N && j < N && j - i < Wb;
        unsigned both = 0xC000C000u;
        if (active) {
            if (d == 0) {
                for (int x = r + h; x < c; x += L) both = __viaddmax_s16x2(swap_halves(Pc[r * SR + x]), Pc[(x + 1) * SR + c], both);
            } else {
                for (int x = r + h; x < B; x += L)
                    both = __viaddmax_s16x2(swap_halves(PdI[r * SR + x]), x + 1 < B ? Pc[(x + 1) * SR + c] : Pext[c], both);
                for (int y = h; y < c; y += L) both = __viaddmax_s16x2(swap_halves(Pc[r * SR + y]), PdJ[(y + 1) * SR + c], both);
            }
        }
#pragma unroll
        for (int o = 1; o < L; o *= 2) both = __vmaxs2(both, __shfl_xor_sync(0xFFFFFFFFu, both, o));
        if (active && h == 0) {
            int v = max((int)Pf[2 * (r * SR + c)], max((int)(short)(both & 0xFFFF), (int)(short)(both >> 16)));
            if (j - i >= 4) {
                int inner;
                if (r + 1 < B && c >= 1) inner = Pf[2 * ((r + 1) * SR + c - 1)];
                else if (c >= 1) inner = (short)(Pext[c - 1] & 0xFFFF);
                else inner = mat[cell_at(g, i + 1, j - i - 2)];
                v = max(v, pair_score(g, rb[i], rb[j]) + inner);
            }
            Pf[2 * (r * SR + c)] = (short)v;
            if (SELF) Pf[2 * (r * SR + c) + 1] = (short)v;
        }
        __syncthreads();
    }
    for (int x = tid; x < B * B; x += S::THREADS) {
        const int r = x / B, c = x % B, i = IB + r, j = JB + c;
        if (i < N && j < N && j >= i && j - i < Wb) mat[cell_at(g, i, j - i)] = Pf[2 * (r * SR + c)];
    }
}

// ---------------------------------------------------------------------------------------------------
// The wide finish again (bpmax_finish_tiled's tiles, cells and three ranges of splits), with
//   - the middle prefetched: the next chunk's 16-byte loads are issued before the current chunk's
//     updates (in registers until stored); the tile's rows, its row below and the row- and column-tiles
//     loaded 8 cells per 16-byte load; the codes of its rows and columns, the pair scores and the column
//     JB - 1 (pair operands of column 0) in shared memory: no global load on the closure's path;
//   - EAGER: the middle block K of tile (I, J) is final after launch max(K - I, J - K) (its rows k2 + 1
//     lie in tiles (K, J) and (K + 1, J)), so launch d adds, for every tile at a diagonal D in
//     [d + 1, 2d - 2], the blocks K = I + d - 1 and J - d + 1 that launch d - 1 completed
//     (read-max-write of the tile's F in global memory: any value between the products' T and the final
//     F is a valid start, no block reads that tile before its own launch, and one block writes it a
//     launch). Each block then runs at most two K blocks, where bpmax_finish_tiled's tile of diagonal d
//     runs d - 1 of them in its own launch: the launches' critical path no longer grows with d.
//     Blocks [0, tiles) of a matrix close tiles of diagonal d, the rest only add.
// (First written as commits 10ecb82, e06d31c, 36b0633; the pair table was then loaded by threads
// tid < 25 only, so blocks of 8 and 16 threads (tiles of 8 and 16) read 9 or 17 unset scores.)
// PAD (FORM 1 and 2 of bpmax_finish_eager): row strides chosen so that the closure's shared loads meet no (or fewer) bank conflicts, where
// B + 1 words for all three arrays gave about 2.75 wavefronts a load (B = 64: 2 on the column split, 3.5
// on the row split; counted in docs/bpmax-gpu-notes.md). With L threads per cell (32 / L cells a warp):
// the tile and the row-tile, (SR + 1) = L (mod 32): a cell's L threads on consecutive banks and the
// cells L banks apart, down the row and the column; the column-tile SJ = 32 / L (mod 32): its L rows
// 32 / L banks apart, the cells on consecutive banks.
template <int B, bool PAD>
struct EagerShape {
    static constexpr int PT = B * B / 16;                 // threads of the product: 4 x 4 cells each
    static constexpr int THREADS = PT > B ? PT : B;
    static constexpr int L = THREADS / B;                 // threads per cell in the closure
    static constexpr int KC = B < 32 ? B : 32;            // splits staged at a time
    static constexpr int SR = PAD ? B + 1 + ((L - 1 - (B + 1) % 32) % 32 + 32) % 32 : B + 1;   // tile, row-tile
    static constexpr int SJ = PAD ? B + 1 + ((32 / L - (B + 1) % 32) % 32 + 32) % 32 : B + 1;  // column-tile
    static constexpr int AS = B + 4;                      // words per staged row (16-byte aligned)
    static constexpr int UNION = 2 * KC * AS > B * (SR + SJ) ? 2 * KC * AS : B * (SR + SJ);
    static constexpr int TILE = ((B + 1) * SR + 3) & ~3;  // the tile and the row below: 16-byte multiple
    static constexpr int WORDS = TILE + UNION;            // and staging (uint4 stores) or (I, I), (J, J)
};

// (F, S2) words of 8 cells of band row i at absolute columns j .. j + 7 (j a multiple of 8): out[0 .. 7]
__device__ __forceinline__ void band_words(const Dims& g, const short* __restrict__ m, const short* __restrict__ s2,
                                           int i, int j, unsigned* out) {
    const uint4 f = band_vector(g, m, i, j), s = band_vector(g, s2, i, j);
    const unsigned fw[4] = {f.x, f.y, f.z, f.w}, sw[4] = {s.x, s.y, s.z, s.w};
#pragma unroll
    for (int h = 0; h < 4; ++h) {
        out[2 * h] = __byte_perm(fw[h], sw[h], 0x5410);
        out[2 * h + 1] = __byte_perm(fw[h], sw[h], 0x7632);
    }
}

// acc[r][c] = max over k2 in [k0, k1) of (S2, F)(IB + 4 tr + r, k2) + (F, S2)(k2 + 1, JB + 4 tc + c); the
// next chunk's 16-byte loads are issued before the current chunk's updates (in registers until stored)
template <int B, bool PAD>
__device__ __forceinline__ void eager_middle(const Dims& g, const short* __restrict__ mat, const short* __restrict__ S2,
                                             unsigned* As, unsigned* Bs, int IB, int JB, int k0, int k1,
                                             unsigned (&acc)[4][4]) {
    using S = EagerShape<B, PAD>;
    constexpr int AS = S::AS, KC = S::KC, T = S::THREADS;
    constexpr int XA = (KC / 8) * B, XB = KC * (B / 8), NA = (XA + T - 1) / T, NB = (XB + T - 1) / T;
    const int tid = threadIdx.x, tr = tid / (B / 4), tc = tid % (B / 4);
    k1 = min(k1, g.N);
    if (k0 >= k1) return;
    uint4 fa[NA], sa[NA], fb[NB], sb[NB];
    auto load = [&](int kc) {
#pragma unroll
        for (int n = 0; n < NA; ++n) {
            const int x = tid + n * T, row = x % B, v = x / B;
            if (x < XA) fa[n] = band_vector(g, mat, IB + row, kc + 8 * v), sa[n] = band_vector(g, S2, IB + row, kc + 8 * v);
        }
#pragma unroll
        for (int n = 0; n < NB; ++n) {
            const int x = tid + n * T, v = x % (B / 8), k = x / (B / 8);
            if (x < XB) fb[n] = band_vector(g, mat, kc + k + 1, JB + 8 * v), sb[n] = band_vector(g, S2, kc + k + 1, JB + 8 * v);
        }
    };
    load(k0);
    for (int kc = k0; kc < k1; kc += KC) {
#pragma unroll
        for (int n = 0; n < NA; ++n) {                       // A: transposed, halves swapped: (S2, F)
            const int x = tid + n * T, row = x % B, v = x / B;
            if (x >= XA) continue;
            const unsigned fw[4] = {fa[n].x, fa[n].y, fa[n].z, fa[n].w}, sw[4] = {sa[n].x, sa[n].y, sa[n].z, sa[n].w};
#pragma unroll
            for (int h = 0; h < 4; ++h) {
                As[(8 * v + 2 * h) * AS + row] = __byte_perm(sw[h], fw[h], 0x5410);
                As[(8 * v + 2 * h + 1) * AS + row] = __byte_perm(sw[h], fw[h], 0x7632);
            }
        }
#pragma unroll
        for (int n = 0; n < NB; ++n) {                       // B: rows k2 + 1 as they lie, (F, S2)
            const int x = tid + n * T, v = x % (B / 8), k = x / (B / 8);
            if (x >= XB) continue;
            put_pairs(Bs + k * AS + 8 * v, fb[n], sb[n]);
        }
        __syncthreads();
        if (kc + KC < k1) load(kc + KC);
        if (tid < S::PT) chunk_products<KC, AS>(As, Bs, tr, tc, acc);
        __syncthreads();
    }
}

__device__ __forceinline__ int both_max(unsigned w) { return max((int)(short)(w & 0xFFFF), (int)(short)(w >> 16)); }

__device__ __forceinline__ bool in_band(const Dims& g, int i, int j) {
    return i < g.N && j < g.N && j >= i && j - i < g.Wb;
}

template <int B, bool SELF, bool EAGER, int FORM>
__global__ void __launch_bounds__(EagerShape<B, (FORM >= 1)>::THREADS, 4)
bpmax_finish_eager(const code_t* __restrict__ rb, short* __restrict__ F, const short* __restrict__ S2, DIMS_ARGS,
                   const int first_mat, const int tiles, const int d, const int per_mat) {
    DIMS;
    constexpr bool PAD = FORM >= 1;
    using S = EagerShape<B, PAD>;
    constexpr int SR = S::SR, SJ = S::SJ, KC = S::KC, L = S::L;
    extern __shared__ __align__(16) unsigned char smem[];
    unsigned* Pc = reinterpret_cast<unsigned*>(smem);       // Pc[r * SR + c] = (F, S2)(IB + r, JB + c), r <= B
    short* Pf = reinterpret_cast<short*>(smem);              // its F halves: Pf[2 * (r * SR + c)]
    unsigned* U = Pc + S::TILE;
    unsigned* As = U;                                        // middle: As[k][r] = (S2, F)(IB + r, kc + k)
    unsigned* Bs = U + KC * S::AS;                           //         Bs[k][c] = (F, S2)(kc + k + 1, JB + c)
    unsigned* PdI = U;                                       // closure: (F, S2)(IB + r, IB + x)
    unsigned* PdJ = U + B * SR;                              //          (F, S2)(JB + y, JB + c), stride SJ
    const int q = blockIdx.x / per_mat;
    int b = blockIdx.x % per_mat, D = d;
    const bool closing = !EAGER || b < tiles;
    if (!closing) {                                          // an adding block: which tile of which diagonal
        b -= tiles;
        for (D = d + 1; b >= tiles + d - D; ++D) b -= tiles + d - D;
    }
    const int I = b, IB = I * B, JB = (I + D) * B;
    short* mat = F + (first_mat + q) * g.mat_stride;
    const int tid = threadIdx.x, tr = tid / (B / 4), tc = tid % (B / 4);

    unsigned acc[4][4];
#pragma unroll
    for (int r = 0; r < 4; ++r)
#pragma unroll
        for (int c = 0; c < 4; ++c) acc[r][c] = 0xC000C000u;
    if (!EAGER) {
        eager_middle<B, PAD>(g, mat, S2, As, Bs, IB, JB, IB + B, JB, acc);
    } else if (d >= 2) {
        const int K1 = I + d - 1, K2 = I + D - d + 1;
        eager_middle<B, PAD>(g, mat, S2, As, Bs, IB, JB, K1 * B, K1 * B + B, acc);
        if (K2 != K1) eager_middle<B, PAD>(g, mat, S2, As, Bs, IB, JB, K2 * B, K2 * B + B, acc);
    }
    if (!closing) {
        if (tid < S::PT)
#pragma unroll
            for (int r = 0; r < 4; ++r)
#pragma unroll
                for (int c = 0; c < 4; ++c) {
                    const int i = IB + tr * 4 + r, j = JB + tc * 4 + c;
                    if (!in_band(g, i, j)) continue;
                    const long long at = cell_at(g, i, j - i);
                    mat[at] = (short)max((int)mat[at], both_max(acc[r][c]));
                }
        return;
    }

    // the tile (the products' T, or 0 for S2) and the row below it, its row- and column-tiles; the codes
    // of its rows and columns, the pair scores and F(IB + r + 1, JB - 1) (pair operands of column 0)
    __shared__ int pt[25];
    __shared__ code_t cI[B], cJ[B];
    __shared__ short left[B];
    for (int x = tid; x < 25; x += S::THREADS) pt[x] = g.pairs[x];   // 8 or 16 threads for B = 8, 16
    for (int x = tid; x < B; x += S::THREADS) {
        cI[x] = IB + x < N ? rb[IB + x] : 4;
        cJ[x] = JB + x < N ? rb[JB + x] : 4;
        const int i = IB + x + 1, j = JB - 1;
        left[x] = d > 0 && in_band(g, i, j) ? mat[cell_at(g, i, j - i)] : (short)sentinel<short>();
    }
    for (int x = tid; x < (B + 1) * (B / 8); x += S::THREADS) {
        const int r = x / (B / 8), c = 8 * (x % (B / 8));
        unsigned w[8];
        band_words(g, mat, S2, IB + r, JB + c, w);
#pragma unroll
        for (int h = 0; h < 8; ++h) {
            if (SELF && r < B) {            // S2 starts at 0 (and what earlier launches added, EAGER)
                const int v = max(0, (int)(short)(w[h] & 0xFFFF));
                w[h] = in_band(g, IB + r, JB + c + h) ? pack2(v, v) : 0xC000C000u;
            }
            Pc[r * SR + c + h] = w[h];
        }
        if (d > 0 && r < B) {
            band_words(g, mat, S2, IB + r, IB + c, w);
#pragma unroll
            for (int h = 0; h < 8; ++h) PdI[r * SR + c + h] = w[h];
            band_words(g, mat, S2, JB + r, JB + c, w);
#pragma unroll
            for (int h = 0; h < 8; ++h) PdJ[r * SJ + c + h] = w[h];
        }
    }
    __syncthreads();
    if (tid < S::PT && d > 1) {
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                const int at = (tr * 4 + r) * SR + tc * 4 + c;
                const int v = max((int)Pf[2 * at], both_max(acc[r][c]));
                Pf[2 * at] = (short)v;
                if (SELF) Pf[2 * at + 1] = (short)v;
            }
    }
    __syncthreads();

    // the closure: d = 0 diagonal by diagonal (e = c - r), else anti-diagonal by anti-diagonal (s = c - r)
    const int cell = tid / L, h = tid % L;
    if (FORM == 2 && d > 0) {
        // the L threads of `cell` own row r = cell at every step (active for s in [-r, B - 1 - r]), so the
        // row-tile operands of their splits x = r + h + L t, PdI(r, x), stay in registers: one shared load
        // a split of the row range [r, B), where the other forms load both operands
        const int r = cell, i = IB + r;
        unsigned row[B / L];
#pragma unroll
        for (int t = 0; t < B / L; ++t) {
            const int x = r + h + L * t;
            row[t] = x < B ? swap_halves(PdI[r * SR + x]) : 0xC000C000u;
        }
        const unsigned* below = Pc + (r + h + 1) * SR;     // + L t SR + c: (F, S2)(IB + x + 1, JB + c)
        for (int s = 1 - B; s < B; ++s) {
            const int c = r + s, j = JB + c;
            const bool active = r < B && c >= 0 && c < B && in_band(g, i, j);
            unsigned both = 0xC000C000u;
            if (active) {
#pragma unroll
                for (int t = 0; t < B / L; ++t)
                    if (r + h + L * t < B) both = __viaddmax_s16x2(row[t], below[L * t * SR + c], both);
#pragma unroll 4
                for (int y = h; y < c; y += L) both = __viaddmax_s16x2(swap_halves(Pc[r * SR + y]), PdJ[(y + 1) * SJ + c], both);
            }
#pragma unroll
            for (int o = 1; o < L; o *= 2) both = __vmaxs2(both, __shfl_xor_sync(0xFFFFFFFFu, both, o));
            if (active && h == 0) {
                int v = max((int)Pf[2 * (r * SR + c)], both_max(both));
                if (j - i >= 4)
                    v = max(v, pt[cI[r] * 5 + cJ[c]] + (c >= 1 ? (int)Pf[2 * ((r + 1) * SR + c - 1)] : (int)left[r]));
                Pf[2 * (r * SR + c)] = (short)v;
                if (SELF) Pf[2 * (r * SR + c) + 1] = (short)v;
            }
            __syncthreads();
        }
    } else
    for (int s = d == 0 ? 1 : 1 - B; s < B; ++s) {
        const int r = (s < 0 ? -s : 0) + cell, c = r + s, i = IB + r, j = JB + c;
        const bool active = r < B && c < B && in_band(g, i, j);
        unsigned both = 0xC000C000u;
        if (active) {
            if (d == 0) {
#pragma unroll 4
                for (int x = r + h; x < c; x += L) both = __viaddmax_s16x2(swap_halves(Pc[r * SR + x]), Pc[(x + 1) * SR + c], both);
            } else {
#pragma unroll 4
                for (int x = r + h; x < B; x += L) both = __viaddmax_s16x2(swap_halves(PdI[r * SR + x]), Pc[(x + 1) * SR + c], both);
#pragma unroll 4
                for (int y = h; y < c; y += L) both = __viaddmax_s16x2(swap_halves(Pc[r * SR + y]), PdJ[(y + 1) * SJ + c], both);
            }
        }
#pragma unroll
        for (int o = 1; o < L; o *= 2) both = __vmaxs2(both, __shfl_xor_sync(0xFFFFFFFFu, both, o));
        if (active && h == 0) {
            int v = max((int)Pf[2 * (r * SR + c)], both_max(both));
            if (j - i >= 4)
                v = max(v, pt[cI[r] * 5 + cJ[c]] + (c >= 1 ? (int)Pf[2 * ((r + 1) * SR + c - 1)] : (int)left[r]));
            Pf[2 * (r * SR + c)] = (short)v;
            if (SELF) Pf[2 * (r * SR + c) + 1] = (short)v;
        }
        __syncthreads();
    }
    for (int x = tid; x < B * B; x += S::THREADS) {
        const int r = x / B, c = x % B, i = IB + r, j = JB + c;
        if (in_band(g, i, j)) mat[cell_at(g, i, j - i)] = Pf[2 * (r * SR + c)];
    }
}

// ---------------------------------------------------------------------------------------------------
// finish, one diagonal e of every matrix of the level in global memory: the path for bands too wide
// for a segment in shared memory (long targets without a window). The level's matrices are copied to a
// diagonal-major buffer first, Dg[(q Wb + e) N + i2] = F(i2, i2 + e) of matrix q, and S2 is kept so too:
// then both the row F(i2, i2 + k) and the column F(i2 + k + 1, i2 + e) of a split are contiguous across
// a warp's threads (consecutive i2). (In band rows the column read a row per thread: 23 x 2,000 nt
// without a window took 14 s.) A thread per cell (i2, i2 + e); SELF: the matrix is S2d itself.
template <typename T, bool SELF>
__global__ void __launch_bounds__(256)
bpmax_finish_diagonal(const code_t* __restrict__ rb, T* __restrict__ Dg, const T* __restrict__ S2d, DIMS_ARGS,
                      const int mats, const int e) {
    // a block is 32 consecutive cells (the lanes: coalesced reads) x 8 groups of splits k (threadIdx.y):
    // a diagonal has few cells for the reads in flight that hide the latency of each split's loads
    DIMS;
    __shared__ int part[8][33];
    const int lane = threadIdx.x, group = threadIdx.y;
    const long long x = (long long)blockIdx.x * 32 + lane;
    const int q = (int)(x / N), i2 = (int)(x % N);
    const bool active = x < (long long)mats * N && i2 + e < N;
    T* D = Dg + (long long)q * Wb * N;
    int v = -(1 << 30);
    if (active) {
        for (int k = group; k < e; k += 8) {
            const long long row = (long long)k * N + i2, column = (long long)(e - k - 1) * N + i2 + k + 1;
            if (SELF) {
                v = max(v, (int)D[row] + (int)D[column]);
            } else {
                v = max(v, (int)S2d[row] + (int)D[column]);   // R1
                v = max(v, (int)D[row] + (int)S2d[column]);   // R2
            }
        }
    }
    part[group][lane] = v;
    __syncthreads();
    if (group != 0 || !active) return;
    v = SELF ? 0 : (int)D[(long long)e * N + i2];
#pragma unroll
    for (int y = 0; y < 8; ++y) v = max(v, part[y][lane]);
    if (e >= 4) v = max(v, pair_score(g, rb[i2], rb[i2 + e]) + (int)D[(long long)(e - 2) * N + i2 + 1]);
    D[(long long)e * N + i2] = (T)v;
}

// band rows <-> the diagonal-major buffer of the global-memory finish, for `mats` matrices from first_mat
template <typename T, bool TO_DIAGONALS>
__global__ void bpmax_diagonals(T* __restrict__ F, T* __restrict__ Dg, DIMS_ARGS, const int first_mat, const int mats) {
    DIMS;
    const long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= (long long)mats * Wb * N) return;
    const int i2 = (int)(x % N), e = (int)((x / N) % Wb), q = (int)(x / ((long long)N * Wb));
    if (i2 + e >= N) return;
    T* band = F + (first_mat + q) * g.mat_stride + cell_at(g, i2, e);
    T* diagonal = Dg + ((long long)q * Wb + e) * N + i2;
    if (TO_DIAGONALS) *diagonal = *band; else *band = *diagonal;
}

// ---------------------------------------------------------------------------------------------------
// gather: out[w * N + i2] = band(mat first_mat + w)(i2, span[i2] - 1) for i2 < N, where span[i2] is the
// window length of the target that row i2 belongs to (0: no window starts there; -1 is written).
template <typename T>
__global__ void bpmax_gather(const T* __restrict__ F, DIMS_ARGS, const int first_mat, const int mats,
                             const int* __restrict__ span, int* __restrict__ out) {
    DIMS;
    const long long x = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (x >= (long long)mats * g.N) return;
    const int w = (int)(x / g.N), i2 = (int)(x % g.N);
    const int L = span[i2];
    out[x] = L > 0 ? (int)F[(first_mat + w) * g.mat_stride + cell_at(g, i2, L - 1)] : -1;
}
