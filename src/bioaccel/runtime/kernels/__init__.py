"""CUDA headers every family's kernels may include (dpx.cuh), on the include path of bioaccel.runtime.gpu.kernel."""
