"""``bioaccel interact``: BPMax of every query against every target.

Only argparse, the command-line helpers and the variant registry load when the parser is built; the
algorithms (NumPy, Numba, pandas) load in ``run``.
"""
from .._cliutil import add_backend_option, add_output_option, add_threads_option, add_variant_options
from ._variants import VARIANTS

FORMATS = ("tsv", "json")


def register(subparsers):
    parser = subparsers.add_parser(
        "interact", help="BPMax RNA-RNA interaction: weighted intra- and intermolecular base pairs",
        description="Score how each query RNA (e.g. a small viral RNA) interacts with each target RNA "
                    "(BPMax of Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz: the joint structure with "
                    "the most weighted base pairs, GC 3, AU and GU as given). With --window-target W "
                    "the target is scanned in windows of W + 1 nt (intervals with end - start <= W) and "
                    "the best window is reported. Coordinates are 0-based, half-open, on the target as "
                    "given. Output: one row per query and target, targets in file order, each against "
                    "every query in file order.",
    )
    parser.add_argument("queries", metavar="QUERIES", help="FASTA file of query RNAs (strand 1)")
    parser.add_argument("targets", metavar="TARGETS", help="FASTA file of target RNAs (strand 2, '-' for stdin)")
    parser.add_argument("--window-query", type=int, default=None, metavar="W1",
                        help="query window: intervals with j1 - i1 <= W1 (default: none)")
    parser.add_argument("--window-target", type=int, default=None, metavar="W2",
                        help="target window: intervals with j2 - i2 <= W2 (default: none; Gildemaster "
                             "2021 scans viral small RNAs against human transcripts with 128)")
    parser.add_argument("--au", type=float, default=1.0, metavar="X", help="weight of an AU pair (default 1)")
    parser.add_argument("--gu", type=float, default=1.5, metavar="X", help="weight of a GU pair (default 1.5)")
    add_variant_options(parser, VARIANTS)
    add_backend_option(parser)
    add_threads_option(parser)
    parser.add_argument("--structure", action="store_true",
                        help="also trace an optimal joint structure of the best window pair: dot-bracket "
                             "'query&target' and the intermolecular pairs (query:target, 0-based)")
    parser.add_argument("--format", choices=FORMATS, default="tsv",
                        help="tsv (default, with a header) or json (JSON Lines, same field names)")
    add_output_option(parser)
    parser.add_argument("--profile", metavar="FILE", default=None,
                        help="write the best score covering each target position as bedGraph "
                             "(0-based half-open, target as given)")
    parser.set_defaults(run=run)


def run(args, stdout, stderr):
    import contextlib

    from .._output import open_output
    from ..fasta import read_fasta
    from ._api import iter_bpmax
    from ._formats import columns, interaction_writer
    from ._model import InteractParams
    from ._window import write_bedgraph

    params = InteractParams(au=args.au, gu=args.gu, window_query=args.window_query,
                            window_target=args.window_target)
    results = iter_bpmax(read_fasta(args.queries), read_fasta(args.targets), params=params,
                         backend=args.backend, variant=args.variant, threads=args.threads,
                         structure=args.structure)
    names = columns(args.window_query is not None, args.window_target is not None, args.structure)
    with contextlib.ExitStack() as stack:
        out = stack.enter_context(open_output(args.output, "w", stdout=stdout))
        profile = stack.enter_context(open_output(args.profile, "w")) if args.profile else None
        writer = interaction_writer(out, names, args.format)
        writer.header()
        for item in results:
            writer.write([item])  # a row as soon as it is computed
            if profile is not None:
                write_bedgraph(profile, [item])
    return 0
