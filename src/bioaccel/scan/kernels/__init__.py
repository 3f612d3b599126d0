"""CUDA sources of the scan kernels (package data, loaded by bioaccel.runtime.gpu.kernel)."""
