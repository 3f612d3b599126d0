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
// the loop). Here the table is kept twice in shared memory, int16: a row copy R (V(i, m) for m >= 8
// (i / 8), row i at ro[i]) and a column copy C (V(m, c) for m >= 0, column c at co[c]). The splits m of
// cell (i, c) then read both operands at consecutive addresses, 16 bytes (8 splits) a load, and one
// __viaddmax_s16x2 does two splits: 2 loads and 4 DPX per 8 updates. Cells not yet filled and the
// lower triangle hold X2_EMPTY (-16384): a split with either operand empty sums below 0 (every V here is
// at most 16383, fold/_gpu_batch.py checks), so whole 16-byte chunks are read without bounds checks.
//
// Bank conflicts (16-byte loads are served 8 threads at a time): threads t..t+7 of a diagonal fold rows
// i = 8q..8q+7 and columns c = i + D. Rows of one group of 8 have one length, an odd number of 16-byte
// units, and a thread reads its row from chunk i / 8 on: 8 different banks. Every column's length is
// 1 mod 8 units, so 8 consecutive columns start in 8 different banks, and all 8 read the same chunk k.
#define X2_EMPTY (-16384)
#define X2_EMPTY2 ((int)0xC000C000u)

// Units (16 bytes, 8 cells) of a row of group g (rows 8g..8g+7, chunks g..K-1) and of a column of group
// h (columns 8h+1..8h+8, chunks 0..h): odd, and 1 mod 8.
__device__ __forceinline__ int x2_row_units(int g, int K) { return (K - g) | 1; }
__device__ __forceinline__ int x2_col_units(int h) { return 8 * ((h + 7) / 8) + 1; }

struct X2Columns {               // the traceback reads the column copy: V(i, c) at co[c] + i
    const int* co;
    __device__ __forceinline__ long long at(int i, int c) const { return co[c] + i; }
};

// Dynamic shared memory (fold/_gpu_batch.py x2_shared_bytes): R (G groups of 8 rows), C (G groups of 8
// columns), ro (8 G ints), co (8 G + 1 ints), the traceback stack (N + 1 int2); G = ceil(n / 8).
template <int MAX_THREADS>
__global__ void __launch_bounds__(MAX_THREADS)
batch_fold_x2(const code_t* __restrict__ codes, const long long* __restrict__ starts, const int* __restrict__ ids,
              const PairModel* __restrict__ pm, int walk, int* __restrict__ scores, int* __restrict__ pair_to,
              unsigned char* __restrict__ chars, int* __restrict__ status) {
    extern __shared__ __align__(16) unsigned char batch_smem[];
    const int id = ids[blockIdx.x];
    const long long start = starts[id];
    const int n = (int)(starts[id + 1] - start);
    const int N = n + 1;
    const code_t* s = codes + start;
    const int tid = threadIdx.x, nthreads = blockDim.x;
    const int K = (N + 7) / 8, G = (n + 7) / 8;
    int row_cells = 0, col_cells = 0;
    for (int g = 0; g < G; ++g) {
        row_cells += 64 * x2_row_units(g, K);
        col_cells += 64 * x2_col_units(g);
    }
    short* R = reinterpret_cast<short*>(batch_smem);
    short* C = R + row_cells;
    int* ro = reinterpret_cast<int*>(C + col_cells);
    int* co = ro + 8 * G;
    int2* stack = reinterpret_cast<int2*>(co + ((8 * G + 1 + 1) / 2) * 2);

    for (int x = tid; x < (row_cells + col_cells) / 8; x += nthreads)
        reinterpret_cast<int4*>(R)[x] = make_int4(X2_EMPTY2, X2_EMPTY2, X2_EMPTY2, X2_EMPTY2);
    for (int g = tid; g < G; g += nthreads) {          // where each row and column starts
        int r = 0, c = 0;
        for (int h = 0; h < g; ++h) {
            r += 64 * x2_row_units(h, K);
            c += 64 * x2_col_units(h);
        }
        for (int x = 0; x < 8; ++x) {
            ro[8 * g + x] = r + 8 * x * x2_row_units(g, K) - 8 * g;    // so that V(i, m) is R[ro[i] + m]
            co[8 * g + x + 1] = c + 8 * x * x2_col_units(g);
        }
    }
    if (tid == 0) co[0] = 0;
    __syncthreads();
    for (int i = tid; i < n; i += nthreads) {          // V(i, i + 1) = 0
        R[ro[i] + i + 1] = 0;
        C[co[i + 1] + i] = 0;
    }
    __syncthreads();
    for (int D = 2; D <= n; ++D) {
        for (int i = tid; i <= n - D; i += nthreads) {
            const int c = i + D;
            const int rbase = ro[i], cbase = co[c];
            int best = 0;
            const int w = pair_weight(pm, s, i, c);
            if (w > 0) best = (D > 2 ? (int)C[co[c - 1] + i + 1] : 0) + w;    // V(i+1, c-1)
            // chunks i / 8 .. (c - 1) / 8 (the first may hold m <= i, the last m >= c: empty there)
            const int4* ra = reinterpret_cast<const int4*>(R + rbase + 8 * (i >> 3));
            const int4* ca = reinterpret_cast<const int4*>(C + cbase + 8 * (i >> 3));
            const int chunks = ((c - 1) >> 3) - (i >> 3) + 1;
            int acc0 = 0, acc1 = 0, acc2 = 0, acc3 = 0;
#pragma unroll 2
            for (int k = 0; k < chunks; ++k) {
                const int4 a = ra[k], b = ca[k];
                acc0 = __viaddmax_s16x2(a.x, b.x, acc0);
                acc1 = __viaddmax_s16x2(a.y, b.y, acc1);
                acc2 = __viaddmax_s16x2(a.z, b.z, acc2);
                acc3 = __viaddmax_s16x2(a.w, b.w, acc3);
            }
            const int m2 = __vmaxs2(__vmaxs2(acc0, acc1), __vmaxs2(acc2, acc3));
            best = max(best, max((int)(short)(m2 & 0xffff), (int)(short)(m2 >> 16)));
            R[rbase + c] = (short)best;
            C[cbase + i] = (short)best;
        }
        __syncthreads();
    }
    if (tid == 0) scores[id] = C[co[n]];
    if (walk) walk_structure(C, X2Columns{co}, s, pm, n, stack, pair_to + start, chars + start, status);
}
