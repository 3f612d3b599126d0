// Host build of fold/kernels/nussinov_batch.cu's shared-memory kernels (batch_fold_x2, batch_fold_x2t, and
// nussinov_batch_x4t.cu's batch_fold_x4t) with
// NUSSINOV_BATCH_HOST: one block run by a std::thread per GPU thread, std::barrier for __syncthreads, the DPX
// and SIMD intrinsics by their definitions (two signed 16-bit lanes). The block's shared memory is a static
// array filled with 0x7f first, so that a write past the dynamic shared memory the host sizes shows. The
// traceback (walk_structure) runs only in one-thread blocks: its block-shared state is a thread's locals here. The
// warp's walk (walk_structure_warp, "x2t5w") runs in full blocks: its lanes share nothing but what the warp
// intrinsics pass, which are emulated by a barrier of the warp's threads around a slot a lane (__shfl_sync,
// __ballot_sync: every lane writes its slot, all meet, each reads, all meet again before a slot is reused).
// tests/test_nussinov_batch_host.py builds it with g++ and compares every cell, the score and the walk's
// dot-brackets with the CPU's.
#include <algorithm>
#include <barrier>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __align__(x) __attribute__((aligned(x)))
#define __shared__
struct int2 { int x, y; };
struct alignas(16) int4 { int x, y, z, w; };
inline int2 make_int2(int x, int y) { return {x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return {x, y, z, w}; }
struct Dim3 { unsigned x, y, z; };
thread_local Dim3 threadIdx;
Dim3 blockIdx, blockDim, gridDim;   // one block (gridDim: batch_unscored, compiled but not run here)
static std::barrier<>* block_barrier;
inline void __syncthreads() { block_barrier->arrive_and_wait(); }
static std::barrier<>* warp_barriers[32];          // a barrier of each warp's threads (run() makes them)
static int warp_slots[32][32];                        // a slot a lane of each warp
inline void __syncwarp(unsigned = 0xffffffffu) { warp_barriers[threadIdx.x / 32]->arrive_and_wait(); }
inline int warp_exchange(int value, int source, bool ballot) {    // source lane's value, or the lanes' ballot
    const int warp = threadIdx.x / 32, lanes = std::min(32, (int)blockDim.x - 32 * warp);
    warp_slots[warp][threadIdx.x % 32] = value;
    __syncwarp();
    int result = 0;
    if (ballot) {
        for (int lane = 0; lane < lanes; ++lane) result |= (warp_slots[warp][lane] != 0) << lane;
    } else {
        result = warp_slots[warp][source];
    }
    __syncwarp();                                     // every lane has read before a slot is written again
    return result;
}
inline int __shfl_sync(unsigned, int value, int source) { return warp_exchange(value, source, false); }
inline unsigned __ballot_sync(unsigned, int predicate) { return (unsigned)warp_exchange(predicate, 0, true); }
inline int __ffs(unsigned x) { return __builtin_ffs((int)x); }
inline int max(int a, int b) { return a > b ? a : b; }
inline int min(int a, int b) { return a < b ? a : b; }
inline int atomicMin(int* p, int v) { int o = *p; if (v < o) *p = v; return o; }   // the walk's only
inline unsigned atomicAdd(unsigned* p, unsigned v) { unsigned o = *p; *p += v; return o; }   // thread 0's turn
// the traceback's window copies (nussinov_traceback.cu, WINDOW > 0; compiled here, not run): plain copies
inline void cp_async16(void* smem, const void* gmem) { std::memcpy(smem, gmem, 16); }
inline void cp_async_commit() {}
template <int PENDING> inline void cp_async_wait() {}
inline unsigned lane16(int v, int k) { return ((unsigned)v >> (16 * k)) & 0xffff; }
inline int __viaddmax_s16x2(int a, int b, int c) {        // per lane max(a + b, c), the sum wrapping at 16 bits
    unsigned r = 0;
    for (int k = 0; k < 2; ++k) {
        const short s = (short)(lane16(a, k) + lane16(b, k)), m = (short)lane16(c, k);
        r |= (unsigned)(unsigned short)(s > m ? s : m) << (16 * k);
    }
    return (int)r;
}
inline int __vmaxs2(int a, int b) {
    unsigned r = 0;
    for (int k = 0; k < 2; ++k) {
        const short x = (short)lane16(a, k), y = (short)lane16(b, k);
        r |= (unsigned)(unsigned short)(x > y ? x : y) << (16 * k);
    }
    return (int)r;
}
inline int __viaddmax_s32(int a, int b, int c) { return max(a + b, c); }
alignas(16) unsigned char batch_smem[1 << 20];
#define NUSSINOV_BATCH_HOST
#include "nussinov_batch_x4t.cu"       // (it includes nussinov_batch.cu)

// ``body()`` run by one block of ``threads`` threads (a std::thread each; the block's and its warps' barriers).
template <typename Body>
static void run_block(int threads, const Body& body) {
    blockIdx = {0, 0, 0};
    gridDim = {1, 1, 1};
    blockDim = {(unsigned)threads, 1, 1};
    std::barrier<> barrier(threads);
    block_barrier = &barrier;
    std::vector<std::unique_ptr<std::barrier<>>> warps;
    for (int w = 0; 32 * w < threads; ++w) {
        warps.push_back(std::make_unique<std::barrier<>>(std::min(32, threads - 32 * w)));
        warp_barriers[w] = warps.back().get();
    }
    std::vector<std::thread> pool;
    for (int t = 0; t < threads; ++t)
        pool.emplace_back([&, t] {
            threadIdx = {(unsigned)t, 0, 0};
            body();
        });
    for (auto& thread : pool) thread.join();
}

// One block folding one sequence (kernel 0: batch_fold_x2, 1: batch_fold_x2t, 2: batch_fold_x4t, 3:
// batch_fold_x2t with the traceback stack in the row copy, 4: 3 with the walk by warp 0; with TURNS, the block's
// turn counter starting at ``turn``) with ``threads`` threads; ``table`` gets V(i, c) of every half-open interval, (n + 1) x (n + 1),
// from the column copy (the one the traceback reads); with ``letters`` (one thread only, but kernel 4) the walk's
// dot-bracket letters too; -1, or the first byte written past ``shared`` (-3: the walk failed).
template <int KERNEL, typename Cell, bool TURNS>
static int run(const unsigned char* codes, int n, const int* pm, int shared, int threads, unsigned turn, int* table,
               int* score, unsigned char* letters) {
    memset(batch_smem, 0x7f, sizeof batch_smem);
    long long starts[2] = {0, n};
    int ids[1] = {0}, status = 0;
    std::vector<int> pair_to(n + 1);
    std::vector<unsigned char> chars(n + 1);
    const int walk = letters != nullptr;
    std::vector<unsigned> turns(SM_TURNS, turn);
    run_block(threads, [&] {
            const auto* model = reinterpret_cast<const PairModel*>(pm);
            if (KERNEL == 0)
                batch_fold_x2<1024, Cell>(codes, starts, ids, model, walk, score, pair_to.data(), chars.data(), &status,
                                          turns.data());
            else if (KERNEL == 1)
                batch_fold_x2t<1024, Cell, TURNS, false>(codes, starts, ids, model, walk, score, pair_to.data(), chars.data(),
                                                  &status, turns.data());
            else if (KERNEL == 3)
                batch_fold_x2t<1024, Cell, TURNS, true>(codes, starts, ids, model, walk, score, pair_to.data(),
                                                        chars.data(), &status, turns.data());
            else if (KERNEL == 4)
                batch_fold_x2t<1024, Cell, TURNS, true, true>(codes, starts, ids, model, walk, score, pair_to.data(),
                                                              chars.data(), &status, turns.data());
            else
                batch_fold_x4t<1024, 1, Cell, TURNS>(codes, starts, ids, model, walk, score, pair_to.data(),
                                                     chars.data(), &status, turns.data());
        });
    if (TURNS && turns[0] != turn + 1) return -2;               // the block took one turn
    if (status != 0) return -3;
    if (walk) memcpy(letters, chars.data(), n);
    for (int x = shared; x < (int)sizeof batch_smem; ++x)
        if (batch_smem[x] != 0x7f) return x;
    const Cell* cells = reinterpret_cast<const Cell*>(batch_smem);
    for (int i = 0; i <= n; ++i)
        for (int c = 0; c <= n; ++c) {
            int v = 0;
            if (c - i >= 2) {
                if (KERNEL == 0) {
                    const X2Layout<X2Cells<Cell>::CH> L{n};
                    v = cells[L.rows_units() * 16 / (int)sizeof(Cell) + L.c_at(i, c)];
                } else if (KERNEL == 1 || KERNEL >= 3) {
                    const XTLayout<X2TCells<Cell>::CH, 2> L{n};
                    v = cells[L.rows_units() * 16 / (int)sizeof(Cell) + L.c_at(i, c)];
                } else {
                    const XTLayout<X2TCells<Cell>::CH, 4> L{n};
                    v = cells[L.rows_units() * 16 / (int)sizeof(Cell) + L.c_at(i, c)];
                }
            }
            table[i * (n + 1) + c] = v;
        }
    return -1;
}

// A walk alone over the column copy that x2t5's fill (kernel 3, no walk) left in batch_smem, after V(ci, cc) was
// raised by ``raise`` (a corrupt table): walk_structure_warp by ``threads`` threads, or walk_structure (``threads``
// 1); the status it set (0, or 1 where no split reproduced a cell; -4: the fill failed), its letters in ``letters``.
template <typename Cell>
static int walk_only(const unsigned char* codes, int n, const int* pm, int shared, int threads, int ci, int cc,
                     int raise, unsigned char* letters) {
    std::vector<int> table((n + 1) * (n + 1));
    int score = 0, status = 0;
    if (run<3, Cell, false>(codes, n, pm, shared, threads, 0, table.data(), &score, nullptr) != -1) return -4;
    const XTColumns<X2TCells<Cell>::CH, 2> cols{{n}};
    Cell* C = reinterpret_cast<Cell*>(batch_smem) + cols.L.rows_units() * 16 / (int)sizeof(Cell);
    C[cols.at(ci, cc)] = (Cell)(C[cols.at(ci, cc)] + raise);
    std::vector<int2> stack(n + 2);
    std::vector<int> pair_to(n + 1);
    std::vector<unsigned char> chars(n + 1);
    const auto* model = reinterpret_cast<const PairModel*>(pm);
    run_block(threads, [&] {
        if (threads == 1)
            walk_structure(C, cols, codes, model, n, stack.data(), pair_to.data(), chars.data(), &status);
        else
            walk_structure_warp(C, cols, codes, model, n, stack.data(), pair_to.data(), chars.data(), &status);
    });
    memcpy(letters, chars.data(), n);
    return status;
}

extern "C" int walk(int cell_short, const unsigned char* codes, int n, const int* pm, int shared, int threads, int ci,
                    int cc, int raise, unsigned char* letters) {
    return cell_short ? walk_only<short>(codes, n, pm, shared, threads, ci, cc, raise, letters)
                      : walk_only<signed char>(codes, n, pm, shared, threads, ci, cc, raise, letters);
}

template <int KERNEL, bool TURNS>
static int run_cell(int cell_short, const unsigned char* codes, int n, const int* pm, int shared, int threads,
                    unsigned turn, int* table, int* score, unsigned char* letters) {
    return cell_short ? run<KERNEL, short, TURNS>(codes, n, pm, shared, threads, turn, table, score, letters)
                      : run<KERNEL, signed char, TURNS>(codes, n, pm, shared, threads, turn, table, score, letters);
}

// ``turn`` < 0: the kernel without turns; ``letters`` nullptr: no walk.
extern "C" int fold(int kernel, int cell_short, const unsigned char* codes, int n, const int* pm, int shared,
                    int threads, int turn, int* table, int* score, unsigned char* letters) {
    const unsigned start = turn < 0 ? 0u : (unsigned)turn;
    if (kernel == 0) return run_cell<0, false>(cell_short, codes, n, pm, shared, threads, start, table, score, letters);
    if (kernel == 3) return run_cell<3, false>(cell_short, codes, n, pm, shared, threads, start, table, score, letters);
    if (kernel == 4) return run_cell<4, false>(cell_short, codes, n, pm, shared, threads, start, table, score, letters);
    if (kernel == 1)
        return turn < 0 ? run_cell<1, false>(cell_short, codes, n, pm, shared, threads, start, table, score, letters)
                        : run_cell<1, true>(cell_short, codes, n, pm, shared, threads, start, table, score, letters);
    return turn < 0 ? run_cell<2, false>(cell_short, codes, n, pm, shared, threads, start, table, score, letters)
                    : run_cell<2, true>(cell_short, codes, n, pm, shared, threads, start, table, score, letters);
}
