"""The BPMax API: ``bpmax(queries, targets, ...)`` and its streaming form ``iter_bpmax``.

Every target meets every query (targets outer, queries inner, as the command line writes them), and
each pair gives its best site, or its ``sites`` best non-overlapping target windows (_sites). The
single-strand tables S1 and S2 are bands as wide as the windows (_strands): a windowed run folds, fills
and keeps only what grows linearly with the target's length; without a window they come from the
dense :func:`bioaccel.fold.fold_table`. The last few are kept, so that a target met by many queries
(or a query by many targets) is folded once.
"""
import functools
from collections import OrderedDict
from typing import Iterable, Iterator, Union

import numpy as np

from ..runtime.memory import require_memory
from ..runtime.parallel import resolve_threads
from ..runtime.parallel import threads as using_threads
from ..errors import InputError, InvalidParameter
from ..inputs.fasta import Record, as_records, is_pair
from ..fold import fold_table
from ._model import InteractParams, work
from ._result import Interaction
from ._sites import check_rank, check_sites, pick_sites, window_gains
from ._strands import band_bytes, dense_of_band, strand_band, window_folds
from ._variants import VARIANTS

#: What ``queries`` and ``targets`` may be: one sequence, or an iterable of them.
Sequences = Union[str, Record, tuple[str, str], Iterable[Union[str, Record, tuple[str, str]]]]

#: Single-strand tables kept (each at most RECENT_TABLE_BYTES).
RECENT_TABLES = 4
RECENT_TABLE_BYTES = 2 ** 28

_recent = OrderedDict()  # (codes, fold params, width, dense) -> S band, least recently used first


def single_strand_table(codes, fold_params, threads=0) -> np.ndarray:
    """The dense (n, n) int32 weighted-Nussinov table S of ``codes`` (upper triangle), in units.

    >>> from bioaccel.inputs.alphabet import encode
    >>> int(single_strand_table(encode("GGGAAACCC"), InteractParams().fold_params)[0, 8])   # 9 in half-units
    18
    """
    return np.asarray(fold_table(codes, params=fold_params, threads=threads), dtype=np.int32)


def _strand_cached(codes, fold_params, width, threads, dense):
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


def _plan_bytes(M, N, params, variant, dense=False):
    """Bytes of one pair: the S bands (the dense tables with ``dense``), the fill's table and the
    window scores (int64 units and float scores)."""
    from .tiled import StreamPlan
    from ._naive import naive_bytes

    L1, L2 = params.spans(M, N)
    side = band_bytes(M, M if dense else L1) + band_bytes(N, N if dense else L2)
    side += 16 * (M - L1 + 1) * (N - L2 + 1)
    if variant == "naive":
        return naive_bytes(M, N) + 4 * (M * M + N * N) + side   # and the dense S the recurrence reads
    return StreamPlan(M, N, params).nbytes + side


def _suggest_window(M, N, params, variant):
    def hint(limit):
        if variant == "naive":
            return "the naive variant keeps all M^2 N^2 cells: use --variant tiled"
        for window in (4096, 2048, 1024, 512, 256, 128, 64, 32, 16):
            if window >= N - 1:
                continue
            trial = InteractParams(params.au, params.gu, params.window_query, window)
            if _plan_bytes(M, N, trial, variant) <= limit:
                return f"--window-target {window} (or smaller) would fit"
        return "the target is too long for its single-strand table: split it"

    return hint


#: Measured rate of the tiled fill, in units of :func:`work` per second and per thread
#: (bench/bpmax_cpu.py: 20 x 400 nt in 0.61 s on 2 threads of the development machine); the
#: recurrence as written is about 100x slower.
CPU_RATE_PER_THREAD = {"tiled": 2.5e10, "naive": 2.5e8}
#: Measured rate of the GPU variants, in units of :func:`work` per second on the whole device
#: (bench/bpmax_gpu.py on an H100: 23 x 20,000 nt, window 128, 8.7e11 units in 0.085 s; the screen of
#: transcripts of 200-20,000 nt runs at about 7e12, the banded-library variant at about 5e12).
GPU_RATE = {"fused": 7e12, "banded-library": 5e12}


def estimate_seconds(pairs, *, params=None, variant=None, threads=0) -> float:
    """Rough time of BPMax over ``pairs``, (query length, target length) tuples, on the backend of
    ``variant`` (None: the CPU default).

    >>> round(estimate_seconds([(18, 10_000)], threads=2) / 3600, 1)     # hours, without a window
    2.4
    """
    params = _params(params)
    total = sum(float(work(M, N, *params.spans(M, N))) for M, N in pairs)
    if variant in GPU_RATE:
        return total / GPU_RATE[variant]
    params, variant = _check(params, "cpu", variant, threads)
    return total / (CPU_RATE_PER_THREAD[variant] * resolve_threads(threads))


def check_sizes(query_lengths, target_lengths, *, params=None, variant=None):
    """Refuse, before any pair is computed, a batch whose largest pair will not fit in memory: a
    ResourceError with the estimate and the target window that would fit."""
    if variant in GPU_RATE:   # the device's memory is checked where the launches are planned (_gpu)
        if query_lengths and target_lengths:
            _params(params).cell_dtype(max(query_lengths), max(target_lengths))
        return
    params, variant = _check(params, "cpu", variant, 0)
    if not query_lengths or not target_lengths:
        return
    M, N = max(query_lengths), max(target_lengths)
    params.cell_dtype(M, N)
    count = len(query_lengths) * len(target_lengths)
    what = f"BPMax ({variant}) of {M:,} x {N:,} nt" + (f" (the largest of {count:,} pairs)" if count > 1 else "")
    require_memory(_plan_bytes(M, N, params, variant), what, _suggest_window(M, N, params, variant))


def _params(params):
    if params is None:
        return InteractParams()
    if not isinstance(params, InteractParams):
        raise InvalidParameter(f"params must be an InteractParams, got {type(params).__name__}")
    return params


def _records(items, what):
    """Records from one string, Record or (id, sequence) pair, or an iterable of them (lazily); an
    empty sequence is an InputError."""
    if isinstance(items, (str, bytes, Record)) or is_pair(items):
        items = [items]
    for index, item in enumerate(items, start=1):
        record = item if isinstance(item, Record) else as_records([item])[0]
        if isinstance(item, (str, bytes)):
            record.id = f"seq{index}"
        if len(record) == 0:
            raise InputError(f"{what} {record.id!r} is empty")
        yield record


def _check(params, backend, variant, threads, sites=1, rank="score"):
    """The checks made before any input is read: ``(params, variant)``."""
    params, variant = _params(params), VARIANTS.resolve(variant, backend)
    if backend == "gpu":
        from ..runtime.gpu import require_gpu

        require_gpu()
    resolve_threads(threads)
    check_sites(sites)
    check_rank(rank)
    return params, variant


def bpmax(queries: Sequences, targets: Sequences, *, params: "InteractParams | None" = None,
          backend: str = "cpu", variant: "str | None" = None, threads: int = 0, structure: bool = False,
          sites: int = 1, rank: str = "score", client=None) -> "list[Interaction]":
    """BPMax of every query (strand 1) against every target (strand 2): a list of :class:`Interaction`,
    targets outer, queries inner, and for each pair its ``sites`` best sites, best first.

    ``queries`` / ``targets``: each one string, a :class:`~bioaccel.inputs.fasta.Record` or an ``(id, sequence)``
    pair (a tuple of two strings), or an iterable of them; strings get the ids seq1, seq2, ...
    ``params``: :class:`InteractParams` (weights and windows). ``backend``: "cpu" or "gpu" (CuPy and an NVIDIA
    GPU; many targets per launch). ``variant``: None for the backend's default (``tiled``) or a name of
    ``bioaccel.interact.VARIANTS``. ``threads``: CPU threads for the call (0 = all cores).
    ``structure``: also trace an optimal joint structure of each site. ``sites``: how many
    non-overlapping target windows to report per pair (1: the best; fewer when fewer fit; see
    bioaccel.interact._sites for the order and ties). ``rank``: "score" (the best windows by score,
    BPMax's objective) or "gain" (by score minus the folds of the two windows alone). ``client``: run
    on a Dask cluster instead (a ``dask.distributed.Client``, a scheduler address, or "local"), in
    tasks balanced by work (:mod:`bioaccel.distribution.batch`), results in the same order.

    >>> [(r.query, r.target, r.score) for r in bpmax(["GGGAAACCC", "AAAA"], ("t1", "GGGUUUCCC"))]
    [('seq1', 't1', 21), ('seq2', 't1', 12)]
    >>> r = bpmax("GGGAAACCC", "UUUUAAAAGGGCCCAUGC", params=InteractParams(window_target=5))[0]
    >>> r.score, (r.target_start, r.target_end), r.target_fold, r.gain
    (18, (8, 14), 3, 6)
    >>> [(r.site, r.score, r.target_start) for r in bpmax("GGGAAACCC", "GGGUUUCCCAAAAAGGGUUUCC",
    ...                                                    params=InteractParams(window_target=8), sites=3)]
    [(1, 21, 0), (2, 18.5, 13)]
    """
    options = dict(params=params, backend=backend, variant=variant, threads=threads, structure=structure,
                   sites=sites, rank=rank)
    if client is None:
        return list(iter_bpmax(queries, targets, **options))
    from ..distribution.batch import Item, run_items
    from ..distribution.cluster import connect

    checked, _ = _check(params, backend, variant, threads, sites, rank)
    queries = list(_records(queries, "query"))
    pairs = [(target, query) for target in _records(targets, "target") for query in queries]
    items = [Item(key, f"{query.id} x {target.id}", float(work(len(query), len(target),
                                                                *checked.spans(len(query), len(target)))) + 1.0,
                  (target, query)) for key, (target, query) in enumerate(pairs)]
    found = [None] * len(items)
    with connect(client) as opened:
        for outcome in run_items(functools.partial(_pairs, **options), items, client=opened, gpu=backend == "gpu"):
            if outcome.error is not None:
                raise outcome.error          # as the in-process path raises the first bad pair's error
            found[outcome.key] = outcome.value
    return [site for sites in found for site in sites]


def _pairs(items, **options):
    """BPMax of a chunk of (target, query) pairs where this runs (a Dask worker): the local code; one
    list of sites per pair."""
    params, variant = _check(options["params"], options["backend"], options["variant"], options["threads"],
                             options["sites"], options["rank"])
    if options["backend"] == "gpu":
        with using_threads(options["threads"]) as count:
            return _gpu_pairs(items, params, variant, options["structure"], count, options["sites"], options["rank"])
    return [_interaction(query, target, params, variant, options["structure"], options["threads"],
                         options["sites"], options["rank"]) for target, query in items]


def iter_bpmax(queries: Sequences, targets: Sequences, *, params: "InteractParams | None" = None,
               backend: str = "cpu", variant: "str | None" = None, threads: int = 0,
               structure: bool = False, sites: int = 1, rank: str = "score") -> Iterator[Interaction]:
    """Like :func:`bpmax` but yields each Interaction as soon as it is ready (targets are read lazily,
    queries at once). Parameters and queries are checked here, before any target is read.

    >>> [r.score for r in iter_bpmax("GGGAAACCC", ["GGGUUUCCC", "AAAA"])]
    [21, 9]
    """
    params, variant = _check(params, backend, variant, threads, sites, rank)
    queries = list(_records(queries, "query"))
    if backend == "gpu":
        return _iterate_gpu(queries, targets, params, variant, structure, threads, sites, rank)
    return _iterate(queries, targets, params, variant, structure, threads, sites, rank)


def _iterate_gpu(queries, targets, params, variant, structure, threads, sites, rank):
    """Targets read in rounds of about GPU_ROUND_BASES bases; each query meets a whole round in a few
    launches (_gpu), then the round's pairs are yielded in the usual order."""
    round_, bases = [], 0
    for target in _records(targets, "target"):
        round_.append(target)
        bases += len(target)
        if bases >= GPU_ROUND_BASES:
            yield from _gpu_round(round_, queries, params, variant, structure, threads, sites, rank)
            round_, bases = [], 0
    if round_:
        yield from _gpu_round(round_, queries, params, variant, structure, threads, sites, rank)


def _gpu_round(targets, queries, params, variant, structure, threads, sites, rank):
    pairs = [(target, query) for target in targets for query in queries]
    with using_threads(threads) as count:
        found = _gpu_pairs(pairs, params, variant, structure, count, sites, rank)
    for rows in found:
        yield from rows


#: Target bases read per round of the GPU path (the device takes as much of a round per launch as
#: its memory holds).
GPU_ROUND_BASES = 4_000_000


def _gpu_pairs(pairs, params, variant, structure, threads, sites, rank):
    """The sites of many (target, query) pairs on the GPU: each query against all of its targets at once."""
    from ._gpu import window_scores
    from ._gpu_launch import SIZES       # read at each call: the GPU tests switch it to TEST_SIZES

    by_query = {}
    for index, (_, query) in enumerate(pairs):
        by_query.setdefault((query.id, query.codes.tobytes()), (query, []))[1].append(index)
    out = [None] * len(pairs)
    fold = params.fold_params
    for query, indices in by_query.values():
        a = np.ascontiguousarray(query.codes)
        L1 = params.spans(len(a), 1)[0]
        S1 = _strand_cached(a, fold, L1, threads, False)
        rbs = [np.ascontiguousarray(pairs[i][0].codes[::-1]) for i in indices]
        for rb in rbs:
            params.cell_dtype(len(a), len(rb))  # refuses sizes that overflow
        for i, rb, (win, folds) in zip(indices, rbs, window_scores(a, S1, rbs, params, variant=variant,
                                                                   sizes=SIZES)):
            out[i] = _sites_of(query, pairs[i][0], a, rb, S1, None, win, folds, params, variant, "gpu", structure,
                               sites, rank)
    return out


def _iterate(queries, targets, params, variant, structure, threads, sites, rank):
    for target in _records(targets, "target"):
        for query in queries:
            yield from _interaction(query, target, params, variant, structure, threads, sites, rank)


def _interaction(query, target, params, variant, structure, threads, sites=1, rank="score",
                 dense=False) -> list:
    """The sites of one pair on ``threads`` threads (restored before this returns). ``dense``: fold the
    strands in full with fold_table even under a window (the path before the bands, for tests and
    bench/bpmax_cpu.py)."""
    with using_threads(threads) as count:
        return _compute(query, target, params, variant, structure, count, sites, rank, dense)


def _compute(query, target, params, variant, structure, threads, sites=1, rank="score", dense=False):
    a = np.ascontiguousarray(query.codes)
    rb = np.ascontiguousarray(target.codes[::-1])
    M, N = len(a), len(rb)
    params.cell_dtype(M, N)  # refuses sizes that overflow
    require_memory(_plan_bytes(M, N, params, variant, dense), f"BPMax ({variant}) of {M} x {N} nt",
                   _suggest_window(M, N, params, variant))
    L1, L2 = params.spans(M, N)
    fold = params.fold_params
    S1 = _strand_cached(a, fold, L1, threads, dense)
    S2 = _strand_cached(rb, fold, L2, threads, dense)
    n_qw, n_tw = M - L1 + 1, N - L2 + 1
    if variant == "naive":
        from ._naive import fill_naive

        F = fill_naive(a, rb, params.pair_table(), dense_of_band(S1), dense_of_band(S2), L1, L2)
        q = np.arange(n_qw)
        win = np.stack([F[q, q + L1 - 1, i2, i2 + L2 - 1] for i2 in range(n_tw)], axis=1)
        del F
    else:
        from .tiled import fill_tiled

        win = fill_tiled(a, rb, S1, S2, params)[0][:, :n_tw]
    return _sites_of(query, target, a, rb, S1, S2, win, window_folds(S2, L2), params, variant, "cpu", structure,
                     sites, rank)


def _sites_of(query, target, a, rb, S1, S2, win, reversed_folds, params, variant, backend, structure, sites, rank):
    """The Interaction rows of one pair from its window scores ``win[i1, i2]`` (reversed target rows,
    units) and ``reversed_folds[i2]``, the fold of each reversed target window alone. ``S2``: the
    target's band, or None (the GPU keeps it): the traceback then folds the winning window alone."""
    M, N = len(a), len(rb)
    L1, L2 = params.spans(M, N)
    # target window t (original orientation) starts where the reversed window ends
    units = np.ascontiguousarray(win[:, ::-1]).astype(np.int64)
    query_folds = window_folds(S1, L1)
    target_folds = np.asarray(reversed_folds, dtype=np.int64)[::-1]  # a window folds alone as it does reversed
    window_scores = units / params.unit
    results = []
    ranked = units if rank == "score" else window_gains(units, query_folds, target_folds)
    for site, (qs, ts) in enumerate(pick_sites(ranked, L2, sites), start=1):
        best, qf, tf = int(units[qs, ts]), int(query_folds[qs]), int(target_folds[ts])
        result = Interaction(
            query=query.id, target=target.id, score=params.to_score(best), query_fold=params.to_score(qf),
            target_fold=params.to_score(tf), gain=params.to_score(best - qf - tf),
            query_start=qs, query_end=qs + L1, target_start=ts, target_end=ts + L2,
            query_window=L1, target_window=L2, window_scores=window_scores, target_length=N,
            variant=variant, backend=backend, site=site,
        )
        if structure:
            result.structure, result.intra_query, result.intra_target, result.inter = _trace(
                a, rb, S1, S2, params, qs, ts, L1, L2, best)
        results.append(result)
    return results


def _trace(a, rb, S1, S2, params, qs, ts, L1, L2, best):
    """trace_window over the window pair; without S2, over the target window folded alone."""
    from ._traceback import trace_window

    if S2 is not None:
        return trace_window(a, rb, S1, S2, params, qs, ts, L1, L2, best)
    i2 = len(rb) - ts - L2
    local = np.ascontiguousarray(rb[i2:i2 + L2])
    structure, intra_q, intra_t, inter = trace_window(a, local, S1, strand_band(local, params.fold_params, L2),
                                                      params, qs, 0, L1, L2, best)
    return (structure, intra_q, [(p + ts, q + ts) for p, q in intra_t], [(p, t + ts) for p, t in inter])
