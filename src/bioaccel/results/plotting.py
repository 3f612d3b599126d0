"""What every ``--plot`` shares: the formats we write, the check that matplotlib is there (made before
any work), a matplotlib figure without pyplot (no display, no global state), and the save. matplotlib is
imported only when a plot is asked for."""
from .output import open_output
from ..errors import InvalidParameter

PLOT_FORMATS = ("svg", "png", "pdf")


def plot_format(path):
    """The image format named by ``path``'s extension; InvalidParameter if it is not one we write.

    >>> plot_format("arcs.SVG")
    'svg'
    """
    ext = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else ""
    if ext not in PLOT_FORMATS:
        raise InvalidParameter(f"--plot {path}: the file name must end in "
                               f"{', '.join('.' + f for f in PLOT_FORMATS[:-1])} or .{PLOT_FORMATS[-1]}")
    return ext


def check_plot(path):
    """Everything a ``--plot`` needs, checked before any work: a known extension and matplotlib."""
    fmt = plot_format(path)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        raise InvalidParameter("--plot needs matplotlib, which is not installed: pip install 'bioaccel[plot]'") \
            from None
    return fmt


def new_figure(rows, columns, row_height):
    """A 10-inch-wide figure of ``rows`` x ``columns`` panels; returns (figure, 2-D array of axes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, row_height * rows), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, columns, squeeze=False)


def save_figure(fig, path, handle=None):
    """Write ``fig`` in the format ``path``'s extension names: into ``handle`` (a binary file an
    :class:`~bioaccel.results.output.Outputs` transaction opened) or, without one, to ``path`` atomically."""
    fmt = plot_format(path)
    if handle is not None:
        fig.savefig(handle, format=fmt)
        return
    with open_output(path, "wb", option="--plot") as out:
        fig.savefig(out, format=fmt)
