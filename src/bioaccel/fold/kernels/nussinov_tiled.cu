// bioaccel's own GPU Nussinov fill (variant "tiled", the default of --backend gpu).
//
// The half-open table V (see nussinov_common.cuh) is stored as TILE x TILE tiles of the upper triangle,
// each tile contiguous (TiledLayout): only the cells the recurrence defines are allocated. Tiles are
// computed one tile diagonal d = J - I at a time, in two launches:
//   bulk:   V(I,J) = max over I < K < J of V(I,K) (x) V(K,J), a max-plus product of final tiles.
//           Register-tiled (8 x 8 cells per thread, operands from shared memory, staged by cp.async or,
//           for Int16x2Pre, by the TMA's bulk copies); with int16 scores
//           two cells share a 32-bit register and one DPX instruction (__viaddmax_s16x2, Hopper's
//           VIADDMNMX.S16x2) does two max-plus updates. The K range of a tile is split over several
//           blocks when the diagonal has few tiles (the last diagonals hold few tiles but most of the
//           work); partial maxima meet in an int32 scratch tile through atomicMax.
//   finish: one block per tile adds the pair term and the splits inside tiles I and J in shared memory
//           and writes the final tile: off the diagonal in 16-wide sub-tiles (whole sub-tile products,
//           wavefronts only inside a sub-tile; finish_sub_tile), which also writes the tile's A operands
//           in the bulk's duplicated form (Int16x2Pre); on the diagonal wavefront by wavefront.
#include "dpx.cuh"                 // runtime/kernels: DPX lanes, cp.async and TMA copies
#include "red_rows.cuh"            // runtime/kernels: the maxima's atomics by rows (ROWS)
#include "nussinov_common.cuh"

// TILE is a template parameter (128 in production; the GPU tests shrink it to 32 so that small inputs
// cross many tiles, tests/conftest.py). A bulk block has (TILE/8)^2 threads, each 8 x 8 cells.

// Word j of a 16-byte vector (j known at compile time where it is used: unrolled loops).
__device__ __forceinline__ unsigned word_of(const uint4& v, int j) {
    return j == 0 ? v.x : j == 1 ? v.y : j == 2 ? v.z : v.w;
}

// Four consecutive cells (8- or 16-byte aligned) as one vector load.
__device__ __forceinline__ void load4(const short* p, short (&v)[4]) {
    const uint2 w = *reinterpret_cast<const uint2*>(p);
    v[0] = (short)(w.x & 0xffff);
    v[1] = (short)(w.x >> 16);
    v[2] = (short)(w.y & 0xffff);
    v[3] = (short)(w.y >> 16);
}
__device__ __forceinline__ void load4(const int* p, int (&v)[4]) {
    const int4 w = *reinterpret_cast<const int4*>(p);
    v[0] = w.x;
    v[1] = w.y;
    v[2] = w.z;
    v[3] = w.w;
}

// ---- bulk product -------------------------------------------------------------------------------

// int16 cells: accumulators hold two cells per register.
struct Int16x2 : DpxS16x2 {
    typedef short score_t;
    static constexpr bool DUP_A = false;             // the duplicated A operands made in the inner loop
    static constexpr bool PRE_A = false;
    static constexpr int MIX = 0;                    // accumulator words in the FMA-pipe form (FmaMix)
    __device__ static __forceinline__ word_t a_word(short a) { return dup16(a); }
    // both lanes + delta, wrapping: a move by delta and one by -delta give back the same bits
    __device__ static __forceinline__ word_t shift(word_t w, int delta) { return __vadd2(w, dup16(delta)); }
};

// Int16x2 with the duplicated A operands made once per stage into shared memory (a third buffer, Ad),
// not once per thread that reads them: the inner loop is then DPX and shared loads only. (Nsight
// Compute on Int16x2, H100, n = 26,000: the ALU pipe, which runs both the DPX and the __byte_perm, was
// the busiest at 76%; 16 byte-perms per 64 DPX.)
struct Int16x2Dup : Int16x2 {
    static constexpr bool DUP_A = true;
};

// Int16x2 with the duplicated A operands read ready-made: the finish of every tile off the diagonal also
// writes it in the Ad form (finish_sub_tile, Adup: 4 bytes a cell), so a stage copies Ad from global
// memory like B, with no As buffer, no duplicating pass and one barrier less.
struct Int16x2Pre : Int16x2 {
    static constexpr bool PRE_A = true;
};

// int32 cells (sequences of 65,535 nt and more, or large weights): one cell per register.
struct Int32x1 : DpxS32 {
    typedef int score_t;
    __device__ static __forceinline__ word_t a_word(int a) { return a; }
    __device__ static __forceinline__ word_t shift(word_t w, int delta) { return w + delta; }
    static constexpr bool DUP_A = false;
    static constexpr bool PRE_A = false;
    static constexpr int MIX = 0;
};

// Int16x2Pre or Int16x2Dup with the first WORDS of a thread's 32 accumulator words (8 rows x 4 words; word 4 x + y)
// updated two k at a time in the FMA-pipe form (dpx.cuh, DpxS16x2::update2_fma: two IMAD.IADD and one VIMNMX3 for
// four updates), the others in DPX, so that the ALU pipe, which bounds the products (Nsight Compute: the busiest,
// ~76%), issues fewer instructions an update (issue 29, helper nbmix). Exact only in the int16 encoding
// (fold/_gpu_tiled.mixed_lanes), where every operand a product reads for a cell of the sequence is a final cell of the
// table, 0 .. 32767, and a + b = V(r, k) + V(k, q) <= V(r, q) <= the largest score, which int16 cells hold (r < k <
// q; the split k is one of V(r, q)'s). The one negative lane read is B's POISON -1 (the table's fill) at columns
// past the sequence's end (q >= N, last tile column; A's tiles (I, K) have K < J, wholly inside): its carry lands
// in the word's high lane, column q + 1, past the end too, and the finish holds every cell past the end at 0.
template <typename P, int WORDS>
struct FmaMix : P {
    static_assert(P::PER_WORD == 2 && (P::PRE_A || P::DUP_A) && WORDS > 0 && WORDS <= 32, "int16 lanes, dup_stage");
    static constexpr int MIX = WORDS;
};

// Accumulator word c of a thread (4 x + y) after two consecutive k: the FMA-pipe form for the first P::MIX words.
template <typename P>
__device__ __forceinline__ typename P::word_t update_pair(int c, typename P::word_t acc, typename P::word_t a0,
                                                          typename P::word_t b0, typename P::word_t a1,
                                                          typename P::word_t b1) {
    if constexpr (P::MIX > 0) {
        if (c < P::MIX) return P::update2_fma(acc, a0, b0, a1, b1);
    }
    return P::update(P::update(acc, a0, b0), a1, b1);
}

// Global -> shared copies of the next stage run while the current one is computed. A stays in its
// stored (row) form in shared memory; a thread reads two k of one row as one 32-bit word and makes
// the duplicated DPX operands with __byte_perm. A thread's 8 rows are ty, ty+TILE/8, ..., so the two
// rows a warp reads at once sit in different banks.

// edges == 0: the interior products, I+2 <= K <= J-2, which need only tile diagonals <= d-2 and so
//             run beside the finish of diagonal d-1; blockIdx.y takes `chunk` of them.
// edges == 1: the two edge products K = I+1 and K = J-1 (blockIdx.y = 0, 1), which need diagonal d-1.
// Both meet in the scratch tile through atomicMax.
// edges == 2: every product I+1 <= K <= J-1 in one block (batches: many sequences fill the GPU).
// One tile (I, J) of one table; `part` is blockIdx.y of the single-sequence launches.
//
// bases != nullptr: the offset encoding (nussinov_common.cuh, TiledOffsetLayout). The scratch tile
// then holds V - R with R = base(I+1, J-1), a tile of diagonal d-2 (final before any product of
// diagonal d runs) whose intervals lie inside those of (I, J): 0 <= V - R <= 4 T w for every cell of
// (I, J) (w: the largest weight; 2 T letters from its smallest cell to R's, 2 (T - 1) across the tile).
// Product K's operands count from base(I, K) + base(K, J) = R + off, off <= 2 T w. Before product
// K the accumulators move into its frame (acc - off; 16-bit wrapping, undone exactly by the move
// back), so the DPX max-plus compares like with like, in int16. A product with off < skip_below
// (fold/_gpu_tiled.py: -(32767 - 4 T w)) is skipped: each of its sums a + b + off <= 4 T w + off
// is below 0, no cell can take it, and keeping it would move the frame out of int16.
//
// DIRECT (batches, edges == 2: one block has every product of its tile): the maxima go straight into the
// tile's own cells of the table (`out`, the table V points into; no block reads tile (I, J) before its
// finish), as score_t, with plain vector stores: no int32 scratch, no atomics, and the finish reads
// them from the table (finish_sub_tile, FROM_TABLE).
// BLOCK (tiled_chain, issue 29): the threads of the launching block where it has more than the bulk's
// (TILE / 8)^2 (tiles below 128): the others only duplicate A operands and meet at the barriers. 0: the bulk's.
// ROWS (tiled_bulk_rows: issue 29, nbedges): the maxima staged in shared memory as int32 rows, then atomicMax by
// consecutive lanes on consecutive cells: a warp's REDs cover 128 contiguous bytes (4 sectors), where a thread's
// 8 x 8 cells make 32 sectors a RED. Nsight Compute (H200, n = 16,000, the chain's edge products of d = 61 alone):
// 94% of the kernel's long-scoreboard samples (4.6 cycles an instruction) were on the instructions after those REDs,
// which reuse the registers the REDs read (docs/gpu-notes.md, nbedges); with ROWS 45.5 -> 22.8 us.
template <typename P, int TILE, int STAGE_BYTES, bool DIRECT = false, int BLOCK = 0, bool ROWS = false>
__device__ __forceinline__ void bulk_tile(const typename P::score_t* __restrict__ V, int* __restrict__ scratch,
                                          int nt, int d, int chunk, int edges, int I, int part,
                                          const int* __restrict__ bases, int skip_below,
                                          const unsigned* __restrict__ Adup,
                                          typename P::score_t* __restrict__ out_table = nullptr) {
    typedef typename P::score_t score_t;
    typedef typename P::word_t word_t;
    constexpr int SIDE = TILE / 8;                   // threads per side, each 8 x 8 cells
    constexpr int BULK_THREADS = SIDE * SIDE;
    constexpr int SZ = sizeof(score_t);
    constexpr int KS = STAGE_BYTES / SZ;             // k per stage: STAGE_BYTES of each A row
    constexpr int VEC = 16 / SZ;                     // cells per 16-byte copy
    constexpr int ALD = KS + VEC;                    // A row stride, padded by 16 bytes
    constexpr int STAGES_PER_TILE = TILE / KS;
    constexpr int WPT = 8 / P::PER_WORD;             // accumulator words per row per thread
    // As[2][TILE][ALD], then Bs[2][KS][TILE], then with DUP_A Ad[KS][TILE] (32-bit words: A(r, k) in
    // both halves, a thread's 8 rows r = ty + SIDE x side by side at ty * 8 + x). With PRE_A: Ad[2][KS][TILE]
    // (copied from Adup), then Bs, then the two buffers' mbarriers.
    extern __shared__ __align__(16) unsigned char bulk_smem[];
    constexpr int AS_BYTES = P::PRE_A ? 2 * KS * TILE * 4 : 2 * TILE * ALD * SZ;
    auto As = reinterpret_cast<score_t (*)[TILE][ALD]>(bulk_smem);
    auto Bs = reinterpret_cast<score_t (*)[KS][TILE]>(bulk_smem + AS_BYTES);
    auto Ad = reinterpret_cast<unsigned (*)[TILE]>(bulk_smem + 2 * TILE * ALD * SZ + 2 * KS * TILE * SZ);
    auto Ad2 = reinterpret_cast<unsigned (*)[KS][TILE]>(bulk_smem);

    TiledLayout<TILE> L{nt};
    const int J = I + d;
    int K0, K1;
    if (edges == 2) {
        K0 = I + 1;
        K1 = J;
    } else if (edges) {
        if (part == 1 && J - 1 == I + 1) return;         // d == 2: one edge product only
        K0 = part == 0 ? I + 1 : J - 1;
        K1 = K0 + 1;
    } else {
        K0 = I + 2 + part * chunk;
        K1 = min(J - 1, K0 + chunk);
    }
    const int tx = threadIdx.x % SIDE, ty = threadIdx.x / SIDE;
    const int tid = threadIdx.x;
    static_assert(BLOCK == 0 || (BLOCK >= BULK_THREADS && !P::PRE_A && !DIRECT), "a larger block: cp.async staging");
    constexpr int DUP_STRIDE = BLOCK == 0 ? BULK_THREADS : BLOCK;
    const bool worker = BLOCK == 0 || BLOCK == BULK_THREADS || tid < BULK_THREADS;   // holds cells of the tile

    word_t acc[8][WPT];
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < WPT; ++y) acc[x][y] = 0;     // every V >= 0, so 0 is a neutral start

    // One stage of the duplicated forms: KS k, each a row of 8 duplicated A operands and 8 B cells (4 words).
    constexpr int DUP_UNROLL = P::PRE_A ? 8 : 4;     // H100: 8 is 0.3% faster for Pre, the same for Dup
    // row k of a stage: a thread's 8 duplicated A operands and 4 B words
    auto stage_row = [&](const unsigned (*ad)[TILE], const score_t (*bs)[TILE], int k, unsigned (&a)[8],
                         unsigned (&b)[4]) {
        const uint4 bv = *reinterpret_cast<const uint4*>(&bs[k][tx * 8]);
        const uint4 a0 = *reinterpret_cast<const uint4*>(&ad[k][ty * 8]);
        const uint4 a1 = *reinterpret_cast<const uint4*>(&ad[k][ty * 8 + 4]);
        b[0] = bv.x, b[1] = bv.y, b[2] = bv.z, b[3] = bv.w;
        a[0] = a0.x, a[1] = a0.y, a[2] = a0.z, a[3] = a0.w, a[4] = a1.x, a[5] = a1.y, a[6] = a1.z, a[7] = a1.w;
    };
    auto dup_stage = [&](const unsigned (*ad)[TILE], const score_t (*bs)[TILE]) {
        if constexpr (P::MIX == 0) {
#pragma unroll (DUP_UNROLL)
            for (int k = 0; k < KS; ++k) {
                unsigned a[8], b[4];
                stage_row(ad, bs, k, a, b);
#pragma unroll
                for (int x = 0; x < 8; ++x)
#pragma unroll
                    for (int y = 0; y < 4; ++y) acc[x][y] = P::update(acc[x][y], a[x], b[y]);
            }
        } else {
            // FmaMix: two k a step, so that a word's FMA-pipe form has both
#pragma unroll (DUP_UNROLL / 2)
            for (int k = 0; k < KS; k += 2) {
                unsigned a0[8], b0[4], a1[8], b1[4];
                stage_row(ad, bs, k, a0, b0);
                stage_row(ad, bs, k + 1, a1, b1);
#pragma unroll
                for (int x = 0; x < 8; ++x)
#pragma unroll
                    for (int y = 0; y < 4; ++y)
                        acc[x][y] = update_pair<P>(4 * x + y, acc[x][y], a0[x], b0[y], a1[x], b1[y]);
            }
        }
    };
    const int stages = (K1 - K0) * STAGES_PER_TILE;

    if constexpr (P::PRE_A) {
        // Int16x2Pre (int16 cells only, so no offset encoding here: fold/_gpu_tiled.int16_lanes): a stage is
        // two contiguous runs, KS rows of tile (I, K)'s Ad form and KS rows of tile (K, J), each one bulk
        // copy (TMA) issued by one thread and landing on the buffer's mbarrier, so no other thread spends
        // an instruction on copies. The block still meets once a stage before a buffer is refilled: letting
        // the last warp done with it refill it instead (warps a stage apart) measured slower on an H100
        // (n = 10,000: 0.0165 s against 0.0158 s; docs/gpu-notes.md).
        auto full = reinterpret_cast<unsigned long long*>(bulk_smem + AS_BYTES + 2 * KS * TILE * SZ);
        const unsigned full_at = shared_address(full);
        auto issue = [&](int stage) {
            const int K = K0 + stage / STAGES_PER_TILE, k0 = (stage % STAGES_PER_TILE) * KS, buf = stage & 1;
            const unsigned bar = full_at + 8 * buf;
            asm volatile("fence.proxy.async.shared::cta;\n" ::: "memory");  // the threads' reads, then its writes
            mbarrier_expect_bytes(bar, KS * TILE * (4 + SZ));
            bulk_copy(shared_address(Ad2[buf]), Adup + L.tile(I, K) + (long long)k0 * TILE, KS * TILE * 4, bar);
            bulk_copy(shared_address(Bs[buf]), V + L.tile(K, J) + (long long)k0 * TILE, KS * TILE * SZ, bar);
        };
        if (tid == 0) {
            mbarrier_init(full_at, 1);
            mbarrier_init(full_at + 8, 1);
        }
        __syncthreads();
        if (tid == 0)
            for (int stage = 0; stage < min(2, stages); ++stage) issue(stage);
        for (int stage = 0; stage < stages; ++stage) {
            const int buf = stage & 1;
            mbarrier_wait(full_at + 8 * buf, (stage >> 1) & 1);
            dup_stage(Ad2[buf], Bs[buf]);
            __syncthreads();                         // every thread is done with this buffer: refill it
            if (tid == 0 && stage + 2 < stages) issue(stage + 2);
        }
    } else {
        // cp.async staging. Each thread copies the same cells of every stage (COPIES 16-byte vectors of A
        // and of B, rows a fixed step apart): its offsets are computed once and a stage moves only the
        // two tile pointers. Indexing each copy afresh cost ~150 instructions a stage, most of them on
        // the ALU pipe that runs the DPX (nvdisasm of the Int16x2Pre bulk, sm_90); now ~45.
        // COPIES = TILE (KS / VEC) / BULK_THREADS = KS (TILE / VEC) / BULK_THREADS
        constexpr int COPIES = 4 * STAGE_BYTES / TILE;
        static_assert(COPIES * TILE == 4 * STAGE_BYTES && COPIES >= 1, "each thread copies whole vectors of a stage");
        constexpr int B_STEP = BULK_THREADS / (TILE / VEC);              // B rows between a thread's copies
        constexpr int A_STEP = BULK_THREADS / (KS / VEC);                // A rows between a thread's copies
        const int b_row = tid / (TILE / VEC), b_col = (tid % (TILE / VEC)) * VEC;
        const int a_row = tid / (KS / VEC), a_col = (tid % (KS / VEC)) * VEC;
        long long a_tile = L.tile(I, K0), b_tile = L.tile(K0, J);      // cell offsets of the next copy's operands
        int next_K = K0, next_sub = 0;                                   // its product and stage within the product

        auto load_stage = [&](int buf) {
            const int k0 = next_sub * KS;
            const score_t* B = V + b_tile + (long long)(k0 + b_row) * TILE + b_col;
            score_t* bs = &Bs[buf][b_row][b_col];
#pragma unroll
            for (int j = 0; j < COPIES; ++j) cp_async16(bs + j * B_STEP * TILE, B + j * B_STEP * TILE);
            const score_t* A = V + a_tile + (long long)a_row * TILE + k0 + a_col;
            score_t* as = &As[buf][a_row][a_col];
#pragma unroll
            for (int j = 0; j < COPIES; ++j) cp_async16(as + j * A_STEP * ALD, A + j * A_STEP * TILE);
            cp_async_commit();
            if (++next_sub == STAGES_PER_TILE) {         // on to the next product: tile (I, K+1), tile (K+1, J)
                next_sub = 0;
                a_tile += TILE * TILE;
                b_tile += (long long)(nt - next_K - 1) * (TILE * TILE);
                ++next_K;
            }
        };

        const int R = bases != nullptr ? bases[L.index(I + 1, J - 1)] : 0;
        auto product_offset = [&](int stage) {
            const int K = K0 + stage / STAGES_PER_TILE;
            return bases[L.index(I, K)] + bases[L.index(K, J)] - R;
        };
        auto move = [&](int delta) {
#pragma unroll
            for (int x = 0; x < 8; ++x)
#pragma unroll
                for (int y = 0; y < WPT; ++y) acc[x][y] = P::shift(acc[x][y], delta);
        };
        int frame = 0, next_off = 0;                     // the accumulators hold V - R - frame
        bool skip = false;

        if (stages > 0) {
            if (worker) load_stage(0);
            if (bases != nullptr) next_off = product_offset(0);
        }
        // One barrier a stage: after it stage s is in shared memory and every thread is done with stage
        // s - 1, whose buffer the copy of stage s + 1 (in flight while s is computed) then overwrites.
        for (int stage = 0; stage < stages; ++stage) {
            const int buf = stage & 1;
            const int off = next_off;                    // of this stage's product, read a stage ahead
            cp_async_wait<0>();
            __syncthreads();
            if (stage + 1 < stages) {
                if (worker) load_stage(buf ^ 1);
                if (bases != nullptr && (stage + 1) % STAGES_PER_TILE == 0) next_off = product_offset(stage + 1);
            }
            if (bases != nullptr && stage % STAGES_PER_TILE == 0) {
                skip = off < skip_below;
                if (!skip) {
                    move(frame - off);
                    frame = off;
                }
            }
            if constexpr (P::DUP_A) {
                if (!skip) {
                    for (int e = tid; e < TILE * (KS / 2); e += DUP_STRIDE) {
                        const int r = e % TILE, k = 2 * (e / TILE);
                        const unsigned w = *reinterpret_cast<const unsigned*>(&As[buf][r][k]);
                        const int at = (r % SIDE) * 8 + r / SIDE;
                        Ad[k][at] = __byte_perm(w, 0, 0x1010);
                        Ad[k + 1][at] = __byte_perm(w, 0, 0x3232);
                    }
                }
                __syncthreads();
            }
            if (!skip && worker) {
                if constexpr (P::DUP_A) {
                    dup_stage(Ad, Bs[buf]);
                } else if constexpr (P::PER_WORD == 2) {
#pragma unroll 2
                    for (int k = 0; k < KS; k += 2) {
                        const uint4 b0v = *reinterpret_cast<const uint4*>(&Bs[buf][k][tx * 8]);
                        const uint4 b1v = *reinterpret_cast<const uint4*>(&Bs[buf][k + 1][tx * 8]);
                        const unsigned b0[4] = {b0v.x, b0v.y, b0v.z, b0v.w};
                        const unsigned b1[4] = {b1v.x, b1v.y, b1v.z, b1v.w};
#pragma unroll
                        for (int x = 0; x < 8; ++x) {
                            const unsigned w = *reinterpret_cast<const unsigned*>(&As[buf][ty + SIDE * x][k]);
                            const unsigned lo = __byte_perm(w, 0, 0x1010), hi = __byte_perm(w, 0, 0x3232);
#pragma unroll
                            for (int y = 0; y < 4; ++y) {
                                acc[x][y] = P::update(acc[x][y], lo, b0[y]);
                                acc[x][y] = P::update(acc[x][y], hi, b1[y]);
                            }
                        }
                    }
                } else {
#pragma unroll 4
                    for (int k = 0; k < KS; ++k) {
                        const int4 b0v = *reinterpret_cast<const int4*>(&Bs[buf][k][tx * 8]);
                        const int4 b1v = *reinterpret_cast<const int4*>(&Bs[buf][k][tx * 8 + 4]);
                        const int b[8] = {b0v.x, b0v.y, b0v.z, b0v.w, b1v.x, b1v.y, b1v.z, b1v.w};
#pragma unroll
                        for (int x = 0; x < 8; ++x) {
                            const int a = As[buf][ty + SIDE * x][k];
#pragma unroll
                            for (int y = 0; y < 8; ++y) acc[x][y] = P::update(acc[x][y], a, b[y]);
                        }
                    }
                }
            }
        }
        if (frame != 0) move(frame);
    }
    if constexpr (DIRECT) {
        // a thread's row r holds cells tx * 8 .. tx * 8 + 7: 8 cells, one 16-byte store (int16) or two
        score_t* tile = out_table + L.tile(I, J);
#pragma unroll
        for (int x = 0; x < 8; ++x) {
            uint4* at = reinterpret_cast<uint4*>(tile + (ty + SIDE * x) * TILE + tx * 8);
#pragma unroll
            for (int v = 0; v < WPT / 4; ++v)
                at[v] = make_uint4((unsigned)acc[x][4 * v], (unsigned)acc[x][4 * v + 1], (unsigned)acc[x][4 * v + 2],
                                   (unsigned)acc[x][4 * v + 3]);
        }
        return;
    }
    if (!worker) return;
    int* out = scratch + (long long)I * TILE * TILE;
    if constexpr (ROWS) {
        // the stage buffers are done with after the barrier; the host gives them at least TILE * TILE * 4 bytes
        static_assert(BLOCK == 0 && !DIRECT, "tiled_bulk_rows: the bulk's blocks, scratch tiles");
        // group g: row ty + SIDE (g / 2), the columns tx * 8 + 4 (g % 2) .. + 3 (red_rows.cuh)
        red_by_rows<BULK_THREADS, TILE * TILE, 16>(
            out, reinterpret_cast<int*>(bulk_smem), tid,
            [&](int g) {
                const int x = g / 2, v = g % 2;
                int cell[4];
#pragma unroll
                for (int c = 0; c < 4; ++c)
                    cell[c] = P::lane(acc[x][(4 * v + c) / P::PER_WORD], (4 * v + c) % P::PER_WORD);
                return RowCells{(ty + SIDE * x) * TILE + tx * 8 + 4 * v, make_int4(cell[0], cell[1], cell[2], cell[3])};
            },
            [](int* at, int v) { atomicMax(at, v); });
        return;
    }
#pragma unroll
    for (int x = 0; x < 8; ++x)
#pragma unroll
        for (int y = 0; y < WPT; ++y)
#pragma unroll
            for (int h = 0; h < P::PER_WORD; ++h) {
                const int r = ty + SIDE * x, q = tx * 8 + y * P::PER_WORD + h;
                atomicMax(out + r * TILE + q, P::lane(acc[x][y], h));
            }
}

template <typename P, int TILE, int MIN_BLOCKS, int STAGE_BYTES>
__global__ void __launch_bounds__((TILE / 8) * (TILE / 8), MIN_BLOCKS)
tiled_bulk(const typename P::score_t* __restrict__ V, int* __restrict__ scratch, int nt, int d, int chunk,
          int edges, const int* __restrict__ bases, int skip_below, const unsigned* __restrict__ Adup) {
    bulk_tile<P, TILE, STAGE_BYTES>(V, scratch, nt, d, chunk, edges, blockIdx.x, blockIdx.y, bases, skip_below, Adup);
}

// tiled_bulk with ROWS (bulk_tile): the maxima's atomics by rows of consecutive cells (fold/_launch.SIZES.edge_rows for
// the split chain's edge products, bulk_rows for the interior products).
template <typename P, int TILE, int MIN_BLOCKS, int STAGE_BYTES>
__global__ void __launch_bounds__((TILE / 8) * (TILE / 8), MIN_BLOCKS)
tiled_bulk_rows(const typename P::score_t* __restrict__ V, int* __restrict__ scratch, int nt, int d, int chunk,
                int edges, const int* __restrict__ bases, int skip_below, const unsigned* __restrict__ Adup) {
    bulk_tile<P, TILE, STAGE_BYTES, false, 0, true>(V, scratch, nt, d, chunk, edges, blockIdx.x, blockIdx.y, bases,
                                                    skip_below, Adup);
}

// Many tables of one size back to back (a bin of sequences with the same tiles per side): blockIdx.y
// picks the table, each block does every product of its tile (edges == 2).
template <typename P, int TILE, int MIN_BLOCKS, int STAGE_BYTES>
__global__ void __launch_bounds__((TILE / 8) * (TILE / 8), MIN_BLOCKS)
batch_bulk(const typename P::score_t* __restrict__ V, int* __restrict__ scratch, int nt, int d,
           long long table_cells, long long scratch_cells) {
    const long long z = blockIdx.y;
    bulk_tile<P, TILE, STAGE_BYTES>(V + z * table_cells, scratch + z * scratch_cells, nt, d, 0, 2, blockIdx.x, 0,
                                    nullptr, 0, nullptr);
}

// The batches' bulk without scratch (edges == 2, DIRECT): `out` is V itself (written only at tile (I, J)
// of the diagonal d, read only at the tiles of diagonals below d). Launched for d = 1 too (no product:
// it writes the zeros the finish starts from).
template <typename P, int TILE, int MIN_BLOCKS, int STAGE_BYTES>
__global__ void __launch_bounds__((TILE / 8) * (TILE / 8), MIN_BLOCKS)
batch_bulk_direct(const typename P::score_t* __restrict__ V, typename P::score_t* __restrict__ out, int nt, int d,
                  long long table_cells) {
    const long long z = blockIdx.y;
    bulk_tile<P, TILE, STAGE_BYTES, true>(V + z * table_cells, nullptr, nt, d, 0, 2, blockIdx.x, 0, nullptr, 0,
                                          nullptr, out + z * table_cells);
}

// ---- in-tile finish -----------------------------------------------------------------------------
// The cells of a tile that depend on the tile itself: the splits of cell (r, q) of tile (I, J) that lie
// inside tile I (A(r, m) + X(m, q), A = tile (I, I)) and inside tile J (X(r, m) + B(m, q), B = tile
// (J, J)), and the pair term X(r+1, q-1) + w. Two forms:
//   finish_tile (every tile of the diagonal d = 0, and the batches): wavefront by wavefront (q - r
//     constant), FINISH_LANES threads per cell, one barrier per wavefront; 2 TILE - 1 wavefronts, each
//     a dependent chain of up to TILE splits per cell read from shared memory one by one.
//   finish_sub_tile (tiles off the diagonal of one long sequence): the tile cut into FINISH_SUB-wide
//     sub-tiles, whole sub-tile products where they suffice, the wavefronts only inside a sub-tile.
// This part does ~N^2 T / 2 updates in all (T = TILE), few next to the bulk's N^3 / 6, but on the chain
// of tile diagonals: docs/gpu-notes.md has what each form measured.
// bases != nullptr (the offset encoding, see bulk_tile): X holds V - R, R = base(I+1, J-1) as in the
// bulk (0 for d < 2); diagonal tiles have base 0, so the splits inside tiles I and J add up in X's
// frame unchanged. The finished tile is stored less its smallest cell, V(last row, first column) (every
// other interval of the tile contains that one), and R plus that cell becomes its base.
#define FINISH_LANES 4
#define FINISH_SUB 16

// What a finish reads besides its three tiles, staged in shared memory so that no wavefront waits on
// global memory: the letters of the rows and of the pair partners (c - 1), the weights, and the cells
// V(i+1, c-1) of the pair term that lie in neighbouring tiles (bottom row, left column), in X's frame.
template <int TILE>
struct FinishEdges {
    code_t row_code[TILE], col_code[TILE];
    int weight[25], edge_row[TILE], edge_col[TILE];
    int min_loop;
};

// Fills `e` (every thread of the block takes part; the caller's barrier publishes it); returns R.
template <typename score_t, int TILE>
__device__ __forceinline__ int stage_edges(FinishEdges<TILE>& e, const score_t* __restrict__ V,
                                           const code_t* __restrict__ s, const PairModel* __restrict__ pm,
                                           int n, int nt, int I, int J, const int* __restrict__ bases) {
    TiledLayout<TILE> L{nt};
    const int N = n + 1, tid = threadIdx.x;
    const int R = (bases != nullptr && J - I >= 2) ? bases[L.index(I + 1, J - 1)] : 0;
    auto cell = [&](int i, int c) {                    // V(i, c) - R, a final cell of another tile
        return (int)V[L.at(i, c)] + (bases != nullptr ? bases[L.index(i / TILE, c / TILE)] : 0) - R;
    };
    if (tid < 25) e.weight[tid] = pm->weight[tid];
    if (tid == 0) e.min_loop = pm->min_loop;
    if (tid < TILE) {
        const int ii = I * TILE + tid, jj = J * TILE + tid - 1;      // row i; partner c - 1 of column c
        e.row_code[tid] = ii < n ? s[ii] : 4;
        e.col_code[tid] = (jj >= 0 && jj < n) ? s[jj] : 4;
        const int below = (I + 1) * TILE, left = J * TILE - 1;
        e.edge_row[tid] = (below < N && jj < N && jj - below > 1) ? cell(below, jj) : -R;     // V = 0: -R
        e.edge_col[tid] = (ii + 1 < N && left - (ii + 1) > 1) ? cell(ii + 1, left) : -R;
    }
    return R;
}

// The pair term of cell (r, q) (the pair (i, c - 1)): inner + w, or 0 where the two cannot pair (every
// cell is at least 0, so 0 changes no maximum). Branch-free, every load in bounds: a caller may issue
// it beside the splits' loads.
template <typename score_t, int TILE, int LD>
__device__ __forceinline__ int pair_candidate(const FinishEdges<TILE>& e, const score_t* X, int r, int q, int i,
                                              int c, int R) {
    const int w = (c - 1) - i - 1 >= e.min_loop ? e.weight[e.row_code[r] * 5 + e.col_code[q]] : 0;
    const int below_left = X[min(r + 1, TILE - 1) * LD + max(q - 1, 0)];
    const int inner = c - i <= 3 ? -R                              // V of at most one letter: 0
                      : r + 1 < TILE && q >= 1 ? below_left
                      : q >= 1 ? e.edge_row[q]                      // row i+1 opens tile row I+1
                               : e.edge_col[r];                     // column c-1 closes tile column J-1
    return w > 0 ? inner + w : 0;
}

// Writes the finished tile (less its smallest cell in the offset encoding) and its base; returns the
// value taken off every cell (that smallest cell, or 0).
template <typename score_t, int TILE, int LD, int THREADS>
__device__ __forceinline__ int store_finished(score_t* __restrict__ V, const score_t* X, int n, int nt, int I,
                                               int J, int R, int* __restrict__ bases) {
    TiledLayout<TILE> L{nt};
    const int N = n + 1;
    score_t* out = V + L.tile(I, J);
    const int low = (bases != nullptr && I != J) ? (int)X[(TILE - 1) * LD] : 0;
    if (bases != nullptr && threadIdx.x == 0) bases[L.index(I, J)] = R + low;
    for (int k = threadIdx.x; k < TILE * TILE; k += THREADS) {
        const int rr = k / TILE, q = k % TILE;
        const int ii = I * TILE + rr, cc = J * TILE + q;
        if (ii < N && cc < N && cc > ii) out[k] = (score_t)((int)X[rr * LD + q] - low);
    }
    return low;
}

// Shared memory (dynamic): X = tile (I, J) being finished, A = tile (I, I), B = tile (J, J), each
// TILE x LD cells of score_t; LD an odd number of words, so the column reads meet no bank conflicts.
// DIAG (batch_finish_diag, issue 29): d is 0 (the caller passes it), X alone in shared memory, the
// diagonal's split loop unrolled by 4 (its shared loads issued ahead of the DPX chain).
template <typename score_t, int TILE, bool DIAG = false>
__device__ __forceinline__ void finish_tile(score_t* __restrict__ V, int* __restrict__ scratch,
                                            const code_t* __restrict__ s, const PairModel* __restrict__ pm,
                                            int n, int nt, int d, int I, int* __restrict__ bases) {
    extern __shared__ __align__(16) unsigned char smem_raw[];
    constexpr int LD = TILE + 4 / sizeof(score_t);
    constexpr int THREADS = TILE * FINISH_LANES;
    score_t* X = reinterpret_cast<score_t*>(smem_raw);
    score_t* A = X + TILE * LD;
    score_t* B = A + TILE * LD;
    __shared__ FinishEdges<TILE> e;
    const int N = n + 1;
    const int J = I + d;
    const bool diagonal = d == 0;
    const int R = stage_edges<score_t, TILE>(e, V, s, pm, n, nt, I, J, bases);
    TiledLayout<TILE> L{nt};
    int* acc = scratch + (long long)I * TILE * TILE;
    for (int k = threadIdx.x; k < TILE * TILE; k += THREADS) {
        const int rr = k / TILE, q = k % TILE;
        X[rr * LD + q] = diagonal ? 0 : (score_t)acc[k];
        if (!diagonal) {
            acc[k] = 0;                                // ready for the next diagonal
            A[rr * LD + q] = V[L.tile(I, I) + k];
            B[rr * LD + q] = V[L.tile(J, J) + k];
        }
    }
    __syncthreads();

    const int r = threadIdx.x / FINISH_LANES, lane = threadIdx.x % FINISH_LANES;
    const int i = I * TILE + r;
    const int first = diagonal ? 1 : -(TILE - 1);
    for (int diff = first; diff < TILE; ++diff) {
        const int q = r + diff, c = J * TILE + q;
        const bool active = q >= 0 && q < TILE && c < N && i < N && c > i;
        int best = 0;
        if (active) {
            // one DPX max-plus (VIADDMNMX) per split; lanes take every FINISH_LANES-th split
            if constexpr (DIAG) {
#pragma unroll 4
                for (int m = r + 1 + lane; m < q; m += FINISH_LANES)
                    best = __viaddmax_s32(X[r * LD + m], X[m * LD + q], best);
            } else if (diagonal) {
                for (int m = r + 1 + lane; m < q; m += FINISH_LANES)
                    best = __viaddmax_s32(X[r * LD + m], X[m * LD + q], best);
            } else {
                const score_t* a_row = A + r * LD;       // splits inside tile I: r < m < TILE
                const score_t* x_col = X + q;
#pragma unroll 4
                for (int m = r + 1 + lane; m < TILE; m += FINISH_LANES)
                    best = __viaddmax_s32(a_row[m], x_col[m * LD], best);
                const score_t* x_row = X + r * LD;       // splits inside tile J: 0 <= m < q
                const score_t* b_col = B + q;
#pragma unroll 4
                for (int m = lane; m < q; m += FINISH_LANES)
                    best = __viaddmax_s32(x_row[m], b_col[m * LD], best);
            }
            if (lane == 0)
                best = max(max(best, (int)X[r * LD + q]), pair_candidate<score_t, TILE, LD>(e, X, r, q, i, c, R));
        }
#pragma unroll
        for (int off = FINISH_LANES / 2; off > 0; off >>= 1) best = max(best, __shfl_xor_sync(0xffffffffu, best, off));
        if (lane == 0 && active) X[r * LD + q] = (score_t)best;
        __syncthreads();
    }
    store_finished<score_t, TILE, LD, THREADS>(V, X, n, nt, I, J, R, bases);
}

// The sub-tiled finish of a tile off the diagonal. With S = FINISH_SUB and G = TILE / S, sub-tile
// (a, b) (rows a S .. a S + S - 1, columns b S ..) needs the sub-tiles below it (a' > a: splits inside
// tile I) and left of it (b' < b: splits inside tile J), so sub-tiles go by sub-wavefront
// w = (G - 1 - a) + b, 2 G - 1 of them, a warp per sub-tile (G warps), one barrier per sub-wavefront:
//   products: A(a, a') (x) X(a', b) for every a' > a and X(a, b') (x) B(b', b) for every b' < b, whole
//     sub-tiles, all final; 2 x 4 cells per thread (int16 cells: two per DPX, as in the bulk).
//   closure: the splits inside the sub-tile's own row block of A and column block of B, and the pair
//     term, wavefront by wavefront inside the sub-tile (2 S - 1 steps), __syncwarp only. Lane l < S
//     owns row l of the sub-tile and holds its S splits of A in registers; lane S + l owns column l
//     and holds its S splits of B. At each step a row lane reads the S cells of X below its cell (a
//     row of XT, X transposed) and a column lane the S cells left of its cell (a row of X): the same
//     vector loads and DPX in every lane; the row lane then takes the column lane's maximum.
// The chain per tile is (2 G - 1) x (2 S - 1) short steps, where finish_tile has 2 TILE - 1 long ones.
// Shared memory (dynamic), TILE x LD buffers one after another: AB, X (one extra row: the pair term's
// edge_row), XT (X transposed), then S rows of padding (fold/_gpu_tiled.finish_shared_bytes). AB holds
// A = tile (I, I) above its diagonal (the splits r < m) and B = tile (J, J) transposed below it
// (m < q: AB(q, m) = B(m, q)), so that every row a closure lane reads is contiguous. LD: rows 16-byte
// aligned, 4 banks apart.
// Cells past the sequence's end (c >= N) are held at 0 in X and XT, so that a masked split (operand
// OUT) stays below every real one.
// FROM_TABLE (batches, after batch_bulk_direct): the products' maxima are read from the tile's own cells
// of the table, not from an int32 scratch tile (`scratch` unused).
// Bits lo .. hi - 1 of a 32-bit mask (lo, hi clamped to 0 .. 32).
__device__ __forceinline__ unsigned bit_range(int lo, int hi) {
    lo = max(0, min(32, lo));
    hi = max(lo, min(32, hi));
    const unsigned below_hi = hi >= 32 ? ~0u : (1u << hi) - 1u, below_lo = lo >= 32 ? ~0u : (1u << lo) - 1u;
    return below_hi & ~below_lo;
}

// A 16-byte shared-memory load made only by the lanes whose `mask & bit` is set: one predicated
// instruction, no branch, and the lanes left out cost no bank accesses; 0 there (left undefined, the
// registers would stay live from step to step: spills at 72 registers). volatile and "memory": it stays
// after the previous step's stores and __syncwarp.
__device__ __forceinline__ uint4 lds128_when(unsigned mask, unsigned bit, const void* at) {
    uint4 v = make_uint4(0u, 0u, 0u, 0u);
    asm volatile("{\n .reg .pred q;\n .reg .b32 t;\n and.b32 t, %4, %5;\n setp.ne.b32 q, t, 0;\n"
                 " @q ld.shared.v4.u32 {%0, %1, %2, %3}, [%6];\n}\n"
                 : "+r"(v.x), "+r"(v.y), "+r"(v.z), "+r"(v.w)
                 : "r"(mask), "r"(bit), "r"(shared_address(at))
                 : "memory");
    return v;
}

// The best of a lane's 16 splits, int16 cells two a word: the max over both halves of pre[m] + the line's word m,
// the line's 8 words in two 16-byte loads (v0, v1); two chains of DPX, and their last max a DPX too (vmaxs2 is
// emulated).
__device__ __forceinline__ int packed_splits_max(const int* pre, const uint4 v0, const uint4 v1) {
    unsigned m0 = __viaddmax_s16x2(pre[0], v0.x, 0u), m1 = __viaddmax_s16x2(pre[1], v0.y, 0u);
    m0 = __viaddmax_s16x2(pre[2], v0.z, m0);
    m1 = __viaddmax_s16x2(pre[3], v0.w, m1);
    m0 = __viaddmax_s16x2(pre[4], v1.x, m0);
    m1 = __viaddmax_s16x2(pre[5], v1.y, m1);
    m0 = __viaddmax_s16x2(pre[6], v1.z, m0);
    m1 = __viaddmax_s16x2(pre[7], v1.w, m1);
    const unsigned both = __viaddmax_s16x2(m0, 0u, m1);
    return max((int)(short)(both & 0xffff), (int)(short)(both >> 16));
}

// Form 7's closure steps (finish_closure 10; issue 29, helper nbunroll): form 4's 2 S - 1 steps with every loop
// unrolled, so that a step's mask bits, its shuffle's distance and its addresses are compile-time constants (form 4
// kept running pointers and shifted masks: ~16 of its ~36.5 SASS a step were address, mask and predicate work).
// Only the line's address stays a register a step: a row lane walks XT down (+LD), a column lane X up (-LD).
// A row lane's column lane at step t is lane + 1 + t: a shuffle down by a constant (the lanes that store stay
// below 32, so the clamp never matters). The pair term is max'ed in only where it is allowed (one predicated DPX
// add-max instead of a select of 0), the same candidates as form 4: the same bits.
// AHEAD (form 8, finish_closure 11; issue 29, helper nbahead): each lane's line of step t + 1, and the pair term's
// cell, are loaded in step t, before its stores, into registers of their own, so that no step waits for a
// shared-memory round trip of the cell stored the step before. Such a line holds one cell stored in step t: a row
// lane's X(r + 1, q) (row lane + 1's cell of step t) and its column lane's X(r, q - 1) (the row lane's own). The line
// holds their values from before the closure, no greater than the final ones (a cell's closure only raises it), which
// change no maximum; the row lane adds the final ones from registers: row lane + 1's by a shuffle down by 1 plus
// A(r, r + 1) (`a_next`), its own plus B(q - 1, q), which lane q - b S holds (`b_left`) and a shuffle by a constant
// brings. Both weights are OUT where the cell lies outside the sub-tile, so the candidates are the same: the same
// bits. The lane's own candidates go first, the column lane's maximum next, the row below's cell last (a step's
// chain: the next line's load and DPX, or the unpack, the column lane's shuffle and three maxima; nbahead's notes).
template <int S, int LD, int UNROLL, bool AHEAD = false>
__device__ __forceinline__ void closure_steps_unrolled(const int* pre, const short* line, int line_step, short* cell,
                                                       short* cell_t, const int* pair_row, unsigned store_mask,
                                                       unsigned pair_mask, int a_next = 0, int b_left = 0) {
    constexpr int STEPS = 2 * S - 1;
    static_assert(2 * S % UNROLL == 0, "groups of UNROLL steps, the last one short");
    // opaque to the compiler: known to be +-LD, it kept two pointers and a select of two offsets a step (3 SASS)
    int step;
    asm("mov.b32 %0, %1;" : "=r"(step) : "r"(line_step));
    auto load_line = [&](uint4 (&v)[2]) {
        v[0] = *reinterpret_cast<const uint4*>(line);
        v[1] = *reinterpret_cast<const uint4*>(line + 8);
        line += step;
    };
    uint4 next[2];                              // AHEAD: the next step's line and pair cell, the lane's last value
    int next_inner = 0, prev = 0;
    if constexpr (AHEAD) {
        load_line(next);
        if (pair_mask & 1u) next_inner = (int)cell[LD - 1];
    }
#pragma unroll 1
    for (int t0 = 0; t0 < STEPS; t0 += UNROLL) {
#pragma unroll
        for (int j = 0; j < UNROLL; ++j) {
            const int t = t0 + j;
            if (j == UNROLL - 1 && t >= STEPS) break;                 // 32 steps of groups, 2 S - 1 made
            uint4 v[2];
            int inner = 0;
            if constexpr (AHEAD) {
                v[0] = next[0];
                v[1] = next[1];
                inner = next_inner;
                if (t + 1 < STEPS) {
                    load_line(next);
                    if ((pair_mask >> (t + 1)) & 1u) next_inner = (int)cell[j + LD];
                }
            } else {
                load_line(v);
            }
            const int best = packed_splits_max(pre, v[0], v[1]);
            const int via_b = __shfl_down_sync(0xffffffffu, best, 1 + t);
            const int pair_cell = AHEAD ? inner : (int)cell[j + LD - 1];
            int v_t;
            if constexpr (!AHEAD) {
                v_t = max(best, via_b);
                if ((pair_mask >> t) & 1u) v_t = __viaddmax_s32(pair_cell, pair_row[j], v_t);
            } else {
                v_t = best;
                if ((pair_mask >> t) & 1u) v_t = __viaddmax_s32(pair_cell, pair_row[j], v_t);
                if (t > 0) {
                    const int b = t < S - 1    ? __shfl_up_sync(0xffffffffu, b_left, S - 1 - t)
                                  : t == S - 1 ? b_left
                                               : __shfl_down_sync(0xffffffffu, b_left, t - (S - 1));
                    v_t = __viaddmax_s32(prev, b, v_t);
                }
                v_t = max(v_t, via_b);
                if (t > 0) v_t = __viaddmax_s32(__shfl_down_sync(0xffffffffu, prev, 1), a_next, v_t);
                prev = v_t;
            }
            if ((store_mask >> t) & 1u) {
                cell[j] = (short)v_t;
                cell_t[j * LD] = (short)v_t;
            }
            __syncwarp();
        }
        cell += UNROLL;
        cell_t += UNROLL * LD;
        pair_row += UNROLL;
    }
}

// The closure of a sub-tile on the diagonal of a diagonal tile (DIAG below; issue 29, helper nbdiag): the triangle
// of cells (r, q), r0 <= r < q < r0 + S, by a warp: lanes 0 .. S - 1 a row each, S - 1 steps by span q - r (lanes
// S .. 31 idle: their loads would cost wavefronts, nbbatch6). A cell's splits are the sums of X's row r and XT's row
// q over the sub-tile's S columns m, as vectors: X(r, m) + X(m, q). The tile's cells below its diagonal hold
// `below` (< 0 with any cell), so the splits m < r and m > q sum below 0; the diagonal holds 0 (m = r or q: the
// held value). Then the triangle is mirrored below its diagonal (X(q, r) = X(r, q)): the closures of the tile's
// off-diagonal sub-tiles read their B rows there (AB = X). Same candidates as finish_tile's DIAG: the same bits.
template <typename score_t, int TILE, int LD>
__device__ __forceinline__ void close_diagonal_sub_tile(score_t* X, score_t* XT, const FinishEdges<TILE>& e,
                                                        int r0, int I, int N, int R, int lane) {
    constexpr int S = FINISH_SUB;
    if (lane < S) {
        const int r = r0 + lane, i = I * TILE + r;
        for (int span = 1; span < S; ++span) {
            const int q = r + span, c = I * TILE + q;       // q up to r0 + 2 S - 2: XT's padding rows
            int best;
            if constexpr (sizeof(score_t) == 2) {
                const uint4 x0 = *reinterpret_cast<const uint4*>(X + r * LD + r0);
                const uint4 x1 = *reinterpret_cast<const uint4*>(X + r * LD + r0 + 8);
                const int pre[8] = {(int)x0.x, (int)x0.y, (int)x0.z, (int)x0.w, (int)x1.x, (int)x1.y, (int)x1.z,
                                    (int)x1.w};
                best = packed_splits_max(pre, *reinterpret_cast<const uint4*>(XT + q * LD + r0),
                                         *reinterpret_cast<const uint4*>(XT + q * LD + r0 + 8));
            } else {
                best = 0;
#pragma unroll
                for (int m = 0; m < S; ++m) best = __viaddmax_s32(X[r * LD + r0 + m], XT[q * LD + r0 + m], best);
            }
            if (lane + span < S && c < N) {
                const score_t v = (score_t)max(best, pair_candidate<score_t, TILE, LD>(e, X, r, q, i, c, R));
                X[r * LD + q] = v;
                XT[q * LD + r] = v;
            }
            __syncwarp(0xffffu);
        }
    }
    __syncwarp();
    for (int k = lane; k < S * S; k += 32) {
        const int rr = r0 + k / S, qq = r0 + k % S;
        if (rr < qq) X[qq * LD + rr] = X[rr * LD + qq];
    }
}

// FINISH_AHEAD, a bit of finish_sub_tile's FORM_BITS (issue 29, helper nbskew): a sub-tile's product blocks over
// the farther sub-tiles (k >= 2 sub-tiles below or left) are final a sub-wavefront before the nearest two, so the
// warps that sub-wavefront w leaves idle take those of w + 1's sub-tiles, at most AHEAD_CAP blocks a warp (a
// closure lasts ~10 product blocks); the target's own warp does the rest and the nearest two at w + 1. The same
// maxima of the same candidates in another order (bench/nussinov_skew_model.py: ahead_done is this split).
#define FINISH_AHEAD 16
#define AHEAD_CAP 10

// Far product blocks of the sub-tile that warp t holds in sub-wavefront w: max(0, G - 2 - a) + max(0, b - 1).
template <int G>
__device__ __forceinline__ int far_blocks(int w, int t) {
    const int a = max(0, G - 1 - w) + t, b = w - (G - 1 - a);
    return max(0, G - 2 - a) + max(0, b - 1);
}

// How many of the far blocks of warp t's sub-tile in w + 1 the warps idle in w take: idle warp t % idle takes its
// targets t % idle, + idle, ... in turn, CAP blocks in all.
template <int G, int CAP>
__device__ __forceinline__ int ahead_done(int w, int t) {
    const int idle = G - min(min(w + 1, 2 * G - 1 - w), G);
    if (idle <= 0) return 0;
    int budget = CAP;
    for (int u = t % idle; u < t; u += idle) budget -= far_blocks<G>(w + 1, u);
    return max(0, min(far_blocks<G>(w + 1, t), budget));
}

// TIGHT (batches, int16 cells; 0: off): 1 the closure with its tests as mask bits and its addresses as
// running pointers only (the same cells, splits and order), the tile stored as 16-byte rows; 2 also only
// the lanes that use a load make it (predicated), and the tile read into shared memory a warp two rows a
// step (no bank conflicts in the transposed stores); 3 form 1's closure after form 2's read (issue 29, helper
// nbfin: form 2's predicated loads cost more instructions than their wavefronts saved); 4 form 3 with a slimmer
// step: the held value X(r, q) taken from the row lane's own line (its split weight there 0, not OUT), the pair
// weight from a table of the tile's columns by row letter made once (no letter load, no index arithmetic), the
// pair term's loads only where the row lane stores and a pair is allowed, with no test of the inner interval; 5 form 4 with the line loads and the splits in a branch taken
// only where the lane's cell lies in the sub-tile (fewer shared-memory wavefronts; no zeroed registers as form 2's
// asm had: its predicated loads with the registers left as they were, one predicate for both, held them live from
// step to step and spilled 80 bytes at 72 registers) (issue 29, helper nbbatch4). docs/gpu-notes.md, issue 29.
// FRESH (tiled_chain): the scratch tile was just written by this block's own edge products (atomics at L2): read
// through L2 (ld.global.cg), past any line the SM's L1 might hold. TIGHT 1 without FROM_TABLE (issue 29,
// nbpersist): the single sequence's finish with form 1's closure, its tile read and stores as before.
// DIAG (batch_finish_sub_diag; d = 0, issue 29, helper nbdiag): a tile on the diagonal, A = B = X itself (AB is X:
// no copy; S rows of padding before it instead), no read of the table (its cells start at 0, below the diagonal at the splits' OUT); G sub-wavefronts
// w = b - a, a warp a row block a: w = 0 the triangles (close_diagonal_sub_tile), then sub-tile (a, a + w) with
// the products of the sub-tiles between (a < a' < b; none from B) and the same closure.
template <typename score_t, int TILE, bool FROM_TABLE = false, int FORM_BITS = 0, bool FRESH = false,
          bool DIAG = false>
__device__ __forceinline__ void finish_sub_tile(score_t* __restrict__ V, int* __restrict__ scratch,
                                                const code_t* __restrict__ s, const PairModel* __restrict__ pm,
                                                int n, int nt, int d, int I, int* __restrict__ bases,
                                                unsigned* __restrict__ Adup) {
    constexpr int S = FINISH_SUB, G = TILE / S;
    constexpr int TIGHT = FORM_BITS & (FINISH_AHEAD - 1);
    constexpr bool AHEAD = (FORM_BITS & FINISH_AHEAD) != 0;
    static_assert(!AHEAD || (sizeof(score_t) == 2 && TIGHT), "AHEAD: int16 cells, a TIGHT closure");
    constexpr int LD = TILE + 16 / sizeof(score_t);
    constexpr int THREADS = 32 * G;
    constexpr bool PACKED = sizeof(score_t) == 2;
    static_assert(S == 16, "products: 8 rows x 4 column groups of 4 cells per warp; closure: 16 + 16 lanes");
    extern __shared__ __align__(16) unsigned char smem_raw[];
    // DIAG: S rows before X, where the closure's lanes outside their sub-tile read (AB's place off the diagonal)
    score_t* AB = reinterpret_cast<score_t*>(smem_raw) + (DIAG ? S * LD : 0);
    score_t* X = DIAG ? AB : AB + TILE * LD;          // TILE + 1 rows: row TILE holds edge_row
    score_t* XT = X + (TILE + 1) * LD;                // then S rows of padding
    __shared__ FinishEdges<TILE> e;
    const int N = n + 1;
    const int J = I + d;
    const int R = stage_edges<score_t, TILE>(e, V, s, pm, n, nt, I, J, bases);
    constexpr bool SLIM = PACKED && TIGHT >= 4;        // forms 4 and 5: the slimmer closure step
    // forms 4 and 5 in the single sequence's finish (issue 29, helper nb16warps; finish_closure 7 and 8): X's cells
    // are >= 0 in the offset encoding's frame too (every cell of tile (I, J) contains the interval of R, tile
    // (I + 1, J - 1)'s smallest cell), and an empty inner interval (d = 1 only) has R = 0: the batches' reasons hold
    static_assert(!SLIM || !FRESH, "forms 4 and 5: not in tiled_chain");
    int* pair_w = nullptr;                             // SLIM: weight of (row letter l, column q's partner) at l TILE + q
    if constexpr (SLIM && FROM_TABLE) {
        __shared__ int pair_weights[5 * TILE];
        pair_w = pair_weights;
    } else if constexpr (SLIM) {
        // in XT's S rows of padding (S (TILE + 8) x 2 >= 5 TILE x 4 bytes; only lanes whose results are dropped read
        // there): a static table would not fit beside the padded interior block (bulk_shared_pad)
        pair_w = reinterpret_cast<int*>(XT + TILE * LD);
    }
    if constexpr (DIAG) {
        // X zero on and above the diagonal, `below` under it; XT = X transposed (`below` above its diagonal):
        // both written row by row, 16 bytes a store
        constexpr int VEC = 16 / sizeof(score_t), below = PACKED ? -32768 : -(1 << 20);
        for (int k = threadIdx.x; k < TILE * TILE / VEC; k += THREADS) {
            const int r = k / (TILE / VEC), q0 = (k % (TILE / VEC)) * VEC;
            score_t x[VEC], t[VEC];
#pragma unroll
            for (int y = 0; y < VEC; ++y) {
                x[y] = q0 + y < r ? (score_t)below : (score_t)0;
                t[y] = q0 + y > r ? (score_t)below : (score_t)0;
            }
            *reinterpret_cast<uint4*>(X + r * LD + q0) = *reinterpret_cast<const uint4*>(x);
            *reinterpret_cast<uint4*>(XT + r * LD + q0) = *reinterpret_cast<const uint4*>(t);
        }
    } else if constexpr (PACKED && TIGHT >= 2 && FROM_TABLE) {
        // a warp two rows a step, a lane one cell of each 16 of a row (2-byte loads, a warp's 32 bytes of
        // a row contiguous): the transposed stores (XT, B into AB) of a step fall in 16 consecutive rows,
        // two cells a word (2 wavefronts; 4 cells of a row a thread: 8), Nsight Compute's 57% of the
        // shared stores' wavefronts were bank conflicts (issue 29)
        TiledLayout<TILE> L{nt};
        const score_t* A = V + L.tile(I, I);
        const score_t* B = V + L.tile(J, J);
        const score_t* T_ = V + L.tile(I, J);
        const int lane = threadIdx.x % 32, r0 = 2 * (threadIdx.x / 32) + lane / 16, col = lane % 16;
#pragma unroll 2
        for (int r = r0; r < TILE; r += 2 * G) {
#pragma unroll
            for (int j = 0; j < TILE / 16; ++j) {
                const int q = col + 16 * j;
                // d = 1: no tile strictly between I and J, the products' maxima zeros (batch_bulk_direct's
                // launch skipped there: SIZES.batch_skip_first_bulk)
                const score_t x = d == 1 ? (score_t)0 : T_[r * TILE + q];
                const score_t v = J * TILE + q < N ? x : (score_t)0;
                X[r * LD + q] = v;
                XT[q * LD + r] = v;
                if (r < q) {
                    AB[r * LD + q] = A[r * TILE + q];     // A(r, q), r < q
                    AB[q * LD + r] = B[r * TILE + q];     // B(r, q) at (q, r)
                }
            }
        }
    } else {
        // four cells of a row per thread and step, each load a vector one
        TiledLayout<TILE> L{nt};
        int4* acc = reinterpret_cast<int4*>(scratch + (long long)I * TILE * TILE);
        const score_t* A = V + L.tile(I, I);
        const score_t* B = V + L.tile(J, J);
#pragma unroll 8
        for (int k = threadIdx.x; k < TILE * TILE / 4; k += THREADS) {
            const int r = 4 * k / TILE, q0 = 4 * k % TILE;
            int4 x4;
            if constexpr (FROM_TABLE) {
                score_t c4[4] = {0, 0, 0, 0};              // d = 1: no tile between, no bulk launch (zeros)
                if (d != 1) load4(V + L.tile(I, J) + 4 * k, c4);
                x4 = make_int4(c4[0], c4[1], c4[2], c4[3]);
            } else {
                if constexpr (FRESH) x4 = __ldcg(acc + k);
                else x4 = acc[k];
                acc[k] = make_int4(0, 0, 0, 0);        // ready for the next diagonal but two
            }
            score_t a4[4] = {0, 0, 0, 0}, b4[4] = {0, 0, 0, 0};
            if (q0 + 3 > r) {                          // only the cells above the diagonal are kept
                load4(A + 4 * k, a4);
                load4(B + 4 * k, b4);
            }
            const int x[4] = {x4.x, x4.y, x4.z, x4.w};
#pragma unroll
            for (int y = 0; y < 4; ++y) {
                const int q = q0 + y;
                const score_t v = J * TILE + q < N ? (score_t)x[y] : (score_t)0;
                X[r * LD + q] = v;
                XT[q * LD + r] = v;
                if (r < q) AB[r * LD + q] = a4[y];     // A(r, q), r < q
                if (r < q) AB[q * LD + r] = b4[y];     // B(r, q) at (q, r)
            }
        }
    }
    __syncthreads();
    // the pair term's cells outside the tile, where the closure reads X(r + 1, q - 1) without a branch:
    // row r + 1 = TILE (edge_row) is X's extra row, column q - 1 = -1 (edge_col) the last padding cell
    // of row r
    if (threadIdx.x < TILE) {
        const int t = threadIdx.x;
        if (t >= 1) X[TILE * LD + t - 1] = (score_t)e.edge_row[t];
        X[t * LD + LD - 1] = (score_t)e.edge_col[t];
        if constexpr (SLIM) {
#pragma unroll
            for (int l = 0; l < 5; ++l) pair_w[l * TILE + t] = e.weight[l * 5 + e.col_code[t]];
        }
    }
    __syncthreads();
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    auto put = [&](int r, int q, int v) {
        X[r * LD + q] = (score_t)v;
        XT[q * LD + r] = (score_t)v;
    };

    // products of whole sub-tiles into sub-tile (a, b), a lane rows r0 and r0 + 8, columns q0 .. q0 + 3: the splits
    // over the rows below0 .. below1 - 1 (A(r, m) + X(m, q)) and the columns left0 .. left1 - 1 (X(r, m) + B(m, q)),
    // whole sub-tiles, into what X holds
    auto products = [&](int a, int b, int below0, int below1, int left0, int left1) {
        const int r0 = a * S + lane / 4, q0 = b * S + (lane % 4) * 4;
        auto inside = [&](int y) { return J * TILE + q0 + y < N; };     // else held at 0
        if constexpr (PACKED) {
            unsigned acc[2][2];
#pragma unroll
            for (int x = 0; x < 2; ++x) {
                const uint2 v = *reinterpret_cast<const uint2*>(&X[(r0 + 8 * x) * LD + q0]);
                acc[x][0] = v.x;
                acc[x][1] = v.y;
            }
            // a sub-block of S splits at a time: the left operands of rows r0 and r0 + 8 are 2 x 16
            // contiguous cells (4 vector loads), duplicated into both halves by byte_perm
            auto left_words = [&](const score_t* rows, int mb, uint4 (&lv)[2][2]) {
#pragma unroll
                for (int x = 0; x < 2; ++x)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        lv[x][h] = *reinterpret_cast<const uint4*>(&rows[(r0 + 8 * x) * LD + mb + 8 * h]);
            };
            auto left = [&](const uint4 (&lv)[2][2], int x, int m) {
                return __byte_perm(word_of(lv[x][m / 8], (m % 8) / 2), 0, m % 2 ? 0x3232 : 0x1010);
            };
            for (int mb = below0; mb < below1; mb += S) {          // A(r, m) + X(m, q), m below
                uint4 lv[2][2];
                left_words(AB, mb, lv);
#pragma unroll
                for (int m = 0; m < S; ++m) {
                    const uint2 rt = *reinterpret_cast<const uint2*>(&X[(mb + m) * LD + q0]);
#pragma unroll
                    for (int x = 0; x < 2; ++x) {
                        acc[x][0] = __viaddmax_s16x2(left(lv, x, m), rt.x, acc[x][0]);
                        acc[x][1] = __viaddmax_s16x2(left(lv, x, m), rt.y, acc[x][1]);
                    }
                }
            }
            for (int mb = left0; mb < left1; mb += S) {            // X(r, m) + B(m, q), m left
                uint4 lv[2][2], bt[4][2];                  // bt[y]: B(mb .., q0 + y), a row of AB
                left_words(X, mb, lv);
#pragma unroll
                for (int y = 0; y < 4; ++y)
#pragma unroll
                    for (int h = 0; h < 2; ++h)
                        bt[y][h] = *reinterpret_cast<const uint4*>(&AB[(q0 + y) * LD + mb + 8 * h]);
#pragma unroll
                for (int m = 0; m < S; ++m) {
                    unsigned bw[4];
#pragma unroll
                    for (int y = 0; y < 4; ++y) bw[y] = word_of(bt[y][m / 8], (m % 8) / 2);
                    const unsigned sel = m % 2 ? 0x7632 : 0x5410;   // (B(m, q), B(m, q + 1))
                    const unsigned rt0 = __byte_perm(bw[0], bw[1], sel), rt1 = __byte_perm(bw[2], bw[3], sel);
#pragma unroll
                    for (int x = 0; x < 2; ++x) {
                        acc[x][0] = __viaddmax_s16x2(left(lv, x, m), rt0, acc[x][0]);
                        acc[x][1] = __viaddmax_s16x2(left(lv, x, m), rt1, acc[x][1]);
                    }
                }
            }
#pragma unroll
            for (int x = 0; x < 2; ++x)
#pragma unroll
                for (int y = 0; y < 4; ++y) {
                    const unsigned word = acc[x][y / 2];
                    put(r0 + 8 * x, q0 + y, inside(y) ? (int)(short)(y % 2 ? word >> 16 : word & 0xffff) : 0);
                }
        } else {
            int acc[2][4];
#pragma unroll
            for (int x = 0; x < 2; ++x)
#pragma unroll
                for (int y = 0; y < 4; ++y) acc[x][y] = X[(r0 + 8 * x) * LD + q0 + y];
            auto product = [&](bool below, int m0, int m1) {
                for (int mb = m0; mb < m1; mb += S) {
#pragma unroll
                    for (int m = mb; m < mb + S; ++m) {
                        int l[2], rt[4];
#pragma unroll
                        for (int x = 0; x < 2; ++x)
                            l[x] = below ? AB[(r0 + 8 * x) * LD + m] : X[(r0 + 8 * x) * LD + m];
#pragma unroll
                        for (int y = 0; y < 4; ++y) rt[y] = below ? X[m * LD + q0 + y] : AB[(q0 + y) * LD + m];
#pragma unroll
                        for (int x = 0; x < 2; ++x)
#pragma unroll
                            for (int y = 0; y < 4; ++y) acc[x][y] = __viaddmax_s32(l[x], rt[y], acc[x][y]);
                    }
                }
            };
            product(true, below0, below1);
            product(false, left0, left1);
#pragma unroll
            for (int x = 0; x < 2; ++x)
#pragma unroll
                for (int y = 0; y < 4; ++y) put(r0 + 8 * x, q0 + y, inside(y) ? acc[x][y] : 0);
        }
    };
    static_assert(!(DIAG && AHEAD), "the diagonal's tiles: no far products taken ahead");
    for (int w = 0; w < (DIAG ? G : 2 * G - 1); ++w) {
        const int a = DIAG ? warp : max(0, G - 1 - w) + warp, b = DIAG ? warp + w : w - (G - 1 - a);
        if (DIAG && w == 0) {
            close_diagonal_sub_tile<score_t, TILE, LD>(X, XT, e, a * S, I, N, R, lane);
        } else if (a < G && b < G) {
            if constexpr (AHEAD) {
                // the far blocks the warps idle in w - 1 took (ahead_done): the farthest below and left ones
                const int done = w >= 1 ? ahead_done<G, AHEAD_CAP>(w - 1, warp) : 0;
                const int below_done = min(done, max(0, G - 2 - a)), left_done = done - below_done;
                products(a, b, (a + 1) * S, TILE - below_done * S, left_done * S, b * S);
            } else {
                products(a, b, (a + 1) * S, DIAG ? b * S : TILE, 0, DIAG ? 0 : b * S);   // DIAG: none from B
            }
            __syncwarp();

            // closure: lane own < S is row own of the sub-tile, lane S + own column own
            const bool row_lane = lane < S;
            const int own = lane % S;
            // the lane's S splits: A(a S + own, a S + m) for m > own, or B(b S + m, b S + own) for m < own
            const score_t* pre_row = AB + (row_lane ? (a * S + own) * LD + a * S : (b * S + own) * LD + b * S);
            constexpr int WORDS = PACKED ? S / 2 : S;
            constexpr int OUT = PACKED ? -32768 : -(1 << 20);   // masked: below 0 with any cell (0 .. max)
            int pre[WORDS];
#pragma unroll
            for (int k = 0; k < WORDS; ++k) {
                if constexpr (PACKED) {
                    const int m0 = 2 * k, m1 = 2 * k + 1;
                    const bool keep0 = row_lane ? m0 > own : m0 < own, keep1 = row_lane ? m1 > own : m1 < own;
                    // SLIM: a row lane's line holds its own cell X(r, q) at m = own: split weight 0 takes the
                    // held value into the splits' maximum
                    const int held0 = SLIM && row_lane && m0 == own ? 0 : OUT;
                    const int held1 = SLIM && row_lane && m1 == own ? 0 : OUT;
                    const unsigned lo = (unsigned short)(keep0 ? (int)pre_row[m0] : held0);
                    const unsigned hi = (unsigned short)(keep1 ? (int)pre_row[m1] : held1);
                    pre[k] = (int)(lo | (hi << 16));
                } else {
                    pre[k] = (row_lane ? k > own : k < own) ? (int)pre_row[k] : OUT;
                }
            }
            const int row5 = e.row_code[a * S + own] * 5;       // a row lane's letter
            const int min_loop = e.min_loop;
            // The lane's cell moves one column right (row lane) or one row up (column lane) a step, so
            // every address moves by a constant: kept as running pointers, not made again each step.
            // Outside the sub-tile (the cell unused) they still lie in the shared buffers (AB before
            // X, XT and S rows of padding after; the letters inside FinishEdges), so nothing is clamped.
            const int dr = row_lane ? 0 : -1, dq = row_lane ? 1 : 0;
            const int r = a * S + (row_lane ? own : own + S - 1), q = b * S + (row_lane ? own - (S - 1) : own);
            const int span0 = (J - I) * TILE + q - r;          // c - i of the cell
            const int cell_step = dr * LD + dq, line_step = row_lane ? LD : -LD;
            const score_t* line = row_lane ? XT + q * LD + a * S : X + r * LD + b * S;
            score_t* cell = X + r * LD + q;                     // X(r, q); X(r + 1, q - 1) is cell + LD - 1
            score_t* cell_t = XT + q * LD + r;                  // XT(q, r)
            const code_t* partner = e.col_code + q;
            int k = own - (S - 1) * (row_lane ? 1 : -1);        // ql (row lane) or rl (column lane)
            const int k_step = row_lane ? 1 : -1;
            int span = span0, c = J * TILE + q;
            if constexpr (PACKED && TIGHT) {
                // The same steps with fewer instructions (issue 29: the loop below spends ~70 a step, 9 of
                // them DPX, the rest mostly addresses and tests made again each step). What a step tests is
                // a bit of a mask made once (bit t: step t): the row lane's store (its cell inside the
                // sub-tile and the sequence), the pair allowed by min_loop, the empty inner interval. The
                // pair term is inner + w with w = -2^20 where no pair is allowed: where w <= 0 the sum is at
                // most inner = V(i + 1, c - 1) <= V(i, c), which the splits reach (m = i + 1, then c - 1),
                // so it changes no maximum, as 0 did. Steps go in groups of 4 (mask bits by constant).
                const int t_store = row_lane ? S - 1 - own : 0;          // first step inside the sub-tile
                const unsigned store_mask = row_lane ? bit_range(t_store, min(t_store + S, N - c)) : 0u;
                // the pair term's loads (TIGHT 2: only where the row lane stores)
                // (TIGHT 2, 4, 5: only where the row lane stores)
                const bool only_stored = TIGHT == 2 || SLIM;
                const unsigned pair_mask = bit_range(min_loop + 2 - span0, 32) & (only_stored ? store_mask : ~0u);
                const unsigned inner_mask = ~bit_range(0, 4 - span0) & (only_stored ? store_mask : ~0u);  // else R_
                // the steps whose cell lies in the sub-tile (a column lane's: those its row lane takes)
                const unsigned sub_mask = row_lane ? bit_range(t_store, t_store + S) : bit_range(own, own + S);
                const int* weight_row = e.weight + row5;
                const code_t* letters = partner;                         // + t: the partner of step t
                // SLIM: + t: the pair weight of step t (read only where a row lane stores: q inside the tile)
                const int* pair_row = SLIM ? pair_w + (int)e.row_code[a * S + own] * TILE + q : nullptr;
                int best = 0;                                            // form 5: kept where a lane skips a step
                const int R_ = -R;
                int src = (S + k) & 31;                                  // + t: a row lane's column lane
                if constexpr (TIGHT == 7) {
                    closure_steps_unrolled<S, LD, 2 * S>(pre, line, line_step, cell, cell_t, pair_row, store_mask,
                                                         pair_mask);
                } else if constexpr (TIGHT == 8) {
                    // the splits of a row lane's newest two cells from registers: A(r, r + 1), B(q - 1, q) (OUT below
                    // any value a lane outside the sub-tile may have grown to: a cell's worth, 32,767, a step)
                    constexpr int BELOW = -(1 << 24);
                    const int a_next = row_lane && own + 1 < S ? (int)pre_row[own + 1] : BELOW;
                    const int b_left = row_lane && own >= 1 ? (int)AB[(b * S + own) * LD + b * S + own - 1] : BELOW;
                    closure_steps_unrolled<S, LD, 2 * S, true>(pre, line, line_step, cell, cell_t, pair_row,
                                                               store_mask, pair_mask, a_next, b_left);
                } else
#pragma unroll 1
                for (int t0 = 0; t0 < 2 * S; t0 += 4) {
                    const unsigned st = store_mask >> t0, pa = pair_mask >> t0, in = inner_mask >> t0,
                                   sub = sub_mask >> t0;
#pragma unroll
                    for (int j = 0; j < 4; ++j) {
                        if (j == 3 && t0 + 3 == 2 * S - 1) break;       // 2 S - 1 steps
                        // TIGHT 2: only the lanes whose cell lies in the sub-tile load (a row lane's pair
                        // term and held value: only where it stores): fewer shared-memory wavefronts
                        const unsigned bit = 1u << j;
                        const int w = SLIM ? 0 : pa & bit ? weight_row[letters[t0 + j] & 7] : -(1 << 20);
                        const int inner = SLIM ? 0 : in & bit ? (int)cell[LD - 1] : R_;
                        // SLIM: the pair term where a pair is allowed, else 0 (below every cell: no maximum
                        // changes, as pair_candidate's 0); no test of the inner interval: R = 0 in the batches,
                        // and where it holds at most one letter (c - i <= 3, only at d = 1) the cell X(r + 1,
                        // q - 1) read holds 0 already (the edges' 0 = -R, or the tile's cell (TILE - 1, 0))
                        const int pair = SLIM && (pa & bit) ? (int)cell[LD - 1] + pair_row[t0 + j] : 0;
                        // SLIM: the held value is among the row lane's splits (weight 0 at m = own)
                        const int held = SLIM ? 0 : TIGHT == 2 ? (st & bit ? (int)*cell : 0) : (int)*cell;
                        if constexpr (TIGHT == 5) {
                            // a lane outside the sub-tile skips the step: its result is taken by no row lane
                            // (a row lane's column lane holds the same cell)
                            if (sub & bit) {
                                const uint4 v0 = *reinterpret_cast<const uint4*>(line);
                                const uint4 v1 = *reinterpret_cast<const uint4*>(line + 8);
                                best = packed_splits_max(pre, v0, v1);
                            }
                        } else {
                            uint4 v0, v1;
                            if constexpr (TIGHT == 2) {
                                v0 = lds128_when(sub, bit, line);
                                v1 = lds128_when(sub, bit, line + 8);
                            } else {
                                v0 = *reinterpret_cast<const uint4*>(line);
                                v1 = *reinterpret_cast<const uint4*>(line + 8);
                            }
                            best = packed_splits_max(pre, v0, v1);
                        }
                        const int via_b = __shfl_sync(0xffffffffu, best, src + j);   // (mod 32)
                        if (st & bit) {
                            const score_t v = SLIM ? (score_t)max(max(best, via_b), pair)
                                                   : (score_t)max(max(best, via_b), max(held, inner + w));
                            *cell = v;
                            *cell_t = v;
                        }
                        __syncwarp();
                        line += line_step;
                        cell += cell_step;
                        cell_t += LD;                                    // a row lane's: one row of XT down
                    }
                    src += 4;
                }
            } else
            // unrolled by 4 (fully, it takes 210 registers and leaves no room for a bulk block beside it)
#pragma unroll 4
            for (int delta = -(S - 1); delta < S; ++delta, line += line_step, cell += cell_step,
                     cell_t += dq * LD + dr, partner += dq, k += k_step, span += 1, c += dq) {
                const bool in_sub = (unsigned)k < S;
                // a row lane's pair term and what X holds, loaded beside the splits (one latency)
                const int w = span - 2 >= min_loop ? e.weight[row5 + (*partner & 7)] : 0;   // & 7: in the struct
                const int inner = span <= 3 ? -R : (int)cell[LD - 1];
                const int held = *cell;
                int best;
                if constexpr (PACKED) {
                    const uint4 v0 = *reinterpret_cast<const uint4*>(line);
                    const uint4 v1 = *reinterpret_cast<const uint4*>(line + 8);
                    best = packed_splits_max(pre, v0, v1);
                } else {
                    int m0 = 0, m1 = 0;
#pragma unroll
                    for (int m = 0; m < S; m += 8) {
                        const int4 v0 = *reinterpret_cast<const int4*>(line + m);
                        const int4 v1 = *reinterpret_cast<const int4*>(line + m + 4);
                        m0 = __viaddmax_s32(pre[m], v0.x, m0);
                        m1 = __viaddmax_s32(pre[m + 1], v0.y, m1);
                        m0 = __viaddmax_s32(pre[m + 2], v0.z, m0);
                        m1 = __viaddmax_s32(pre[m + 3], v0.w, m1);
                        m0 = __viaddmax_s32(pre[m + 4], v1.x, m0);
                        m1 = __viaddmax_s32(pre[m + 5], v1.y, m1);
                        m0 = __viaddmax_s32(pre[m + 6], v1.z, m0);
                        m1 = __viaddmax_s32(pre[m + 7], v1.w, m1);
                    }
                    best = max(m0, m1);
                }
                const int via_b = __shfl_sync(0xffffffffu, best, (S + k) & 31);     // a row lane: its column's lane
                const int pair = w > 0 ? inner + w : 0;
                if (row_lane && in_sub && c < N) {
                    const score_t v = (score_t)max(max(best, via_b), max(held, pair));
                    *cell = v;
                    *cell_t = v;
                }
                __syncwarp();
            }
        } else if constexpr (AHEAD) {
            // a warp with no sub-tile in w: the far blocks of w + 1's sub-tiles (final after w - 1), idle warp j the
            // targets j, j + idle, ... (ahead_done's split), farthest first
            const int count = min(min(w + 1, 2 * G - 1 - w), G), idle = G - count, j = warp - count;
            for (int t = j; t < min(min(w + 2, 2 * G - 2 - w), G); t += idle) {
                const int done = ahead_done<G, AHEAD_CAP>(w, t);
                const int ta = max(0, G - 2 - w) + t, tb = w + 1 - (G - 1 - ta);
                const int below_done = min(done, max(0, G - 2 - ta)), left_done = done - below_done;
                if (done > 0) products(ta, tb, TILE - below_done * S, TILE, 0, left_done * S);
            }
        }
        __syncthreads();
    }
    if constexpr (PACKED && TIGHT && FROM_TABLE) {
        // batches (no offset encoding, no A operands): X's rows as 16-byte vectors, the cells past the
        // sequence's end too (0 in X; only cells past the end ever read them: the last tile column's)
        TiledLayout<TILE> L{nt};
        score_t* out = V + L.tile(I, J);
#pragma unroll
        for (int k = threadIdx.x; k < TILE * TILE / 8; k += THREADS) {
            const int rr = k / (TILE / 8), q = (k % (TILE / 8)) * 8;
            *reinterpret_cast<uint4*>(out + rr * TILE + q) = *reinterpret_cast<const uint4*>(X + rr * LD + q);
        }
        return;
    }
    const int low = store_finished<score_t, TILE, LD, THREADS>(V, X, n, nt, I, J, R, bases);
    if constexpr (PACKED) {
        // the bulk's Int16x2Pre operands: word (m, ty * 8 + x) = cell (x * SIDE + ty, m), stored value in
        // both halves; four x at a time (one 16-byte store)
        constexpr int SIDE = TILE / 8;
        if (Adup != nullptr) {
            TiledLayout<TILE> L{nt};
            unsigned* out = Adup + L.tile(I, J);
            for (int k = threadIdx.x; k < TILE * TILE / 4; k += THREADS) {
                const int m = k / (TILE / 4), at = 4 * (k % (TILE / 4)), ty = at / 8, x0 = at % 8;
                unsigned w[4];
#pragma unroll
                for (int j = 0; j < 4; ++j) w[j] = dup16((int)X[((x0 + j) * SIDE + ty) * LD + m] - low);
                *reinterpret_cast<uint4*>(out + m * TILE + at) = make_uint4(w[0], w[1], w[2], w[3]);
            }
        }
    }
}

template <typename score_t, int TILE>
__global__ void __launch_bounds__(TILE * FINISH_LANES, 2)
tiled_finish(score_t* __restrict__ V, int* __restrict__ scratch, const code_t* __restrict__ s,
            const PairModel* __restrict__ pm, int n, int nt, int d, int* __restrict__ bases) {
    finish_tile<score_t, TILE>(V, scratch, s, pm, n, nt, d, blockIdx.x, bases);
}

// At most 128 registers a thread (two blocks' worth): a bulk block (256 x 128) must fit beside it.
template <typename score_t, int TILE>
__global__ void __launch_bounds__(32 * (TILE / FINISH_SUB), 2)
tiled_finish_sub(score_t* __restrict__ V, int* __restrict__ scratch, const code_t* __restrict__ s,
                const PairModel* __restrict__ pm, int n, int nt, int d, int* __restrict__ bases,
                unsigned* __restrict__ Adup) {
    finish_sub_tile<score_t, TILE>(V, scratch, s, pm, n, nt, d, blockIdx.x, bases, Adup);
}

// tiled_finish_sub with the closure of the batches' form TIGHT (int16 cells; fold/_launch.py finish_closure 1:
// its tests as mask bits, its addresses as running pointers); the tile read and the stores as tiled_finish_sub's.
template <typename score_t, int TILE, int TIGHT>
__global__ void __launch_bounds__(32 * (TILE / FINISH_SUB), 2)
tiled_finish_sub_tight(score_t* __restrict__ V, int* __restrict__ scratch, const code_t* __restrict__ s,
                       const PairModel* __restrict__ pm, int n, int nt, int d, int* __restrict__ bases,
                       unsigned* __restrict__ Adup) {
    finish_sub_tile<score_t, TILE, false, TIGHT>(V, scratch, s, pm, n, nt, d, blockIdx.x, bases, Adup);
}

// The chain's two launches of a tile diagonal in one (issue 29, nbpersist; fold/_launch.py chain "fused"): the
// block of tile (I, I + d) first adds the two edge products K = I + 1 and K = J - 1 (bulk_tile, edges == 1) into
// its scratch tile, then finishes the tile. Between the launches of the split chain, the freed SMs went to the
// side streams' interior products and the finish waited for an SM again; here the block keeps its SM. The
// scratch tile is the block's own (the interior products of d are done before the launch), so the edge
// products' atomics need only a fence (their REDs performed) and a barrier before the finish reads them.
template <typename P, int TILE, int STAGE_BYTES, int TIGHT>
__global__ void __launch_bounds__(32 * (TILE / FINISH_SUB), 2)
tiled_chain(typename P::score_t* __restrict__ V, int* __restrict__ scratch, const code_t* __restrict__ s,
            const PairModel* __restrict__ pm, int n, int nt, int d, int* __restrict__ bases, int skip_below,
            unsigned* __restrict__ Adup) {
    constexpr int THREADS = 32 * (TILE / FINISH_SUB);
    const int I = blockIdx.x;
    if (d >= 2) {
        // the two products as two inlined copies (nvcc -Xptxas -v, sm_90: 112 registers, no spills; as a loop over
        // them, 128 registers and 192 bytes spilled)
        bulk_tile<P, TILE, STAGE_BYTES, false, THREADS>(V, scratch, nt, d, 1, 1, I, 0, bases, skip_below, Adup);
        __threadfence();
        __syncthreads();                               // the shared memory is the next product's
        bulk_tile<P, TILE, STAGE_BYTES, false, THREADS>(V, scratch, nt, d, 1, 1, I, 1, bases, skip_below, Adup);
        __threadfence();
        __syncthreads();                               // ... then the finish's
    }
    finish_sub_tile<typename P::score_t, TILE, false, TIGHT, true>(V, scratch, s, pm, n, nt, d, I, bases, Adup);
}

// The batch form: blockIdx.y picks table z, which holds sequence ids[z] (its letters at
// codes[starts[id] .. starts[id + 1])); every sequence of a launch has the same tiles per side.
template <typename score_t, int TILE>
__global__ void __launch_bounds__(TILE * FINISH_LANES, 2)
batch_finish(score_t* __restrict__ V, int* __restrict__ scratch, const code_t* __restrict__ codes,
             const long long* __restrict__ starts, const int* __restrict__ ids, const PairModel* __restrict__ pm,
             int nt, int d, long long table_cells, long long scratch_cells) {
    const long long z = blockIdx.y;
    const int id = ids[z];
    const long long start = starts[id];
    finish_tile<score_t, TILE>(V + z * table_cells, scratch + z * scratch_cells, codes + start, pm,
                               (int)(starts[id + 1] - start), nt, d, blockIdx.x, nullptr);
}

// The batch form of the diagonal d = 0 alone (issue 29): d a constant, so none of the code of the tiles
// off the diagonal is kept and MIN_BLOCKS blocks an SM fit by registers (batch_finish: 54 registers, 4
// blocks of 256 threads); shared memory X alone (fold/_gpu_tiled.finish_shared_bytes "diagonal").
template <typename score_t, int TILE, int MIN_BLOCKS>
__global__ void __launch_bounds__(TILE * FINISH_LANES, MIN_BLOCKS)
batch_finish_diag(score_t* __restrict__ V, const code_t* __restrict__ codes, const long long* __restrict__ starts,
                  const int* __restrict__ ids, const PairModel* __restrict__ pm, int nt, long long table_cells) {
    const long long z = blockIdx.y;
    const int id = ids[z];
    const long long start = starts[id];
    finish_tile<score_t, TILE, true>(V + z * table_cells, nullptr, codes + start, pm,
                                     (int)(starts[id + 1] - start), nt, 0, blockIdx.x, nullptr);
}

// The batch form of the sub-tiled finish (tiles off the diagonal, d >= 1), after batch_bulk_direct: the
// products' maxima are in the tile's own cells (FROM_TABLE). No ready-made A operands (the batches' bulk
// is Int16x2Dup or Int32x1).
// MIN_BLOCKS: the blocks an SM that its shared memory holds (fold/_gpu_batch.py), so that the registers do
// not hold fewer: the closure is latency-bound, and every block more on an SM hides it better (64-tiles,
// int16: 7 blocks at 72 registers, where 128 registers a thread gave 96 and 5 blocks).
template <typename score_t, int TILE, int MIN_BLOCKS>
__global__ void __launch_bounds__(32 * (TILE / FINISH_SUB), MIN_BLOCKS)
batch_finish_sub(score_t* __restrict__ V, const code_t* __restrict__ codes, const long long* __restrict__ starts,
                 const int* __restrict__ ids, const PairModel* __restrict__ pm, int nt, int d, long long table_cells) {
    const long long z = blockIdx.y;
    const int id = ids[z];
    const long long start = starts[id];
    finish_sub_tile<score_t, TILE, true>(V + z * table_cells, nullptr, codes + start, pm,
                                         (int)(starts[id + 1] - start), nt, d, blockIdx.x, nullptr, nullptr);
}

// batch_finish_sub with the closure's tests as mask bits and its addresses as running pointers (FORM 1), and
// (FORM 2) its loads predicated and the tile's transposed stores without bank conflicts, (FORM 3) form 1's closure
// after form 2's tile read, (FORM 4, the batches' default) form 3 with a slimmer closure step (the held value
// among the splits, the pair weights from a table), (FORM 5) form 4 with a lane's line loads and splits in a branch
// taken only where its cell lies in the sub-tile: TIGHT in finish_sub_tile; int16 cells, issue 29 (fold/_launch.py batch_closure).
template <typename score_t, int TILE, int MIN_BLOCKS, int FORM>
__global__ void __launch_bounds__(32 * (TILE / FINISH_SUB), MIN_BLOCKS)
batch_finish_sub_tight(score_t* __restrict__ V, const code_t* __restrict__ codes, const long long* __restrict__ starts,
                       const int* __restrict__ ids, const PairModel* __restrict__ pm, int nt, int d,
                       long long table_cells) {
    const long long z = blockIdx.y;
    const int id = ids[z];
    const long long start = starts[id];
    finish_sub_tile<score_t, TILE, true, FORM>(V + z * table_cells, nullptr, codes + start, pm,
                                               (int)(starts[id + 1] - start), nt, d, blockIdx.x, nullptr, nullptr);
}

// The diagonal d = 0 of the tiled batch by the sub-tiled finish (SIZES.batch_diagonal 2; issue 29, helper nbdiag):
// finish_sub_tile's DIAG path, the closure of form FORM (int16 cells; 0: batch_finish_sub's), where
// batch_finish_diag runs the wavefront finish (2 TILE - 1 block barriers a tile). MIN_BLOCKS as batch_finish_sub's.
template <typename score_t, int TILE, int MIN_BLOCKS, int FORM>
__global__ void __launch_bounds__(32 * (TILE / FINISH_SUB), MIN_BLOCKS)
batch_finish_sub_diag(score_t* __restrict__ V, const code_t* __restrict__ codes, const long long* __restrict__ starts,
                      const int* __restrict__ ids, const PairModel* __restrict__ pm, int nt, long long table_cells) {
    const long long z = blockIdx.y;
    const int id = ids[z];
    const long long start = starts[id];
    finish_sub_tile<score_t, TILE, true, FORM, false, true>(V + z * table_cells, nullptr, codes + start, pm,
                                                            (int)(starts[id + 1] - start), nt, 0, blockIdx.x, nullptr,
                                                            nullptr);
}
