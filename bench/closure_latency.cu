// Latencies of the closure step's instructions (issue 29, helper nbstep2; bench/closure_latency.py): one warp runs
// CHAIN dependent instructions of one kind, and lane 0 writes the clock64 cycles they took. bench/closure_step_model.py
// guessed the DPX and ALU latencies (4 to 8 cycles); these chains measure them. Each chain's instruction takes the
// last one's result as an operand; the other operands cycle through four values the compiler cannot know, so that
// no two steps fold into one (bench/closure_latency.py --sass counts each chain's opcode in the SASS).
#define CHAIN 256

// OP: 0 VIADDMNMX.S16x2 (the splits' DPX; the chain through the sum's operand: through the running max, as the
// closure chains them, the compiler hoists a + b out of the loop and leaves a 3-way max), 1 VIADDMNMX (32-bit), 2 VIMNMX3 (3-way max), 3 PRMT (a half sign-extended, then the halves swapped),
// 4 IMAD, 5 SHFL.DOWN by 1, 6 LDS (4 bytes), 7 LDS.128 (16 bytes), 8 STS then LDS of another lane's word (a cell's
// shared-memory round trip: store, __syncwarp, load), 9 IMAD in a loop of 16 (LDS.128's loop: its overhead)
template <int OP>
__device__ __forceinline__ int chain(int x, const int (&k)[4], int* words, int& side) {
    const unsigned base = (unsigned)__cvta_generic_to_shared(words);
    // LDS.128 (and the IMAD chain beside it, 9: what the loop adds) unrolled by 16, not fully: ptxas otherwise issues
    // all 256 LDS.128 first and spills the words they leave; the other chains wholly (a loop's branch adds ~0.6 cycles
    // an instruction at 16)
    constexpr int UNROLL = OP == 7 || OP == 9 ? 16 : CHAIN;
#pragma unroll UNROLL
    for (int i = 0; i < CHAIN; ++i) {
        const int a = k[i % 4], b = k[(i + 1) % 4];
        if constexpr (OP == 0) {
            x = (int)__viaddmax_s16x2((unsigned)x, (unsigned)a, (unsigned)b);
        } else if constexpr (OP == 1) {
            x = __viaddmax_s32(x, a, b);
        } else if constexpr (OP == 2) {
            x = __vimax3_s32(x, a, b);
            asm volatile("" : "+r"(x));              // no max of maxima regrouped into a tree
        } else if constexpr (OP == 3) {
            x = __byte_perm(x, a, i % 2 ? 0x1032 : 0x9910);
        } else if constexpr (OP == 4 || OP == 9) {
            x = x * a + b;
        } else if constexpr (OP == 5) {
            x = __shfl_down_sync(0xffffffffu, x, 1);
        } else if constexpr (OP == 6) {
            // x: a byte offset into words, whose words hold byte offsets (a chase that stays where it starts)
            asm volatile("ld.shared.u32 %0, [%1];" : "=r"(x) : "r"(base + x));
        } else if constexpr (OP == 7) {
            const int4 v = *reinterpret_cast<const int4*>(reinterpret_cast<const char*>(words) + x);
            x = v.x;
            side ^= v.y ^ v.z ^ v.w;                 // the other 12 bytes used, off the chain: a 16-byte load
        } else {
            words[64 + threadIdx.x] = x;
            __syncwarp();
            x = words[64 + (threadIdx.x ^ 1)];
            __syncwarp();
        }
    }
    return x;
}

template <int OP>
__global__ void __launch_bounds__(32, 1) chain_latency(const int* __restrict__ in, long long* __restrict__ cycles,
                                                       int* __restrict__ sink, int rounds) {
    __shared__ __align__(16) int words[64 + 32];
    const int lane = threadIdx.x;
    // words[w] = 4 (w & ~3), the byte offset of its own 16-byte line (LDS and LDS.128 chase it in place: lane l
    // from byte 16 (l / 4), in[4] = 0); words[64 ..]: the round trip's slots
    words[lane] = 4 * (lane & ~3);
    words[32 + lane] = 4 * ((32 + lane) & ~3);
    __syncwarp();
    const int k[4] = {in[0], in[1], in[2], in[3]};
    int x = in[4] + 16 * (lane / 4), side = 0;
    x = chain<OP>(x, k, words, side);                // warm: the code in the instruction cache
    const long long start = clock64();
    for (int r = 0; r < rounds; ++r) x = chain<OP>(x, k, words, side);
    const long long stop = clock64();
    if (lane == 0) *cycles = stop - start;
    sink[lane] = x ^ side;
}
