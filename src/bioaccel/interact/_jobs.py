"""``bioaccel interact`` as a batch (:mod:`bioaccel.cli.batch_run`): one item per (target, query) pair,
costing its BPMax work (query x target, within the windows).

Each worker computes its pairs with the code of the in-process path (``_api._interaction``, its
single-strand tables cached across the pairs of one target) and formats each pair's rows, and its
bedGraph track, as the command writes them; the final files are those texts in input order (targets
outer, queries inner), byte for byte what ``bioaccel interact`` writes without a batch.
"""
import dataclasses
import functools
import io

from ..distribution.batch import Item, each
from ..cli.batch_run import Job, fingerprint
from ._formats import interaction_writer
from ._model import work


def _pair_entry(payload, *, options, names, fmt, profile):
    from ._api import _pairs

    return _entry(_pairs([payload], **options)[0], names, fmt, profile)


def _entry(sites, names, fmt, profile):
    """One pair's rows (and bedGraph track) as the command writes them."""
    from ._window import write_bedgraph

    rows = io.StringIO()
    interaction_writer(rows, names, fmt, header=False).write(sites)
    entry = {"-o": rows.getvalue()}
    if profile:
        track = io.StringIO()
        write_bedgraph(track, [site for site in sites if site.site == 1])
        entry["--profile"] = track.getvalue()
    return entry


def pair_entries(payloads, *, options, names, fmt, profile) -> list:
    """BPMax of ``payloads`` ((target, query) Records) here, with ``options`` (bpmax's keywords): for
    each pair, its rows in columns ``names`` and format ``fmt`` and, with ``profile``, its bedGraph
    track; a pair that fails (too large) gives its error instead. On the GPU the task's pairs share
    their launches (a failure there runs each pair alone: _batch.run_task).

    >>> from bioaccel.inputs.fasta import Record
    >>> pair_entries([(Record("t", "GGGUUUCCC"), Record("q", "GGGAAACCC"))], options=dict(params=None,
    ...     backend="cpu", variant=None, threads=1, structure=False, sites=1, rank="score"),
    ...     names=["query", "target", "score"], fmt="tsv", profile=False)
    [{'-o': 'q\\tt\\t21\\n'}]
    """
    if options["backend"] == "gpu" and len(payloads) > 1:
        from ._api import _pairs

        return [_entry(sites, names, fmt, profile) for sites in _pairs(payloads, **options)]
    return each(functools.partial(_pair_entry, options=options, names=names, fmt=fmt, profile=profile), payloads)


def _write(outputs, pairs, *, names, fmt):
    interaction_writer(outputs["-o"], names, fmt).header()
    profile = outputs["--profile"]
    for _, entry in pairs:
        if entry is None:                # failed: named on standard error
            continue
        outputs["-o"].write(entry["-o"])
        if profile is not None:
            profile.write(entry["--profile"])


def job(args, queries, targets, params, names, threads) -> Job:
    """The batch of ``bioaccel interact``: every query (a list) against every target (a list)."""
    options = dict(params=params, backend=args.backend, variant=args.variant, threads=threads,
                   structure=args.structure, sites=args.sites, rank=args.rank)
    profile = args.profile is not None
    items = []
    for t, target in enumerate(targets):
        for q, query in enumerate(queries):
            M, N = len(query), len(target)
            items.append(Item(t * len(queries) + q, f"pair {query.id!r} x {target.id!r}",
                              float(work(M, N, *params.spans(M, N))) + 1.0, (target, query)))
    digest = fingerprint("interact", dataclasses.asdict(params), args.structure, args.sites, args.rank, args.format,
                         profile, names, *[f"{r.id}\t{r.sequence}" for r in queries], "targets",
                         *[f"{r.id}\t{r.sequence}" for r in targets])
    return Job(prog="bioaccel interact", unit="pair", items=items,
               function=functools.partial(pair_entries, options=options, names=names, fmt=args.format,
                                          profile=profile),
               write=functools.partial(_write, names=names, fmt=args.format),
               outputs={"-o": "-" if args.output is None else args.output, "--profile": args.profile},
               fingerprint=digest, gpu=args.backend == "gpu")
