// Host build of the tiled Turner fill's device code (fold/kernels/turner_tiled.cuh, turner_fold.cuh,
// turner_energy.cuh with TURNER_HOST), driven as turner_tiled.cu drives it on the GPU: per tile-diagonal
// the bulk product into scratch tiles (here a plain triple loop over the same k range), then each tile's
// anti-diagonals with its "threads" in reverse order (a cell's LANES lanes, 1 or 4, one after another); the exterior loop by chunks (the bulk's stems,
// then the chunk's own in groups of 4); the traceback. tests/test_turner_tiled_host.py builds it with
// g++ and compares every table, the energy and the structure with the CPU's.
#include <algorithm>
#include <vector>

#include "turner_tiled.cuh"

using namespace turner;

extern "C" int tiled_fold(const int* E, const int* hp_size, const unsigned char* S, int n, int no_lp, int tile,
                          int ext_chunk, int lanes, int* c, int* fm, int* m2, int* f, int* pair_to) {
    std::vector<int> Es(SHARED_INTS), pairs(GENERIC_PAIRS);
    stage_tables(E, Es.data(), 0, 1);
    generic_pairs(pairs.data(), 0, 1);
    const Ctx x{E, Es.data(), hp_size, S, n, pairs.data()};
    const RowLayout L{n};
    const long long N = n;
    for (long long k = 0; k < N * N; ++k) c[k] = fm[k] = m2[k] = INF;
    const int nt = (n + tile - 1) / tile;
    std::vector<int> scratch((size_t)nt * tile * tile, INF);
    for (int D = 0; D < nt; ++D) {
        for (int I = 0; I + D < nt; ++I) {  // the bulk: k in [r1 - 1, c0 - 1]
            if (!D) break;
            const int r0 = I * tile, c0 = (I + D) * tile;
            for (int r = 0; r < tile; ++r)
                for (int col = 0; col < tile && c0 + col < n; ++col) {
                    int m = INF;
                    for (int k = r0 + tile - 1; k < c0; ++k)
                        m = std::min(m, fm[k * N + r0 + r] + fm[(k + 1) * N + c0 + col]);
                    int& s = scratch[((size_t)I * tile + r) * tile + col];
                    s = std::min(s, m);
                }
        }
        for (int I = 0; I + D < nt; ++I) {  // the finish
            const int r0 = I * tile, c0 = (I + D) * tile;
            const int r1 = std::min(r0 + tile, n), c1 = std::min(c0 + tile, n);
            const int steps = (r1 - r0) + (c1 - c0) - 1;
            for (int s = 0; s < steps; ++s)
                for (int a = tile - 1; a >= 0; --a) {
                    const int i = r1 - 1 - a, b = s - a, j = c0 + b;
                    if (i >= r0 && b >= 0 && j < c1 && j >= i + 4) {
                        int bulk = INF;
                        if (D) {
                            int& slot = scratch[((size_t)I * tile + (i - r0)) * tile + b];
                            bulk = slot;
                            slot = INF;
                        }
                        if (lanes == 4)
                            tiled_cell<4>(x, L, no_lp != 0, c, fm, m2, i, j, r1, c0, D == 0, bulk, 0);
                        else
                            tiled_cell<1>(x, L, no_lp != 0, c, fm, m2, i, j, r1, c0, D == 0, bulk, 0);
                    }
                }
        }
    }
    std::vector<int> best(n + 1, INF);
    f[0] = 0;
    for (int t0 = 0; t0 < n; t0 += ext_chunk) {
        const int t1 = std::min(t0 + ext_chunk, n);
        for (int j = t0; j < t1; ++j)
            for (int k = 0; k <= t0 && k <= j - 4; ++k) best[j + 1] = std::min(best[j + 1], exterior_stem(x, L, c, f[k], k, j));
        std::vector<int> mine(best.begin() + t0 + 1, best.begin() + t1 + 1), published = mine;
        int f_prev = f[t0];
        for (int g = t0 + 1; g <= t1; g += 4) {
            for (int t = g; t < g + 4 && t <= t1; ++t) {
                const int ft = std::min(f_prev, published[t - 1 - t0]);
                f_prev = f[t] = ft;
                for (int j = t + 4; j < t1; ++j) mine[j - t0] = std::min(mine[j - t0], exterior_stem(x, L, c, ft, t, j));
            }
            published = mine;
        }
    }
    std::vector<int> stack(3 * (2 * n + 4));
    Tables tb{c, nullptr, fm, m2, nullptr, stack.data()};
    for (int k = 0; k < n; ++k) pair_to[k] = -1;
    return traceback(x, L, tb, f, no_lp != 0, pair_to, true) ? 0 : 1;
}
