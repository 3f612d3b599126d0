"""``bioaccel fold``: folding every record of a FASTA file with a model of ``bioaccel.fold.MODELS``
(Nussinov's by default).

Only argparse and the model and variant registries load when the parser is built; the algorithms load
in ``run``. The command builds the public API call (:func:`bioaccel.fold.iter_fold`, or the batch of
:func:`bioaccel.fold.fold_work`) and writes its results with the wing's writers.
"""
import argparse
import sys

from . import fold_ensemble, fold_local
from .options import (Listing, add_backend_option, add_batch_options, add_output_option, add_pair_weight_options,
                      add_plot_option, add_quiet_option, add_threads_option)
from ..fold import FORMATS, MAX_PLOT_RECORDS, MODELS


class _Prints(argparse.Action):
    """An option that prints ``text()`` and exits (``--list-models``, ``--list-variants``)."""

    def __init__(self, option_strings, text, dest=argparse.SUPPRESS, **kwargs):
        self.text = text
        super().__init__(option_strings, dest=dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser, namespace, values, option_string=None):
        raise Listing(self.text() + "\n")


def register(subparsers):
    parser = subparsers.add_parser(
        "fold", help="fold RNAs: the minimum free energy structure (Turner 2004, as RNAfold), or Nussinov's "
                     "most base pairs",
        description="Fold each RNA of a FASTA file and print its structure and value, record by record in "
                    "input order: by default the minimum free energy (kcal/mol) with the Turner 2004 "
                    "parameters, exactly as ViennaRNA's RNAfold computes it; with --model nussinov the "
                    "weighted number of base pairs (Nussinov's algorithm and the papers' variants). "
                    "--eval gives the free energy of structures you provide, as RNAeval.",
    )
    parser.add_argument("fasta", metavar="FASTA", nargs="?", default=None,
                        help="FASTA file, plain or compressed (gzip, bzip2, xz); '-' or none reads standard "
                             "input (as RNAfold: a bare sequence without a '>' header is folded too)")
    parser.add_argument("--model", choices=MODELS.names(), default=MODELS.default.name,
                        help=f"the folding model (default {MODELS.default.name}: {MODELS.default.description}); "
                             "--list-models shows them")
    parser.add_argument("--list-models", action=_Prints, text=MODELS.table,
                        help="print every folding model (its variants, what it optimises) and exit")
    parser.add_argument("--variant", default=None, metavar="NAME", help=MODELS.variant_help())
    parser.add_argument("--list-variants", action=_Prints, text=MODELS.variant_table,
                        help="print every variant of this algorithm (backends, the papers' names) and exit")
    add_backend_option(parser, backends=MODELS.backends())
    add_threads_option(parser)
    parser.add_argument("--min-loop", type=int, default=None, metavar="K",
                        help="unpaired bases a pair must enclose (default 3, as ViennaRNA; 1 is the "
                             "recurrence of Chang et al. used by Li, Ranka & Sahni)")
    parser.add_argument("--no-gu", "--noGU", action="store_true", help="do not allow GU wobble pairs (RNAfold's --noGU)")
    parser.add_argument("--no-lp", "--noLP", action="store_true",
                        help="turner2004: no lonely pairs (helices of one pair), as RNAfold's --noLP")
    parser.add_argument("-T", "--temperature", type=float, default=None, metavar="C",
                        help="turner2004: temperature in Celsius (default 37), the energies rescaled from their "
                             "enthalpies as RNAfold -T does")
    add_pair_weight_options(parser, {"AU": "1", "GC": "1", "GU": "1"})
    parser.add_argument("--format", choices=FORMATS, default="vienna",
                        help="vienna (default, like RNAfold: the FASTA header as read), ct, bpseq or json "
                             "(JSON Lines, a field each: id and description, the header's first word and the "
                             "rest of it, \"\" where there is none, then the sequence, structure and values)")
    parser.add_argument("--noconv", action="store_true",
                        help="write the sequences as given; by default T is written as U, as RNAfold does "
                             "(its --noconv keeps T too)")
    parser.add_argument("--eval", action="store_true",
                        help="FASTA holds a dot-bracket structure after each sequence (as fold writes them); "
                             "print each structure's free energy (turner2004) or weighted pairs (nussinov) "
                             "instead of folding, as RNAeval does")
    add_output_option(parser)
    add_plot_option(parser, f"arc diagrams, one panel per record (the first {MAX_PLOT_RECORDS})")
    add_quiet_option(parser)
    fold_ensemble.add_options(parser)
    fold_local.add_options(parser)
    add_batch_options(parser, gpu="gpu" in MODELS.backends())
    parser.set_defaults(run=run)


def _params(args):
    """The model ``--model`` names, from the model options given."""
    from ..errors import InvalidParameter

    if args.no_gu and args.gu is not None:
        raise InvalidParameter("--no-gu and --gu contradict each other; give one of them")
    given = {"min_loop": args.min_loop, "au": args.au, "gc": args.gc, "gu": args.gu, "no_gu": args.no_gu or None,
             "no_lp": args.no_lp or None, "temperature": args.temperature}
    _check_variant_model(args)
    return MODELS.model_class(args.model).from_options({k: v for k, v in given.items() if v is not None})


def _check_variant_model(args):
    """A --variant of another model than --model's (a Nussinov variant with the default Turner model,
    say) is named as such, with the option that selects its model."""
    from ..errors import InvalidParameter

    if not args.variant or MODELS[args.model].variants.knows(args.variant):
        return
    for entry in MODELS.entries.values():
        if entry.name != args.model and entry.variants.knows(args.variant):
            raise InvalidParameter(f"--variant {args.variant} is a variant of the {entry.name} model, not of "
                                   f"{args.model}: add --model {entry.name}")


def _announce(args, stderr, lengths, call, workers=None):
    """Before the first record: the memory of the longest (refused now if it will not fit; in a batch,
    ``workers`` given, a record too large fails alone) and, for long work, one line with the time of
    the whole batch (``workers``: divided by the batch's speed-up, :func:`.batch_run.speedup`) and the
    way out."""
    from .progress import announce, format_duration

    if not lengths:
        return
    model = call.params
    if workers is None:
        model.check_sizes(lengths, call.variant, backend=call.backend)
    seconds = model.estimate_seconds(lengths, call.variant, backend=call.backend, threads=args.threads)
    if workers is not None:
        from .batch_run import speedup

        seconds /= speedup(args)
    what = (f"{len(lengths):,} record{'s' if len(lengths) != 1 else ''} of up to {max(lengths):,} nt "
            f"({call.backend}, {call.variant})")
    way_out = None
    if call.backend == "cpu" and "gpu" in model.variants.defaults:
        gpu = model.estimate_seconds(lengths, model.variants.resolve(None, "gpu"), backend="gpu")
        way_out = f"--backend gpu would take {format_duration(gpu)} on one H200"
    announce(stderr, "bioaccel fold", seconds, what, way_out, quiet=args.quiet)


def _each_announced(args, stderr, records, call):
    """Records read from standard input, which cannot be measured ahead: each long one is announced
    (and refused if it will not fit) just before it is folded."""
    for record in records:
        _announce(args, stderr, [len(record)], call)
        yield record


def _run_batch(args, stdout, stderr, params):
    """-o FILE, --workers, --scheduler, --gpus, --resume: every record an item of the batch layer (here,
    or on Dask workers), kept in the journal FILE.partial as it completes."""
    from . import batch_run as batch
    from .fold_batch import job
    from ..fold import check_fold
    from ..inputs.fasta import read_fasta

    batch.check(args, params.variants)              # --gpus sets the backend
    here = not batch.distributed(args)
    call = check_fold(params, backend=args.backend, variant=args.variant, threads=args.threads,
                      gpu_here=here)                # refused before reading; on workers the GPUs are theirs
    if args.plot:
        from ..results.plotting import check_plot

        check_plot(args.plot)
    records = list(read_fasta(args.fasta))
    made = job(args, records, params, batch.item_threads(args))
    if not args.scheduler:                          # a cluster's speed is not known here
        made.announce = lambda todo: _announce(args, stderr, [len(item.payload) for item in todo], call,
                                               workers=batch.local_workers(args))   # too large: fails alone
    return batch.run(made, args, stdout, stderr)


def _check_eval(args):
    """--eval reads structures and computes their values here, on the CPU: the options that choose how
    to fold do not apply, and are refused rather than ignored."""
    from ..errors import InvalidParameter

    given = [option for option, value in (("--backend gpu", args.backend == "gpu"), ("--variant", args.variant),
                                          ("--workers", args.workers), ("--scheduler", args.scheduler),
                                          ("--gpus", getattr(args, "gpus", None)), ("--resume", args.resume))
             if value]
    if given:
        raise InvalidParameter(f"--eval computes the value of given structures on the CPU; {given[0]} is "
                               "for folding")


def _evaluated(path, params):
    """The FoldResults of the structures in ``path`` (:func:`bioaccel.fold.iter_evaluate`), each error
    naming the file."""
    from ..errors import InputError
    from ..fold import iter_evaluate
    from ..inputs.files import display_name
    from ..inputs.structures import read_structures

    try:
        yield from iter_evaluate(((record, structure) for record, structure in read_structures(path)),
                                 params=params)
    except InputError as exc:
        name = display_name(path)
        raise InputError(str(exc) if str(exc).startswith(name) else f"{name}: {exc}") from None


def run(args, stdout, stderr):
    from . import batch_run as batch, fold_arrays
    from .fold_batch import written
    from .progress import progress, wanted
    from ..fold import FoldWriter, check_fold, iter_fold
    from ..inputs.fasta import read_fasta, scan_lengths
    from ..results.output import Outputs
    from ..results.plotting import check_plot
    from ..results.tables import chunked

    if args.fasta is None:                               # RNAfold's convention: no file, standard input
        if sys.stdin is None or sys.stdin.isatty():
            from ..errors import InvalidParameter

            raise InvalidParameter("no input: give a FASTA file, or pipe sequences in (bioaccel fold < x.fa)")
        args.fasta = "-"
    params = _params(args)
    if fold_local.wanted(args):                         # --window: RNAplfold (cli/fold_local.py)
        return fold_local.run_local(args, stdout, stderr, params)
    if fold_ensemble.wanted(args):                      # --partition: RNAfold -p (cli/fold_ensemble.py)
        return fold_ensemble.run_partition(args, stdout, stderr, params)
    if args.eval:
        _check_eval(args)
    elif fold_arrays.applies(args):                    # many records: no Python step per record
        status = fold_arrays.run(args, stdout, stderr, params,
                                 lambda lengths, call: _announce(args, stderr, lengths, call))
        if status is not None:
            return status
    if not args.eval and batch.wanted(args):
        return _run_batch(args, stdout, stderr, params)
    call = check_fold(params, backend=args.backend, variant=args.variant, threads=args.threads)
    if args.plot:
        check_plot(args.plot)
    with Outputs({"-o": "-" if args.output is None else args.output, "--plot": args.plot}, modes={"--plot": "wb"},
                 stdout=stdout) as outputs:
        if args.eval:
            lengths, results = None, _evaluated(args.fasta, params)
        else:
            lengths = scan_lengths(args.fasta)          # None for standard input
            records = read_fasta(args.fasta)
            if lengths is not None:
                _announce(args, stderr, lengths, call)
            else:                                       # standard input: each record as it comes
                records = _each_announced(args, stderr, records, call)
            results = iter_fold(records, params=call.params, backend=call.backend, variant=call.variant,
                                threads=call.threads)
        drawn = []
        writer = FoldWriter(outputs["-o"], args.format)
        shown = wanted(args.quiet, stderr)
        with progress(total=len(lengths) if lengths else None, unit="seq", desc="fold", enabled=shown,
                      stream=stderr) as bar:
            for chunk in chunked(results):
                chunk = written(chunk, args.noconv)
                writer.write(chunk)
                bar.update(len(chunk))
                if args.plot:
                    drawn.extend(chunk[:MAX_PLOT_RECORDS - len(drawn)])
        if args.plot:
            from ..fold import plot_arcs

            plot_arcs(drawn, args.plot, outputs["--plot"])
    return 0
