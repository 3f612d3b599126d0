"""CUDA headers every family's kernels may include, on the include path of bioaccel.runtime.gpu.kernel."""
