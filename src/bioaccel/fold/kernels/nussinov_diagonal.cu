// Diagonal-by-diagonal Nussinov fills: one launch per diagonal D = c - i of the half-open table.
//
// Storage: N x N int32 (SquareLayout), every value written at (i, c) and mirrored at (c, i), so that
// V(m, c) is read from row c: both operands of V(i, m) + V(m, c) are row reads (seed 001 on Chang et
// al.; seed 002 does the same to coalesce). Used by:
//   variant "diagonal"   (Chang et al.): a thread per cell (initial stage), a block per cell with a
//                        shared-memory reduction (middle), all blocks per cell (final stage);
//   variant "two-kernel" (Stojanovski et al.): kernel 1, a thread per cell, for the first 32
//                        diagonals; kernel 2, a 128-thread block per cell, for the rest.
#include "nussinov_common.cuh"

__device__ __forceinline__ int pair_term(const int* V, const SquareLayout& L, const code_t* s,
                                         const PairModel* pm, int i, int c) {
    int w = pair_weight(pm, s, i, c);
    if (w <= 0) return 0;
    return (c - i >= 3 ? V[L.at(i + 1, c - 1)] : 0) + w;
}

extern "C" __global__ void diagonal_cell_per_thread(int* V, const code_t* s, const PairModel* __restrict__ pm, int n,
                                                    int D) {
    SquareLayout L{n + 1};
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i > n - D) return;
    int c = i + D;
    int best = pair_term(V, L, s, pm, i, c);
    const int* row_i = V + L.at(i, 0);
    const int* row_c = V + L.at(c, 0);       // mirror: V(m, c) stored at (c, m)
    for (int m = i + 1; m < c; ++m) best = max(best, row_i[m] + row_c[m]);
    V[L.at(i, c)] = best;
    V[L.mirror(i, c)] = best;
}

template <int BLOCK>
__device__ __forceinline__ int block_max(int value, int* red) {
    red[threadIdx.x] = value;
    __syncthreads();
    // the tree reduction of the CUDA SDK, as the seeds use
    for (int stride = BLOCK / 2; stride > 0; stride >>= 1) {
        if (threadIdx.x < stride) red[threadIdx.x] = max(red[threadIdx.x], red[threadIdx.x + stride]);
        __syncthreads();
    }
    return red[0];
}

// The maximum over the split points m of cell (i, c = i + D) that part `part` of `parts` blocks takes
// (m = i + 1 + part * BLOCK + threadIdx.x, striding BLOCK * parts), the pair term counted once (part 0,
// thread 0); every thread of the block gets it.
template <int BLOCK>
__device__ __forceinline__ int cell_part_max(const int* V, const SquareLayout& L, const code_t* s,
                                             const PairModel* pm, int i, int c, int part, int parts, int* red) {
    const int* row_i = V + L.at(i, 0);
    const int* row_c = V + L.at(c, 0);
    int best = (threadIdx.x == 0 && part == 0) ? pair_term(V, L, s, pm, i, c) : 0;
    for (int m = i + 1 + part * BLOCK + threadIdx.x; m < c; m += BLOCK * parts) best = max(best, row_i[m] + row_c[m]);
    return block_max<BLOCK>(best, red);
}

// One block per cell (i = blockIdx.x), threads stride over the split points m.
template <int BLOCK>
__global__ void diagonal_cell_per_block(int* V, const code_t* s, const PairModel* __restrict__ pm, int n, int D) {
    __shared__ int red[BLOCK];
    SquareLayout L{n + 1};
    int i = blockIdx.x, c = i + D;
    int best = cell_part_max<BLOCK>(V, L, s, pm, i, c, 0, 1, red);
    if (threadIdx.x == 0) {
        V[L.at(i, c)] = best;
        V[L.mirror(i, c)] = best;
    }
}

// All blocks per cell: blockIdx.y splits the range of m; partial maxima meet through atomicMax.
// The table starts poisoned with -1 and every V is >= 0, so max over the partials is the value.
template <int BLOCK>
__global__ void diagonal_cell_per_grid(int* V, const code_t* s, const PairModel* __restrict__ pm, int n, int D) {
    __shared__ int red[BLOCK];
    SquareLayout L{n + 1};
    int i = blockIdx.x, c = i + D;
    int best = cell_part_max<BLOCK>(V, L, s, pm, i, c, blockIdx.y, gridDim.y, red);
    if (threadIdx.x == 0) {
        atomicMax(&V[L.at(i, c)], best);
        atomicMax(&V[L.mirror(i, c)], best);
    }
}
