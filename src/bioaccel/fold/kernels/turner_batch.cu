// Turner 2004 MFE of many short RNAs per launch: one thread block per sequence.
//
// Why a block per sequence: a 200-nt fill has about 20,000 cells on 200 anti-diagonals, each cell a few
// hundred integer operations (the interior loops, the M2 minimum); a block walks the anti-diagonals with
// one __syncthreads() each, its threads taking the diagonal's cells, and thousands of blocks fill the
// GPU. No grid-wide barrier is needed, and the traceback runs in the same block right after the fill
// while the tables are still in L2.
//
// Block b folds sequence first + b of the packed batch (codes in the tables' base codes, N=0 .. U=4,
// sequence k at codes[starts[k]:starts[k + 1]], at least 5 bases: shorter ones have no pair and never
// come here). Its tables (three n x n int32, the CPU's layout, then the traceback stack) start at
// tables + offsets[b]. Results: energies[first + b], and pair_to at starts[first + b] (partner or -1).
// status[0] is set to 1 if a traceback finds a value no case reproduces (a corrupt table).
// Dynamic shared memory: f (n + 1 ints) and the sequence (n bytes), for the longest of the launch.
#include "turner_fold.cuh"

// MAX_THREADS bounds the block (its registers); a launch uses blockDim.x <= MAX_THREADS threads, chosen
// by its longest sequence, so one instantiation serves every length (each costs seconds of NVRTC).
// no_lp is an argument too: a uniform branch per cell, against a second compile.
template <int MAX_THREADS>
__global__ void __launch_bounds__(MAX_THREADS)
turner_fold(const int* __restrict__ E, const int* __restrict__ hp_size, const unsigned char* __restrict__ codes,
            const long long* __restrict__ starts, int first, const long long* __restrict__ offsets,
            int* __restrict__ tables, int no_lp, int walk, int* __restrict__ energies,
            int* __restrict__ pair_to, int* __restrict__ status) {
    using namespace turner;
    extern __shared__ int shared[];
    const int tid = threadIdx.x;
    const int THREADS = blockDim.x;
    const bool NO_LP = no_lp != 0;
    const int seq = first + blockIdx.x;
    const long long s0 = starts[seq];
    const int n = (int)(starts[seq + 1] - s0);
    int* f = shared;
    unsigned char* S = (unsigned char*)(shared + n + 1);
    for (int k = tid; k < n; k += THREADS) {
        S[k] = codes[s0 + k];
        pair_to[s0 + k] = -1;
    }
    __syncthreads();
    const long long nn = (long long)n * n;
    int* c = tables + offsets[blockIdx.x];
    int* fm = c + nn;
    int* m2 = fm + nn;
    int* stk = m2 + nn;
    const Ctx x{E, hp_size, S, n};
    // diagonals 0..3 hold no pair: independent of one another, one pass
    for (int at = tid; at < 4 * n; at += THREADS) {
        const int d = at / n, i = at % n;
        if (i + d < n) fill_cell(x, c, fm, m2, NO_LP, i, i + d);
    }
    __syncthreads();
    for (int d = 4; d < n; ++d) {
        for (int i = tid; i < n - d; i += THREADS) fill_cell(x, c, fm, m2, NO_LP, i, i + d);
        __syncthreads();
    }
    // exterior loop: warp 0, the minimum over k of each f(t) spread over its lanes
    if (tid < 32) {
        if (tid == 0) f[0] = 0;
        __syncwarp();
        for (int t = 1; t <= n; ++t) {
            int best = exterior_part(x, c, f, t, tid, 32);
            for (int o = 16; o; o >>= 1) best = imin(best, __shfl_xor_sync(0xffffffffu, best, o));
            if (tid == 0) f[t] = imin(f[t - 1], best);
            __syncwarp();
        }
    }
    __syncthreads();
    if (tid == 0) {
        energies[seq] = f[n];
        if (walk && !traceback(x, c, fm, m2, f, NO_LP, pair_to + s0, stk)) atomicExch(status, 1);
    }
}
