// BPMax in "query-inner" order, a whole windowed fill (issue 29, bench/bpmax_query_inner_gpu.py; the order's
// plain-Python reference is tests/bpmax_query_inner.py). Each target cell (i2, j2), 0 <= e = j2 - i2 <= Wb, holds the
// vector of all query intervals, G[x][y] = F(x, y - 1, i2, j2) (y > x), G[x][x] = S2(i2, j2), NEG elsewhere, stored
// twice (bpmax_query_tiles.cuh): an A copy (left operand) and a B copy (right operand, two target columns a word).
//
// Band storage: row r's cells from column 8 floor(r / 8), `slots` of them (8 (max delta + 1)), so that the columns of
// a target tile are aligned in every row of it, and a B pair never straddles two tiles.
//
// Schedule: the target in 8 x 8 tiles (I, J), one launch per tile diagonal delta = J - I, a block a tile. In a tile
// with delta >= 1 the BULK first: the splits k2 in [8I + 7, 8J - 1], whose operands lie in tiles of smaller delta,
// by the micro-benchmark's loop (7 warps x 3 query tiles, lanes 8 rows x 4 column pairs); its accumulators then go
// to shared memory. Then the CHAIN, by in-tile anti-diagonal steps t = v - u: a warp a cell (u, v), its lanes the 21
// query tiles, over the splits that read this tile (k2 < 8I + 7: B from this tile, rows below u; k2 >= 8J: A from
// this tile, columns left of v), then the strand-2 pair term, F's initial 0 and the 1 x 1 base case, then the
// closure over the query (R3, R4, the strand-1 pair) by the warp in l1 order, and the cell's two copies written
// before a later step reads them. A B word holds two cells of one row that the chain reaches at different steps: the
// chain computes one half (the other half's lanes compute nothing anyone reads) and stores its own 16 bits.
#include "dpx.cuh"
#include "bpmax_query_tiles.cuh"

namespace qi {
using namespace qt;
constexpr int SIDE = 24;                                // the query triangle's side (M + 1 <= 24)
constexpr int STAGE = (ROWS + PAIRS) * STRIDE4;         // shared 16-byte groups of one split's operands
constexpr int STAGE_BYTES = 2 * STAGE * 16;             // two stages in flight
constexpr int ACC_BYTES = 64 * VEC * 2;                 // the tile's 64 cells' accumulators (int16) after the bulk
constexpr int SHARED_BYTES = (STAGE_BYTES > ACC_BYTES ? STAGE_BYTES : ACC_BYTES) + WARPS * SIDE * SIDE * 4 +
                             SIDE * SIDE * 4 + 64 * 4;  // + a closure triangle a warp, S1, pair scores and codes
constexpr int NEG16 = -16384;
enum Parts { BULK = 1, CHAIN = 2, CLOSURE = 4, ALL = 7 };   // the timing runs leave parts out (wrong values)

struct Band {         // the two copies in band storage (words)
    unsigned* A;
    unsigned* B;
    int slots;
    __device__ __forceinline__ size_t a_at(int row, int col) const {
        return ((size_t)row * slots + (col - 8 * (row >> 3))) * VEC;
    }
    __device__ __forceinline__ size_t b_at(int row, int col) const {   // the pair word vector holding column col
        return ((size_t)row * (slots >> 1) + ((col - 8 * (row >> 3)) >> 1)) * VEC;
    }
};

__device__ __forceinline__ void block_of(int index, int& p, int& q) {   // block_index's inverse
    p = 0;
    while (index >= 6 - p) { index -= 6 - p; ++p; }
    q = p + index;
}

__device__ __forceinline__ int half_of(unsigned w, int h) { return h ? (short)(w >> 16) : (short)(w & 0xffff); }

// The bulk of tile (I, J): splits k0 = 8I + 7 .. 8J - 1, one a stage; the accumulators end in `acc16`
// ([cell u * 8 + v][block-ordered, row by row in a block] int16).
__device__ void bulk(const Band& band, int I, int J, const int* __restrict__ warp_tiles, uint4* stages,
                     short* acc16) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, row = lane >> 2, pair = lane & 3;
    int qa[SLOTS], qb[SLOTS];
    unsigned acc[SLOTS][16];
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int code = warp_tiles[3 * warp + s];
        qa[s] = code < 0 ? -1 : code >> 3;
        qb[s] = code & 7;
#pragma unroll
        for (int i = 0; i < 16; ++i) acc[s][i] = SENTINEL;
    }
    const int k0 = 8 * I + 7, K = 8 * (J - I) - 7;
    auto stage = [&](int buffer, int k2) {
        for (int i = threadIdx.x; i < (ROWS + PAIRS) * VEC4; i += THREADS) {
            const int v = i / VEC4, g = i % VEC4;
            const unsigned* src = v < ROWS ? band.A + band.a_at(8 * I + v, k2)
                                           : band.B + band.b_at(k2 + 1, 8 * J + 2 * (v - ROWS));
            cp_async16(stages + buffer * STAGE + v * STRIDE4 + g, reinterpret_cast<const uint4*>(src) + g);
        }
    };
    stage(0, k0);
    cp_async_commit();
    for (int st = 0; st < K; ++st) {
        const int buffer = st & 1;
        cp_async_wait<0>();
        __syncthreads();
        if (st + 1 < K) {
            stage(buffer ^ 1, k0 + st + 1);
            cp_async_commit();
        }
        const uint4* A = stages + buffer * STAGE + row * STRIDE4;
        const uint4* B = stages + buffer * STAGE + (ROWS + pair) * STRIDE4;
#pragma unroll
        for (int s = 0; s < SLOTS; ++s)
            if (qa[s] >= 0) query_tile(acc[s], qa[s], qb[s], A, B);
    }
    __syncthreads();   // every warp is done with the stages, which acc16 overlays
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        if (qa[s] < 0) continue;
        const int base = 16 * block_index(qa[s], qb[s]);
#pragma unroll
        for (int i = 0; i < 16; ++i)
#pragma unroll
            for (int h = 0; h < 2; ++h) acc16[(row * 8 + 2 * pair + h) * VEC + base + i] = half_of(acc[s][i], h);
    }
    __syncthreads();
}

// Step 3: the warp's cell triangle G (shared, int) closed over the query in l1 order.
__device__ void closure(int* G, const int* S1, const int* pairs, const int* a, int M, int lane) {
    for (int l1 = 2; l1 <= M; ++l1) {
        const int i1 = lane, j1 = lane + l1 - 1;
        if (i1 <= M - l1) {
            int best = G[i1 * SIDE + j1 + 1];
            for (int k1 = i1; k1 < j1; ++k1)
                best = max(best, max(G[i1 * SIDE + k1 + 1] + S1[(k1 + 1) * SIDE + j1],
                                     S1[i1 * SIDE + k1] + G[(k1 + 1) * SIDE + j1 + 1]));
            if (j1 - i1 >= 4) best = max(best, pairs[a[i1] * 5 + a[j1]] + G[(i1 + 1) * SIDE + j1]);
            G[i1 * SIDE + j1 + 1] = best;
        }
        __syncwarp();
    }
}

struct Cell {
    int i2, j2, e, h;
};

// The chain of cell c of tile (I, J) by one warp: its remaining splits, its pair term, base case and 0, the closure,
// its two copies and its window score.
template <int PARTS>
__device__ void chain_cell(const Band& band, const Cell& c, int I, int J, const short* acc16, int* G, const int* S1,
                           const int* pairs, const int* a, const signed char* __restrict__ rb,
                           const int* __restrict__ S2, int L2, int M, int* __restrict__ win) {
    const int lane = threadIdx.x & 31;
    if (lane < 21) {
        int qa, qb;
        block_of(lane, qa, qb);
        unsigned acc[16];
        const int base = 16 * lane;
        const int cell = (c.i2 - 8 * I) * 8 + (c.j2 - 8 * J);
#pragma unroll
        for (int i = 0; i < 16; ++i) {
            const unsigned v = (PARTS & BULK) && J > I ? (unsigned short)acc16[cell * VEC + base + i] : 0xC000u;
            acc[i] = c.h ? (v << 16) | 0xC000u : 0xC0000000u | v;
        }
        if (PARTS & CHAIN)
            for (int k2 = c.i2; k2 < c.j2; ++k2) {
                if (k2 >= 8 * I + 7 && k2 <= 8 * J - 1) continue;   // the bulk's
                query_tile(acc, qa, qb, reinterpret_cast<const uint4*>(band.A + band.a_at(c.i2, k2)),
                           reinterpret_cast<const uint4*>(band.B + band.b_at(k2 + 1, c.j2)));
            }
        const int pair = c.e >= 4 ? pairs[rb[c.i2] * 5 + rb[c.j2]] : 0;
        const unsigned* inner = band.A + (c.e >= 4 ? band.a_at(c.i2 + 1, c.j2 - 1) : 0) + base;
#pragma unroll
        for (int r = 0; r < 4; ++r)
#pragma unroll
            for (int col = 0; col < 4; ++col) {
                const int x = 4 * qa + r, y = 4 * qb + col;
                if (x >= y || y > M) continue;
                int value = max(half_of(acc[r * 4 + col], c.h), 0);
                if (c.e >= 4) value = max(value, pair + half_of(inner[col * 4 + r], 0));
                if (c.e == 0 && y == x + 1) value = max(value, pairs[a[x] * 5 + rb[c.i2]]);
                G[x * SIDE + y] = value;
            }
    }
    const int s2 = S2[(size_t)c.i2 * L2 + c.e];
    for (int i = lane; i < SIDE * SIDE; i += 32) {
        const int x = i / SIDE, y = i % SIDE;
        if (!(x < y && y <= M)) G[i] = x == y && x <= M ? s2 : NEG16;
    }
    __syncwarp();
    if (PARTS & CLOSURE) closure(G, S1, pairs, a, M, lane);
    unsigned* A = band.A + band.a_at(c.i2, c.j2);
    short* B = reinterpret_cast<short*>(band.B + band.b_at(c.i2, c.j2)) + c.h;
    for (int i = lane; i < VEC; i += 32) {
        int p, q;
        block_of(i >> 4, p, q);
        const int w = i & 15;
        A[i] = dup16(G[(4 * p + (w & 3)) * SIDE + 4 * q + (w >> 2)]);   // column by column
        B[2 * i] = (short)G[(4 * p + (w >> 2)) * SIDE + 4 * q + (w & 3)];   // row by row
    }
    if (c.e == L2 - 1 && lane == 0) win[c.i2] = G[M];   // F(0, M - 1, i2, i2 + L2 - 1)
    __syncwarp();   // G is read whole before the warp's next cell rewrites it
}
}  // namespace qi

// One tile diagonal `delta` of the fill: block b is tile (b, b + delta). dims: M, N, L2 (the band e <= L2 - 1).
// S1: the query's dense fold, 24 x 24 int (0 past M); pairs: 5 x 5 pair scores (units); a: the query's codes;
// rb: the reversed target's codes; S2: its fold as a band [N][L2]; win: the window scores F(0, M - 1, i2, i2 + L2 - 1).
template <int PARTS>
__global__ void __launch_bounds__(qt::THREADS, 3)
query_inner_delta(unsigned* A, unsigned* B, int slots, int delta, int M, int N, int L2, const int* __restrict__ S1g,
                  const int* __restrict__ pairs_g, const int* __restrict__ a_g, const signed char* __restrict__ rb,
                  const int* __restrict__ S2, const int* __restrict__ warp_tiles, int* __restrict__ win) {
    using namespace qi;
    extern __shared__ uint4 smem[];
    const qi::Band band{A, B, slots};
    const int I = blockIdx.x, J = I + delta, warp = threadIdx.x >> 5;
    char* base = reinterpret_cast<char*>(smem);
    const int front = STAGE_BYTES > ACC_BYTES ? STAGE_BYTES : ACC_BYTES;
    int* G = reinterpret_cast<int*>(base + front) + warp * SIDE * SIDE;
    int* S1 = reinterpret_cast<int*>(base + front) + WARPS * SIDE * SIDE;
    int* pairs = S1 + SIDE * SIDE;
    int* a = pairs + 32;
    for (int i = threadIdx.x; i < SIDE * SIDE; i += THREADS) S1[i] = S1g[i];
    if (threadIdx.x < 25) pairs[threadIdx.x] = pairs_g[threadIdx.x];
    if (threadIdx.x < SIDE) a[threadIdx.x] = threadIdx.x < M ? a_g[threadIdx.x] : 4;
    short* acc16 = reinterpret_cast<short*>(smem);
    if ((PARTS & BULK) && delta >= 1) bulk(band, I, J, warp_tiles, smem, acc16);
    __syncthreads();
    for (int t = delta ? -7 : 0; t <= 7; ++t) {
        const int u0 = t < 0 ? -t : 0, count = (t < 0 ? 8 + t : 8 - t);
        for (int k = warp; k < count; k += WARPS) {
            const int u = u0 + k, v = u + t;
            const Cell c{8 * I + u, 8 * J + v, 8 * delta + v - u, (8 * J + v) & 1};
            if (c.j2 >= N || c.e > L2 - 1) continue;
            chain_cell<PARTS>(band, c, I, J, acc16, G, S1, pairs, a, rb, S2, L2, M, win);
        }
        __syncthreads();   // this step's cells are written before the next step reads them
    }
}
