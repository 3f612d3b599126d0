"""``bioaccel interact`` as a batch (:mod:`bioaccel.cli.batch_run`): the Job built from
:func:`bioaccel.interact.bpmax_work` (or, with ``--partition``, :func:`bioaccel.interact.partition_work`),
one item per (target, query) pair costing its work.

The Job takes the Work's items and GPU flag; its function calls the Work's function (the code of the
in-process path, its single-strand tables kept across the pairs of one target) and formats each
pair's rows, and its bedGraph track, as the command writes them. The final files are those texts in
input order (targets outer, queries inner), byte for byte what ``bioaccel interact`` writes without
a batch.
"""
import dataclasses
import functools
import io

from ..errors import BioaccelError
from .batch_run import Job, fingerprint


def _texts(pairs, names, fmt) -> list:
    """Each pair's rows (a list of lists of Interactions) as the command writes them, one text a pair:
    the rows of all the pairs formatted together (the writer's cost is one frame, not one a pair),
    then cut into each pair's lines (a row is one line in TSV and in JSON Lines); a pair at a time
    should a row ever take more than a line."""
    from ..interact import interaction_writer

    text = io.StringIO()
    interaction_writer(text, names, fmt, header=False).write([row for rows in pairs for row in rows])
    lines = text.getvalue().split("\n")[:-1]
    if len(lines) != sum(len(rows) for rows in pairs):
        return [_texts([rows], names, fmt)[0] for rows in pairs] if len(pairs) > 1 else [text.getvalue()]
    texts, at = [], 0
    for rows in pairs:
        texts.append("".join(line + "\n" for line in lines[at:at + len(rows)]))
        at += len(rows)
    return texts


def _track(rows):
    from ..interact import write_bedgraph

    track = io.StringIO()
    write_bedgraph(track, [row for row in rows if row.site == 1])
    return track.getvalue()


def pair_entries(compute, payloads, *, names, fmt, profile) -> list:
    """``compute(payloads)`` (a Work's function: each pair's rows, or its error), each pair's rows
    formatted as the command writes them: in columns ``names`` and format ``fmt`` and, with
    ``profile``, its bedGraph track; a pair that failed (too large) gives its error instead.

    >>> from bioaccel.inputs.fasta import Record
    >>> from bioaccel.interact import bpmax_work
    >>> made = bpmax_work(Record("q", "GGGAAACCC"), Record("t", "GGGUUUCCC"), threads=1)
    >>> pair_entries(made.function, [made.items[0].payload], names=["query", "target", "score"], fmt="tsv",
    ...              profile=False)
    [{'-o': 'q\\tt\\t21\\n'}]
    """
    values = compute(payloads)
    done = [value for value in values if not isinstance(value, BioaccelError)]
    texts = iter(_texts(done, names, fmt))
    entries = []
    for value in values:
        if isinstance(value, BioaccelError):
            entries.append(value)
            continue
        entries.append({"-o": next(texts), **({"--profile": _track(value)} if profile else {})})
    return entries


def _write(outputs, pairs, *, names, fmt):
    from ..interact import interaction_writer

    interaction_writer(outputs["-o"], names, fmt).header()
    profile = outputs["--profile"]
    for _, entry in pairs:
        if entry is None:                # failed: named on standard error
            continue
        outputs["-o"].write(entry["-o"])
        if profile is not None:
            profile.write(entry["--profile"])


def job(args, work, queries, targets, params, names) -> Job:
    """The batch of ``bioaccel interact`` from ``work`` (:func:`bioaccel.interact.bpmax_work` of every
    query against every target, lists of Records, with ``params`` and the options of ``args``),
    written in columns ``names``."""
    profile = args.profile is not None
    digest = fingerprint("interact", dataclasses.asdict(params), args.structure, args.sites, args.rank, args.format,
                         profile, names, *[f"{r.id}\t{r.sequence}" for r in queries], "targets",
                         *[f"{r.id}\t{r.sequence}" for r in targets])
    return Job(prog="bioaccel interact", unit="pair", items=work.items,
               function=functools.partial(pair_entries, work.function, names=names, fmt=args.format,
                                          profile=profile),
               write=functools.partial(_write, names=names, fmt=args.format),
               outputs={"-o": "-" if args.output is None else args.output, "--profile": args.profile},
               fingerprint=digest, gpu=work.gpu)


def partition_entries(compute, payloads, *, columns, fmt, extras) -> list:
    """``compute(payloads)`` (:func:`bioaccel.interact.partition_work`'s function: each pair's rows, or
    its error), each pair's rows as ``bioaccel interact --partition`` writes them: in ``columns`` and
    format ``fmt``, and each of ``extras`` (``(option, columns, rows of a pair's first row)``: the
    ``--profile`` and ``--windows`` tables, TSV).

    >>> from bioaccel.interact import partition_work
    >>> made = partition_work("GGG", [("t", "CCC")])
    >>> partition_entries(made.function, [made.items[0].payload], columns=["query", "target", "log_z"], fmt="tsv",
    ...                   extras=[])
    [{'-o': 'seq1\\tt\\t9.3856...\\n'}]
    """
    from ..results.tables import TableWriter

    entries = []
    for value in compute(payloads):
        if isinstance(value, BioaccelError):
            entries.append(value)
            continue
        text = io.StringIO()
        TableWriter(text, columns, fmt, header=False).write(value)
        entry = {"-o": text.getvalue()}
        for option, table_columns, rows in extras:
            table = io.StringIO()
            TableWriter(table, table_columns, "tsv", header=False).write(rows(value[0]))
            entry[option] = table.getvalue()
        entries.append(entry)
    return entries


def _write_partition(outputs, pairs, *, columns, fmt, extras):
    from ..results.tables import TableWriter

    TableWriter(outputs["-o"], columns, fmt).header()
    for option, table_columns, _ in extras:
        TableWriter(outputs[option], table_columns, "tsv").header()
    for _, entry in pairs:
        if entry is None:                # failed: named on standard error
            continue
        outputs["-o"].write(entry["-o"])
        for option, _, _ in extras:
            outputs[option].write(entry[option])


def partition_job(args, work, queries, targets, params, columns, extras) -> Job:
    """The batch of ``bioaccel interact --partition`` from ``work`` (:func:`bioaccel.interact.partition_work`
    of every query against every target, lists of Records, with ``params``), written in ``columns``,
    with the ``extras`` tables (``(option, columns, rows)``: --profile, --windows)."""
    digest = fingerprint("interact --partition", dataclasses.asdict(params), args.sites, args.format, columns,
                         [option for option, _, _ in extras], *[f"{r.id}\t{r.sequence}" for r in queries], "targets",
                         *[f"{r.id}\t{r.sequence}" for r in targets])
    outputs = {"-o": "-" if args.output is None else args.output}
    outputs.update({option: getattr(args, option[2:]) for option, _, _ in extras})
    return Job(prog="bioaccel interact", unit="pair", items=work.items,
               function=functools.partial(partition_entries, work.function, columns=columns, fmt=args.format,
                                          extras=extras),
               write=functools.partial(_write_partition, columns=columns, fmt=args.format, extras=extras),
               outputs=outputs, fingerprint=digest, gpu=work.gpu)
