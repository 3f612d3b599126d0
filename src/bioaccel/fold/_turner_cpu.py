"""Turner 2004 minimum free energy on the CPU: one sequence (:func:`mfe`: tile-diagonal by
tile-diagonal, the tiles of each spread over the cores when it is long) or many (:func:`mfe_many`: each
whole on one core, the cores balanced by cost). The recurrences, the tables' layout and the tie-break
are in docs/turner.md and :mod:`._turner_fill`; the traceback in :mod:`._turner_traceback`.
"""
import heapq

import numpy as np
from numba import get_num_threads, njit, prange

from ..errors import InternalError, InvalidParameter
from ..runtime.memory import require_memory
from ._turner_fill import exterior, fill_tile
from ._turner_tables import INFINITE as INF
from ._turner_tables import MAX_LENGTH, kernel_inputs, table_codes
from ._turner_traceback import trace_structure

#: Tile edge of the fill (tests pass small tiles so that short sequences cross many tiles).
TILE = 64
#: Shorter sequences are filled on the calling thread: each tile-diagonal ends with a barrier, and below
#: this length the barriers cost more than the second core saves (200 nt: 16 ms serial, 84 ms with two
#: threads on a loaded 2-core machine).
PARALLEL_LENGTH = 500


@njit(cache=True, nogil=True, parallel=True)
def _parallel(E, lxc, no_lp, S_all, starts, worker_start, worker_items, tile, diag, c, fm, m2, energies,
              pair_to_all):
    """The one parallel kernel (one, because each compiles everything it calls over again). Worker w
    takes the items worker_items[worker_start[w]:worker_start[w + 1]]:

    - ``diag >= 0``: item t is tile (t, t + diag) of the one sequence S_all, in the tables c, fm, m2;
    - ``diag < 0``: item s is sequence s, S_all[starts[s]:starts[s + 1]], folded whole on this core in
      tables of its own: its energy to energies[s], its structure to pair_to_all.
    """
    for w in prange(worker_start.shape[0] - 1):
        for q in range(worker_start[w], worker_start[w + 1]):
            item = worker_items[q]
            if diag >= 0:
                fill_tile(E, lxc, S_all[starts[0]:starts[1]], no_lp, c, fm, m2, item, item + diag, tile)
                continue
            lo = starts[item]
            n = starts[item + 1] - lo
            if n == 0:
                continue
            S = S_all[lo:lo + n]
            cs = np.empty((n, n), dtype=np.int32)
            fms = np.empty((n, n), dtype=np.int32)
            m2s = np.empty((n, n), dtype=np.int32)
            for i in range(n):
                for j in range(n):
                    cs[i, j] = INF
                    fms[i, j] = INF
                    m2s[i, j] = INF
            tiles = (n + tile - 1) // tile
            for d in range(tiles):
                for t in range(tiles - d):
                    fill_tile(E, lxc, S, no_lp, cs, fms, m2s, t, t + d, tile)
            f = exterior(E, S, cs)
            energies[item] = f[n]
            pair_to_all[lo:lo + n] = trace_structure(E, lxc, S, no_lp, cs, fms, m2s, f)


def table_bytes(n):
    """Memory the fill of an n-long sequence takes: three n x n int32 tables."""
    return 3 * 4 * n * n


def _check_traced(pair_to, what):
    if len(pair_to) and pair_to[0] == -2:
        raise InternalError(f"the traceback of {what} found a value no case of the recurrence reproduces")
    return pair_to


def _check_length(n, what):
    if n > MAX_LENGTH:
        raise InvalidParameter(f"{what} has {n:,} bases; the fold accepts at most {MAX_LENGTH:,} (its int32 "
                               "tables keep every energy far from their infinity up to there)")


def _check_tile(tile):
    if isinstance(tile, bool) or not isinstance(tile, (int, np.integer)) or tile < 1:
        raise InvalidParameter(f"tile must be a whole number >= 1, got {tile!r}")
    return int(tile)


_NO_TABLE = np.zeros((0, 0), dtype=np.int32)
_NO_ENERGY = np.zeros(0, dtype=np.int64)
_NO_PAIRS = np.zeros(0, dtype=np.int64)


def mfe(codes, model=None, *, tile=TILE, parallel=None):
    """Minimum free energy (int, dcal/mol) and one optimal structure (``pair_to``, int64: the partner of
    each position, -1 when unpaired) of one sequence of bioaccel.inputs.alphabet codes.

    ``parallel``: None (default) spreads each tile-diagonal's tiles over the cores for sequences of
    PARALLEL_LENGTH or more; True or False forces it. The result does not depend on it, nor on ``tile``.

    >>> from bioaccel.inputs.alphabet import encode
    >>> energy, pair_to = mfe(encode("GGGGAAACCCC"))
    >>> energy, pair_to.tolist()
    (-450, [10, 9, 8, 7, -1, -1, -1, 3, 2, 1, 0])
    >>> from bioaccel.fold import TurnerModel
    >>> mfe(encode(""))[0], mfe(encode("GGGGAAACCCCA"), TurnerModel(no_gu=True), tile=3)[0]
    (0, -620)
    """
    E, lxc, no_lp = kernel_inputs(model)
    tile = _check_tile(tile)
    S = np.ascontiguousarray(table_codes(codes))
    n = S.shape[0]
    if n == 0:
        return 0, np.zeros(0, dtype=np.int64)
    _check_length(n, "the sequence")
    require_memory(table_bytes(n), f"folding a sequence of length {n:,} with the Turner model",
                   "fold shorter sequences (or fewer at a time)")
    c = np.full((n, n), INF, dtype=np.int32)
    fm = np.full((n, n), INF, dtype=np.int32)
    m2 = np.full((n, n), INF, dtype=np.int32)
    tiles = (n + tile - 1) // tile
    if parallel is None:
        parallel = n >= PARALLEL_LENGTH and get_num_threads() > 1
    starts = np.array([0, n], dtype=np.int64)
    for d in range(tiles):
        if parallel:
            workers = max(1, min(get_num_threads(), tiles - d))
            worker_start = np.linspace(0, tiles - d, workers + 1).round().astype(np.int64)
            _parallel(E, lxc, no_lp, S, starts, worker_start, np.arange(tiles - d, dtype=np.int64), tile, d,
                      c, fm, m2, _NO_ENERGY, _NO_PAIRS)
        else:
            for t in range(tiles - d):
                fill_tile(E, lxc, S, no_lp, c, fm, m2, t, t + d, tile)
    f = exterior(E, S, c)
    pair_to = trace_structure(E, lxc, S, no_lp, c, fm, m2, f)
    return int(f[n]), _check_traced(pair_to, f"a sequence of length {n:,}")


def _deal(lengths, workers):
    """``(worker_start, worker_items)``: longest first onto the least loaded core (cost n^3).

    >>> start, items = _deal(np.array([5, 1, 9, 3]), 2)
    >>> [items[start[w]:start[w + 1]].tolist() for w in range(2)]
    [[2], [0, 3, 1]]
    """
    loads = [(0, w) for w in range(workers)]
    assigned = [[] for _ in range(workers)]
    for s in np.argsort(-lengths, kind="stable").tolist():
        load, w = heapq.heappop(loads)
        assigned[w].append(s)
        heapq.heappush(loads, (load + int(lengths[s]) ** 3 + 1, w))
    worker_start = np.zeros(workers + 1, dtype=np.int64)
    worker_start[1:] = np.cumsum([len(a) for a in assigned])
    items = np.array([s for a in assigned for s in a], dtype=np.int64)
    return worker_start, items


def mfe_many(codes_list, model=None, *, tile=TILE):
    """Fold many (short) sequences, each whole on one core, the cores balanced by cost (n^3).

    Returns a list of ``(energy, pair_to)`` in input order, as :func:`mfe` gives for each.

    >>> from bioaccel.inputs.alphabet import encode
    >>> [e for e, _ in mfe_many([encode("GGGGAAACCCC"), encode(""), encode("A")])]
    [-450, 0, 0]
    """
    if len(codes_list) == 0:
        return []
    lengths = np.array([len(c) for c in codes_list], dtype=np.int64)
    starts = np.zeros(len(codes_list) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    joined = np.concatenate([np.asarray(c) for c in codes_list]) if lengths.sum() else np.zeros(0, np.uint8)
    energies, pair_to_all = mfe_packed(joined, starts, model, tile=tile)
    return [(int(energies[s]), pair_to_all[starts[s]:starts[s + 1]].copy()) for s in range(len(codes_list))]


def mfe_packed(codes_all, starts, model=None, *, tile=TILE):
    """Fold packed sequences (sequence k is ``codes_all[starts[k]:starts[k + 1]]``, alphabet codes), each
    whole on one core, the cores balanced by cost: ``(energies in dcal/mol (int64), pair_to (int64, all
    sequences back to back, 0-based within each))``, as :func:`mfe_many` gives them.

    >>> from bioaccel.inputs.alphabet import encode
    >>> energies, pair_to = mfe_packed(encode("GGGGAAACCCCA"), np.array([0, 11, 11, 12]))
    >>> energies.tolist(), pair_to[:4].tolist()
    ([-450, 0, 0], [10, 9, 8, 7])
    """
    E, lxc, no_lp = kernel_inputs(model)
    tile = _check_tile(tile)
    starts = np.asarray(starts, dtype=np.int64)
    lengths = np.diff(starts)
    count = len(lengths)
    S_all = np.asarray(table_codes(codes_all))
    energies = np.zeros(count, dtype=np.int64)
    pair_to_all = np.full(S_all.shape[0], -1, dtype=np.int64)
    if count == 0:
        return energies, pair_to_all
    _check_length(int(lengths.max()), f"sequence {int(np.argmax(lengths)) + 1} of the batch")
    workers = max(1, min(get_num_threads(), count))
    worker_start, worker_items = _deal(lengths, workers)
    busiest = np.sort(lengths)[::-1][:workers].tolist()
    require_memory(sum(table_bytes(n) for n in busiest),
                   f"folding {count:,} sequences ({workers} at a time, the longest {int(lengths.max()):,}) "
                   "with the Turner model", "fold shorter sequences (or fewer at a time)")
    _parallel(E, lxc, no_lp, S_all, starts, worker_start, worker_items, tile, -1, _NO_TABLE, _NO_TABLE,
              _NO_TABLE, energies, pair_to_all)
    traced = pair_to_all[starts[:-1][lengths > 0]]
    if (traced == -2).any():
        s = int(np.flatnonzero(lengths > 0)[np.flatnonzero(traced == -2)[0]])
        _check_traced(pair_to_all[starts[s]:starts[s + 1]], f"sequence {s + 1} of the batch")
    return energies, pair_to_all
