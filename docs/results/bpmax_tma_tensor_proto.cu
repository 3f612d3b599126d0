// Issue 29, helper bpmaxtma: a SASS probe, not part of the package (docs/bpmax-gpu-notes.md, "the products' stages as
// bulk copies"). A stage's copies as tensor-map boxes (cp.async.bulk.tensor, SASS UTMALDG) with block-uniform
// coordinates, issued by one lane of warp 1: A as 5 boxes (8-row groups sharing a band base), B as 12 (4 pair rows
// sharing a slot base). Built with `nvcc -arch=sm_90 -cubin` and read with `nvdisasm -c` (nvcc 13.0): 12 SASS
// instructions a copy (PLOP3, ELECT, UTMALDG, 2 PLOP3, BRA.U.ANY once, then VIADD, 3 UIADD3, ISETP, BRA), the
// coordinates on the uniform datapath, no loop over lanes. Never run (no tensor map is encoded here).
#include <cuda.h>
__device__ __forceinline__ void tensor3(unsigned dst, const CUtensorMap* map, int x, int y, int z, unsigned bar) {
    asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];\n"
                 :: "r"(dst), "l"(map), "r"(x), "r"(y), "r"(z), "r"(bar) : "memory");
}
__global__ void stage(const __grid_constant__ CUtensorMap amap, const __grid_constant__ CUtensorMap bmap, int kc0, int NV, int m, int* out) {
    __shared__ __align__(128) unsigned As[32 * 60], Bs[12 * 176];
    __shared__ unsigned long long bar;
    const unsigned b = (unsigned)__cvta_generic_to_shared(&bar);
    if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(b));
    __syncthreads();
    const int r0 = blockIdx.x * 32, c0 = blockIdx.y * 32;
    unsigned phase = 0;
    int acc = 0;
    for (int kc = kc0; kc < kc0 + 96 * 4; kc += 96) {
        if (threadIdx.x == 32) {
            asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
            asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(b), "r"(5 * 8 * 192 + 4 * NV * 160) : "memory");
#pragma unroll 1
            for (int g = 0; g < 5; ++g) {   // 8-row groups from row r0 - 7
                const int row = r0 - 7 + 8 * g, base = (row - 1) & ~7;
                tensor3((unsigned)__cvta_generic_to_shared(As + g * 8 * 48), &amap, kc - base, row, m, b);
            }
#pragma unroll 1
            for (int q = 0; q < 4 * NV; q += 4) {
                tensor3((unsigned)__cvta_generic_to_shared(Bs + (q / 4) * 176), &bmap, c0 - kc - 2 * q, kc / 2 + q + 1, m, b);
            }
        }
        asm volatile("{\n.reg .pred p;\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n@!p bra W;\n}" :: "r"(b), "r"(phase) : "memory");
        phase ^= 1;
        acc += As[threadIdx.x] + Bs[threadIdx.x];
        __syncthreads();
    }
    out[threadIdx.x] = acc;
}
