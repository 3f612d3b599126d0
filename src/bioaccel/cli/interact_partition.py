"""``bioaccel interact --partition``: BPPart, the partition function of every query with every target
and the probability that they interact, one row per pair (targets outer, queries inner).

The options of BPMax's best structure that have no meaning for a sum over all structures (or that
BPPart does not have yet: windows, batches) are refused in one line before any input is read.
``--backend gpu`` fills many targets of a query per launch (variant ``diagonals``).
"""

#: Columns of a row, as :class:`bioaccel.interact.Partition` names them (natural logs).
COLUMNS = ["query", "target", "log_z", "log_z_query", "log_z_target", "log_z_interaction", "probability"]

#: BPPart's default pair scores (the original program's), used when --au / --gu are not given.
DEFAULT_AU, DEFAULT_GU = 0.5, 1.0


def refused_option(args) -> "str | None":
    """The first option given that --partition cannot honour, as the user typed it, or None.

    >>> import argparse
    >>> base = dict(structure=False, sites=1, rank="score", window_query=None, window_target=None,
    ...             profile=None, backend="cpu", workers=None, scheduler=None, gpus=None, resume=False)
    >>> refused_option(argparse.Namespace(**base)), refused_option(argparse.Namespace(**{**base, "sites": 3}))
    (None, '--sites')
    """
    checks = [("--structure", args.structure), ("--sites", args.sites != 1), ("--rank", args.rank != "score"),
              ("--window-query", args.window_query is not None),
              ("--window-target", args.window_target is not None), ("--profile", args.profile is not None),
              (f"--backend {args.backend}", args.backend not in ("cpu", "gpu")),
              ("--workers", args.workers is not None),
              ("--scheduler", args.scheduler is not None), ("--gpus", getattr(args, "gpus", None) is not None),
              ("--resume", args.resume)]
    return next((name for name, given in checks if given), None)


def run_partition(args, stdout, stderr) -> int:
    """The rows of :func:`bioaccel.interact.iter_bppart` for the command line ``args``, as TSV with a
    header or JSON Lines, to standard output or ``-o FILE``."""
    from .progress import progress, wanted
    from ..errors import InvalidParameter
    from ..inputs.fasta import checked_lengths, read_fasta
    from ..inputs.fasta import scan_lengths
    from ..interact import PartitionParams, check_partition_sizes, iter_bppart
    from ..results.output import Outputs
    from ..results.tables import TableWriter

    refused = refused_option(args)
    if refused is not None:
        raise InvalidParameter(f"{refused} is not available with --partition (BPPart: whole strands, one row per "
                               f"pair)")
    if args.queries == "-" and args.targets == "-":
        raise InvalidParameter("QUERIES and TARGETS both read standard input ('-'); give at most one as '-'")
    params = PartitionParams(au=DEFAULT_AU if args.au is None else args.au,
                             gu=DEFAULT_GU if args.gu is None else args.gu)
    results = iter_bppart(read_fasta(args.queries), read_fasta(args.targets), params=params,
                          backend=args.backend, variant=args.variant, threads=args.threads)
    with Outputs({"-o": "-" if args.output is None else args.output}, stdout=stdout) as outputs:
        target_lengths = checked_lengths(args.targets)   # a bad target refused before the header and first row
        query_lengths = scan_lengths(args.queries)
        if target_lengths is not None and query_lengths is not None and args.backend == "cpu":
            # what will not fit, refused up front (the GPU refuses before its first launch)
            check_partition_sizes(query_lengths, target_lengths, args.threads)
        writer = TableWriter(outputs["-o"], COLUMNS, args.format)
        writer.header()
        with progress(total=None, unit="pair", desc="partition",
                      enabled=wanted(args.quiet, stderr), stream=stderr) as bar:
            for item in results:
                writer.write([item])
                bar.update(1)
    return 0
