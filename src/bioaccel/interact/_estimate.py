"""How long BPMax will take: the recurrence's work (:func:`~bioaccel.interact._model.work`) over the
measured rate of each variant, for the command line's announcement of a long run."""
from ..runtime.contract import check_params
from ..runtime.parallel import resolve_threads
from ._model import InteractParams, work
from ._variants import VARIANTS

#: Measured rate of the CPU variants, in units of :func:`work` per second and per thread
#: (bench/bpmax_cpu.py: 20 x 400 nt in 0.61 s on 2 threads of the development machine); the
#: recurrence as written is about 100x slower.
CPU_RATE_PER_THREAD = {"tiled": 2.5e10, "naive": 2.5e8}
#: Measured rate of the GPU variants, in units of :func:`work` per second on the whole device
#: (bench/bpmax_gpu.py on an H100: 23 x 20,000 nt, window 128, 8.7e11 units in 0.085 s; the screen of
#: transcripts of 200-20,000 nt runs at about 7e12, the banded-library variant at about 5e12).
GPU_RATE = {"fused": 7e12, "banded-library": 5e12}


def estimate_seconds(pairs, *, params: "InteractParams | None" = None, backend: str = "cpu",
                     variant: "str | None" = None, threads: int = 0) -> float:
    """Rough time of BPMax over ``pairs``, (query length, target length) tuples, with ``variant`` of
    ``backend`` (None: the backend's default) on ``threads`` CPU threads (0: every core).

    >>> round(estimate_seconds([(18, 10_000)], threads=2) / 3600, 1)     # hours, without a window
    2.4
    >>> round(estimate_seconds([(18, 10_000)], params=InteractParams(window_target=128), threads=2), 1)
    4.4
    """
    params = check_params(params, InteractParams)
    variant = VARIANTS.resolve(variant, backend)
    total = sum(float(work(M, N, *params.spans(M, N))) for M, N in pairs)
    if variant in GPU_RATE:
        return total / GPU_RATE[variant]
    return total / (CPU_RATE_PER_THREAD[variant] * resolve_threads(threads))
