"""BPMax of (target, query) pairs on the GPU: each query against its targets, many at once
(:func:`bioaccel.interact._gpu.window_scores`: many targets per launch), then each pair's sites.

The query's fold S1 is made here on the CPU (and kept, :mod:`._strand_cache`); the targets' folds are
made on the device with their window scores. A pair with an empty strand is computed by the CPU path
(:mod:`._pairs_cpu`): the device's launches are sized by both strands' lengths and have nothing to
fill without a base on each, and such a pair's answer is only the other strand's window folds (no
intermolecular part), which the CPU path gives at the cost of one single-strand fold.

A query's targets go to the device in parts of about :data:`PART_BASES` target bases, and the sites of
one part's pairs (NumPy and Numba on the CPU: picking the windows, a traceback with ``structure``) are
made in a second thread while the device computes the next part: the device waits for the CPU only
for the last part's sites. Only this thread is ever on the device and on the strand-table cache; the
sites' thread reads what the device gave and the query's fold.
"""
import threading

import numpy as np

from ..runtime.parallel import threads as using_threads
from ._pairs_cpu import pair_sites
from ._sites import site_rows
from ._strand_cache import strand_table

#: Target bases of a query's pairs computed on the device together (one part): large enough to fill
#: an H100 (a part's launches are a few GB, one launch group), small enough that the sites of the
#: last part, which nothing overlaps, are a small share of a large round's.
PART_BASES = 1 << 18


def parts(lengths: list, bases: int = PART_BASES) -> list:
    """Consecutive ranges ``(start, stop)`` of ``lengths`` holding at least ``bases`` in total each
    (the last one less), every item in one range.

    >>> parts([100, 200, 50, 300, 10], 250)
    [(0, 2), (2, 4), (4, 5)]
    >>> parts([], 10)
    []
    """
    ranges, start, total = [], 0, 0
    for index, length in enumerate(lengths):
        total += length
        if total >= bases:
            ranges.append((start, index + 1))
            start, total = index + 1, 0
    if start < len(lengths):
        ranges.append((start, len(lengths)))
    return ranges


class _Behind:
    """One job at a time in a second thread (on ``threads`` Numba threads, as the caller's): ``submit``
    waits for the job before (its error raised here), ``finish`` for the last one."""

    def __init__(self, threads: int):
        self.threads, self.thread, self.error = threads, None, None

    def _run(self, job):
        try:
            with using_threads(self.threads):
                job()
        except BaseException as exc:        # noqa: BLE001 - raised again in the caller's thread
            self.error = exc

    def finish(self, quiet: bool = False):
        if self.thread is not None:
            self.thread.join()
            self.thread = None
        error, self.error = self.error, None
        if error is not None and not quiet:
            raise error

    def submit(self, job):
        self.finish()
        self.thread = threading.Thread(target=self._run, args=(job,), name="bioaccel-sites", daemon=True)
        self.thread.start()


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
        behind = _Behind(threads)
        try:
            for query, indices in by_query.values():
                a = np.ascontiguousarray(query.codes)
                S1 = strand_table(a, params.fold_params, params.spans(len(a), 1)[0], threads)
                rbs = [np.ascontiguousarray(pairs[i][0].codes[::-1]) for i in indices]
                for rb in rbs:
                    params.cell_dtype(len(a), len(rb))  # refuses sizes that overflow
                for start, stop in parts([len(rb) for rb in rbs], PART_BASES):
                    # the launch SIZES of now
                    found = window_scores(a, S1, rbs[start:stop], params, variant=request.call.variant)
                    behind.submit(lambda a=a, S1=S1, chosen=indices[start:stop], rbs=rbs[start:stop], found=found:
                                  _sites(out, pairs, chosen, a, rbs, S1, found, request))
        except BaseException:
            behind.finish(quiet=True)           # the device's error said, the sites' thread ended
            raise
        behind.finish()
    return out


def _sites(out, pairs, indices, a, rbs, S1, found, request):
    """Each pair's rows (:func:`site_rows`) into ``out``."""
    for i, rb, (win, folds) in zip(indices, rbs, found):
        out[i] = site_rows(pairs[i][1], pairs[i][0], a, rb, S1, None, win, folds, request)
