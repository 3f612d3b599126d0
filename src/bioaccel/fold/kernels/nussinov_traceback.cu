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
// Measured (H100, 2,000 x 1,000 nt, docs/gpu-notes.md): 0.83 ms against 0.91; a step ahead (more registers:
// fewer blocks an SM) and a warp's walk with ballot scans (32-thread blocks) were slower, 1.0-1.1 ms.
// PAIRED_SPLITS (issue 29, helper nbedge): a scan loads V only at the m where (i, m-1) may pair. The smallest m
// with V(i, m) + V(m, c) = V(i, c) always has V(i, m) made by the pair (i, m-1): were it made by a split at m' of
// [i, m), then V(i, m') + V(m', c) >= V(i, m') + V(m', m) + V(m, c) = V(i, c), so m' (or m = i + 1, tested
// before the scan) would split [i, c) too, further left. So the m found is the same. Why: the scans' column
// loads V(m, c) are one 32-byte sector each (~12,600 a 1,000-nt walk, 0.8 GB for 2,000 walks: CPU count), and
// only ~38% of m pass (random sequences).
template <typename Score, typename Layout, bool PAIRED_SPLITS = false>
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
                const int inner = load_v(V, L, i + 1, c - 1);   // both issued before either is tested
                const int right = load_v(V, L, i + 1, c);
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
            }
        }
        __syncthreads();
        if (state == 2) break;
        const int si = ci, sc = cc, sv = cv;
        for (int base = si + 2; base < sc; base += nthreads) {
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
                stack[top++] = make_int2(found, c);  // [m, c) later, [i, m) now
                c = found;
                v = left;
            }
        }
        __syncthreads();                             // ci, cc, cv, found read by all before thread 0 writes them
    }
}

// The held walk with a block's warps side by side (issue 29, helper nbedge): the walk is one chain of dependent
// loads (~540 steps and ~67 split scans per 1,000 nt) and the batch's kernel lasts as long as its slowest walk,
// but a split leaves two independent intervals. Here lane 0 of each warp walks an interval as walk_structure_held's
// thread 0 does; a split's right part [m, c) goes on the block's stack (with V(m, c) = V(i, c) - V(i, m), so that
// its taker loads nothing, and only where it is not 0: nothing pairs in it then), where the first warp free takes
// it, newest first. A warp scans its own splits: each lane tests SCAN_PER_LANE values of m a round (a round covers
// 32 * SCAN_PER_LANE values, as many as the block's scan of 128 threads), the smallest hit by ballot. CPU count
// (bench/nussinov_walk_model.py, 30 random 1,000-nt RNAs): the longest chain 407 load latencies with 4 warps
// against 734. Every decision is the held walk's and pair_to / chars are written per position, so the walk's
// order does not change them. The stack: 2 entries a push, (m, c) and (V, 0); the intervals on it are disjoint
// and at least 2 long, so n entries suffice. `busy` (warps holding an interval) is 0 only when the stack is
// empty and stays 0 then (a warp pushes only while it holds one): the walk is over. 49 registers (int16 cells;
// 44 int32), so a batch of 2,000 walks fits one wave on an H200 (132 SMs) in 64-thread blocks (two walkers, 18
// blocks an SM), not in 128-thread ones (9 an SM; forcing 32 registers spills); the count puts two walkers at
// 434 against four's 407.
#define SCAN_PER_LANE 4

__device__ __forceinline__ void stack_lock(int* lock) {
    while (atomicCAS(lock, 0, 1) != 0) {
    }
    __threadfence_block();
}

__device__ __forceinline__ void stack_unlock(int* lock) {
    __threadfence_block();
    atomicExch(lock, 0);
}

// Lane 0's next interval once its own has ended (v = 0): from the stack, or false when the walk is over.
__device__ __forceinline__ bool next_interval(int2* stack, int* lock, int* top, int* busy, bool& held, int& i,
                                              int& c, int& v) {
    while (true) {
        if (!held && *(volatile int*)busy == 0) return false;
        if (held || *(volatile int*)top > 0) {
            bool got = false;
            stack_lock(lock);
            const int t = *(volatile int*)top;
            if (t > 0) {
                const volatile int2* slot = stack + 2 * (t - 1);
                i = slot[0].x;
                c = slot[0].y;
                v = slot[1].x;
                *(volatile int*)top = t - 1;
                if (!held) *(volatile int*)busy += 1;
                got = true;
            } else if (held) {
                *(volatile int*)busy -= 1;
            }
            stack_unlock(lock);
            held = got;
            if (got) return true;
        } else {
            __nanosleep(64);
        }
    }
}

template <typename Score, typename Layout, bool PAIRED_SPLITS = false>
__device__ void walk_structure_warps(const Score* V, const Layout& L, const code_t* s, const PairModel* pm, int n,
                                     int2* stack, int* pair_to, unsigned char* chars, int* status) {
    __shared__ int lock, top, busy;
    const int tid = threadIdx.x, lane = tid & 31;
    const unsigned all = 0xffffffffu;
    for (int x = tid; x < n; x += blockDim.x) pair_to[x] = -1;
    if (chars != nullptr)
        for (int x = tid; x < n; x += blockDim.x) chars[x] = '.';
    if (tid == 0) {
        lock = 0;
        top = 0;
        busy = 1;                                   // warp 0 holds [0, n)
    }
    bool held = tid < 32;                           // lane 0's: this warp holds an interval
    int i = 0, c = n;
    int v = (tid == 0 && n >= 2) ? load_v(V, L, 0, n) : 0;
    __syncthreads();
    while (true) {
        int done = 1;
        if (lane == 0) {
            while (true) {
                if (v == 0) {
                    if (!next_interval(stack, &lock, &top, &busy, held, i, c, v)) break;
                    continue;
                }
                const int inner = load_v(V, L, i + 1, c - 1);   // both issued before either is tested
                const int right = load_v(V, L, i + 1, c);
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
                if (!paired && right != v) {         // neither the pair nor m = i + 1: a scan for m
                    done = 0;
                    break;
                }
                c -= paired;
                v = paired ? inner : right;
                i += 1;
            }
        }
        if (__shfl_sync(all, done, 0)) break;
        const int si = __shfl_sync(all, i, 0), sc = __shfl_sync(all, c, 0), sv = __shfl_sync(all, v, 0);
        int found = sc, left = 0;
        for (int base = si + 2; base < sc; base += 32 * SCAN_PER_LANE) {
            int vm[SCAN_PER_LANE], vr[SCAN_PER_LANE];
#pragma unroll
            for (int k = 0; k < SCAN_PER_LANE; ++k) {     // every load of the round issued before any test
                const int m = base + 32 * k + lane;
                const bool test = m < sc && (!PAIRED_SPLITS || pair_weight(pm, s, si, m) > 0);
                vm[k] = test ? load_v(V, L, si, m) : 0;
                vr[k] = test ? load_v(V, L, m, sc) : -1;
            }
            bool hit = false;
#pragma unroll
            for (int k = 0; k < SCAN_PER_LANE; ++k) {     // the smallest m: the first k with a hit, its lowest lane
                const unsigned ballot = __ballot_sync(all, vm[k] + vr[k] == sv);
                if (!hit && ballot != 0) {
                    const int winner = __ffs(ballot) - 1;
                    found = base + 32 * k + winner;
                    left = __shfl_sync(all, vm[k], winner);
                    hit = true;
                }
            }
            if (hit) break;
        }
        if (lane == 0) {
            if (found >= c) {
                *status = 1;                         // no split reproduces V: a corrupt table
                v = 0;
            } else {
                if (v - left > 0) {                  // [m, c) later, by whichever warp is free first
                    stack_lock(&lock);
                    const int t = *(volatile int*)&top;
                    volatile int2* slot = stack + 2 * t;
                    slot[0].x = found;
                    slot[0].y = c;
                    slot[1].x = v - left;
                    *(volatile int*)&top = t + 1;
                    stack_unlock(&lock);
                }
                c = found;                           // [i, m) now
                v = left;
            }
        }
    }
}

// Many tiled tables of one size back to back (fold/_gpu_batch.py): block z walks table z, which holds
// sequence ids[z]; it writes the score V(0, n) and, with `walk`, pair_to and the dot-bracket letters
// at the sequence's place in the batch. Each block has its own stack of stack_stride entries. WALK
// (fold/_launch.py batch_walk): 1 walk_structure_held, 2 walk_structure_warps (the held walk, a block's warps
// on different intervals), 3 and 4 those two scanning only the m where (i, m-1) may pair (PAIRED_SPLITS), 0
// walk_structure (before issue 29's nbhost).
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
    if constexpr (WALK == 4)
        walk_structure_warps<Score, TiledLayout<T>, true>(Vz, L, codes + start, pm, n, own_stack, pair_to + start,
                                                          chars + start, status);
    else if constexpr (WALK == 3)
        walk_structure_held<Score, TiledLayout<T>, true>(Vz, L, codes + start, pm, n, own_stack, pair_to + start,
                                                         chars + start, status);
    else if constexpr (WALK == 2)
        walk_structure_warps(Vz, L, codes + start, pm, n, own_stack, pair_to + start, chars + start, status);
    else if constexpr (WALK == 1)
        walk_structure_held(Vz, L, codes + start, pm, n, own_stack, pair_to + start, chars + start, status);
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
