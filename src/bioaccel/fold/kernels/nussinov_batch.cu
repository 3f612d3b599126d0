// Many short sequences folded in one launch: one block per sequence, its whole half-open table in
// shared memory (packed upper triangle, int16), filled diagonal by diagonal with a thread per cell,
// then traced back by the same block with the shared rule (nussinov_traceback.cu).
#include "nussinov_common.cuh"
#include "nussinov_traceback.cu"

#define BATCH_MAX_LEN 256

// THREADS per block (256 in production, fewer in the tests: fold/_launch.py)
template <int THREADS>
__global__ void __launch_bounds__(THREADS)
batch_fold(const code_t* __restrict__ seqs, const long long* __restrict__ offsets, const PairModel* __restrict__ pm,
           int* __restrict__ scores, int* __restrict__ pair_to, int* __restrict__ status) {
    extern __shared__ __align__(16) short Vs[];
    __shared__ int2 stack[BATCH_MAX_LEN + 2];
    const long long start = offsets[blockIdx.x];
    const int n = (int)(offsets[blockIdx.x + 1] - start);
    const code_t* s = seqs + start;
    PackedRowsLayout L{n + 1};
    const long long cells = (long long)(n + 1) * (n + 2) / 2;
    for (long long e = threadIdx.x; e < cells; e += THREADS) Vs[e] = 0;
    __syncthreads();
    for (int D = 2; D <= n; ++D) {
        for (int i = threadIdx.x; i <= n - D; i += THREADS) {
            const int c = i + D;
            int best = 0;
            const int w = pair_weight(pm, s, i, c);
            if (w > 0) best = load_v(Vs, L, i + 1, c - 1) + w;
            for (int m = i + 1; m < c; ++m) best = max(best, (int)Vs[L.at(i, m)] + (int)Vs[L.at(m, c)]);
            Vs[L.at(i, c)] = (short)best;
        }
        __syncthreads();
    }
    if (threadIdx.x == 0) scores[blockIdx.x] = n >= 2 ? Vs[L.at(0, n)] : 0;
    walk_structure(Vs, L, s, pm, n, stack, pair_to + start, status);
}

template __global__ void batch_fold<256>(const code_t*, const long long*, const PairModel*, int*, int*, int*);
template __global__ void batch_fold<32>(const code_t*, const long long*, const PairModel*, int*, int*, int*);
