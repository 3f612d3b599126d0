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
//
// Forms: "fused" (query_inner_delta, one launch a delta: the bulk, its accumulators to shared memory, the chain by
// the same 7 warps) and "split" (two launches a delta: query_inner_bulk, 4 blocks an SM, its accumulators to a global
// scratch in B-pair layout; then query_inner_chain, 8 warps a tile, a step's 8 cells at once, many tiles an SM: the
// chain's steps wait on latency, which more tiles an SM hide). Form 2 (two chain buffers a warp, 2 blocks an SM) was
// slower than form 1 (92.2 against 76.4 ms, docs/bpmax-gpu-notes.md) and is left in commit 0e50d3b.
// Helper bpmaxqc (issue 29): the bulk's fixed copy lanes (FIXED); the chain's splits through a ring of DEPTH buffers a
// warp; its products by balanced lanes (BALANCED, bpmax_query_tiles.cuh's lane_span: at most 3 untrimmed blocks a
// lane, in place of the trimmed tile loop's up to 6 and its edge forms one after the other) on blocks padded to 5
// groups (PADDED: no 4-way bank conflicts). Measured in docs/bpmax-gpu-notes.md: the ring did not help.
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
// The chain's staged vectors: 16-byte groups a block (PADDED: 5, lane_span's bank-conflict-free layout) and a split's
// buffer (its A and B vectors; WARP_BYTES unpadded)
template <bool PADDED>
constexpr int BLOCK4 = PADDED ? 5 : 4;
template <bool PADDED>
constexpr int SLOT_BYTES = 2 * 21 * BLOCK4<PADDED> * 16;
constexpr int TABLE_BYTES = SIDE * 25 * 4 + 64 * 4;     // S1, the pair scores and the query's codes
constexpr int SHARED_BYTES = FRONT_BYTES + WARPS * WARP_BYTES + TABLE_BYTES;   // the fused kernel's
constexpr int CHAIN_WARPS = 8;                          // the split form's chain: a step's cells at once
constexpr int CHAIN_SHARED_BYTES = CHAIN_WARPS * WARP_BYTES + TABLE_BYTES;
// STAGED false (the fused FORM 0): a chain split's operands read by each lane from global memory, triangles of stride
// 24; true: a split's two vectors copied to the warp's shared buffer first (one round trip a split, not one a
// block), triangles of stride 25 (a column's lanes meet distinct banks). GROUPED: the closure's intervals split
// among lanes (k1 strided, a shuffle maximum), else a lane an interval.
template <bool STAGED>
constexpr int STRIDE = STAGED ? 25 : 24;
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

__device__ __forceinline__ int half_of(unsigned w, int h) { return h ? (short)(w >> 16) : (short)(w & 0xffff); }

// The bulk of tile (I, J): splits k0 = 8I + 7 .. 8J - 1, one a stage. SCRATCH null: the accumulators end in
// `acc16` (shared, [cell u * 8 + v][block-ordered, row by row in a block] int16, over the stages); else in the tile's
// 32 pair words (row u, columns 2c and 2c + 1) of 336 words at SCRATCH, the B layout.
// FIXED (the micro-benchmark's copies, call 4 of its notes): threads 0 .. 167 each own one 16-byte group g of every
// second vector (h, h + 2, ...) of a stage, the sources a base plus multiples of the band's row and pair strides (no
// division by VEC4 in the copy loop); else the copies strided over the block, a division and a modulo each.
template <bool FIXED = false>
__device__ void bulk(const Band& band, int I, int J, const int* __restrict__ warp_tiles, uint4* stages,
                     short* acc16, unsigned* scratch) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, row = lane >> 2, pair = lane & 3;
    int qa[SLOTS], qb[SLOTS];
    unsigned acc[SLOTS][16];
    warp_query_tiles(warp_tiles, warp, qa, qb, acc);
    const int k0 = 8 * I + 7, K = 8 * (J - I) - 7;
    const int g = threadIdx.x % VEC4, h = threadIdx.x / VEC4;   // FIXED: the thread's group and first vector
    // A (rows 8I + h + 2i): a_at's column offset k2 - 8I is the same in the tile's 8 rows; a split steps VEC words
    const uint4* a_src = reinterpret_cast<const uint4*>(band.A + band.a_at(8 * I + h, k0)) + g;
    const size_t a_rows = (size_t)2 * band.slots * VEC4;   // two rows, in 16-byte groups
    auto stage = [&](int buffer, int k2) {
        if constexpr (FIXED) {
            if (threadIdx.x >= 2 * VEC4) return;
            uint4* dst = stages + buffer * STAGE + h * STRIDE4 + g;
            const uint4* a = a_src + (size_t)(k2 - k0) * VEC4;
#pragma unroll
            for (int i = 0; i < ROWS / 2; ++i) cp_async16(dst + 2 * i * STRIDE4, a + i * a_rows);
            // B (row k2 + 1, pairs 4J + h + 2i): b_at's pair offset shifts by 4 where k2 + 1 enters a new tile row
            const uint4* b = reinterpret_cast<const uint4*>(band.B + band.b_at(k2 + 1, 8 * J + 2 * h)) + g;
#pragma unroll
            for (int i = 0; i < PAIRS / 2; ++i) cp_async16(dst + (ROWS + 2 * i) * STRIDE4, b + 2 * i * VEC4);
        } else {
            for (int i = threadIdx.x; i < (ROWS + PAIRS) * VEC4; i += THREADS) {
                const int v = i / VEC4, g = i % VEC4;
                const unsigned* src = v < ROWS ? band.A + band.a_at(8 * I + v, k2)
                                               : band.B + band.b_at(k2 + 1, 8 * J + 2 * (v - ROWS));
                cp_async16(stages + buffer * STAGE + v * STRIDE4 + g, reinterpret_cast<const uint4*>(src) + g);
            }
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
    if (scratch) {
#pragma unroll
        for (int s = 0; s < SLOTS; ++s)
            if (qa[s] >= 0) store_tile(scratch + (size_t)lane * VEC, qa[s], qb[s], acc[s]);
        return;
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

// Step 3: the warp's cell triangle G (shared, int, rows of S words) closed over the query in l1 order. GROUPED
// false: a lane an interval; true: g lanes an interval (g the largest power of 2 with g n <= 32, n the level's
// intervals), each a k1 of every g, then their maximum by shuffles: 92 dependent steps in place of 253.
template <int S, bool GROUPED>
__device__ void closure(int* G, const int* S1, const int* pairs, const int* a, int M, int lane) {
    for (int l1 = 2; l1 <= M; ++l1) {
        const int n = M - l1 + 1;
        int g = 1;
        if (GROUPED)
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
// its two copies and its window score. The bulk's accumulators of the cell: bulk[(16 lane + i) * step].
template <int PARTS, bool STAGED, bool GROUPED, int DEPTH = 1, bool BALANCED = false, bool PADDED = false>
__device__ void chain_cell(const Band& band, const Cell& c, int I, int J, const short* bulk, int step, int* G, const int* S1,
                           const int* pairs, const int* a, const signed char* __restrict__ rb,
                           const int* __restrict__ S2, int L2, int M, int* __restrict__ win) {
    constexpr int S = STRIDE<STAGED>;
    const int lane = threadIdx.x & 31;
    int qa, qb;
    block_of(lane < 21 ? lane : 0, qa, qb);
    unsigned acc[16];
    const int base = 16 * lane;
#pragma unroll
    for (int i = 0; i < 16; ++i) {
        const unsigned v = (PARTS & BULK) && J > I && lane < 21 ? (unsigned short)bulk[(base + i) * step] : 0xC000u;
        acc[i] = c.h ? (v << 16) | 0xC000u : 0xC0000000u | v;
    }
    auto skip = [&](int k2) { return k2 >= 8 * I + 7 && k2 <= 8 * J - 1 ? 8 * J : k2; };   // past the bulk's
    auto A_of = [&](int k2) { return reinterpret_cast<const uint4*>(band.A + band.a_at(c.i2, k2)); };
    auto B_of = [&](int k2) { return reinterpret_cast<const uint4*>(band.B + band.b_at(k2 + 1, c.j2)); };
    if ((PARTS & CHAIN) && !STAGED)
        for (int k2 = skip(c.i2); k2 < c.j2; k2 = skip(k2 + 1))
            if (lane < 21) query_tile(acc, qa, qb, A_of(k2), B_of(k2));
    constexpr bool RING = DEPTH > 1 || BALANCED;
    static_assert(!BALANCED || STAGED, "the balanced lanes run in the ring's loop");
    static_assert(!PADDED || BALANCED, "the padded layout is the balanced lanes'");
    if ((PARTS & CHAIN) && RING) {   // a ring of DEPTH buffers: DEPTH - 1 splits' copies in flight
        constexpr int B4 = BLOCK4<PADDED>, RING4 = SLOT_BYTES<PADDED> / 16, VECS = 21 * B4;
        const LaneSpan span = BALANCED ? lane_span<B4>(lane) : LaneSpan{};
        uint4* ring = reinterpret_cast<uint4*>(G);
        auto copy = [&](int k2, int slot) {   // one commit group a call, empty past the cell's last split
            if (k2 < c.j2) {
                const uint4 *A = A_of(k2), *B = B_of(k2);
                uint4* buffer = ring + slot * RING4;
                for (int i = lane; i < 2 * VEC4; i += 32)   // group i % 4 of block i / 4 (A's 21, then B's)
                    cp_async16(buffer + (PADDED ? i + (i >> 2) : i), i < VEC4 ? A + i : B + i - VEC4);
            }
            cp_async_commit();
        };
        int ahead = skip(c.i2);   // the next split to copy
#pragma unroll
        for (int d = 0; d < DEPTH - 1; ++d) {
            copy(ahead, d);
            if (ahead < c.j2) ahead = skip(ahead + 1);
        }
        int slot = 0;
        for (int k2 = skip(c.i2); k2 < c.j2; k2 = skip(k2 + 1)) {
            copy(ahead, slot == 0 ? DEPTH - 1 : slot - 1);   // the slot computed last step: free since its __syncwarp
            if (ahead < c.j2) ahead = skip(ahead + 1);
            cp_async_wait<DEPTH - 1>();   // this split's group has landed (the later DEPTH - 1 may be in flight)
            __syncwarp();
            if (BALANCED)
                span_product<B4>(acc, span, ring + slot * RING4, ring + slot * RING4 + VECS);
            else if (lane < 21)
                query_tile(acc, qa, qb, ring + slot * RING4, ring + slot * RING4 + VEC4);
            __syncwarp();   // read before the slot is filled again
            slot = slot == DEPTH - 1 ? 0 : slot + 1;
        }
        cp_async_wait<0>();   // no copy lands on the triangle after this
        __syncwarp();
        if (BALANCED)   // a split tile's two lanes: the first takes the maximum of both
#pragma unroll
            for (int i = 0; i < 16; ++i) acc[i] = __vmaxs2(acc[i], __shfl_sync(0xffffffffu, acc[i], span.partner));
    }
    if ((PARTS & CHAIN) && STAGED && !RING) {   // G is the warp's buffer: a split's two vectors, then the triangle
        uint4* buffer = reinterpret_cast<uint4*>(G);
        for (int k2 = skip(c.i2); k2 < c.j2; k2 = skip(k2 + 1)) {
            const uint4 *A = A_of(k2), *B = B_of(k2);
            for (int i = lane; i < 2 * VEC4; i += 32) cp_async16(buffer + i, i < VEC4 ? A + i : B + i - VEC4);
            cp_async_commit();
            cp_async_wait<0>();
            __syncwarp();
            if (lane < 21) query_tile(acc, qa, qb, buffer, buffer + VEC4);
            __syncwarp();   // read before the buffer is filled again
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
    if (PARTS & CLOSURE) closure<S, GROUPED>(G, S1, pairs, a, M, lane);
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
// The tables a block keeps in shared memory: S1 (rows of S words), the pair scores and the query's codes.
template <int S>
__device__ void load_tables(int* S1, const int* __restrict__ S1g, const int* __restrict__ pairs_g,
                            const int* __restrict__ a_g, int M) {
    for (int i = threadIdx.x; i < SIDE * SIDE; i += blockDim.x) S1[i / SIDE * S + i % SIDE] = S1g[i];
    int* pairs = S1 + SIDE * 25;
    if (threadIdx.x < 25) pairs[threadIdx.x] = pairs_g[threadIdx.x];
    if (threadIdx.x < SIDE) pairs[32 + threadIdx.x] = threadIdx.x < M ? a_g[threadIdx.x] : 4;
}

// The in-tile chain of tile (I, J) by NW warps, step by step. The bulk's accumulators of cell (u, v): fused (scratch
// null), acc16's cell u * 8 + v; split, the tile's scratch words of row u, pair v / 2, half v & 1.
template <int PARTS, bool STAGED, bool GROUPED, int NW, int DEPTH = 1, bool BALANCED = false, bool PADDED = false>
__device__ void chain_tile(const Band& band, int I, int J, const short* acc16, const unsigned* scratch, int* G,
                           const int* S1, const signed char* __restrict__ rb, const int* __restrict__ S2, int L2, int M,
                           int N, int* __restrict__ win) {
    const int warp = threadIdx.x >> 5, delta = J - I;
    const int* pairs = S1 + SIDE * 25;
    for (int t = delta ? -7 : 0; t <= 7; ++t) {
        const int u0 = t < 0 ? -t : 0, count = (t < 0 ? 8 + t : 8 - t);
        for (int k = warp; k < count; k += NW) {
            const int u = u0 + k, v = u + t;
            const Cell c{8 * I + u, 8 * J + v, 8 * delta + v - u, (8 * J + v) & 1};
            if (c.j2 >= N || c.e > L2 - 1) continue;
            const short* bulk = scratch ? reinterpret_cast<const short*>(scratch + (size_t)(u * 4 + (v >> 1)) * VEC) + (v & 1)
                                        : acc16 + (u * 8 + v) * VEC;
            chain_cell<PARTS, STAGED, GROUPED, DEPTH, BALANCED, PADDED>(band, c, I, J, bulk, scratch ? 2 : 1, G, S1, pairs, pairs + 32, rb, S2,
                                               L2, M, win);
        }
        __syncthreads();   // this step's cells are written before the next step reads them
    }
}
}  // namespace qi

// Arguments: the band's two copies (A, B, `slots` cells a row), the tile diagonal `delta` (block b: tile (b, b + delta)),
// M, N, L2 (the band e <= L2 - 1); S1: the query's dense fold, 24 x 24 int (0 past M); pairs: 5 x 5 pair scores
// (units); a: the query's codes; rb: the reversed target's codes; S2: its fold as a band [N][L2]; warp_tiles: the
// bulk's warps' query tiles; win: the window scores F(0, M - 1, i2, i2 + L2 - 1); scratch: the split form's bulk
// accumulators, 32 x 336 words a tile.

// The fused form: one launch a delta. FORM 0: chain unstaged, closure a lane an interval; FORM 1: both staged/grouped.
template <int PARTS, int FORM>
__global__ void __launch_bounds__(qt::THREADS, 3)
query_inner_delta(unsigned* A, unsigned* B, int slots, int delta, int M, int N, int L2, const int* __restrict__ S1g,
                  const int* __restrict__ pairs_g, const int* __restrict__ a_g, const signed char* __restrict__ rb,
                  const int* __restrict__ S2, const int* __restrict__ warp_tiles, int* __restrict__ win) {
    using namespace qi;
    constexpr bool STAGED = FORM == 1;
    extern __shared__ uint4 smem[];
    const Band band{A, B, slots};
    char* base = reinterpret_cast<char*>(smem);
    int* G = reinterpret_cast<int*>(base + FRONT_BYTES + (threadIdx.x >> 5) * WARP_BYTES);
    int* S1 = reinterpret_cast<int*>(base + FRONT_BYTES + WARPS * WARP_BYTES);
    load_tables<STRIDE<STAGED>>(S1, S1g, pairs_g, a_g, M);
    short* acc16 = reinterpret_cast<short*>(smem);
    if ((PARTS & BULK) && delta >= 1) bulk(band, blockIdx.x, blockIdx.x + delta, warp_tiles, smem, acc16, nullptr);
    __syncthreads();
    chain_tile<PARTS, STAGED, STAGED, WARPS>(band, blockIdx.x, blockIdx.x + delta, acc16, nullptr, G, S1, rb, S2, L2, M,
                                             N, win);
}

// The split form's first launch of a delta >= 1: the bulk alone, its accumulators to the scratch; FIXED: fixed copy
// lanes (qi::bulk).
template <bool FIXED>
__global__ void __launch_bounds__(qt::THREADS, 4)
query_inner_bulk(unsigned* A, unsigned* B, int slots, int delta, const int* __restrict__ warp_tiles,
                 unsigned* __restrict__ scratch) {
    extern __shared__ uint4 smem[];
    const qi::Band band{A, B, slots};
    qi::bulk<FIXED>(band, blockIdx.x, blockIdx.x + delta, warp_tiles, smem, nullptr,
             scratch + (size_t)blockIdx.x * 32 * qt::VEC);
}

// The split form's second launch: the chain, 8 warps a tile, staged; GROUPED: the closure's intervals among lanes;
// DEPTH: a warp's ring of split buffers (DEPTH - 1 splits' copies in flight while one is computed; its triangle
// overlays the ring), shared memory CHAIN_WARPS * DEPTH * WARP_BYTES + TABLE_BYTES; BALANCED: the ring's products
// by the balanced lanes (lane_span); PADDED: their staged blocks 5 groups apart (SLOT_BYTES<true> a buffer).
template <int PARTS, bool GROUPED, int MINB, int DEPTH, bool BALANCED, bool PADDED>
__global__ void __launch_bounds__(qi::CHAIN_WARPS * 32, MINB)
query_inner_chain(unsigned* A, unsigned* B, int slots, int delta, int M, int N, int L2, const int* __restrict__ S1g,
                  const int* __restrict__ pairs_g, const int* __restrict__ a_g, const signed char* __restrict__ rb,
                  const int* __restrict__ S2, const unsigned* __restrict__ scratch, int* __restrict__ win) {
    using namespace qi;
    extern __shared__ uint4 smem[];
    const Band band{A, B, slots};
    char* base = reinterpret_cast<char*>(smem);
    int* G = reinterpret_cast<int*>(base + (threadIdx.x >> 5) * DEPTH * SLOT_BYTES<PADDED>);
    int* S1 = reinterpret_cast<int*>(base + CHAIN_WARPS * DEPTH * SLOT_BYTES<PADDED>);
    load_tables<STRIDE<true>>(S1, S1g, pairs_g, a_g, M);
    __syncthreads();
    chain_tile<PARTS, true, GROUPED, CHAIN_WARPS, DEPTH, BALANCED, PADDED>(band, blockIdx.x, blockIdx.x + delta, nullptr,
                                                  delta ? scratch + (size_t)blockIdx.x * 32 * VEC : nullptr, G, S1, rb,
                                                  S2, L2, M, N, win);
}
