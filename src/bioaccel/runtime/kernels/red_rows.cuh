// The products' epilogue that every family whose product blocks meet in an int32 scratch tile by atomics shares
// (fold/kernels/nussinov_tiled.cu's tiled_bulk_rows, fold/kernels/turner_tiled.cu's turner_bulk_rows): the block's
// register tile staged in shared memory as rows, then the atomics (REDs) issued by consecutive lanes on consecutive
// cells. Issued cell by cell from the registers, a warp's RED spreads over the rows and columns its lanes hold: 32
// sectors of 32 bytes at Nussinov's 128-tiles (8 x 8 cells a thread), 16 at Turner's 64-tiles; by rows, 4 (128
// contiguous bytes). Nsight Compute (issue 29, helper nbedges, H200, docs/gpu-notes.md): 94% of the Nussinov edge
// products' long-scoreboard stalls sat after those REDs, which hold the registers they read until the LSU has
// taken every sector; by rows the kernel took 22.8 us instead of 45.5.
// The loader (bioaccel/runtime/gpu.py) puts this folder on every kernel's include path.
#pragma once

// Four cells of a thread's register tile and their place in the staged tile (`at`: a multiple of 4, row * TILE +
// column; the 16-byte store needs the alignment).
struct RowCells {
    int at;
    int4 cells;
};

// The block's tile of CELLS int32 cells (row-major) into `out` by atomics, issued by rows. `rows`: CELLS ints of
// shared memory, 16-byte aligned, that the caller may have used before (the first barrier waits for every thread
// to be done with them). `cells(g)`: this thread's g-th group of four cells (RowCells), g < GROUPS; the groups of
// the block's THREADS threads cover the tile. `red(address, value)`: one atomic (atomicMax, atomicMin, or one that
// skips the values that change nothing). Every thread of the block calls this (two barriers).
template <int THREADS, int CELLS, int GROUPS, class Cells, class Red>
__device__ __forceinline__ void red_by_rows(int* out, int* rows, int tid, Cells cells, Red red) {
    static_assert(CELLS % THREADS == 0 && GROUPS * 4 * THREADS == CELLS, "the threads' groups cover the tile");
    __syncthreads();
#pragma unroll
    for (int g = 0; g < GROUPS; ++g) {
        const RowCells c = cells(g);
        *reinterpret_cast<int4*>(rows + c.at) = c.cells;
    }
    __syncthreads();
#pragma unroll 8
    for (int e = tid; e < CELLS; e += THREADS) red(out + e, rows[e]);
}
