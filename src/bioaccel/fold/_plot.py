"""Arc diagrams of folded structures (matplotlib, imported only when a plot is asked for)."""
from ..results.plotting import new_figure, plot_format, save_figure

#: At most this many records are drawn, one panel each, in input order.
MAX_PLOT_RECORDS = 20
__all__ = ["MAX_PLOT_RECORDS", "plot_arcs", "plot_format"]


def _arcs(result, points=33):
    """One polyline per base pair: a half circle from i to j above the axis (positions 1-based)."""
    import numpy as np

    pairs = result.base_pairs()
    theta = np.linspace(np.pi, 0.0, points)
    arcs = []
    for i, j in pairs:
        centre, radius = (i + j) / 2 + 1, (j - i) / 2
        arcs.append(np.column_stack([centre + radius * np.cos(theta), radius * np.sin(theta)]))
    return arcs


def plot_arcs(results, path, handle=None) -> None:
    """Draw each result as an arc diagram, one panel per record (the first MAX_PLOT_RECORDS), titled with
    its length, pairs and value, into ``path`` (.svg, .png or .pdf), written atomically (or into
    ``handle``, opened for ``path``).

    >>> import io
    >>> from bioaccel.fold import nussinov
    >>> image = io.BytesIO()
    >>> plot_arcs(nussinov("GGGAAAUCC"), "arcs.svg", image)
    >>> b"<svg" in image.getvalue()[:400]
    True
    """
    draw_panels(results, path, handle, MAX_PLOT_RECORDS, 2.4, _arc_panel)


def _arc_panel(ax, result):
    """One record's arc diagram on ``ax``."""
    import numpy as np
    from matplotlib.collections import LineCollection

    n = max(result.length, 1)
    arcs = _arcs(result)
    if arcs:
        ax.add_collection(LineCollection(arcs, linewidths=0.8, colors="tab:blue"))
    height = max((a[:, 1].max() for a in arcs), default=1.0)
    ax.set_xlim(0.5, n + 0.5)
    ax.set_ylim(0, height * 1.08 + 0.5)
    ax.set_yticks([])
    for side in ("left", "right", "top"):
        ax.spines[side].set_visible(False)
    if result.length <= 80:
        ax.set_xticks(np.arange(1, result.length + 1), list(result.sequence), fontsize=7)
    else:
        ax.set_xlabel("position")
    ax.set_title(f"{result.id}: {result.length} nt, {result.pairs} pairs, {result.value_name} {result.value}",
                 fontsize=9, loc="left")


def draw_panels(results, path, handle, most: int, row_height: float, draw) -> None:
    """Draw the first ``most`` records of ``results`` one panel each, in one column of panels
    ``row_height`` inches high, by ``draw(ax, result)``, and save the figure into ``path`` (.svg, .png
    or .pdf) atomically, or into ``handle``; no records give one blank panel.

    >>> import io
    >>> image = io.BytesIO()
    >>> draw_panels([], "none.svg", image, 3, 1.0, None)
    >>> b"<svg" in image.getvalue()[:400]
    True
    """
    plot_format(path)
    results = list(results)[:most]
    fig, axes = new_figure(max(1, len(results)), 1, row_height)
    axes = axes[:, 0]
    for ax, result in zip(axes, results):
        draw(ax, result)
    if not results:
        axes[0].set_axis_off()
    save_figure(fig, path, handle)
