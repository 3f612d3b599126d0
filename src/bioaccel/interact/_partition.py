"""The BPPart API: ``bppart(queries, targets, ...)`` and its streaming form ``iter_bppart``.

Every target meets every query (targets outer, queries inner, as BPMax's rows). The keywords are
checked once, before any input is read, by the shared contract; each pair is filled on the CPU
(:mod:`._partition_cpu`) with the scale of :func:`choose_scales`; on the GPU, each query against
a round of targets at once (:mod:`._partition_gpu`), with the same scales, or with windows on the band
of target intervals (:mod:`._partition_band_gpu`, unscaled where the windows allow).
"""
import math
from concurrent.futures import ThreadPoolExecutor
from typing import Iterator

import numpy as np

from ..errors import InternalError, InvalidParameter, NotAvailable
from ..inputs.alphabet import encode
from ..runtime.contract import Sequences, check_call, records
from ..runtime.memory import require_memory
from ..runtime.parallel import threads as using_threads
from ._partition_model import PartitionParams, strand_scales
from ._partition_result import Partition
from ._variants import PARTITION_VARIANTS


def bppart(queries: Sequences, targets: Sequences, *, params: "PartitionParams | None" = None,
           backend: str = "cpu", variant: "str | None" = None, threads: int = 0, sites: int = 1,
           binding: bool = False) -> "list[Partition]":
    """BPPart of every query (strand 1) against every target (strand 2): a list of :class:`Partition`,
    targets outer, queries inner.

    ``queries`` / ``targets``: as :func:`~bioaccel.interact.bpmax` takes them (strings, Records,
    ``(id, sequence)`` pairs, or iterables of them); an empty strand is valid (Z is the other strand's
    alone, the probability 0). ``params``: :class:`PartitionParams` (the original's scores AU 0.5,
    GU 1.0 by default; its ``window_query`` / ``window_target``: BPMax's windows, docs/bppart.md
    "Windows"). ``backend``: "cpu" or "gpu" (many targets a launch, windows too; binding on the cpu only).
    ``variant``: None or a name of
    ``bioaccel.interact.PARTITION_VARIANTS``. ``threads``: CPU threads for the call (0 = all cores).
    ``sites``: with windows, how many target windows that share no base to report per pair, the most
    probable interaction first (one row each). ``binding``: also give each pair's ``binding``, the
    probability that each target position pairs with the query (costs about L2 + 1 fills with a
    target window of L2 bases, N / 2 without one).

    >>> [(r.target, round(r.log_z, 4), round(r.probability, 4)) for r in bppart("GGG", ["CCC", "AAA"])]
    [('seq1', 9.3856, 0.9999), ('seq2', 0.0, 0.0)]
    >>> r = bppart("GGG", "AAAAAACCCAAAAAA", params=PartitionParams(window_target=4), binding=True)[0]
    >>> (r.target_start, r.target_end), round(r.window_probability, 4), [round(p, 3) for p in r.binding[5:10].tolist()]
    ((4, 9), 0.9999, [0.0, 0.888, 0.888, 0.888, 0.0])
    """
    return list(iter_bppart(queries, targets, params=params, backend=backend, variant=variant, threads=threads,
                            sites=sites, binding=binding))


def iter_bppart(queries: Sequences, targets: Sequences, *, params: "PartitionParams | None" = None,
                backend: str = "cpu", variant: "str | None" = None, threads: int = 0, sites: int = 1,
                binding: bool = False) -> Iterator[Partition]:
    """Like :func:`bppart` but yields each Partition as soon as it is computed (targets read lazily,
    queries at once); the keywords and the queries are checked here, before any target is read.

    >>> [round(r.log_z_target, 4) for r in iter_bppart("GGG", ["GGGAAACCC"])]
    [9.3856]
    """
    from ._sites import check_sites

    call = check_call(PARTITION_VARIANTS, params, PartitionParams, backend=backend, variant=variant,
                      threads=threads)
    check_sites(sites)
    if not isinstance(binding, bool):
        raise InvalidParameter(f"binding must be True or False, got {binding!r}")
    if binding and call.backend != "cpu":
        raise NotAvailable("binding probabilities of BPPart are on the cpu backend only")
    query_list = [(q, encode(q.sequence)) for q in records(queries)]
    if call.backend == "gpu":
        from ..runtime.gpu import require_gpu

        require_gpu()      # GPUUnavailable now, before any target is read
        return _gpu_stream(query_list, records(targets), call, sites)
    return _stream(query_list, records(targets), call, sites, binding)


def _stream(query_list, targets, call, sites, binding) -> Iterator[Partition]:
    from ..runtime.parallel import resolve_threads

    for target in targets:
        rb = np.ascontiguousarray(encode(target.sequence)[::-1])
        for query, a in query_list:
            with using_threads(call.threads):   # set only while computing, not while the caller has a row
                if call.params.windowed or binding:
                    rows = _window_rows(query.id, target.id, a, rb, call, sites, binding,
                                        resolve_threads(call.threads))
                else:
                    rows = [_result(query.id, target.id, partition_logs(a, rb, call.params, call.variant), len(a),
                                    len(rb), call.variant)]
            yield from rows


def _result(query, target, logs, M, N, variant, backend="cpu") -> Partition:
    log_z, log_x, log_q, log_t = logs
    probability = math.exp(log_x - log_z) if log_x != -math.inf else 0.0
    return Partition(query, target, log_z, log_q, log_t, log_x, probability, M, N, variant, backend, query_end=M,
                     target_end=N, window_log_z=log_z, window_log_z_interaction=log_x, window_probability=probability)


def _window_rows(query, target, a, rb, call, sites, binding, threads) -> "list[Partition]":
    """One Partition per site of a pair with windows (or with the binding profile)."""
    from ._partition_windows import windowed_partition

    M, N = len(a), len(rb)
    L1, L2 = call.params.spans(M, N)
    check_partition_sizes([M], [N], threads, call.params, binding)
    return _site_rows(query, target, windowed_partition(a, rb, call.params, L1, L2, threads, binding), M, N,
                      call.variant, sites)


def _site_rows(query, target, w, M, N, variant, sites, backend="cpu") -> "list[Partition]":
    """One Partition per site of a pair's :class:`._partition_windows.Windowed` ``w``."""
    from ._partition_windows import pick_sites

    L1, L2 = w.query_window, w.target_window
    probability = math.exp(w.log_z_interaction - w.log_z) if w.log_z_interaction != -math.inf else 0.0
    rows = []
    for site, (qs, ts) in enumerate(pick_sites(w.probabilities, L2, sites), start=1):
        rows.append(Partition(query, target, w.log_z, w.log_z_query, w.log_z_target, w.log_z_interaction, probability,
                              M, N, variant, backend, site=site, query_start=qs, query_end=qs + L1, target_start=ts,
                              target_end=ts + L2, window_log_z=float(w.log_zs[qs, ts]),
                              window_log_z_interaction=float(w.log_zs_interaction[qs, ts]),
                              window_probability=float(w.probabilities[qs, ts]), window_log_zs=w.log_zs,
                              window_probabilities=w.probabilities, binding=w.binding))
    return rows


def choose_scales(a: np.ndarray, rb: np.ndarray, params: PartitionParams) -> "tuple[float, float]":
    """(c1, c2): the per-base log scale of each strand: ``params.scale`` when given, else the strand's
    own growth log Q / n (so that a strand's scaled Q is 1 and the tables hold the interaction's gain
    and local deviations), found by folding the strand alone at a first scale that cannot overflow.

    >>> choose_scales(encode("GGGAAACCC"), encode("AAAA"), PartitionParams())
    (1.0428459133331107, 0.0)
    """
    return strand_scales(params, (a, rb), _own_scale)


def _own_scale(codes, weights, first) -> float:
    """The per-base log scale of one strand (choose_scales'): its growth log Q / n, Q folded at ``first``
    (lower while Q underflows); 0 for an empty strand."""
    from ._partition_cpu import single_strand_scaled

    n = codes.shape[0]
    if n == 0:
        return 0.0
    scale = first
    q = single_strand_scaled(codes, weights, math.exp(-scale))[0, n]
    while q == 0.0 and scale > 0.0:   # grows slower than the first guess (a long random strand): e^700 less
        scale = max(0.0, scale - 700.0 / n)
        q = single_strand_scaled(codes, weights, math.exp(-scale))[0, n]
    return max(0.0, scale + math.log(q) / n)


def partition_bytes(M: int, N: int, threads: int = 1) -> int:
    """Memory of one pair's fill: seven float64 tables over (query interval, target interval), their
    target matrices padded to whole tiles (:func:`._partition_blocked.fill_partition_blocked`), and
    nine such matrices a thread (:func:`._partition_cpu.fill_partition`'s, the most of either variant).

    >>> round(partition_bytes(23, 600) / 2**30, 1)
    5.8
    """
    n = N + 1
    matrix = (n + 3) // 4 * 4 * ((n + 15) // 16 * 16)
    return 8 * (7 * (M + 1) * (M + 2) // 2 * matrix + 9 * max(1, threads) * matrix)


def window_bytes(M: int, N: int, L1: int, L2: int, threads: int = 1, binding: bool = False) -> int:
    """Memory of one pair's sweep (:mod:`._partition_band`, its default blocked variant): per task six
    rings of (L2 + 1) rows a query interval, two of them padded for the products (twice the rings, the
    working copies, with ``binding``), and the rows of the group at work; per pair the target's bands
    and the window records. An upper bound: measured 540 MB where this says 618 MB (23 x 3,000 nt,
    window 128, two tasks; peak resident memory of the process).

    >>> round(window_bytes(23, 20_000, 23, 128, 2) / 2**30, 2)
    0.73
    """
    from ._partition_band_cross import LEFT, RIGHT
    from ._partition_windows import GROUP, plan_chunks

    P = 1 + L1 * M - L1 * (L1 - 1) // 2         # query intervals of at most L1 bases, and the empty one
    width = L2 + 1 + LEFT + RIGHT                # a padded row of a ring
    rings = (12 if binding else 6) * P * (L2 + 1) * width
    rows = P * width * (6 * GROUP + 1 + (GROUP + 1 if binding else 0)) + GROUP * (2 * L1 + 7) * width
    pair = 5 * (N + 1) * width + 4 * (M + 1) * (N + 1) * 2
    tasks = len(plan_chunks(N, L2, max(1, threads), binding))   # as the sweep plans them
    return 8 * (tasks * (rings + rows) + pair)


def check_partition_sizes(query_lengths, target_lengths, threads: int = 0,
                          params: "PartitionParams | None" = None, binding: bool = False) -> None:
    """Refuse, before any pair is filled, the largest pair of these lengths if its tables will not fit in
    the memory available (ResourceError with the estimate; the way out: a target window). ``params``:
    its windows (with windows, or ``binding``, the sweep's memory is what counts).

    >>> check_partition_sizes([20], [100])
    >>> check_partition_sizes([23], [100_000], params=PartitionParams(window_target=128))
    """
    from ..runtime.parallel import resolve_threads

    if not query_lengths or not target_lengths:
        return
    M, N = max(query_lengths), max(target_lengths)
    threads = resolve_threads(threads)
    if (params is not None and params.windowed) or binding:
        L1, L2 = (params or PartitionParams()).spans(M, N)
        require_memory(window_bytes(M, N, L1, L2, threads, binding),
                       f"the windowed partition function of {M:,} x {N:,} nt (windows of {L1:,} x {L2:,} nt)",
                       "a smaller --window-target or --window-query")
        return
    require_memory(partition_bytes(M, N, threads),
                   f"the partition function of {M:,} x {N:,} nt (its tables grow as the query's length squared "
                   "times the target's squared)",
                   "--window-target 128 (time and memory then grow linearly with the target)")


#: The fill of each CPU variant of ``PARTITION_VARIANTS`` (its registry, variants.toml): module and
#: function, imported when first used; the same arguments and results (a test holds every CPU variant of
#: the registry to a fill here).
CPU_FILLS = {"matrices": ("._partition_cpu", "fill_partition"),
             "blocked": ("._partition_blocked", "fill_partition_blocked"),
             "queued": ("._partition_blocked_queue", "fill_partition_queued")}


def cpu_fill(variant: "str | None" = None):
    """The fill function of the CPU ``variant`` (a name of ``PARTITION_VARIANTS``; None: its CPU
    default), from the registry; InvalidParameter for a name it does not know or not on the CPU.

    >>> cpu_fill().__name__, cpu_fill("matrices").__name__
    ('fill_partition_queued', 'fill_partition')
    """
    import importlib

    module, function = CPU_FILLS[PARTITION_VARIANTS.resolve(variant, "cpu")]
    return getattr(importlib.import_module(module, __package__), function)


def prime_partition_orders(max_query: int, thread_counts) -> int:
    """Compute ahead what the default CPU fill computes first for a query length and keeps: the order of
    its query intervals (a simulated schedule: 1 ms at 23 nt), for the queries of 1 to ``max_query`` nt
    on each of ``thread_counts``; for a process whose forked runs then find it (the warm server). How
    many orders the cache holds (it keeps 64).

    >>> prime_partition_orders(3, [1, 2]) >= 6
    True
    """
    from ._partition_blocked_queue import interval_order

    for workers in thread_counts:
        for M in range(1, max_query + 1):
            interval_order(M, workers)
    return interval_order.cache_info().currsize


def partition_logs(a: np.ndarray, rb: np.ndarray, params: PartitionParams, variant: "str | None" = None) -> tuple:
    """(log QI, log(QI - Q0 Q1), log Q0, log Q1) of the query codes ``a`` and the REVERSED target codes
    ``rb``, filled by the CPU ``variant`` (a name of ``PARTITION_VARIANTS``, None its default: see
    :func:`cpu_fill`); InternalError if the scaled tables overflowed (the scale should prevent it).

    >>> [round(x, 4) for x in partition_logs(encode("G"), encode("C"), PartitionParams())]
    [3.0486, 3.0, 0.0, 0.0]
    """
    fill_partition = cpu_fill(variant)
    check_partition_sizes([len(a)], [len(rb)])
    c1, c2 = choose_scales(a, rb, params)
    logs = tuple(float(x) for x in fill_partition(a, rb, params.weights(), c1, c2))
    return _checked(logs, len(a), len(rb), params, c1, c2)


#: Target bases read per round on the GPU (a query meets a round's targets in as few launches as fit).
GPU_ROUND_BASES = 1_000_000


def _gpu_stream(query_list, targets, call, sites=1) -> Iterator[Partition]:
    """The rows of the GPU backend: targets in rounds, each query against a round's targets together
    (:func:`._partition_gpu.gpu_logs`), rows in the usual order (targets outer, queries inner)."""
    round_, total = [], 0
    for target in targets:
        round_.append(target)
        total += len(target.sequence)
        if total >= GPU_ROUND_BASES:
            yield from _gpu_round(query_list, round_, call, sites)
            round_, total = [], 0
    if round_:
        yield from _gpu_round(query_list, round_, call, sites)


def _gpu_round(query_list, round_, call, sites=1) -> "list[Partition]":
    from ._partition_gpu import gpu_logs

    params = call.params
    rbs = [np.ascontiguousarray(encode(t.sequence)[::-1]) for t in round_]
    if params.windowed:
        return _gpu_window_round(query_list, round_, rbs, call, sites)
    with using_threads(call.threads) as threads, ThreadPoolExecutor(threads) as pool:
        # the strands' folds release the GIL (nogil): every core folds targets at once
        c2s = list(pool.map(lambda rb: choose_scales(rb[:0], rb, params)[1], rbs))
        found = {}
        for q, (query, a) in enumerate(query_list):
            both = [t for t, rb in enumerate(rbs) if len(rb) and len(a)]   # an empty strand: nothing to fill
            c1 = choose_scales(a, a[:0], params)[0]
            logs = gpu_logs(a, [rbs[t] for t in both], params.weights(), c1, [c2s[t] for t in both],
                            pool=pool) if both else []
            for t, got in zip(both, logs):
                found[t, q] = _checked(got, len(a), len(rbs[t]), params, c1, c2s[t])
            for t in set(range(len(rbs))) - set(both):
                found[t, q] = partition_logs(a, rbs[t], params)
    return [_result(query.id, target.id, found[t, q], len(a), len(rbs[t]), call.variant, "gpu")
            for t, target in enumerate(round_) for q, (query, a) in enumerate(query_list)]


def _gpu_window_round(query_list, round_, rbs, call, sites) -> "list[Partition]":
    """The rows of a round with windows: every query against the round's targets on the GPU in one schedule
    (:func:`._partition_band_gpu.gpu_windows_round`), an empty strand on the CPU (nothing to fill)."""
    from ._partition_band_gpu import gpu_windows_round

    both = [t for t, rb in enumerate(rbs) if len(rb)]
    filled = [q for q, (_, a) in enumerate(query_list) if len(a)]
    windows = gpu_windows_round([query_list[q][1] for q in filled], [rbs[t] for t in both], call.params) \
        if both and filled else []
    found = {}
    for q, per_target in zip(filled, windows):
        for t, w in zip(both, per_target):
            found[t, q] = _site_rows(query_list[q][0].id, round_[t].id, w, len(query_list[q][1]), len(rbs[t]),
                                     call.variant, sites, "gpu")
    for q, (query, a) in enumerate(query_list):
        for t in range(len(rbs)):
            if (t, q) not in found:
                with using_threads(call.threads) as threads:
                    found[t, q] = _window_rows(query.id, round_[t].id, a, rbs[t], call, sites, False, threads)
    return [row for t in range(len(rbs)) for q in range(len(query_list)) for row in found[t, q]]


def _checked(logs, M, N, params, c1, c2) -> tuple:
    """``logs`` unless the scaled tables over- or underflowed (InvalidParameter with a given scale, else
    InternalError): the check of partition_logs and of the GPU's rows."""
    if not all(math.isfinite(x) for x in (logs[0], logs[2], logs[3])) or math.isnan(logs[1]) \
            or logs[1] == math.inf:
        if params.scale is not None:
            raise InvalidParameter(f"scale {params.scale} lets the tables of {M} x {N} nt over- or "
                                   f"underflow; leave it out to have it chosen")
        raise InternalError(f"the partition function of {M} x {N} nt overflowed at scales {c1}, {c2}")
    return logs
