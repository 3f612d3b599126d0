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

// Many tiled tables of one size back to back (fold/_gpu_batch.py): block z walks table z, which holds
// sequence ids[z]; it writes the score V(0, n) and, with `walk`, pair_to and the dot-bracket letters
// at the sequence's place in the batch. Each block has its own stack of stack_stride entries.
template <typename Score, int T>
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
    if (walk)
        walk_structure(Vz, L, codes + start, pm, n, stack + z * stack_stride, pair_to + start, chars + start, status);
}
