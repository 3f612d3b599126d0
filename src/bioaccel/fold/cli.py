"""``bioaccel fold``: Nussinov folding of every record of a FASTA file."""
from .._cliutil import add_backend_option, add_dask_option, add_output_option, add_threads_option
from .._output import open_output
from ..errors import InvalidParameter
from ..fasta import read_fasta
from ._api import iter_nussinov, nussinov
from ._cpu import CPU_VARIANTS
from ._formats import FORMATS, WRITERS
from ._model import FoldParams
from ._plot import MAX_PLOT_RECORDS, plot_arcs, plot_format

GPU_VARIANTS = "fast (default), diagonal, two-kernel, blocked, blocked-packed"


def register(subparsers):
    parser = subparsers.add_parser(
        "fold", help="Nussinov folding: the structure with the most (weighted) base pairs",
        description="Fold each RNA of a FASTA file with Nussinov's algorithm and print its structure "
                    "and score (the weighted number of base pairs), record by record in input order.",
    )
    parser.add_argument("fasta", nargs="?", default="-", metavar="FASTA",
                        help="FASTA file, plain or gzip ('-', the default: standard input)")
    parser.add_argument("--variant", default=None, metavar="V",
                        help=f"algorithm; cpu: {', '.join(CPU_VARIANTS)} (first is the default); "
                             f"gpu: {GPU_VARIANTS}")
    add_backend_option(parser)
    add_threads_option(parser)
    add_dask_option(parser)
    parser.add_argument("--min-loop", type=int, default=3, metavar="K",
                        help="unpaired bases a pair must enclose (default 3; 1 is seed 001's recurrence)")
    parser.add_argument("--no-gu", action="store_true", help="do not allow GU wobble pairs")
    parser.add_argument("--au", type=float, default=1, metavar="X", help="weight of an AU pair (default 1)")
    parser.add_argument("--gc", type=float, default=1, metavar="X", help="weight of a GC pair (default 1)")
    parser.add_argument("--gu", type=float, default=None, metavar="X", help="weight of a GU pair (default 1)")
    parser.add_argument("--format", choices=FORMATS, default="vienna",
                        help="vienna (default, like RNAfold), ct, bpseq or json (JSON Lines)")
    add_output_option(parser)
    parser.add_argument("--plot", metavar="FILE.svg|png", default=None,
                        help=f"also draw arc diagrams, one panel per record (the first {MAX_PLOT_RECORDS})")
    parser.set_defaults(run=run)


def _params(args):
    if args.no_gu and args.gu is not None:
        raise InvalidParameter("--no-gu and --gu contradict each other; give one of them")
    gu = 0 if args.no_gu else (1 if args.gu is None else args.gu)
    return FoldParams(min_loop=args.min_loop, au=args.au, gc=args.gc, gu=gu)


def run(args, stdout, stderr):
    params = _params(args)
    if args.plot:
        plot_format(args.plot)
    options = dict(backend=args.backend, variant=args.variant, threads=args.threads, params=params)
    if args.dask:
        results = nussinov(read_fasta(args.fasta), client=args.dask, **options)
    else:
        results = iter_nussinov(read_fasta(args.fasta), **options)
    write = WRITERS[args.format]
    drawn = []
    with open_output(args.output, "w", stdout=stdout) as out:
        for result in results:
            write(out, result)
            if args.plot and len(drawn) < MAX_PLOT_RECORDS:
                drawn.append(result)
    if args.plot:
        plot_arcs(drawn, args.plot)
    return 0
