"""Writing folded structures: vienna (RNAfold-like), ct, bpseq and JSON Lines.

Positions in ct and bpseq are 1-based, 0 meaning unpaired, as those formats define them. Writers take
a chunk of results at a time (the command line streams in chunks).
"""
import numpy as np

from ..results.tables import TableWriter
from ..results.values import format_number

JSON_COLUMNS = ("id", "sequence", "structure", "score", "length", "min_loop", "pairs", "variant", "backend")


def vienna(result) -> str:
    """RNAfold's layout: ``>id``, the sequence, then the dot-bracket, a space and ``( score)``.

    >>> from bioaccel.fold import nussinov
    >>> print(vienna(nussinov("GGGAAAUCC")[0]), end="")
    >seq1
    GGGAAAUCC
    (((...))) ( 3)
    """
    return f">{result.id}\n{result.sequence}\n{result.structure} ({format_number(result.score):>2})\n"


def _partners_1based(result):
    return (np.asarray(result.pair_to, dtype=np.int64) + 1).tolist()  # -1 (unpaired) becomes 0


def ct(result) -> str:
    """Connect format: ``length id``, then per base ``i base i-1 i+1 partner i`` (i+1 is 0 on the last)."""
    n = result.length
    lines = [f"{n:5d}  {result.id}"]
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
FORMATS = ("vienna", "ct", "bpseq", "json")


class FoldWriter:
    """Writes chunks of FoldResult in one of FORMATS (json: JSON Lines through the shared table writer)."""

    def __init__(self, handle, fmt="vienna"):
        self.handle = handle
        self.text = TEXT_FORMATS.get(fmt)
        self.table = None if self.text else TableWriter(handle, JSON_COLUMNS, "json")

    def write(self, results):
        if self.table is not None:
            self.table.write(results)
        else:
            self.handle.write("".join(self.text(r) for r in results))
