"""``bioaccel scan``: the binding sites of position weight matrices in sequences (SCAN and MULTIPLESCAN
of Giraud & Varré), written as FIMO, BED or GFF3.

Only argparse, the command-line helpers and the variant registry load when the parser is built; the
scan itself loads in :func:`run`.
"""
from .options import (add_backend_option, add_batch_options, add_output_option, add_quiet_option,
                      add_threads_option, add_variant_options, backends_of, positive)
from ..scan import SCAN_VARIANTS
from .motif import MOTIF_HELP, _reading, _scoring

FORMATS = ("fimo", "bed", "gff")
DEFAULT_PVALUE = 1e-4          # _scan.DEFAULT_PVALUE (FIMO's)
MAX_STORED_HITS = 100_000      # _scan.MAX_STORED_HITS (FIMO's)
DEFAULT_CHUNK = 1 << 22        # _fasta_chunks.CHUNK


def register(subparsers):
    parser = subparsers.add_parser(
        "scan", help="find the binding sites of motifs in sequences (FIMO, BED or GFF output)",
        description="Scan sequences with position weight matrices on both strands (SCAN and MULTIPLESCAN of "
                    "Giraud & Varré): every window whose score reaches the motif's threshold is a hit, with its "
                    "score, its exact P-value and a q-value (Benjamini-Hochberg per motif over every window "
                    "tested). The threshold is each motif's exact score threshold of P-value --pvalue (default "
                    "1e-4, as FIMO), or the score --threshold. Windows with a letter other than A, C, G, T/U are "
                    "skipped (as FIMO does). Sequences are read in chunks, so genomes of any size scan in bounded "
                    "memory.")
    parser.add_argument("motifs", metavar="MOTIFS", help=MOTIF_HELP)
    parser.add_argument("sequences", metavar="SEQUENCES",
                        help="a FASTA file of DNA or RNA (plain, gzip, bzip2 or xz; '-' reads standard input)")
    cut = parser.add_mutually_exclusive_group()
    cut.add_argument("--pvalue", type=float, default=None, metavar="P",
                     help=f"report windows whose score reaches the motif's exact threshold of P-value P (default "
                          f"{DEFAULT_PVALUE:g}); a number in (0, 1]")
    cut.add_argument("--threshold", type=float, default=None, metavar="S",
                     help="report windows scoring at least S, in the motifs' own units (instead of --pvalue)")
    parser.add_argument("--norc", action="store_true",
                        help="scan the given strand only (default: both strands, the reverse one by the motif's "
                             "reverse complement)")
    _reading(parser)
    _scoring(parser)
    add_variant_options(parser, SCAN_VARIANTS)
    add_backend_option(parser, registry=SCAN_VARIANTS)
    add_threads_option(parser)
    parser.add_argument("--slice-length", type=int, default=4, metavar="L",
                        help="columns per slice of precomputed scores, 1 to 8 (default 4): the slices variant's L "
                             "(Giraud & Varré's Slices Strategy), also used by index and lookahead")
    parser.add_argument("--chunk-size", type=positive, default=DEFAULT_CHUNK, metavar="N",
                        help=f"letters per chunk of sequence (default {DEFAULT_CHUNK:,}); memory grows with it")
    parser.add_argument("--format", choices=FORMATS, default="fimo",
                        help="fimo (default: FIMO's TSV columns, 1-based), bed (BED6, 0-based half-open; score "
                             "0-1000 relative to the motif's range) or gff (GFF3)")
    parser.add_argument("--text", action="store_true",
                        help="write hits as they are found, without q-values and without holding them in memory "
                             "(as FIMO's --text), for outputs too large to keep")
    parser.add_argument("--max-stored-hits", type=positive, default=MAX_STORED_HITS, metavar="N",
                        help=f"keep at most N hits, those of smallest P-value (default {MAX_STORED_HITS:,}, as "
                             "FIMO); a warning says how many were dropped. Not used with --text")
    parser.add_argument("--no-qvalue", action="store_true", help="do not compute q-values (as FIMO's --no-qvalue)")
    add_output_option(parser)
    add_quiet_option(parser)
    add_batch_options(parser, gpu="gpu" in backends_of(SCAN_VARIANTS))
    parser.set_defaults(run=run)


def _check(args):
    """Everything checked before any motif or sequence is read."""
    from ..runtime.parallel import resolve_threads
    from ..errors import InvalidParameter
    from ..motif._grid import check_p

    variant = SCAN_VARIANTS.resolve(args.variant, args.backend)
    if args.threshold is None:
        check_p(DEFAULT_PVALUE if args.pvalue is None else args.pvalue)
    elif args.threshold != args.threshold or abs(args.threshold) == float("inf"):
        raise InvalidParameter(f"--threshold must be a finite score, got {args.threshold}")
    if not 1 <= args.slice_length <= 8:
        raise InvalidParameter(f"--slice-length must be a whole number from 1 to 8, got {args.slice_length}")
    resolve_threads(args.threads)
    if args.motifs == "-" and args.sequences == "-":
        raise InvalidParameter("MOTIFS and SEQUENCES both read standard input ('-'); give at most one as '-'")
    if args.background == "-" and "-" in (args.motifs, args.sequences):
        raise InvalidParameter("--background and an input both read standard input ('-'); give at most one as '-'")
    if args.sequences != "-":
        import os

        if not os.path.exists(args.sequences):
            raise InvalidParameter(f"{args.sequences}: no such file")
        if os.path.isdir(args.sequences):
            raise InvalidParameter(f"{args.sequences}: is a folder, expected a FASTA file")
    return variant


def _sequence_bytes(path):
    """The size of an uncompressed FASTA file (about its letters: the progress bar's total), else None."""
    import os

    if path == "-" or path.endswith((".gz", ".bz2", ".xz")):
        return None
    try:
        return os.path.getsize(path)
    except OSError:
        return None


def _run_batch(args, stdout, stderr):
    """--workers, --scheduler, --gpus, --resume: blocks of sequence x groups of motifs, items of the
    batch layer (._jobs), written as the in-process scan writes them."""
    from . import batch_run as batch
    from ..errors import InvalidParameter
    from ..scan._jobs import job
    from .motif import _motifs, _params

    batch.check(args)                       # --gpus sets the backend
    variant = _check(args)
    if args.sequences == "-":
        raise InvalidParameter("in a batch every group of motifs reads SEQUENCES again: give a file, not standard "
                               "input")
    motifs = _motifs(args, args.motifs, _params(args))
    pvalue = DEFAULT_PVALUE if args.pvalue is None else args.pvalue
    return batch.run(job(args, motifs, pvalue, variant, batch.item_threads(args)), args, stdout, stderr)


def run(args, stdout, stderr):
    from . import batch_run as batch
    from ..results.output import Outputs
    from .progress import progress, wanted
    from ..scan._pipeline import ScanState, collect, prepare, scan_batches
    from ..scan._write import HitWriter
    from .motif import _motifs, _params

    if batch.wanted(args):
        return _run_batch(args, stdout, stderr)
    variant = _check(args)
    warming = _warm_gpu() if args.backend == "gpu" else None
    params = _params(args)
    with Outputs({"-o": "-" if args.output is None else args.output}, stdout=stdout) as outputs:
        motifs = _motifs(args, args.motifs, params)
        strands = (0,) if args.norc else (0, 1)
        pvalue = DEFAULT_PVALUE if args.pvalue is None else args.pvalue
        setup = prepare(motifs, pvalue=pvalue, threshold=args.threshold, strands=strands,
                        slice_length=args.slice_length)
        unreachable = [m.motif_id for m, t in zip(setup.motifs, setup.thresholds)
                       if args.threshold is None and not t.reachable]
        state = ScanState()
        options = dict(backend=args.backend, variant=variant, threads=args.threads, chunk_size=args.chunk_size)
        handle = outputs["-o"]
        qvalues = not (args.text or args.no_qvalue)
        writer = HitWriter(handle, args.format, setup.motifs, state.names, qvalues=qvalues)
        total = _sequence_bytes(args.sequences)
        with progress(total=total, unit="nt", desc="scan", scale=True,
                      enabled=wanted(args.quiet, stderr), stream=stderr) as bar:
            def advance(chunk):
                bar.update(chunk.windows)

            writer.header()
            if warming is not None:
                warming.result()               # raises GPUUnavailable where the scan would have
            if args.text:
                _write_behind(writer, scan_batches(setup, args.sequences, state=state, on_chunk=advance, **options))
            else:
                hits, _ = collect(setup, args.sequences, max_stored_hits=args.max_stored_hits, qvalues=qvalues,
                                  state=state, on_chunk=advance, **options)
                writer.write(hits)
        # said once the scan has succeeded: a run that fails on bad input prints its one error line only
        if not args.quiet:
            _note_unreachable(stderr, unreachable, pvalue)
        _report(args, stderr, setup, state)
    return 0


def _warm_gpu():
    """The GPU made ready (CuPy, context, kernels: :func:`._gpu.warm_up`) on a thread of its own,
    while this one reads the motifs and finds their thresholds (which run without the GIL)."""
    from concurrent.futures import ThreadPoolExecutor

    from ..scan._gpu import warm_up

    pool = ThreadPoolExecutor(max_workers=1)
    future = pool.submit(warm_up)
    pool.shutdown(wait=False)          # the thread ends with its one job
    return future


def _write_behind(writer, batches, depth=2):
    """``--text``: each batch of ``batches`` written on a thread of its own while the next is scanned and
    priced (at most ``depth`` waiting: memory), in order. Writing a genome's hits (47 million, 3.9 GB
    for every JASPAR 2024 CORE matrix over 100 Mb) is seconds of formatting and file writes that the
    scan no longer waits for."""
    import collections
    from concurrent.futures import ThreadPoolExecutor

    pending = collections.deque()
    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            for hits in batches:
                pending.append(pool.submit(writer.write, hits))
                while pending and (pending[0].done() or len(pending) > depth):
                    pending.popleft().result()
            while pending:
                pending.popleft().result()
        finally:
            for job in pending:
                job.cancel()


def _note_unreachable(stderr, unreachable, pvalue):
    """The note on motifs that no word can hit at this P-value (said once the scan has succeeded)."""
    if unreachable:
        print(f"bioaccel scan: note: {len(unreachable)} motif{'s' if len(unreachable) != 1 else ''} cannot reach "
              f"P <= {pvalue:g} (no word is that rare), so cannot be hit: {_listed(unreachable)}", file=stderr)


def _listed(ids, show=5) -> str:
    return ", ".join(ids[:show]) + (f" and {len(ids) - show} more" if len(ids) > show else "")


def _report(args, stderr, setup, state):
    """Warnings a person must see whatever --quiet says: dropped hits, P-values that are bounds."""
    if state.dropped:
        print(f"bioaccel scan: warning: more than {args.max_stored_hits:,} hits; the {state.dropped:,} of largest "
              f"P-value (P >= {state.cut:.3g}) were dropped. Raise --max-stored-hits, lower --pvalue, or use --text "
              "to write every hit", file=stderr)
    if setup.inexact:
        ids = [setup.motifs[k].motif_id for k in sorted(setup.inexact)]
        gap = max(setup.inexact.values())
        print(f"bioaccel scan: note: the P-values of {len(ids)} long motif{'s' if len(ids) != 1 else ''} "
              f"({_listed(ids)}) are certified upper bounds within a relative {gap:.2g} of the exact values "
              "(the exact search was over its work budget)", file=stderr)
