"""Writing folded structures: vienna (RNAfold-like), ct, bpseq and JSON Lines.

Positions in ct and bpseq are 1-based, 0 meaning unpaired, as those formats define them.
"""
import json

import numpy as np


def format_score(score):
    """An integer score as an integer, any other with the decimals it needs (shortest round trip)."""
    if float(score).is_integer():
        return str(int(score))
    return repr(float(score))


def write_vienna(handle, result):
    """RNAfold's layout: ``>id``, the sequence, then the dot-bracket, a space and ``( score)``."""
    handle.write(f">{result.id}\n{result.sequence}\n{result.structure} ({format_score(result.score):>2})\n")


def _partners_1based(result):
    return (np.asarray(result.pair_to, dtype=np.int64) + 1).tolist()  # -1 (unpaired) becomes 0


def write_ct(handle, result):
    """Connect format: ``length id``, then per base ``i base i-1 i+1 partner i`` (i+1 is 0 on the last)."""
    n = result.length
    lines = [f"{n:5d}  {result.id}"]
    for i, (base, partner) in enumerate(zip(result.sequence, _partners_1based(result)), start=1):
        lines.append(f"{i:5d} {base} {i - 1:5d} {(i + 1) if i < n else 0:5d} {partner:5d} {i:5d}")
    handle.write("\n".join(lines) + "\n")


def write_bpseq(handle, result):
    """BPSEQ: a ``# id`` comment line, then per base ``i base partner``."""
    lines = [f"# {result.id}"]
    for i, (base, partner) in enumerate(zip(result.sequence, _partners_1based(result)), start=1):
        lines.append(f"{i} {base} {partner}")
    handle.write("\n".join(lines) + "\n")


def write_json(handle, result):
    """One JSON object per line."""
    record = {
        "id": result.id, "sequence": result.sequence, "structure": result.structure,
        "score": result.score, "length": result.length, "min_loop": result.min_loop,
        "pairs": result.pairs, "variant": result.variant, "backend": result.backend,
    }
    handle.write(json.dumps(record) + "\n")


WRITERS = {"vienna": write_vienna, "ct": write_ct, "bpseq": write_bpseq, "json": write_json}
FORMATS = tuple(WRITERS)
