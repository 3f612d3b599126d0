"""Windowed BPMax output: the per-position profile along the target, and its bedGraph."""
import numpy as np

from ..results.values import format_number


def position_profile(window_best, window, length):
    """Best score of any window covering each position of a strand of ``length``.

    ``window_best[t]``: score of the window [t, t + window) (0-based, original orientation), for
    t = 0 .. length - window. Returns a float array of ``length`` values.

    >>> position_profile([1, 3, 2], 2, 4).tolist()
    [1.0, 3.0, 3.0, 2.0]
    >>> position_profile([0], 0, 0).tolist()        # an empty strand has no position
    []
    """
    if length == 0:
        return np.zeros(0)
    window_best = np.asarray(window_best, dtype=np.float64)
    pad = np.full(window - 1, -np.inf)
    padded = np.concatenate((pad, window_best, pad))
    return np.lib.stride_tricks.sliding_window_view(padded, window).max(axis=1)[:length]


def write_bedgraph(handle, interactions):
    """One bedGraph track per interaction: target id, 0-based half-open run, best score covering it.

    Runs of equal value are merged. Coordinates are on the target as given (not reversed).

    >>> import io
    >>> from bioaccel.interact import InteractParams, bpmax
    >>> out = io.StringIO()
    >>> write_bedgraph(out, bpmax("GGG", ("t", "AAAAAACCC"), params=InteractParams(window_target=3)))
    >>> print(out.getvalue(), end="")
    track type=bedGraph name="seq1 vs t" description="BPMax best window score (window 4 nt)"
    t	0	3	0
    t	3	4	3
    t	4	5	6
    t	5	9	9
    """
    for item in interactions:
        handle.write(f'track type=bedGraph name="{item.query} vs {item.target}" '
                     f'description="BPMax best window score (window {item.target_window} nt)"\n')
        profile = item.profile()
        start = 0
        for pos in range(1, len(profile) + 1):
            if pos == len(profile) or profile[pos] != profile[start]:
                handle.write(f"{item.target}\t{start}\t{pos}\t{format_number(profile[start])}\n")
                start = pos
