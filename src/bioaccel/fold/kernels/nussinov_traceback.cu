// Traceback on the GPU, over the table where the fill left it (copying a 10 GB table to the host
// would cost more than the fill). One block walks the structure with the rule every bioaccel variant
// shares (fold/_traceback.py), written here for half-open intervals [i, c) = closed [i, c-1]:
//   pop [i, c); skip it if V(i, c) == 0 (weights are positive: no pair inside);
//   if (i, c-1) may pair and V(i+1, c-1) + w == V(i, c): pair it, push [i+1, c-1);
//   else split at the smallest m in (i, c) with V(i, m) + V(m, c) == V(i, c): push [m, c), [i, m).
// Thread 0 tries the pair and m = i+1 (i unpaired, the common case) alone; only otherwise the whole
// block scans for m, a block-width window at a time from the left.
#ifndef NUSSINOV_BATCH_HOST          // tests/nussinov_batch_host.cpp (g++) gives its own cp_async16 and waits
#include "dpx.cuh"                 // runtime/kernels: cp.async (the walk's window, WINDOW > 0)
#endif
#include "nussinov_common.cuh"

#define TB_THREADS 1024               // the most threads a traceback block may have (fold/_launch.py)

// The walk itself, by a whole block (any blockDim); used by the traceback kernels below and by the
// batch kernel (nussinov_batch.cu) over its shared-memory table. `chars` (nullptr: not wanted) gets
// the dot-bracket letters beside pair_to, so that a batch needs no pass over pair_to on the host.
template <typename Score, typename Layout>
__device__ void walk_structure(const Score* V, const Layout& L, const code_t* s, const PairModel* pm, int n,
                               int2* stack, int* pair_to, unsigned char* chars, int* status) {
    __shared__ int top, ci, cc, cv, found, state;   // state: 0 scan needed, 1 handled, 2 done
    const int tid = threadIdx.x, nthreads = blockDim.x;
    for (int x = tid; x < n; x += nthreads) pair_to[x] = -1;
    if (chars != nullptr)
        for (int x = tid; x < n; x += nthreads) chars[x] = '.';
    if (tid == 0) {
        top = 0;
        if (n >= 2) stack[top++] = make_int2(0, n);
    }
    __syncthreads();
    while (true) {
        if (tid == 0) {
            state = 1;
            if (top == 0) {
                state = 2;
            } else {
                int2 iv = stack[--top];
                int i = iv.x, c = iv.y;
                int v = load_v(V, L, i, c);
                if (v != 0) {
                    int w = pair_weight(pm, s, i, c);
                    if (w > 0 && load_v(V, L, i + 1, c - 1) + w == v) {
                        pair_to[i] = c - 1;
                        pair_to[c - 1] = i;
                        if (chars != nullptr) {
                            chars[i] = '(';
                            chars[c - 1] = ')';
                        }
                        stack[top++] = make_int2(i + 1, c - 1);
                    } else if (load_v(V, L, i + 1, c) == v) {          // m = i + 1: V(i, i+1) = 0
                        stack[top++] = make_int2(i + 1, c);
                    } else {
                        ci = i; cc = c; cv = v; found = c; state = 0;
                    }
                }
            }
        }
        __syncthreads();
        if (state == 2) break;
        if (state == 0) {
            const int i = ci, c = cc, v = cv;
            for (int base = i + 2; base < c; base += nthreads) {
                int m = base + tid;
                if (m < c && load_v(V, L, i, m) + load_v(V, L, m, c) == v) atomicMin(&found, m);
                __syncthreads();
                const int first = found;
                __syncthreads();                               // nobody updates found before all read it
                if (first < c) break;
            }
            if (tid == 0) {
                if (found >= c) {
                    *status = 1;                               // no split reproduces V: a corrupt table
                    top = 0;
                } else {
                    stack[top++] = make_int2(found, c);
                    stack[top++] = make_int2(i, found);
                }
            }
        }
        __syncthreads();
    }
}

// A held walk's pair test (walk_structure_held, walk_structure_warp): whether (i, c-1) pairs in [i, c), given
// V(i, c) = v and inner = V(i+1, c-1); where it does, pair_to and the letters (chars: nullptr, none) say so.
__device__ __forceinline__ bool take_pair(const PairModel* pm, const code_t* s, int i, int c, int inner, int v,
                                          int* pair_to, unsigned char* chars) {
    const int w = pair_weight(pm, s, i, c);
    const bool paired = w > 0 && inner + w == v;
    if (paired) {
        pair_to[i] = c - 1;
        pair_to[c - 1] = i;
        if (chars != nullptr) {
            chars[i] = '(';
            chars[c - 1] = ')';
        }
    }
    return paired;
}

// The same walk by one warp, without block barriers (issue 29, helper nbwarp), for the shared-memory batch
// kernels' finish (nussinov_batch.cu x2_finish, "x2t5w"). The decisions are walk_structure_held's (so
// walk_structure's: the same pair_to and letters): the interval in hand held in registers, V(i+1, c-1) and
// V(i+1, c) loaded together, a split's right part stacked with its V (PACKED_POPS: c | V << 16; V < 2^15 and
// n < 65,536, as the x2 kernels' cells are). That V is the cell walk_structure reads at the pop, even in a corrupt
// table: the scan has just read V(m, c) and found V(i, m) + V(m, c) = V(i, c). So the same status and letters
// (tests/test_nussinov_batch_host.py raises and lowers cells and compares the two walks).
// Only warp 0 walks; the block's other warps return (the fill is over: its shared memory stays held until warp 0
// ends, but no step waits for them). Lane 0 steps alone and owns the stack (no other lane reads it); a scan for m
// is the warp's: 32 m a round from the left, the smallest m that reproduces V(i, c) the first set bit (__ffs) of
// the first round's __ballot_sync that has one, its V(i, m) shuffled to lane 0 from the lane that read it. So
// lanes meet only at a scan's shuffles and ballot, and once after the clears of pair_to and chars.
// Why: walk_structure's thread 0 ends each of ~250 steps (at 200 nt) at one or two barriers of the whole block,
// whose other warps only wait, and its scans take block-wide rounds of atomicMin and two barriers. blockDim.x:
// a multiple of 32 (the batch kernels' tile_threads), so that warp 0's 32 lanes all exist.
template <typename Score, typename Layout>
__device__ void walk_structure_warp(const Score* V, const Layout& L, const code_t* s, const PairModel* pm, int n,
                                    int2* stack, int* pair_to, unsigned char* chars, int* status) {
    constexpr unsigned WARP = 0xffffffffu;
    if (threadIdx.x >= 32) return;
    const int lane = threadIdx.x;
    for (int x = lane; x < n; x += 32) pair_to[x] = -1;
    if (chars != nullptr)
        for (int x = lane; x < n; x += 32) chars[x] = '.';
    __syncwarp();                                    // the clears before lane 0 writes a pair over them
    int i = 0, c = n, top = 0;                       // lane 0's interval [i, c), V(i, c) = v, and stack top
    int v = n >= 2 ? load_v(V, L, 0, n) : 0;
    while (true) {
        int scan = 0;                                // lane 0: 1 where neither the pair nor m = i + 1 fits
        if (lane == 0) {
            while (true) {
                if (v == 0) {                        // nothing pairs inside [i, c): the next interval
                    if (top == 0) break;
                    const int2 iv = stack[--top];
                    i = iv.x;
                    c = iv.y & 0xFFFF;
                    v = iv.y >> 16;
                    continue;
                }
                const int inner = load_v(V, L, i + 1, c - 1);     // both issued before either is tested
                const int right = load_v(V, L, i + 1, c);
                const bool paired = take_pair(pm, s, i, c, inner, v, pair_to, chars);
                if (!paired && right != v) {
                    scan = 1;
                    break;
                }
                c -= paired;
                v = paired ? inner : right;
                i += 1;
            }
        }
        if (!__shfl_sync(WARP, scan, 0)) break;     // lane 0 has walked every interval
        const int si = __shfl_sync(WARP, i, 0), sc = __shfl_sync(WARP, c, 0), sv = __shfl_sync(WARP, v, 0);
        int found = sc, left = 0;                    // the smallest m (none: sc) and V(si, m)
        for (int base = si + 2; base < sc; base += 32) {
            const int m = base + lane;
            int vm = 0;
            bool hit = false;
            if (m < sc) {
                vm = load_v(V, L, si, m);
                hit = vm + load_v(V, L, m, sc) == sv;
            }
            const unsigned hits = __ballot_sync(WARP, hit);
            if (hits != 0) {                         // (the same for every lane: the loop ends together)
                const int first = __ffs(hits) - 1;
                found = base + first;
                left = __shfl_sync(WARP, vm, first);
                break;
            }
        }
        if (lane == 0) {
            if (found >= sc) {
                *status = 1;                         // no split reproduces V: a corrupt table
                top = 0;
                v = 0;
            } else {                                 // [m, c) later, with V(m, c) = V(i, c) - V(i, m); [i, m) now
                stack[top++] = make_int2(found, c | ((v - left) << 16));
                c = found;
                v = left;
            }
        }
    }
}

template <typename Score, typename Layout>
__global__ void __launch_bounds__(TB_THREADS)
traceback(const Score* __restrict__ V, Layout L, const code_t* __restrict__ s, const PairModel* __restrict__ pm, int n,
          int2* __restrict__ stack, int* __restrict__ pair_to, int* __restrict__ status) {
    walk_structure(V, L, s, pm, n, stack, pair_to, (unsigned char*)nullptr, status);
}

// A tiled table in the offset encoding (int16 cells over an int32 base per tile, nussinov_common.cuh).
template <typename Score, int T>
__global__ void __launch_bounds__(TB_THREADS)
traceback_offset(const Score* __restrict__ V, long long nt, const int* __restrict__ bases, const code_t* __restrict__ s,
                 const PairModel* __restrict__ pm, int n, int2* __restrict__ stack, int* __restrict__ pair_to,
                 int* __restrict__ status) {
    const TiledOffsetLayout<T> L{TiledLayout<T>{nt}, bases};
    walk_structure(V, L, s, pm, n, stack, pair_to, (unsigned char*)nullptr, status);
}

// The same walk, with the interval in hand held by thread 0 (issue 29, helper nbhost): the old walk pushes
// the next interval and pops it at once (a store and a load of the global stack, then V(i, c), then V(i+1,
// c-1), then V(i+1, c): four dependent global loads and two block barriers a step). Here the next interval's
// V is the one just read, so a step loads V(i+1, c-1) and V(i+1, c) together (one latency), the stack holds
// only the right parts of splits and the intervals below a zero, and the block meets at a barrier only for a
// split's scan. The decisions, in the same order as walk_structure's, give the same pair_to and letters.
// Measured (H100, 2,000 x 1,000 nt, docs/gpu-notes.md): 0.83 ms against 0.91; a step ahead (more registers:
// fewer blocks an SM) and a warp's walk with ballot scans (32-thread blocks) were slower, 1.0-1.1 ms.
// PAIRED_SPLITS (issue 29, helper nbedge): a scan loads V only at the m where (i, m-1) may pair. The smallest m
// with V(i, m) + V(m, c) = V(i, c) always has V(i, m) made by the pair (i, m-1): were it made by a split at m' of
// [i, m), then V(i, m') + V(m', c) >= V(i, m') + V(m', m) + V(m, c) = V(i, c), so m' (or m = i + 1, tested
// before the scan) would split [i, c) too, further left. So the m found is the same. Why: the scans' column
// loads V(m, c) are one 32-byte sector each (~11,500 a 1,000-nt walk, 0.73 GB for 2,000 walks), and only 37% of
// m pass (30 random sequences: bench/nussinov_walk_model.py). Measured (H200, 2,000 x 1,000 nt): 0.700-0.704 ms
// against 0.734-0.739, so the loads' traffic is a small part of the walk's time. 30 registers (int16; 26 without).
// WINDOW > 0 (issue 29, helper nbwalk): thread 0 steps inside a WINDOW x WINDOW window of V staged in shared
// memory (aligned to WINDOW, WINDOW dividing the layout's tile, so its rows are contiguous runs of one tile). A step's
// cells (i+1, c-1), (i+1, c) are one row down, at most one column left, of the last: the window serves ~10 steps in
// a row (CPU replay of 10 random 1,000-nt walks, 64-windows: 534 steps, 54 windows staged, 7 steps across a window
// column's edge, which load from global memory). A step outside asks the block to stage the window holding both
// cells (cp.async, 16 bytes a thread a copy, one load latency), then takes it. The decisions are the held walk's.
// Measured (H200, 2,000 x 1,000 nt, one call): 0.599-0.608 ms against 0.714-0.717 (PAIRED_SPLITS without a window);
// 32 registers and 8,224 bytes of shared memory (int16 cells, 64-tiles): one wave of 16 blocks an SM still.
// PACKED_POPS (issue 29, helper nbhost2; int16 cells, n < 65,536): a split's right part [m, c) goes on the stack with
// its V, which the scan has just shown to be V(i, c) - V(i, m), in the high half of .y: a pop loads no V. Thread 0's
// clock64 (bench/nussinov_walk_probe.py, 2,000 x 1,000 nt, H200) put its steps and pops at 223 of a walk's 484 us,
// 72 pops a walk, each the stack's entry and then V(i, c): two dependent global loads.
#ifdef BIOACCEL_WALK_PROBE
// bench/nussinov_walk_probe.py only (issue 29, nbhost2): thread 0's clock64 cycles of each kind of a walk's work,
// per block (blockIdx.x < 4096): [0] its own steps and pops, [1] window stagings (from its break to the block's
// barrier after the copies), [2] scans (from its break to the barrier after the scan), then the counts of [3]
// steps, [4] stagings, [5] scans, [6] scan rounds, [7] pops.
__device__ unsigned long long walk_kinds[8 * 4096];
#define WALK_PROBE(statement) statement
#else
#define WALK_PROBE(statement)
#endif

template <typename Score, typename Layout, bool PAIRED_SPLITS = false, int WINDOW = 0, bool PACKED_POPS = false>
__device__ void walk_structure_held(const Score* V, const Layout& L, const code_t* s, const PairModel* pm, int n,
                                    int2* stack, int* pair_to, unsigned char* chars, int* status) {
    // state: 0 scan needed, 1 stage the window at (wrow, wcol), 2 done; left: V(i, m) of the m found
    __shared__ int ci, cc, cv, found, state, left, wrow, wcol;
    __shared__ __align__(16) Score window[WINDOW > 0 ? WINDOW * WINDOW : 1];
    const int tid = threadIdx.x, nthreads = blockDim.x;
    int wr = -(1 << 24), wq = -(1 << 24);           // thread 0's staged window: first row and column (none yet)
    for (int x = tid; x < n; x += nthreads) pair_to[x] = -1;
    if (chars != nullptr)
        for (int x = tid; x < n; x += nthreads) chars[x] = '.';
    int i = 0;                                       // thread 0's interval [i, c), V(i, c) = v, and stack top
    int c = n;
    int v = (tid == 0 && n >= 2) ? load_v(V, L, 0, n) : 0;
    int top = 0;
    WALK_PROBE(unsigned long long kinds[8] = {}; long long mark = clock64();)
    __syncthreads();
    while (true) {
        WALK_PROBE(mark = clock64();)
        if (tid == 0) {
            state = 2;
            while (true) {
                if (v == 0) {                        // nothing pairs inside [i, c): the next interval
                    if (top == 0) break;
                    WALK_PROBE(kinds[7] += 1;)
                    const int2 iv = stack[--top];
                    i = iv.x;
                    if constexpr (PACKED_POPS) {
                        c = iv.y & 0xFFFF;
                        v = iv.y >> 16;
                    } else {
                        c = iv.y;
                        v = load_v(V, L, i, c);
                    }
                    continue;
                }
                int inner, right;
                if constexpr (WINDOW > 0) {
                    const int lr = i + 1 - wr, lc = c - wq;       // the cells' row, right column in the window
                    if ((unsigned)lr < WINDOW && (unsigned)(lc - 1) < WINDOW - 1) {
                        inner = staged_v(window[lr * WINDOW + lc - 1], i + 1, c - 1);
                        right = staged_v(window[lr * WINDOW + lc], i + 1, c);
                    } else if (c % WINDOW != 0) {                 // both in another window: stage it, then step
                        wr = (i + 1) - (i + 1) % WINDOW;
                        wq = c - c % WINDOW;
                        wrow = wr;
                        wcol = wq;
                        state = 1;
                        break;
                    } else {                                      // across a window column's edge: global memory
                        inner = load_v(V, L, i + 1, c - 1);
                        right = load_v(V, L, i + 1, c);
                    }
                } else {
                    inner = load_v(V, L, i + 1, c - 1);           // both issued before either is tested
                    right = load_v(V, L, i + 1, c);
                }
                const bool paired = take_pair(pm, s, i, c, inner, v, pair_to, chars);
                if (!paired && right != v) {         // neither the pair nor m = i + 1: a scan for m
                    ci = i;
                    cc = c;
                    cv = v;
                    found = c;
                    state = 0;
                    break;
                }
                c -= paired;
                v = paired ? inner : right;
                i += 1;
                WALK_PROBE(kinds[3] += 1;)
            }
        }
        WALK_PROBE(const long long broke = clock64(); kinds[0] += broke - mark; mark = broke;)
        __syncthreads();
        if (state == 2) break;
        if constexpr (WINDOW > 0) {
            if (state == 1) {                        // the block stages the window thread 0 asked for
                constexpr int pieces = WINDOW * (int)sizeof(Score) / 16;     // 16-byte copies a window row
                const int r0 = wrow, q0 = wcol;
                for (int u = tid; u < WINDOW * pieces; u += nthreads)
                    cp_async16(reinterpret_cast<int4*>(window) + u,
                               reinterpret_cast<const int4*>(V + L.at(r0 + u / pieces, q0)) + u % pieces);
                cp_async_commit();
                cp_async_wait<0>();
                __syncthreads();                     // the window whole before thread 0 reads it; state read by all
                WALK_PROBE(kinds[1] += clock64() - mark; kinds[4] += 1;)
                continue;
            }
        }
        const int si = ci, sc = cc, sv = cv;
        WALK_PROBE(kinds[5] += 1;)
        for (int base = si + 2; base < sc; base += nthreads) {
            WALK_PROBE(kinds[6] += 1;)
            const int m = base + tid;
            int vm = 0;
            if (m < sc && (!PAIRED_SPLITS || pair_weight(pm, s, si, m) > 0)) {
                vm = load_v(V, L, si, m);
                if (vm + load_v(V, L, m, sc) == sv) atomicMin(&found, m);
            }
            __syncthreads();
            const int first = found;
            if (m == first) left = vm;               // the winner hands V(i, m) to thread 0: no load after the scan
            __syncthreads();                         // nobody updates found before all read it
            if (first < sc) break;
        }
        if (tid == 0) {
            if (found >= c) {
                *status = 1;                         // no split reproduces V: a corrupt table
                top = 0;
                v = 0;
            } else {
                // [m, c) later (PACKED_POPS: with V(m, c) = V(i, c) - V(i, m)), [i, m) now
                stack[top++] = make_int2(found, PACKED_POPS ? c | ((v - left) << 16) : c);
                c = found;
                v = left;
            }
        }
        __syncthreads();                             // ci, cc, cv, found read by all before thread 0 writes them
        WALK_PROBE(kinds[2] += clock64() - mark;)
    }
    WALK_PROBE(if (tid == 0 && blockIdx.x < 4096)
                   for (int k = 0; k < 8; ++k) walk_kinds[8 * blockIdx.x + k] = kinds[k];)
}

#ifdef BIOACCEL_WALK_PROBE
// bench/nussinov_walk_probe.py only (compiled with -DBIOACCEL_WALK_PROBE): per block, the global timer (ns) at its
// start and end and its SM, to tell whether a few long walks set the kernel's length or all walks take about as long.
__device__ unsigned long long walk_probe[3 * 4096];
__device__ __forceinline__ unsigned long long global_ns() {
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}
#endif

// Many tiled tables of one size back to back (fold/_gpu_batch.py): block z walks table z, which holds
// sequence ids[z]; it writes the score V(0, n) and, with `walk`, pair_to and the dot-bracket letters
// at the sequence's place in the batch. Each block has its own stack of stack_stride entries. WALK
// (fold/_launch.py batch_walk): 6 walk 5 reading the sequence's codes and the pair model from shared memory (the
// dynamic shared memory: the PairModel, then the codes; fold/_gpu_batch_tiled.trace_shared_bytes), with PACKED_POPS
// for int16 cells (issue 29, nbhost2: a step's pair test was two dependent global loads, the codes then the weight,
// ~0.3 us a step by thread 0's clock64), 5 walk 3 stepping inside a 64 x 64 window in shared memory (32 x 32 at
// 32-tiles), 3 walk_structure_held scanning only the m where (i, m-1) may pair (PAIRED_SPLITS), 1
// walk_structure_held, 0 walk_structure (before issue 29's nbhost). (2 and 4, a block's warps walking different
// intervals, without and with PAIRED_SPLITS, were slower: commit e695f17 has them, docs/gpu-notes.md.)
template <typename Score, int T, int WALK = 0>
__global__ void __launch_bounds__(TB_THREADS)
batch_traceback(const Score* __restrict__ V, long long table_cells, int nt, const int* __restrict__ ids,
                const long long* __restrict__ starts, const code_t* __restrict__ codes,
                const PairModel* __restrict__ pm, int walk, int2* __restrict__ stack, int stack_stride,
                int* __restrict__ scores, int* __restrict__ pair_to, unsigned char* __restrict__ chars,
                int* __restrict__ status) {
    const long long z = blockIdx.x;
#ifdef BIOACCEL_WALK_PROBE
    const unsigned long long probe_start = global_ns();
#endif
    const int id = ids[z];
    const long long start = starts[id];
    const int n = (int)(starts[id + 1] - start);
    const Score* Vz = V + z * table_cells;
    TiledLayout<T> L{nt};
    if (threadIdx.x == 0) scores[id] = load_v(Vz, L, 0, n);
    if (!walk) return;
    int2* own_stack = stack + z * stack_stride;
    if constexpr (WALK == 6) {
        extern __shared__ __align__(16) unsigned char walk_smem[];           // the PairModel, then the codes
        PairModel* model = reinterpret_cast<PairModel*>(walk_smem);
        code_t* own_codes = walk_smem + sizeof(PairModel);
        for (int x = threadIdx.x; x < (int)(sizeof(PairModel) / sizeof(int)); x += blockDim.x)
            reinterpret_cast<int*>(model)[x] = reinterpret_cast<const int*>(pm)[x];
#pragma unroll 4
        for (int x = threadIdx.x; x < n; x += blockDim.x) own_codes[x] = codes[start + x];
        __syncthreads();
        walk_structure_held<Score, TiledLayout<T>, true, (T < 64 ? T : 64), sizeof(Score) == 2>(
            Vz, L, own_codes, model, n, own_stack, pair_to + start, chars + start, status);
    } else if constexpr (WALK == 5)
        walk_structure_held<Score, TiledLayout<T>, true, (T < 64 ? T : 64)>(Vz, L, codes + start, pm, n, own_stack,
                                                                           pair_to + start, chars + start, status);
    else if constexpr (WALK == 3)
        walk_structure_held<Score, TiledLayout<T>, true>(Vz, L, codes + start, pm, n, own_stack, pair_to + start,
                                                         chars + start, status);
    else if constexpr (WALK == 1)
        walk_structure_held(Vz, L, codes + start, pm, n, own_stack, pair_to + start, chars + start, status);
    else
        walk_structure(Vz, L, codes + start, pm, n, own_stack, pair_to + start, chars + start, status);
#ifdef BIOACCEL_WALK_PROBE
    if (threadIdx.x == 0 && z < 4096) {
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        walk_probe[3 * z] = probe_start;
        walk_probe[3 * z + 1] = global_ns();
        walk_probe[3 * z + 2] = sm;
    }
#endif
}

// A batch's check (fold/_gpu_batch.py check_packed): status[1] = 1 where a sequence was left without a
// score (a negative one), so that one copy of status brings both tests to the host.
__global__ void batch_unscored(const int* __restrict__ scores, long long count, int* __restrict__ status) {
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += step)
        if (scores[k] < 0) status[1] = 1;
}
