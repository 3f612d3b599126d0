// Shared by every Nussinov kernel.
//
// All GPU kernels use half-open intervals over the n+1 "fence posts" 0..n of a sequence:
//     V(i, c) = C(i, c-1) = best score of s[i..c-1],   0 <= i < c <= n,   V(i, i+1) = 0.
//     V(i, c) = max( V(i+1, c-1) + w(s[i], s[c-1])      if (i, c-1) may pair,
//                    max_{i < m < c} V(i, m) + V(m, c) )
// With half-open intervals, seed 001's product C(i,k) + C(k+1,j) becomes V(i,m) + V(m,c): a plain
// max-plus product of tiles with no one-column shift. The answer is V(0, n).
#pragma once

typedef unsigned char code_t;

// Pair weights in units: a 5 x 5 table over codes A, C, G, U, other (0 = no pair).
struct PairModel {
    int weight[25];
    int min_loop;
};

__device__ __forceinline__ int pair_weight(const PairModel* __restrict__ pm, const code_t* s, int i, int c) {
    // the pair (i, c-1) of the half-open interval [i, c)
    int j = c - 1;
    if (j - i - 1 < pm->min_loop) return 0;
    return pm->weight[s[i] * 5 + s[j]];
}

// Layouts: where V(i, c) lives. N = n + 1 posts.
struct SquareLayout {            // N x N, row i holds V(i, .) at [i][c]
    long long N;
    __device__ __forceinline__ long long at(int i, int c) const { return (long long)i * N + c; }
    __device__ __forceinline__ long long mirror(int i, int c) const { return (long long)c * N + i; }
};

struct PackedRowsLayout {        // upper triangle, row-major, 1-D (seed 001 "Ours2")
    long long N;
    __device__ __forceinline__ long long at(int i, int c) const {
        long long ii = i;
        return ii * N - ii * (ii - 1) / 2 + (c - i);
    }
};

template <int T>
struct TiledLayout {             // upper-triangle tiles T x T, each contiguous, tiles row-major
    long long nt;                // tiles per side
    __device__ __forceinline__ long long tile(int I, int J) const {
        long long II = I;
        return (II * nt - II * (II - 1) / 2 + (J - I)) * (long long)(T * T);
    }
    __device__ __forceinline__ long long at(int i, int c) const {
        return tile(i / T, c / T) + (i % T) * T + (c % T);
    }
};

// V of an empty or one-letter interval is 0 whatever the layout stores there.
template <typename Score, typename Layout>
__device__ __forceinline__ int load_v(const Score* V, const Layout& L, int i, int c) {
    return (c - i <= 1) ? 0 : (int)V[L.at(i, c)];
}
