// bioaccel's own GPU Nussinov fill (variant "fast", the default of --backend gpu).
//
// The half-open table V (see nussinov_common.cuh) is stored as T x T tiles of the upper triangle,
// each tile contiguous (TiledLayout): only the cells the recurrence defines are allocated. Tiles are
// computed one tile diagonal d = J - I at a time, in two launches:
//   bulk:   V(I,J) = max over I < K < J of V(I,K) (x) V(K,J), a max-plus product of final tiles.
//           Register-tiled (8 x 8 cells per thread, operands from shared memory); with int16 scores
//           two cells share a 32-bit register and one DPX instruction (__viaddmax_s16x2, Hopper's
//           VIADDMNMX.S16x2) does two max-plus updates. The K range of a tile is split over several
//           blocks when the diagonal has few tiles (the last diagonals hold few tiles but most of the
//           work); partial maxima meet in an int32 scratch tile through atomicMax.
//   finish: one block per tile adds the pair term and the splits inside tiles I and J, wavefront by
//           wavefront, in shared memory, and writes the final tile.
#include "nussinov_common.cuh"

#define TILE 128
#define KC 32                          // k values per shared-memory stage of the bulk product
#define BULK_THREADS 256               // 16 x 16 threads, each 8 x 8 cells

__device__ __forceinline__ unsigned dup16(int v) {
    unsigned u = (unsigned short)v;
    return u | (u << 16);
}

// ---- bulk product -------------------------------------------------------------------------------

// int16 cells: accumulators hold two cells per register.
struct Int16x2 {
    typedef short score_t;
    static constexpr int PER_WORD = 2;
    typedef unsigned word_t;
    __device__ static __forceinline__ word_t a_word(short a) { return dup16(a); }
    __device__ static __forceinline__ word_t update(word_t acc, word_t a, word_t b) {
        return __viaddmax_s16x2(a, b, acc);
    }
    __device__ static __forceinline__ int lane(word_t w, int h) { return h ? (short)(w >> 16) : (short)(w & 0xffff); }
};

// int32 cells (sequences of 65,535 nt and more, or large weights): one cell per register.
struct Int32x1 {
    typedef int score_t;
    static constexpr int PER_WORD = 1;
    typedef int word_t;
    __device__ static __forceinline__ word_t a_word(int a) { return a; }
    __device__ static __forceinline__ word_t update(word_t acc, word_t a, word_t b) {
        return __viaddmax_s32(a, b, acc);
    }
    __device__ static __forceinline__ int lane(word_t w, int) { return w; }
};

// grid: x = tile I on diagonal d (J = I + d), y = split of the K range; `chunk` tiles K per split.
template <typename P>
__global__ void __launch_bounds__(BULK_THREADS)
fast_bulk(const typename P::score_t* __restrict__ V, int* __restrict__ scratch, int nt, int d, int chunk) {
    typedef typename P::score_t score_t;
    typedef typename P::word_t word_t;
    constexpr int WPR = TILE / P::PER_WORD;          // words of B per k row
    constexpr int WPT = 8 / P::PER_WORD;             // words of B per thread per k row
    __shared__ __align__(16) word_t As[KC][TILE];    // A transposed: As[k][r] = V(I,K)[r][k] (duplicated for int16)
    __shared__ __align__(16) word_t Bs[KC][WPR];     // B rows: Bs[k][..] = V(K,J)[k][..]

    TiledLayout<TILE> L{nt};
    const int I = blockIdx.x, J = I + d;
    const int K0 = I + 1 + blockIdx.y * chunk;
    const int K1 = min(J, K0 + chunk);
    const int tx = threadIdx.x % 16, ty = threadIdx.x / 16;
    const int tid = threadIdx.x;

    word_t acc[8][WPT];
#pragma unroll
    for (int a = 0; a < 8; ++a)
#pragma unroll
        for (int b = 0; b < WPT; ++b) acc[a][b] = 0;     // every V >= 0, so 0 is a neutral start

    for (int K = K0; K < K1; ++K) {
        const score_t* A = V + L.tile(I, K);
        const score_t* B = V + L.tile(K, J);
        for (int k0 = 0; k0 < TILE; k0 += KC) {
            // A: each thread reads 16 bytes along k of one row; lane <-> row r, so the transposed
            // stores As[k][r] of a warp hit 32 different banks.
            constexpr int PER_VEC = 16 / sizeof(score_t);
            for (int e = tid; e < TILE * (KC / PER_VEC); e += BULK_THREADS) {
                int r = e % TILE, kv = (e / TILE) * PER_VEC;
                uint4 raw = *reinterpret_cast<const uint4*>(A + r * TILE + k0 + kv);
                const score_t* vals = reinterpret_cast<const score_t*>(&raw);
#pragma unroll
                for (int x = 0; x < PER_VEC; ++x) As[kv + x][r] = P::a_word(vals[x]);
            }
            // B: rows are copied as they are; for int16 two neighbouring cells already form the
            // (low = even column, high = odd column) pair a DPX word holds.
            const uint4* Bsrc = reinterpret_cast<const uint4*>(B + k0 * TILE);
            uint4* Bdst = reinterpret_cast<uint4*>(&Bs[0][0]);
            for (int e = tid; e < KC * TILE * (int)sizeof(score_t) / 16; e += BULK_THREADS) Bdst[e] = Bsrc[e];
            __syncthreads();
#pragma unroll 4
            for (int k = 0; k < KC; ++k) {
                word_t a[8], b[WPT];
#pragma unroll
                for (int x = 0; x < 8; ++x) a[x] = As[k][ty * 8 + x];
#pragma unroll
                for (int y = 0; y < WPT; ++y) b[y] = Bs[k][tx * WPT + y];
#pragma unroll
                for (int x = 0; x < 8; ++x)
#pragma unroll
                    for (int y = 0; y < WPT; ++y) acc[x][y] = P::update(acc[x][y], a[x], b[y]);
            }
            __syncthreads();
        }
    }
    int* out = scratch + (long long)I * TILE * TILE;
    const bool alone = gridDim.y == 1;
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < WPT; ++y)
#pragma unroll
            for (int h = 0; h < P::PER_WORD; ++h) {
                int r = ty * 8 + x, q = tx * 8 + y * P::PER_WORD + h;
                int v = P::lane(acc[x][y], h);
                if (alone) out[r * TILE + q] = v;
                else atomicMax(out + r * TILE + q, v);
            }
}

// ---- in-tile finish -----------------------------------------------------------------------------

// Shared memory (dynamic): X = tile (I, J) being finished, A = tile (I, I), B = tile (J, J), each
// TILE x (TILE + 1) cells of score_t (the +1 pads rows across banks).
template <typename score_t>
__global__ void __launch_bounds__(2 * TILE)
fast_finish(score_t* __restrict__ V, int* __restrict__ scratch, const code_t* __restrict__ s, const PairModel* __restrict__ pm,
            int n, int nt, int d) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    constexpr int LD = TILE + 1;
    score_t* X = reinterpret_cast<score_t*>(smem_raw);
    score_t* A = X + TILE * LD;
    score_t* B = A + TILE * LD;
    __shared__ int part[TILE];

    TiledLayout<TILE> L{nt};
    const int N = n + 1;
    const int I = blockIdx.x, J = I + d;
    const int tid = threadIdx.x;
    const bool diagonal = d == 0;
    int* acc = scratch + (long long)I * TILE * TILE;

    for (int e = tid; e < TILE * TILE; e += 2 * TILE) {
        int r = e / TILE, q = e % TILE;
        X[r * LD + q] = diagonal ? 0 : (score_t)acc[e];
        if (!diagonal) {
            acc[e] = 0;                                // ready for the next diagonal
            A[r * LD + q] = V[L.tile(I, I) + e];
            B[r * LD + q] = V[L.tile(J, J) + e];
        }
    }
    __syncthreads();

    const int r = tid % TILE, half = tid / TILE;
    const int i = I * TILE + r;
    const int first = diagonal ? 1 : -(TILE - 1);
    for (int diff = first; diff < TILE; ++diff) {
        const int q = r + diff, c = J * TILE + q;
        const bool active = q >= 0 && q < TILE && c < N && i < N && c > i;
        int best = 0;
        if (active) {
            if (half == 0) {
                best = X[r * LD + q];
                int w = pair_weight(pm, s, i, c);
                if (w > 0) {
                    int inner;
                    if (c - i <= 3) inner = 0;
                    else if (r + 1 < TILE && q >= 1) inner = X[(r + 1) * LD + q - 1];
                    else inner = V[L.at(i + 1, c - 1)];
                    best = max(best, inner + w);
                }
                if (diagonal) {
                    for (int m = r + 1; m < q; ++m) best = max(best, X[r * LD + m] + X[m * LD + q]);
                } else {
                    for (int m = r + 1; m < TILE; ++m) best = max(best, A[r * LD + m] + X[m * LD + q]);
                }
            } else if (!diagonal) {
                for (int m = 0; m < q; ++m) best = max(best, X[r * LD + m] + B[m * LD + q]);
            }
        }
        if (half == 1) part[r] = best;
        __syncthreads();
        if (half == 0 && active) X[r * LD + q] = (score_t)max(best, part[r]);
        __syncthreads();
    }

    score_t* out = V + L.tile(I, J);
    for (int e = tid; e < TILE * TILE; e += 2 * TILE) {
        int rr = e / TILE, q = e % TILE;
        int ii = I * TILE + rr, c = J * TILE + q;
        if (ii < N && c < N && c > ii) out[e] = X[rr * LD + q];
    }
}

template __global__ void fast_bulk<Int16x2>(const short*, int*, int, int, int);
template __global__ void fast_bulk<Int32x1>(const int*, int*, int, int, int);
template __global__ void fast_finish<short>(short*, int*, const code_t*, const PairModel*, int, int, int);
template __global__ void fast_finish<int>(int*, int*, const code_t*, const PairModel*, int, int, int);
