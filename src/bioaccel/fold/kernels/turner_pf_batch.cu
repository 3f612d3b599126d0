// McCaskill's partition function and base-pair probabilities (Turner 2004, FP64) of many short RNAs per
// launch: one thread block per sequence at a time, as the MFE batch (turner_batch.cu) folds them.
//
// A block walks its sequence's anti-diagonals, a thread per cell and a __syncthreads per diagonal: the
// pair types (one pass), the inside from the shortest spans up, the exterior loop (q5 on warp 0, q3 on
// warp 1), then the outside from the longest spans down, then the probabilities P = qb ob / Z of every
// cell: those of at least `cutoff` (and above 0) go to one compact list (key (seq << 24 | i << 12 | j),
// probability; a warp reserves its slots with one atomic), and the block adds up the ensemble diversity
// 2 sum p (1 - p) and the centroid's expected distance sum (p > 0.5 ? 1 - p : p) over every cell.
// The grid is persistent: each block takes the launch's sequences from an atomic counter and reuses its
// tables (block_words doubles each: turner_pf.cuh's nine n x n tables, q5 and q3, then the pair types).
//
// Item k < count of a launch is sequence ids[first + k] (codes N=0 .. U=4 at codes[starts[s] ..
// starts[s + 1]), at least 5 bases). log_scale[s]: the natural log of one base's weight (the host's
// choice; a sequence whose scaled Z leaves (e^-500, e^500) is redone there with another). Results:
// log_zhat[s] = ln of the scaled Z (ln Z = log_zhat - n log_scale; -inf / inf / nan: the scale failed,
// no outside), sums[2 s], sums[2 s + 1]; found counts the listed pairs, those past capacity unwritten.
#include "turner_pf.cuh"

template <int MAX_THREADS, int MIN_BLOCKS>
__global__ void __launch_bounds__(MAX_THREADS, MIN_BLOCKS)
turner_pf(const double* __restrict__ B, const int* __restrict__ E, const unsigned char* __restrict__ codes,
          const long long* __restrict__ starts, const int* __restrict__ ids, const double* __restrict__ log_scale,
          int first, int count, int* __restrict__ counter, double* __restrict__ tables, long long block_words,
          int no_lp, double kT, double lxc, double cutoff, int want_bpp, double* __restrict__ log_zhat,
          double* __restrict__ sums, long long* __restrict__ keys, double* __restrict__ probs,
          unsigned long long* __restrict__ found, long long capacity) {
    using namespace turner;
    extern __shared__ double sh[];
    __shared__ int next;
    __shared__ double total[2];
    const int tid = threadIdx.x, THREADS = blockDim.x, lane = tid & 31, warp = tid >> 5;
    double* pw = sh;
    double* G = pw + SEG;
    unsigned char* S = (unsigned char*)(G + GENERIC_SIZE);
    double* mine = tables + blockIdx.x * block_words;
    for (;;) {
        if (tid == 0) next = atomicAdd(counter, 1);
        __syncthreads();  // (also: the previous sequence is done with S, pw, G and the tables)
        const int item = next;
        __syncthreads();
        if (item >= count) break;
        const int seq = ids[first + item];
        const long long s0 = starts[seq];
        const int n = (int)(starts[seq + 1] - s0);
        const double ls = log_scale[seq];
        for (int k = tid; k < n; k += THREADS) S[k] = codes[s0 + k];
        pf_weights(B, ls, pw, G, tid, THREADS);
        if (tid < 2) total[tid] = 0.0;
        __syncthreads();
        const int nn = n * n;
        PfTables t;
        t.qb = mine; t.qm = t.qb + nn; t.qm1 = t.qm + nn; t.qi = t.qm1 + nn; t.r = t.qi + nn;
        t.ob = t.r + nn; t.om = t.ob + nn; t.oml = t.om + nn; t.om1 = t.oml + nn;
        t.q5 = t.om1 + nn; t.q3 = t.q5 + n + 1; t.pt = (unsigned char*)(t.q3 + n + 1);
        const PfCtx x{B, E, S, n, pw, G, ls, kT, lxc};
        for (int at = tid; at < nn; at += THREADS) {
            const int d = at / n, i = at - d * n;
            if (i + d < n) pf_first_cell(x, t, no_lp != 0, i, d);
        }
        __syncthreads();
        for (int d = 4; d < n; ++d) {
            for (int i = tid; i < n - d; i += THREADS) pf_inside_cell(x, t, i, d);
            __syncthreads();
        }
        // the exterior loop: q5 on warp 0, q3 on warp 1 (one after the other on warp 0 in a 32-thread block)
        for (int side = 0; side < 2; ++side) {
            if (warp != (THREADS >= 64 ? side : 0)) continue;
            if (side == 0) {
                if (lane == 0) t.q5[0] = 1.0;
                __syncwarp();
                for (int j = 0; j < n; ++j) {
                    double z = pf_q5_part(x, t, j, lane, 32);
                    for (int o = 16; o; o >>= 1) z += __shfl_xor_sync(0xffffffffu, z, o);
                    if (lane == 0) t.q5[j + 1] = t.q5[j] * pw[1] + z;
                    __syncwarp();
                }
            } else {
                if (lane == 0) t.q3[n] = 1.0;
                __syncwarp();
                for (int i = n - 1; i >= 0; --i) {
                    double z = pf_q3_part(x, t, i, lane, 32);
                    for (int o = 16; o; o >>= 1) z += __shfl_xor_sync(0xffffffffu, z, o);
                    if (lane == 0) t.q3[i] = t.q3[i + 1] * pw[1] + z;
                    __syncwarp();
                }
            }
        }
        __syncthreads();
        const double z = t.q5[n];
        const double lz = log(z);
        if (tid == 0) {
            log_zhat[seq] = lz;
            sums[2 * seq] = 0.0;
            sums[2 * seq + 1] = 0.0;
        }
        if (!(fabs(lz) < 500.0) || !want_bpp) continue;  // (nan fails too) the host rescales and redoes it
        for (int d = n - 1; d >= 4; --d) {
            for (int i = tid; i < n - d; i += THREADS) pf_outside_cell(x, t, i, d);
            __syncthreads();
        }
        double div = 0.0, dist = 0.0;
        for (int base = 0; base < nn; base += THREADS) {
            const int at = base + tid, d = at / n, i = at - d * n;
            double p = 0.0;
            if (at < nn && d >= 4 && i + d < n && t.pt[at]) p = t.qb[at] * t.ob[at] / z;
            div += p * (1.0 - p);
            dist += p > 0.5 ? 1.0 - p : p;
            const bool hit = p > 0.0 && p >= cutoff;
            const unsigned mask = __ballot_sync(0xffffffffu, hit);
            if (!mask) continue;
            unsigned long long slot = 0;
            if (lane == 0) slot = atomicAdd(found, (unsigned long long)__popc(mask));
            slot = __shfl_sync(0xffffffffu, slot, 0) + __popc(mask & ((1u << lane) - 1u));
            if (hit && (long long)slot < capacity) {
                keys[slot] = ((long long)seq << 24) | ((long long)i << 12) | (long long)(i + d);
                probs[slot] = p;
            }
        }
        for (int o = 16; o; o >>= 1) {
            div += __shfl_xor_sync(0xffffffffu, div, o);
            dist += __shfl_xor_sync(0xffffffffu, dist, o);
        }
        if (lane == 0) {
            atomicAdd(&total[0], div);
            atomicAdd(&total[1], dist);
        }
        __syncthreads();
        if (tid == 0) {
            sums[2 * seq] = 2.0 * total[0];
            sums[2 * seq + 1] = total[1];
        }
    }
}
