"""CUDA sources of the motif GPU kernels (package data, loaded by bioaccel._gpu.load_module)."""
