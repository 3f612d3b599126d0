"""How ``bioaccel motif`` writes its answers: the columns of its TSV and JSON rows, the progress bar over
the motifs, the plot of their distributions, and the scores file ``pvalue --scores`` reads."""
import math

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

    return value if isinstance(value, str) else format_number(value, digits=6)


def _distinct_digits(values, least=6) -> int:
    """The fewest significant digits (at least ``least``) at which the distinct numbers of ``values``
    (None left out) print distinctly.

    >>> _distinct_digits([0.001, 0.0009999999683714123, 0.0010000000338550308])
    9
    """
    numbers = sorted({float(v) for v in values if v is not None and math.isfinite(v)})
    for digits in range(least, 18):
        texts = [f"{v:.{digits}g}" for v in numbers]
        if len(set(texts)) == len(texts):
            return digits
    return 17


def _short_between(low, high) -> str:
    """``high`` with the fewest significant digits (6 at least) that keep it in the upper half of
    (``low``, ``high``]: read back as a score, it selects the words ``high`` does when no attainable
    score lies between the two (``high`` an exact threshold, ``low`` the next attainable score down),
    whatever the grid's rounding.

    >>> _short_between(-1.319277281431198, -1.31927725512071)
    '-1.31927726'
    >>> _short_between(10.593613843981188, 10.758907469210271)
    '10.7589'
    """
    middle = (low + high) / 2.0
    for digits in range(6, 18):
        text = f"{high:.{digits}g}"
        if middle < float(text) <= high:
            return text
    return repr(high)


def threshold_texts(row) -> dict:
    """A threshold row's numbers as the TSV shows them, each as short as it can be while saying what the
    full number says (JSON keeps every digit): the P-values with 6 significant digits, or as many more as
    it takes to tell the P-value asked, the one found (<= it) and the one below (> it) apart (0.001,
    0.00099999997, 0.00100000003, not 0.001 three times); an exact row's score as the shortest decimal
    that selects the same words (between score_low, the next attainable score down, and the score:
    ``scan --threshold`` or ``pvalue --score`` given it answer as for the score itself), score_low with as
    many digits as it takes to differ from it. Other rows (bounds, buckets) keep their scores whole."""
    from ..results.values import format_number

    out = dict(row)
    digits = _distinct_digits([row["p"], row["pvalue"], row["pvalue_below"]])
    for column in ("p", "pvalue", "pvalue_low", "pvalue_high", "pvalue_below"):
        out[column] = format_number(row[column], digits=digits if column != "p" else 6)
    score, low = row["score"], row["score_low"]
    if row["exact"] and row["variant"] == "exact" and all(v is not None and math.isfinite(v) for v in (score, low)) \
            and low < score:
        out["score"] = _short_between(low, score)
        out["score_low"] = format_number(low, digits=_distinct_digits([low, float(out["score"])]))
    return out


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


class AnswerBar:
    """The progress bar of ``motif pvalue`` and ``motif threshold``, drawn where a person watches:
    :attr:`on_answer` goes to the API before the motifs are read (None where no bar is drawn), and
    :meth:`over` draws it over them, each answer weighing its motif's estimated work (the exact
    search's :func:`~bioaccel.motif.search_work`, the bucket variant's words), so that the bar moves as
    the parallel search finishes motifs, the costliest first, with an honest time left."""

    def __init__(self, args, stderr):
        from .progress import wanted

        self.args, self.stderr, self.bar = args, stderr, None
        self.enabled = wanted(args.quiet, stderr)

    @property
    def on_answer(self):
        return self._answer if self.enabled else None

    def _work(self, motif):
        from ..motif import VARIANTS, bucket_words, search_work

        if VARIANTS.resolve(self.args.variant, self.args.backend) == "bucket":
            return float(bucket_words(motif.length, **({} if self.args.slices is None else
                                                       {"slices": self.args.slices})))
        return search_work(motif)

    def _answer(self, motif, searched):
        if self.bar is not None:
            asked = self.asked(motif)
            left = self.left[id(motif)] = self.left.get(id(motif), asked) - 1
            self.bar.done(self._work(motif) / asked, searched, finished=int(left == 0))

    def over(self, motifs, asked):
        """The bar over ``motifs``, ``asked(motif)`` values asked of each (a context manager)."""
        from .progress import work_progress

        self.asked, self.left = asked, {}
        motifs = [m for m in motifs if asked(m)] if self.enabled else motifs      # those with rows
        bar = work_progress(sum(self._work(m) for m in motifs) if self.enabled else 0.0, len(motifs), "motif",
                            desc="motif", enabled=self.enabled, stream=self.stderr)
        return _Holding(self, bar)


class _Holding:
    """``with``: the :class:`AnswerBar`'s bar open while the rows are written."""

    def __init__(self, owner, bar):
        self.owner, self.bar = owner, bar

    def __enter__(self):
        self.owner.bar = self.bar.__enter__()
        return self.owner.bar

    def __exit__(self, *exc):
        self.owner.bar = None
        return self.bar.__exit__(*exc)


def write_stats(args, stderr, outputs, motifs, rows, columns, json_columns, options, bar, asked, texts=None):
    """One row per answer (TSV: ``columns``, each row through ``texts`` when given; JSON: ``json_columns``);
    ``bar`` (an :class:`AnswerBar`) over the motifs, ``asked(motif)`` values asked of each; then the plot,
    if asked for (``options``: the API's keywords)."""
    from ..results.tables import TableWriter, chunked
    from ..results.values import format_number

    out = outputs["-o"]
    if args.format == "json":
        writer = TableWriter(out, json_columns, "json")
    else:
        writer = TableWriter(out, columns, "tsv", {**{c: _pvalue_text for c in
                                                      ("p", "pvalue", "pvalue_low", "pvalue_high", "pvalue_below")},
                                                   "note": lambda v: "-" if v is None else str(v),
                                                   "score_low": lambda v: v if isinstance(v, str) else
                                                   format_number(v)})
    marks = []              # (motif, score) of each row: the one asked, or the threshold found
    writer.header()
    with bar.over(motifs, asked):
        for chunk in chunked(rows):
            shaped = texts if texts is not None and args.format != "json" else (lambda row: row)
            writer.write([shaped(row) for _, row in chunk])
            marks.extend((motif, row["score"]) for motif, row in chunk)
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
