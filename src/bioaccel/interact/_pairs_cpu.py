"""BPMax of (target, query) pairs on the CPU, one pair at a time on every thread asked for: the two
strands folded (the last few kept, :mod:`._strand_cache`), the fill of the variant (``FILLS``: the
``tiled`` fill or the recurrence as written), then the pair's sites (:func:`~._sites.site_rows`).

A pair with an empty strand has no fill: by the recurrence's empty-interval border (docs/bpmax.md's
compact form, F(i1, j1, i2, i2-1) = S1(i1, j1) and F(i1, i1-1, i2, j2) = S2(i2, j2)), each of its window
pairs scores the other strand's window folded alone.
"""
import numpy as np

from ..runtime.parallel import threads as using_threads
from ._memory import require_pair
from ._sites import site_rows
from ._strand_cache import strand_table
from ._strands import dense_of_band, window_folds


def _tiled_scores(a, rb, S1, S2, params):
    from .tiled import fill_tiled

    n_tw = len(rb) - params.spans(len(a), len(rb))[1] + 1
    return fill_tiled(a, rb, S1, S2, params)[0][:, :n_tw]


def _naive_scores(a, rb, S1, S2, params):
    from ._naive import fill_naive

    M, N = len(a), len(rb)
    L1, L2 = params.spans(M, N)
    F = fill_naive(a, rb, params.pair_table(), dense_of_band(S1), dense_of_band(S2), L1, L2)
    q = np.arange(M - L1 + 1)
    return np.stack([F[q, q + L1 - 1, i2, i2 + L2 - 1] for i2 in range(N - L2 + 1)], axis=1)


#: Each CPU variant's window scores ``win[i1, i2]`` (query window start, reversed target row, units)
#: from the codes of the query and of the REVERSED target and their bands.
FILLS = {"tiled": _tiled_scores, "naive": _naive_scores}


def alone_scores(a, rb, S1, S2, params) -> np.ndarray:
    """The window scores of a pair with an empty strand: the other strand's window folds (int64 units).

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.interact import InteractParams
    >>> from bioaccel.interact._strands import strand_band
    >>> params = InteractParams(window_target=8)
    >>> rb = encode("GGGAAACCCAAAAA")[::-1].copy()
    >>> none = np.zeros(0, dtype=np.uint8)
    >>> alone_scores(none, rb, strand_band(none, params.fold_params, 0),
    ...              strand_band(rb, params.fold_params, 9), params).tolist()   # GGGAAACCC folds to 9
    [[0, 0, 0, 6, 12, 18]]
    """
    L1, L2 = params.spans(len(a), len(rb))
    return window_folds(S1, L1)[:, None] + window_folds(S2, L2)[None, :]      # one of them is all 0


def pair_sites(query, target, request, dense: bool = False) -> list:
    """The :class:`~bioaccel.interact.Interaction` rows of one pair of Records for ``request`` (a
    :class:`~._request.Request`), on its threads (Numba's count is restored before this returns).
    ``dense``: fold the strands in full with fold_table even under a window (the path before the bands,
    for tests and bench/bpmax_cpu.py)."""
    with using_threads(request.call.threads) as count:
        return _compute(query, target, request, count, dense)


def _compute(query, target, request, threads, dense):
    params, variant = request.params, request.call.variant
    a = np.ascontiguousarray(query.codes)
    rb = np.ascontiguousarray(target.codes[::-1])
    M, N = len(a), len(rb)
    params.cell_dtype(M, N)  # refuses sizes that overflow
    require_pair(M, N, params, variant, dense)
    L1, L2 = params.spans(M, N)
    fold = params.fold_params
    S1 = strand_table(a, fold, L1, threads, dense)
    S2 = strand_table(rb, fold, L2, threads, dense)
    win = (FILLS[variant] if M and N else alone_scores)(a, rb, S1, S2, params)
    return site_rows(query, target, a, rb, S1, S2, win, window_folds(S2, L2), request)


def cpu_pairs(pairs, request):
    """The rows of each (target, query) pair of Records, one list a pair, yielded as each is computed."""
    for target, query in pairs:
        yield pair_sites(query, target, request)
