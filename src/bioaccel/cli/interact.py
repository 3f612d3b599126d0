"""``bioaccel interact``: BPMax of every query against every target.

The command builds the call of :func:`bioaccel.interact.iter_bpmax` (or, for a batch,
:func:`bioaccel.interact.bpmax_work`, :mod:`.interact_batch`), which checks the options, and writes
its rows with the wing's writers. Only argparse, the command-line helpers and the variant registry
load when the parser is built; the algorithms (NumPy, Numba, pandas) load in ``run``.
"""
import functools

from .options import (add_backend_option, add_batch_options, add_output_option, add_pair_weight_options,
                      add_quiet_option, add_threads_option, add_variant_options, backends_of)
from ..interact import PARTITION_VARIANTS, VARIANTS

FORMATS = ("tsv", "json")


class BothVariants:
    """BPMax's variants and BPPart's (``--partition``) behind the one ``--variant`` option: its help and
    ``--list-variants`` give both, each under its name (as ``bioaccel fold`` gives each model's).

    >>> print(BothVariants().table().splitlines()[0])
    BPMax:
    """

    named = (("BPMax", VARIANTS), ("--partition (BPPart)", PARTITION_VARIANTS))

    def help(self) -> str:
        """The ``--variant`` help: each algorithm's choices."""
        return "; ".join(f"{name}: {registry.help()}" for name, registry in self.named)

    def table(self) -> str:
        """What ``--list-variants`` prints."""
        return "\n\n".join(f"{name}:\n{registry.table()}" for name, registry in self.named)


def register(subparsers):
    parser = subparsers.add_parser(
        "interact", help="RNA-RNA interaction: the best joint structure by weighted base pairs (BPMax), or "
                         "how likely two RNAs bind (--partition, BPPart)",
        description="Score how each query RNA (e.g. a small viral RNA) interacts with each target RNA "
                    "(BPMax of Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz: the joint structure with "
                    "the most weighted base pairs, GC 3, AU and GU as given). With --window-target W "
                    "the target is scanned in windows of W + 1 nt (intervals with end - start <= W) and "
                    "the best window is reported. Coordinates are 0-based, half-open, on the target as "
                    "given. Output: one row per query and target (per site with --sites), targets in "
                    "file order, each against every query in file order. query_fold and target_fold are "
                    "the folds of the reported windows alone, gain = score - query_fold - target_fold "
                    "(what the interaction adds; rank targets by it).",
    )
    parser.add_argument("queries", metavar="QUERIES",
                        help="FASTA file of query RNAs (strand 1; plain or compressed; '-' reads standard input)")
    parser.add_argument("targets", metavar="TARGETS",
                        help="FASTA file of target RNAs (strand 2; '-' reads standard input, but not for both)")
    parser.add_argument("--window-query", type=int, default=None, metavar="W1",
                        help="query window: intervals with j1 - i1 <= W1 (default: none)")
    parser.add_argument("--window-target", type=int, default=None, metavar="W2",
                        help="target window: intervals with j2 - i2 <= W2 (default: none; Gildemaster "
                             "2021 scans small viral RNAs against human transcripts with 128); needed for "
                             "targets longer than a few hundred nt")
    add_pair_weight_options(parser, {"AU": "1; 0.5 with --partition", "GU": "1.5; 1 with --partition"})
    parser.add_argument("--partition", action="store_true",
                        help="BPPart instead: the partition function over the same joint structures, each "
                             "weighted exp(its pair scores); columns log_z (all structures), log_z_query, "
                             "log_z_target (each strand alone), log_z_interaction (those with an "
                             "intermolecular pair) and probability (that the strands interact); natural logs; "
                             "with windows, of the structures that fit one window pair, one row per site "
                             "(--sites) ranked by the window pair's probability; --profile on the cpu only")
    add_variant_options(parser, BothVariants())
    add_backend_option(parser, registry=VARIANTS)
    add_threads_option(parser)
    parser.add_argument("--sites", type=int, default=1, metavar="K",
                        help="report the K best target windows that share no base (default 1), best score "
                             "first, ties to the leftmost; fewer where fewer fit; a 'site' column numbers them")
    parser.add_argument("--rank", choices=("score", "gain"), default="score",
                        help="which target windows are the best sites: the highest score (default, "
                             "BPMax's objective) or the highest gain (score minus the folds of the two "
                             "windows alone: binding rather than the target window's own folding)")
    parser.add_argument("--structure", action="store_true",
                        help="also trace an optimal joint structure of each reported window pair: "
                             "dot-bracket 'query&target' and the intermolecular pairs (query:target, 0-based)")
    parser.add_argument("--format", choices=FORMATS, default="tsv",
                        help="tsv (default, with a header) or json (JSON Lines, same field names)")
    add_output_option(parser)
    parser.add_argument("--profile", metavar="FILE", default=None,
                        help="write the best score covering each target position as bedGraph "
                             "(0-based half-open, target as given); with --partition the probability that "
                             "each target position pairs with the query (TSV: query target position "
                             "probability, 1-based)")
    parser.add_argument("--windows", metavar="FILE", default=None,
                        help="with --partition and windows: every target window's own log Z, log Z of its "
                             "interactions and their probability (TSV, its most probable query window)")
    add_quiet_option(parser)
    add_batch_options(parser, gpu="gpu" in backends_of(VARIANTS))
    parser.set_defaults(run=run)


def interact_params(args):
    """BPMax's :class:`~bioaccel.interact.InteractParams` from the command line ``args`` (BPMax's
    default weights, AU 1 and GU 1.5, where --au / --gu are not given)."""
    from ..interact import InteractParams

    return InteractParams(au=1.0 if args.au is None else args.au, gu=1.5 if args.gu is None else args.gu,
                          window_query=args.window_query, window_target=args.window_target)


def _warm_kernels(args):
    """A tiny pair on the GPU with the command's weights and windows (its kernels loaded from CuPy's
    cache, compiled on a first run), where the command's pairs use the same cells (int16: windows, or
    queries and targets of a few thousand nt), so that no other kernels are compiled for nothing."""
    import numpy as np

    from ..interact import bpmax

    params = interact_params(args)
    if params.cell_dtype(1000, 10 ** 7) == np.int16:
        bpmax("GGGAAACCC", "GGGUUUCCC", params=params, backend="gpu", variant=args.variant, threads=1)


def call_options(args, params, threads) -> dict:
    """The keywords of the API call (:func:`bioaccel.interact.iter_bpmax`, :func:`bioaccel.interact.bpmax_work`)
    that the command line ``args`` asks for, with ``params`` and ``threads``."""
    return dict(params=params, backend=args.backend, variant=args.variant, threads=threads, structure=args.structure,
                sites=args.sites, rank=args.rank)


def _kept(records, into):
    """The records, each also put in the list ``into`` as the API reads it (after checking its options)."""
    for record in records:
        into.append(record)
        yield record


def _announce(args, stderr, query_lengths, target_lengths, params, workers=None, pairs=None):
    """Before the first pair: refuse now a largest pair that will not fit in memory (in a batch,
    ``workers`` given, such a pair fails alone), and announce the time of the whole batch (in a batch,
    of its ``pairs`` of lengths left to run) when it is long, with the way out (a target window, or
    the backend's default variant when it is much faster)."""
    import dataclasses

    from .progress import announce, format_duration
    from ..interact import check_sizes, estimate_seconds

    if not target_lengths:
        return
    if workers is None:
        check_sizes(query_lengths, target_lengths, params=params, backend=args.backend, variant=args.variant)
    pairs = [(M, N) for N in target_lengths for M in query_lengths] if pairs is None else pairs
    options = dict(backend=args.backend, threads=args.threads)
    asked = estimate_seconds(pairs, params=params, variant=args.variant, **options)
    shape = "" if len(pairs) != len(query_lengths) * len(target_lengths) else \
        f"{len(query_lengths):,} x {len(target_lengths):,}; "
    what = (f"{len(pairs):,} pair{'s' if len(pairs) != 1 else ''} ({shape}up to {max(M for M, _ in pairs):,} x "
            f"{max(N for _, N in pairs):,} nt)")
    way_out = None
    if args.window_target is None and max(target_lengths) > 129:
        windowed = dataclasses.replace(params, window_target=128)
        faster = estimate_seconds(pairs, params=windowed, variant=args.variant, **options)
        way_out = f"with --window-target 128 {format_duration(faster)}"
    else:
        faster = estimate_seconds(pairs, params=params, **options)
        if faster * FASTER < asked:
            way_out = f"--variant {VARIANTS.defaults[args.backend]} would take {format_duration(faster)}"
    if workers is not None:
        from .batch_run import speedup

        asked /= speedup(args)
    announce(stderr, "bioaccel interact", asked, what, way_out, quiet=args.quiet)


#: How much faster the backend's default variant must be to be named as the way out of a long run
#: (the recurrence as written, ``naive``, is about 100 times slower than ``tiled``).
FASTER = 10


def _each_announced(args, stderr, targets, queries, params):
    """Targets read from standard input, which cannot be measured ahead: each is announced (and refused
    if it will not fit) just before its pairs are computed."""
    for target in targets:
        _announce(args, stderr, [len(q) for q in queries], [len(target)], params)
        yield target


def _run_batch(args, stdout, stderr, params, names):
    """-o FILE, --workers, --scheduler, --gpus, --resume: every (target, query) pair an item of the batch
    layer (here, or on Dask workers), kept in the journal FILE.partial as it completes."""
    from . import batch_run as batch
    from .interact_batch import job
    from ..inputs.fasta import read_fasta
    from ..interact import bpmax_work

    batch.check(args, VARIANTS)
    queries, targets = [], []
    work = bpmax_work(_kept(read_fasta(args.queries), queries), _kept(read_fasta(args.targets), targets),
                      **call_options(args, params, batch.item_threads(args)))
    if args.backend == "gpu" and not batch.distributed(args):
        _numba_for_queries(args, queries)
    made = job(args, work, queries, targets, params, names)
    if not args.scheduler:                          # a cluster's speed is not known here
        made.announce = lambda todo: _announce(
            args, stderr, [len(q) for q in queries], [len(t) for t in targets], params,
            workers=batch.local_workers(args), pairs=[(len(i.payload[1]), len(i.payload[0])) for i in todo])
    return batch.run(made, args, stdout, stderr)


def _start_numba():
    from ..runtime.numba_start import start_cpu_target

    start_cpu_target()


def _numba_for_queries(args, queries):
    """Numba's one-off start made now (the queries read, the warm-up's thread waiting for the CUDA
    context) where this process's GPU run needs Numba for a query's fold; for a screen of short queries
    (svRNAs, at most PYTHON_FILL_BASES: folded in Python, their targets on the device, their sites with
    NumPy) it is never made: the first launch then waits for no 0.4 s of Numba's start."""
    from ..interact import PYTHON_FILL_BASES

    if not (args.partition or args.structure) and any(len(q) > PYTHON_FILL_BASES for q in queries):
        _start_numba()


def run(args, stdout, stderr):
    from . import batch_run as batch
    from . import gpu_start

    here_on_gpu = args.backend == "gpu" and not batch.distributed(args)
    if here_on_gpu:
        # the CUDA context, CuPy's import and (BPMax) the kernels' loading made while the inputs are
        # read; the garbage collector paused until the first launch (gpu_start.ready)
        gpu_start.start(None if args.partition else functools.partial(_warm_kernels, args))
    try:
        return _run(args, stdout, stderr, here_on_gpu)
    finally:
        gpu_start.resume()


def _run(args, stdout, stderr, here_on_gpu):
    from . import batch_run as batch
    from .bursts import bursts
    from .gpu_start import ready, resume
    from .progress import progress, wanted
    from ..errors import InvalidParameter
    from ..inputs.fasta import checked_lengths, read_fasta
    from ..interact import interaction_columns, interaction_writer, iter_bpmax, write_bedgraph
    from ..results.output import Outputs

    if here_on_gpu and (args.partition or args.structure):
        # Numba computes (BPPart's tables; the tracebacks): its one-off start made now, while the
        # warm-up's thread waits for the CUDA context (GIL released), rather than after the context
        _start_numba()

    if args.partition:
        from .interact_partition import run_partition

        resume()                            # BPPart's GPU start is not shortened (yet)
        return run_partition(args, stdout, stderr)
    if args.windows is not None:
        raise InvalidParameter("--windows is a table of --partition (each target window's partition function)")
    if args.queries == "-" and args.targets == "-":
        raise InvalidParameter("QUERIES and TARGETS both read standard input ('-'); give at most one as '-'")
    params = interact_params(args)
    names = interaction_columns(params, structure=args.structure, sites=args.sites)
    if batch.wanted(args):
        return _run_batch(args, stdout, stderr, params, names)
    queries = []
    targets = read_fasta(args.targets)
    if args.targets == "-":                 # standard input: each target as it comes, with every query
        targets = _each_announced(args, stderr, targets, queries, params)
    # the options are checked before any input is read; the queries are read now, the targets as they come
    results = iter_bpmax(_kept(read_fasta(args.queries), queries), targets, **call_options(args, params, args.threads))
    if here_on_gpu:
        _numba_for_queries(args, queries)
    with Outputs({"-o": "-" if args.output is None else args.output, "--profile": args.profile},
                 stdout=stdout) as outputs:
        target_lengths = checked_lengths(args.targets)     # a bad target refused before the first row
        if target_lengths is not None:
            _announce(args, stderr, [len(q) for q in queries], target_lengths, params)
        writer = interaction_writer(outputs["-o"], names, args.format)
        writer.header()
        profile = outputs["--profile"]
        total = len(queries) * len(target_lengths) if target_lengths else None
        with progress(total=total, unit="pair", desc="interact", enabled=wanted(args.quiet, stderr),
                      stream=stderr) as bar:
            for rows in bursts(results, first=ready):
                writer.write(rows)  # the rows as soon as they are computed, those ready together
                firsts = [row for row in rows if row.site == 1]     # the profile and the count once per pair
                if profile is not None:
                    write_bedgraph(profile, firsts)
                bar.update(len(firsts))
    return 0

