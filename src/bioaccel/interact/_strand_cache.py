"""The single-strand tables of the last few strands, kept: a target met by many queries (or a query
by many targets) is folded once.

Each table is S of one strand as a band (:func:`bioaccel.interact._strands.strand_band`) for one fold
model and width; the last RECENT_TABLES of at most RECENT_TABLE_BYTES each are kept, least recently
used out first. The tables are never written after they are made, so a kept one is shared as is.
"""
from collections import OrderedDict

import numpy as np

from ._strands import strand_band

#: Single-strand tables kept (each at most RECENT_TABLE_BYTES).
RECENT_TABLES = 4
RECENT_TABLE_BYTES = 2 ** 28

_recent = OrderedDict()  # (codes, fold params, width, dense) -> S band, least recently used first


def strand_table(codes: np.ndarray, fold_params, width: int, threads: int = 0, dense: bool = False) -> np.ndarray:
    """S over ``codes`` as a band of ``width`` (:func:`~bioaccel.interact._strands.strand_band`), from
    the kept tables when it is one of them.

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.fold import FoldParams
    >>> first = strand_table(encode("GGGAAACCC"), FoldParams.bpmax(), 9)
    >>> strand_table(encode("GGGAAACCC"), FoldParams.bpmax(), 9) is first
    True
    """
    key = (codes.tobytes(), fold_params, width, dense)
    table = _recent.get(key)
    if table is None:
        table = strand_band(codes, fold_params, width, threads, dense=dense)
        if table.nbytes <= RECENT_TABLE_BYTES:
            _recent[key] = table
            while len(_recent) > RECENT_TABLES:
                _recent.popitem(last=False)
    else:
        _recent.move_to_end(key)
    return table


def forget() -> None:
    """Drop every kept table (a benchmark timing the folds)."""
    _recent.clear()
