"""``bioaccel motif``: show PSSMs, P-values of scores, score thresholds of P-values, COMPARE.

Only argparse, the command-line helpers and the variant registries load when the parser is built;
NumPy, Numba and the readers load in the ``run`` functions. The choices of --motif-format, --kind and
--preset are checked by the library (one-line errors), so that the parser needs none of it.
"""
from .._cliutil import add_backend_option, add_output_option, add_threads_option, add_variant_options
from ._variants import COMPARE_VARIANTS, VARIANTS

FORMATS = ("tsv", "json", "text")     # text: TSV, as before
STATS_COLUMNS = ["motif_id", "name", "length", "score", "pvalue", "pvalue_low", "pvalue_high", "variant"]


def _common(parser, registry=None):
    parser.add_argument("--motif-format", default="auto", metavar="FORMAT",
                        help="format of motif files: auto (default: from the extension or the content), jaspar, "
                             "pfm, meme, transfac, homer or matrix")
    parser.add_argument("--kind", default="auto", metavar="KIND",
                        help="plain matrices hold counts, frequencies or logodds (default: auto, detected)")
    parser.add_argument("--background", default="uniform", metavar="BG",
                        help="uniform (default), four frequencies A,C,G,T (e.g. 0.3,0.2,0.2,0.3), or a FASTA "
                             "file to estimate it from")
    parser.add_argument("--background-order", type=int, default=0, metavar="K",
                        help="order of the Markov background estimated from the FASTA file (default 0)")
    parser.add_argument("--preset", default="fimo", metavar="NAME",
                        help="pseudocount and log base of fimo (0.1, bits; default) or moods (0.01, natural log)")
    parser.add_argument("--pseudocount", type=float, default=None, metavar="PS",
                        help="total pseudocount per column, shared by the background (overrides the preset)")
    parser.add_argument("--log-base", type=float, default=None, metavar="B", help="log base of the scores")
    if registry is not None:
        add_variant_options(parser, registry)
        add_backend_option(parser)
        add_threads_option(parser)
        parser.add_argument("--slices", type=int, default=4, metavar="N",
                            help="bucket variant: slices N (default 4, as Giraud & Varré)")
        parser.add_argument("--buckets", type=int, default=3600, metavar="B",
                            help="bucket variant: buckets per table B (default 3600, as Giraud & Varré)")
        parser.add_argument("--precision", type=float, default=None, metavar="R",
                            help="exact variant: refine until the P-value bounds are within this relative "
                                 "gap (default 1e-3)")
        parser.add_argument("--plot", metavar="FILE.svg|png|pdf", default=None,
                            help="also draw the score distribution and P-value curve of the first motifs")
    parser.add_argument("--format", choices=FORMATS, default="tsv",
                        help="tsv (default; text is the same) or json (JSON Lines: one object per row)")
    add_output_option(parser)


def register(subparsers):
    parser = subparsers.add_parser(
        "motif", help="position weight matrices: P-values, thresholds, COMPARE",
        description="Statistics of position weight matrices (Giraud & Varré): score distributions with "
                    "certified error bounds by bioaccel's exact grid or BUCKETSCOREDISTRIBUTION, on the CPU or a "
                    "GPU. MOTIF is a file (JASPAR, MEME, TRANSFAC, HOMER, plain matrix; may hold many motifs; "
                    "plain or compressed; '-': standard input) or jaspar:ID / jaspar:YEAR/COLLECTION[/TAXON] "
                    "from the database shipped in pyjaspar.")
    sub = parser.add_subparsers(dest="motif_command", metavar="ACTION")
    show = sub.add_parser("show", help="print the PSSM of each motif")
    show.add_argument("motif", metavar="MOTIF")
    _common(show)
    show.set_defaults(run=run_show)
    pv = sub.add_parser("pvalue", help="SCORETOPVALUE: P(score >= S) for each motif")
    pv.add_argument("motif", metavar="MOTIF")
    pv.add_argument("--score", type=float, required=True, metavar="S")
    _common(pv, VARIANTS)
    pv.set_defaults(run=run_pvalue)
    th = sub.add_parser("threshold", help="PVALUETOSCORE: the score threshold of P-value P for each motif")
    th.add_argument("motif", metavar="MOTIF")
    th.add_argument("--pvalue", type=float, required=True, metavar="P")
    _common(th, VARIANTS)
    th.set_defaults(run=run_threshold)
    cmp_ = sub.add_parser("compare", help="COMPARE: words above both thresholds, one, neither, at every shift")
    cmp_.add_argument("motif1", metavar="M1")
    cmp_.add_argument("motif2", metavar="M2")
    cmp_.add_argument("--pvalue", type=float, required=True, metavar="P",
                      help="each matrix's threshold is its score threshold at this P-value (same variant)")
    cmp_.add_argument("--shift", type=int, default=None, metavar="D",
                      help="only this shift (matrix 2's first column at matrix 1's column D); default: all")
    _common(cmp_, COMPARE_VARIANTS)
    cmp_.set_defaults(run=run_compare)
    parser.set_defaults(run=lambda args, stdout, stderr: (parser.print_help(stderr), 2)[1])


def _params(args):
    from ._params import MotifParams

    return MotifParams(background=args.background, background_order=args.background_order, preset=args.preset,
                       pseudocount=args.pseudocount, log_base=args.log_base)


def _motifs(args, spec, params):
    from ..errors import InvalidParameter
    from .io import read_motifs

    motifs = read_motifs(spec, params=params, fmt=args.motif_format, kind=args.kind)
    if not motifs:
        raise InvalidParameter(f"{spec}: no motif")
    return motifs


def _options(args):
    return dict(variant=args.variant, backend=args.backend, threads=args.threads, precision=args.precision,
                slices=args.slices, buckets=args.buckets)


def _table_format(args):
    return "json" if args.format == "json" else "tsv"


def _pvalue_text(value):
    from .._results import format_number

    return format_number(value, digits=6)


def run_show(args, stdout, stderr):
    from .._output import open_output
    from .._results import TableWriter, format_number

    motifs = _motifs(args, args.motif, _params(args))
    with open_output(args.output, "w", stdout=stdout) as out:
        if args.format == "json":
            TableWriter(out, list(motifs[0].to_dict()), "json").write([m.to_dict() for m in motifs])
            return 0
        for m in motifs:
            out.write(f">{m.motif_id} {m.name}  length {m.length}  scores {format_number(m.min_score, digits=6)}.."
                      f"{format_number(m.max_score, digits=6)}  background {m.background.description}\n")
            matrix = TableWriter(out, ["pos", *"ACGT"], "tsv",
                                 {x: lambda v: format_number(v, digits=4) for x in "ACGT"})
            matrix.write([{"pos": i, **dict(zip("ACGT", row))} for i, row in enumerate(m.scores, 1)])
    return 0


def _plot_items(args, motifs, marks):
    from ._plot import MAX_PLOT_MOTIFS
    from ._stats import score_distribution

    return [(score_distribution(m, args.variant, backend=args.backend, precision=args.precision, slices=args.slices,
                                buckets=args.buckets, threads=args.threads),
             mark, f"{m.motif_id} {m.name}") for m, mark in list(zip(motifs, marks))[:MAX_PLOT_MOTIFS]]


def _columns(result_class):
    """The keys of ``result_class.to_dict()``: its table fields, then its derived values."""
    import dataclasses

    return [f.name for f in dataclasses.fields(result_class) if f.metadata.get("table", True)] + \
        list(result_class.DERIVED)


def _write_stats(args, stdout, motifs, results, result_class):
    """One row per motif: its id, name and length, then its P-value or threshold (TSV: the main
    columns; JSON: every field)."""
    from .._output import open_output
    from .._plotting import plot_format
    from .._results import TableWriter, chunked

    if args.plot:
        plot_format(args.plot)
    rows = ({"motif_id": m.motif_id, "name": m.name, "length": m.length, **r.to_dict()}
            for m, r in zip(motifs, results))
    columns = STATS_COLUMNS
    if args.format == "json":
        columns = ["motif_id", "name", "length"] + [c for c in _columns(result_class) if c != "motif_id"]
    marks = []              # the score of each row: the one asked, or the threshold found
    with open_output(args.output, "w", stdout=stdout) as out:
        writer = TableWriter(out, columns, _table_format(args),
                             {c: _pvalue_text for c in ("pvalue", "pvalue_low", "pvalue_high")})
        writer.header()
        for chunk in chunked(rows):
            writer.write(chunk)
            marks.extend(r["score"] for r in chunk)
    if args.plot:
        from ._plot import plot_distributions

        plot_distributions(_plot_items(args, motifs, marks), args.plot)
    return 0


def run_pvalue(args, stdout, stderr):
    from ._api import iter_pvalues
    from ._result import PValue
    from ._stats import check_variant

    check_variant(args.variant, args.backend)            # before reading any motif
    motifs = _motifs(args, args.motif, _params(args))
    return _write_stats(args, stdout, motifs, iter_pvalues(motifs, args.score, **_options(args)), PValue)


def run_threshold(args, stdout, stderr):
    from ._api import iter_thresholds
    from ._result import Threshold
    from ._stats import check_variant

    check_variant(args.variant, args.backend)
    motifs = _motifs(args, args.motif, _params(args))
    return _write_stats(args, stdout, motifs, iter_thresholds(motifs, args.pvalue, **_options(args)), Threshold)


def _interval(bounds):
    from .._results import format_number

    low, high = bounds
    return f"{format_number(low, digits=4)}..{format_number(high, digits=4)}"


COMPARE_COLUMNS = ["motif1", "motif2", "shift", "alpha", "beta", "both", "only1", "only2", "neither", "similarity"]
COMPARE_JSON = ["motif_id", "motif1", "motif2", "pvalue", "score", "best_shift", "similarity", "shifts"]


def run_compare(args, stdout, stderr):
    from .._output import open_output
    from .._plotting import plot_format
    from .._results import TableWriter, format_number
    from ._api import iter_compare, thresholds

    COMPARE_VARIANTS.resolve(args.variant, args.backend)   # before reading any motif
    params = _params(args)
    first, second = _motifs(args, args.motif1, params), _motifs(args, args.motif2, params)
    if args.plot:
        plot_format(args.plot)
    cut1, cut2 = (thresholds(motifs, args.pvalue, **_options(args)) for motifs in (first, second))
    shifts = "all" if args.shift is None else [args.shift]
    with open_output(args.output, "w", stdout=stdout) as out:
        if args.format == "json":
            writer = TableWriter(out, COMPARE_JSON, "json")
        else:
            writer = TableWriter(out, COMPARE_COLUMNS, "tsv",
                                 {**{k: _interval for k in ("both", "only1", "only2", "neither")},
                                  "similarity": lambda v: format_number(v, digits=4)})
        writer.header()
        for m1, t1 in zip(first, cut1):
            for m2, t2 in zip(second, cut2):
                results = list(iter_compare(m1, m2, alpha=t1.score, beta=t2.score, shifts=shifts, **_options(args)))
                if args.format == "json":
                    best = max(results, key=lambda r: r.similarity)
                    writer.write([{"motif_id": f"{m1.motif_id}~{m2.motif_id}", "motif1": m1.motif_id,
                                   "motif2": m2.motif_id, "pvalue": args.pvalue,
                                   "score": [t1.to_dict()["score"], t2.to_dict()["score"]],
                                   "best_shift": best.shift, "similarity": best.similarity,
                                   "shifts": [r.to_dict() for r in results]}])
                else:
                    writer.write([{"motif1": r.motif1, "motif2": r.motif2, "shift": r.shift, "alpha": r.alpha,
                                   "beta": r.beta, "both": r.both, "only1": r.only1, "only2": r.only2,
                                   "neither": r.neither, "similarity": r.similarity} for r in results])
    if args.plot:
        from ._plot import plot_distributions

        plot_distributions(_plot_items(args, first, [t.score for t in cut1]), args.plot)
    return 0
