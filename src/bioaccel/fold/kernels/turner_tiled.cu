// Turner 2004 MFE of one long RNA (variant "tiled" on the GPU): the CPU's tiled fill (bioaccel/fold/
// _turner_fill.py) with the tiles of a tile-diagonal spread over the GPU, on the CPU's row-major tables
// (turner_tiled.cuh), then the exterior loop and the CPU's traceback on the device.
//
// Per tile-diagonal D (tiles (I, I + D) of TILE x TILE cells), two launches:
//   turner_bulk:   the multiloop's O(n^3) part, M2(i, j) over the splits k in [r1 - 1, c0 - 1] whose
//                  operands lie in finished tiles: a min-plus product FML(i, k) + FML(k + 1, j), A from the
//                  transposed copy of FML (row k) and B from FML (row k + 1), both read along rows. Register-
//                  tiled (8 x 8 cells a thread, operands from shared memory), one DPX add-then-min
//                  (__viaddmin_s32, runtime/kernels/dpx.cuh's DpxMinS32) per update. The k range is split
//                  over blocks where the diagonal has few tiles; partial minima meet in an int32 scratch tile
//                  by atomicMin (the scratch starts INF; the finish reads each cell and puts INF back).
//   turner_finish: one block per tile, LANES threads per row, the tile's anti-diagonals in turn (a
//                  barrier each): the splits inside the tile's rows and columns, hairpin, interior loops, multiloop
//                  closing, noLP's CC, FML (turner_tiled.cuh's tiled_cell).
// Then the exterior loop f by chunks of positions (turner_exterior_bulk: the stems from positions before
// the chunk, a coalesced column sweep over many blocks; turner_exterior_chunk: one block, the chunk's own
// stems in order) and the traceback on one warp (turner_fold.cuh's, with the CPU's tie-break).
#include "dpx.cuh"                 // runtime/kernels: the DPX lanes of the products
#include "red_rows.cuh"            // runtime/kernels: the minima's atomics by rows (turner_bulk_rows)
#include "turner_tiled.cuh"

// TILE x TILE tiles, (TILE / 8)^2 threads of 8 x 8 cells each: rows ty * 4 + {0..3} and TILE / 2 + ty * 4 +
// {0..3}, the same for columns (16-byte shared loads, 8 threads of a quarter-warp on 128 consecutive
// bytes). KS splits k a stage; the next stage's operands are loaded into registers while this one is
// computed.
// ROWS (turner_bulk_rows; issue 29 item 2, helper turnerrows): the minima staged in shared memory as rows, then
// atomicMin by consecutive lanes on consecutive cells (runtime/kernels/red_rows.cuh): 4 sectors a warp's RED where
// a thread's cells one by one make 16 (a warp's 4 x 8 threads: 4 rows, on each 8 cells 16 bytes apart, 4 sectors).
template <int TILE, int KS, bool ROWS>
__device__ __forceinline__ void turner_products(const int* __restrict__ fm, int* __restrict__ scratch, int n, int D,
                                                int chunk) {
    typedef DpxMinS32 P;
    constexpr int SIDE = TILE / 8, THREADS = SIDE * SIDE, PER = KS * TILE / THREADS, HALF_TILE = TILE / 2;
    static_assert(KS * TILE % THREADS == 0, "a stage must split evenly over the threads");
    constexpr int INF = turner::INF;
    __shared__ __align__(16) int As[KS][TILE];  // As[kk][r] = FML(r0 + r, k0 + kk)
    __shared__ __align__(16) int Bs[KS][TILE];  // Bs[kk][col] = FML(k0 + kk + 1, c0 + col)
    const int I = blockIdx.x, r0 = I * TILE, c0 = (I + D) * TILE;
    const int kb = r0 + TILE - 1 + blockIdx.y * chunk;
    const int ke = min(c0, kb + chunk);
    if (kb >= ke) return;
    const int tid = threadIdx.x, tx = tid % SIDE, ty = tid / SIDE;
    const long long N = n;
    int ra[PER], rb[PER];
    auto fetch = [&](int k0) {
#pragma unroll
        for (int p = 0; p < PER; ++p) {
            const int e = tid + p * THREADS, kk = e / TILE, col = e % TILE, k = k0 + kk;
            ra[p] = k < ke ? fm[k * N + r0 + col] : INF;  // the transposed copy: FML(r0 + col, k)
            rb[p] = (k < ke && c0 + col < n) ? fm[(k + 1) * N + c0 + col] : INF;
        }
    };
    typename P::word_t acc[8][8];
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < 8; ++y) acc[x][y] = INF;
    fetch(kb);
    for (int k0 = kb; k0 < ke; k0 += KS) {
        __syncthreads();  // every thread is done with the last stage
#pragma unroll
        for (int p = 0; p < PER; ++p) {
            const int e = tid + p * THREADS;
            As[e / TILE][e % TILE] = ra[p];
            Bs[e / TILE][e % TILE] = rb[p];
        }
        __syncthreads();
        if (k0 + KS < ke) fetch(k0 + KS);
#pragma unroll 4
        for (int kk = 0; kk < KS; ++kk) {
            const int4 a0 = *reinterpret_cast<const int4*>(&As[kk][ty * 4]);
            const int4 a1 = *reinterpret_cast<const int4*>(&As[kk][HALF_TILE + ty * 4]);
            const int4 b0 = *reinterpret_cast<const int4*>(&Bs[kk][tx * 4]);
            const int4 b1 = *reinterpret_cast<const int4*>(&Bs[kk][HALF_TILE + tx * 4]);
            const int a[8] = {a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w};
            const int b[8] = {b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int x = 0; x < 8; ++x)
#pragma unroll
                for (int y = 0; y < 8; ++y) acc[x][y] = P::update(acc[x][y], a[x], b[y]);
        }
    }
    int* out = scratch + (long long)I * TILE * TILE;
    if constexpr (ROWS) {
        // group g: row (x < 4 ? 0 : HALF_TILE - 4) + ty * 4 + x (x = g / 2), the columns h HALF_TILE + tx * 4 .. + 3
        // (h = g % 2); a column past the sequence and an INF change nothing, as the cell by cell form skips them
        __shared__ __align__(16) int rows[TILE * TILE];
        red_by_rows<THREADS, TILE * TILE, 16>(
            out, rows, tid,
            [&](int g) {
                const int x = g / 2, h = g % 2;
                const int r = (x < 4 ? 0 : HALF_TILE - 4) + ty * 4 + x, col = h * HALF_TILE + tx * 4;
                int cell[4];
#pragma unroll
                for (int y = 0; y < 4; ++y) cell[y] = c0 + col + y < n ? acc[x][4 * h + y] : INF;
                return RowCells{r * TILE + col, make_int4(cell[0], cell[1], cell[2], cell[3])};
            },
            [](int* at, int v) {
                if (v < INF) atomicMin(at, v);
            });
    } else {
#pragma unroll
        for (int x = 0; x < 8; ++x) {
            const int r = (x < 4 ? 0 : HALF_TILE - 4) + ty * 4 + x;
#pragma unroll
            for (int y = 0; y < 8; ++y) {
                const int col = (y < 4 ? 0 : HALF_TILE - 4) + tx * 4 + y;
                if (c0 + col < n && acc[x][y] < INF) atomicMin(out + r * TILE + col, acc[x][y]);
            }
        }
    }
}

// MIN_BLOCKS: blocks an SM must hold (caps the registers; 1: the compiler's choice).
template <int TILE, int KS, int MIN_BLOCKS>
__global__ void __launch_bounds__((TILE / 8) * (TILE / 8), MIN_BLOCKS)
turner_bulk(const int* __restrict__ fm, int* __restrict__ scratch, int n, int D, int chunk) {
    turner_products<TILE, KS, false>(fm, scratch, n, D, chunk);
}

// turner_bulk with the minima's atomics by rows (ROWS above; _turner_tiled_gpu.SIZES.rows).
template <int TILE, int KS, int MIN_BLOCKS>
__global__ void __launch_bounds__((TILE / 8) * (TILE / 8), MIN_BLOCKS)
turner_bulk_rows(const int* __restrict__ fm, int* __restrict__ scratch, int n, int D, int chunk) {
    turner_products<TILE, KS, true>(fm, scratch, n, D, chunk);
}

// One block per tile (I, I + D), TILE x LANES threads: LANES consecutive threads share row i = r1 - 1 -
// a (a = thread / LANES), anti-diagonal after anti-diagonal of the tile (cells of one are independent;
// every cell a cell reads lies on an earlier one or in a finished tile); neighbouring lanes read
// neighbouring words, so a warp's loads touch LANES times fewer cache lines than a thread per cell.
// Dynamic shared memory: the small energy tables (SHARED_INTS ints), the generic loops' (u1, u2)
// (GENERIC_PAIRS ints).
template <int TILE, int LANES>
__global__ void __launch_bounds__(TILE * LANES)
turner_finish(const int* __restrict__ E, const int* __restrict__ hp_size, const unsigned char* __restrict__ S,
              int n, int D, int no_lp, int* c, int* fm, int* m2, int* __restrict__ scratch) {
    using namespace turner;
    extern __shared__ int Es[];  // SHARED_INTS, then GENERIC_PAIRS
    stage_tables(E, Es, threadIdx.x, TILE * LANES);
    generic_pairs(Es + SHARED_INTS, threadIdx.x, TILE * LANES);
    __syncthreads();
    const int I = blockIdx.x, r0 = I * TILE, c0 = (I + D) * TILE;
    const int r1 = min(r0 + TILE, n), c1 = min(c0 + TILE, n);
    const Ctx x{E, Es, hp_size, S, n, Es + SHARED_INTS};
    const RowLayout L{n};
    const int a = threadIdx.x / LANES, lane = threadIdx.x % LANES, i = r1 - 1 - a;
    int* acc = scratch + (long long)I * TILE * TILE;
    const int steps = (r1 - r0) + (c1 - c0) - 1;
    for (int s = 0; s < steps; ++s) {
        const int b = s - a, j = c0 + b;
        if (i >= r0 && b >= 0 && j < c1 && j >= i + 4) {
            int bulk = INF;
            if (D && lane == 0) {  // the products' part of M2, in lane 0's share of the minimum
                int* slot = acc + (i - r0) * TILE + b;
                bulk = *slot;
                *slot = INF;  // ready for the next tile-diagonal's products
            }
            tiled_cell<LANES>(x, L, no_lp != 0, c, fm, m2, i, j, r1, c0, D == 0, bulk, lane);
        }
        __syncthreads();
    }
}

// The exterior loop, stems ending at j in [t0, t1) that start at k <= t0 (f(k) final): best[j + 1] =
// min f(k) + the stem (k, j). Thread per j (the reads of row k coalesce), blockIdx.y a range of k.
// Es: the small tables' shared form (SHARED_INTS ints) in global memory.
__global__ void turner_exterior_bulk(const int* __restrict__ E, const int* __restrict__ Es,
                                     const unsigned char* __restrict__ S, int n, const int* __restrict__ c,
                                     const int* __restrict__ f, int* __restrict__ best, int t0, int t1,
                                     int k_per_block) {
    using namespace turner;
    const int j = t0 + blockIdx.x * blockDim.x + threadIdx.x;
    if (j >= t1) return;
    const Ctx x{E, Es, nullptr, S, n};
    const RowLayout L{n};
    const int k_lo = blockIdx.y * k_per_block, k_hi = imin(imin(k_lo + k_per_block, t0 + 1), j - 3);
    int m = INF;
    for (int k = k_lo; k < k_hi; ++k) m = imin(m, exterior_stem(x, L, c, f[k], k, j));
    if (m < INF) atomicMin(best + j + 1, m);
}

// f(t) for t in (t0, t1]: one block of t1 - t0 threads, thread j - t0 holding best[j + 1]. f(t) =
// min(f(t - 1), best[t]), then row t's stems update best[j + 1], j >= t + 4. A stem of row t reaches
// best[t + 5] at the earliest, so the block meets once every 4 positions (best published to shared
// memory, double-buffered).
__global__ void turner_exterior_chunk(const int* __restrict__ E, const int* __restrict__ Es,
                                      const unsigned char* __restrict__ S, int n, const int* __restrict__ c,
                                      int* __restrict__ f, const int* __restrict__ best, int t0, int t1) {
    using namespace turner;
    __shared__ int published[2][1024];
    const int tid = threadIdx.x, j = t0 + tid;
    const Ctx x{E, Es, nullptr, S, n};
    const RowLayout L{n};
    int mine = j < t1 ? best[j + 1] : INF;
    published[0][tid] = mine;
    __syncthreads();
    int f_prev = f[t0], buffer = 0;
    for (int g = t0 + 1; g <= t1; g += 4) {
        for (int t = g; t < g + 4 && t <= t1; ++t) {
            const int ft = imin(f_prev, published[buffer][t - 1 - t0]);
            f_prev = ft;
            if (tid == 0) f[t] = ft;
            if (j < t1 && j >= t + 4) mine = imin(mine, exterior_stem(x, L, c, ft, t, j));
        }
        buffer ^= 1;
        published[buffer][tid] = mine;
        __syncthreads();
    }
}

// The traceback on one warp (turner_fold.cuh's, the CPU's tie-break), into pair_to (preset -1);
// status[0] = 1 if some value is reproduced by no case. stack: 3 (2n + 4) ints.
__global__ void turner_tiled_trace(const int* __restrict__ E, const int* __restrict__ hp_size,
                                   const unsigned char* __restrict__ S, int n, int no_lp, const int* c,
                                   const int* fm, const int* m2, const int* f, int* stack, int* pair_to,
                                   int* status) {
    using namespace turner;
    __shared__ int Es[SHARED_INTS];
    stage_tables(E, Es, threadIdx.x, 32);
    __syncwarp();
    const Ctx x{E, Es, hp_size, S, n};
    Tables tb;
    tb.c = const_cast<int*>(c);
    tb.cm = nullptr;
    tb.fm = const_cast<int*>(fm);
    tb.cc = const_cast<int*>(m2);  // CC is M2's lower triangle
    tb.m2 = nullptr;
    tb.stk = stack;
    if (!traceback(x, RowLayout{n}, tb, f, no_lp != 0, pair_to, threadIdx.x == 0) && threadIdx.x == 0)
        atomicExch(status, 1);
}
