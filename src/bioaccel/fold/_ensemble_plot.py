"""Dot plots of base-pair probabilities, as RNAfold's dot.ps draws them: above the diagonal a square for
each pair (i, j) of probability p, its area proportional to p (side sqrt(p)); below it the minimum free
energy structure's pairs as full squares. matplotlib, imported only when a plot is asked for.
"""
from ._plot import draw_panels

#: At most this many records are drawn, one panel each, in input order.
MAX_DOTPLOTS = 6
#: pairs below this probability are not drawn (RNAfold's dot plots use 1e-5 as well)
DOT_THRESHOLD = 1e-5


def _squares(pairs, sides):
    import numpy as np
    from matplotlib.collections import PolyCollection

    boxes = []
    for (x, y), s in zip(pairs, sides):
        h = s / 2
        boxes.append([(x - h, y - h), (x + h, y - h), (x + h, y + h), (x - h, y + h)])
    return PolyCollection(np.array(boxes).reshape(-1, 4, 2) if boxes else np.zeros((0, 4, 2)),
                          facecolors="black", edgecolors="none")


def plot_dotplot(results, path, handle=None) -> None:
    """Draw each :class:`~bioaccel.fold.EnsembleResult` as a dot plot (the first MAX_DOTPLOTS, one panel
    each) into ``path`` (.svg, .png or .pdf), written atomically (or into ``handle``, opened for
    ``path``). Rows are i and columns j, 1-based, i from the top as in RNAfold's dot.ps.

    >>> import io
    >>> from bioaccel.fold import ensemble
    >>> png = io.BytesIO()
    >>> plot_dotplot(ensemble(["GGGGAAACCCC", "GCGCUUCGGCGC"]), "dots.png", png)   # two panels, as PNG
    >>> png.getvalue()[:4]
    b'\x89PNG'
    """
    draw_panels(results, path, handle, MAX_DOTPLOTS, 5.0, _dot_panel)


def _dot_panel(ax, result):
    """One record's dot plot on ``ax``."""
    import numpy as np

    n = max(result.length, 1)
    P = result.bpp
    i, j = np.nonzero(P >= DOT_THRESHOLD) if P is not None and P.size else (np.zeros(0, int),) * 2
    ax.add_collection(_squares(zip((j + 1).tolist(), (i + 1).tolist()), np.sqrt(P[i, j]).tolist()))
    pt = np.asarray(result.pair_to)
    mi = np.flatnonzero(pt > np.arange(len(pt)))
    ax.add_collection(_squares(zip((mi + 1).tolist(), (pt[mi] + 1).tolist()), [0.95] * len(mi)))
    ax.plot([0.5, n + 0.5], [0.5, n + 0.5], color="0.6", linewidth=0.5)
    ax.set_xlim(0.5, n + 0.5)
    ax.set_ylim(n + 0.5, 0.5)
    ax.set_aspect("equal")
    ax.xaxis.tick_top()
    if result.length <= 60:
        ticks = np.arange(1, result.length + 1)
        ax.set_xticks(ticks, list(result.sequence), fontsize=6)
        ax.set_yticks(ticks, list(result.sequence), fontsize=6)
    title = f"{result.id}: {result.length} nt; probabilities above, MFE structure below"
    if result.ensemble_energy is not None:
        title += f"; ensemble {result.ensemble_energy:.2f} kcal/mol"
    ax.set_title(title, fontsize=9, loc="left", pad=16)
