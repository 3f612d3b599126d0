// The "query-inner" product of BPMax, as a micro-benchmark (issue 29, bench/bpmax_query_product.py): the throughput a
// register-tiled form of it reaches on the device, before anything else of that order is built.
//
// In query-inner order every target cell (i2, j2) holds the vector of all query intervals, as the 24 x 24 upper
// triangle G[x][y] = F(x, y - 1, i2, j2) (y > x), G[x][x] = S2(i2, j2). D, R1 and R2 of a cell are then, for each
// interior target split k2, one triangular max-plus product C[i][j'] = max over m in [i, j'] of
// G_(i2,k2)[i][m] + G_(k2+1,j2)[m][j'] (2,576 terms a split for a 23-nt query). A block computes a tile of 8 target
// rows x 8 target columns (32 pair words: a word holds columns 2c and 2c + 1) over a run of K splits; its 7 warps
// own the 21 query tiles of 4 x 4 outputs (up to 3 each, balanced by issued terms: tests/bpmax_query_tiles.py, whose
// plain-Python tiled form these loops follow), its 32 lanes the tile's pair
// words. A query tile (a, b) runs the 4-row block rows a of the left operands and the 4-column block columns b of
// the right ones: the row edge (block (a, a): rows r <= s at its column s), the middle blocks q in (a, b), all 16
// outputs, and the column edge (block (b, b): columns c >= s); a diagonal tile both edges at once. So it issues only
// useful terms (64 (b - a) + 16 a tile), 2,600 a split against 2,576 (the diagonal tiles' r == c outputs).
//
// Layouts (the benchmark writes both from one random table): the left operands, one cell each, as words with the
// cell's value in both halves and each 4 x 4 block stored column by column (`Ad`); the right operands, two columns a
// word, each block row by row (`Bp`). Both are 21 blocks x 16 words = 336 words a vector, copied to shared memory by
// cp.async, KS splits a stage, two stages in flight.
#include "dpx.cuh"
#include "bpmax_query_tiles.cuh"   // qt: the layouts and the query tile's loop

// tiles[3 t ..]: the tile's first row, first column pair and first split; it runs splits k0 .. k0 + K - 1 (left
// operand cell (row, k2), right operand pair (k2 + 1, pair)). warp_tiles[3 w + slot]: a * 8 + b, or -1.
// RESTAGE false: the first stage only, computed K / KS times (the inner loop's own rate, no copies). K a multiple of
// KS. (Each warp's tiles as compile-time constants, its loops unrolled whole, ran at half the rate: the code outgrew
// the instruction cache; commit d20528e.)
template <int KS, int MINB, bool RESTAGE>
__global__ void __launch_bounds__(qt::THREADS, MINB)
query_tiles(const uint4* __restrict__ Ad, const uint4* __restrict__ Bp, int cols, int col_pairs,
            const int* __restrict__ tiles, int K, const int* __restrict__ warp_tiles, unsigned* __restrict__ out) {
    using namespace qt;
    extern __shared__ uint4 smem[];
    constexpr int A_GROUPS = KS * ROWS * STRIDE4, STAGE = KS * (ROWS + PAIRS) * STRIDE4;
    const int tile = blockIdx.x, warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    const int row0 = tiles[3 * tile], pair0 = tiles[3 * tile + 1], k0 = tiles[3 * tile + 2];
    const int row = lane >> 2, pair = lane & 3;

    int qa[SLOTS], qb[SLOTS];
    unsigned acc[SLOTS][16];
    warp_query_tiles(warp_tiles, warp, qa, qb, acc);

    // The copies: threads 0 .. 167 each own one 16-byte group g of every second vector (h, h + 2, ...) of a stage, so
    // a copy's source is the thread's base plus a compile-time multiple of the row and pair strides.
    const int g = threadIdx.x % VEC4, h = threadIdx.x / VEC4;
    const bool copies = threadIdx.x < 2 * VEC4;
    const size_t a_row = (size_t)cols * VEC4, b_row = (size_t)col_pairs * VEC4;
    const uint4* a_src = Ad + ((size_t)(row0 + h) * cols + k0) * VEC4 + g;          // split k0, row h
    const uint4* b_src = Bp + ((size_t)(k0 + 1) * col_pairs + pair0 + h) * VEC4 + g; // split k0, pair h
    auto stage = [&](int buffer, int st) {   // stage st (splits k0 + st KS ..) into a buffer
        if (!copies) return;
        uint4* As = smem + buffer * STAGE + h * STRIDE4 + g;
        uint4* Bs = smem + buffer * STAGE + A_GROUPS + h * STRIDE4 + g;
        const uint4* a = a_src + (size_t)st * KS * VEC4;
        const uint4* b = b_src + (size_t)st * KS * b_row;
#pragma unroll
        for (int i = 0; i < 4 * KS; ++i)   // vector h + 2 i: split i / 4, row h + 2 (i % 4)
            cp_async16(As + 2 * i * STRIDE4, a + 2 * (i % 4) * a_row + (i / 4) * VEC4);
#pragma unroll
        for (int i = 0; i < 2 * KS; ++i)   // vector h + 2 i: split i / 2, pair h + 2 (i % 2)
            cp_async16(Bs + 2 * i * STRIDE4, b + (i / 2) * b_row + 2 * (i % 2) * VEC4);
    };

    const int stages = K / KS;
    stage(0, 0);
    cp_async_commit();
    for (int st = 0; st < stages; ++st) {
        const int buffer = RESTAGE ? st & 1 : 0;
        cp_async_wait<0>();
        __syncthreads();   // stage st has landed, and every warp is done with the other buffer (stage st - 1)
        if (RESTAGE && st + 1 < stages) {   // copied while st is computed
            stage(buffer ^ 1, st + 1);
            cp_async_commit();
        }
        const uint4* As = smem + buffer * STAGE;
        const uint4* Bs = As + A_GROUPS;
#pragma unroll
        for (int kk = 0; kk < KS; ++kk) {
            const uint4* A = As + (kk * ROWS + row) * STRIDE4;
            const uint4* B = Bs + (kk * PAIRS + pair) * STRIDE4;
#pragma unroll
            for (int s = 0; s < SLOTS; ++s)
                if (qa[s] >= 0) query_tile(acc[s], qa[s], qb[s], A, B);
        }
    }

    unsigned* mine = out + ((size_t)tile * 32 + lane) * VEC;
#pragma unroll
    for (int s = 0; s < SLOTS; ++s)
        if (qa[s] >= 0) store_tile(mine, qa[s], qb[s], acc[s]);
}
