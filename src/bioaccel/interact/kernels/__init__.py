"""CUDA C++ sources of the BPMax GPU kernels, compiled at run time by CuPy (bioaccel.runtime.gpu.kernel)."""
