// Banded multiple max-plus products (seed 003, Gildemaster 2021, chapter 5), tuned for Hopper DPX.
//
// One launch computes, for every output g of a batch and every cell of its band,
//     C_g[i, j] = max(C_g[i, j], max_k max_{i <= m < j} A_{g,k}[i, m] + B_{g,k}[m + 1, j])
// over N x N matrices that are upper-banded with band W (entries 0 <= j - i < W; W = N: triangular).
//
// Layout (seed 5.1, 5.3.1): every matrix is stored shifted one column to the right, M'(i, j + 1) =
// M(i, j), as an (N+1) x (N+1) matrix whose band is 1 <= j' - i <= W. The cells outside the band (the
// diagonal j' = i included) hold the max-plus identity NEG_INF, so the shifted product is the plain
// dot product of a row and a column, C'(i, j') = max_m A'(i, m) + B'(m, j'), and every thread of a
// warp runs the same loop. The matrix is cut into T x T tiles; only the tiles that meet the band are
// stored, tile after tile (row-major inside a tile), tile rows one after the other: a jagged array.
// Tile row I holds tiles I .. I + D (D = tile diagonals past the main one), fewer in the last D rows.
//
// Grid (seed 5.4, 5.5): one 1-D grid of exactly G x (tiles per matrix) blocks. A block finds its tile
// (I, J) from its linear index with the quadratic map (a parallelogram of full rows, then a triangle),
// and multiplies tile row I of A by tile column J of B only over the k that can meet the band.
//
// NEG_INF is chosen so that NEG_INF + NEG_INF does not wrap and NEG_INF + (largest finite) is below
// twice the smallest finite value: a sum with a padding operand never beats a real one. Results with
// no finite term are written back as NEG_INF exactly (the clamp in the epilogue).

#include "dpx.cuh"                 // runtime/kernels: DPX lanes, cp.async copies

// int32 cells: one cell per 32-bit word, __viaddmax_s32 (SASS VIADDMNMX).
struct Int32Cells : DpxS32 {
    typedef int cell_t;
    static constexpr int NEG_INF = -(1 << 30);
    static constexpr int FLOOR = -(1 << 29);         // -2 x largest finite magnitude (2^28)
    __device__ static __forceinline__ word_t fill() { return NEG_INF; }
};

// int16 cells: two adjacent columns per 32-bit word, __viaddmax_s16x2 (SASS VIADDMNMX.S16x2).
// The A operand is the same cell in both lanes, made from a stored pair with __byte_perm.
struct Int16PairCells : DpxS16x2 {
    typedef short cell_t;
    static constexpr int NEG_INF = -(1 << 14);
    static constexpr int FLOOR = -2 * 5460;          // -2 x largest finite magnitude (5460 < 2^14 / 3)
    __device__ static __forceinline__ word_t fill() { return 0xC000C000u; }   // NEG_INF in both lanes
};

// The jagged tile layout of one matrix: nb tiles per side, D + 1 tiles in a full tile row.
struct BandTiles {
    int nb, D;
    __device__ __forceinline__ int full_rows() const { return nb - (D + 1); }   // rows with D + 1 tiles
    // first tile of row r of the closing triangle (rows of D+1, D, ..., 1 tiles)
    __device__ __forceinline__ long long triangle_start(long long r) const { return r * (D + 1) - r * (r - 1) / 2; }
    __device__ __forceinline__ long long index(int I, int J) const {
        if (I < full_rows()) return (long long)I * (D + 1) + (J - I);
        return (long long)full_rows() * (D + 1) + triangle_start(I - full_rows()) + (J - I);
    }
    // The quadratic map of seed 5.5: linear tile index -> (I, J).
    __device__ __forceinline__ void coordinates(long long t, int& I, int& J) const {
        const long long parallelogram = (long long)full_rows() * (D + 1);
        if (t < parallelogram) {
            I = (int)(t / (D + 1));
            J = I + (int)(t % (D + 1));
            return;
        }
        const long long u = t - parallelogram;
        const double m2 = 2.0 * (D + 1) + 1.0;     // row r starts at r (D+1) - r (r-1) / 2: solve for r
        long long r = (long long)floor((m2 - sqrt(m2 * m2 - 8.0 * (double)u)) / 2.0);
        if (r < 0) r = 0;
        while (triangle_start(r + 1) <= u) ++r;    // the square root is exact to a row; settle the edge
        while (triangle_start(r) > u) --r;
        I = full_rows() + (int)r;
        J = I + (int)(u - triangle_start(r));
    }
};

// What one block of a product launch computes: output g, tile (I, J) at cells (i0, j0), and the chunks
// of KS reduction indices m that can give a finite term: A'(i, m) needs 1 <= m - i <= W, B'(m, j')
// 1 <= j' - m <= W (shifted columns).
struct TileTask {
    long long g, t;            // output, and the tile's place in storage order
    int I, J, i0, j0, c0, chunks;
    long long matrix_cells;
};

template <int T, int KS>
__device__ __forceinline__ TileTask tile_task(int nb, int D, int tiles, int band, int n) {
    TileTask task;
    const BandTiles L{nb, D};
    task.g = blockIdx.x / tiles;
    task.t = blockIdx.x - task.g * tiles;
    L.coordinates(task.t, task.I, task.J);
    task.i0 = task.I * T;
    task.j0 = task.J * T;
    const int klo = max(task.i0 + 1, task.j0 - band);
    const int khi = min(min(task.j0 + T - 2, task.i0 + T - 1 + band), n - 1);
    task.c0 = klo / KS;
    task.chunks = khi >= klo ? khi / KS - task.c0 + 1 : 0;
    task.matrix_cells = (long long)tiles * T * T;
    return task;
}

// A thread's accumulator words, every lane at the empty max (P::fill)
template <typename P, int RM, int WPT>
__device__ __forceinline__ void fill_words(typename P::word_t (&acc)[RM][WPT]) {
#pragma unroll
    for (int x = 0; x < RM; ++x)
#pragma unroll
        for (int y = 0; y < WPT; ++y) acc[x][y] = P::fill();
}

// Epilogue, once per cell and launch: only band cells are written (the padding stays NEG_INF for the
// next product that reads this matrix); a result with no finite term becomes NEG_INF exactly. A
// thread's rows are row0 + ROW_STEP x (ROW_STEP = 1: contiguous rows), its columns col0 onwards.
template <typename P, int T, int RM, int WPT, int ROW_STEP>
__device__ __forceinline__ void store_band_tile(typename P::cell_t* __restrict__ Ct,
                                                const typename P::word_t (&acc)[RM][WPT], int col0, int row0,
                                                int i0, int j0, int n, int band, int accumulate) {
    typedef typename P::cell_t cell_t;
#pragma unroll
    for (int x = 0; x < RM; ++x)
#pragma unroll
        for (int y = 0; y < WPT; ++y)
#pragma unroll
            for (int h = 0; h < P::PER_WORD; ++h) {
                const int r = row0 + ROW_STEP * x, q = col0 + y * P::PER_WORD + h;
                const int dist = (j0 + q) - (i0 + r);
                if (dist < 1 || dist > band || j0 + q >= n) continue;
                int v = P::lane(acc[x][y], h);
                if (accumulate) v = max(v, (int)Ct[r * T + q]);
                Ct[r * T + q] = (cell_t)(v < P::FLOOR ? P::NEG_INF : v);
            }
}

// Block: (T / RN) x (T / RM) threads, each RM rows x RN columns of the T x T output tile. A thread's
// rows are ty, ty + T/RM, ... (interleaved, so a warp's rows fall in different banks); its columns
// are contiguous (16-byte shared-memory reads of B). K pairs and the k-chunks of each run as one
// sequence of stages, KS values of k each, double-buffered through cp.async.
template <typename P, int T, int RM, int RN, int KS>
__global__ void __launch_bounds__((T / RM) * (T / RN))
banded_maxplus(const typename P::cell_t* __restrict__ A, const typename P::cell_t* __restrict__ B,
               typename P::cell_t* __restrict__ C, const int* __restrict__ a_index,
               const int* __restrict__ b_index, const int* __restrict__ c_index, int K, int n, int band,
               int nb, int D, int tiles, int accumulate) {
    typedef typename P::cell_t cell_t;
    typedef typename P::word_t word_t;
    constexpr int SX = T / RN, SY = T / RM, THREADS = SX * SY;
    constexpr int SZ = sizeof(cell_t);
    constexpr int VEC = 16 / SZ;                     // cells per 16-byte copy
    constexpr int ALD = KS + VEC;                    // A row stride in shared memory, padded by 16 bytes
    constexpr int WPT = RN / P::PER_WORD;            // accumulator words per row per thread
    constexpr long long TILE_CELLS = (long long)T * T;
    static_assert(T % KS == 0 && (KS * SZ) % 16 == 0 && T % RM == 0 && T % RN == 0, "tile shape");
    static_assert(WPT % (P::PER_WORD == 2 ? 2 : 4) == 0, "a thread's columns fill whole 8- or 16-byte reads");

    __shared__ __align__(16) cell_t As[2][T][ALD];
    __shared__ __align__(16) cell_t Bs[2][KS][T];

    const BandTiles L{nb, D};
    const TileTask task = tile_task<T, KS>(nb, D, tiles, band, n);
    const long long g = task.g, t = task.t, matrix_cells = task.matrix_cells;
    const int I = task.I, J = task.J, i0 = task.i0, j0 = task.j0, c0 = task.c0, chunks = task.chunks;

    const int tid = threadIdx.x, tx = tid % SX, ty = tid / SX;
    auto load_stage = [&](int stage, int buf) {
        const int pair = stage / chunks, kc = (c0 + stage % chunks) * KS;
        const int Kt = kc / T, k0 = kc % T;
        const cell_t* At = A + a_index[g * K + pair] * matrix_cells + L.index(I, Kt) * TILE_CELLS;
        const cell_t* Bt = B + b_index[g * K + pair] * matrix_cells + L.index(Kt, J) * TILE_CELLS;
        for (int e = tid; e < T * (KS / VEC); e += THREADS) {
            const int r = e / (KS / VEC), v = (e % (KS / VEC)) * VEC;
            cp_async16(&As[buf][r][v], At + r * T + k0 + v);
        }
        for (int e = tid; e < KS * (T / VEC); e += THREADS) {
            const int k = e / (T / VEC), v = (e % (T / VEC)) * VEC;
            cp_async16(&Bs[buf][k][v], Bt + (k0 + k) * T + v);
        }
        cp_async_commit();
    };

    word_t acc[RM][WPT];
    fill_words<P>(acc);

    const int stages = K * chunks;
    if (stages > 0) load_stage(0, 0);
    for (int stage = 0; stage < stages; ++stage) {
        const int buf = stage & 1;
        if (stage + 1 < stages) {
            load_stage(stage + 1, buf ^ 1);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
        if constexpr (P::PER_WORD == 2) {
#pragma unroll 4
            for (int k = 0; k < KS; k += 2) {
                unsigned b0[WPT], b1[WPT];
                if constexpr (WPT % 4 == 0) {
#pragma unroll
                    for (int y = 0; y < WPT; y += 4) {   // four words (eight columns) per 16-byte read
                        const uint4 v0 = *reinterpret_cast<const uint4*>(&Bs[buf][k][tx * RN + 2 * y]);
                        const uint4 v1 = *reinterpret_cast<const uint4*>(&Bs[buf][k + 1][tx * RN + 2 * y]);
                        b0[y] = v0.x, b0[y + 1] = v0.y, b0[y + 2] = v0.z, b0[y + 3] = v0.w;
                        b1[y] = v1.x, b1[y + 1] = v1.y, b1[y + 2] = v1.z, b1[y + 3] = v1.w;
                    }
                } else {
#pragma unroll
                    for (int y = 0; y < WPT; y += 2) {   // two words (four columns) per 8-byte read
                        const uint2 v0 = *reinterpret_cast<const uint2*>(&Bs[buf][k][tx * RN + 2 * y]);
                        const uint2 v1 = *reinterpret_cast<const uint2*>(&Bs[buf][k + 1][tx * RN + 2 * y]);
                        b0[y] = v0.x, b0[y + 1] = v0.y, b1[y] = v1.x, b1[y + 1] = v1.y;
                    }
                }
#pragma unroll
                for (int x = 0; x < RM; ++x) {
                    const unsigned w = *reinterpret_cast<const unsigned*>(&As[buf][ty + SY * x][k]);
                    const unsigned lo = __byte_perm(w, 0, 0x1010), hi = __byte_perm(w, 0, 0x3232);
#pragma unroll
                    for (int y = 0; y < WPT; ++y) {
                        acc[x][y] = P::update(acc[x][y], lo, b0[y]);
                        acc[x][y] = P::update(acc[x][y], hi, b1[y]);
                    }
                }
            }
        } else {
#pragma unroll 4
            for (int k = 0; k < KS; ++k) {
                int b[WPT];
#pragma unroll
                for (int y = 0; y < WPT; y += 4) {   // four columns per 16-byte read
                    const int4 v = *reinterpret_cast<const int4*>(&Bs[buf][k][tx * RN + y]);
                    b[y] = v.x, b[y + 1] = v.y, b[y + 2] = v.z, b[y + 3] = v.w;
                }
#pragma unroll
                for (int x = 0; x < RM; ++x) {
                    const int a = As[buf][ty + SY * x][k];
#pragma unroll
                    for (int y = 0; y < WPT; ++y) acc[x][y] = P::update(acc[x][y], a, b[y]);
                }
            }
        }
        __syncthreads();
    }

    store_band_tile<P, T, RM, WPT, SY>(C + c_index[g] * matrix_cells + t * TILE_CELLS, acc, tx * RN, ty, i0, j0,
                                       n, band, accumulate);
}

// int16 with A duplicated while staged: the A chunk goes global -> registers -> shared memory as one
// word per (k, row) holding the cell in both lanes, so the inner loop has no __byte_perm (the kernel
// above spends one per DPX update at 4 x 4 cells a thread: 56 PRMT beside 64 VIADDMNMX in its SASS).
// A thread's rows are contiguous here (ty * RM ..), read four at a time from the [k][row] layout.
// B still streams through cp.async; A's global loads for the next stage are in flight during compute.
template <typename P, int T, int RM, int RN, int KS>
__global__ void __launch_bounds__((T / RM) * (T / RN))
banded_maxplus_dup(const typename P::cell_t* __restrict__ A, const typename P::cell_t* __restrict__ B,
                   typename P::cell_t* __restrict__ C, const int* __restrict__ a_index,
                   const int* __restrict__ b_index, const int* __restrict__ c_index, int K, int n, int band,
                   int nb, int D, int tiles, int accumulate) {
    typedef typename P::cell_t cell_t;
    typedef typename P::word_t word_t;
    static_assert(P::PER_WORD == 2, "int16 cells only");
    constexpr int SX = T / RN, SY = T / RM, THREADS = SX * SY;
    constexpr int WPT = RN / 2;
    constexpr int ADL = T + 4;                       // words per k row of the duplicated A (16-byte rows)
    constexpr int AV = T * KS / 8 / THREADS;         // 16-byte A loads per thread per stage
    constexpr long long TILE_CELLS = (long long)T * T;
    static_assert(T * KS / 8 % THREADS == 0 && RM % 4 == 0 && WPT % 2 == 0 && T % KS == 0, "tile shape");

    __shared__ __align__(16) word_t Ad[2][KS][ADL];
    __shared__ __align__(16) cell_t Bs[2][KS][T];

    const BandTiles L{nb, D};
    const TileTask task = tile_task<T, KS>(nb, D, tiles, band, n);
    const long long g = task.g, t = task.t, matrix_cells = task.matrix_cells;
    const int I = task.I, J = task.J, i0 = task.i0, j0 = task.j0, c0 = task.c0, chunks = task.chunks;
    const int tid = threadIdx.x, tx = tid % SX, ty = tid / SX;

    uint4 areg[AV];
    auto load_stage = [&](int stage, int buf) {      // A into registers, B into shared memory (async)
        const int pair = stage / chunks, kc = (c0 + stage % chunks) * KS;
        const int Kt = kc / T, k0 = kc % T;
        const cell_t* At = A + a_index[g * K + pair] * matrix_cells + L.index(I, Kt) * TILE_CELLS;
        const cell_t* Bt = B + b_index[g * K + pair] * matrix_cells + L.index(Kt, J) * TILE_CELLS;
#pragma unroll
        for (int v = 0; v < AV; ++v) {
            const int e = tid + v * THREADS, r = e % T, c8 = (e / T) * 8;
            areg[v] = *reinterpret_cast<const uint4*>(At + r * T + k0 + c8);
        }
        for (int e = tid; e < KS * (T / 8); e += THREADS) {
            const int k = e / (T / 8), v = (e % (T / 8)) * 8;
            cp_async16(&Bs[buf][k][v], Bt + (k0 + k) * T + v);
        }
        cp_async_commit();
    };
    auto store_a = [&](int buf) {                    // consecutive threads, consecutive rows: no conflicts
#pragma unroll
        for (int v = 0; v < AV; ++v) {
            const int e = tid + v * THREADS, r = e % T, c8 = (e / T) * 8;
            const unsigned w[4] = {areg[v].x, areg[v].y, areg[v].z, areg[v].w};
#pragma unroll
            for (int u = 0; u < 4; ++u) {
                Ad[buf][c8 + 2 * u][r] = __byte_perm(w[u], 0, 0x1010);
                Ad[buf][c8 + 2 * u + 1][r] = __byte_perm(w[u], 0, 0x3232);
            }
        }
    };

    word_t acc[RM][WPT];
    fill_words<P>(acc);

    const int stages = K * chunks;
    if (stages > 0) {
        load_stage(0, 0);
        store_a(0);
    }
    for (int stage = 0; stage < stages; ++stage) {
        const int buf = stage & 1;
        const bool next = stage + 1 < stages;
        if (next) {
            load_stage(stage + 1, buf ^ 1);
            cp_async_wait<1>();
        } else {
            cp_async_wait<0>();
        }
        __syncthreads();
#pragma unroll 4
        for (int k = 0; k < KS; ++k) {
            unsigned b[WPT];
#pragma unroll
            for (int y = 0; y < WPT; y += 2) {
                const uint2 v = *reinterpret_cast<const uint2*>(&Bs[buf][k][tx * RN + 2 * y]);
                b[y] = v.x, b[y + 1] = v.y;
            }
#pragma unroll
            for (int x = 0; x < RM; x += 4) {
                const uint4 a4 = *reinterpret_cast<const uint4*>(&Ad[buf][k][ty * RM + x]);
                const unsigned a[4] = {a4.x, a4.y, a4.z, a4.w};
#pragma unroll
                for (int u = 0; u < 4; ++u)
#pragma unroll
                    for (int y = 0; y < WPT; ++y) acc[x + u][y] = P::update(acc[x + u][y], a[u], b[y]);
            }
        }
        if (next) store_a(buf ^ 1);                  // its last readers passed the barrier closing stage - 1
        __syncthreads();
    }
    store_band_tile<P, T, RM, WPT, 1>(C + c_index[g] * matrix_cells + t * TILE_CELLS, acc, tx * RN, ty * RM, i0, j0,
                                      n, band, accumulate);
}
