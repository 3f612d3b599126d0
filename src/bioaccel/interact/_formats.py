"""Writing interactions: TSV with a header or JSON Lines (same field names) through the shared
:class:`~bioaccel.results.tables.TableWriter`; bedGraph profiles are in _window."""
from ..results.tables import TableWriter

FORMATS = ("tsv", "json")


def columns(windowed_query, windowed_target, structure, sites=1) -> list:
    """The columns of a run: ``site`` when several are asked for, the window coordinates only where
    there are windows.

    >>> columns(False, True, False)
    ['query', 'target', 'score', 'query_fold', 'target_fold', 'gain', 'target_start', 'target_end']
    >>> columns(False, True, False, sites=3)[:4]
    ['query', 'target', 'site', 'score']
    """
    names = ["query", "target"] + (["site"] if sites > 1 else [])
    names += ["score", "query_fold", "target_fold", "gain"]
    if windowed_query:
        names += ["query_start", "query_end"]
    if windowed_query or windowed_target:
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


def interaction_writer(handle, names, fmt="tsv", header=True) -> TableWriter:
    """A TableWriter of Interactions: numbers through format_number, the pairs as :func:`pairs_text`
    in TSV and as ``[query, target]`` lists in JSON (``header=False``: rows only)."""
    return TableWriter(handle, names, fmt, formatters={"intermolecular": pairs_text}, header=header)
