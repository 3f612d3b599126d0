// ---- batch_fold_x4t (issue 29, 2026-11-27): a 4 x 4 tile of cells a thread ----------------------------
// batch_fold_x2t (nussinov_batch.cu) folds a 2 x 2 tile a thread: per 16-byte chunk of int8 cells it loads
// 2 rows and 2 columns, widens them (32 PRMT) and runs 32 DPX for 4 cells x 16 splits: 1 ALU instruction a
// split, ~100 tile-diagonals (a barrier each) at n = 200, four accumulator chains a thread. Measured
// (docs/gpu-notes.md): the fold follows a block's own dependency chain, not the SM's instruction count.
// Here thread a folds the tile rows 4a .. 4a+3 x columns 4b .. 4b+3 (b = a + t): per chunk 4 rows and 4
// columns (64 PRMT) serve 16 cells (128 DPX): 0.75 ALU instructions a split, 16 independent accumulator
// chains, and ~50 tile-diagonals (a barrier each) at n = 200; at most 64 tiles a diagonal up to 256 nt.
//
// Tile-diagonal 0 (cells of one tile (a, a): (4a, 4a+2), (4a+1, 4a+3), (4a, 4a+3)) is filled first by
// the scalar rule. A tile (a, b), t >= 1, runs the chunks of its rows and columns (its own cells still
// EMPTY: those splits sum below 0), then adds in order (rows from the bottom, columns from the left) the
// splits that read its own cells: m in (i, 4a+3] (V(i, m) of tile (a, a), V(m, c) of this tile), m in
// [4b, c) (this tile, then tile (b, b)), and the pair (i, c - 1) whose interior is this tile's cell down
// and left, or a cell of a lower tile-diagonal on the tile's bottom row or left column. Every other
// operand lies in a tile of a lower tile-diagonal. A block narrower than a tile-diagonal folds it in rounds.
//
// Layout: XTLayout<CH, 4> (nussinov_batch.cu), rows and columns of a chunk block by residue mod 4.
#include "nussinov_batch.cu"

// Dynamic shared memory (fold/_gpu_batch.py xt_shared_bytes): R, C, the traceback stack, the pair model,
// the codes, as batch_fold_x2t. blockDim.x: a thread a tile, n / 4 tiles at t = 1 (fewer: in rounds); with
// TURNS (nussinov_batch.cu, take_turn) the tiles start at the warp of the block's turn.
template <int MAX_THREADS, int MIN_BLOCKS, typename Cell, bool TURNS>
__global__ void __launch_bounds__(MAX_THREADS, MIN_BLOCKS)
batch_fold_x4t(BATCH_FOLD_PARAMS) {
    typedef X2TCells<Cell> Cells;
    constexpr int CH = Cells::CH, P = 4;
    typedef XTLayout<CH, P> Layout;
    BLOCK_SHARED int turn;
    if (TURNS && threadIdx.x == 0) take_turn(sm_turns, &turn);     // (read after x2_block's barriers)
    X2_BLOCK(Layout, false);
    const int first = TURNS ? turned_thread(turn) : tid;
    const int q = n / P;                               // tile columns 0 .. q; tile-diagonal t has q - t + 1 tiles
    for (int a = tid; a <= q; a += nthreads) {         // tile-diagonal 0: V(i, i + 2), V(i, i + 3)
        const int i = P * a;
        int v2[2] = {0, 0};
        for (int r = 1; r >= 0; --r)
            if (i + r + 2 <= n) {
                v2[r] = max(0, x2t_weight(pm, s[i + r], s[i + r + 1], i + r, i + r + 1));
                R[L.r_at(i + r, i + r + 2)] = (Cell)v2[r];
                C[L.c_at(i + r, i + r + 2)] = (Cell)v2[r];
            }
        if (i + 3 <= n) {                              // splits i + 1, i + 2; the pair (i, i + 2)
            const int v3 = max(max(v2[1], v2[0]), x2t_weight(pm, s[i], s[i + 2], i, i + 2));
            R[L.r_at(i, i + 3)] = (Cell)v3;
            C[L.c_at(i, i + 3)] = (Cell)v3;
        }
    }
    __syncthreads();
    for (int t = 1; t <= q; ++t) {
        const int tiles = q - t + 1;
        for (int a = first; a < tiles; a += nthreads) {
            const int b = a + t, i0 = P * a, c0 = P * b;
            const int k0 = i0 / CH, ke = c0 / CH;      // the chunks of rows i0 .. i0 + 3 and columns c0 .. c0 + 3
            int cr[P];                                 // columns read (n for those past the table: unused)
#pragma unroll
            for (int x = 0; x < P; ++x) cr[x] = min(c0 + x, n);
            int acc[P][P];
#pragma unroll
            for (int r = 0; r < P; ++r)
#pragma unroll
                for (int x = 0; x < P; ++x) acc[r][x] = 0;
            int4 nx[P], ny[P];                         // the next chunk, loaded while this one is used
            const auto load = [&](int k) {
                const int rb = L.row_block(k) + a, cb = L.col_block(k);
#pragma unroll
                for (int r = 0; r < P; ++r) nx[r] = Ru[rb + r * (CH / P) * (k + 1)];
#pragma unroll
                for (int x = 0; x < P; ++x) ny[x] = Cu[cb + L.col_pos(cr[x], k)];
            };
            load(k0);
            for (int k = k0; k <= ke; ++k) {
                int4 xs[P], ys[P];
#pragma unroll
                for (int r = 0; r < P; ++r) {
                    xs[r] = nx[r];
                    ys[r] = ny[r];
                }
                load(min(k + 1, ke));                  // (the last chunk again at the end: unused)
#pragma unroll
                for (int w = 0; w < 4; ++w) {
#pragma unroll
                    for (int h = 0; h < Cells::HALVES; ++h) {
                        unsigned u[P], v[P];
#pragma unroll
                        for (int r = 0; r < P; ++r) {
                            u[r] = Cells::lanes(x2t_word(xs[r], w), h);
                            v[r] = Cells::lanes(x2t_word(ys[r], w), h);
                        }
#pragma unroll
                        for (int r = 0; r < P; ++r)
#pragma unroll
                            for (int x = 0; x < P; ++x) acc[r][x] = __viaddmax_s16x2(u[r], v[x], acc[r][x]);
                    }
                }
            }
            int sr[P], sc[P];                          // letters of the rows, and at c - 1 of the columns
#pragma unroll
            for (int x = 0; x < P; ++x) {
                sr[x] = s[i0 + x];
                sc[x] = s[min(c0 + x - 1, n - 1)];
            }
            int V[P][P];
#pragma unroll
            for (int r = P - 1; r >= 0; --r) {
#pragma unroll
                for (int x = 0; x < P; ++x) {
                    const int i = i0 + r, c = c0 + x;
                    const bool live = c <= n;
                    int best = x2t_best(acc[r][x], acc[r][x]);
#pragma unroll
                    for (int r2 = r + 1; r2 < P; ++r2)     // m = i0 + r2 in (i, i0 + 3]: V(i, m) in tile (a, a)
                        best = max(best, (r2 == r + 1 ? 0 : (int)C[L.c_at(i, i0 + r2)]) + V[r2][x]);
#pragma unroll
                    for (int x2 = 0; x2 < x; ++x2)         // m = c0 + x2 in [c0, c): V(m, c) in tile (b, b)
                        best = max(best, V[r][x2] + (x2 == x - 1 || !live ? 0 : (int)C[L.c_at(c0 + x2, c)]));
                    const int w = x2t_weight(pm, sr[r], sc[x], i, c - 1);
                    if (w > 0) {                           // interior V(i + 1, c - 1)
                        int inner = 0;
                        if (r + 1 < P && x > 0) inner = V[r + 1][x - 1];
                        else if (c - i >= 3 && live) inner = C[L.c_at(i + 1, c - 1)];
                        best = max(best, inner + w);
                    }
                    V[r][x] = best;
                    if (live && c - i >= 2) {
                        R[L.r_at(i, c)] = (Cell)best;
                        C[L.c_at(i, c)] = (Cell)best;
                    }
                }
            }
        }
        __syncthreads();
    }
    x2_finish(blk, XTColumns<CH, P>{L}, walk, scores, pair_to, chars, status);
}
