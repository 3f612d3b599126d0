"""``bioaccel fold``: Nussinov folding of every record of a FASTA file.

Only argparse and the variant registry load when the parser is built; the algorithms load in ``run``.
"""
from .._cliutil import (add_backend_option, add_dask_option, add_output_option, add_threads_option,
                        add_variant_options)
from ._plot import MAX_PLOT_RECORDS
from ._variants import VARIANTS

FORMATS = ("vienna", "ct", "bpseq", "json")


def register(subparsers):
    parser = subparsers.add_parser(
        "fold", help="Nussinov folding: the structure with the most (weighted) base pairs",
        description="Fold each RNA of a FASTA file with Nussinov's algorithm and print its structure "
                    "and score (the weighted number of base pairs), record by record in input order.",
    )
    parser.add_argument("fasta", nargs="?", default="-", metavar="FASTA",
                        help="FASTA file, plain or compressed ('-', the default: standard input)")
    add_variant_options(parser, VARIANTS)
    add_backend_option(parser)
    add_threads_option(parser)
    add_dask_option(parser)
    parser.add_argument("--min-loop", type=int, default=3, metavar="K",
                        help="unpaired bases a pair must enclose (default 3, as ViennaRNA; 1 is the "
                             "recurrence of Chang et al. used by Li, Ranka & Sahni)")
    parser.add_argument("--no-gu", action="store_true", help="do not allow GU wobble pairs")
    parser.add_argument("--au", type=float, default=1, metavar="X", help="weight of an AU pair (default 1)")
    parser.add_argument("--gc", type=float, default=1, metavar="X", help="weight of a GC pair (default 1)")
    parser.add_argument("--gu", type=float, default=None, metavar="X", help="weight of a GU pair (default 1)")
    parser.add_argument("--format", choices=FORMATS, default="vienna",
                        help="vienna (default, like RNAfold), ct, bpseq or json (JSON Lines)")
    add_output_option(parser)
    parser.add_argument("--plot", metavar="FILE.svg|png|pdf", default=None,
                        help=f"also draw arc diagrams, one panel per record (the first {MAX_PLOT_RECORDS})")
    parser.set_defaults(run=run)


def _params(args):
    from ..errors import InvalidParameter
    from ._model import FoldParams

    if args.no_gu and args.gu is not None:
        raise InvalidParameter("--no-gu and --gu contradict each other; give one of them")
    gu = 0 if args.no_gu else (1 if args.gu is None else args.gu)
    return FoldParams(min_loop=args.min_loop, au=args.au, gc=args.gc, gu=gu)


def run(args, stdout, stderr):
    from .._output import open_output
    from .._plotting import plot_format
    from .._results import chunked
    from ..fasta import read_fasta
    from ._api import iter_nussinov, nussinov
    from ._formats import FoldWriter

    params = _params(args)
    if args.plot:
        plot_format(args.plot)
    options = dict(params=params, backend=args.backend, variant=args.variant, threads=args.threads)
    if args.dask:
        results = nussinov(read_fasta(args.fasta), client=args.dask, **options)
    else:
        results = iter_nussinov(read_fasta(args.fasta), **options)
    drawn = []
    with open_output(args.output, "w", stdout=stdout) as out:
        writer = FoldWriter(out, args.format)
        for chunk in chunked(results):
            writer.write(chunk)
            if args.plot:
                drawn.extend(chunk[:MAX_PLOT_RECORDS - len(drawn)])
    if args.plot:
        from ._plot import plot_arcs

        plot_arcs(drawn, args.plot)
    return 0
