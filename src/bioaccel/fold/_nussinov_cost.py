"""What a Nussinov fold costs before it starts: its time (sum of n^3 at a measured rate) and whether its
longest table fits in memory (refused before any sequence is folded)."""
from ..runtime.parallel import resolve_threads

#: Measured fill rates in n^3 per second (bench/nussinov_cpu.py, bench/nussinov_gpu.py): the CPU's per
#: thread (tiled: n = 4,000 in 0.47 s on 2 threads of the development machine), an H200's whole.
CPU_RATE_PER_THREAD = {"tiled": 6.5e10}
CPU_RATE_OTHER = 1.0e9                   # Li, Ranka & Sahni's CPU variants: ~60x slower than tiled
GPU_RATE = {"tiled": 8.0e13}
GPU_RATE_OTHER = 3.0e12
SERIAL_VARIANTS = ("naive", "cache")


def estimate_seconds(lengths, variant, *, backend="cpu", threads=0) -> float:
    """Rough time to fold sequences of these ``lengths`` with ``variant`` (a canonical name).

    >>> round(estimate_seconds([40_000] * 3, "tiled", threads=2) / 60)
    25
    """
    import numpy as np

    work = float(np.sum(np.asarray(lengths, dtype=np.float64) ** 3))     # a million lengths: no Python loop
    return work / RATE[backend](variant, threads)


def _cpu_rate(variant, threads):
    count = 1 if variant in SERIAL_VARIANTS else resolve_threads(threads)
    return CPU_RATE_PER_THREAD.get(variant, CPU_RATE_OTHER) * count


def _gpu_rate(variant, threads):
    return GPU_RATE.get(variant, GPU_RATE_OTHER)


#: backend -> the rate (n^3 per second) of a variant on so many threads
RATE = {"cpu": _cpu_rate, "gpu": _gpu_rate}


def check_sizes(lengths, params, variant, *, backend="cpu") -> None:
    """Refuse, before any sequence is folded, sequences whose longest will not fit in memory
    (ResourceError with the estimate and a way out) or whose scores would overflow 32-bit integers.

    >>> from bioaccel.fold import FoldParams
    >>> check_sizes([10, 200], FoldParams(), "tiled")
    """
    if not len(lengths):
        return
    n = max(lengths)
    params.cell_dtype(n)
    FITS[backend](n, params, variant)


def _fits_cpu(n, params, variant):
    from ._cpu import check_memory, table_bytes, table_name

    check_memory(table_bytes(n, params, variant), n, table_name(n, variant))


def _fits_gpu(n, params, variant):
    from ._gpu import check_fits

    check_fits(n, variant, params)


#: backend -> the check that the table of an n-long sequence fits there
FITS = {"cpu": _fits_cpu, "gpu": _fits_gpu}
