"""The command-line options of motifs, shared by ``bioaccel motif`` and ``bioaccel scan``: how motif
files are read (--motif-format, --kind, --background, --background-order) and scored (--preset,
--pseudocount, --log-base), the :class:`~bioaccel.motif.MotifParams` they make, the motifs read under
them, and --no-cache (the threshold cache).

Only argparse loads here when the parsers are built; the motif wing loads when motifs are read. The
choices of --motif-format, --kind and --preset are checked by the library (one-line errors), so that
the parser needs none of it.
"""
import itertools

DEFAULT_JASPAR_RELEASE = "2024"       # motif._jaspar.DEFAULT_RELEASE (a test keeps the two equal)

MOTIF_HELP = ("a motif file (JASPAR, MEME, TRANSFAC, HOMER or a plain matrix; may hold many motifs; plain or "
              "compressed; '-' reads standard input) or jaspar:ID, jaspar:YEAR/ID, jaspar:YEAR/COLLECTION[/TAXON] "
              f"(the JASPAR database shipped in pyjaspar; release {DEFAULT_JASPAR_RELEASE} unless a year is given)")



#: ``--kind``'s choices: bioaccel.motif.io.KINDS, written here so that the parser imports no NumPy
#: (tests/test_motif_cli.py checks that the two agree); a choice is checked even where no plain matrix
#: is read (``jaspar:`` sources), so a slip never passes silently.
MATRIX_KINDS = ("auto", "counts", "frequencies", "logodds")

def add_reading_options(parser) -> None:
    """How motif files are read: their format, what plain matrices hold, the background."""
    parser.add_argument("--motif-format", default="auto", metavar="FORMAT",
                        help="format of motif files: auto (default: from the extension or the content), jaspar, "
                             "pfm, meme, transfac, homer or matrix")
    parser.add_argument("--kind", default="auto", metavar="KIND", choices=MATRIX_KINDS,
                        help="what plain matrices hold: counts, frequencies or logodds (default: auto, counts or "
                             "frequencies by their row sums; a log-odds matrix must be named so)")
    parser.add_argument("--background", default="uniform", metavar="BG",
                        help="uniform (default), four frequencies A,C,G,T (e.g. 0.3,0.2,0.2,0.3 or "
                             "A=0.3,C=0.2,G=0.2,T=0.3), or a FASTA file to estimate it from")
    parser.add_argument("--background-order", type=int, default=0, metavar="K",
                        help="order of the Markov background estimated from the FASTA file given to "
                             "--background (default 0; 1 to 5 need a FASTA file)")


def add_scoring_options(parser) -> None:
    """How counts become log-odds: the preset, the pseudocount, the log base."""
    parser.add_argument("--preset", default=None, metavar="NAME",
                        help="how counts become log-odds: fimo (pseudocount 0.1, bits, each column against its own "
                             "total; default), meme (0.1, bits, one site count per motif: scores equal FIMO's on "
                             "the same MEME file), moods (0.01, natural log) or homer (no pseudocount, each "
                             "frequency at least 0.001, natural log: HOMER's scores)")
    parser.add_argument("--pseudocount", type=float, default=None, metavar="PS",
                        help="total pseudocount per column, shared by the background (overrides the preset)")
    parser.add_argument("--log-base", type=float, default=None, metavar="B",
                        help="log base of the scores, a number > 1 (overrides the preset: 2 gives bits, "
                             "2.718281828 nats)")


def add_cache_option(parser) -> None:
    """--no-cache: the exact thresholds computed again and motif files read again, the threshold cache on
    disk neither read nor written (bioaccel.motif._threshold_cache, ._motif_cache)."""
    parser.add_argument("--no-cache", dest="cache", action="store_false",
                        help="compute every exact threshold again and read motif files again, neither reading nor "
                             "writing the threshold cache "
                             "(default: thresholds found before are read from thresholds.sqlite3 in "
                             "$BIOACCEL_CACHE_DIR, else $XDG_CACHE_HOME/bioaccel or ~/.cache/bioaccel; the same "
                             "results)")


def motif_params(args):
    """The :class:`~bioaccel.motif.MotifParams` of the options (checked, and a FASTA background read,
    on construction)."""
    from ..motif import MotifParams

    return MotifParams(background=args.background, background_order=args.background_order,
                       preset=getattr(args, "preset", None) or "fimo", pseudocount=getattr(args, "pseudocount", None),
                       log_base=getattr(args, "log_base", None))


def stdin_once(args, *options) -> None:
    """Standard input can be read once: refuse two inputs given as '-' (``options``: (name shown,
    attribute) pairs)."""
    from ..errors import InvalidParameter

    named = []                                  # an option that lists '-' twice (scan's MOTIFS) counts twice
    for option, attr in options:
        value = getattr(args, attr, None)
        named += [option] * (value.count("-") if isinstance(value, list) else int(value == "-"))
    if len(named) > 1:
        raise InvalidParameter(f"{named[0]} and {named[1]} both read standard input ('-'); give at most one as '-'")


def _chosen(motifs, ids, spec) -> list:
    """The motifs whose id is one of ``ids`` (scan's ``--motif``, as FIMO's), in the file's order; all of
    them when ``ids`` is None; an id the file does not hold is refused, naming the ones it does.

    >>> from types import SimpleNamespace as M
    >>> [m.motif_id for m in _chosen([M(motif_id="a"), M(motif_id="b")], ["b"], "f")]
    ['b']
    """
    if not ids:
        return motifs
    from ..errors import InvalidParameter

    held = {m.motif_id for m in motifs}
    missing = [i for i in ids if i not in held]
    if missing:
        shown = ", ".join(sorted(held)[:5]) + (", ..." if len(held) > 5 else "")
        raise InvalidParameter(f"--motif {missing[0]}: {spec} holds no motif of that id (it holds {shown})")
    return [m for m in motifs if m.motif_id in set(ids)]


def sequences_instead(spec) -> bool:
    """Whether ``spec``, given where motifs go, is a FASTA file of sequences: a header line, then a
    line of sequence letters only (a motif file's rows hold numbers). Only a regular file is looked at
    (a pipe has been read).

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">chr1 a genome\\nACGTNNacgt\\n")
    >>> sequences_instead(f.name), sequences_instead("jaspar:MA0066.1")
    (True, False)
    """
    from ..inputs.files import is_regular_file, open_text

    if str(spec).startswith("jaspar:") or not is_regular_file(spec):
        return False
    try:
        with open_text(spec) as lines:
            head = [line.strip() for line in itertools.islice(lines, 50) if line.strip()][:2]
    except Exception:                        # unreadable or not text: the reader's own message stands
        return False
    return len(head) == 2 and head[0].startswith(">") and bool(head[1]) and \
        set(head[1].upper()) <= set("ACGTUNRYKMSWBDHV")


class MotifSource:
    """The motifs of ``spec`` read as the options say, when first used (``list(source)`` or
    :meth:`read`): so that the API call that takes them checks its own options first. A spec without a
    motif is an error, and so (``slices``) is a motif shorter than the bucket variant's --slices."""

    def __init__(self, args, spec, params, slices=None):
        self.args, self.spec, self.params, self.slices = args, spec, params, slices
        self._motifs = None

    def read(self) -> list:
        """The motifs (read on the first call)."""
        if self._motifs is None:
            from ..errors import InputError, InvalidParameter
            from ..motif import read_motifs

            motifs = []
            specs = self.spec if isinstance(self.spec, list) else [self.spec]
            for spec in specs:                  # several sources (scan's MOTIFS ...): their motifs in order
                try:
                    read = read_motifs(spec, params=self.params, fmt=self.args.motif_format, kind=self.args.kind,
                                       cache=getattr(self.args, "cache", False))
                except InputError:
                    if sequences_instead(spec):
                        scan = getattr(self.args, "prog", "") == "bioaccel scan"
                        raise InputError(f"{spec}: holds sequences (FASTA), not motifs" +
                                         (": give the motifs first, bioaccel scan MOTIFS SEQUENCES" if scan else
                                          " (a motif file is JASPAR, MEME, TRANSFAC, HOMER or a matrix)")) from None
                    raise
                if not read:
                    raise InvalidParameter(f"{spec}: no motif")
                motifs += read
            motifs = _chosen(motifs, getattr(self.args, "motif_ids", None), " ".join(specs))
            for m in motifs if self.slices is not None else ():
                if self.slices > m.length:
                    raise InvalidParameter(f"--slices {self.slices}: motif {m.motif_id} has {m.length} column"
                                           f"{'s' if m.length != 1 else ''}; give at most {m.length} slices")
            self._motifs = motifs
        return self._motifs

    def __iter__(self):
        return iter(self.read())

    def __len__(self):
        return len(self.read())
