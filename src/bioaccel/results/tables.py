"""Writing rows as text: TSV (with a header) or JSON Lines from results or dicts, a chunk at a time,
so that the command line streams. Plain Python: a command that writes a table does not import pandas
(a few tenths of a second of its start)."""
import json
import math
import time

import numpy as np

from .rows import Result
from .values import format_number, plain


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
        # each value as it is (a chunk mixing 21 and 52.5 keeps 21 an int: JSON text must not depend on
        # chunking); a column a row lacks is missing (NA, null), as in to_frame's tables
        rows = [self._row(r) for r in results]
        if self.format == "json":
            text = "".join(json.dumps({c: plain(r.get(c, math.nan)) for c in self.columns}) + "\n" for r in rows)
        else:
            text = "".join("\t".join(_cell(plain(r.get(c, math.nan)), self.formatters, c) for c in self.columns)
                           + "\n" for r in rows)
        self.handle.write(text)


    def _row(self, result) -> dict:
        if not isinstance(result, Result):
            return dict(result)
        row = result.to_dict()
        for column in self.columns:     # a field kept out of tables by default (a record's description)
            if column not in row and hasattr(result, column):   # is written where a writer asks for it
                row[column] = getattr(result, column)
        return row


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
