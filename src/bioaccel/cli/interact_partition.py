"""``bioaccel interact --partition``: BPPart, the partition function of every query with every target
and the probability that they interact, one row per pair (targets outer, queries inner); with
``--window-target`` / ``--window-query`` one row per site, as BPMax's windowed rows; ``--profile FILE``
the probability that each target position pairs with the query; ``--windows FILE`` every target
window's own partition function.

The options of BPMax's best structure that have no meaning for a sum over all structures (or that
BPPart does not have) are refused in one line before any input is read. ``--backend gpu``
fills many targets of a query per launch (variant ``diagonals``, windows too); ``--profile`` is on the
cpu backend. ``--workers``, ``--scheduler``, ``--gpus``, ``--resume``: the pairs as a batch
(:mod:`.interact_batch`), the same output.
"""

#: Columns of a row, as :class:`bioaccel.interact.Partition` names them (natural logs).
COLUMNS = ["query", "target", "log_z", "log_z_query", "log_z_target", "log_z_interaction", "probability"]

#: Columns of a windowed row's site: its window pair alone, then where it is (as BPMax's windowed rows).
SITE_COLUMNS = ["window_log_z", "window_log_z_interaction", "window_probability"]

#: Columns of ``--profile FILE`` (position 1-based, on the target as given) and ``--windows FILE``.
PROFILE_COLUMNS = ["query", "target", "position", "probability"]
WINDOW_COLUMNS = ["query", "target", "query_start", "query_end", "target_start", "target_end", "log_z",
                  "log_z_interaction", "probability"]


def partition_columns(window_query, window_target, sites: int = 1) -> list:
    """The columns of a --partition run: COLUMNS, with windows also ``site`` (with several sites), the
    site's window pair (SITE_COLUMNS) and its coordinates, as :func:`bioaccel.interact.interaction_columns`.

    >>> partition_columns(None, 128)[7:]
    ['window_log_z', 'window_log_z_interaction', 'window_probability', 'target_start', 'target_end']
    >>> partition_columns(None, None, 3) == COLUMNS
    True
    """
    if window_query is None and window_target is None:
        return list(COLUMNS)
    names = COLUMNS[:2] + (["site"] if sites > 1 else []) + COLUMNS[2:] + SITE_COLUMNS
    if window_query is not None:
        names += ["query_start", "query_end"]
    return names + ["target_start", "target_end"]


def profile_rows(item) -> list:
    """The ``--profile`` rows of one pair (a Partition with ``binding``): one per target position.

    >>> from bioaccel.interact import bppart
    >>> [(row["position"], round(row["probability"], 3)) for row in profile_rows(bppart("GGG", ("t", "ACCC"), binding=True)[0])]
    [(1, 0.0), (2, 0.888), (3, 0.888), (4, 0.888)]
    """
    return [{"query": item.query, "target": item.target, "position": k + 1, "probability": float(p)}
            for k, p in enumerate(item.binding)]


def window_rows(item) -> list:
    """The ``--windows`` rows of one pair: every target window (start order) with its most probable
    query window, the window pair's own log Z, log Z of its interactions and their probability.

    >>> from bioaccel.interact import PartitionParams, bppart
    >>> rows = window_rows(bppart("GGG", ("t", "ACCCA"), params=PartitionParams(window_target=2))[0])
    >>> [(r["target_start"], round(r["probability"], 3)) for r in rows]
    [(0, 0.999), (1, 1.0), (2, 0.999)]
    """
    import math

    best = item.window_probabilities.argmax(axis=0)
    L1 = item.query_end - item.query_start
    L2 = item.target_end - item.target_start
    rows = []
    for t, q in enumerate(best.tolist()):
        log_z = float(item.window_log_zs[q, t])
        probability = float(item.window_probabilities[q, t])
        rows.append({"query": item.query, "target": item.target, "query_start": q, "query_end": q + L1,
                     "target_start": t, "target_end": t + L2, "log_z": log_z,
                     "log_z_interaction": log_z + math.log(probability) if probability > 0 else -math.inf,
                     "probability": probability})
    return rows

#: BPPart's default pair scores (the original program's), used when --au / --gu are not given.
DEFAULT_AU, DEFAULT_GU = 0.5, 1.0


def refused_option(args) -> "str | None":
    """The first option given that --partition cannot honour, as the user typed it, or None.

    >>> import argparse
    >>> base = dict(structure=False, rank="score", backend="cpu", workers=None, scheduler=None, gpus=None,
    ...             resume=False)
    >>> refused_option(argparse.Namespace(**base)), refused_option(argparse.Namespace(**{**base, "rank": "gain"}))
    (None, '--rank')
    """
    checks = [("--structure", args.structure), ("--rank", args.rank != "score"),
              (f"--backend {args.backend}", args.backend not in ("cpu", "gpu"))]
    return next((name for name, given in checks if given), None)


#: Seconds a BPPart pair takes on one CPU thread, per query cell (query length x its window) and target
#: base: A x W + B x W^2 for a target window of W (the whole target without one); a binding profile
#: refills the windows that hold each position, W + 1 runs of PROFILE more per cell and base (without
#: windows, N + 1 runs of DENSE_PROFILE). Measured with this command's CPU variant on the 2-core
#: development machine (svRNAs of 18-22 nt against 60-3,000 nt, windows 16-256, with and without
#: --profile): each estimate 1-2.2x the run.
A, B, PROFILE, DENSE_PROFILE = 6.5e-8, 8.1e-10, 2e-6, 6e-6


def partition_seconds(query_lengths, target_lengths, params, threads: int, binding: bool) -> float:
    """Rough time of BPPart on the CPU for every query against every target (lengths), with the
    windows of ``params`` on ``threads`` threads (0: every core), with the binding profile or not.

    >>> from bioaccel.interact import PartitionParams
    >>> round(partition_seconds([18, 22, 21], [3000], PartitionParams(window_target=128), 2, False))
    40
    """
    from ..runtime.parallel import resolve_threads

    total = 0.0
    for N in target_lengths:
        W = min(N, params.window_target) if params.window_target else N
        per_base = A * W + B * W * W
        if binding:
            per_base = per_base + PROFILE if params.window_target else DENSE_PROFILE
        runs = W + 1 if binding else 1
        for M in query_lengths:
            V = min(M, params.window_query + 1) if params.window_query else M
            total += M * V * N * per_base * runs
    return total / resolve_threads(threads)


def announce_partition(args, stderr, query_lengths, target_lengths, params, binding, pairs=None) -> None:
    """Before the first pair of a CPU run: its time, when long, with the way out (a target window);
    ``pairs``: how many are left to run (``--resume``), of every query against every target."""
    import dataclasses

    from .progress import announce, format_duration

    if args.backend != "cpu" or not query_lengths or not target_lengths:
        return
    total = len(query_lengths) * len(target_lengths)
    count = total if pairs is None else pairs
    share = count / total                 # of the whole batch's time (its pairs are alike enough to say)
    seconds = share * partition_seconds(query_lengths, target_lengths, params, args.threads, binding)
    what = (f"{count:,} pair{'s' if count != 1 else ''} ({len(query_lengths):,} x {len(target_lengths):,}; up to "
            f"{max(query_lengths):,} x {max(target_lengths):,} nt{', with the binding profile' if binding else ''})")
    way_out = None
    if params.window_target is None and max(target_lengths) > 129:
        faster = partition_seconds(query_lengths, target_lengths, dataclasses.replace(params, window_target=128),
                                   args.threads, binding)
        way_out = f"with --window-target 128 {format_duration(share * faster)}"
    elif binding:
        without = partition_seconds(query_lengths, target_lengths, params, args.threads, False)
        way_out = f"without --profile {format_duration(share * without)}"
    announce(stderr, "bioaccel interact", seconds, what, way_out, quiet=args.quiet)


def run_partition(args, stdout, stderr) -> int:
    """The rows of :func:`bioaccel.interact.iter_bppart` for the command line ``args``, as TSV with a
    header or JSON Lines, to standard output or ``-o FILE``."""
    from .progress import progress, wanted
    from ..inputs.fasta import checked_lengths, read_fasta
    from ..inputs.fasta import scan_lengths
    from ..interact import check_partition_sizes, iter_bppart
    from ..results.output import Outputs
    from ..results.tables import TableWriter

    from . import batch_run as batch

    params = partition_params(args)
    binding = args.profile is not None
    windows_file = getattr(args, "windows", None)
    if batch.distributed(args) or args.resume:
        return _run_batch(args, stdout, stderr, params, binding, windows_file)
    results = iter_bppart(read_fasta(args.queries), read_fasta(args.targets), params=params,
                          backend=args.backend, variant=args.variant, threads=args.threads, sites=args.sites,
                          binding=binding)
    with Outputs({"-o": "-" if args.output is None else args.output, "--profile": args.profile,
                  "--windows": windows_file}, stdout=stdout) as outputs:
        target_lengths = checked_lengths(args.targets)   # a bad target refused before the header and first row
        query_lengths = scan_lengths(args.queries)
        if target_lengths is not None and query_lengths is not None and args.backend == "cpu":
            # what will not fit, refused up front (the GPU refuses before its first launch)
            check_partition_sizes(query_lengths, target_lengths, args.threads, params, binding)
            announce_partition(args, stderr, query_lengths, target_lengths, params, binding)
        writer = TableWriter(outputs["-o"], partition_columns(args.window_query, args.window_target, args.sites),
                             args.format)
        writer.header()
        extra = [(TableWriter(outputs[name], columns, "tsv"), rows) for name, columns, rows in
                 (("--profile", PROFILE_COLUMNS, profile_rows), ("--windows", WINDOW_COLUMNS, window_rows))
                 if outputs[name] is not None]
        for table, _ in extra:
            table.header()
        with progress(total=None, unit="pair", desc="partition",
                      enabled=wanted(args.quiet, stderr), stream=stderr) as bar:
            for item in results:
                writer.write([item])
                if item.site == 1:       # the tracks and the count once per pair
                    for table, rows in extra:
                        table.write(rows(item))
                    bar.update(1)
    return 0


def partition_params(args):
    """The :class:`~bioaccel.interact.PartitionParams` of the command line ``args``, after refusing in
    one line what --partition cannot honour (before any input is read)."""
    from ..errors import InvalidParameter
    from ..interact import PartitionParams

    refused = refused_option(args)
    if refused is not None:
        raise InvalidParameter(f"{refused} is not available with --partition (BPPart: one row per pair, or per "
                               f"site ranked by the probability of interaction)")
    if args.queries == "-" and args.targets == "-":
        raise InvalidParameter("QUERIES and TARGETS both read standard input ('-'); give at most one as '-'")
    params = PartitionParams(au=DEFAULT_AU if args.au is None else args.au,
                             gu=DEFAULT_GU if args.gu is None else args.gu, window_query=args.window_query,
                             window_target=args.window_target)
    if getattr(args, "windows", None) is not None and not params.windowed:
        raise InvalidParameter("--windows needs --window-target or --window-query (without windows the one "
                               "window is the whole pair: its row is the output)")
    if args.sites > 1 and not params.windowed:
        raise InvalidParameter(f"--sites {args.sites} needs --window-target or --window-query with --partition "
                               f"(without windows a pair has one partition function: one row)")
    return params


def _run_batch(args, stdout, stderr, params, binding, windows_file) -> int:
    """--workers, --scheduler, --gpus, --resume: every (target, query) pair an item of the batch layer
    (:func:`bioaccel.interact.partition_work`), the output byte for byte that of the run without them."""
    from . import batch_run as batch
    from .interact_batch import partition_job
    from ..inputs.fasta import read_fasta
    from ..interact import PARTITION_VARIANTS, partition_work

    batch.check(args, PARTITION_VARIANTS)
    queries, targets = list(read_fasta(args.queries)), list(read_fasta(args.targets))
    work = partition_work(queries, targets, params=params, backend=args.backend, variant=args.variant,
                          threads=batch.item_threads(args), sites=args.sites, binding=binding)
    extras = [(name, columns, rows) for name, path, columns, rows in
              (("--profile", args.profile, PROFILE_COLUMNS, profile_rows),
               ("--windows", windows_file, WINDOW_COLUMNS, window_rows)) if path is not None]
    made = partition_job(args, work, queries, targets, params,
                         partition_columns(args.window_query, args.window_target, args.sites), extras)
    if not batch.distributed(args):       # --resume here: the time of the pairs left (workers: their own plan)
        made.announce = lambda todo: announce_partition(args, stderr, [len(q) for q in queries],
                                                        [len(t) for t in targets], params, binding, pairs=len(todo))
    return batch.run(made, args, stdout, stderr)
