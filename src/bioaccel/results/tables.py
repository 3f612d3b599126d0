"""Writing rows as text: TSV (with a header) or JSON Lines from results or dicts, a chunk at a time,
so that the command line streams."""
import json
import time

import numpy as np

from .rows import to_frame
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
