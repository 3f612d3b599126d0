"""``bioaccel scan``: the binding sites of position weight matrices in sequences (SCAN and MULTIPLESCAN
of Giraud & Varré), written as FIMO, BED or GFF3.

The command builds the API's call (:func:`bioaccel.scan.write_scan`, or :func:`bioaccel.scan.scan_work`
for a batch run) from its options; the API checks them, and this module only what the command line
alone can get wrong (standard input named twice, a missing SEQUENCES file). Only argparse, the
command-line helpers and the scan's registry and defaults load when the parser is built; the scan
itself loads in :func:`run`.
"""
from .motif_options import (MOTIF_HELP, MotifSource, add_cache_option, add_reading_options, add_scoring_options,
                            motif_params, stdin_once)
from .options import (add_backend_option, add_batch_options, add_output_option, add_quiet_option,
                      add_threads_option, add_variant_options, backends_of, positive)
from ..scan import (CHUNK_SIZE, DEFAULT_PVALUE, FILE_THRESHOLD, FORMATS, MAX_SLICE, MAX_STORED_HITS, SCAN_VARIANTS,
                    SLICE_LENGTH)


def register(subparsers):
    parser = subparsers.add_parser(
        "scan", help="find the binding sites of motifs in sequences (FIMO, BED or GFF output)",
        description="Scan sequences with position weight matrices on both strands (SCAN and MULTIPLESCAN of "
                    "Giraud & Varré): every window whose score reaches the motif's threshold is a hit, with its "
                    "score, its exact P-value and a q-value (Benjamini-Hochberg per motif over every window "
                    "tested). The threshold is each motif's exact score threshold of P-value --pvalue (default "
                    "1e-4, as FIMO), or the score --threshold; with neither, motifs that all come from HOMER files "
                    "are scored as HOMER scores them and cut at their files' own log-odds thresholds, as HOMER's "
                    "scanMotifGenomeWide.pl does. Windows with a letter other than A, C, G, T/U are "
                    "skipped (as FIMO does). Sequences are read in chunks, so genomes of any size scan in bounded "
                    "memory.")
    parser.add_argument("motifs", metavar="MOTIFS", nargs="+",
                        help=MOTIF_HELP + "; several sources may be given, their motifs scanned together")
    parser.add_argument("sequences", metavar="SEQUENCES",
                        help="a FASTA file of DNA or RNA (plain, gzip, bzip2 or xz; '-' reads standard input)")
    cut = parser.add_mutually_exclusive_group()
    cut.add_argument("--pvalue", type=float, default=None, metavar="P",
                     help=f"report windows whose score reaches the motif's exact threshold of P-value P (default "
                          f"{DEFAULT_PVALUE:g}, or a HOMER file's own thresholds: see above); a number in (0, 1]")
    cut.add_argument("--threshold", type=float, default=None, metavar="S",
                     help="report windows scoring at least S, in the motifs' own units (instead of --pvalue)")
    parser.add_argument("--norc", action="store_true",
                        help="scan the given strand only (default: both strands, the reverse one by the motif's "
                             "reverse complement)")
    add_reading_options(parser)
    add_scoring_options(parser)
    add_variant_options(parser, SCAN_VARIANTS)
    add_backend_option(parser, registry=SCAN_VARIANTS)
    add_threads_option(parser)
    parser.add_argument("--slice-length", type=int, default=SLICE_LENGTH, metavar="L",
                        help=f"columns per slice of precomputed scores, 1 to {MAX_SLICE} (default {SLICE_LENGTH}): "
                             "the slices variant's L (Giraud & Varré's Slices Strategy), also used by index and "
                             "lookahead")
    parser.add_argument("--chunk-size", type=positive, default=CHUNK_SIZE, metavar="N",
                        help=f"letters per chunk of sequence (default {CHUNK_SIZE:,}); memory grows with it")
    parser.add_argument("--format", choices=FORMATS, default="fimo",
                        help="fimo (default: FIMO's TSV columns, 1-based), bed (BED6, 0-based half-open; score "
                             "0-1000 relative to the motif's range) or gff (GFF3)")
    parser.add_argument("--text", action="store_true",
                        help="write hits as they are found, without q-values and without holding them in memory "
                             "(as FIMO's --text), for outputs too large to keep")
    parser.add_argument("--max-stored-hits", type=positive, default=MAX_STORED_HITS, metavar="N",
                        help=f"keep at most N hits, those of smallest P-value (default {MAX_STORED_HITS:,}, as "
                             "FIMO); a warning says how many were dropped. Not used with --text")
    parser.add_argument("--best-per-motif", type=positive, default=None, metavar="N",
                        help="write only each motif's N hits of smallest P-value (after --qv-thresh); hits tied at "
                             "a motif's cut are kept or dropped together, as --max-stored-hits does, so a motif "
                             "may get fewer (a note says which). Not used with --text")
    parser.add_argument("--no-qvalue", action="store_true", help="do not compute q-values (as FIMO's --no-qvalue)")
    parser.add_argument("--motif", action="append", default=None, metavar="ID", dest="motif_ids",
                        help="scan only this motif of MOTIFS (repeat for several), as FIMO's --motif")
    parser.add_argument("--qv-thresh", action="store_true",
                        help="--pvalue P bounds the q-value instead, as FIMO's --qv-thresh: the windows of "
                             "P-value at most P are scanned and those of q-value at most P written")
    add_cache_option(parser)
    add_output_option(parser)
    add_quiet_option(parser)
    add_batch_options(parser, gpu="gpu" in backends_of(SCAN_VARIANTS))
    parser.set_defaults(run=run)


def _check(args):
    """What only the command line can get wrong, checked before anything is read: standard input named
    twice, SEQUENCES missing or a folder (the scan's own options are the API's to check)."""
    import os

    from ..errors import InvalidParameter

    stdin_once(args, ("MOTIFS", "motifs"), ("SEQUENCES", "sequences"), ("--background", "background"))
    if args.qv_thresh:
        clash = next((name for name, given in (("--text", args.text), ("--no-qvalue", args.no_qvalue),
                                               ("--threshold", args.threshold is not None)) if given), None)
        if clash:
            raise InvalidParameter(f"--qv-thresh bounds the q-values, which {clash} does without")
    if args.best_per_motif is not None and args.text:
        raise InvalidParameter("--best-per-motif needs every hit held, which --text does without")
    if args.sequences != "-":
        if not os.path.exists(args.sequences):
            raise InvalidParameter(f"{args.sequences}: no such file")
        if os.path.isdir(args.sequences):
            raise InvalidParameter(f"{args.sequences}: is a folder, expected a FASTA file")


def _homer_cut(args, source, stderr):
    """With no --pvalue, --threshold or --qv-thresh, and no scoring option other than --preset homer:
    when every motif comes from a HOMER file with its log-odds detection threshold, the motifs scored
    as HOMER scores them (the homer preset) and ``args.threshold`` set to each one's own threshold, as
    HOMER's scanMotifGenomeWide.pl cuts them (a note says so). Otherwise ``args.pvalue`` becomes the
    default P-value. Returns the motifs to scan (``source`` itself, or the motifs scored anew)."""
    given = args.pvalue is not None or args.threshold is not None or args.qv_thresh
    scoring = args.preset not in (None, "homer") or args.pseudocount is not None or args.log_base is not None
    if args.pvalue is None:
        args.pvalue = DEFAULT_PVALUE
    if given or scoring or args.kind == "logodds" or not _homer_files(args):
        return source
    motifs = source.read()
    if not motifs or any(m.file_threshold is None or m.counts is None for m in motifs):
        return source
    from ..motif import PSSM

    args.threshold = FILE_THRESHOLD
    if not args.quiet:
        print("bioaccel scan: note: each motif cut at its HOMER file's log-odds threshold, scored as HOMER scores it "
              "(--preset homer); --pvalue P cuts at P-values instead", file=stderr)
    return [PSSM.from_counts(m.counts, motif_id=m.motif_id, name=m.name, background=m.background, preset="homer",
                             source=m.source, file_threshold=m.file_threshold) for m in motifs]


#: HOMER motif files' extensions (bioaccel.motif.io reads them as HOMER; a test keeps the two equal)
HOMER_EXTENSIONS = (".motif", ".motifs", ".homer")


def _homer_files(args) -> bool:
    """Whether every motif source is a HOMER file, by --motif-format or its extension (so that other
    sources are not read before the scan's options are checked)."""
    if args.motif_format == "homer":
        return True
    if args.motif_format != "auto":
        return False
    plain = [spec.rsplit(".", 1)[0] if spec.endswith((".gz", ".bz2", ".xz")) else spec for spec in args.motifs]
    return all(name.lower().endswith(HOMER_EXTENSIONS) for name in plain)


def _scan_options(args, params, threads) -> dict:
    """The API's keywords of the command line's options."""
    return dict(pvalue=args.pvalue, threshold=args.threshold, params=params, backend=args.backend,
                variant=args.variant, threads=threads, strands="+" if args.norc else "both",
                slice_length=args.slice_length, chunk_size=args.chunk_size, cache=args.cache)


def _sequence_bytes(path):
    """The size of an uncompressed FASTA file (about its letters: the progress bar's total), else None."""
    import os

    if path == "-" or path.endswith((".gz", ".bz2", ".xz")):
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def run(args, stdout, stderr):
    from . import batch_run as batch
    from .progress import progress, wanted
    from ..results.output import Outputs
    from ..scan import write_scan

    # a scan in this process is one pass over the sequences: no journal of groups (each group would
    # read every sequence again); workers and --resume run the groups as a batch
    if batch.distributed(args) or args.resume:
        return _run_batch(args, stdout, stderr)
    _check(args)
    params = motif_params(args)
    motifs = _homer_cut(args, MotifSource(args, args.motifs, params), stderr)
    with Outputs({"-o": "-" if args.output is None else args.output}, stdout=stdout) as outputs:
        with progress(total=_sequence_bytes(args.sequences), unit="nt", desc="scan", scale=True,
                      enabled=wanted(args.quiet, stderr), stream=stderr) as bar:
            report = write_scan(outputs["-o"], motifs, args.sequences,
                                fmt=args.format, max_stored_hits=args.max_stored_hits, qvalues=not args.no_qvalue,
                                text=args.text, on_chunk=bar.update, qvalue_max=_qvalue_max(args),
                                best_per_motif=args.best_per_motif, **_scan_options(args, params, args.threads))
        # said once the scan has succeeded: a run that fails on bad input prints its one error line only
        _notes(args, stderr, report)
    _forget_journal(args.output)
    return 0


def _forget_journal(output) -> None:
    """A scan in this process keeps no journal; one that an earlier batch left beside FILE (interrupted,
    or refused by --resume as another run's) is of no use once FILE holds this run's hits, and would
    make every later --resume refuse: removed ('run without --resume to start over', as the refusal
    says)."""
    import os

    from .batch_run import journal_path

    path = journal_path(output)
    if path is not None:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass


# ---- a batch run: --workers, --scheduler, --gpus, --resume --------------------------------------------

def _run_batch(args, stdout, stderr):
    """The scan's Work (:func:`bioaccel.scan.scan_work`: groups of motifs, each scanning every sequence)
    run by the batch layer, its items' hits journalled as entries, then merged and written as the
    in-process scan writes them."""
    import functools

    from . import batch_run as batch
    from .batch_run import Job, fingerprint
    from ..scan import SCAN_VARIANTS, scan_work

    batch.check(args, SCAN_VARIANTS)        # --gpus sets the backend
    _check(args)
    params = motif_params(args)
    motifs = _homer_cut(args, MotifSource(args, args.motifs, params), stderr)
    limit = None if args.text else args.max_stored_hits
    described = scan_work(motifs, args.sequences, max_stored_hits=limit,
                          **_scan_options(args, params, batch.item_threads(args)))
    motifs = described.motifs
    # backend, variant, slices, chunks and threads are left out: they do not change the hits
    digest = fingerprint("scan", [(m.motif_id, m.name, m.background.to_dict()) for m in motifs],
                         *[m.scores for m in motifs], args.pvalue, args.threshold, args.norc, args.text, limit,
                         described.digest)
    reports = []                            # the merged hits' report, for the notes after the output
    job = Job(prog="bioaccel scan", unit="motif group", items=described.work.items,
              function=functools.partial(entries, described.work.function),
              write=functools.partial(_write_groups, described=described, fmt=args.format, limit=limit,
                                      qvalues=not args.no_qvalue, text=args.text, reports=reports,
                                      qvalue_max=_qvalue_max(args), best_per_motif=args.best_per_motif),
              outputs={"-o": "-" if args.output is None else args.output}, fingerprint=digest,
              gpu=described.work.gpu, notes=functools.partial(_batch_notes, args=args, reports=reports))
    return batch.run(job, args, stdout, stderr)


def entries(function, payloads) -> list:
    """The journal entries of a batch's items: ``function``'s values (:class:`~bioaccel.scan.GroupHits`)
    as JSON values, an item's error as it is (where the batch runs: module-level for the workers)."""
    return [value.to_dict() if hasattr(value, "to_dict") else value for value in function(payloads)]


def _qvalue_max(args) -> "float | None":
    """--qv-thresh: the q-value bound (--pvalue's value), else None."""
    return args.pvalue if args.qv_thresh else None


def _write_groups(outputs, pairs, *, described, fmt, limit, qvalues, text, reports, qvalue_max=None,
                  best_per_motif=None):
    """The output of a batch: every item's entry merged (:meth:`~bioaccel.scan.ScanWork.merge`) and
    written as the in-process scan writes (``--text``: in sequence order, no q-values)."""
    from ..scan import GroupHits

    values = (None if entry is None else GroupHits.from_dict(entry) for _, entry in pairs)
    merged = described.merge(values, max_stored_hits=limit, qvalues=qvalues and not text, in_sequence_order=text)
    reports.append(merged.write(outputs["-o"], fmt, qvalue_max=qvalue_max, best_per_motif=best_per_motif))


def _batch_notes(stderr, *, args, reports):
    if reports:
        _notes(args, stderr, reports[0])


# ---- notes ---------------------------------------------------------------------------------------------

def _notes(args, stderr, report):
    """What a person must be told after a scan (:class:`~bioaccel.scan.ScanReport`): the motifs that
    cannot be hit (a note, unless --quiet), and whatever --quiet says, the hits dropped and the P-values
    that are bounds."""
    unreachable = list(report.unreachable)
    if unreachable and not args.quiet:
        print(f"bioaccel scan: note: {len(unreachable)} motif{'s' if len(unreachable) != 1 else ''} cannot reach "
              f"P <= {args.pvalue:g} (no word is that rare), so cannot be hit: {_listed(unreachable)}", file=stderr)
    if report.dropped:
        tied = 0 if report.stored is None else max(0, args.max_stored_hits - report.stored)
        ties = (f", so {report.stored:,} were kept, not {args.max_stored_hits:,}: the cut fell among hits tied at "
                "that P-value, which are kept or dropped together") if tied else ""
        print(f"bioaccel scan: warning: more than {args.max_stored_hits:,} hits: the {report.dropped:,} of P-value "
              f"{report.cut:.3g} or more were dropped{ties}. Raise --max-stored-hits, lower --pvalue, or use --text "
              "to write every hit", file=stderr)
    if report.best_lost and not args.quiet:
        lost, short = report.best_lost, list(report.best_short)
        n = args.best_per_motif
        print(f"bioaccel scan: note: --best-per-motif {n:,} dropped {sum(lost.values()):,} hits of {len(lost):,} "
              f"motif{'s' if len(lost) != 1 else ''}"
              + (f"; {len(short):,} kept fewer than {n:,} ({_listed(short)}): hits tied at a motif's cut are dropped "
                 "together" if short else ""), file=stderr)
    if report.inexact:
        ids = list(report.inexact)
        gap = max(report.inexact.values())
        print(f"bioaccel scan: note: the P-values of {len(ids)} long motif{'s' if len(ids) != 1 else ''} "
              f"({_listed(ids)}) are certified upper bounds within a relative {gap:.2g} of the exact values "
              "(the exact search was over its work budget)", file=stderr)


def _listed(ids, show=5) -> str:
    return ", ".join(ids[:show]) + (f" and {len(ids) - show} more" if len(ids) > show else "")
