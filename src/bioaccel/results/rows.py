"""Results as rows, the same way in every family.

Each family's result is a frozen dataclass with :class:`Result` mixed in: ``to_dict()`` gives its
fields as plain Python values and :func:`to_frame` turns a list of results into a pandas DataFrame.
pandas is imported only when a frame is made.
"""
import dataclasses

from .values import plain


class Result:
    """Mixed into every result dataclass: ``to_dict()`` for tables, JSON and DataFrames.

    Fields whose metadata says ``{"table": False}`` (arrays, long lists) stay out of ``to_dict()``;
    the properties named in ``DERIVED`` come in after the fields.
    """

    DERIVED = ()

    def to_dict(self) -> dict:
        row = {f.name: plain(getattr(self, f.name)) for f in dataclasses.fields(self)
               if f.metadata.get("table", True)}
        row.update((name, plain(getattr(self, name))) for name in self.DERIVED)
        return row


def hidden(**options):
    """A dataclass field left out of ``to_dict()`` and tables (arrays, per-position data)."""
    return dataclasses.field(metadata={"table": False}, **options)


def to_frame(results, columns=None, dtype=None):
    """A pandas DataFrame with one row per result (``to_dict()``), optionally only ``columns`` (and
    with ``dtype=object``, every value kept as it is).

    >>> @dataclasses.dataclass
    ... class Hit(Result):
    ...     name: str
    ...     score: float
    >>> to_frame([Hit("a", 1.5), Hit("b", 2.0)]).shape
    (2, 2)
    """
    import pandas as pd

    rows = [r.to_dict() if isinstance(r, Result) else dict(r) for r in results]
    frame = pd.DataFrame(rows, columns=columns, dtype=dtype) if rows else pd.DataFrame(columns=columns)
    if columns is not None:
        frame = frame[list(columns)]
    return frame
