"""``bioaccel fold --partition --window W``: RNAplfold. Every record's windowed base-pair probabilities
(:func:`bioaccel.fold.iter_local_chunks`, stretch by stretch, so that a genome streams): ``--bpp FILE``
gets every pair of probability at least ``--cutoff`` (``id i j probability``, 1-based, i < j, as
without --window), ``--unpaired FILE`` each base's probability of being unpaired
(``id i unpaired_probability``, RNAplfold -u 1). The MFE, centroid and MEA lines of --partition and dot plots belong to whole-sequence
ensembles, so -o, --format and --plot are refused with --window.
"""


def add_options(parser) -> None:
    """--window, --span, --cutoff and --unpaired on the fold command's parser."""
    parser.add_argument("--window", "--winsize", type=int, default=None, metavar="W",
                        help="with --partition: local folding, as RNAplfold -W: each pair's probability is the "
                             "mean over the windows of W bases that hold it (RNAplfold's default 70); time "
                             "linear in the length, for genomes; writes --bpp and --unpaired")
    parser.add_argument("--span", type=int, default=None, metavar="L",
                        help="with --window: pairs span fewer than L bases, j - i < L (RNAplfold -L; default W)")
    parser.add_argument("--cutoff", type=float, default=None, metavar="P",
                        help="with --window: --bpp keeps pairs of probability at least P (RNAplfold -c; "
                             "default 0.01)")
    parser.add_argument("--unpaired", metavar="FILE", default=None,
                        help="with --window: write each base's probability of being unpaired to FILE ('-': "
                             "standard output), columns id i unpaired_probability (RNAplfold -u 1)")


def wanted(args) -> bool:
    """Whether the windowed path runs (--window or one of its options given)."""
    return any(getattr(args, name, None) is not None for name in ("window", "span", "cutoff", "unpaired"))


def _check(args):
    from ..errors import InvalidParameter

    if args.window is None:
        given = next(f"--{n}" for n in ("span", "cutoff", "unpaired") if getattr(args, n) is not None)
        raise InvalidParameter(f"{given} belongs to local folding: add --window W (and --partition)")
    if not args.partition:
        raise InvalidParameter("--window computes windowed base-pair probabilities of --partition: add --partition")
    if args.backend == "gpu":
        raise InvalidParameter("--window: --backend gpu is not available with it (local folding runs on the CPU's "
                               "cores; the GPU computes whole-sequence probabilities without --window)")
    refused = [option for option, value in (
        ("--plot", args.plot), ("-o", args.output), (f"--format {args.format}", args.format != "vienna"))
        if value]
    if refused:
        raise InvalidParameter(f"--window: {refused[0]} is not available with it (local folding writes the pairs "
                               "to --bpp and the unpaired probabilities to --unpaired; a genome has no dot plot)")
    if args.bpp is None and args.unpaired is None:
        raise InvalidParameter("--window writes to --bpp FILE and/or --unpaired FILE ('-': standard output): "
                               "give one")
    if args.bpp is not None and args.bpp == args.unpaired and args.bpp != "-":
        raise InvalidParameter("--bpp and --unpaired name the same file; give them different files")


def pair_lines(name: str, chunk) -> str:
    """``id i j probability`` of every pair of a stretch (:class:`~bioaccel.fold.WindowChunk`).

    >>> from bioaccel.fold import iter_local_chunks
    >>> pair_lines("a", next(iter_local_chunks("GGGGAAACCCC", window=11, cutoff=0.5))[1]).split()[:8]
    ['a', '1', '11', '0.564277', 'a', '2', '10', '0.577507']
    """
    return "".join(f"{name}\t{i}\t{j}\t{p:.6g}\n" for i, j, p in zip(chunk.i.tolist(), chunk.j.tolist(),
                                                                   chunk.p.tolist()))


def unpaired_lines(name: str, chunk) -> str:
    """``id i unpaired_probability`` of every base of a stretch.

    >>> from bioaccel.fold import iter_local_chunks
    >>> unpaired_lines("a", next(iter_local_chunks("GGGGAAACCCC", window=11, unpaired=True))[1]).split()[:6]
    ['a', '1', '0.0391597', 'a', '2', '0.00114469']
    """
    return "".join(f"{name}\t{k}\t{u:.6g}\n" for k, u in enumerate(chunk.unpaired.tolist(), start=chunk.start))


def run_local(args, stdout, stderr, params) -> int:
    """The fold command with --partition --window."""
    from .progress import progress, wanted as progress_wanted
    from ..fold import check_local, iter_local_chunks
    from ..inputs.fasta import read_fasta, scan_lengths
    from ..results.output import Outputs

    from .fold_ensemble import check_options

    _check(args)
    check_options(args)
    cutoff = 0.01 if args.cutoff is None else args.cutoff
    call, window, span, cutoff = check_local(params, backend=args.backend, threads=args.threads, window=args.window,
                                             span=args.span, cutoff=cutoff)
    lengths = scan_lengths(args.fasta)
    names = {name: path for name, path in (("--bpp", args.bpp), ("--unpaired", args.unpaired)) if path is not None}
    with Outputs(names, stdout=stdout) as outputs:
        if args.bpp is not None:
            outputs["--bpp"].write("id\ti\tj\tprobability\n")
        if args.unpaired is not None:
            outputs["--unpaired"].write("id\ti\tunpaired_probability\n")
        shown = progress_wanted(args.quiet, stderr)
        chunks = iter_local_chunks(read_fasta(args.fasta), window=window, span=span, cutoff=cutoff,
                                   unpaired=args.unpaired is not None, params=call.params, threads=call.threads)
        with progress(total=sum(lengths) if lengths else None, unit="nt", desc="fold -p --window", enabled=shown,
                      stream=stderr, scale=True) as bar:
            for record, chunk in chunks:
                if args.bpp is not None:
                    outputs["--bpp"].write(pair_lines(record.id, chunk))
                if args.unpaired is not None:
                    outputs["--unpaired"].write(unpaired_lines(record.id, chunk))
                bar.update(chunk.end - chunk.start + 1)
    return 0
