// The fill of a new device array with one value (runtime/gpu.py `filled`): the value's 16-byte pattern stored by a
// grid-stride loop, 16 bytes a store. cupy.full stores one cell a thread, which on an H200 wrote a 1.59 GB table of
// int16 cells at 0.42 TB/s (3.85 ms); this kernel wrote it in 0.35 ms (issue 29, helper bpmaxhost).
__global__ void __launch_bounds__(256) fill_vectors(uint4* __restrict__ out, const long long vectors,
                                                    const unsigned x, const unsigned y, const unsigned z,
                                                    const unsigned w) {
    const uint4 pattern = make_uint4(x, y, z, w);
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < vectors; v += step) out[v] = pattern;
}
