"""The banks of a warp's 8-byte shared-memory loads (issue 29, helper bpmaxfin4): finish form 8's pair loop against
form 10's swizzled lanes, counted on paper and timed on the GPU.

On paper: shared memory has 32 banks of 4 bytes, so an aligned 8-byte word w (in 8-byte units) sits on bank pair
w mod 16, and a warp's 32 8-byte loads (256 bytes) take at least 2 wavefronts of 128 bytes. Which 16 lanes share a
wavefront is the hardware's choice; for each grouping of the lanes into two sets of 16 that share one lane bit (the
half warps: bit 4; lanes 0-7 with 16-23: bit 3; ...; the even lanes: bit 0) the count is, per set, the most distinct
8-byte words on one bank pair, summed over the sets. Form 8's pair thread at lane l reads rows 2 l (+ the warp's) at a
stride of SR = 131 words, so its loads sit at 131 l (+ a constant) 8-byte words: bank pair 3 l mod 16.

On the GPU (CuPy; skipped without it): one block of 1,024 threads runs LOADS 8-byte loads a thread at each pattern's
word per lane (plus 64 words an iteration: the banks unchanged), and the clock of the block gives cycles per warp-wide
load; a wavefront is one cycle of the shared-memory pipe, so a conflict-free 8-byte load costs about 2.

    PYTHONPATH=src:bench python3 bench/bpmax_lds64_banks.py [--json docs/results/bpmax_lds64_banks.json] [--repeats 5]
    ncu --kernel-name lds64 --metrics l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,... python3 \
        bench/bpmax_lds64_banks.py --repeats 1    # the launches in the patterns' order, two a pattern
"""
import argparse

from _results import save_json

SR = 131          # the finish's row stride in words at the production band (Wb = 129: (Wb + 1) | 1)
WORDS = 8192      # the shared array of the GPU test, in 4-byte words (32 KB)
LOADS = 512       # 8-byte loads a thread on the GPU


def form10_pair(lane: int) -> int:
    """Form 10's pair (of its warp's 32) for ``lane`` (kernels/bpmax.cu at commit 901beed, reverted): (11 b mod 16)
    + (lane & 16) with b = (lane & 15) ^ (15 if lane >= 16 else 0), so that 3 x pair = b (mod 16).

    >>> sorted(form10_pair(l) for l in range(32)) == list(range(32))
    True
    >>> [3 * form10_pair(l) % 16 for l in (0, 1, 15, 16, 31)]
    [0, 1, 15, 15, 0]
    """
    b = (lane & 15) ^ (15 if lane >= 16 else 0)
    return (11 * b) % 16 + (lane & 16)


def patterns() -> dict:
    """Word offsets (4-byte words, even: 8-byte aligned) a lane reads, by pattern name.

    >>> p = patterns(); p["form 8 (pair l, rows 2 SR l)"][1], p["form 10 (pair p(l))"][1]
    (262, 2882)
    """
    return {
        "contiguous (word 2 l)": [2 * l for l in range(32)],
        "form 8 (pair l, rows 2 SR l)": [2 * SR * l for l in range(32)],
        "form 10 (pair p(l))": [2 * SR * form10_pair(l) for l in range(32)],
        # lanes l and l + 8 on one bank pair, other words: 2-way only where a wavefront holds lanes 0-15
        "lanes l, l + 8 on one bank pair": [2 * ((l & 7) + 8 * (l >> 4)) + 64 * ((l >> 3) & 1) for l in range(32)],
        # lanes l and l + 16 on one bank pair (form 8's shape): 2-way where a wavefront holds lanes 0-7 with 16-23
        "lanes l, l + 16 on one bank pair": [2 * (l & 15) + 64 * (l >> 4) for l in range(32)],
    }


def wavefronts(words: list, bit: int) -> int:
    """Wavefronts of a warp's 8-byte loads at ``words`` (4-byte word offsets, even) when a wavefront's lanes share
    lane bit ``bit`` (4: the half warps): per set of 16 lanes the most distinct 8-byte words on one bank pair.

    >>> wavefronts([2 * l for l in range(32)], 4), wavefronts([2 * (l & 15) + 64 * (l >> 4) for l in range(32)], 3)
    (2, 4)
    """
    total = 0
    for side in (0, 1):
        banks: dict = {}
        for lane, word in enumerate(words):
            if (lane >> bit) & 1 == side:
                banks.setdefault(word // 2 % 16, set()).add(word // 2)
        total += max(len(found) for found in banks.values())
    return total


KERNEL = r"""
extern "C" __global__ void lds64(const int* __restrict__ lane_words, unsigned long long* cycles, unsigned* sink) {
    __shared__ __align__(16) unsigned words[%(WORDS)d];
    for (int i = threadIdx.x; i < %(WORDS)d; i += blockDim.x) words[i] = i * 2654435761u;
    const int base = lane_words[threadIdx.x & 31];
    __syncthreads();
    unsigned x = 0, y = 0;
    long long start = clock64();
#pragma unroll 16
    for (int it = 0; it < %(LOADS)d; ++it) {
        const uint2 two = *reinterpret_cast<const uint2*>(words + ((base + 64 * it) & (%(WORDS)d - 1)));
        x ^= two.x; y += two.y;
    }
    __syncthreads();
    long long stop = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = stop - start;
    sink[blockIdx.x * blockDim.x + threadIdx.x] = x ^ y;
}
"""


def measure(words: list, repeats: int = 5) -> float:
    """Cycles per warp-wide 8-byte load with lane l at ``words[l]`` (the median block of ``repeats`` launches of
    132 blocks of 1,024 threads)."""
    import cupy as cp
    kernel = cp.RawKernel(KERNEL % dict(WORDS=WORDS, LOADS=LOADS), "lds64")
    lane_words = cp.asarray(words, dtype=cp.int32)
    cycles = cp.zeros(132, dtype=cp.uint64)
    sink = cp.zeros(132 * 1024, dtype=cp.uint32)
    found = []
    for _ in range(repeats + 1):   # the first launch warms up
        kernel((132,), (1024,), (lane_words, cycles, sink))
        cp.cuda.runtime.deviceSynchronize()
        found.append(float(cp.median(cycles.astype(cp.float64))))
    return sorted(found[1:])[len(found[1:]) // 2] / (LOADS * 32)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", default="docs/results/bpmax_lds64_banks.json")
    parser.add_argument("--repeats", type=int, default=5, help="timed launches a pattern (after one warm-up)")
    args = parser.parse_args()
    try:
        import cupy  # noqa: F401
        gpu = True
    except ImportError:
        gpu = False
    rows = []
    print("| pattern | wavefronts on paper: half warps (bit 4) / bit 3 / bit 2 / bit 1 / even-odd (bit 0) |"
          " measured cycles a warp's load |")
    print("|---|---|---|")
    for name, words in patterns().items():
        paper = [wavefronts(words, bit) for bit in (4, 3, 2, 1, 0)]
        cycles = measure(words, args.repeats) if gpu else None
        rows.append(dict(pattern=name, words=words, paper=paper, cycles=cycles))
        print(f"| {name} | {' / '.join(map(str, paper))} | {'-' if cycles is None else f'{cycles:.2f}'} |")
    save_json(dict(sr=SR, loads=LOADS, rows=rows), args.json)


if __name__ == "__main__":
    main()
