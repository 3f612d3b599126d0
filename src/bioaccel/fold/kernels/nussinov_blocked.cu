// Seed 001's blocked GPU algorithm: "Ours1" over an N x N table (SquareLayout) and "Ours2" over the
// packed upper triangle (PackedRowsLayout). BS x BS tiles (32, the paper's; the GPU tests shrink them,
// tests/conftest.py), processed one tile diagonal per launch, a thread block of BS x 2 per tile
// (Algorithm 2); the part of each tile that depends only on earlier tile diagonals is the
// register-tiled max-plus maxKernel of Algorithm 3 (each thread keeps BS/2 accumulators of one
// column); the rest is finished inside the tile in diagonal order in shared memory.
#include "nussinov_common.cuh"

template <typename Layout>
__device__ __forceinline__ int load_or_zero(const int* V, const Layout& L, int i, int c, int N) {
    return (c < N && c - i > 1) ? V[L.at(i, c)] : 0;
}

template <int BS, typename Layout>
__device__ void load_tile(int (*dst)[BS + 1], const int* V, const Layout& L, int I, int J, int N) {
    for (int e = threadIdx.y * BS + threadIdx.x; e < BS * BS; e += 2 * BS) {
        int r = e / BS, q = e % BS;
        int i = I * BS + r, c = J * BS + q;
        dst[r][q] = (i < N && c > i) ? load_or_zero(V, L, i, c, N) : 0;
    }
}

// Finish cell (r, q) of tile (I, J): max of its partial value, the pair term and the in-tile splits.
template <int BS, typename Layout>
__device__ int finish_cell(const int (*sC)[BS + 1], const int (*sAII)[BS + 1], const int (*sBJJ)[BS + 1],
                           const int* V, const Layout& L, const code_t* s, const PairModel* pm,
                           int I, int J, int r, int q, int N, int part) {
    int i = I * BS + r, c = J * BS + q;
    int best = 0;
    if (part == 0) {
        best = sC[r][q];
        int w = pair_weight(pm, s, i, c);
        if (w > 0) {
            int inner;
            if (c - i <= 3) inner = 0;                        // empty or one-letter inside
            else if (r + 1 < BS && q >= 1) inner = sC[r + 1][q - 1];
            else inner = V[L.at(i + 1, c - 1)];               // a neighbouring, already final tile
            best = max(best, inner + w);
        }
        if (I == J) {
            for (int m = r + 1; m < q; ++m) best = max(best, sC[r][m] + sC[m][q]);
        } else {
            for (int m = r + 1; m < BS; ++m) best = max(best, sAII[r][m] + sC[m][q]);
        }
    } else if (I != J) {
        for (int m = 0; m < q; ++m) best = max(best, sC[r][m] + sBJJ[m][q]);
    }
    return best;
}

template <typename Layout, int BS>
__global__ void __launch_bounds__(2 * BS) blocked_tile_diagonal(int* V, const code_t* s,
                                                            const PairModel* __restrict__ pm, int n,
                                                            int d, Layout L) {
    __shared__ int sA[BS][BS + 1];     // tile (I, K), then tile (I, I)
    __shared__ int sB[BS][BS + 1];     // tile (J, J)
    __shared__ int sC[BS][BS + 1];     // tile (I, J) being computed
    __shared__ int part1[BS];
    const int N = n + 1;
    const int I = blockIdx.x, J = I + d;
    const int tx = threadIdx.x, ty = threadIdx.y;

    // 1. maxKernel over the tiles strictly between I and J (Algorithm 3): thread (tx, ty) keeps the
    //    BS/2 cells of column tx, rows ty*BS/2 .. ty*BS/2 + BS/2-1. B is read straight from global memory, a row
    //    of 32 consecutive values per warp (coalesced in SquareLayout and PackedRowsLayout).
    constexpr int H = BS / 2;
    int reg[H];
#pragma unroll
    for (int k = 0; k < H; ++k) reg[k] = 0;
    for (int K = I + 1; K < J; ++K) {
        load_tile<BS>(sA, V, L, I, K, N);
        __syncthreads();
        int c = J * BS + tx;
        for (int kk = 0; kk < BS; ++kk) {
            int m = K * BS + kk;
            int b = c < N ? V[L.at(m, c)] : 0;
#pragma unroll
            for (int k = 0; k < H; ++k) reg[k] = max(reg[k], b + sA[ty * H + k][kk]);
        }
        __syncthreads();
    }
#pragma unroll
    for (int k = 0; k < H; ++k) sC[ty * H + k][tx] = reg[k];
    if (I != J) {
        load_tile<BS>(sA, V, L, I, I, N);
        load_tile<BS>(sB, V, L, J, J, N);
    }
    __syncthreads();

    // 2. the in-tile remainder, wavefront by wavefront (q - r constant): warp 0 takes the pair term
    //    and the splits inside tile I, warp 1 the splits inside tile J.
    const int first = (I == J) ? 1 : -(BS - 1);
    for (int diff = first; diff < BS; ++diff) {
        int r = tx, q = tx + diff;
        bool active = q >= 0 && q < BS && (J * BS + q) < N && (I * BS + r) < N;
        int value = 0;
        if (active) value = finish_cell<BS>(sC, sA, sB, V, L, s, pm, I, J, r, q, N, ty);
        if (ty == 1) part1[tx] = value;
        __syncthreads();
        if (ty == 0 && active) sC[r][q] = (I == J && diff == 1) ? 0 : max(value, part1[tx]);
        __syncthreads();
    }

    // 3. write the finished tile.
    for (int e = ty * BS + tx; e < BS * BS; e += 2 * BS) {
        int r = e / BS, q = e % BS;
        int i = I * BS + r, c = J * BS + q;
        if (i < N && c < N && c > i) V[L.at(i, c)] = sC[r][q];
    }
}
