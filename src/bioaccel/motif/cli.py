"""``bioaccel motif``: show PSSMs, P-values of scores, score thresholds of P-values, COMPARE.

Only argparse, the command-line helpers and the variant registries load when the parser is built;
NumPy, Numba and the readers load in the ``run`` functions. The choices of --motif-format, --kind and
--preset are checked by the library (one-line errors), so that the parser needs none of it.
"""
from .._cliutil import add_backend_option, add_output_option, add_threads_option, add_variant_options
from ._variants import COMPARE_VARIANTS, VARIANTS

FORMATS = ("tsv", "json", "text")     # text: TSV, as before
PVALUE_COLUMNS = ["motif_id", "name", "length", "score", "pvalue", "pvalue_low", "pvalue_high", "exact", "variant",
                  "note"]
THRESHOLD_COLUMNS = ["motif_id", "name", "length", "p", "score", "pvalue", "pvalue_low", "pvalue_high",
                     "score_low", "pvalue_below", "exact", "variant", "note"]
#: COMPARE's default P-value. 1e-4 leaves a 6-column motif a single word at most (4**6 x 1e-4 < 1), so
#: overlaps between short motifs could not be measured; at 1e-3 it keeps a few words, as MACRO-APE's
#: default of 5e-4 does for 7-mers.
COMPARE_DEFAULT_P = 1e-3


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
                        help="how counts become log-odds: fimo (pseudocount 0.1, bits, each column against its own "
                             "total; default), meme (0.1, bits, one site count per motif: scores equal FIMO's on "
                             "the same MEME file) or moods (0.01, natural log)")
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
                            help="exact variant: answers are exact by default (the optimal threshold; a P-value to "
                                 "the last word); with R, stop once the uncertain words weigh at most R x P "
                                 "(faster on long matrices; the results then say exact False)")
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
    pv = sub.add_parser("pvalue", help="SCORETOPVALUE: P(score >= S) for each motif",
                        description="P(score >= S) of each motif for every score given (--score, --scores, "
                                    "--word), one row each. A word's own score always counts that word.")
    pv.add_argument("motif", metavar="MOTIF")
    pv.add_argument("--score", type=float, action="append", default=[], metavar="S",
                    help="a score (repeat for several)")
    pv.add_argument("--scores", metavar="FILE", default=None,
                    help="a file of scores, separated by spaces, commas or new lines")
    pv.add_argument("--word", action="append", default=[], metavar="ACGT",
                    help="the score of this word, for each motif as long as it (repeat for several)")
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
    cmp_.add_argument("--pvalue", type=float, default=COMPARE_DEFAULT_P, metavar="P",
                      help="each matrix's threshold is its score threshold at this P-value (same variant; "
                           f"default {COMPARE_DEFAULT_P:g}: at 1e-4 a 6-column motif keeps one word at most)")
    cmp_.add_argument("--shift", type=int, default=None, metavar="D",
                      help="only this shift (matrix 2's first column at matrix 1's column D); default: all")
    cmp_.add_argument("--all-shifts", action="store_true",
                      help="one row per shift and strand (default: one row per pair, its best shift and strand)")
    cmp_.add_argument("--forward-only", action="store_true",
                      help="compare matrix 2 as given only (default: also its reverse complement)")
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


def _write_stats(args, stdout, rows, columns, json_columns, marks_of):
    """One row per answer (TSV: ``columns``; JSON: ``json_columns``); then the plot, if asked for."""
    from .._output import open_output
    from .._plotting import plot_format
    from .._results import TableWriter, chunked, format_number

    if args.plot:
        plot_format(args.plot)
    marks = []              # (motif, score) of each row: the one asked, or the threshold found
    with open_output(args.output, "w", stdout=stdout) as out:
        if args.format == "json":
            writer = TableWriter(out, json_columns, "json")
        else:
            writer = TableWriter(out, columns, "tsv", {**{c: _pvalue_text for c in
                                                          ("p", "pvalue", "pvalue_low", "pvalue_high", "pvalue_below")},
                                                       "note": lambda v: "-" if v is None else str(v),
                                                       "score_low": lambda v: format_number(v)})
        writer.header()
        for chunk in chunked(rows):
            writer.write([row for _, row in chunk])
            marks.extend((motif, row["score"]) for motif, row in chunk)
    if args.plot:
        from ._plot import plot_distributions

        seen, firsts = set(), []
        for motif, score in marks:          # one panel per motif, marked at its first row's score
            if motif.motif_id not in seen:
                seen.add(motif.motif_id)
                firsts.append((motif, score))
        plot_distributions(_plot_items(args, [m for m, _ in firsts], [sc for _, sc in firsts]), args.plot)
    return 0


def _read_scores(path):
    """The numbers of a scores file (spaces, commas or new lines between them)."""
    import re

    from .._files import read_text
    from ..errors import InputError

    values = []
    for lineno, line in enumerate(read_text(path, expected="a file of scores").splitlines(), start=1):
        for token in re.split(r"[\s,;]+", line.split("#")[0].strip()):
            if not token:
                continue
            try:
                value = float(token)
            except ValueError:
                raise InputError(f"{path}: line {lineno}: {token!r} is not a number") from None
            if value != value:
                raise InputError(f"{path}: line {lineno}: {token!r} is not a number")
            values.append(value)
    if not values:
        raise InputError(f"{path}: no score in the file")
    return values


def run_pvalue(args, stdout, stderr):
    import math

    from ..errors import InvalidParameter
    from ._api import iter_pvalues
    from ._stats import check_variant

    check_variant(args.variant, args.backend)            # before reading any motif
    scores = list(args.score) + (_read_scores(args.scores) if args.scores else [])
    for value in scores:
        if math.isnan(value):
            raise InvalidParameter("--score nan is not a score")
    if not scores and not args.word:
        raise InvalidParameter("give at least one --score S, --scores FILE or --word ACGT")
    motifs = _motifs(args, args.motif, _params(args))
    for word in args.word:      # a word is asked of the motifs of its length
        if not any(len(word) == m.length for m in motifs):
            lengths = sorted({m.length for m in motifs})
            raise InvalidParameter(f"--word {word!r}: {len(word)} letters, but the motifs have "
                                   f"{', '.join(map(str, lengths))}")
    options = _options(args)

    def rows():
        for motif in motifs:
            asked = [(None, s) for s in scores] + [(w, motif.score(w)) for w in args.word if len(w) == motif.length]
            answers = iter_pvalues(motif, [s for _, s in asked], **options)
            for (word, _), r in zip(asked, answers):
                row = {"motif_id": motif.motif_id, "name": motif.name, "length": motif.length, **r.to_dict()}
                if args.word:
                    row["word"] = word or "-"
                yield motif, row

    columns = PVALUE_COLUMNS[:4] + (["word"] if args.word else []) + PVALUE_COLUMNS[4:]
    json_columns = columns[:-2] + ["grid_step", "backend", "note"]
    return _write_stats(args, stdout, rows(), columns, json_columns, None)


def run_threshold(args, stdout, stderr):
    from ._api import iter_thresholds
    from ._stats import check_variant

    check_variant(args.variant, args.backend)
    motifs = _motifs(args, args.motif, _params(args))

    def rows():
        for motif, r in zip(motifs, iter_thresholds(motifs, args.pvalue, **_options(args))):
            yield motif, {"motif_id": motif.motif_id, "name": motif.name, "length": motif.length, **r.to_dict()}

    json_columns = THRESHOLD_COLUMNS[:-1] + ["grid_step", "backend", "note"]
    return _write_stats(args, stdout, rows(), THRESHOLD_COLUMNS, json_columns, None)


def _interval(bounds):
    from .._results import format_number

    low, high = bounds
    return f"{format_number(low, digits=4)}..{format_number(high, digits=4)}"


COMPARE_COLUMNS = ["motif1", "motif2", "strand", "shift", "alpha", "beta", "both", "only1", "only2", "neither",
                   "similarity"]
COMPARE_JSON = ["motif1", "motif2", "strand", "shift", "span", "pvalue", "alpha", "beta", "both_low", "both_high",
                "only1_low", "only1_high", "only2_low", "only2_high", "neither_low", "neither_high", "similarity",
                "variant"]


def run_compare(args, stdout, stderr):
    import itertools

    from .._output import open_output
    from .._plotting import plot_format
    from .._results import TableWriter, format_number
    from ._api import best_per_pair, iter_compare

    COMPARE_VARIANTS.resolve(args.variant, args.backend)   # before reading any motif
    params = _params(args)
    first, second = _motifs(args, args.motif1, params), _motifs(args, args.motif2, params)
    if args.plot:
        plot_format(args.plot)
    shifts = "all" if args.shift is None else [args.shift]
    strands = "+" if args.forward_only else "both"
    with open_output(args.output, "w", stdout=stdout) as out:
        if args.format == "json":
            writer = TableWriter(out, COMPARE_JSON, "json")
        else:
            writer = TableWriter(out, COMPARE_COLUMNS, "tsv",
                                 {**{k: _interval for k in ("both", "only1", "only2", "neither")},
                                  "similarity": lambda v: format_number(v, digits=4)})
        writer.header()

        def row(r):
            return {**r.to_dict(), "both": r.both, "only1": r.only1, "only2": r.only2, "neither": r.neither,
                    "pvalue": args.pvalue}

        # every pair, each motif's threshold computed once; a pair's rows come together, so its best
        # row is written as soon as the pair is done
        results = iter_compare(first, second, p=args.pvalue, shifts=shifts, strands=strands, **_options(args))
        for _, rows in itertools.groupby(results, key=lambda r: (r.motif1, r.motif2)):
            rows = list(rows)
            writer.write([row(r) for r in (rows if args.all_shifts else best_per_pair(rows))])
    if args.plot:
        from ._api import thresholds

        cut1 = thresholds(first, args.pvalue, **_options(args))
        plot_distributions_for(args, first, [t.score for t in cut1])
    return 0


def plot_distributions_for(args, motifs, marks):
    from ._plot import plot_distributions

    plot_distributions(_plot_items(args, motifs, marks), args.plot)
