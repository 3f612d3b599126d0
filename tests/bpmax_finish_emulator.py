"""The segment finish bpmax_finish_roles (kernels/bpmax.cu) emulated on the CPU: its segment read, group loop and
store over one segment, forms 6 and 7 (issue 29, helper bpmaxunroll) and, at groups of 8 diagonals, 11-13 (helper
bpmaxpipe: the read and the store spread over the groups; 12's L2 prefetches are no-ops here), cut from the kernel's own source and built with g++ as
host C++: a CUDA thread a std::thread, __syncthreads and the tail threads' named barrier as std::barriers, __all_sync
as a warp's barrier, the DPX intrinsics as 16-bit arithmetic. It reports the words where form 7's segment differs from
form 6's (the same operands read at the same barriers give the same words, whatever the start values), the words and
stored cells where forms 11-13's differ from form 7's (shared words not yet read hold a poison above every score: a cell
read before its vector was written would take it into its maximum), and the tail barriers where a warp's threads met
different barrier instructions (bar.sync is .aligned: on the device that hangs the block, as form 7 did on
bpmaxunroll's call 1; built at -O0, a call site is one instruction).

    PYTHONPATH=src:tests python3 tests/bpmax_finish_emulator.py 8 129 288 100000 1
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import bioaccel

KERNEL = Path(bioaccel.__file__).parent / "interact" / "kernels" / "bpmax.cu"
GXX = shutil.which("g++")

HEAD = r'''
#include <barrier>
#include <thread>
#include <vector>
#include <cstdio>
#include <cstring>
#include <random>
#include <algorithm>
#include <atomic>
#define __device__
#define __forceinline__ inline
#define FINISH_CLOCK(x)
#define FINISH_CLOCK_BY(x, y)
using std::max; using std::min;
typedef unsigned char code_t;
struct Dim { unsigned x; };
struct uint4 { unsigned x, y, z, w; };
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return {x, y, z, w}; }
struct Dims { int M, N, L1, Wb, RS; long long mat_stride; const int* pairs; };
thread_local Dim threadIdx;
Dim blockDim;
static std::barrier<>* block_bar; static std::barrier<>* tail_bar; static std::vector<std::barrier<>*> warp_bar;
static int warp_flags[64][32];
static std::atomic<long> tail_arrivals{0}, block_arrivals{0};
inline void __syncthreads() { block_arrivals++; block_bar->arrive_and_wait(); }
static std::vector<std::vector<void*>> sites(2048);   // per thread: the call site of each tail barrier it met
__attribute__((noinline)) void tail_barrier(int) {
    sites[threadIdx.x].push_back(__builtin_return_address(0)); tail_arrivals++; tail_bar->arrive_and_wait();
}
static long split_warps(int threads) {   // tail barriers where a warp's threads met different instructions
    long split = 0;
    for (int w = 0; w < threads / 32; ++w)
        for (size_t k = 0; k < sites[w * 32].size(); ++k)
            for (int l = 1; l < 32; ++l)
                if (sites[w * 32 + l].size() != sites[w * 32].size() || sites[w * 32 + l][k] != sites[w * 32][k]) { ++split; break; }
    for (auto& v : sites) v.clear();
    return split;
}
inline bool __all_sync(unsigned, bool p) {
    int w = threadIdx.x / 32, l = threadIdx.x % 32;
    warp_flags[w][l] = p; warp_bar[w]->arrive_and_wait();
    bool all = true; for (int i = 0; i < 32; ++i) all = all && warp_flags[w][i];
    warp_bar[w]->arrive_and_wait(); return all;
}
inline unsigned __byte_perm(unsigned x, unsigned y, unsigned s) {
    unsigned char b[8]; memcpy(b, &x, 4); memcpy(b + 4, &y, 4); unsigned r = 0;
    for (int i = 0; i < 4; ++i) r |= (unsigned)b[(s >> (4 * i)) & 7] << (8 * i);
    return r;
}
inline short lo(unsigned w) { return (short)(w & 0xFFFF); }
inline short hi(unsigned w) { return (short)(w >> 16); }
inline unsigned pack(int l, int h) { return (unsigned)(unsigned short)l | ((unsigned)(unsigned short)h << 16); }
inline unsigned __viaddmax_s16x2(unsigned a, unsigned b, unsigned c) {
    return pack(max((int)(short)(lo(a) + lo(b)), (int)lo(c)), max((int)(short)(hi(a) + hi(b)), (int)hi(c)));
}
inline unsigned __vmaxs2(unsigned a, unsigned b) { return pack(max(lo(a), lo(b)), max(hi(a), hi(b))); }
'''

RUN = r'''
template <int G, int FORM>
void thread_body(unsigned* P, const code_t* cs, const int* pt, int SR, int H, int Wb, unsigned tid, Dims g, short* mat,
                 const short* S2, int s, int seg) {
    threadIdx.x = tid;
    short* Pf = reinterpret_cast<short*>(P);
    constexpr bool UNROLLED = FORM >= 7, PIPE = FORM >= 11, PREFETCH = FORM == 12, EARLY = FORM == 13;
    const int V = g.RS / 8, rows = min(seg, g.N - s);
/*BODY*/
}

struct Segment {              // one block's segment: its table rows, shared words and codes
    Dims g; int s, seg, H, SR, threads;
    std::vector<short> mat, S2; std::vector<unsigned> P; std::vector<code_t> cs; const int* pt;
};

// the kernel's segment read (all vectors, or form 11's first PIPE_AHEAD), group loop and store, a thread at a time for
// the read and the store (their loops stride over the block's threads) and a std::thread a CUDA thread for the groups;
// the finished words and the stored table
template <int G, int FORM>
std::pair<std::vector<unsigned>, std::vector<short>> run(Segment x) {
    const int threads = x.threads, V = x.g.RS / 8;
    blockDim.x = threads;
    for (int t = 0; t < threads; ++t) {
        threadIdx.x = t;
        segment_words(x.g, x.mat.data(), x.S2.data(), x.P.data(), x.SR, x.s, x.H, FORM >= 11 ? min(PIPE_AHEAD, V) : V);
    }
    std::barrier<> b(threads), t(threads / 2);
    block_bar = &b; tail_bar = &t;
    warp_bar.clear();
    for (int w = 0; w < threads / 32; ++w) warp_bar.push_back(new std::barrier<>(32));
    std::vector<std::thread> all;
    for (int t = 0; t < threads; ++t)
        all.emplace_back(thread_body<G, FORM>, x.P.data(), x.cs.data(), x.pt, x.SR, x.H, x.g.Wb, t, x.g, x.mat.data(),
                         x.S2.data(), x.s, x.seg);
    for (auto& th : all) th.join();
    const int stored = FORM >= 11 ? max((x.g.Wb + G - 2) / G - 1, 0) : 0;   // the kernel's store after its groups
    for (int t = 0; t < threads; ++t) {
        threadIdx.x = t;
        segment_store(x.g, x.mat.data(), x.P.data(), x.SR, x.s, min(x.seg, x.g.N - x.s), stored);
    }
    return {x.P, x.mat};
}

int main(int argc, char** argv) {
    int Wb = atoi(argv[1]), seg = atoi(argv[2]), Hlimit = atoi(argv[3]), seed = atoi(argv[4]);
    std::mt19937 rng(seed);
    Segment x;
    x.s = 8 + seed % 8;                    // the segment's first table row: every alignment (i2 - 1) & 7 of a row
    x.g = Dims{0, x.s + Hlimit, 0, Wb, (Wb + 15) / 8 * 8, 0, nullptr};
    x.seg = seg; x.SR = (Wb + 1) | 1; x.H = std::min(seg + Wb - 1, Hlimit);
    x.threads = 2 * ((x.H + 31) / 32 * 32);
    const size_t cells = (size_t)(x.s + x.H + 1) * x.g.RS;
    x.mat.resize(cells); x.S2.resize(cells);
    for (size_t i = 0; i < cells; ++i) { x.mat[i] = -300 + (int)(rng() % 200); x.S2[i] = -200 + (int)(rng() % 200); }
    // the words before the read: a poison above every score (a cell read before its vector was written takes it)
    x.P.assign(x.H * x.SR + x.H, pack(3000, 3000));   // codes after the words as in the kernel (not read from P here)
    x.cs.resize(x.H + 8);
    for (auto& c : x.cs) c = rng() % 5;
    int pt[25];
    for (auto& v : pt) v = (int)(rng() % 7) - 2;
    x.pt = pt;
    const int threads = x.threads;
    long counts[3][2] = {};
    auto six = run<GROUP, 6>(x); counts[0][0] = tail_arrivals; counts[0][1] = block_arrivals;
    long split6 = split_warps(threads);
    tail_arrivals = 0; block_arrivals = 0;
    auto seven = run<GROUP, 7>(x); counts[1][0] = tail_arrivals; counts[1][1] = block_arrivals;
    long split7 = split_warps(threads);
    long differ = 0, changed = 0, differ11 = 0, stored11 = 0, split11 = 0;   // forms 11-13 summed
    for (size_t i = 0; i < six.second.size(); ++i) changed += six.second[i] != x.mat[i];
    for (size_t i = 0; i < six.first.size(); ++i) differ += six.first[i] != seven.first[i];
    for (size_t i = 0; i < six.second.size(); ++i) differ += six.second[i] != seven.second[i];
    if constexpr (GROUP == 8) {
        for (auto pipe : {run<GROUP, 11>, run<GROUP, 12>, run<GROUP, 13>}) {
            tail_arrivals = 0; block_arrivals = 0;
            auto eleven = pipe(x); counts[2][0] = tail_arrivals; counts[2][1] = block_arrivals;
            split11 += split_warps(threads);
            for (int r = 0; r < x.H; ++r)   // the band's words (those past it stay the poison in forms 11-13)
                for (int e = 0; e < Wb; ++e) differ11 += eleven.first[r * x.SR + e] != seven.first[r * x.SR + e];
            for (size_t i = 0; i < cells; ++i) stored11 += eleven.second[i] != seven.second[i];
        }
    }
    printf("G %d Wb %d seg %d H %d threads %d: cells %zu, stored changed by form 6 %ld, form 7 differs in %ld, forms 11-13 "
           "in %ld words and %ld stored cells; tail arrivals %ld / %ld / %ld, block %ld / %ld / %ld; warps split at a "
           "barrier %ld / %ld / %ld\n", GROUP, Wb, seg, x.H, threads, cells, changed, differ, differ11, stored11,
           counts[0][0], counts[1][0], counts[2][0], counts[0][1], counts[1][1], counts[2][1], split6, split7, split11);
    printf("result %ld %ld %ld %ld %ld %ld %ld\n", changed, differ, split6, split7, differ11, stored11, split11);
    return differ != 0 || split6 != 0 || split7 != 0 || differ11 != 0 || stored11 != 0 || split11 != 0;
}
'''


def emulator_source(cu: str) -> str:
    """Host C++ of forms 6 and 7's group loop, cut from the kernel source ``cu`` (GROUP a -D macro).

    >>> "thread_body" in emulator_source(KERNEL.read_text())
    True
    """
    def cut(start, stop, inclusive=False):
        i = cu.index(start)
        j = cu.index(stop, i)
        return cu[i:j + (len(stop) if inclusive else 0)]

    swap = cut("__device__ __forceinline__ unsigned swap_halves", "\n", True)
    read = re.sub(r'\n *asm volatile\("prefetch[^\n]*', "",   # form 12's L2 prefetches: none on the host
                  cut("// a row's 16-byte vector v (slots 8v", "// the segment's codes and the pair scores"))
    store = cut("// row r's vector v back from the (F, S2) words", "// FORM (issue 29, helper bpmaxst)")
    chain = cut("template <int G>\nstruct ChainAhead", "// BPMAX_FINISH_CLOCKS")
    split = cut("// the splits of U consecutive words", "constexpr int SPLITS_AT_ONCE = 4;", True)
    ahead = cut("constexpr int PIPE_AHEAD", "\n", True)
    body = cut("    const int R = blockDim.x / 2;", "    FINISH_CLOCK(CLOCK_SLOTS - 2);")
    return HEAD + swap + read + store + chain + split + ahead + RUN.replace("/*BODY*/", body, 1)


def build(G: int, folder: str) -> Path:
    """The emulator for groups of G diagonals, built in ``folder`` (needs g++ with C++20's <barrier>)."""
    source = Path(folder) / "finish_emulator.cpp"
    source.write_text(emulator_source(KERNEL.read_text()))
    program = Path(folder) / f"finish_emulator_{G}"
    subprocess.run([GXX, "-std=c++20", "-O0", "-Wno-unknown-pragmas", f"-DGROUP={G}", "-pthread", str(source), "-o",
                    str(program)], check=True, capture_output=True, text=True)
    return program


def emulate(program: Path, Wb: int, seg: int, rows_left: int, seed: int) -> dict:
    """One segment (band Wb, seg rows, at most rows_left rows to the target's end) of random table rows through forms
    6, 7 and (groups of 8) 11-13: {"changed": stored cells form 6 changed, "differ": words and stored cells where form
    7's differ, "differ11"/"stored11": band words and stored cells where forms 11-13's differ from form 7's (summed),
    "split6"/"split7"/"split11": tail barriers where a warp met two instructions, "line": the emulator's summary}."""
    out = subprocess.run([str(program), str(Wb), str(seg), str(rows_left), str(seed)], capture_output=True,
                         text=True).stdout
    line, result = out.strip().splitlines()
    names = ("changed", "differ", "split6", "split7", "differ11", "stored11", "split11")
    return dict(line=line, **dict(zip(names, (int(x) for x in result.split()[1:]))))


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        print(emulate(build(int(sys.argv[1]), folder), *(int(x) for x in sys.argv[2:6]))["line"])
