"""BPMax of (target, query) pairs on the GPU: each query against all of its targets at once
(:func:`bioaccel.interact._gpu.window_scores`: many targets per launch), then each pair's sites.

The query's fold S1 is made here on the CPU (and kept, :mod:`._strand_cache`); the targets' folds are
made on the device with their window scores. A pair with an empty strand is computed by the CPU path
(:mod:`._pairs_cpu`): the device's launches are sized by both strands' lengths and have nothing to
fill without a base on each, and such a pair's answer is only the other strand's window folds (no
intermolecular part), which the CPU path gives at the cost of one single-strand fold.
"""
import numpy as np

from ..runtime.parallel import threads as using_threads
from ._pairs_cpu import pair_sites
from ._sites import site_rows
from ._strand_cache import strand_table


def gpu_pairs(pairs, request) -> list:
    """The rows of each (target, query) pair of Records, one list a pair, in the order given (on the
    request's threads for the CPU's part)."""
    from ._gpu import window_scores

    params = request.params
    out = [None] * len(pairs)
    by_query = {}
    for index, (target, query) in enumerate(pairs):
        if len(target) == 0 or len(query) == 0:
            out[index] = pair_sites(query, target, request)       # no fill: see the module's docstring
            continue
        by_query.setdefault((query.id, query.codes.tobytes()), (query, []))[1].append(index)
    with using_threads(request.call.threads) as threads:
        for query, indices in by_query.values():
            a = np.ascontiguousarray(query.codes)
            S1 = strand_table(a, params.fold_params, params.spans(len(a), 1)[0], threads)
            rbs = [np.ascontiguousarray(pairs[i][0].codes[::-1]) for i in indices]
            for rb in rbs:
                params.cell_dtype(len(a), len(rb))  # refuses sizes that overflow
            found = window_scores(a, S1, rbs, params, variant=request.call.variant)   # the launch SIZES of now
            for i, rb, (win, folds) in zip(indices, rbs, found):
                out[i] = site_rows(pairs[i][1], pairs[i][0], a, rb, S1, None, win, folds, request)
    return out
