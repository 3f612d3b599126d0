// Many short sequences folded in one launch: one block per sequence, its whole half-open table in
// shared memory (int16), filled diagonal by diagonal with a thread per cell, then traced back by the
// same block with the shared rule (nussinov_traceback.cu).
//
// The table is stored diagonal by diagonal (DiagonalLayout): the cells of one diagonal c - i = D sit
// side by side. Thread t folds cell (t, t + D); at split e it reads V(t, t + e) (diagonal e) and
// V(t + e, t + D) (diagonal D - e), so the 32 threads of a warp read 32 neighbouring cells of one
// diagonal in both operands: no bank conflicts, where a row-packed triangle put them on rows ~n cells
// apart (up to 4-way conflicts).
#include "nussinov_common.cuh"
#include "nussinov_traceback.cu"

struct DiagonalLayout {          // V(i, c) at offset(c - i) + i; diagonal D holds N - D cells
    long long N;                 // posts, n + 1
    __device__ __forceinline__ long long at(int i, int c) const {
        const long long D = c - i;
        return D * N - D * (D - 1) / 2 + i;
    }
};

// Block b folds sequence ids[b] (letters codes[starts[id] .. starts[id + 1]), n >= 2) with blockDim.x
// threads (at most MAX_THREADS); dynamic shared memory: the table (N (N + 1) / 2 shorts, rounded up to
// 16 bytes), then the traceback stack (N + 1 int2). Writes scores[id] and, with `walk`, pair_to and
// the dot-bracket letters at the sequence's place in the batch.
template <int MAX_THREADS>
__global__ void __launch_bounds__(MAX_THREADS)
batch_fold(const code_t* __restrict__ codes, const long long* __restrict__ starts, const int* __restrict__ ids,
           const PairModel* __restrict__ pm, int walk, int* __restrict__ scores, int* __restrict__ pair_to,
           unsigned char* __restrict__ chars, int* __restrict__ status) {
    extern __shared__ __align__(16) unsigned char batch_smem[];
    const int id = ids[blockIdx.x];
    const long long start = starts[id];
    const int n = (int)(starts[id + 1] - start);
    const int N = n + 1;
    const code_t* s = codes + start;
    const int tid = threadIdx.x, nthreads = blockDim.x;
    short* Vs = reinterpret_cast<short*>(batch_smem);
    const long long cells = (long long)N * (N + 1) / 2;
    int2* stack = reinterpret_cast<int2*>(batch_smem + ((cells * 2 + 15) / 16) * 16);
    DiagonalLayout L{N};

    for (int e = tid; e < 2 * N - 1; e += nthreads) Vs[e] = 0;     // diagonals 0 and 1: V = 0
    __syncthreads();
    for (int D = 2; D <= n; ++D) {
        const int diag_prev = (int)L.at(0, D - 1);                 // offset of diagonal D - 1
        for (int i = tid; i <= n - D; i += nthreads) {
            const int c = i + D;
            int best = 0;
            const int w = pair_weight(pm, s, i, c);
            if (w > 0) best = Vs[L.at(i + 1, c - 1)] + w;          // diagonal D - 2 (0 when D == 2)
            // split e = 1 .. D-1: V(i, i+e) at offset(e) + i, V(i+e, c) at offset(D-e) + i + e;
            // offset(e+1) - offset(e) = N - e, so both steps shrink by one per split
            int a = N + i, b = diag_prev + i + 1;
            int da = N - 1, db = D - 1 - N;
#pragma unroll 4
            for (int e = 1; e < D; ++e) {
                best = __viaddmax_s32(Vs[a], Vs[b], best);
                a += da--;
                b += db--;
            }
            Vs[L.at(i, c)] = (short)best;
        }
        __syncthreads();
    }
    if (tid == 0) scores[id] = Vs[L.at(0, n)];
    if (walk) walk_structure(Vs, L, s, pm, n, stack, pair_to + start, chars + start, status);
}

// ---- batch_fold_x2 (issue 29): the same fold with two splits per instruction -------------------------
// b1 above spends ~7 instructions per scalar update (two 16-bit loads, two step updates, the max-plus,
// the loop). Here the table is kept twice in shared memory: a row copy R (V(i, m), m > i) and a column
// copy C (V(m, c), m < c), both cut in 16-byte chunks of CH cells along m (CH = 8 int16 or 16 int8
// cells). The splits m of cell (i, c) then read both operands a chunk at a time, and one
// __viaddmax_s16x2 does two splits. Cells not filled yet and the lower triangles hold EMPTY (-16384 in
// int16 cells, -128 in int8 ones, unpacked to int16 lanes): a split with an empty operand sums below 0
// (V <= 16383, resp. 127: fold/_gpu_batch.py picks the cell type), so whole chunks are read with no
// bounds checks. int8 cells (V <= 127: unit weights up to 255 nt) halve the shared memory, so twice the
// blocks fit on an SM, and are widened to int16 lanes by a sign-extending byte permute (PRMT).
//
// Chunk-major triangles: chunk k of every row that has one sits side by side (R: rows 0 .. min(n,
// CH (k + 1)) - 1; C: columns CH k + 1 .. n), so the 8 threads served together by a 16-byte load (rows
// i = 8q .. 8q + 7, columns c = i + D, all at the same chunk k) read 8 consecutive 16-byte units: no bank
// conflicts, and no padding beyond the triangle's chunks.
template <typename Cell> struct X2Cells;
template <> struct X2Cells<short> {
    static constexpr int CH = 8;
    static constexpr int EMPTY4 = (int)0xC000C000u;        // -16384 in both halves
    __device__ static __forceinline__ void step(const int4& a, const int4& b, int (&acc)[4]) {
        acc[0] = __viaddmax_s16x2(a.x, b.x, acc[0]);
        acc[1] = __viaddmax_s16x2(a.y, b.y, acc[1]);
        acc[2] = __viaddmax_s16x2(a.z, b.z, acc[2]);
        acc[3] = __viaddmax_s16x2(a.w, b.w, acc[3]);
    }
};
__device__ __forceinline__ unsigned x2_widen(unsigned x, unsigned sel) {    // bytes to int16 lanes, signed
#ifdef NUSSINOV_BATCH_HOST                 // tests/nussinov_batch_host.cpp (byte b or its sign, per nibble)
    unsigned r = 0;
    for (int k = 0; k < 4; ++k) {
        const unsigned nib = (sel >> (4 * k)) & 15, byte = (x >> (8 * (nib & 3))) & 0xff;
        r |= ((nib & 8) ? ((byte & 0x80) ? 0xffu : 0u) : byte) << (8 * k);
    }
    return r;
#else
    unsigned r;
    asm("prmt.b32 %0, %1, 0, %2;" : "=r"(r) : "r"(x), "r"(sel));
    return r;
#endif
}
template <> struct X2Cells<signed char> {
    static constexpr int CH = 16;
    static constexpr int EMPTY4 = (int)0x80808080u;        // -128 in every byte
    __device__ static __forceinline__ void word(unsigned a, unsigned b, int& lo, int& hi) {
        // selector 0x9180: bytes 0, 1 each followed by its sign; 0xB3A2: bytes 2, 3
        lo = __viaddmax_s16x2(x2_widen(a, 0x9180), x2_widen(b, 0x9180), lo);
        hi = __viaddmax_s16x2(x2_widen(a, 0xB3A2), x2_widen(b, 0xB3A2), hi);
    }
    __device__ static __forceinline__ void step(const int4& a, const int4& b, int (&acc)[4]) {
        word(a.x, b.x, acc[0], acc[1]);
        word(a.y, b.y, acc[2], acc[3]);
        word(a.z, b.z, acc[0], acc[1]);
        word(a.w, b.w, acc[2], acc[3]);
    }
};

// Where the chunks sit, in 16-byte units: R's chunk k starts at row_block(k) (row i at + i), C's at
// col_block(k) (column c at + c - CH k - 1). K = chunks of a row (m = 0 .. n), KC = of a column.
template <int CH> struct X2Layout {
    int n;
    __device__ __forceinline__ int row_block(int k) const {
        const int full = n / CH;                              // chunks k' < full hold CH (k' + 1) <= n rows
        return k <= full ? CH * k * (k + 1) / 2 : CH * full * (full + 1) / 2 + (k - full) * n;
    }
    __device__ __forceinline__ int col_block(int k) const { return k * n - CH * k * (k - 1) / 2; }
    __device__ __forceinline__ int rows_units() const { return row_block((n + CH) / CH); }
    __device__ __forceinline__ int cols_units() const { return col_block((n - 1) / CH + 1); }
    // cell offsets (in cells) of V(i, m) in R and V(m, c) in C
    __device__ __forceinline__ int r_at(int i, int m) const { return (row_block(m / CH) + i) * CH + m % CH; }
    __device__ __forceinline__ int c_at(int m, int c) const {
        return (col_block(m / CH) + c - CH * (m / CH) - 1) * CH + m % CH;
    }
};

template <int CH>
struct X2Columns {               // the traceback reads the column copy
    X2Layout<CH> L;
    __device__ __forceinline__ long long at(int i, int c) const { return L.c_at(i, c); }
};

// Dynamic shared memory (fold/_batch_shapes.py x2_shared_bytes, xt_shared_bytes): R, C (16-byte units), the
// traceback stack (N + 1 int2), the pair model, the sequence's codes. With STACK_IN_ROWS the stack lies at the
// start of R instead (issue 29, nb5blk): the walk reads only C, and it starts after the fill's last barrier, when
// nothing reads R any more; R (at least 16 (n + 1) bytes) holds the stack's 8 (n + 2). 1.6 KB less at 200 nt:
// x2t's 47,056 bytes become 45,440: with 32 static bytes, in 128-byte units, plus 1 KB reserved a block, five
// fit in an SM's 228 KB (fold/_batch_shapes.py blocks_per_sm).
template <typename Cell> struct X2Shared {
    Cell* R;
    Cell* C;
    int2* stack;
    PairModel* pm;
    code_t* s;
};

// The x2 kernels' start (either layout): the regions above laid out, the codes and the weights copied
// in (every cell of every diagonal reads them; from global memory each diagonal's critical path would be
// a chain of L1 round trips), R and C filled with EMPTY, then V(i, i + 1) = 0. Ends with a barrier.
template <typename Cell, int EMPTY4, bool STACK_IN_ROWS, typename Layout>
__device__ __forceinline__ X2Shared<Cell> x2_shared(unsigned char* smem, const Layout& L, const code_t* codes, int n,
                                                    const PairModel* pm_global) {
    const int tid = threadIdx.x, nthreads = blockDim.x;
    const int r_units = L.rows_units(), c_units = L.cols_units();
    int4* Ru = reinterpret_cast<int4*>(smem);
    int4* Cu = Ru + r_units;
    X2Shared<Cell> sh;
    sh.R = reinterpret_cast<Cell*>(Ru);
    sh.C = reinterpret_cast<Cell*>(Cu);
    int2* after_c = reinterpret_cast<int2*>(Cu + c_units);
    sh.stack = STACK_IN_ROWS ? reinterpret_cast<int2*>(Ru) : after_c;
    sh.pm = reinterpret_cast<PairModel*>(STACK_IN_ROWS ? after_c : after_c + n + 2);
    sh.s = reinterpret_cast<code_t*>(sh.pm + 1);
    for (int x = tid; x < n; x += nthreads) sh.s[x] = codes[x];
    for (int x = tid; x < 26; x += nthreads) reinterpret_cast<int*>(sh.pm)[x] = reinterpret_cast<const int*>(pm_global)[x];
    for (int x = tid; x < r_units + c_units; x += nthreads) Ru[x] = make_int4(EMPTY4, EMPTY4, EMPTY4, EMPTY4);
    __syncthreads();
    for (int i = tid; i < n; i += nthreads) {          // V(i, i + 1) = 0
        sh.R[L.r_at(i, i + 1)] = 0;
        sh.C[L.c_at(i, i + 1)] = 0;
    }
    __syncthreads();
    return sh;
}

// The parameters of every shared-memory batch kernel (fold/_gpu_batch.py launches them alike).
#define BATCH_FOLD_PARAMS                                                                                         \
    const code_t* __restrict__ codes, const long long* __restrict__ starts, const int* __restrict__ ids,        \
        const PairModel* __restrict__ pm_global, int walk, int* __restrict__ scores, int* __restrict__ pair_to, \
        unsigned char* __restrict__ chars, int* __restrict__ status, unsigned* __restrict__ sm_turns

// One block's sequence (ids[blockIdx.x]: codes[starts[id] .. starts[id + 1])) and its shared memory.
template <typename Cell, typename Layout> struct X2Block {
    int id;
    long long start;
    int n;
    Layout L;
    X2Shared<Cell> sh;
};

// Turns (issue 29): the tiles of a tile-diagonal go to the block's first warps, so that its first warp
// runs most of the block's instructions (x2t at 200 nt: ~57% of them, the fourth ~1%). If the SM puts
// every block's first warp on the same one of its 4 schedulers, that scheduler's integer pipe bounds
// the fold while the others idle. With turns, the blocks an SM runs take turns (a counter per SM,
// sm_turns[smid], any start value) and a block with turn r gives its first tiles to warp r mod warps:
// four blocks side by side put their busiest warps on four schedulers wherever the SM places warps.
constexpr int SM_TURNS = 1024;              // counters (fold/_gpu_batch.py allocates them)
#ifdef NUSSINOV_BATCH_HOST
#define BLOCK_SHARED static                 // (tests/nussinov_batch_host.cpp: a block at a time, a std::thread a thread)
#else
#define BLOCK_SHARED __shared__
#endif

__device__ __forceinline__ void take_turn(unsigned* sm_turns, int* turn) {
    unsigned smid = 0;
#ifndef NUSSINOV_BATCH_HOST
    asm volatile("mov.u32 %0, %%smid;" : "=r"(smid));
#endif
    *turn = (int)atomicAdd(&sm_turns[smid % SM_TURNS], 1u);
}

// The first tile (of a tile-diagonal) this thread folds: its thread number, its warp turned by `turn`.
__device__ __forceinline__ int turned_thread(int turn) {
    const int warps = blockDim.x / 32;
    return ((threadIdx.x / 32 + turn) % warps) * 32 + threadIdx.x % 32;
}

template <typename Cell, int EMPTY4, bool STACK_IN_ROWS, typename Layout>
__device__ __forceinline__ X2Block<Cell, Layout> x2_block(unsigned char* smem, const code_t* codes, const long long* starts,
                                                          const int* ids, const PairModel* pm_global) {
    X2Block<Cell, Layout> blk;
    blk.id = ids[blockIdx.x];
    blk.start = starts[blk.id];
    blk.n = (int)(starts[blk.id + 1] - blk.start);
    blk.L = Layout{blk.n};
    blk.sh = x2_shared<Cell, EMPTY4, STACK_IN_ROWS>(smem, blk.L, codes + blk.start, blk.n, pm_global);
    return blk;
}

// The start of a shared-memory kernel body: the block's sequence, its layout, the regions by name (the
// traceback stack at the start of R with STACK_IN_ROWS, see X2Shared).
#define X2_BLOCK(LAYOUT, STACK_IN_ROWS)                                                                         \
    extern __shared__ __align__(16) unsigned char batch_smem[];                                                  \
    const X2Block<Cell, LAYOUT> blk =                                                                            \
        x2_block<Cell, Cells::EMPTY4, STACK_IN_ROWS, LAYOUT>(batch_smem, codes, starts, ids, pm_global);         \
    const int n = blk.n, tid = threadIdx.x, nthreads = blockDim.x;                                               \
    const LAYOUT L = blk.L;                                                                                      \
    Cell* R = blk.sh.R;                                                                                          \
    Cell* C = blk.sh.C;                                                                                          \
    const int4* Ru = reinterpret_cast<const int4*>(R); /* the same, in 16-byte units */                          \
    const int4* Cu = reinterpret_cast<const int4*>(C);                                                           \
    const PairModel* pm = blk.sh.pm;                                                                             \
    const code_t* s = blk.sh.s

// The end: the score V(0, n), then (with `walk`) the traceback over the column copy: by the whole block, or
// with WARP_WALK by warp 0 alone, without block barriers ("x2t5w", walk_structure_warp).
template <bool WARP_WALK = false, typename Cell, typename Layout, typename Columns>
__device__ __forceinline__ void x2_finish(const X2Block<Cell, Layout>& blk, const Columns& cols, int walk,
                                          int* scores, int* pair_to, unsigned char* chars, int* status) {
    if (threadIdx.x == 0) scores[blk.id] = blk.n >= 2 ? blk.sh.C[cols.at(0, blk.n)] : 0;
    if (!walk) return;
    if constexpr (WARP_WALK)
        walk_structure_warp(blk.sh.C, cols, blk.sh.s, blk.sh.pm, blk.n, blk.sh.stack, blk.start + pair_to,
                            blk.start + chars, status);
    else
        walk_structure(blk.sh.C, cols, blk.sh.s, blk.sh.pm, blk.n, blk.sh.stack, blk.start + pair_to, blk.start + chars,
                       status);
}

template <int MAX_THREADS, typename Cell>
__global__ void __launch_bounds__(MAX_THREADS)
batch_fold_x2(BATCH_FOLD_PARAMS) {
    typedef X2Cells<Cell> Cells;
    constexpr int CH = Cells::CH;
    X2_BLOCK(X2Layout<CH>, false);
    for (int D = 2; D <= n; ++D) {
        for (int i = tid; i <= n - D; i += nthreads) {
            const int c = i + D;
            int best = 0;
            const int w = pair_weight(pm, s, i, c);
            if (w > 0 && D > 2) best = (int)C[L.c_at(i + 1, c - 1)] + w;   // V(i+1, c-1)
            else if (w > 0) best = w;
            // chunks i / CH .. (c - 1) / CH (the first may hold m <= i, the last m >= c: empty there)
            const int k0 = i / CH, chunks = (c - 1) / CH - k0 + 1;
            int ra = L.row_block(k0) + i, rstep = min(n, CH * (k0 + 1));
            int ca = L.col_block(k0) + c - CH * k0 - 1, cstep = n - CH * (k0 + 1);
            int acc[4] = {0, 0, 0, 0};
#pragma unroll 2
            for (int k = 0; k < chunks; ++k) {
                Cells::step(Ru[ra], Cu[ca], acc);
                ra += rstep;
                rstep = min(n, rstep + CH);
                ca += cstep;
                cstep -= CH;
            }
            const int m2 = __vmaxs2(__vmaxs2(acc[0], acc[1]), __vmaxs2(acc[2], acc[3]));
            best = max(best, max((int)(short)(m2 & 0xffff), (int)(short)(m2 >> 16)));
            R[L.r_at(i, c)] = (Cell)best;
            C[L.c_at(i, c)] = (Cell)best;
        }
        __syncthreads();
    }
    x2_finish(blk, X2Columns<CH>{L}, walk, scores, pair_to, chars, status);
}

// ---- batch_fold_x2t (issue 29, 2026-11-27): a 2 x 2 tile of cells a thread -----------------------------
// x2 loads two 16-byte chunks (and, in int8, widens both: 16 PRMT) for 16 splits of ONE cell: 1.5 ALU
// instructions a split and 2 bytes of shared memory, one barrier a diagonal, one cell of latency a thread.
// Here thread a folds the tile rows {2a, 2a+1} x columns {2b, 2b+1} (b = a + t) at tile-diagonal t: the
// four cells read two rows and two columns, so each loaded and widened chunk serves two cells (1 ALU
// instruction a split in int8, 0.5 in int16; half the shared-memory bytes), a thread has four independent
// accumulator chains, and there is one barrier per two diagonals. The tile's own cells are added after
// the chunks (during them they still hold EMPTY, or their final value, both harmless):
//   A = (2a+1, 2b) needs nothing of the tile;  B = (2a, 2b) and C = (2a+1, 2b+1) each get the split
//   through A (V(2a, 2a+1) = V(2b, 2b+1) = 0);  D = (2a, 2b+1) the splits through B and C and its pair
//   interior V(2a+1, 2b) = A.
// Every other operand lies in a tile of a lower tile-diagonal. A block narrower than a tile-diagonal
// folds it in rounds. (Measured and dropped, docs/gpu-notes.md: 2 or 4 lanes a tile, joined by shuffles;
// int8 widened by masks instead of PRMT; int16 cells.)
//
// Layout (XTLayout<CH, P>, P = 2 here, 4 in nussinov_batch_x4t.cu): chunk blocks as X2Layout's, but the
// rows of a chunk block, and the columns, are stored by residue mod P (even ones first, then odd ones), so
// that 8 neighbouring tiles (rows Pa + r and columns Pb + r', P apart) read 8 consecutive 16-byte units.
// Row block k holds CH (k + 1) rows (the last padded); column block k holds columns CH k .. n (column CH k
// empty padding: column Pb's chunk Pb / CH then exists, so a tile's cells read the same chunks without a
// test), residue r at r times (n - CH k) / P + 1, the last residue only as long as it is.
template <int CH, int P> struct XTLayout {
    int n;
    __device__ __forceinline__ int row_block(int k) const { return CH * k * (k + 1) / 2; }
    __device__ __forceinline__ int row_pos(int i, int k) const {
        return (int)((unsigned)i / P) + (int)((unsigned)i % P) * (CH / P) * (k + 1);
    }
    __device__ __forceinline__ int col_block(int k) const {      // (P = 2: k (n + 1) - CH k (k - 1) / 2)
        return k * ((P - 1) * (n / P + 1) + (n + 1) / P) - CH * k * (k - 1) / 2;
    }
    __device__ __forceinline__ int col_pos(int c, int k) const {
        const unsigned j = c - CH * k;
        return (int)(j / P) + (int)(j % P) * ((n - CH * k) / P + 1);
    }
    __device__ __forceinline__ int rows_units() const { return row_block(n / CH + 1); }
    __device__ __forceinline__ int cols_units() const { return col_block(n / CH + 1); }
    __device__ __forceinline__ int r_at(int i, int m) const {
        const int k = m / CH;
        return (row_block(k) + row_pos(i, k)) * CH + m % CH;
    }
    __device__ __forceinline__ int c_at(int m, int c) const {
        const int k = m / CH;
        return (col_block(k) + col_pos(c, k)) * CH + m % CH;
    }
};
template <int CH> using X2TLayout = XTLayout<CH, 2>;

template <int CH, int P>
struct XTColumns {               // the traceback reads the column copy
    XTLayout<CH, P> L;
    __device__ __forceinline__ long long at(int i, int c) const { return L.c_at(i, c); }
};

// How a loaded word becomes int16 lanes (HALVES words of lanes): int8 cells sign-extended by PRMT.
template <typename Cell> struct X2TCells;
template <> struct X2TCells<short> {
    static constexpr int CH = 8, HALVES = 1;
    static constexpr int EMPTY4 = (int)0xC000C000u;
    __device__ static __forceinline__ unsigned lanes(unsigned x, int) { return x; }
};
template <> struct X2TCells<signed char> {
    static constexpr int CH = 16, HALVES = 2;
    static constexpr int EMPTY4 = (int)0x80808080u;
    __device__ static __forceinline__ unsigned lanes(unsigned x, int h) { return x2_widen(x, h ? 0xB3A2 : 0x9180); }
};

__device__ __forceinline__ unsigned x2t_word(const int4& v, int w) {
    return (unsigned)(w == 0 ? v.x : w == 1 ? v.y : w == 2 ? v.z : v.w);
}

__device__ __forceinline__ int x2t_best(int p, int q) {          // the largest of four int16 lanes
    const int m2 = __vmaxs2(p, q);
    return max((int)(short)(m2 & 0xffff), (int)(short)(m2 >> 16));
}

__device__ __forceinline__ int x2t_weight(const PairModel* pm, int si, int sj, int i, int j) {   // pair (i, j)
    return j - i - 1 >= pm->min_loop ? pm->weight[si * 5 + sj] : 0;
}

// Dynamic shared memory (fold/_batch_shapes.py xt_shared_bytes): R, C, the traceback stack (in R with
// STACK_IN_ROWS: "x2t5", five blocks an SM up to 200 nt where four fit before), the pair model, the codes, as
// batch_fold_x2. blockDim.x: a thread a tile, (n / 2) tiles at t = 1 (fewer: in rounds). WARP_WALK: the traceback
// by warp 0 alone ("x2t5w", x2_finish).
template <int MAX_THREADS, typename Cell, bool TURNS, bool STACK_IN_ROWS, bool WARP_WALK = false>
__global__ void __launch_bounds__(MAX_THREADS)
batch_fold_x2t(BATCH_FOLD_PARAMS) {
    typedef X2TCells<Cell> Cells;
    constexpr int CH = Cells::CH;
    BLOCK_SHARED int turn;
    if (TURNS && threadIdx.x == 0) take_turn(sm_turns, &turn);     // (read after x2_block's barriers)
    X2_BLOCK(X2TLayout<CH>, STACK_IN_ROWS);
    const int first = TURNS ? turned_thread(turn) : tid;
    const int half = n / 2;                            // tile-diagonal t has half - t + 1 tiles
    for (int t = 1; t <= half; ++t) {
        const int tiles = half - t + 1;
        for (int a = first; a < tiles; a += nthreads) {
            const int i0 = 2 * a, i1 = i0 + 1;
            const int s0 = s[i0], s1 = s[i1];
            const int k0 = i0 / CH;                    // rows i0 and i1: the same chunks
            const int b = a + t, c0 = 2 * b;
            const bool right = c0 + 1 <= n;            // C and D exist
            const int cr = right ? c0 + 1 : c0;        // column read for C, D (c0 where they do not exist)
            const int ke = c0 / CH;                    // column c0 + 1's last chunk (c0's, or its padding)
            int acc[4][2] = {{0, 0}, {0, 0}, {0, 0}, {0, 0}};     // A, B, C, D
            int4 nx0, nx1, ny0, ny1;                   // the next chunk, loaded while this one is used
            const auto load = [&](int k) {
                const int rb = L.row_block(k), cb = L.col_block(k);
                nx0 = Ru[rb + L.row_pos(i0, k)];
                nx1 = Ru[rb + L.row_pos(i1, k)];
                ny0 = Cu[cb + L.col_pos(c0, k)];
                ny1 = Cu[cb + L.col_pos(cr, k)];
            };
            load(k0);                                  // (k0 <= ke: the tile is past the diagonal)
            for (int k = k0; k <= ke; ++k) {
                const int4 x0 = nx0, x1 = nx1, y0 = ny0, y1 = ny1;
                load(min(k + 1, ke));                  // (the last chunk again at the end: unused)
#pragma unroll
                for (int w = 0; w < 4; ++w) {
#pragma unroll
                    for (int h = 0; h < Cells::HALVES; ++h) {
                        const int q = (w * Cells::HALVES + h) & 1;
                        const unsigned u0 = Cells::lanes(x2t_word(x0, w), h), u1 = Cells::lanes(x2t_word(x1, w), h);
                        const unsigned v0 = Cells::lanes(x2t_word(y0, w), h), v1 = Cells::lanes(x2t_word(y1, w), h);
                        acc[0][q] = __viaddmax_s16x2(u1, v0, acc[0][q]);
                        acc[1][q] = __viaddmax_s16x2(u0, v0, acc[1][q]);
                        acc[2][q] = __viaddmax_s16x2(u1, v1, acc[2][q]);
                        acc[3][q] = __viaddmax_s16x2(u0, v1, acc[3][q]);
                    }
                }
            }
            int v[4];
#pragma unroll
            for (int x = 0; x < 4; ++x) v[x] = x2t_best(acc[x][0], acc[x][1]);
            const int sl = s[c0 - 1], sr = right ? s[c0] : 0;       // letters at 2b - 1 and 2b
            const int wA = x2t_weight(pm, s1, sl, i1, c0 - 1), wB = x2t_weight(pm, s0, sl, i0, c0 - 1);
            int A = v[0], B = v[1];
            if (wA > 0) A = max(A, (t >= 2 ? (int)C[L.c_at(i1 + 1, c0 - 1)] : 0) + wA);
            if (wB > 0) B = max(B, (t >= 2 ? (int)C[L.c_at(i1, c0 - 1)] : 0) + wB);
            B = max(B, A);                                          // split 2a + 1
            R[L.r_at(i1, c0)] = (Cell)A;
            C[L.c_at(i1, c0)] = (Cell)A;
            R[L.r_at(i0, c0)] = (Cell)B;
            C[L.c_at(i0, c0)] = (Cell)B;
            if (right) {
                const int c1 = c0 + 1;
                const int wC = x2t_weight(pm, s1, sr, i1, c0), wD = x2t_weight(pm, s0, sr, i0, c0);
                int Cv = max(v[2], A), D = max(v[3], B);             // C: split 2b; D: split 2b
                if (wC > 0) Cv = max(Cv, (t >= 2 ? (int)C[L.c_at(i1 + 1, c0)] : 0) + wC);
                D = max(D, Cv);                                     // split 2a + 1
                if (wD > 0) D = max(D, A + wD);
                R[L.r_at(i1, c1)] = (Cell)Cv;
                C[L.c_at(i1, c1)] = (Cell)Cv;
                R[L.r_at(i0, c1)] = (Cell)D;
                C[L.c_at(i0, c1)] = (Cell)D;
            }
        }
        __syncthreads();
    }
    x2_finish<WARP_WALK>(blk, XTColumns<CH, 2>{L}, walk, scores, pair_to, chars, status);
}
