// Throughput of the max-plus update c = max(c, a + b) in several instruction forms (bench/maxplus_forms.py).
// Each thread: 4 x 4 cells, operands from shared memory as a register-tiled product reads them; a word holds
// two k2 (two int16 lanes, or two fp16 lanes), so one k-pair step is two updates a cell.
#include <cuda_fp16.h>

#include "dpx.cuh"     // runtime/kernels: add_on_fma_pipe, the production kernels' IMAD.IADD add

#define KP 32          // k-pairs in shared memory per phase
#define ROWS 64        // rows (and columns) of the block's tile

__device__ __forceinline__ unsigned add_h2(unsigned a, unsigned b) {
    __half2 s = __hadd2(*reinterpret_cast<__half2*>(&a), *reinterpret_cast<__half2*>(&b));
    return *reinterpret_cast<unsigned*>(&s);
}
__device__ __forceinline__ unsigned max_h2(unsigned a, unsigned b) {
    __half2 s = __hmax2(*reinterpret_cast<__half2*>(&a), *reinterpret_cast<__half2*>(&b));
    return *reinterpret_cast<unsigned*>(&s);
}

// FORM 0: DPX, two VIADDMNMX.S16x2 a cell a two k-pair step.
// FORM 1: fp16: two HADD2 and one VIMNMX3.S16x2 on the bits (non-negative values and -inf order as int16).
// FORM 2: integer: two IMAD.IADD of packed words (no carry: non-negative lanes under 2^15) and one VIMNMX3.U16x2.
// FORM 3: mixed: cells 0-5 as FORM 0, cells 6-15 as FORM 2 (the ALU and FMA pipes both busy).
// FORM 4: fp16: HADD2 and HMNMX2, two of each a cell.
// FORM 5: mixed: cells 0-3 as FORM 0, cells 4-15 as FORM 2.
// FORM 6: mixed: cells 0-7 as FORM 0, cells 8-15 as FORM 2.
template <int FORM>
__device__ __forceinline__ unsigned cell(int c, unsigned acc, unsigned a0, unsigned b0, unsigned a1, unsigned b1) {
    const int dpx_cells = FORM == 3 ? 6 : FORM == 5 ? 4 : FORM == 6 ? 8 : FORM == 0 ? 16 : 0;
    if (FORM == 1) return __vimax3_s16x2(acc, add_h2(a0, b0), add_h2(a1, b1));
    if (FORM == 4) return max_h2(max_h2(acc, add_h2(a0, b0)), add_h2(a1, b1));
    if (c < dpx_cells) return __viaddmax_s16x2(a1, b1, __viaddmax_s16x2(a0, b0, acc));
    return __vimax3_u16x2(acc, add_on_fma_pipe(a0, b0), add_on_fma_pipe(a1, b1));
}

template <int FORM>
__global__ void __launch_bounds__(256) maxplus_form(const unsigned* a_in, const unsigned* b_in, unsigned* out, int rounds) {
    __shared__ __align__(16) unsigned A[2 * KP][ROWS];
    __shared__ __align__(16) unsigned B[2 * KP][ROWS];
    for (int i = threadIdx.x; i < 2 * KP * ROWS; i += blockDim.x) {
        (&A[0][0])[i] = a_in[i];
        (&B[0][0])[i] = b_in[i];
    }
    __syncthreads();
    const int r0 = (threadIdx.x / 16) * 4, c0 = (threadIdx.x % 16) * 4;
    unsigned acc[16];
#pragma unroll
    for (int c = 0; c < 16; c++) acc[c] = 0;
    for (int round = 0; round < rounds; round++) {
        const int base = (round & 1) * KP;
#pragma unroll 2
        for (int kp = 0; kp < KP; kp += 2) {
            const uint4 a0 = *reinterpret_cast<const uint4*>(&A[base + kp][r0]);
            const uint4 b0 = *reinterpret_cast<const uint4*>(&B[base + kp][c0]);
            const uint4 a1 = *reinterpret_cast<const uint4*>(&A[base + kp + 1][r0]);
            const uint4 b1 = *reinterpret_cast<const uint4*>(&B[base + kp + 1][c0]);
            const unsigned av0[4] = {a0.x, a0.y, a0.z, a0.w}, bv0[4] = {b0.x, b0.y, b0.z, b0.w};
            const unsigned av1[4] = {a1.x, a1.y, a1.z, a1.w}, bv1[4] = {b1.x, b1.y, b1.z, b1.w};
#pragma unroll
            for (int i = 0; i < 4; i++)
#pragma unroll
                for (int j = 0; j < 4; j++)
                    acc[4 * i + j] = cell<FORM>(4 * i + j, acc[4 * i + j], av0[i], bv0[j], av1[i], bv1[j]);
        }
    }
    const unsigned t = blockIdx.x * blockDim.x + threadIdx.x;
#pragma unroll
    for (int c = 0; c < 16; c++) out[16 * t + c] = acc[c];
}

template __global__ void maxplus_form<0>(const unsigned*, const unsigned*, unsigned*, int);
template __global__ void maxplus_form<1>(const unsigned*, const unsigned*, unsigned*, int);
template __global__ void maxplus_form<2>(const unsigned*, const unsigned*, unsigned*, int);
template __global__ void maxplus_form<3>(const unsigned*, const unsigned*, unsigned*, int);
template __global__ void maxplus_form<4>(const unsigned*, const unsigned*, unsigned*, int);
template __global__ void maxplus_form<5>(const unsigned*, const unsigned*, unsigned*, int);
template __global__ void maxplus_form<6>(const unsigned*, const unsigned*, unsigned*, int);
