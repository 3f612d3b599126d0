"""How ``bioaccel motif`` writes its answers: the columns of its TSV and JSON rows, the progress bar over
the motifs, the plot of their distributions, and the scores file ``pvalue --scores`` reads."""

PVALUE_COLUMNS = ["motif_id", "name", "length", "score", "pvalue", "pvalue_low", "pvalue_high", "exact", "variant",
                  "note"]
THRESHOLD_COLUMNS = ["motif_id", "name", "length", "p", "score", "pvalue", "pvalue_low", "pvalue_high",
                     "score_low", "pvalue_below", "exact", "variant", "note"]

COMPARE_COLUMNS = ["motif1", "motif2", "strand", "shift", "alpha", "beta", "both", "only1", "only2", "neither",
                   "similarity"]
COMPARE_JSON = ["motif1", "motif2", "strand", "shift", "span", "pvalue", "alpha", "beta", "both_low", "both_high",
                "only1_low", "only1_high", "only2_low", "only2_high", "neither_low", "neither_high", "similarity",
                "variant"]


def _pvalue_text(value):
    from ..results.values import format_number

    return format_number(value, digits=6)


def interval(bounds):
    from ..results.values import format_number

    low, high = bounds
    return f"{format_number(low, digits=4)}..{format_number(high, digits=4)}"


def plot_items(args, motifs, marks, options):
    """The distributions to draw (``options``: the API's keywords), computed as the plot takes them (the
    first few motifs only)."""
    from ..motif import score_distribution

    options = {k: v for k, v in options.items() if k not in ("variant", "params")}
    for m, mark in zip(motifs, marks):
        yield score_distribution(m, args.variant, **options), mark, f"{m.motif_id} {m.name}"


def write_stats(args, stderr, outputs, motifs, rows, columns, json_columns, options):
    """One row per answer (TSV: ``columns``; JSON: ``json_columns``); a progress bar over the motifs;
    then the plot, if asked for (``options``: the API's keywords)."""
    from .progress import progress, wanted
    from ..results.tables import TableWriter, chunked
    from ..results.values import format_number

    out = outputs["-o"]
    if args.format == "json":
        writer = TableWriter(out, json_columns, "json")
    else:
        writer = TableWriter(out, columns, "tsv", {**{c: _pvalue_text for c in
                                                      ("p", "pvalue", "pvalue_low", "pvalue_high", "pvalue_below")},
                                                   "note": lambda v: "-" if v is None else str(v),
                                                   "score_low": lambda v: format_number(v)})
    marks = []              # (motif, score) of each row: the one asked, or the threshold found
    writer.header()
    with progress(total=len(motifs), unit="motif", desc="motif", enabled=wanted(args.quiet, stderr),
                  stream=stderr) as bar:
        last = None
        for chunk in chunked(rows):
            writer.write([row for _, row in chunk])
            marks.extend((motif, row["score"]) for motif, row in chunk)
            for motif, _ in chunk:
                if motif is not last:
                    bar.update(1)
                    last = motif
    if args.plot:
        from ..motif import plot_distributions

        seen, firsts = set(), []
        for motif, score in marks:          # one panel per motif, marked at its first row's score
            if motif.motif_id not in seen:
                seen.add(motif.motif_id)
                firsts.append((motif, score))
        plot_distributions(plot_items(args, [m for m, _ in firsts], [sc for _, sc in firsts], options), args.plot,
                           outputs["--plot"])
    return 0


def read_scores(path):
    """The numbers of a scores file (spaces, commas or new lines between them)."""
    import math
    import re

    from ..inputs.files import display_name, read_text
    from ..errors import InputError

    name = display_name(path)
    values = []
    for lineno, line in enumerate(read_text(path, expected="a file of scores").splitlines(), start=1):
        for token in re.split(r"[\s,;]+", line.split("#")[0].strip()):
            if not token:
                continue
            try:
                value = float(token)
            except ValueError:
                raise InputError(f"{name}: line {lineno}: {token!r} is not a number") from None
            if math.isnan(value):
                raise InputError(f"{name}: line {lineno}: {token!r} is not a score")
            values.append(value)
    if not values:
        raise InputError(f"{name}: no score in the file")
    return values
