"""Writing interactions: TSV with a header or JSON Lines (same field names) through the shared
:class:`~bioaccel.results.tables.TableWriter`; bedGraph profiles are in _window."""
from ..results.tables import TableWriter


def interaction_columns(params, *, structure: bool = False, sites: int = 1) -> list:
    """The columns of a run with ``params`` (:class:`~bioaccel.interact.InteractParams`): ``site`` when
    several are asked for, the window coordinates only where there are windows, the structure and the
    intermolecular pairs with ``structure``.

    >>> from bioaccel.interact import InteractParams
    >>> interaction_columns(InteractParams(window_target=128))
    ['query', 'target', 'score', 'query_fold', 'target_fold', 'gain', 'target_start', 'target_end']
    >>> interaction_columns(InteractParams(), sites=3)[:4]
    ['query', 'target', 'site', 'score']
    """
    windowed_query = params.window_query is not None
    names = ["query", "target"] + (["site"] if sites > 1 else [])
    names += ["score", "query_fold", "target_fold", "gain"]
    if windowed_query:
        names += ["query_start", "query_end"]
    if windowed_query or params.window_target is not None:
        names += ["target_start", "target_end"]
    if structure:
        names += ["structure", "intermolecular"]
    return names


def pairs_text(pairs) -> str:
    """Intermolecular pairs in TSV: ``query:target`` (0-based), comma-separated; ``-`` for none.

    >>> pairs_text([[0, 8], [1, 7]]), pairs_text([])
    ('0:8,1:7', '-')
    """
    return ",".join(f"{q}:{t}" for q, t in pairs) or "-"


def interaction_writer(handle, names, fmt: str = "tsv", header: bool = True) -> TableWriter:
    """A TableWriter of Interactions in columns ``names`` (:func:`interaction_columns`): numbers through
    format_number, the pairs as :func:`pairs_text` in TSV and as ``[query, target]`` lists in JSON
    (``header=False``: rows only; ``fmt``: "tsv" or "json").

    >>> import io
    >>> from bioaccel.interact import bpmax
    >>> out = io.StringIO()
    >>> writer = interaction_writer(out, ["query", "target", "score", "intermolecular"])
    >>> writer.header()
    >>> writer.write(bpmax("GGG", ("t", "AAAAAACCC"), structure=True))
    >>> print(out.getvalue(), end="")
    query	target	score	intermolecular
    seq1	t	9	0:8,1:7,2:6
    """
    return TableWriter(handle, names, fmt, formatters={"intermolecular": pairs_text}, header=header)
