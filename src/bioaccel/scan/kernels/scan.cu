// SCAN and MULTIPLESCAN on the GPU (bioaccel.scan._gpu builds the inputs).
//
// Exactness. A motif's scores are int64 sums on its integer grid, too wide for fast shared-memory
// tables. The kernels therefore filter with *coarse* int32 tables, every value rounded up
// (c = ceil((t - min) / D) per slice or column, Tc = ceil((T - sum of mins) / D)), so a window whose
// exact score reaches T always has a coarse sum >= Tc: no hit is lost. The rare windows that pass are
// scored again exactly, in int64 from the grid matrix, and checked for letters other than A, C, G, T
// (such a window is never a hit) before they are written out. So the GPU reports exactly the CPU's hits.
//
// Output: (entry, window start, exact score), compacted through one global counter; a caller whose
// buffers were too small (the counter says how many hits there were) runs the chunk again with more.

// Where hits go: out_entry, out_pos, out_score hold `capacity`; `counter` counts every hit found.
#define HIT_PARAMS unsigned long long* __restrict__ counter, int* __restrict__ out_entry, \
    long long* __restrict__ out_pos, long long* __restrict__ out_score, long long capacity

// The exact grid score of the window at i (int64), false when it holds a letter other than A, C, G, T
// or does not reach T.
__device__ __forceinline__ bool exact_hit(const unsigned char* __restrict__ codes, long long i, int m,
                                          const long long* __restrict__ units, long long T, long long* score) {
    long long s = 0;
    for (int j = 0; j < m; ++j) {
        const unsigned c = codes[i + j];
        if (c > 3) return false;
        s += units[4 * j + c];
    }
    *score = s;
    return s >= T;
}

#define PUT(k, e, i, s) do { const long long k_ = (k); \
    if (k_ < capacity) { out_entry[k_] = (e); out_pos[k_] = (i); out_score[k_] = (s); } } while (0)

// ---- fused: bioaccel's kernel -------------------------------------------------------------------------
//
// A block per (text segment of THREADS * K windows, group of entries). The group's slice tables (4^L
// coarse scores per slice of L columns) and the segment's words (the L letters from each position, one
// byte) are staged in shared memory; each thread keeps K windows' sums in registers, so a slice's meta
// data is read once for K look-ups. The threshold test is fused: only hits leave the block.
template <int L, int THREADS, int K>
__global__ void __launch_bounds__(THREADS) scan_fused(
        const unsigned char* __restrict__ codes, long long n, long long windows,
        const int* __restrict__ group_entry,       // entries of group g: group_entry[g] .. group_entry[g+1]-1
        const long long* __restrict__ group_table, // coarse words of group g: from group_table[g] ..
        const int* __restrict__ group_words,       // .. how many
        const int* __restrict__ group_reach,       // longest entry of the group (letters a segment needs past
                                                   // its windows)
        const int* __restrict__ entry_slice,       // slices of entry e: entry_slice[e] .. entry_slice[e+1]-1
        const int* __restrict__ slice_meta,        // (column offset << 16) | table start within the group
        const int* __restrict__ coarse_threshold,
        const int* __restrict__ coarse,            // every group's tables, back to back
        const int* __restrict__ length,
        const long long* __restrict__ units_start, // entry e's grid matrix: units[4 * units_start[e] ..]
        const long long* __restrict__ units,
        const long long* __restrict__ threshold,
        const long long* __restrict__ keep_from,   // per entry, >= threshold: a hit below it is only counted
        unsigned long long* __restrict__ withheld, // (it cannot be among the best kept: --max-stored-hits)
        HIT_PARAMS) {
    extern __shared__ int shared[];
    constexpr int SEG = THREADS * K;
    const int g = blockIdx.y;
    const int words = group_words[g];
    int* table = shared;
    unsigned char* word = reinterpret_cast<unsigned char*>(shared + words);
    const long long seg0 = (long long)blockIdx.x * SEG;
    if (seg0 >= windows) return;

    const int* source = coarse + group_table[g];
    for (int k = threadIdx.x; k < words; k += THREADS) table[k] = source[k];
    const int span = SEG + group_reach[g];
    for (int p = threadIdx.x; p < span; p += THREADS) {
        unsigned w = 0;
        #pragma unroll
        for (int k = 0; k < L; ++k) {
            const long long r = seg0 + p + k;
            const unsigned c = r < n ? codes[r] : 0u;
            w = (w << 2) | (c > 3 ? 0u : c);       // other letters read as A here, refused when exact
        }
        word[p] = (unsigned char)w;
    }
    __syncthreads();

    unsigned held_back = 0;
    for (int e = group_entry[g]; e < group_entry[g + 1]; ++e) {
        int sum[K];
        #pragma unroll
        for (int k = 0; k < K; ++k) sum[k] = 0;
        for (int s = entry_slice[e]; s < entry_slice[e + 1]; ++s) {
            const int meta = slice_meta[s];
            const int* t = table + (meta & 0xffff);
            const unsigned char* w = word + (meta >> 16) + threadIdx.x;
            #pragma unroll
            for (int k = 0; k < K; ++k) sum[k] += t[w[k * THREADS]];
        }
        const int Tc = coarse_threshold[e];
        #pragma unroll
        for (int k = 0; k < K; ++k) {
            if (sum[k] < Tc) continue;
            const long long i = seg0 + threadIdx.x + k * THREADS;
            const int m = length[e];
            long long score;
            if (i < windows && i + m <= n && exact_hit(codes, i, m, units + 4 * units_start[e], threshold[e], &score)) {
                if (score >= keep_from[e]) PUT((long long)atomicAdd(counter, 1ULL), e, i, score);
                else ++held_back;
            }
        }
    }
    if (held_back) atomicAdd(withheld, (unsigned long long)held_back);
}

// ---- lanes: the fused kernel's second form ------------------------------------------------------------
//
// The first form (scan_fused<4, ...>) reads a byte of the segment's words and a 4-byte table word per
// look-up, and its 256-word tables put 32 lanes' random words on about 3.5 distinct addresses of one bank:
// about 4.5 shared-memory wavefronts a warp per look-up. Here eight entries (an *octet*, the lanes) share
// one table of 256 rows of 16 bytes per slice of 4 columns: row w holds the eight entries' coarse scores
// of word w, 16 bits each (pairs in 32-bit words), so one 16-byte load is 8 look-ups (a warp's such load
// takes 4 quarter-warp phases of about 2.4 wavefronts each on random words). Each thread holds Q groups of
// 4 consecutive windows; their 4 words at a slice are one aligned 32-bit load. The sums are packed too:
// each lane starts at 0x8000 - Tc (Tc clamped to [0, 0x8000]) and adds coarse scores that total at most
// 0x7FFF, so no lane carries into the next and a lane's top bit says "coarse sum >= Tc".
template <int THREADS, int Q>
__global__ void __launch_bounds__(THREADS) scan_lanes(
        const unsigned char* __restrict__ codes, long long n, long long windows,
        const int* __restrict__ group_octet,       // octets of group g: group_octet[g] .. group_octet[g+1]-1
        const long long* __restrict__ group_table, // 32-bit words of group g in `coarse`: from group_table[g] ..
        const int* __restrict__ group_words,       // .. how many (1,024 a table)
        const int* __restrict__ group_reach,       // longest entry of the group
        const int* __restrict__ octet_table,       // octet o's first table within its group
        const int* __restrict__ octet_slices,      // and how many (the longest of its 8 entries, in slices)
        const uint4* __restrict__ octet_init,      // the lanes' starting sums, 0x8000 - Tc
        const uint4* __restrict__ coarse,          // every group's tables, back to back
        const int* __restrict__ length,            // per lane (entry 8 o + j); 0 for an empty lane
        const long long* __restrict__ units_start, const long long* __restrict__ units,
        const long long* __restrict__ threshold,
        const long long* __restrict__ keep_from, unsigned long long* __restrict__ withheld,
        HIT_PARAMS) {
    extern __shared__ uint4 rows[];
    constexpr int SEG = THREADS * 4 * Q;
    const int g = blockIdx.y;
    const int tables = group_words[g] >> 10;
    uint4* table = rows;
    unsigned char* word = reinterpret_cast<unsigned char*>(rows + (tables << 8));
    const long long seg0 = (long long)blockIdx.x * SEG;
    if (seg0 >= windows) return;

    const uint4* source = coarse + (group_table[g] >> 2);
    for (int k = threadIdx.x; k < (tables << 8); k += THREADS) table[k] = source[k];
    const int span = SEG + group_reach[g] + 4;
    for (int p = threadIdx.x; p < span; p += THREADS) {
        unsigned w = 0;
        #pragma unroll
        for (int k = 0; k < 4; ++k) {
            const long long r = seg0 + p + k;
            const unsigned c = r < n ? codes[r] : 0u;
            w = (w << 2) | (c > 3 ? 0u : c);       // other letters read as A here, refused when exact
        }
        word[p] = (unsigned char)w;
    }
    __syncthreads();

    const unsigned* word4 = reinterpret_cast<const unsigned*>(word);
    unsigned held_back = 0;
    for (int o = group_octet[g]; o < group_octet[g + 1]; ++o) {
        const uint4 init = octet_init[o];
        uint4 sum[4 * Q];
        #pragma unroll
        for (int k = 0; k < 4 * Q; ++k) sum[k] = init;
        const uint4* t = table + (octet_table[o] << 8);
        const int slices = octet_slices[o];
        for (int s = 0; s < slices; ++s, t += 256) {
            #pragma unroll
            for (int q = 0; q < Q; ++q) {
                const unsigned x = word4[q * THREADS + threadIdx.x + s];    // windows' words at column 4 s
                #pragma unroll
                for (int j = 0; j < 4; ++j) {
                    const uint4 v = t[(x >> (8 * j)) & 0xffu];
                    sum[4 * q + j].x += v.x;
                    sum[4 * q + j].y += v.y;
                    sum[4 * q + j].z += v.z;
                    sum[4 * q + j].w += v.w;
                }
            }
        }
        #pragma unroll
        for (int k = 0; k < 4 * Q; ++k) {
            const uint4 r = sum[k];
            if (((r.x | r.y | r.z | r.w) & 0x80008000u) == 0u) continue;
            const long long i = seg0 + 4LL * ((k >> 2) * THREADS + threadIdx.x) + (k & 3);
            if (i >= windows) continue;
            // the lanes that passed, lane j at bit j (each lane's top bit: bits 15 and 31 of each word)
            unsigned passed = ((r.x >> 15) & 1u) | ((r.x >> 30) & 2u) | ((r.y >> 13) & 4u) | ((r.y >> 28) & 8u) |
                              ((r.z >> 11) & 16u) | ((r.z >> 26) & 32u) | ((r.w >> 9) & 64u) | ((r.w >> 24) & 128u);
            while (passed) {
                const int j = __ffs(passed) - 1;
                passed &= passed - 1u;
                const int e = 8 * o + j;
                const int m = length[e];
                long long score;
                if (i + m <= n && exact_hit(codes, i, m, units + 4 * units_start[e], threshold[e], &score)) {
                    if (score >= keep_from[e]) PUT((long long)atomicAdd(counter, 1ULL), e, i, score);
                    else ++held_back;
                }
            }
        }
    }
    if (held_back) atomicAdd(withheld, (unsigned long long)held_back);
}

// ---- segments: Giraud & Varré's MULTIPLESCAN kernel ---------------------------------------------------
//
// A block per (text segment of SEG letters, group of matrices): the segment and the group's matrices in
// shared memory, one window per thread at a time, the loop over matrices innermost, each window scored
// column by column. A block's hits are gathered in shared memory and copied out at its end (past the
// buffer's room, straight to global memory).
template <int SEG, int THREADS, int BUFFER>
__global__ void __launch_bounds__(THREADS) scan_segments(
        const unsigned char* __restrict__ codes, long long n, long long windows,
        const int* __restrict__ group_entry, const long long* __restrict__ group_table,
        const int* __restrict__ group_words, const int* __restrict__ group_reach,
        const int* __restrict__ entry_column,      // entry e's coarse matrix: 4 words a column, from here in the group
        const int* __restrict__ coarse_threshold,
        const int* __restrict__ coarse,
        const int* __restrict__ length,
        const long long* __restrict__ units_start, const long long* __restrict__ units,
        const long long* __restrict__ threshold,
        HIT_PARAMS) {
    extern __shared__ int shared[];
    __shared__ int held;
    __shared__ unsigned long long base;
    __shared__ int buf_entry[BUFFER];
    __shared__ int buf_pos[BUFFER];
    __shared__ long long buf_score[BUFFER];
    const int g = blockIdx.y;
    const int words = group_words[g];
    int* matrix = shared;
    unsigned char* text = reinterpret_cast<unsigned char*>(shared + words);
    const long long seg0 = (long long)blockIdx.x * SEG;
    if (seg0 >= windows) return;
    if (threadIdx.x == 0) held = 0;

    const int* source = coarse + group_table[g];
    for (int k = threadIdx.x; k < words; k += THREADS) matrix[k] = source[k];
    const int span = SEG + group_reach[g];
    for (int p = threadIdx.x; p < span; p += THREADS) {
        const long long r = seg0 + p;
        const unsigned c = r < n ? codes[r] : 0u;
        text[p] = (unsigned char)(c > 3 ? 0u : c);
    }
    __syncthreads();

    const int first = group_entry[g], last = group_entry[g + 1];
    for (int w = threadIdx.x; w < SEG; w += THREADS) {
        const long long i = seg0 + w;
        if (i >= windows) break;
        for (int e = first; e < last; ++e) {      // the matrices innermost
            const int m = length[e];
            const int* M = matrix + entry_column[e];
            int s = 0;
            for (int j = 0; j < m; ++j) s += M[4 * j + text[w + j]];
            long long score;
            if (s >= coarse_threshold[e] && i + m <= n &&
                    exact_hit(codes, i, m, units + 4 * units_start[e], threshold[e], &score)) {
                const int slot = atomicAdd(&held, 1);
                if (slot < BUFFER) {
                    buf_entry[slot] = e;
                    buf_pos[slot] = w;
                    buf_score[slot] = score;
                } else {
                    PUT((long long)atomicAdd(counter, 1ULL), e, i, score);
                }
            }
        }
    }
    __syncthreads();
    const int count = held < BUFFER ? held : BUFFER;
    if (threadIdx.x == 0 && count > 0) base = atomicAdd(counter, (unsigned long long)count);
    __syncthreads();
    for (int k = threadIdx.x; k < count; k += THREADS)
        PUT((long long)(base + k), buf_entry[k], seg0 + buf_pos[k], buf_score[k]);
}
