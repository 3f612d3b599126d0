"""CUDA sources of the motif GPU kernels (package data, loaded by bioaccel.runtime.gpu.kernel)."""
