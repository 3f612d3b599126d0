"""``bioaccel motif``: show PSSMs, P-values of scores, score thresholds of P-values, COMPARE.

Only argparse, the command-line helpers and the variant registries load when the parser is built;
NumPy, Numba and the readers load in the ``run`` functions. The choices of --motif-format, --kind and
--preset are checked by the library (one-line errors), so that the parser needs none of it.
"""
from .motif_options import (DEFAULT_JASPAR_RELEASE, MOTIF_HELP, MotifSource, add_cache_option,
                            add_reading_options, add_scoring_options, motif_params, stdin_once)
from .motif_rows import (COMPARE_COLUMNS, COMPARE_JSON, PVALUE_COLUMNS, THRESHOLD_COLUMNS, AnswerBar, interval,
                         plot_items, read_scores, threshold_texts, write_stats)
from .options import (add_backend_option, add_output_option, add_plot_option, add_quiet_option, add_threads_option,
                      add_variant_options)
from ..motif import COMPARE_VARIANTS, VARIANTS

EXPORT_FORMATS = ("jaspar", "meme")

FORMATS = ("tsv", "json", "text")     # text: TSV, as before
#: COMPARE's default P-value. 1e-4 leaves a 6-column motif a single word at most (4**6 x 1e-4 < 1), so
#: overlaps between short motifs could not be measured; at 1e-3 it keeps a few words, as MACRO-APE's
#: default of 5e-4 does for 7-mers.
COMPARE_DEFAULT_P = 1e-3


def _common(parser, registry=None):
    add_reading_options(parser)
    add_scoring_options(parser)
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
        add_plot_option(parser, "the score distribution and P-value curve of the first motifs")
    parser.add_argument("--format", choices=FORMATS, default="tsv",
                        help="tsv (default; text is the same) or json (JSON Lines: one object per row)")
    add_output_option(parser)
    add_quiet_option(parser)


def _on_motifs(sub, name, run, **texts):
    """The action ``name`` (show, pvalue, threshold) on the motifs of one MOTIF argument, answered by
    ``run``; ``texts``: its help and description."""
    parser = sub.add_parser(name, **texts)
    parser.add_argument("motif", metavar="MOTIF", help=MOTIF_HELP)
    parser.set_defaults(run=run)
    return parser


def register(subparsers):
    parser = subparsers.add_parser(
        "motif", help="position weight matrices: P-values, score thresholds, how alike two motifs are",
        description="Statistics of position weight matrices: how likely a score is among random words "
                    "(P-values), the score a P-value asks for (thresholds), how alike two motifs are (compare), "
                    "each with certified error bounds, by bioaccel's exact method or by Giraud & Varré's buckets "
                    "(their BUCKETSCOREDISTRIBUTION), on the CPU or a GPU. MOTIF is a file (JASPAR, MEME, TRANSFAC, HOMER, plain matrix; may hold many motifs; "
                    "plain or compressed; '-': standard input) or jaspar:ID / jaspar:YEAR/COLLECTION[/TAXON] "
                    f"from the database shipped in pyjaspar (JASPAR {DEFAULT_JASPAR_RELEASE} unless a year is "
                    "given: jaspar:MA0066.1 and jaspar:2026/MA0066.1).")
    sub = parser.add_subparsers(dest="motif_command", metavar="ACTION")
    show = _on_motifs(sub, "show", run_show, help="print the scoring matrix (log-odds, PSSM) of each motif",
                      description="Print each motif's position-specific scoring matrix (log-odds per column "
                                  "and letter), its score range and background.")
    _common(show)
    export = sub.add_parser("export", help="write motifs as a JASPAR or MEME file",
                            description="Write the motifs of any source (a file of any format, jaspar:ID, a "
                                        "JASPAR collection) as a JASPAR count file or a MEME minimal-format file: "
                                        "counts when the source has them, else the frequencies with their site "
                                        "count (nsites).")
    export.add_argument("motif", metavar="MOTIF", nargs="+", help=MOTIF_HELP + "; several are written to one file")
    add_reading_options(export)
    export.add_argument("--format", choices=EXPORT_FORMATS, default="jaspar",
                        help="jaspar (default: counts, rows A C G T) or meme (letter probabilities, nsites, "
                             "and the background's letter frequencies in the header)")
    add_output_option(export)
    add_quiet_option(export)
    export.set_defaults(run=run_export)
    pv = _on_motifs(sub, "pvalue", run_pvalue, help="the P-value of a score, P(score >= S), for each motif (SCORETOPVALUE)",
                    description="P(score >= S) of each motif for every score given (--score, --scores, "
                                "--word), one row each. A word's own score always counts that word.")
    pv.add_argument("--score", type=float, action="append", default=[], metavar="S",
                    help="a score (repeat for several)")
    pv.add_argument("--scores", metavar="FILE", default=None,
                    help="a file of scores, separated by spaces, commas or new lines ('#' starts a comment)")
    pv.add_argument("--word", action="append", default=[], metavar="ACGT",
                    help="the score of this word, for each motif as long as it (repeat for several)")
    _common(pv, VARIANTS)
    th = _on_motifs(sub, "threshold", run_threshold,
                    help="the score threshold of a P-value for each motif (PVALUETOSCORE)",
                    description="The optimal score threshold of each motif at P-value P: the smallest "
                                "attainable score whose P-value is <= P, with its exact P-value and the next "
                                "score down. Columns: p (asked); score (the threshold, written as the shortest "
                                "number that selects the same words); pvalue (its P-value, <= p) with its bounds "
                                "pvalue_low and pvalue_high; score_low (the next attainable score down) and "
                                "pvalue_below (its P-value, > p); exact (False where --precision allowed a gap, or the "
                                "search ran past its work budget); variant (the method, exact or bucket, whichever "
                                "the row's exactness); note (why a row is not exact). "
                                "P-values have 6 significant digits, or as many as it takes to tell p, pvalue and "
                                "pvalue_below apart; --format json keeps every digit.")
    th.add_argument("--pvalue", type=float, required=True, metavar="P",
                    help="the P-value, in (0, 1] (e.g. 1e-4)")
    _common(th, VARIANTS)
    add_cache_option(th)
    cmp_ = sub.add_parser("compare", help="how alike two motifs are: the words that pass both thresholds, one, or neither, at "
                                               "every shift (COMPARE)",
                          description="How alike motifs are, as Giraud & Varré's COMPARE measures it: for every "
                                      "motif of M1 against every motif of M2, the probability of the words scoring above both thresholds, above one only "
                                      "and above neither, at the best shift and strand (or at every one). Columns: "
                                      "motif1, motif2; strand (+: M2 as given, -: its reverse complement) and shift "
                                      "(M2's first column at M1's column shift); alpha, beta (the score thresholds "
                                      "of motif1 and motif2 at --pvalue, in the motifs' score units, 6 significant "
                                      "digits; --format json keeps every digit); both, only1, only2, neither (the "
                                      "probability that a random word scores above both thresholds, above alpha "
                                      "only, above beta only, above neither: certified intervals low..high); "
                                      "similarity = both / (both + only1 + only2) from the middle of each interval: "
                                      "1 when the sites are the same words (a motif against itself), 0 when they "
                                      "share none.")
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


def _options(args) -> dict:
    """The API's keywords of the statistics options (``slices`` left to the API's default when not
    given)."""
    options = dict(backend=args.backend, variant=args.variant, threads=args.threads, precision=args.precision,
                   buckets=args.buckets)
    if args.slices is not None:
        options["slices"] = args.slices
    return options


def _source(args, spec, params):
    """The motifs of ``spec``, read when the API call that takes them has checked its options."""
    return MotifSource(args, spec, params, slices=getattr(args, "slices", None))


def _check_plot(args):
    if args.plot:
        from ..results.plotting import check_plot

        check_plot(args.plot)


def _announce_bucket(args, stderr, motifs):
    """The bucket variant enumerates 4**L words per slice: announce a long batch before its first motif."""
    from ..motif import bucket_words
    from ..runtime.parallel import resolve_threads
    from .progress import announce

    if VARIANTS.resolve(args.variant, args.backend) != "bucket" or args.backend != "cpu":
        return
    slices = {} if args.slices is None else {"slices": args.slices}
    words = sum(bucket_words(m.length, **slices) for m in motifs)
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


def run_show(args, stdout, stderr):
    from ..results.tables import TableWriter
    from ..results.values import format_number

    stdin_once(args, ("MOTIF", "motif"), ("--background", "background"))
    params = motif_params(args)
    with _outputs(args, stdout) as outputs:
        motifs = _source(args, args.motif, params).read()
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
    from ..motif import read_raw_spec, write_motifs

    if args.motif.count("-") > 1 or ("-" in args.motif and args.background == "-"):
        raise InvalidParameter("standard input ('-') can be read once; give it as one input at most")
    background = motif_params(args).background_model
    with _outputs(args, stdout) as outputs:
        raws = []
        for spec in args.motif:
            found = read_raw_spec(spec, fmt=args.motif_format, kind=args.kind)
            if not found:
                raise InvalidParameter(f"{spec}: no motif")
            raws.extend(found)
        write_motifs(raws, outputs["-o"], args.format, background)
    return 0


def run_pvalue(args, stdout, stderr):
    import math

    from ..errors import InvalidParameter
    from ..motif import iter_pvalues

    stdin_once(args, ("MOTIF", "motif"), ("--background", "background"), ("--scores", "scores"))
    _check_plot(args)
    for value in args.score:
        if math.isnan(value):
            raise InvalidParameter("--score nan is not a score")
    for word in args.word:
        bad = next((c for c in word.upper() if c not in "ACGTU"), None)
        if bad is not None or not word:
            raise InvalidParameter(f"--word {word!r}: expected a word of A, C, G, T/U"
                                   + (f", found {bad!r}" if bad else ""))
    params = motif_params(args)
    with _outputs(args, stdout) as outputs:
        scores = list(args.score) + (read_scores(args.scores) if args.scores else [])
        if not scores and not args.word:
            raise InvalidParameter("give at least one --score S, --scores FILE or --word ACGT")
        source = _source(args, args.motif, params)
        options = dict(params=params, **_options(args))
        bar = AnswerBar(args, stderr)
        # its options checked before any motif is read
        answers = iter_pvalues(source, scores, on_answer=bar.on_answer, **options)
        motifs = source.read()
        for word in args.word:      # a word is asked of the motifs of its length
            if not any(len(word) == m.length for m in motifs):
                lengths = sorted({m.length for m in motifs})
                raise InvalidParameter(f"--word {word!r}: {len(word)} letters, but the motifs have "
                                       f"{', '.join(map(str, lengths))}")
        _announce_bucket(args, stderr, motifs)

        def rows():
            for motif in motifs:
                words = [(w, motif.score(w.upper().replace("U", "T"))) for w in args.word if len(w) == motif.length]
                found = [next(answers) for _ in scores]
                found += iter_pvalues(motif, [s for _, s in words], on_answer=bar.on_answer, **options) if words else []
                for word, r in zip([None] * len(scores) + [w for w, _ in words], found):
                    row = {"motif_id": motif.motif_id, "name": motif.name, "length": motif.length, **r.to_dict()}
                    if args.word:
                        row["word"] = word or "-"
                    yield motif, row

        columns = PVALUE_COLUMNS[:4] + (["word"] if args.word else []) + PVALUE_COLUMNS[4:]
        json_columns = columns[:-2] + ["grid_step", "backend", "note"]
        return write_stats(args, stderr, outputs, motifs, rows(), columns, json_columns, options, bar,
                           lambda m: len(scores) + sum(len(w) == m.length for w in args.word))


def run_threshold(args, stdout, stderr):
    from ..motif import iter_thresholds

    stdin_once(args, ("MOTIF", "motif"), ("--background", "background"))
    _check_plot(args)
    params = motif_params(args)
    with _outputs(args, stdout) as outputs:
        source = _source(args, args.motif, params)
        options = dict(params=params, **_options(args))
        bar = AnswerBar(args, stderr)
        # its options checked before any motif is read
        answers = iter_thresholds(source, args.pvalue, cache=args.cache, on_answer=bar.on_answer, **options)
        motifs = source.read()
        _announce_bucket(args, stderr, motifs)

        def rows():
            for motif, r in zip(motifs, answers):
                yield motif, {"motif_id": motif.motif_id, "name": motif.name, "length": motif.length, **r.to_dict()}

        json_columns = THRESHOLD_COLUMNS[:-1] + ["grid_step", "backend", "note"]
        return write_stats(args, stderr, outputs, motifs, rows(), THRESHOLD_COLUMNS, json_columns, options, bar,
                           lambda m: 1, threshold_texts)


def run_compare(args, stdout, stderr):
    import functools
    import itertools

    from .progress import progress, wanted
    from ..results.tables import TableWriter
    from ..results.values import format_number
    from ..errors import InvalidParameter
    from ..motif import best_per_pair, iter_compare

    stdin_once(args, ("M1", "motif1"), ("M2", "motif2"), ("--background", "background"))
    _check_plot(args)
    params = motif_params(args)
    shifts = "all" if args.shift is None else [args.shift]
    strands = "+" if args.forward_only else "both"
    with _outputs(args, stdout) as outputs:
        first, second = _source(args, args.motif1, params), _source(args, args.motif2, params)
        results = iter_compare(first, second, pvalue=args.pvalue, params=params, shifts=shifts, strands=strands,
                               **_options(args))                # its options checked before any motif is read
        first, second = first.read(), second.read()
        if args.shift is not None:
            for m1 in first:
                for m2 in second:
                    if not -(m2.length - 1) <= args.shift <= m1.length - 1:
                        raise InvalidParameter(f"--shift {args.shift}: out of range for {m1.motif_id} and "
                                               f"{m2.motif_id}: expected {-(m2.length - 1)}..{m1.length - 1}")
        out = outputs["-o"]
        if args.format == "json":
            writer = TableWriter(out, COMPARE_JSON, "json")
        else:
            writer = TableWriter(out, COMPARE_COLUMNS, "tsv",
                                 {**{k: interval for k in ("both", "only1", "only2", "neither")},
                                  **{k: functools.partial(format_number, digits=6) for k in ("alpha", "beta")},
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
            from ..motif import plot_distributions, thresholds

            # both sides of the comparison (a motif given on both sides drawn once)
            drawn = first + [m for m in second if m.motif_id not in {f.motif_id for f in first}]
            cuts = thresholds(drawn, args.pvalue, params=params, **_options(args))
            plot_distributions(plot_items(args, drawn, [t.score for t in cuts], _options(args)), args.plot,
                               outputs["--plot"])
    return 0
