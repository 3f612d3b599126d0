"""``bioaccel motif``: show PSSMs, P-values of scores, score thresholds of P-values, COMPARE.

Only argparse, the command-line helpers and the variant registries load when the parser is built;
NumPy, Numba and the readers load in the ``run`` functions. The choices of --motif-format, --kind and
--preset are checked by the library (one-line errors), so that the parser needs none of it.
"""
from .options import (add_backend_option, add_output_option, add_quiet_option, add_threads_option,
                      add_variant_options)
from ..motif._variants import COMPARE_VARIANTS, VARIANTS

DEFAULT_JASPAR_RELEASE = "2024"       # _jaspar.DEFAULT_RELEASE (a test keeps the two equal)
EXPORT_FORMATS = ("jaspar", "meme")

FORMATS = ("tsv", "json", "text")     # text: TSV, as before
PVALUE_COLUMNS = ["motif_id", "name", "length", "score", "pvalue", "pvalue_low", "pvalue_high", "exact", "variant",
                  "note"]
THRESHOLD_COLUMNS = ["motif_id", "name", "length", "p", "score", "pvalue", "pvalue_low", "pvalue_high",
                     "score_low", "pvalue_below", "exact", "variant", "note"]
#: COMPARE's default P-value. 1e-4 leaves a 6-column motif a single word at most (4**6 x 1e-4 < 1), so
#: overlaps between short motifs could not be measured; at 1e-3 it keeps a few words, as MACRO-APE's
#: default of 5e-4 does for 7-mers.
COMPARE_DEFAULT_P = 1e-3


MOTIF_HELP = ("a motif file (JASPAR, MEME, TRANSFAC, HOMER or a plain matrix; may hold many motifs; plain or "
              "compressed; '-' reads standard input) or jaspar:ID, jaspar:YEAR/ID, jaspar:YEAR/COLLECTION[/TAXON] "
              f"(the JASPAR database shipped in pyjaspar; release {DEFAULT_JASPAR_RELEASE} unless a year is given)")


def _reading(parser):
    """How motif files are read and scored (every action)."""
    parser.add_argument("--motif-format", default="auto", metavar="FORMAT",
                        help="format of motif files: auto (default: from the extension or the content), jaspar, "
                             "pfm, meme, transfac, homer or matrix")
    parser.add_argument("--kind", default="auto", metavar="KIND",
                        help="what plain matrices hold: counts, frequencies or logodds (default: auto, counts or "
                             "frequencies by their row sums; a log-odds matrix must be named so)")
    parser.add_argument("--background", default="uniform", metavar="BG",
                        help="uniform (default), four frequencies A,C,G,T (e.g. 0.3,0.2,0.2,0.3 or "
                             "A=0.3,C=0.2,G=0.2,T=0.3), or a FASTA file to estimate it from")
    parser.add_argument("--background-order", type=int, default=0, metavar="K",
                        help="order of the Markov background estimated from the FASTA file given to "
                             "--background (default 0; 1 to 5 need a FASTA file)")


def _scoring(parser):
    parser.add_argument("--preset", default="fimo", metavar="NAME",
                        help="how counts become log-odds: fimo (pseudocount 0.1, bits, each column against its own "
                             "total; default), meme (0.1, bits, one site count per motif: scores equal FIMO's on "
                             "the same MEME file) or moods (0.01, natural log)")
    parser.add_argument("--pseudocount", type=float, default=None, metavar="PS",
                        help="total pseudocount per column, shared by the background (overrides the preset)")
    parser.add_argument("--log-base", type=float, default=None, metavar="B",
                        help="log base of the scores, a number > 1 (overrides the preset: 2 gives bits, "
                             "2.718281828 nats)")


def _common(parser, registry=None):
    _reading(parser)
    _scoring(parser)
    if registry is not None:
        add_variant_options(parser, registry)
        add_backend_option(parser, registry=registry)
        add_threads_option(parser)
        parser.add_argument("--slices", type=int, default=None, metavar="N",
                            help="bucket variant: slices N, at most the motif's columns (default 4, as Giraud & "
                                 "Varré, or the columns of a shorter motif)")
        parser.add_argument("--buckets", type=int, default=3600, metavar="B",
                            help="bucket variant: buckets per table B (default 3600, as Giraud & Varré)")
        parser.add_argument("--precision", type=float, default=None, metavar="R",
                            help="exact variant: answers are exact by default (the optimal threshold; a P-value to "
                                 "the last word); with R, stop once the uncertain words weigh at most R x P "
                                 "(faster on long matrices; the results then say exact False)")
        parser.add_argument("--plot", metavar="FILE.svg|png|pdf", default=None,
                            help="also draw the score distribution and P-value curve of the first motifs; needs "
                                 "matplotlib (bioaccel[plot])")
    parser.add_argument("--format", choices=FORMATS, default="tsv",
                        help="tsv (default; text is the same) or json (JSON Lines: one object per row)")
    add_output_option(parser)
    add_quiet_option(parser)


def register(subparsers):
    parser = subparsers.add_parser(
        "motif", help="position weight matrices: P-values, thresholds, COMPARE",
        description="Statistics of position weight matrices (Giraud & Varré): score distributions with "
                    "certified error bounds by bioaccel's exact grid or BUCKETSCOREDISTRIBUTION, on the CPU or a "
                    "GPU. MOTIF is a file (JASPAR, MEME, TRANSFAC, HOMER, plain matrix; may hold many motifs; "
                    "plain or compressed; '-': standard input) or jaspar:ID / jaspar:YEAR/COLLECTION[/TAXON] "
                    f"from the database shipped in pyjaspar (JASPAR {DEFAULT_JASPAR_RELEASE} unless a year is "
                    "given: jaspar:MA0066.1 and jaspar:2026/MA0066.1).")
    sub = parser.add_subparsers(dest="motif_command", metavar="ACTION")
    show = sub.add_parser("show", help="print the PSSM of each motif",
                          description="Print each motif's position-specific scoring matrix (log-odds per column "
                                      "and letter), its score range and background.")
    show.add_argument("motif", metavar="MOTIF", help=MOTIF_HELP)
    _common(show)
    show.set_defaults(run=run_show)
    export = sub.add_parser("export", help="write motifs as a JASPAR or MEME file",
                            description="Write the motifs of any source (a file of any format, jaspar:ID, a "
                                        "JASPAR collection) as a JASPAR count file or a MEME minimal-format file: "
                                        "counts when the source has them, else the frequencies with their site "
                                        "count (nsites).")
    export.add_argument("motif", metavar="MOTIF", nargs="+", help=MOTIF_HELP + "; several are written to one file")
    _reading(export)
    export.add_argument("--format", choices=EXPORT_FORMATS, default="jaspar",
                        help="jaspar (default: counts, rows A C G T) or meme (letter probabilities, nsites, "
                             "and the background's letter frequencies in the header)")
    add_output_option(export)
    add_quiet_option(export)
    export.set_defaults(run=run_export)
    pv = sub.add_parser("pvalue", help="SCORETOPVALUE: P(score >= S) for each motif",
                        description="P(score >= S) of each motif for every score given (--score, --scores, "
                                    "--word), one row each. A word's own score always counts that word.")
    pv.add_argument("motif", metavar="MOTIF", help=MOTIF_HELP)
    pv.add_argument("--score", type=float, action="append", default=[], metavar="S",
                    help="a score (repeat for several)")
    pv.add_argument("--scores", metavar="FILE", default=None,
                    help="a file of scores, separated by spaces, commas or new lines ('#' starts a comment)")
    pv.add_argument("--word", action="append", default=[], metavar="ACGT",
                    help="the score of this word, for each motif as long as it (repeat for several)")
    _common(pv, VARIANTS)
    pv.set_defaults(run=run_pvalue)
    th = sub.add_parser("threshold", help="PVALUETOSCORE: the score threshold of P-value P for each motif",
                        description="The optimal score threshold of each motif at P-value P: the smallest "
                                    "attainable score whose P-value is <= P, with its exact P-value and the next "
                                    "score down.")
    th.add_argument("motif", metavar="MOTIF", help=MOTIF_HELP)
    th.add_argument("--pvalue", type=float, required=True, metavar="P",
                    help="the P-value, in (0, 1] (e.g. 1e-4)")
    _common(th, VARIANTS)
    th.set_defaults(run=run_threshold)
    cmp_ = sub.add_parser("compare", help="COMPARE: words above both thresholds, one, neither, at every shift",
                          description="COMPARE (Giraud & Varré): for every motif of M1 against every motif of M2, "
                                      "the probability of the words scoring above both thresholds, above one only "
                                      "and above neither, at the best shift and strand (or at every one).")
    cmp_.add_argument("motif1", metavar="M1", help="the first motifs (" + MOTIF_HELP + ")")
    cmp_.add_argument("motif2", metavar="M2", help="the second motifs, as M1 (not both '-')")
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
    from ..motif._params import MotifParams

    return MotifParams(background=args.background, background_order=args.background_order,
                       preset=getattr(args, "preset", "fimo"), pseudocount=getattr(args, "pseudocount", None),
                       log_base=getattr(args, "log_base", None))


def _stdin_once(args, *options):
    """Standard input can be read once: refuse two inputs given as '-'."""
    from ..errors import InvalidParameter

    named = [(option, getattr(args, attr)) for option, attr in options if getattr(args, attr, None) == "-"]
    if len(named) > 1:
        raise InvalidParameter(f"{named[0][0]} and {named[1][0]} both read standard input ('-'); give at most "
                               "one as '-'")


def _motifs(args, spec, params):
    from ..errors import InvalidParameter
    from ..motif.io import read_motifs

    motifs = read_motifs(spec, params=params, fmt=args.motif_format, kind=args.kind)
    if not motifs:
        raise InvalidParameter(f"{spec}: no motif")
    if getattr(args, "slices", None) is not None:
        for m in motifs:
            if args.slices > m.length:
                raise InvalidParameter(f"--slices {args.slices}: motif {m.motif_id} has {m.length} column"
                                       f"{'s' if m.length != 1 else ''}; give at most {m.length} slices")
    return motifs


def _slices(args):
    from ..motif._bucket import DEFAULT_SLICES

    return DEFAULT_SLICES if args.slices is None else args.slices


def _options(args):
    return dict(variant=args.variant, backend=args.backend, threads=args.threads, precision=args.precision,
                slices=_slices(args), buckets=args.buckets)


def _check_options(args, registry):
    """Everything checked before any motif is read: the variant, numbers, the plot, the bucket tables'
    memory. Returns the variant."""
    from ..runtime.parallel import resolve_threads
    from ..results.plotting import check_plot
    from ..errors import InvalidParameter
    from ..motif._stats import check_precision, check_variant

    if registry is VARIANTS:
        variant = check_variant(args.variant, args.backend)
    else:
        variant = COMPARE_VARIANTS.resolve(args.variant, args.backend)
    resolve_threads(args.threads)
    check_precision(args.precision)
    if args.slices is not None and args.slices < 1:
        raise InvalidParameter(f"--slices must be a whole number >= 1, got {args.slices}")
    if args.buckets < 2:
        raise InvalidParameter(f"--buckets must be a whole number >= 2, got {args.buckets}")
    if variant == "bucket":
        from ..motif._bucket import check_bucket_memory

        check_bucket_memory(args.buckets, args.background_order)
    if args.plot:
        check_plot(args.plot)
    return variant


def _announce_bucket(args, stderr, motifs, variant):
    """The bucket variant enumerates 4**L words per slice: announce a long batch before its first motif."""
    from ..runtime.parallel import resolve_threads
    from .progress import announce
    from ..motif._bucket import slice_bounds

    if variant != "bucket" or args.backend != "cpu":
        return
    words = sum(4.0 ** (b - a) for m in motifs for a, b in slice_bounds(m.length, min(_slices(args), m.length)))
    seconds = words / (BUCKET_WORDS_PER_SECOND * resolve_threads(args.threads))
    longest = max(m.length for m in motifs)
    announce(stderr, "bioaccel motif", seconds,
             f"{len(motifs):,} motif{'s' if len(motifs) != 1 else ''} of up to {longest} columns by buckets",
             "more --slices, or the exact variant, would be faster", quiet=args.quiet)


#: Words the CPU bucket enumeration scores per second and thread (measured on the development machine).
BUCKET_WORDS_PER_SECOND = 3e7


def _outputs(args, stdout):
    from ..results.output import Outputs

    return Outputs({"-o": "-" if args.output is None else args.output, "--plot": getattr(args, "plot", None)},
                   modes={"--plot": "wb"}, stdout=stdout)


def _pvalue_text(value):
    from ..results.values import format_number

    return format_number(value, digits=6)


def run_show(args, stdout, stderr):
    from ..results.tables import TableWriter
    from ..results.values import format_number

    _stdin_once(args, ("MOTIF", "motif"), ("--background", "background"))
    params = _params(args)
    with _outputs(args, stdout) as outputs:
        motifs = _motifs(args, args.motif, params)
        out = outputs["-o"]
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


def run_export(args, stdout, stderr):
    from ..errors import InvalidParameter
    from ..motif._export import write_motifs
    from ..motif.io import read_raw_spec

    if args.motif.count("-") > 1 or ("-" in args.motif and args.background == "-"):
        raise InvalidParameter("standard input ('-') can be read once; give it as one input at most")
    background = _params(args).background_model
    with _outputs(args, stdout) as outputs:
        raws = []
        for spec in args.motif:
            found = read_raw_spec(spec, fmt=args.motif_format, kind=args.kind)
            if not found:
                raise InvalidParameter(f"{spec}: no motif")
            raws.extend(found)
        write_motifs(raws, outputs["-o"], args.format, background)
    return 0


def _plot_items(args, motifs, marks):
    from ..motif._plot import MAX_PLOT_MOTIFS
    from ..motif._stats import score_distribution

    return [(score_distribution(m, args.variant, backend=args.backend, precision=args.precision, slices=_slices(args),
                                buckets=args.buckets, threads=args.threads),
             mark, f"{m.motif_id} {m.name}") for m, mark in list(zip(motifs, marks))[:MAX_PLOT_MOTIFS]]


def _write_stats(args, stderr, outputs, motifs, rows, columns, json_columns):
    """One row per answer (TSV: ``columns``; JSON: ``json_columns``); a progress bar over the motifs;
    then the plot, if asked for."""
    from .progress import progress, wanted
    from ..results.tables import TableWriter, chunked
    from ..results.values import format_number

    out = outputs["-o"]
    if args.format == "json":
        writer = TableWriter(out, json_columns, "json")
    else:
        writer = TableWriter(out, columns, "tsv", {**{c: _pvalue_text for c in
                                                      ("p", "pvalue", "pvalue_low", "pvalue_high", "pvalue_below")},
                                                   "note": lambda v: "-" if v is None else str(v),
                                                   "score_low": lambda v: format_number(v)})
    marks = []              # (motif, score) of each row: the one asked, or the threshold found
    writer.header()
    with progress(total=len(motifs), unit="motif", desc="motif", enabled=wanted(args.quiet, stderr),
                  stream=stderr) as bar:
        last = None
        for chunk in chunked(rows):
            writer.write([row for _, row in chunk])
            marks.extend((motif, row["score"]) for motif, row in chunk)
            for motif, _ in chunk:
                if motif is not last:
                    bar.update(1)
                    last = motif
    if args.plot:
        from ..motif._plot import plot_distributions

        seen, firsts = set(), []
        for motif, score in marks:          # one panel per motif, marked at its first row's score
            if motif.motif_id not in seen:
                seen.add(motif.motif_id)
                firsts.append((motif, score))
        plot_distributions(_plot_items(args, [m for m, _ in firsts], [sc for _, sc in firsts]), args.plot,
                           outputs["--plot"])
    return 0


def _read_scores(path):
    """The numbers of a scores file (spaces, commas or new lines between them)."""
    import math
    import re

    from ..inputs.files import display_name, read_text
    from ..errors import InputError

    name = display_name(path)
    values = []
    for lineno, line in enumerate(read_text(path, expected="a file of scores").splitlines(), start=1):
        for token in re.split(r"[\s,;]+", line.split("#")[0].strip()):
            if not token:
                continue
            try:
                value = float(token)
            except ValueError:
                raise InputError(f"{name}: line {lineno}: {token!r} is not a number") from None
            if math.isnan(value):
                raise InputError(f"{name}: line {lineno}: {token!r} is not a score")
            values.append(value)
    if not values:
        raise InputError(f"{name}: no score in the file")
    return values


def run_pvalue(args, stdout, stderr):
    import math

    from ..errors import InvalidParameter
    from ..motif._api import iter_pvalues

    _stdin_once(args, ("MOTIF", "motif"), ("--background", "background"), ("--scores", "scores"))
    variant = _check_options(args, VARIANTS)            # before reading any motif
    for value in args.score:
        if math.isnan(value):
            raise InvalidParameter("--score nan is not a score")
    for word in args.word:
        bad = next((c for c in word.upper() if c not in "ACGTU"), None)
        if bad is not None or not word:
            raise InvalidParameter(f"--word {word!r}: expected a word of A, C, G, T/U"
                                   + (f", found {bad!r}" if bad else ""))
    params = _params(args)
    with _outputs(args, stdout) as outputs:
        scores = list(args.score) + (_read_scores(args.scores) if args.scores else [])
        if not scores and not args.word:
            raise InvalidParameter("give at least one --score S, --scores FILE or --word ACGT")
        motifs = _motifs(args, args.motif, params)
        for word in args.word:      # a word is asked of the motifs of its length
            if not any(len(word) == m.length for m in motifs):
                lengths = sorted({m.length for m in motifs})
                raise InvalidParameter(f"--word {word!r}: {len(word)} letters, but the motifs have "
                                       f"{', '.join(map(str, lengths))}")
        _announce_bucket(args, stderr, motifs, variant)
        options = _options(args)

        def rows():
            for motif in motifs:
                asked = [(None, s) for s in scores] + [(w, motif.score(w.upper().replace("U", "T")))
                                                       for w in args.word if len(w) == motif.length]
                answers = iter_pvalues(motif, [s for _, s in asked], **options)
                for (word, _), r in zip(asked, answers):
                    row = {"motif_id": motif.motif_id, "name": motif.name, "length": motif.length, **r.to_dict()}
                    if args.word:
                        row["word"] = word or "-"
                    yield motif, row

        columns = PVALUE_COLUMNS[:4] + (["word"] if args.word else []) + PVALUE_COLUMNS[4:]
        json_columns = columns[:-2] + ["grid_step", "backend", "note"]
        return _write_stats(args, stderr, outputs, motifs, rows(), columns, json_columns)


def run_threshold(args, stdout, stderr):
    from ..motif._api import iter_thresholds
    from ..motif._grid import check_p

    _stdin_once(args, ("MOTIF", "motif"), ("--background", "background"))
    variant = _check_options(args, VARIANTS)
    check_p(args.pvalue)
    params = _params(args)
    with _outputs(args, stdout) as outputs:
        motifs = _motifs(args, args.motif, params)
        _announce_bucket(args, stderr, motifs, variant)
        answers = iter_thresholds(motifs, args.pvalue, **_options(args))

        def rows():
            for motif, r in zip(motifs, answers):
                yield motif, {"motif_id": motif.motif_id, "name": motif.name, "length": motif.length, **r.to_dict()}

        json_columns = THRESHOLD_COLUMNS[:-1] + ["grid_step", "backend", "note"]
        return _write_stats(args, stderr, outputs, motifs, rows(), THRESHOLD_COLUMNS, json_columns)


def _interval(bounds):
    from ..results.values import format_number

    low, high = bounds
    return f"{format_number(low, digits=4)}..{format_number(high, digits=4)}"


COMPARE_COLUMNS = ["motif1", "motif2", "strand", "shift", "alpha", "beta", "both", "only1", "only2", "neither",
                   "similarity"]
COMPARE_JSON = ["motif1", "motif2", "strand", "shift", "span", "pvalue", "alpha", "beta", "both_low", "both_high",
                "only1_low", "only1_high", "only2_low", "only2_high", "neither_low", "neither_high", "similarity",
                "variant"]


def run_compare(args, stdout, stderr):
    import itertools

    from .progress import progress, wanted
    from ..results.tables import TableWriter
    from ..results.values import format_number
    from ..errors import InvalidParameter
    from ..motif._api import best_per_pair, iter_compare
    from ..motif._grid import check_p

    _stdin_once(args, ("M1", "motif1"), ("M2", "motif2"), ("--background", "background"))
    _check_options(args, COMPARE_VARIANTS)                # before reading any motif
    check_p(args.pvalue)
    params = _params(args)
    shifts = "all" if args.shift is None else [args.shift]
    strands = "+" if args.forward_only else "both"
    with _outputs(args, stdout) as outputs:
        first, second = _motifs(args, args.motif1, params), _motifs(args, args.motif2, params)
        if args.shift is not None:
            for m1 in first:
                for m2 in second:
                    if not -(m2.length - 1) <= args.shift <= m1.length - 1:
                        raise InvalidParameter(f"--shift {args.shift}: out of range for {m1.motif_id} and "
                                               f"{m2.motif_id}: expected {-(m2.length - 1)}..{m1.length - 1}")
        results = iter_compare(first, second, p=args.pvalue, shifts=shifts, strands=strands, **_options(args))
        out = outputs["-o"]
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
        with progress(total=len(first) * len(second), unit="pair", desc="compare",
                      enabled=wanted(args.quiet, stderr), stream=stderr) as bar:
            for _, rows in itertools.groupby(results, key=lambda r: (r.motif1, r.motif2)):
                rows = list(rows)
                writer.write([row(r) for r in (rows if args.all_shifts else best_per_pair(rows))])
                bar.update(1)
        if args.plot:
            from ..motif._api import thresholds
            from ..motif._plot import plot_distributions

            cut1 = thresholds(first, args.pvalue, **_options(args))
            plot_distributions(_plot_items(args, first, [t.score for t in cut1]), args.plot, outputs["--plot"])
    return 0
