// The query-inner product's device code (issue 29), shared by the micro-benchmark of the product alone
// (bench/bpmax_query_product.cu) and the whole windowed fill in that order (bench/bpmax_query_inner.cu): the layouts'
// constants and one query tile's loop over one split (tests/bpmax_query_tiles.py is its plain-Python form).
//
// A vector (one target cell's query triangle, 24 x 24 embedded) is 21 blocks of 4 x 4 int16 values, block (p, q),
// p <= q, at block_index(p, q). The left operand ("A copy") holds the cell's value in both halves of a word, each
// block column by column; the right operand ("B copy") two target columns a word (2c low, 2c + 1 high), each block
// row by row.
#pragma once
#include "dpx.cuh"

namespace qt {
constexpr int VEC = 336;           // words a vector: 21 blocks of 4 x 4
constexpr int VEC4 = VEC / 4;      // its 16-byte groups
constexpr int STRIDE4 = 85;        // shared 16-byte groups a vector: 340 words = 20 mod 32, so the 8 rows' (and the 4
                                   // pairs') 16-byte loads of one step meet 32 distinct banks
constexpr int ROWS = 8, PAIRS = 4, WARPS = 7, THREADS = 32 * WARPS, SLOTS = 3;
constexpr unsigned SENTINEL = 0xC000C000u;   // -16384 in both halves: no sum with it wins or overflows

__host__ __device__ constexpr int block_index(int p, int q) { return p * 6 - p * (p - 1) / 2 + (q - p); }

__device__ __forceinline__ unsigned part(const uint4& v, int i) {
    return i == 0 ? v.x : i == 1 ? v.y : i == 2 ? v.z : v.w;
}

// One split's step s of block pair (A block, B block): rows r in [R0, R1], columns c in [C0(s), 3]. EDGE selects the
// trimmed loops: 0 all 16, 1 rows r <= s, 2 columns c >= s, 3 both.
template <int EDGE>
__device__ __forceinline__ void block_step(unsigned (&acc)[16], const uint4* Ab, const uint4* Bb) {
#pragma unroll
    for (int s = 0; s < 4; ++s) {
        const uint4 a4 = Ab[s], b4 = Bb[s];
#pragma unroll
        for (int r = 0; r < 4; ++r) {
            if ((EDGE & 1) && r > s) continue;
#pragma unroll
            for (int c = 0; c < 4; ++c) {
                if ((EDGE & 2) && c < s) continue;
                acc[r * 4 + c] = DpxS16x2::update(acc[r * 4 + c], part(a4, r), part(b4, c));
            }
        }
    }
}

// Query tile (a, b) over one split: A the left operand's vector (16-byte groups), B the right one's. The blocks of a
// tile follow by constant steps: A's (a, q) and (a, q + 1) are neighbours, B's (q + 1, b) lies 6 - (q + 1) blocks
// after (q, b); so a step adds to two pointers (block_index again at each step was a chain of dependent multiplies
// ahead of every step's loads).
__device__ __forceinline__ void query_tile(unsigned (&acc)[16], int a, int b, const uint4* A, const uint4* B) {
    if (a == b) {
        const int d = 4 * block_index(a, a);
        block_step<3>(acc, A + d, B + d);
        return;
    }
    const uint4* Ab = A + 4 * block_index(a, a);
    const uint4* Bb = B + 4 * block_index(a, b);
    block_step<1>(acc, Ab, Bb);
    for (int q = a + 1; q < b; ++q) {
        Ab += 4;
        Bb += 4 * (6 - q);
        block_step<0>(acc, Ab, Bb);
    }
    block_step<2>(acc, Ab + 4, B + 4 * block_index(b, b));
}

// The warp's query tiles (warp_tiles[3 warp + slot]: a * 8 + b, or -1 for none) and their accumulators, at SENTINEL.
__device__ __forceinline__ void warp_query_tiles(const int* __restrict__ warp_tiles, int warp, int (&qa)[SLOTS],
                                                 int (&qb)[SLOTS], unsigned (&acc)[SLOTS][16]) {
#pragma unroll
    for (int s = 0; s < SLOTS; ++s) {
        const int code = warp_tiles[3 * warp + s];
        qa[s] = code < 0 ? -1 : code >> 3;
        qb[s] = code & 7;
#pragma unroll
        for (int i = 0; i < 16; ++i) acc[s][i] = SENTINEL;
    }
}

// Query tile (a, b)'s 16 accumulator words stored whole into a vector (its block, row by row: the B layout).
__device__ __forceinline__ void store_tile(unsigned* vector, int a, int b, const unsigned (&acc)[16]) {
    uint4* o = reinterpret_cast<uint4*>(vector + 16 * block_index(a, b));
#pragma unroll
    for (int r = 0; r < 4; ++r) o[r] = make_uint4(acc[4 * r], acc[4 * r + 1], acc[4 * r + 2], acc[4 * r + 3]);
}
__device__ __forceinline__ void block_of(int index, int& p, int& q) {   // block_index's inverse
    p = 0;
    while (index >= 6 - p) { index -= 6 - p; ++p; }
    q = p + index;
}

// The chain's balanced lanes (tests/bpmax_query_tiles.py, lane_spans): lane l < 21 query tile l, whole when 1 to 3
// blocks long, else its first ceil(L / 2) blocks; lanes 21 .. 26 the rest of (0,3) (1,4) (2,5) (0,4) (1,5) (0,5);
// every block untrimmed (a term with a NEG16 operand never wins over a true one nor wraps), so a split costs the warp
// 3 block steps, not the trimmed tile loop's up to 6 and its four edge forms one after the other.
// BS: 16-byte groups a block of the staged vectors (4, or 5 where each block is padded so that the 8 lanes of a
// quarter warp reading 8 consecutive blocks meet 8 distinct bank groups: 5 k mod 8 distinct for 8 consecutive k).
struct LaneSpan {
    int a_off, b_off, n, q0, partner;   // first A and B blocks (16-byte groups), blocks, first block, merge lane
};

template <int BS>
__device__ __forceinline__ LaneSpan lane_span(int lane) {
    int a = 0, b = 0, q0 = 0, n = 0, partner = lane;
    if (lane < 21) {
        block_of(lane, a, b);
        const int L = b - a + 1;
        q0 = a;
        n = L >= 4 ? (L + 1) / 2 : L;
        if (L >= 4) partner = 21 + (L == 4 ? a : L == 5 ? 3 + a : 5);
    } else if (lane < 27) {
        const int k = lane - 21;
        a = k < 3 ? k : k < 5 ? k - 3 : 0;
        b = k < 3 ? k + 3 : k < 5 ? k + 1 : 5;
        const int L = b - a + 1;
        q0 = a + (L + 1) / 2;
        n = L - (L + 1) / 2;
    }
    return {BS * block_index(a, q0), BS * block_index(q0, b), n, q0, partner};
}

// The lane's blocks of one split: A block (a, q) and B block (q, b), q = q0 .. q0 + n - 1 (B's (q + 1, b) lies
// 6 - (q + 1) blocks after (q, b)).
template <int BS>
__device__ __forceinline__ void span_product(unsigned (&acc)[16], const LaneSpan& span, const uint4* A, const uint4* B) {
    const uint4 *Ab = A + span.a_off, *Bb = B + span.b_off;
    for (int q = span.q0; q < span.q0 + span.n; ++q) {
        block_step<0>(acc, Ab, Bb);
        Ab += BS;
        Bb += BS * (5 - q);
    }
}

}  // namespace qt
