"""The memory a BPMax pair takes on the CPU, refused before it is taken, with the target window that
would fit (:mod:`bioaccel.runtime.memory`).

A pair holds its two single-strand tables (bands as wide as the windows, :mod:`._strands`; the dense
tables on the dense path), the fill's table (the ``tiled`` fill's :class:`~.tiled.StreamPlan`, or the
recurrence's whole 4-D table for ``naive``) and its window scores. :func:`check_sizes` refuses a whole
batch by its largest pair before any pair is computed; each pair is checked again before its fill.
"""
import dataclasses

from ..runtime.memory import require_memory
from ._model import InteractParams
from ._strands import band_bytes

#: Target windows tried, largest first, for the way out of a pair that does not fit.
WINDOWS = (4096, 2048, 1024, 512, 256, 128, 64, 32, 16)


def plan_bytes(M: int, N: int, params: InteractParams, variant: str, dense: bool = False) -> int:
    """Bytes of one pair of M x N nt on ``variant``: the S bands (the dense tables with ``dense``), the
    fill's table and the window scores (int64 units and float scores). A pair with an empty strand has
    no fill: its answer is the other strand's fold.

    >>> plan_bytes(0, 100, InteractParams(), "tiled")
    40016
    """
    L1, L2 = params.spans(M, N)
    side = band_bytes(M, M if dense else L1) + band_bytes(N, N if dense else L2)
    side += 16 * (M - L1 + 1) * (N - L2 + 1)
    if M == 0 or N == 0:
        return side
    if variant == "naive":
        from ._naive import naive_bytes

        return naive_bytes(M, N) + 4 * (M * M + N * N) + side   # and the dense S the recurrence reads
    from .tiled import StreamPlan

    return StreamPlan(M, N, params).nbytes + side


def window_hint(M: int, N: int, params: InteractParams, variant: str):
    """The way out of a pair that does not fit, given the memory that may be used (for
    :func:`~bioaccel.runtime.memory.require_memory`): the largest target window that fits.

    >>> window_hint(20, 100_000, InteractParams(), "tiled")(2 ** 30)
    '--window-target 256 (or smaller) would fit'
    """
    def hint(limit):
        if variant == "naive":
            return "the naive variant keeps all M^2 N^2 cells: use --variant tiled"
        for window in WINDOWS:
            if window >= N - 1:
                continue
            if plan_bytes(M, N, dataclasses.replace(params, window_target=window), variant) <= limit:
                return f"--window-target {window} (or smaller) would fit"
        return "the target is too long for its single-strand table: split it"

    return hint


def require_pair(M: int, N: int, params: InteractParams, variant: str, dense: bool = False) -> None:
    """Refuse (ResourceError) a pair that will not fit in memory, before anything of it is computed."""
    require_memory(plan_bytes(M, N, params, variant, dense), f"BPMax ({variant}) of {M} x {N} nt",
                   window_hint(M, N, params, variant))


def check_sizes(query_lengths, target_lengths, *, params: "InteractParams | None" = None, backend: str = "cpu",
                variant: "str | None" = None) -> None:
    """Refuse, before any pair is computed, a batch whose largest pair will not fit in memory: a
    ResourceError with the estimate and the target window that would fit (on the GPU the device's
    memory is checked where its launches are planned; only scores that overflow are refused here).

    >>> check_sizes([20, 18], [3000], params=InteractParams(window_target=128))
    >>> check_sizes([20], [1_000_000])
    Traceback (most recent call last):
    ...
    bioaccel.errors.ResourceError: BPMax (tiled) of 20 x 1,000,000 nt ...
    """
    from ..runtime.contract import check_params
    from ._variants import VARIANTS

    params = check_params(params, InteractParams)
    variant = VARIANTS.resolve(variant, backend)
    if not query_lengths or not target_lengths:
        return
    M, N = max(query_lengths), max(target_lengths)
    params.cell_dtype(M, N)
    if backend == "gpu":
        return
    count = len(query_lengths) * len(target_lengths)
    what = f"BPMax ({variant}) of {M:,} x {N:,} nt" + (f" (the largest of {count:,} pairs)" if count > 1 else "")
    require_memory(plan_bytes(M, N, params, variant), what, window_hint(M, N, params, variant))
