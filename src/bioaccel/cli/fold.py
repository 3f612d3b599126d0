"""``bioaccel fold``: Nussinov folding of every record of a FASTA file.

Only argparse and the variant registry load when the parser is built; the algorithms load in ``run``.
"""
from .options import (add_backend_option, add_batch_options, add_output_option, add_quiet_option,
                      add_threads_option, add_variant_options, backends_of)
from ..fold._plot import MAX_PLOT_RECORDS
from ..fold._variants import VARIANTS

FORMATS = ("vienna", "ct", "bpseq", "json")


def register(subparsers):
    parser = subparsers.add_parser(
        "fold", help="Nussinov folding: the structure with the most (weighted) base pairs",
        description="Fold each RNA of a FASTA file with Nussinov's algorithm and print its structure "
                    "and score (the weighted number of base pairs), record by record in input order.",
    )
    parser.add_argument("fasta", metavar="FASTA",
                        help="FASTA file, plain or compressed (gzip, bzip2, xz); '-' reads standard input")
    add_variant_options(parser, VARIANTS)
    add_backend_option(parser, registry=VARIANTS)
    add_threads_option(parser)
    parser.add_argument("--min-loop", type=int, default=3, metavar="K",
                        help="unpaired bases a pair must enclose (default 3, as ViennaRNA; 1 is the "
                             "recurrence of Chang et al. used by Li, Ranka & Sahni)")
    parser.add_argument("--no-gu", action="store_true", help="do not allow GU wobble pairs")
    parser.add_argument("--au", type=float, default=1, metavar="X", help="weight of an AU pair (default 1)")
    parser.add_argument("--gc", type=float, default=1, metavar="X", help="weight of a GC pair (default 1)")
    parser.add_argument("--gu", type=float, default=None, metavar="X", help="weight of a GU pair (default 1)")
    parser.add_argument("--format", choices=FORMATS, default="vienna",
                        help="vienna (default, like RNAfold), ct, bpseq or json (JSON Lines)")
    parser.add_argument("--noconv", action="store_true",
                        help="write the sequences as given; by default T is written as U, as RNAfold does "
                             "(its --noconv keeps T too)")
    add_output_option(parser)
    parser.add_argument("--plot", metavar="FILE.svg|png|pdf", default=None,
                        help=f"also draw arc diagrams, one panel per record (the first {MAX_PLOT_RECORDS}); "
                             "needs matplotlib (bioaccel[plot])")
    add_quiet_option(parser)
    add_batch_options(parser, gpu="gpu" in backends_of(VARIANTS))
    parser.set_defaults(run=run)


def _params(args):
    from ..errors import InvalidParameter
    from ..fold._model import FoldParams

    if args.no_gu and args.gu is not None:
        raise InvalidParameter("--no-gu and --gu contradict each other; give one of them")
    gu = 0 if args.no_gu else (1 if args.gu is None else args.gu)
    return FoldParams(min_loop=args.min_loop, au=args.au, gc=args.gc, gu=gu)


def _announce(args, stderr, lengths, params, variant, workers=None):
    """Before the first record: the memory of the longest (refused now if it will not fit; in a batch,
    ``workers`` given, a record too large fails alone) and, for long work, one line with the time of
    the whole batch and the way out."""
    from .progress import announce, format_duration
    from ..fold._api import check_sizes, estimate_seconds

    if not lengths:
        return
    if workers is None:
        check_sizes(lengths, params=params, backend=args.backend, variant=variant)
    seconds = estimate_seconds(lengths, backend=args.backend, variant=variant, threads=args.threads)
    seconds /= max(1, workers or 1)
    what = (f"{len(lengths):,} record{'s' if len(lengths) != 1 else ''} of up to {max(lengths):,} nt "
            f"({args.backend}, {variant})")
    way_out = None
    if args.backend == "cpu":
        gpu = estimate_seconds(lengths, backend="gpu")
        way_out = f"--backend gpu would take {format_duration(gpu)} on one H200"
    announce(stderr, "bioaccel fold", seconds, what, way_out, quiet=args.quiet)


def _each_announced(args, stderr, records, params, variant):
    """Records read from standard input, which cannot be measured ahead: each long one is announced
    (and refused if it will not fit) just before it is folded."""
    for record in records:
        _announce(args, stderr, [len(record)], params, variant)
        yield record


def _run_batch(args, stdout, stderr, params):
    """--workers, --scheduler, --gpus, --resume: every record an item of the batch layer."""
    from . import batch_run as batch
    from ..inputs.fasta import read_fasta
    from ..fold._jobs import job

    batch.check(args)                               # --gpus sets the backend
    VARIANTS.resolve(args.variant, args.backend)    # a bad variant: refused before reading
    if args.plot:
        from ..results.plotting import check_plot

        check_plot(args.plot)
    records = list(read_fasta(args.fasta))
    made = job(args, records, params, batch.item_threads(args))
    if not args.scheduler:                          # a cluster's speed is not known here
        variant = VARIANTS.resolve(args.variant, args.backend)
        made.announce = lambda todo: _announce(args, stderr, [len(item.payload[1]) for item in todo], params,
                                               variant, workers=batch.local_workers(args))
    return batch.run(made, args, stdout, stderr)


def run(args, stdout, stderr):
    from . import batch_run as batch
    from ..results.output import Outputs
    from ..results.plotting import check_plot
    from .progress import progress, wanted
    from ..results.tables import chunked
    from ..inputs.fasta import read_fasta, scan_lengths
    from ..fold._api import iter_nussinov
    from ..fold._formats import FoldWriter

    params = _params(args)
    if batch.wanted(args):
        return _run_batch(args, stdout, stderr, params)
    variant = VARIANTS.resolve(args.variant, args.backend)
    if args.plot:
        check_plot(args.plot)
    options = dict(params=params, backend=args.backend, variant=args.variant, threads=args.threads)
    if args.backend == "gpu":
        from ..runtime.gpu import require_gpu

        require_gpu()
    with Outputs({"-o": "-" if args.output is None else args.output, "--plot": args.plot}, modes={"--plot": "wb"},
                 stdout=stdout) as outputs:
        lengths = scan_lengths(args.fasta)          # None for standard input
        records = read_fasta(args.fasta)
        if lengths is not None:
            _announce(args, stderr, lengths, params, variant)
        else:                                       # standard input: each record as it comes
            records = _each_announced(args, stderr, records, params, variant)
        results = iter_nussinov(records, **options)
        drawn = []
        writer = FoldWriter(outputs["-o"], args.format)
        shown = wanted(args.quiet, stderr)
        with progress(total=len(lengths) if lengths else None, unit="seq", desc="fold", enabled=shown,
                      stream=stderr) as bar:
            for chunk in chunked(results):
                if not args.noconv:
                    for result in chunk:
                        result.sequence = result.sequence.replace("T", "U")
                writer.write(chunk)
                bar.update(len(chunk))
                if args.plot:
                    drawn.extend(chunk[:MAX_PLOT_RECORDS - len(drawn)])
        if args.plot:
            from ..fold._plot import plot_arcs

            plot_arcs(drawn, args.plot, outputs["--plot"])
    return 0
