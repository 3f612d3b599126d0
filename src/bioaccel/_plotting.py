"""What every ``--plot`` shares: the formats we write, a matplotlib figure without pyplot (no display,
no global state), and an atomic save. matplotlib is imported only when a plot is asked for."""
from ._output import open_output
from .errors import InvalidParameter

PLOT_FORMATS = ("svg", "png", "pdf")


def plot_format(path):
    """The image format named by ``path``'s extension; InvalidParameter if it is not one we write."""
    ext = str(path).rsplit(".", 1)[-1].lower() if "." in str(path) else ""
    if ext not in PLOT_FORMATS:
        raise InvalidParameter(f"--plot {path}: the file name must end in {', '.join('.' + f for f in PLOT_FORMATS)}")
    return ext


def new_figure(rows, columns, row_height):
    """A 10-inch-wide figure of ``rows`` x ``columns`` panels; returns (figure, 2-D array of axes)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(10, row_height * rows), layout="constrained")
    FigureCanvasAgg(fig)
    return fig, fig.subplots(rows, columns, squeeze=False)


def save_figure(fig, path):
    """Write ``fig`` to ``path`` in the format its extension names, atomically."""
    fmt = plot_format(path)
    with open_output(path, "wb") as handle:
        fig.savefig(handle, format=fmt)
