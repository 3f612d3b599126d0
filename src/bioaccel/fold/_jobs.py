"""``bioaccel fold`` as a batch (:mod:`bioaccel.cli.batch_run`): one item per record, costing n^3.

Each worker folds its records with :func:`iter_nussinov`, the code of the in-process path, and formats
each as the command writes it (so that the journal holds the very text of the output); the final file
is those texts in input order, byte for byte what ``bioaccel fold`` writes without a batch.
"""
import dataclasses
import functools
import io

import numpy as np

from ..distribution.batch import Item
from ..cli.batch_run import Job, fingerprint
from ._formats import FoldWriter
from ._plot import MAX_PLOT_RECORDS
from ._result import FoldResult


def fold_entries(payloads, *, options, fmt, noconv, plot) -> list:
    """Fold ``payloads`` (``(key, Record)`` pairs) here with ``options`` (iter_nussinov's keywords):
    for each, ``{"-o": its text in format fmt}`` and, with ``plot``, what its arc diagram needs.

    >>> from bioaccel.inputs.fasta import Record
    >>> fold_entries([(0, Record("r", "GGGAAATCC"))], options={}, fmt="vienna", noconv=False, plot=False)
    [{'-o': '>r\\nGGGAAAUCC\\n(((...))) ( 3)\\n'}]
    """
    from ._api import iter_nussinov

    entries = []
    for result in iter_nussinov([record for _, record in payloads], **options):
        if not noconv:
            result.sequence = result.sequence.replace("T", "U")
        text = io.StringIO()
        FoldWriter(text, fmt).write([result])
        entry = {"-o": text.getvalue()}
        if plot:
            entry["plot"] = {"id": result.id, "sequence": result.sequence, "structure": result.structure,
                             "score": result.score, "pair_to": result.pair_to.tolist()}
        entries.append(entry)
    return entries


def _write(outputs, pairs, *, plot):
    """The final files: each record's text in input order, the first records' arc diagrams."""
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
        from ._plot import plot_arcs

        plot_arcs(drawn, outputs.targets["--plot"].path, outputs["--plot"])


def job(args, records, params, threads) -> Job:
    """The batch of ``bioaccel fold``: ``records`` (a list) with the command line's options."""
    options = dict(params=params, backend=args.backend, variant=args.variant, threads=threads)
    plot = bool(args.plot)
    items = [Item(key, f"record {record.id!r}", float(len(record)) ** 3 + 1.0, (key, record))
             for key, record in enumerate(records)]
    # backend, variant and threads are left out: every variant gives the same structures, so a batch
    # started on CPUs may be finished on GPUs
    digest = fingerprint("fold", dataclasses.asdict(params), args.format, args.noconv, plot,
                         *[f"{r.id}\t{r.sequence}" for r in records])
    return Job(prog="bioaccel fold", unit="record", items=items,
               function=functools.partial(fold_entries, options=options, fmt=args.format, noconv=args.noconv,
                                          plot=plot),
               write=functools.partial(_write, plot=plot),
               outputs={"-o": "-" if args.output is None else args.output, "--plot": args.plot},
               modes={"--plot": "wb"}, fingerprint=digest, gpu=args.backend == "gpu")
