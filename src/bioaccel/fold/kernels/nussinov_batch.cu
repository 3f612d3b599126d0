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
