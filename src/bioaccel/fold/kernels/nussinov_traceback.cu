// Traceback on the GPU, over the table where the fill left it (copying a 10 GB table to the host
// would cost more than the fill). One block walks the structure with the rule every bioaccel variant
// shares (fold/_traceback.py), written here for half-open intervals [i, c) = closed [i, c-1]:
//   pop [i, c); skip it if V(i, c) == 0 (weights are positive: no pair inside);
//   if (i, c-1) may pair and V(i+1, c-1) + w == V(i, c): pair it, push [i+1, c-1);
//   else split at the smallest m in (i, c) with V(i, m) + V(m, c) == V(i, c): push [m, c), [i, m).
// Thread 0 tries the pair and m = i+1 (i unpaired, the common case) alone; only otherwise the whole
// block scans for m, a block-width window at a time from the left.
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
// AHEAD: a step also loads the three cells that either outcome's next step tests (V(i+2, c-2), V(i+2, c-1),
// V(i+2, c)), so that two steps take one load latency.
template <typename Score, typename Layout, bool AHEAD>
__device__ void walk_structure_held(const Score* V, const Layout& L, const code_t* s, const PairModel* pm, int n,
                                    int2* stack, int* pair_to, unsigned char* chars, int* status) {
    __shared__ int ci, cc, cv, found, state, left;  // state: 0 scan needed, 2 done; left: V(i, m) of the m found
    const int tid = threadIdx.x, nthreads = blockDim.x;
    for (int x = tid; x < n; x += nthreads) pair_to[x] = -1;
    if (chars != nullptr)
        for (int x = tid; x < n; x += nthreads) chars[x] = '.';
    int i = 0;                                       // thread 0's interval [i, c), V(i, c) = v, and stack top
    int c = n;
    int v = (tid == 0 && n >= 2) ? load_v(V, L, 0, n) : 0;
    int top = 0;
    __syncthreads();
    while (true) {
        if (tid == 0) {
            state = 2;
            while (true) {
                if (v == 0) {                        // nothing pairs inside [i, c): the next interval
                    if (top == 0) break;
                    const int2 iv = stack[--top];
                    i = iv.x;
                    c = iv.y;
                    v = load_v(V, L, i, c);
                    continue;
                }
                int inner = load_v(V, L, i + 1, c - 1);         // all issued before any is tested
                int right = load_v(V, L, i + 1, c);
                int inner2 = 0, mid2 = 0, right2 = 0;
                if constexpr (AHEAD) {
                    inner2 = load_v(V, L, i + 2, c - 2);
                    mid2 = load_v(V, L, i + 2, c - 1);
                    right2 = load_v(V, L, i + 2, c);
                }
                bool scan = false;
#pragma unroll
                for (int k = 0; k < (AHEAD ? 2 : 1); ++k) {
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
                    if (!paired && right != v) {     // neither the pair nor m = i + 1: a scan for m
                        scan = true;
                        break;
                    }
                    c -= paired;
                    v = paired ? inner : right;
                    i += 1;
                    if (v == 0) break;
                    inner = paired ? inner2 : mid2;  // the next step's cells, loaded with this one's
                    right = paired ? mid2 : right2;
                }
                if (scan) {
                    ci = i;
                    cc = c;
                    cv = v;
                    found = c;
                    state = 0;
                    break;
                }
            }
        }
        __syncthreads();
        if (state == 2) break;
        const int si = ci, sc = cc, sv = cv;
        for (int base = si + 2; base < sc; base += nthreads) {
            const int m = base + tid;
            int vm = 0;
            if (m < sc) {
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
                stack[top++] = make_int2(found, c);  // [m, c) later, [i, m) now
                c = found;
                v = left;
            }
        }
        __syncthreads();                             // ci, cc, cv, found read by all before thread 0 writes them
    }
}

// The walk by one warp (issue 29, helper nbhost; measured: the held walk above gained little, and 32-thread
// blocks lost, so the scans' block barriers and windows were the cost): every lane holds the same interval
// (the same loads: one transaction each) and takes the same branches, so no barrier and no broadcast is
// needed; a split's scan tests a window of 32 x U values of m at once (each lane U, all loads issued before
// any test) and takes the smallest m by ballot, V(i, m) by a shuffle from the lane that loaded it. Lanes
// store the same values to the same places (pair_to, letters, stack). The decisions are walk_structure's.
// Warps past the first only help with the fill.
template <typename Score, typename Layout, int U>
__device__ void walk_structure_warp(const Score* V, const Layout& L, const code_t* s, const PairModel* pm, int n,
                                    int2* stack, int* pair_to, unsigned char* chars, int* status) {
    const int tid = threadIdx.x, nthreads = blockDim.x;
    for (int x = tid; x < n; x += nthreads) pair_to[x] = -1;
    if (chars != nullptr)
        for (int x = tid; x < n; x += nthreads) chars[x] = '.';
    __syncthreads();                                 // the fill before warp 0's pairs
    if (tid >= 32) return;
    const int lane = tid;
    int i = 0;
    int c = n;
    int v = n >= 2 ? load_v(V, L, 0, n) : 0;
    int top = 0;
    while (true) {
        if (v == 0) {                                // nothing pairs inside [i, c): the next interval
            if (top == 0) break;
            const int2 iv = stack[--top];
            i = iv.x;
            c = iv.y;
            v = load_v(V, L, i, c);
            continue;
        }
        const int inner = load_v(V, L, i + 1, c - 1);
        const int right = load_v(V, L, i + 1, c);
        const int w = pair_weight(pm, s, i, c);
        if (w > 0 && inner + w == v) {
            pair_to[i] = c - 1;
            pair_to[c - 1] = i;
            if (chars != nullptr) {
                chars[i] = '(';
                chars[c - 1] = ')';
            }
            i += 1;
            c -= 1;
            v = inner;
            continue;
        }
        if (right == v) {                            // m = i + 1: i unpaired
            i += 1;
            continue;
        }
        int found = c;                               // the smallest m in (i+1, c) with V(i, m) + V(m, c) == v
        int left = 0;
        for (int base = i + 2; base < c && found == c; base += 32 * U) {
            int a[U], b[U];
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const int m = base + u * 32 + lane;
                a[u] = m < c ? load_v(V, L, i, m) : 0;
                b[u] = m < c ? load_v(V, L, m, c) : -(1 << 30);
            }
#pragma unroll
            for (int u = 0; u < U; ++u) {
                const unsigned hit = __ballot_sync(0xffffffffu, a[u] + b[u] == v);
                if (hit != 0u && found == c) {       // the same on every lane
                    const int src = __ffs(hit) - 1;
                    found = base + u * 32 + src;
                    left = __shfl_sync(0xffffffffu, a[u], src);
                }
            }
        }
        if (found >= c) {
            *status = 1;                             // no split reproduces V: a corrupt table
            break;
        }
        stack[top++] = make_int2(found, c);          // [m, c) later, [i, m) now
        c = found;
        v = left;
    }
}

// Many tiled tables of one size back to back (fold/_gpu_batch.py): block z walks table z, which holds
// sequence ids[z]; it writes the score V(0, n) and, with `walk`, pair_to and the dot-bracket letters
// at the sequence's place in the batch. Each block has its own stack of stack_stride entries. WALK
// (fold/_launch.py batch_walk): 1 walk_structure_held, 2 the same a step ahead, 3 and 4 walk_structure_warp
// (windows of 128 and 256), 0 walk_structure (before issue 29's nbhost).
template <typename Score, int T, int WALK = 0>
__global__ void __launch_bounds__(TB_THREADS)
batch_traceback(const Score* __restrict__ V, long long table_cells, int nt, const int* __restrict__ ids,
                const long long* __restrict__ starts, const code_t* __restrict__ codes,
                const PairModel* __restrict__ pm, int walk, int2* __restrict__ stack, int stack_stride,
                int* __restrict__ scores, int* __restrict__ pair_to, unsigned char* __restrict__ chars,
                int* __restrict__ status) {
    const long long z = blockIdx.x;
    const int id = ids[z];
    const long long start = starts[id];
    const int n = (int)(starts[id + 1] - start);
    const Score* Vz = V + z * table_cells;
    TiledLayout<T> L{nt};
    if (threadIdx.x == 0) scores[id] = load_v(Vz, L, 0, n);
    if (!walk) return;
    int2* own_stack = stack + z * stack_stride;
    if constexpr (WALK >= 3)
        walk_structure_warp<Score, TiledLayout<T>, WALK == 3 ? 4 : 8>(Vz, L, codes + start, pm, n, own_stack,
                                                                      pair_to + start, chars + start, status);
    else if constexpr (WALK >= 1)
        walk_structure_held<Score, TiledLayout<T>, WALK == 2>(Vz, L, codes + start, pm, n, own_stack, pair_to + start,
                                                              chars + start, status);
    else
        walk_structure(Vz, L, codes + start, pm, n, own_stack, pair_to + start, chars + start, status);
}

// A batch's check (fold/_gpu_batch.py check_packed): status[1] = 1 where a sequence was left without a
// score (a negative one), so that one copy of status brings both tests to the host.
__global__ void batch_unscored(const int* __restrict__ scores, long long count, int* __restrict__ status) {
    const long long step = (long long)gridDim.x * blockDim.x;
    for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < count; k += step)
        if (scores[k] < 0) status[1] = 1;
}
