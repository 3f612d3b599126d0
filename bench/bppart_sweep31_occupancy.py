"""v31 (docs/bppart-gpu-notes.md): blocks a multiprocessor of the sweep's kernels as the driver places them
(cuOccupancyMaxActiveBlocksPerMultiprocessor with each kernel's threads and dynamic shared memory), registers and
local memory a thread: the production's bppart_band_tiles and bppart_band_pipe's forms. On the device:
python3 bench/bppart_sweep31_occupancy.py"""
from bioaccel.interact._partition_band_sizes import band_pipe_kernel, band_tiles_arguments
from bioaccel.interact._partition_band_tables import _kernel
from bioaccel.interact._partition_launch import SIZES


def main():
    import cupy as cp

    rows = [("bppart_band_tiles", band_tiles_arguments(SIZES), 256, 0)]
    for ring in (2, 3, 0):
        name, arguments, threads, shared, _ = band_pipe_kernel(SIZES.replace(band_near_pipe=8, band_near_pipe_ring=ring))
        rows.append((name, arguments, threads, shared))
    for name, arguments, threads, shared in rows:
        try:
            f = _kernel(name, *arguments)
            if shared:
                f.max_dynamic_shared_size_bytes = shared
            blocks = cp.cuda.driver.occupancyMaxActiveBlocksPerMultiprocessor(f.ptr, threads, shared)
            print(f"{name}{arguments}: {threads} threads, {shared} B dynamic, registers {f.num_regs}, local "
                  f"{f.local_size_bytes} B, static shared {f.shared_size_bytes} B: {blocks} blocks a multiprocessor")
        except Exception as e:        # (a diagnostic: the call goes on)
            print(f"{name}{arguments}: {type(e).__name__}: {e}")


if __name__ == "__main__":
    main()
