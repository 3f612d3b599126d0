"""``bioaccel fold --partition``: RNAfold -p. Every record's Boltzmann ensemble
(:func:`bioaccel.fold.iter_ensemble`): the vienna layout adds RNAfold -p's lines (the ensemble line with
the ensemble free energy, the centroid, the MEA structure, the MFE frequency and the ensemble
diversity), JSON Lines their fields; ``--bpp FILE`` writes every base-pair probability of at least 1e-5
(``id i j probability``, 1-based, i < j); ``--plot`` draws dot plots.

ct and bpseq hold one structure per record, so they are refused with --partition (vienna and json
carry the MFE, centroid and MEA structures; --bpp the probabilities).
"""
#: pairs written by --bpp: probability at least this
BPP_THRESHOLD = 1e-5
#: the JSON Lines fields, in order
JSON_COLUMNS = ("id", "description", "sequence", "structure", "energy", "score", "ensemble_energy", "log_z", "mfe_frequency",
                "ensemble_diversity", "centroid", "centroid_energy", "centroid_score", "centroid_distance", "mea",
                "mea_energy", "mea_score", "mea_accuracy", "ensemble_line", "length", "model", "backend")


def json_columns(result) -> tuple:
    """JSON_COLUMNS less the value fields the result's model does not have (energy or score)."""
    absent = (("score", "centroid_score", "mea_score") if result.energy is not None
              else ("energy", "ensemble_energy", "centroid_energy", "mea_energy"))
    return tuple(c for c in JSON_COLUMNS if c not in absent)


def add_options(parser) -> None:
    """--partition and --bpp on the fold command's parser."""
    parser.add_argument("--partition", "-p", action="store_true",
                        help="also the Boltzmann ensemble, as RNAfold -p: the ensemble free energy, base-pair "
                             "probabilities, the frequency of the MFE structure, the ensemble diversity, the "
                             "centroid and MEA structures (turner2004; CPU, or the GPU with --backend gpu: many "
                             "short RNAs per launch); with --plot, dot plots")
    parser.add_argument("--bpp", metavar="FILE", default=None,
                        help="with --partition: write the base-pair probabilities to FILE ('-': standard "
                             "output), columns id i j probability (1-based, i < j, p >= 1e-5; with --window: "
                             "p >= --cutoff)")


def wanted(args) -> bool:
    """Whether the partition path runs (--partition or --bpp given)."""
    return bool(args.partition or args.bpp)


def check_options(args) -> None:
    """The options --partition refuses (one line each), before any record is read."""
    from ..errors import InvalidParameter

    if not args.partition:
        raise InvalidParameter("--bpp writes the base-pair probabilities of --partition: add --partition")
    refused = [(option, value) for option, value in (
        ("--eval", args.eval), ("--variant", args.variant),
        ("--workers", args.workers), ("--scheduler", args.scheduler), ("--gpus", getattr(args, "gpus", None)),
        ("--resume", args.resume), (f"--format {args.format}", args.format in ("ct", "bpseq")))
        if value]
    if refused:
        option = refused[0][0]
        why = ("holds one structure per record; use --format vienna or json" if option.startswith("--format")
               else "is not available with it (the partition function runs here, on the CPU or one GPU)")
        raise InvalidParameter(f"--partition: {option} {why}")
    if args.bpp is not None and args.bpp == args.output and args.bpp != "-":
        raise InvalidParameter("--bpp and -o name the same file; give them different files")


def vienna(result) -> str:
    """RNAfold -p --MEA's layout.

    >>> from bioaccel.fold import ensemble
    >>> text = vienna(ensemble("GGGGAAACCCC")[0])
    >>> print(text[:text.rindex(" frequency")], end="")
    >seq1
    GGGGAAACCCC
    ((((...)))) ( -4.50)
    ((({...)))} [ -4.87]
    ((((...)))) { -4.50 d=2.98}
    ((((...)))) { -4.50 MEA=7.56}
    >>> text.splitlines()[-1]
    ' frequency of mfe structure in ensemble 0.545595; ensemble diversity 3.53  '
    """
    header = f"{result.id} {result.description}" if result.description else result.id
    if result.energy is not None:
        value, ens = f"{result.energy:6.2f}", f"{result.ensemble_energy:6.2f}"
        cen, mea = f"{result.centroid_energy:6.2f}", f"{result.mea_energy:6.2f}"
    else:
        value, ens = f"{result.score:2g}", f"lnZ={result.log_z:.4g}"
        cen, mea = f"{result.centroid_score:2g}", f"{result.mea_score:2g}"
    return (f">{header}\n{result.sequence}\n{result.structure} ({value})\n{result.ensemble_line} [{ens}]\n"
            f"{result.centroid} {{{cen} d={result.centroid_distance:.2f}}}\n"
            f"{result.mea} {{{mea} MEA={result.mea_accuracy:.2f}}}\n"
            f" frequency of mfe structure in ensemble {result.mfe_frequency:g}; "
            f"ensemble diversity {result.ensemble_diversity:<6.2f}\n")


def bpp_lines(result) -> str:
    """``id i j probability`` of every pair of probability at least BPP_THRESHOLD."""
    return "".join(f"{result.id}\t{i}\t{j}\t{p:.6g}\n" for i, j, p in result.pairs_above(BPP_THRESHOLD))


#: The way out of a genome's partition function that will not fit, in the command's words.
WINDOW_WAY_OUT = ("fold it in windows (--window 70 --bpp FILE: local base-pair probabilities as RNAplfold gives "
                  "them, in memory that does not grow with the length)")


def run_partition(args, stdout, stderr, params) -> int:
    """The fold command with --partition."""
    from .fold_batch import written
    from .progress import progress, wanted as progress_wanted
    from ..errors import ResourceError
    from ..fold import check_ensemble, check_ensemble_sizes, iter_ensemble
    from ..inputs.fasta import read_fasta, scan_lengths
    from ..results.output import Outputs
    from ..results.plotting import check_plot

    check_options(args)
    call = check_ensemble(params, backend=args.backend, threads=args.threads)
    if args.plot:
        check_plot(args.plot)
    lengths = scan_lengths(args.fasta)
    if lengths:
        try:
            check_ensemble_sizes(lengths, call.params, call.backend)   # refused before the first is computed
        except ResourceError as exc:      # "a window" in this command's words (the Turner model's --window)
            if getattr(args, "model", None) == "nussinov":
                raise
            raise ResourceError(str(exc).replace("fold shorter pieces (a window)", WINDOW_WAY_OUT)) from None
    names = {"-o": "-" if args.output is None else args.output, "--plot": args.plot}
    if args.bpp is not None:
        names["--bpp"] = args.bpp
    with Outputs(names, modes={"--plot": "wb"}, stdout=stdout) as outputs:
        if args.bpp is not None:
            outputs["--bpp"].write("id\ti\tj\tprobability\n")
        table = None
        drawn = []
        shown = progress_wanted(args.quiet, stderr)
        results = iter_ensemble(read_fasta(args.fasta), params=call.params, backend=call.backend,
                                threads=call.threads)
        with progress(total=len(lengths) if lengths else None, unit="seq", desc="fold -p", enabled=shown,
                      stream=stderr) as bar:
            if not args.plot:               # many records at kernel speed, the same bytes
                from .fold_ensemble_arrays import write_chunks

                write_chunks(args, call, read_fasta(args.fasta), outputs, bar, (vienna, json_columns, BPP_THRESHOLD))
                results = ()
            for result in results:
                (result,) = written([result], args.noconv)
                if args.format == "json":
                    if table is None:
                        from ..results.tables import TableWriter

                        table = TableWriter(outputs["-o"], json_columns(result), "json")
                    table.write([result])
                else:
                    outputs["-o"].write(vienna(result))
                if args.bpp is not None:
                    outputs["--bpp"].write(bpp_lines(result))
                if args.plot and len(drawn) < 6:
                    drawn.append(result)
                bar.update(1)
        if args.plot:
            from ..fold import plot_dotplot

            plot_dotplot(drawn, args.plot, outputs["--plot"])
    return 0
