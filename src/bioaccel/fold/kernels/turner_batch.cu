// Turner 2004 MFE of many short RNAs per launch: one thread block per sequence at a time.
//
// Why a block per sequence: a 200-nt fill has about 20,000 cells on 200 anti-diagonals, each cell a few
// hundred integer operations (the interior loops, the M2 minimum); a block walks the anti-diagonals with
// one __syncthreads() each, its threads taking the diagonal's cells, and thousands of blocks fill the
// GPU. No grid-wide barrier is needed, and the traceback runs in the same block right after the fill.
//
// The grid is persistent: about as many blocks as the GPU holds at once, each taking the launch's
// sequences one after another from an atomic counter and reusing its own tables for each. So the tables
// take (blocks x one sequence's) memory, not (sequences x ...), a whole length class is one launch, and
// no wave of blocks runs half empty at the end of each of a hundred launches.
//
// Item k < count of a launch is sequence ids[first + k] of the packed batch (codes in the tables' base
// codes, N=0 .. U=4, sequence s at codes[starts[s]:starts[s + 1]], at least 5 bases: shorter ones have
// no pair and never come here). Block b's tables (turner_fold.cuh: c, cm, fm, then cc with no_lp, each
// n x n diagonal-major, then the M2 ring of 3n and the traceback stack) start at tables + b *
// block_words. Results: energies[s], and pair_to at starts[s] (partner, or the host's preset -1).
// status[0] is set to 1 if a traceback finds a value no case reproduces (a corrupt table).
// Dynamic shared memory: the small energy tables (SHARED_INTS ints), f (n + 1 ints) and the sequence
// (n bytes), for the longest of the launch.
#include "turner_fold.cuh"

// MAX_THREADS bounds the block, MIN_BLOCKS the registers (65,536 / (MAX_THREADS x MIN_BLOCKS) per
// thread: 64 at 256 x 4, so that eight 128-thread blocks share an SM; without it the traceback's inlined
// searches took 115). A launch uses blockDim.x <= MAX_THREADS threads, chosen by its longest sequence,
// so one instantiation serves every length (each costs seconds of NVRTC). no_lp is an argument too: a
// uniform branch per cell, against a second compile.
template <int MAX_THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(MAX_THREADS, MIN_BLOCKS)
turner_fold(const int* __restrict__ E, const int* __restrict__ hp_size, const unsigned char* __restrict__ codes,
            const long long* __restrict__ starts, const int* __restrict__ ids, int first, int count,
            int* __restrict__ counter, int* __restrict__ tables, long long block_words, int no_lp, int walk,
            int* __restrict__ energies, int* __restrict__ pair_to, int* __restrict__ status) {
    using namespace turner;
    extern __shared__ int shared[];
    __shared__ int next;
    const int tid = threadIdx.x;
    const int THREADS = blockDim.x;
    const bool NO_LP = no_lp != 0;
    int* Es = shared;
    int* f = Es + SHARED_INTS;
    stage_tables(E, Es, tid, THREADS);
    int* mine = tables + blockIdx.x * block_words;
    for (;;) {
        if (tid == 0) next = atomicAdd(counter, 1);
        __syncthreads();  // (also: the previous sequence's traceback is done with S, f and the tables)
        const int item = next;
        __syncthreads();  // every thread has read next before thread 0 overwrites it
        if (item >= count) break;
        const int seq = ids[first + item];
        const long long s0 = starts[seq];
        const int n = (int)(starts[seq + 1] - s0);
        unsigned char* S = (unsigned char*)(f + n + 1);
        for (int k = tid; k < n; k += THREADS) S[k] = codes[s0 + k];
        __syncthreads();
        const long long nn = (long long)n * n;
        Tables t;
        t.c = mine;
        t.cm = t.c + nn;
        t.fm = t.cm + nn;
        t.cc = t.fm + nn;
        t.m2 = t.cc + (NO_LP ? nn : 0);
        t.stk = t.m2 + 3 * n;
        const Ctx x{E, Es, hp_size, S, n};
        // diagonals 0..3 hold no pair: independent of one another, one pass
        for (int at = tid; at < 4 * n; at += THREADS) {
            const int d = at / n, i = at % n;
            if (i + d < n) fill_cell(x, t, NO_LP, i, d);
        }
        __syncthreads();
        for (int d = 4; d < n; ++d) {
            for (int i = tid; i < n - d; i += THREADS) fill_cell(x, t, NO_LP, i, d);
            __syncthreads();
        }
        // exterior loop, then the traceback: warp 0 (the minimum over k of each f(t) spread over its lanes)
        if (tid < 32) {
            if (tid == 0) f[0] = 0;
            __syncwarp();
            for (int u = 1; u <= n; ++u) {
                int best = exterior_part(x, DiagLayout{n}, t.c, f, u, tid, 32);
                for (int o = 16; o; o >>= 1) best = imin(best, __shfl_xor_sync(0xffffffffu, best, o));
                if (tid == 0) f[u] = imin(f[u - 1], best);
                __syncwarp();
            }
            if (tid == 0) energies[seq] = f[n];
            if (walk && !traceback(x, DiagLayout{n}, t, f, NO_LP, pair_to + s0, tid == 0) && tid == 0) atomicExch(status, 1);
        }
    }
}
