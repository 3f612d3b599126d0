// BUCKETSCOREDISTRIBUTION on the GPU (Giraud & Varré, section 4.4 and Figure 6).
//
// One launch per slice of L columns. Word letters are split in three:
//   positions [loop_len, L)          fixed per thread (the thread's global index, base 4),
//   positions [0, outer_len)         the outer loop, the same for every thread at a given time,
//   positions [outer_len, loop_len)  the inner loop, whose partial sums sit in shared memory.
// All threads run the same loops with the same trip counts: no divergence (the last block's spare
// threads only skip their increments). Each word's bucket is floor((score - qmin) * scale) on exact
// int64 fixed-point sums, the same arithmetic as the CPU (motif/_bucket.py), and one shared-memory
// atomic adds it to the block's table, which is added to the global table at the end.
//
// COUNTS (uniform background): 32-bit counts per block, 64-bit in global memory.
// WEIGHTED (any order-0 background): each word adds the product of its letters' probabilities.

template <bool WEIGHTED>
struct Bucket;

template <>
struct Bucket<false> {
    typedef unsigned int Shared;
    typedef unsigned long long Global;
};

template <>
struct Bucket<true> {
    typedef double Shared;
    typedef double Global;
};

template <bool WEIGHTED>
__global__ void slice_histogram(const long long* __restrict__ q,     // L x 4 fixed-point scores
                                const double* __restrict__ w,        // L x 4 letter probabilities
                                int L, int loop_len, int inner_len,
                                long long qmin, double scale, int buckets,
                                unsigned long long total_threads,
                                typename Bucket<WEIGHTED>::Global* __restrict__ out)
{
    typedef typename Bucket<WEIGHTED>::Shared S;
    extern __shared__ unsigned char smem[];
    S* hist = reinterpret_cast<S*>(smem);
    size_t hist_bytes = ((size_t)buckets * sizeof(S) + 15) & ~(size_t)15;
    long long* inner_sum = reinterpret_cast<long long*>(smem + hist_bytes);
    const int inner_words = 1 << (2 * inner_len);
    double* inner_w = reinterpret_cast<double*>(inner_sum + inner_words);

    for (int b = threadIdx.x; b < buckets; b += blockDim.x) hist[b] = (S)0;
    const int outer_len = loop_len - inner_len;
    for (int i = threadIdx.x; i < inner_words; i += blockDim.x) {
        long long s = 0;
        double pw = 1.0;
        for (int t = 0; t < inner_len; ++t) {
            int x = (i >> (2 * (inner_len - 1 - t))) & 3;
            s += q[(outer_len + t) * 4 + x];
            if (WEIGHTED) pw *= w[(outer_len + t) * 4 + x];
        }
        inner_sum[i] = s;
        if (WEIGHTED) inner_w[i] = pw;
    }
    __syncthreads();

    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = g < total_threads;
    const int fixed_len = L - loop_len;
    long long fixed_sum = 0;
    double fixed_w = 1.0;
    for (int t = 0; t < fixed_len; ++t) {
        int x = (int)((g >> (2 * (fixed_len - 1 - t))) & 3ULL);
        fixed_sum += q[(loop_len + t) * 4 + x];
        if (WEIGHTED) fixed_w *= w[(loop_len + t) * 4 + x];
    }
    const long long outer_words = 1LL << (2 * outer_len);
    for (long long o = 0; o < outer_words; ++o) {
        long long base = fixed_sum - qmin;
        double ow = fixed_w;
        for (int t = 0; t < outer_len; ++t) {
            int x = (int)((o >> (2 * (outer_len - 1 - t))) & 3);
            base += q[t * 4 + x];
            if (WEIGHTED) ow *= w[t * 4 + x];
        }
        if (active) {
            for (int i = 0; i < inner_words; ++i) {
                long long b = (long long)((double)(base + inner_sum[i]) * scale);
                if (b >= buckets) b = buckets - 1;
                if (WEIGHTED) {
                    atomicAdd(reinterpret_cast<double*>(&hist[b]), ow * inner_w[i]);
                } else {
                    atomicAdd(reinterpret_cast<unsigned int*>(&hist[b]), 1u);
                }
            }
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < buckets; b += blockDim.x) {
        S v = hist[b];
        if (v != (S)0) atomicAdd(&out[b], (typename Bucket<WEIGHTED>::Global)v);
    }
}

// Markov background of order k (C = 4**k contexts), one launch per (context before the slice,
// last k letters of the slice): the launch's words all end in `out_ctx`, so its bucket table is one
// table of the host's [in_ctx, out_ctx, bucket] array. A word's probability is the product of the
// chain's transitions (or, in the matrix's first slice, the initial k-mer probability for its first
// k letters); the outer letters' product is formed per outer word, the inner letters' products
// sit in shared memory for every context entering them, and each thread keeps its fixed letters'
// product for every context entering those.
__device__ __forceinline__ double segment_weight(const double* __restrict__ T, const double* __restrict__ init,
                                                 int C, int order, bool first, int pos, int ctx, int len,
                                                 unsigned long long letters, int* ctx_out)
{
    double w = 1.0;
    for (int t = 0; t < len; ++t) {
        int x = (int)((letters >> (2 * (len - 1 - t))) & 3ULL);
        int j = pos + t;
        int next = (ctx * 4 + x) & (C - 1);
        if (first && j < order) {
            if (j == order - 1) w *= init[next];
        } else {
            w *= T[ctx * 4 + x];
        }
        ctx = next;
    }
    *ctx_out = ctx;
    return w;
}

__global__ void slice_histogram_markov(const long long* __restrict__ q, const double* __restrict__ T,
                                       const double* __restrict__ init, int order, int first,
                                       int in_ctx, int out_ctx,
                                       int L, int loop_len, int inner_len,
                                       long long qmin, double scale, int buckets,
                                       unsigned long long total_threads, double* __restrict__ out)
{
    extern __shared__ unsigned char smem[];
    double* hist = reinterpret_cast<double*>(smem);
    size_t hist_bytes = ((size_t)buckets * sizeof(double) + 15) & ~(size_t)15;
    long long* inner_sum = reinterpret_cast<long long*>(smem + hist_bytes);
    const int inner_words = 1 << (2 * inner_len);
    double* inner_w = reinterpret_cast<double*>(inner_sum + inner_words);   // [context][inner word]
    const int C = 1 << (2 * order);
    const bool is_first = first != 0;
    const int outer_len = loop_len - inner_len;
    const int fixed_len = L - loop_len;

    for (int b = threadIdx.x; b < buckets; b += blockDim.x) hist[b] = 0.0;
    for (int i = threadIdx.x; i < inner_words; i += blockDim.x) {
        long long s = 0;
        for (int t = 0; t < inner_len; ++t) {
            int x = (i >> (2 * (inner_len - 1 - t))) & 3;
            s += q[(outer_len + t) * 4 + x];
        }
        inner_sum[i] = s;
    }
    for (int e = threadIdx.x; e < C * inner_words; e += blockDim.x) {
        int ctx = e / inner_words, i = e % inner_words, end;
        inner_w[e] = segment_weight(T, init, C, order, is_first, outer_len, ctx, inner_len,
                                    (unsigned long long)i, &end);
    }
    __syncthreads();

    const unsigned long long g = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
    const bool active = g < total_threads;
    // the thread's fixed letters end with the launch's out_ctx
    const unsigned long long fixed_letters = (g << (2 * order)) | (unsigned long long)out_ctx;
    long long fixed_sum = 0;
    for (int t = 0; t < fixed_len; ++t) {
        int x = (int)((fixed_letters >> (2 * (fixed_len - 1 - t))) & 3ULL);
        fixed_sum += q[(loop_len + t) * 4 + x];
    }
    double fixed_w[16];
    for (int ctx = 0; ctx < C; ++ctx) {
        int end;
        fixed_w[ctx] = segment_weight(T, init, C, order, is_first, loop_len, ctx, fixed_len, fixed_letters, &end);
    }
    const long long outer_words = 1LL << (2 * outer_len);
    const int start_ctx = is_first ? 0 : in_ctx;
    for (long long o = 0; o < outer_words; ++o) {
        long long base = fixed_sum - qmin;
        for (int t = 0; t < outer_len; ++t) {
            int x = (int)((o >> (2 * (outer_len - 1 - t))) & 3);
            base += q[t * 4 + x];
        }
        int ctx_o;
        double ow = segment_weight(T, init, C, order, is_first, 0, start_ctx, outer_len,
                                   (unsigned long long)o, &ctx_o);
        if (active) {
            const double* iw = inner_w + (size_t)ctx_o * inner_words;
            for (int i = 0; i < inner_words; ++i) {
                long long b = (long long)((double)(base + inner_sum[i]) * scale);
                if (b >= buckets) b = buckets - 1;
                int ctx_f = (int)((((unsigned long long)ctx_o << (2 * inner_len)) | (unsigned long long)i) & (C - 1));
                atomicAdd(&hist[b], ow * iw[i] * fixed_w[ctx_f]);
            }
        }
    }
    __syncthreads();
    for (int b = threadIdx.x; b < buckets; b += blockDim.x) {
        double v = hist[b];
        if (v != 0.0) atomicAdd(&out[b], v);
    }
}
