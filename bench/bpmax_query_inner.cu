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
constexpr int FRONT_BYTES = STAGE_BYTES > ACC_BYTES ? STAGE_BYTES : ACC_BYTES;
constexpr int WARP_BYTES = 2 * VEC * 4;                 // a warp's chain split (its A and B vectors), or its triangle
// FORM 0: the first form (a chain split's operands read by each lane from global memory, the closure a lane an
// interval, triangles of stride 24); FORM 1: a chain split's two vectors copied to the warp's shared buffer first (one
// round trip a split, not one a block), the closure's intervals split among lanes (k1 strided, a shuffle maximum)
// and triangles of stride 25 (a column's lanes meet distinct banks); FORM 2: FORM 1 with two buffers a warp, the next
// split's copy in flight while one is computed (83 KB of shared memory a block: 2 blocks an SM, not 3).
template <int FORM>
constexpr int BUFFERS = FORM == 2 ? 2 : 1;
template <int FORM>
constexpr int SHARED_BYTES = FRONT_BYTES + WARPS * BUFFERS<FORM> * WARP_BYTES + SIDE * 25 * 4 + 64 * 4;   // + S1 ...
template <int FORM>
constexpr int STRIDE = FORM ? 25 : 24;
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

// Step 3: the warp's cell triangle G (shared, int, rows of S = STRIDE<FORM> words) closed over the query in l1
// order. FORM 0: a lane an interval. FORM 1: g lanes an interval (g the largest power of 2 with g n <= 32, n the
// level's intervals), each a k1 of every g, then their maximum by shuffles: 92 dependent steps in place of 253.
template <int FORM>
__device__ void closure(int* G, const int* S1, const int* pairs, const int* a, int M, int lane) {
    constexpr int S = STRIDE<FORM>;
    for (int l1 = 2; l1 <= M; ++l1) {
        const int n = M - l1 + 1;
        int g = 1;
        if (FORM)
            while (4 * g * n <= 64) g *= 2;   // 2 g n <= 32
        const int i1 = lane / g, part = lane % g, j1 = i1 + l1 - 1;
        int best = NEG16;
        if (i1 < n)
            for (int k1 = i1 + part; k1 < j1; k1 += g)
                best = max(best, max(G[i1 * S + k1 + 1] + S1[(k1 + 1) * S + j1], S1[i1 * S + k1] + G[(k1 + 1) * S + j1 + 1]));
        for (int offset = g >> 1; offset; offset >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, offset));
        if (i1 < n && part == 0) {
            best = max(best, G[i1 * S + j1 + 1]);
            if (j1 - i1 >= 4) best = max(best, pairs[a[i1] * 5 + a[j1]] + G[(i1 + 1) * S + j1]);
            G[i1 * S + j1 + 1] = best;
        }
        __syncwarp();
    }
}

struct Cell {
    int i2, j2, e, h;
};

// The chain of cell c of tile (I, J) by one warp: its remaining splits, its pair term, base case and 0, the closure,
// its two copies and its window score.
template <int PARTS, int FORM>
__device__ void chain_cell(const Band& band, const Cell& c, int I, int J, const short* acc16, int* G, const int* S1,
                           const int* pairs, const int* a, const signed char* __restrict__ rb,
                           const int* __restrict__ S2, int L2, int M, int* __restrict__ win) {
    constexpr int S = STRIDE<FORM>;
    const int lane = threadIdx.x & 31;
    int qa, qb;
    block_of(lane < 21 ? lane : 0, qa, qb);
    unsigned acc[16];
    const int base = 16 * lane;
    const int cell = (c.i2 - 8 * I) * 8 + (c.j2 - 8 * J);
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        const unsigned v = (PARTS & BULK) && J > I && lane < 21 ? (unsigned short)acc16[cell * VEC + base + i] : 0xC000u;
        acc[i] = c.h ? (v << 16) | 0xC000u : 0xC0000000u | v;
    }
    auto skip = [&](int k2) { return k2 >= 8 * I + 7 && k2 <= 8 * J - 1 ? 8 * J : k2; };   // past the bulk's
    auto A_of = [&](int k2) { return reinterpret_cast<const uint4*>(band.A + band.a_at(c.i2, k2)); };
    auto B_of = [&](int k2) { return reinterpret_cast<const uint4*>(band.B + band.b_at(k2 + 1, c.j2)); };
    if ((PARTS & CHAIN) && FORM == 0)
        for (int k2 = skip(c.i2); k2 < c.j2; k2 = skip(k2 + 1))
            if (lane < 21) query_tile(acc, qa, qb, A_of(k2), B_of(k2));
    if ((PARTS & CHAIN) && FORM) {   // G is the warp's buffers: splits' two vectors, then (after them) the triangle
        uint4* buffers = reinterpret_cast<uint4*>(G);
        auto issue = [&](int k2, int b) {
            const uint4 *A = A_of(k2), *B = B_of(k2);
            uint4* d = buffers + b * 2 * VEC4;
            for (int i = lane; i < 2 * VEC4; i += 32) cp_async16(d + i, i < VEC4 ? A + i : B + i - VEC4);
            cp_async_commit();
        };
        int k2 = skip(c.i2);
        if (BUFFERS<FORM> == 2 && k2 < c.j2) issue(k2, 0);
        for (int s = 0; k2 < c.j2; ++s) {
            const int next = skip(k2 + 1);
            if (BUFFERS<FORM> == 1) {
                issue(k2, 0);
                cp_async_wait<0>();
            } else if (next < c.j2) {
                issue(next, (s + 1) & 1);
                cp_async_wait<1>();
            } else {
                cp_async_wait<0>();
            }
            __syncwarp();
            const uint4* d = buffers + (BUFFERS<FORM> == 2 ? s & 1 : 0) * 2 * VEC4;
            if (lane < 21) query_tile(acc, qa, qb, d, d + VEC4);
            __syncwarp();   // read before the buffer is filled again
            k2 = next;
        }
    }
    if (lane < 21) {
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
                G[x * S + y] = value;
            }
    }
    const int s2 = S2[(size_t)c.i2 * L2 + c.e];
    for (int i = lane; i < SIDE * SIDE; i += 32) {
        const int x = i / SIDE, y = i % SIDE;
        if (!(x < y && y <= M)) G[x * S + y] = x == y && x <= M ? s2 : NEG16;
    }
    __syncwarp();
    if (PARTS & CLOSURE) closure<FORM>(G, S1, pairs, a, M, lane);
    unsigned* A = band.A + band.a_at(c.i2, c.j2);
    short* B = reinterpret_cast<short*>(band.B + band.b_at(c.i2, c.j2)) + c.h;
    for (int i = lane; i < VEC; i += 32) {
        int p, q;
        block_of(i >> 4, p, q);
        const int w = i & 15;
        A[i] = dup16(G[(4 * p + (w & 3)) * S + 4 * q + (w >> 2)]);   // column by column
        B[2 * i] = (short)G[(4 * p + (w >> 2)) * S + 4 * q + (w & 3)];   // row by row
    }
    if (c.e == L2 - 1 && lane == 0) win[c.i2] = G[M];   // F(0, M - 1, i2, i2 + L2 - 1)
    __syncwarp();   // G is read whole before the warp's next cell rewrites it
}
}  // namespace qi

// One tile diagonal `delta` of the fill: block b is tile (b, b + delta). dims: M, N, L2 (the band e <= L2 - 1).
// S1: the query's dense fold, 24 x 24 int (0 past M); pairs: 5 x 5 pair scores (units); a: the query's codes;
// rb: the reversed target's codes; S2: its fold as a band [N][L2]; win: the window scores F(0, M - 1, i2, i2 + L2 - 1).
template <int PARTS, int FORM>
__global__ void __launch_bounds__(qt::THREADS, 3)
query_inner_delta(unsigned* A, unsigned* B, int slots, int delta, int M, int N, int L2, const int* __restrict__ S1g,
                  const int* __restrict__ pairs_g, const int* __restrict__ a_g, const signed char* __restrict__ rb,
                  const int* __restrict__ S2, const int* __restrict__ warp_tiles, int* __restrict__ win) {
    using namespace qi;
    extern __shared__ uint4 smem[];
    const qi::Band band{A, B, slots};
    const int I = blockIdx.x, J = I + delta, warp = threadIdx.x >> 5;
    char* base = reinterpret_cast<char*>(smem);
    int* G = reinterpret_cast<int*>(base + FRONT_BYTES + warp * BUFFERS<FORM> * WARP_BYTES);
    int* S1 = reinterpret_cast<int*>(base + FRONT_BYTES + WARPS * BUFFERS<FORM> * WARP_BYTES);
    int* pairs = S1 + SIDE * 25;
    int* a = pairs + 32;
    for (int i = threadIdx.x; i < SIDE * SIDE; i += THREADS) S1[i / SIDE * STRIDE<FORM> + i % SIDE] = S1g[i];
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
            chain_cell<PARTS, FORM>(band, c, I, J, acc16, G, S1, pairs, a, rb, S2, L2, M, win);
        }
        __syncthreads();   // this step's cells are written before the next step reads them
    }
}
