"""Score distribution and P-value curve of motifs (matplotlib, imported only when a plot is asked for)."""
import itertools
import math

import numpy as np

from ..results.plotting import new_figure, plot_format, save_figure

MAX_PLOT_MOTIFS = 12
__all__ = ["MAX_PLOT_MOTIFS", "plot_distributions", "plot_format"]


def plot_distributions(items, path, handle=None):
    """``items``: (distribution with ``curve()`` and ``scores``/``mass`` or ``grid()``, marked score or
    None, title), the first :data:`MAX_PLOT_MOTIFS` drawn (an iterator is read no further). Two panels per motif: the probability of each score, and P(score >= s) on a log
    scale with its certified upper bound. Written atomically to ``path`` (.svg, .png or .pdf), or
    into ``handle`` (a binary file opened for ``path``).

    >>> import os, tempfile
    >>> from bioaccel.motif import PSSM
    >>> pssm = PSSM(np.eye(4)[:3])
    >>> path = os.path.join(tempfile.mkdtemp(), "dist.svg")
    >>> plot_distributions([(pssm.distribution(), 2.0, "identity")], path)
    >>> os.path.getsize(path) > 0
    True
    """
    plot_format(path)
    items = list(itertools.islice(items, MAX_PLOT_MOTIFS))
    fig, axes = new_figure(max(1, len(items)), 2, 2.6)
    for (left, right), (dist, mark, title) in zip(axes, items):
        grid = dist.grid() if hasattr(dist, "grid") else dist
        scores = grid.scores
        left.plot(scores, grid.mass / max(grid.step, 1e-300), lw=0.8, color="tab:blue")
        left.set_xlabel("score")
        left.set_ylabel("density")
        left.set_title(title, fontsize=9, loc="left")
        lo = np.array([grid.pvalue_bounds(s)[0] for s in scores])
        hi = np.array([grid.pvalue_bounds(s)[1] for s in scores])
        right.fill_between(scores, np.maximum(lo, 1e-300), np.maximum(hi, 1e-300), color="tab:orange",
                           alpha=0.35, lw=0, label="certified bounds")
        right.plot(scores, np.maximum(hi, 1e-300), lw=0.8, color="tab:red", label="P(score >= s)")
        right.set_yscale("log")
        right.set_ylim(max(hi[hi > 0].min() if np.any(hi > 0) else 1e-12, 1e-300) / 2, 1.5)
        right.set_xlabel("score s")
        right.set_ylabel("P-value")
        if mark is not None and math.isfinite(mark):
            for ax in (left, right):
                ax.axvline(mark, color="black", lw=0.7, ls="--")
        right.legend(fontsize=7, loc="lower left")
    save_figure(fig, path, handle)
