"""What a Turner fold costs before it starts: its time and whether its tables fit in memory.

The time of one n-long fold is ``A n^2 + B n^3`` thread-seconds: the interior loops (at most 30
unpaired bases, so a bounded number per cell) and the multiloop's splits. A and B were fitted to
``bench/turner.py`` on the 2-core development machine (1,500 nt in 0.64 s and 5,000 nt in 11.6 s on
two threads).
"""
from ..runtime.memory import require_memory
from ..runtime.parallel import resolve_threads

#: thread-seconds per n^2 and per n^3 (see the module's docstring)
CELL_SECONDS, SPLIT_SECONDS = 4.1e-7, 1.0e-10


def estimate_seconds(lengths, *, threads=0) -> float:
    """Rough time to fold sequences of these ``lengths`` on ``threads`` cores (0: all).

    >>> round(estimate_seconds([5_000], threads=2))
    11
    """
    import numpy as np

    n = np.asarray(lengths, dtype=np.float64)                            # a million lengths: no Python loop
    return float(np.sum(CELL_SECONDS * n ** 2 + SPLIT_SECONDS * n ** 3)) / resolve_threads(threads)


def check_sizes(lengths) -> None:
    """Refuse, before any sequence is folded, a longest sequence whose tables will not fit in memory or
    that the fill does not take (ResourceError, InvalidParameter).

    >>> check_sizes([100, 2_000])
    """
    from ._turner_cpu import _check_length, table_bytes

    if not lengths:
        return
    n = max(lengths)
    _check_length(n, "the longest sequence")
    require_memory(table_bytes(n), f"folding a sequence of length {n:,} with the Turner model",
                   "fold shorter pieces (a window), or on a machine with more memory")
