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
    __device__ __forceinline__ long long index(int I, int J) const {     // the tile's number
        long long II = I;
        return II * nt - II * (II - 1) / 2 + (J - I);
    }
    __device__ __forceinline__ long long tile(int I, int J) const { return index(I, J) * (long long)(T * T); }
    __device__ __forceinline__ long long at(int i, int c) const {
        return tile(i / T, c / T) + (i % T) * T + (c % T);
    }
};

// The offset encoding of long sequences (fold/_gpu_tiled.py): int16 cells hold V - base of their tile,
// bases[index(I, J)] (int32) the smallest V of tile (I, J). Scores up to n/2 do not fit int16, but a
// tile's cells differ by at most 2 (T - 1) weights (one letter more or less changes V by at most one pair).
template <int T>
struct TiledOffsetLayout {
    TiledLayout<T> tiles;
    const int* bases;
    __device__ __forceinline__ long long at(int i, int c) const { return tiles.at(i, c); }
    __device__ __forceinline__ int base(int i, int c) const { return bases[tiles.index(i / T, c / T)]; }
};

// V of an empty or one-letter interval is 0 whatever the layout stores there.
template <typename Score, typename Layout>
__device__ __forceinline__ int load_v(const Score* V, const Layout& L, int i, int c) {
    return (c - i <= 1) ? 0 : (int)V[L.at(i, c)];
}
template <typename Score, int T>
__device__ __forceinline__ int load_v(const Score* V, const TiledOffsetLayout<T>& L, int i, int c) {
    return (c - i <= 1) ? 0 : (int)V[L.at(i, c)] + L.base(i, c);
}
// load_v's rule for a cell already read from a staged copy of V (the traceback's window in shared memory).
template <typename Score>
__device__ __forceinline__ int staged_v(Score cell, int i, int c) {
    return (c - i <= 1) ? 0 : (int)cell;
}
