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
    return batch.run(made, args, stdout, stderr)
