"""Results as rows, the same way in every family.

Each family's result is a dataclass with :class:`Result` mixed in: ``to_dict()`` gives its fields as
plain Python values, :func:`to_frame` turns a list of results into a pandas DataFrame, and
:class:`TableWriter` writes TSV (with a header) or JSON Lines from such frames, a chunk at a time, so
that the command line streams. :func:`format_number` is the one number formatter of every text output.
pandas is imported only when a frame is made.
"""
import dataclasses
import json
import math
import time

import numpy as np


def format_number(value, digits=None) -> str:
    """A number as text: whole numbers without a decimal point, others as the shortest text that
    reads back to the same float (or ``digits`` significant digits); missing values as ``NA``.

    >>> [format_number(x) for x in (3, 3.0, 2.5, 0.1 + 0.2, None, float("inf"))]
    ['3', '3', '2.5', '0.30000000000000004', 'NA', 'inf']
    >>> format_number(1.0014e-04, digits=3)
    '0.0001'
    """
    if value is None:
        return "NA"
    if isinstance(value, (bool, np.bool_)):
        return str(bool(value))
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    value = float(value)
    if math.isnan(value):
        return "NA"
    if math.isinf(value):
        return "inf" if value > 0 else "-inf"
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return f"{value:.{digits}g}" if digits else repr(value)


def shown(value) -> str:
    """A value in an error message, as a person would write it (never a NumPy repr): numbers as
    :func:`format_number` writes them, but NaN as ``nan``; anything else as its ``repr``.

    >>> shown(0.0), shown(float("nan")), shown(1e-4), shown(np.float64(2.5)), shown("x")
    ('0', 'nan', '0.0001', '2.5', "'x'")
    """
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        return repr(value)
    if math.isnan(value):
        return "nan"
    return format_number(value)


def plain(value):
    """``value`` as plain Python for JSON: NumPy scalars and arrays unwrapped, NaN as None.

    >>> plain(np.int16(3)), plain(np.array([1, 2])), plain(float("nan"))
    (3, [1, 2], None)
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


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


def _cell(value, formatters, name):
    if name in formatters:
        return formatters[name](value)
    if isinstance(value, (float, int, np.number)) and not isinstance(value, bool):
        return format_number(value)
    if value is None:
        return "NA"
    return str(value)


class TableWriter:
    r"""TSV with a header line, or JSON Lines with the same field names, written a chunk at a time.

    ``formatters`` maps a column to a function giving its TSV text (JSON keeps the plain values);
    ``header=False``: rows only (a part of a table whose header is written elsewhere).

    >>> import io
    >>> out = io.StringIO()
    >>> w = TableWriter(out, ["id", "score"], "tsv")
    >>> w.write([{"id": "a", "score": 2.0}, {"id": "b", "score": 2.5}])
    >>> out.getvalue().splitlines()
    ['id\tscore', 'a\t2', 'b\t2.5']
    """

    FORMATS = ("tsv", "json")

    def __init__(self, handle, columns, fmt="tsv", formatters=None, header=True):
        self.handle, self.columns, self.format = handle, list(columns), fmt
        self.formatters = formatters or {}
        self._header = fmt == "tsv" and header

    def header(self):
        """Write the TSV header now (also for a run that produces no row)."""
        if self._header:
            self.handle.write("\t".join(self.columns) + "\n")
            self._header = False

    def write(self, results):
        """Write the rows of ``results`` (Result objects or dicts)."""
        results = list(results)
        self.header()
        if not results:
            return
        # object columns: a chunk mixing 21 and 52.5 keeps 21 an int (JSON text must not depend on chunking)
        frame = to_frame(results, self.columns, dtype=object)
        records = frame.to_dict(orient="records")
        if self.format == "json":
            text = "".join(json.dumps({k: plain(v) for k, v in r.items()}) + "\n" for r in records)
        else:
            text = "".join("\t".join(_cell(plain(r[c]), self.formatters, c) for c in self.columns) + "\n"
                           for r in records)
        self.handle.write(text)


def chunked(items, size=1000, seconds=0.5):
    """Lists of consecutive ``items``: at most ``size`` each, and a list is handed out as soon as
    ``seconds`` have passed since its first item arrived, so that slow items still stream.

    >>> [len(c) for c in chunked(range(5), size=2)]
    [2, 2, 1]
    """
    chunk, first = [], 0.0
    for item in items:
        if not chunk:
            first = time.monotonic()
        chunk.append(item)
        if len(chunk) >= size or time.monotonic() - first >= seconds:
            yield chunk
            chunk = []
    if chunk:
        yield chunk
