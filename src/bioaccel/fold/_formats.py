"""Writing folded structures: vienna (RNAfold-like), ct, bpseq and JSON Lines, for every model.

What depends on the model (the value in the vienna layout, the ct header, the JSON columns) is asked of
the result's model class (``bioaccel.fold.MODELS``). Positions in ct and bpseq are 1-based, 0 meaning
unpaired, as those formats define them. Writers take a chunk of results at a time (the command line
streams in chunks). Pure Python at import (NumPy and the table writer load on first write), so that
the command line reads FORMATS at once.
"""
from ._models import MODELS

FORMATS = ("vienna", "ct", "bpseq", "json")


def vienna(result) -> str:
    """RNAfold's layout: the header (``>id`` and the description, as read), the sequence, then the
    dot-bracket, a space and the value in brackets.

    >>> from bioaccel.fold import nussinov
    >>> print(vienna(nussinov("GGGAAAUCC")[0]), end="")
    >seq1
    GGGAAAUCC
    (((...))) ( 3)
    """
    value = MODELS.model_class(result.model).vienna_value(result)
    header = f"{result.id} {result.description}" if result.description else result.id
    return f">{header}\n{result.sequence}\n{result.structure} ({value})\n"


def _partners_1based(result):
    import numpy as np

    return (np.asarray(result.pair_to, dtype=np.int64) + 1).tolist()  # -1 (unpaired) becomes 0


def ct(result) -> str:
    """Connect format: the model's header (``length id``), then per base ``i base i-1 i+1 partner i``
    (i+1 is 0 on the last)."""
    n = result.length
    lines = [MODELS.model_class(result.model).ct_header(result)]
    for i, (base, partner) in enumerate(zip(result.sequence, _partners_1based(result)), start=1):
        lines.append(f"{i:5d} {base} {i - 1:5d} {(i + 1) if i < n else 0:5d} {partner:5d} {i:5d}")
    return "\n".join(lines) + "\n"


def bpseq(result) -> str:
    """BPSEQ: a ``# id`` comment line, then per base ``i base partner``."""
    lines = [f"# {result.id}"]
    for i, (base, partner) in enumerate(zip(result.sequence, _partners_1based(result)), start=1):
        lines.append(f"{i} {base} {partner}")
    return "\n".join(lines) + "\n"


TEXT_FORMATS = {"vienna": vienna, "ct": ct, "bpseq": bpseq}


class FoldWriter:
    """Writes chunks of FoldResult in one of FORMATS (json: JSON Lines through the shared table writer,
    the columns of the first result's model).

    >>> import io
    >>> from bioaccel.fold import nussinov
    >>> out = io.StringIO()
    >>> FoldWriter(out, "json").write(nussinov("GGGAAAUCC"))
    >>> out.getvalue()[:62]
    '{"id": "seq1", "description": "", "sequence": "GGGAAAUCC", "st'
    """

    def __init__(self, handle, fmt: str = "vienna"):
        self.handle = handle
        self.text = TEXT_FORMATS.get(fmt)
        self.table = None

    def write(self, results) -> None:
        if self.text is not None:
            self.handle.write("".join(self.text(r) for r in results))
            return
        results = list(results)
        if self.table is None and results:
            from ..results.tables import TableWriter

            columns = MODELS.model_class(results[0].model).json_columns
            self.table = TableWriter(self.handle, columns, "json")
        if self.table is not None:
            self.table.write(results)
