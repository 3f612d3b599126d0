"""``bioaccel fold`` as a batch run (:mod:`.batch_run`): the fold wing's own description of the work
(:func:`bioaccel.fold.fold_work`: one item per record, costing n^3), each result formatted as the
command writes it (so that the journal holds the very text of the output), and the final files: those
texts in input order, byte for byte what ``bioaccel fold`` writes without a batch.
"""
import dataclasses
import functools
import io

from .batch_run import Job, fingerprint

#: What an arc diagram needs of a result, kept in the journal beside its text.
PLOTTED = ("id", "sequence", "structure", "score", "energy", "model")


def written(results, noconv: bool) -> list:
    """The results as the command writes them: the letters as read, T (t) as U (u) as RNAfold does,
    unless ``noconv`` (new results where a T is changed; the folded ones are left as they are).

    >>> from bioaccel.fold import FoldResult
    >>> [r.sequence for r in written([FoldResult("r", "GGTAC", "....."), FoldResult("s", "ggtac", ".....")],
    ...                               noconv=False)]
    ['GGUAC', 'gguac']
    """
    if noconv:
        return list(results)
    return [dataclasses.replace(r, sequence=r.sequence.translate(_T_AS_U)) if _has_t(r.sequence) else r
            for r in results]


_T_AS_U = str.maketrans("Tt", "Uu")


def _has_t(sequence: str) -> bool:
    return "T" in sequence or "t" in sequence


def format_entries(fold_payloads, payloads, *, fmt: str, noconv: bool, plot: bool) -> list:
    """Fold ``payloads`` (records) with ``fold_payloads`` (the function of the fold's Work), and for each
    result ``{"-o": its text in format fmt}`` and, with ``plot``, what its arc diagram needs.

    >>> from bioaccel.fold import fold_work
    >>> from bioaccel.inputs.fasta import Record
    >>> work = fold_work([Record("r", "GGGGAAATCCC")])
    >>> format_entries(work.function, [work.items[0].payload], fmt="vienna", noconv=False, plot=False)
    [{'-o': '>r\\nGGGGAAAUCCC\\n.(((....))) ( -2.50)\\n'}]
    """
    from ..fold import FoldWriter

    entries = []
    for result in written(fold_payloads(payloads), noconv):
        text = io.StringIO()
        FoldWriter(text, fmt).write([result])
        entry = {"-o": text.getvalue()}
        if plot:
            entry["plot"] = {**{name: getattr(result, name) for name in PLOTTED}, "pair_to": result.pair_to.tolist()}
        entries.append(entry)
    return entries


def write_outputs(outputs, pairs, *, plot: bool) -> None:
    """The final files: each record's text in input order, the first records' arc diagrams."""
    import numpy as np

    from ..fold import MAX_PLOT_RECORDS, FoldResult

    drawn = []
    handle = outputs["-o"]
    for _, entry in pairs:
        if entry is None:                # failed: named on standard error
            continue
        handle.write(entry["-o"])
        if plot and len(drawn) < MAX_PLOT_RECORDS:
            fields = dict(entry["plot"], pair_to=np.array(entry["plot"]["pair_to"], dtype=np.int64))
            drawn.append(FoldResult(**fields))
    if plot:
        from ..fold import plot_arcs

        plot_arcs(drawn, outputs.targets["--plot"].path, outputs["--plot"])


def job(args, records: list, params, threads: int) -> Job:
    """The batch of ``bioaccel fold``: ``records`` (a list) folded with the model ``params`` and the
    command line's options."""
    from ..fold import fold_work

    work = fold_work(records, params=params, backend=args.backend, variant=args.variant, threads=threads)
    plot = bool(args.plot)
    # backend, variant and threads are left out: every variant gives the same structures, so a batch
    # started on CPUs may be finished on GPUs
    digest = fingerprint("fold", dataclasses.asdict(params), args.format, args.noconv, plot,
                         *[f"{r.id}\t{r.sequence}" for r in records])
    return Job(prog="bioaccel fold", unit="record", items=work.items,
               function=functools.partial(format_entries, work.function, fmt=args.format, noconv=args.noconv,
                                          plot=plot),
               write=functools.partial(write_outputs, plot=plot),
               outputs={"-o": "-" if args.output is None else args.output, "--plot": args.plot},
               modes={"--plot": "wb"}, fingerprint=digest, gpu=work.gpu)
