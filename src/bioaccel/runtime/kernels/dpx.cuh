// What the max-plus (and min-plus) products of every family share on Hopper (fold/kernels/nussinov_tiled.cu,
// fold/kernels/turner_tiled.cu, interact/kernels/maxplus.cu): the DPX lanes and the asynchronous global
// -> shared copies.
// The loader (bioaccel/runtime/gpu.py) puts this folder on every kernel's include path.
#pragma once

// ---- DPX lanes ----------------------------------------------------------------------------------
// One max-plus update acc = max(acc, a + b) per cell in one DPX instruction (SASS VIADDMNMX); a family's
// cell types derive from these and add their own cell type, padding and operand forms.

// a + b as one 32-bit IMAD.IADD (a * 1 + b), an FMA-pipe instruction: written as a plain + it would be an IADD3 on
// the ALU pipe, which the DPX instructions keep busy (ptxas keeps the mad an IMAD.IADD: nvdisasm, sm_90).
__device__ __forceinline__ unsigned add_on_fma_pipe(unsigned a, unsigned b) {
    unsigned s;
    asm("mad.lo.u32 %0, %1, 1, %2;" : "=r"(s) : "r"(a), "r"(b));
    return s;
}

// int16 cells, two to a 32-bit word: two updates per instruction (__viaddmax_s16x2, VIADDMNMX.S16x2).
struct DpxS16x2 {
    typedef unsigned word_t;
    static constexpr int PER_WORD = 2;
    __device__ static __forceinline__ word_t update(word_t acc, word_t a, word_t b) {
        return __viaddmax_s16x2(a, b, acc);
    }
    __device__ static __forceinline__ int lane(word_t w, int h) { return h ? (short)(w >> 16) : (short)(w & 0xffff); }
    // Two consecutive k (a0, b0 and a1, b1) of one accumulator word, four updates, with the adds on the FMA pipe: two
    // 32-bit IMAD.IADD of the packed words and one three-input maximum (VIMNMX3.S16x2) on the ALU, half the ALU issue
    // of two DPX (issue 29, bench/maxplus_forms.py: on an H200 8 of 16 cells a thread in this form beside 8 in DPX ran
    // 32.8 T updates/s against DPX alone's 31.4). A packed add is a lane's add only where the lane below carries
    // nothing into it, so a lane's result is exact where its operands and their sum lie in 0 .. 32767 and so do the
    // low lane's (a carry out of the high lane is dropped; a negative low operand, read unsigned, carries one into
    // the high lane). The caller must establish this (fold/kernels/nussinov_tiled.cu, FmaMix).
    __device__ static __forceinline__ word_t update2_fma(word_t acc, word_t a0, word_t b0, word_t a1, word_t b1) {
        return __vimax3_s16x2(acc, add_on_fma_pipe(a0, b0), add_on_fma_pipe(a1, b1));
    }
};

// int32 cells, one to a word (__viaddmax_s32, VIADDMNMX).
struct DpxS32 {
    typedef int word_t;
    static constexpr int PER_WORD = 1;
    __device__ static __forceinline__ word_t update(word_t acc, word_t a, word_t b) {
        return __viaddmax_s32(a, b, acc);
    }
    __device__ static __forceinline__ int lane(word_t w, int) { return w; }
};

// int32 cells of a min-plus product, acc = min(acc, a + b) (__viaddmin_s32, VIADDMNMX): the Turner
// fill's multiloop (fold/kernels/turner_tiled.cu), whose energies fall where Nussinov's scores rise.
struct DpxMinS32 {
    typedef int word_t;
    static constexpr int PER_WORD = 1;
    __device__ static __forceinline__ word_t update(word_t acc, word_t a, word_t b) {
        return __viaddmin_s32(a, b, acc);
    }
    __device__ static __forceinline__ int lane(word_t w, int) { return w; }
};

// An int16 cell in both halves of a word: the A operand of a DpxS16x2 update.
__device__ __forceinline__ unsigned dup16(int v) {
    unsigned u = (unsigned short)v;
    return u | (u << 16);
}

// ---- asynchronous copies ------------------------------------------------------------------------
// cp.async: 16 bytes global -> shared per call, completing by commit groups, so the copies of the next
// stage run while the current one is computed.
__device__ __forceinline__ void cp_async16(void* smem, const void* gmem) {
    unsigned dst = (unsigned)__cvta_generic_to_shared(smem);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(dst), "l"(gmem));
}
__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int PENDING>
__device__ __forceinline__ void cp_async_wait() { asm volatile("cp.async.wait_group %0;\n" ::"n"(PENDING)); }

// Bulk copies (Hopper's TMA, one thread issues a whole contiguous run) completing on an mbarrier in
// shared memory; the waiting threads watch the barrier's phase parity.
__device__ __forceinline__ unsigned shared_address(const void* p) { return (unsigned)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void mbarrier_init(unsigned bar, unsigned count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;\n" ::"r"(bar), "r"(count) : "memory");
    asm volatile("fence.mbarrier_init.release.cluster;\n" ::: "memory");
}
__device__ __forceinline__ void bulk_copy(unsigned dst, const void* src, unsigned bytes, unsigned bar) {
    asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];\n"
                 ::"r"(dst), "l"(src), "r"(bytes), "r"(bar) : "memory");
}
__device__ __forceinline__ void mbarrier_expect_bytes(unsigned bar, unsigned bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;\n" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbarrier_wait(unsigned bar, unsigned parity) {
    unsigned done;
    do {
        asm volatile("{\n.reg .pred p;\n"
                     "mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done) : "r"(bar), "r"(parity) : "memory");
    } while (!done);
}
