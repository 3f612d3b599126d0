"""``bioaccel motif``: show PSSMs, P-values of scores, score thresholds of P-values, COMPARE."""
import json
import math

from .._cliutil import add_backend_option, add_output_option, add_threads_option, set_threads
from .._output import open_output
from ..errors import InvalidParameter
from ._pssm import DEFAULT_PRESET, PRESETS, Background
from .io import FORMATS, KINDS, read_motifs


def _common(parser, *, stats=True):
    parser.add_argument("--motif-format", choices=FORMATS, default="auto",
                        help="format of motif files (default: from the extension or the content)")
    parser.add_argument("--kind", choices=KINDS, default="auto",
                        help="plain matrices hold counts, frequencies or log-odds (default: detected)")
    parser.add_argument("--background", default="uniform", metavar="BG",
                        help="uniform (default), four frequencies A,C,G,T (e.g. 0.3,0.2,0.2,0.3), or a FASTA "
                             "file to estimate it from")
    parser.add_argument("--background-order", type=int, default=0, metavar="K",
                        help="order of the Markov background estimated from the FASTA file (default 0)")
    parser.add_argument("--preset", choices=tuple(PRESETS), default=DEFAULT_PRESET,
                        help="pseudocount and log base of FIMO (0.1, bits; default) or MOODS (0.01, natural log)")
    parser.add_argument("--pseudocount", type=float, default=None, metavar="PS",
                        help="total pseudocount per column, shared by the background (overrides the preset)")
    parser.add_argument("--log-base", type=float, default=None, metavar="B", help="log base of the scores")
    if stats:
        parser.add_argument("--method", choices=("exact", "bucket"), default="exact",
                            help="exact: refined integer grid with certified bounds (default); bucket: "
                                 "the seed's BUCKETSCOREDISTRIBUTION")
        add_backend_option(parser)
        add_threads_option(parser)
        parser.add_argument("--slices", type=int, default=4, metavar="N", help="bucket method: slices (default 4)")
        parser.add_argument("--buckets", type=int, default=3600, metavar="B",
                            help="bucket method: buckets per table (default 3600, the seed's)")
        parser.add_argument("--precision", type=float, default=1e-3, metavar="R",
                            help="exact method: refine until the P-value bounds are within this relative "
                                 "gap (default 1e-3)")
        parser.add_argument("--plot", metavar="FILE.svg|png|pdf", default=None,
                            help="also draw each motif's score distribution and P-value curve")
    parser.add_argument("--format", choices=("text", "json"), default="text",
                        help="text table (default) or json (JSON Lines: one object per motif)")
    add_output_option(parser)


def register(subparsers):
    parser = subparsers.add_parser(
        "motif", help="position weight matrices: P-values, thresholds, COMPARE",
        description="Statistics of position weight matrices (seed 004): score distributions with certified "
                    "error bounds by an exact grid method or BUCKETSCOREDISTRIBUTION, on the CPU or a GPU. "
                    "MOTIF is a file (JASPAR, MEME, TRANSFAC, HOMER, plain matrix; may hold many motifs) or "
                    "jaspar:ID / jaspar:YEAR/COLLECTION[/TAXON] from the database shipped in pyjaspar.")
    sub = parser.add_subparsers(dest="motif_command", metavar="ACTION")
    show = sub.add_parser("show", help="print the PSSM of each motif")
    show.add_argument("motif", metavar="MOTIF")
    _common(show, stats=False)
    show.set_defaults(run=run_show)
    pv = sub.add_parser("pvalue", help="SCORETOPVALUE: P(score >= S) for each motif")
    pv.add_argument("motif", metavar="MOTIF")
    pv.add_argument("--score", type=float, required=True, metavar="S")
    _common(pv)
    pv.set_defaults(run=run_pvalue)
    th = sub.add_parser("threshold", help="PVALUETOSCORE: the score threshold of P-value P for each motif")
    th.add_argument("motif", metavar="MOTIF")
    th.add_argument("--pvalue", type=float, required=True, metavar="P")
    _common(th)
    th.set_defaults(run=run_threshold)
    cmp_ = sub.add_parser("compare", help="COMPARE: words above both thresholds, one, neither, at every shift")
    cmp_.add_argument("motif1", metavar="M1")
    cmp_.add_argument("motif2", metavar="M2")
    cmp_.add_argument("--pvalue", type=float, required=True, metavar="P",
                      help="each matrix's threshold is its exact score threshold at this P-value")
    cmp_.add_argument("--shift", type=int, default=None, metavar="D",
                      help="only this shift (matrix 2's first column at matrix 1's column D); default: all")
    _common(cmp_)
    cmp_.set_defaults(run=run_compare)
    parser.set_defaults(run=lambda args, stdout, stderr: (parser.print_help(stderr), 2)[1])


def _motifs(args, spec):
    background = Background.parse(args.background, order=args.background_order)
    motifs = read_motifs(spec, background=background, fmt=args.motif_format, kind=args.kind,
                         preset=args.preset, pseudocount=args.pseudocount, log_base=args.log_base)
    if not motifs:
        raise InvalidParameter(f"{spec}: no motif")
    return motifs


def _options(args):
    if args.precision <= 0:
        raise InvalidParameter(f"--precision must be > 0, got {args.precision}")
    if args.method == "exact":
        return {"rtol": args.precision}
    return {"slices": args.slices, "buckets": args.buckets}


def _fmt(x):
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return "none"
    return f"{x:.6g}"


def run_show(args, stdout, stderr):
    motifs = _motifs(args, args.motif)
    with open_output(args.output, "w", stdout=stdout) as out:
        for m in motifs:
            if args.format == "json":
                out.write(json.dumps(m.to_dict()) + "\n")
                continue
            out.write(f">{m.motif_id} {m.name}  length {m.length}  scores {_fmt(m.min_score)}..{_fmt(m.max_score)}"
                      f"  background {m.background.description}\n")
            out.write("pos\t" + "\t".join("ACGT") + "\n")
            for i, row in enumerate(m.scores, 1):
                out.write(f"{i}\t" + "\t".join(f"{v:.3f}" for v in row) + "\n")
    return 0


def _distribution(args, motif):
    from ._distribution import score_distribution

    return score_distribution(motif, args.method, backend=args.backend, **_options(args))


def _stats(args, stdout, compute, header, row):
    set_threads(args.threads)
    motifs = _motifs(args, args.motif)
    if args.plot:
        from ._plot import plot_format

        plot_format(args.plot)
    results, plots = compute(motifs)
    with open_output(args.output, "w", stdout=stdout) as out:
        if args.format == "text":
            out.write("\t".join(header) + "\n")
        for m, r in zip(motifs, results):
            d = {"motif_id": m.motif_id, "name": m.name, "length": m.length, **r.to_dict()}
            out.write(json.dumps(d) + "\n" if args.format == "json" else "\t".join(row(m, r)) + "\n")
    if args.plot:
        from ._plot import plot_distributions

        plot_distributions(plots, args.plot)
    return 0


def run_pvalue(args, stdout, stderr):

    def compute(motifs):
        out, plots = [], []
        for m in motifs:
            dist = _distribution(args, m)
            out.append(dist.pvalue_result(args.score))
            plots.append((dist, args.score, f"{m.motif_id} {m.name} ({args.method})"))
        return out, plots

    return _stats(args, stdout, compute, ["motif_id", "name", "length", "score", "pvalue", "pvalue_low", "pvalue_high",
                                  "method"],
                  lambda m, r: [m.motif_id, m.name, str(m.length), _fmt(r.score), _fmt(r.pvalue), _fmt(r.low),
                                _fmt(r.high), r.method])


def run_threshold(args, stdout, stderr):
    from ._distribution import thresholds

    def compute(motifs):
        if args.method == "exact" and args.backend == "cpu":
            out = thresholds(motifs, args.pvalue, threads=args.threads, **_options(args))
            dists = [_distribution(args, m) for m in motifs] if args.plot else [None] * len(motifs)
        else:
            dists = [_distribution(args, m) for m in motifs]
            out = [d.threshold(args.pvalue) for d in dists]
        plots = [(d, r.score, f"{m.motif_id} {m.name} ({args.method})")
                 for m, d, r in zip(motifs, dists, out) if d is not None]
        return out, plots

    return _stats(args, stdout, compute, ["motif_id", "name", "length", "score", "pvalue", "pvalue_low", "pvalue_high",
                                  "method"],
                  lambda m, r: [m.motif_id, m.name, str(m.length), _fmt(r.score), _fmt(r.pvalue), _fmt(r.low),
                                _fmt(r.high), r.method])


def run_compare(args, stdout, stderr):
    from ._compare import compare
    from ._distribution import threshold

    set_threads(args.threads)
    if args.backend != "cpu":
        raise InvalidParameter("compare runs on the CPU (the exact two-dimensional grid); use --backend cpu")
    first = _motifs(args, args.motif1)
    second = _motifs(args, args.motif2)
    if args.plot:
        from ._plot import plot_format

        plot_format(args.plot)
    options = _options(args)
    plots = []
    with open_output(args.output, "w", stdout=stdout) as out:
        if args.format == "text":
            out.write("motif1\tmotif2\tshift\talpha\tbeta\tboth\tonly1\tonly2\tneither\tsimilarity\n")
        for m1 in first:
            t1 = threshold(m1, args.pvalue, method=args.method, **options)
            if args.plot:
                plots.append((_distribution(args, m1), t1.score, f"{m1.motif_id} {m1.name}"))
            for m2 in second:
                t2 = threshold(m2, args.pvalue, method=args.method, **options)
                shifts = "all" if args.shift is None else [args.shift]
                results = compare(m1, m2, alpha=t1.score, beta=t2.score, shifts=shifts, method=args.method,
                                  rtol=args.precision, slices=args.slices, buckets=args.buckets)
                best = max(results, key=lambda r: r.similarity)
                if args.format == "json":
                    out.write(json.dumps({
                        "motif_id": f"{m1.motif_id}~{m2.motif_id}", "motif1": m1.motif_id, "motif2": m2.motif_id,
                        "pvalue": args.pvalue, "score": [t1.to_dict()["score"], t2.to_dict()["score"]],
                        "best_shift": best.shift, "similarity": best.similarity,
                        "shifts": [r.to_dict() for r in results]}) + "\n")
                    continue
                for r in results:
                    out.write("\t".join([m1.motif_id, m2.motif_id, str(r.shift), _fmt(r.alpha), _fmt(r.beta)]
                                        + [f"{lo:.4g}..{hi:.4g}" for lo, hi in (r.both, r.only1, r.only2, r.neither)]
                                        + [f"{r.similarity:.4f}"]) + "\n")
    if args.plot:
        from ._plot import plot_distributions

        plot_distributions(plots, args.plot)
    return 0
