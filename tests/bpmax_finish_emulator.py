"""The segment finish bpmax_finish_roles (kernels/bpmax.cu) emulated on the CPU: its group loop over one segment in
shared memory, forms 6 and 7 (issue 29, helper bpmaxunroll), cut from the kernel's own source and built with g++ as
host C++: a CUDA thread a std::thread, __syncthreads and the tail threads' named barrier as std::barriers, __all_sync
as a warp's barrier, the DPX intrinsics as 16-bit arithmetic. It reports the words where form 7's segment differs from
form 6's (the same operands read at the same barriers give the same words, whatever the start values) and the tail
barriers where a warp's threads met different barrier instructions (bar.sync is .aligned: on the device that hangs
the block, as form 7 did on bpmaxunroll's call 1; built at -O0, a call site is one instruction).

    PYTHONPATH=src:tests python3 tests/bpmax_finish_emulator.py 8 129 288 100000 1
"""
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
void thread_body(unsigned* P, const code_t* cs, const int* pt, int SR, int H, int Wb, unsigned tid) {
    threadIdx.x = tid;
    short* Pf = reinterpret_cast<short*>(P);
    constexpr bool UNROLLED = FORM >= 7;
/*BODY*/
}

template <int G, int FORM>
std::vector<unsigned> run(std::vector<unsigned> P, const std::vector<code_t>& cs, const int* pt, int SR, int H, int Wb,
                          int threads) {
    blockDim.x = threads;
    std::barrier<> b(threads), t(threads / 2);
    block_bar = &b; tail_bar = &t;
    warp_bar.clear();
    for (int w = 0; w < threads / 32; ++w) warp_bar.push_back(new std::barrier<>(32));
    std::vector<std::thread> all;
    for (int x = 0; x < threads; ++x) all.emplace_back(thread_body<G, FORM>, P.data(), cs.data(), pt, SR, H, Wb, x);
    for (auto& th : all) th.join();
    return P;
}

int main(int argc, char** argv) {
    int Wb = atoi(argv[1]), seg = atoi(argv[2]), Hlimit = atoi(argv[3]), seed = atoi(argv[4]);
    const int SR = (Wb + 1) | 1, H = std::min(seg + Wb - 1, Hlimit);
    const int threads = 2 * ((H + 31) / 32 * 32);
    std::mt19937 rng(seed);
    std::vector<unsigned> P(H * SR + H);   // the words; codes after them as in the kernel (not read from P here)
    for (int r = 0; r < H; ++r)
        for (int e = 0; e < SR; ++e) P[r * SR + e] = pack(-300 + (int)(rng() % 200), -200 + (int)(rng() % 200));
    std::vector<code_t> cs(H + 8);
    for (auto& c : cs) c = rng() % 5;
    int pt[25];
    for (auto& x : pt) x = (int)(rng() % 7) - 2;
    long counts[2][2];
    auto six = run<GROUP, 6>(P, cs, pt, SR, H, Wb, threads); counts[0][0] = tail_arrivals; counts[0][1] = block_arrivals;
    long split6 = split_warps(threads);
    tail_arrivals = 0; block_arrivals = 0;
    auto seven = run<GROUP, 7>(P, cs, pt, SR, H, Wb, threads); counts[1][0] = tail_arrivals; counts[1][1] = block_arrivals;
    long split7 = split_warps(threads);
    long differ = 0, changed = 0;
    for (size_t i = 0; i < P.size(); ++i) { differ += six[i] != seven[i]; changed += six[i] != P[i]; }
    printf("G %d Wb %d seg %d H %d threads %d: words %zu, changed by form 6 %ld, form 7 differs in %ld; "
           "tail arrivals %ld / %ld, block %ld / %ld; warps split at a barrier %ld / %ld\n", GROUP, Wb, seg, H, threads,
           P.size(), changed, differ, counts[0][0], counts[1][0], counts[0][1], counts[1][1], split6, split7);
    printf("result %ld %ld %ld %ld\n", changed, differ, split6, split7);
    return differ != 0 || split6 != 0 || split7 != 0;
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
    chain = cut("template <int G>\nstruct ChainAhead", "// BPMAX_FINISH_CLOCKS")
    split = cut("// the splits of U consecutive words", "constexpr int SPLITS_AT_ONCE = 4;", True)
    body = cut("    const int R = blockDim.x / 2;", "    FINISH_CLOCK(CLOCK_SLOTS - 2);")
    return HEAD + swap + chain + split + RUN.replace("/*BODY*/", body, 1)


def build(G: int, folder: str) -> Path:
    """The emulator for groups of G diagonals, built in ``folder`` (needs g++ with C++20's <barrier>)."""
    source = Path(folder) / "finish_emulator.cpp"
    source.write_text(emulator_source(KERNEL.read_text()))
    program = Path(folder) / f"finish_emulator_{G}"
    subprocess.run([GXX, "-std=c++20", "-O0", "-Wno-unknown-pragmas", f"-DGROUP={G}", "-pthread", str(source), "-o",
                    str(program)], check=True, capture_output=True, text=True)
    return program


def emulate(program: Path, Wb: int, seg: int, rows_left: int, seed: int) -> dict:
    """One segment (band Wb, seg rows, at most rows_left rows to the target's end) of random words through forms 6
    and 7: {"changed": words form 6 changed, "differ": words where form 7's differ, "split6"/"split7": tail barriers
    where a warp met two instructions, "line": the emulator's summary}."""
    out = subprocess.run([str(program), str(Wb), str(seg), str(rows_left), str(seed)], capture_output=True,
                         text=True).stdout
    line, result = out.strip().splitlines()
    changed, differ, split6, split7 = (int(x) for x in result.split()[1:])
    return dict(line=line, changed=changed, differ=differ, split6=split6, split7=split7)


if __name__ == "__main__":
    with tempfile.TemporaryDirectory() as folder:
        print(emulate(build(int(sys.argv[1]), folder), *(int(x) for x in sys.argv[2:6]))["line"])
