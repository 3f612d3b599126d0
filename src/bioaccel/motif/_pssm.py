"""The motif model: counts -> probabilities (with pseudocounts) -> log-odds scores against a background.

Scores are a float64 array of shape (m, 4), columns in the order A, C, G, T. A word's score is the sum
of one entry per column (Giraud & Varré, section 2.1). Every distribution variant and backend consumes
the same :class:`PSSM`.

Backgrounds (:class:`~._background.Background`, in :mod:`._background`) are Markov chains over A, C,
G, T; log-odds use their single-letter frequencies, P-values the whole chain.

Presets (``PRESETS``) reproduce the peers' conventions for turning counts into scores. Each adds a
total pseudocount ``ps`` to each column, shared according to the background, and they differ in ``ps``,
the log base, and the site count N the pseudocount is weighed against:

* ``"fimo"``: ps = 0.1 (FIMO's ``--motif-pseudo`` default), scores in bits, each column against its own
  total: ``p(i, x) = (count(i, x) + ps * bg(x)) / (N_i + ps)``. Equal to ``meme`` whenever every column
  has the same total (most JASPAR matrices), but not otherwise.
* ``"meme"``: exactly as MEME and FIMO score a MEME file: each column's letter frequencies f(i, x)
  (normalised to sum to 1) and one site count N per motif, ``p(i, x) = (f(i, x) * N + ps * bg(x)) /
  (N + ps)``, ps = 0.1, bits. N is the file's ``nsites`` (20, MEME's default, when it has none); for a
  count matrix, the total of its first column, as MEME's ``jaspar2meme`` writes it. Scores then equal
  FIMO's on the same file.
* ``"moods"``: ps = 0.01 (``moods-dna.py --ps`` default, ``MOODS.tools.log_odds(mat, bg, ps)``),
  natural logarithm, each column against its own total.
* ``"homer"``: as HOMER scores its ``.motif`` files (``homer2``, ``scanMotifGenomeWide.pl``): each
  column's frequencies, every one below 0.001 raised to 0.001 and the others scaled down so that the
  column still sums to 1, no pseudocount, natural logarithm against the background (HOMER's is
  uniform, 0.25 a letter): the units of the log-odds detection threshold in a HOMER file's headers.

Frequency matrices are turned into counts with ``nsites`` (the file's own value where the format
carries one, otherwise 20, MEME's default) before the pseudocount is added.

A word's score is the sum of its columns' entries on the motif's integer grid (:mod:`._integer`):
:meth:`PSSM.score` and every exact answer and scan use that one summation.
"""
from dataclasses import dataclass, field
import math

import numpy as np

from ..errors import InvalidParameter
from ._background import LETTERS, Background

PRESETS = {
    "fimo": {"pseudocount": 0.1, "log_base": 2.0, "sites": "column"},
    "meme": {"pseudocount": 0.1, "log_base": 2.0, "sites": "motif"},
    "moods": {"pseudocount": 0.01, "log_base": math.e, "sites": "column"},
    "homer": {"pseudocount": 0.0, "log_base": math.e, "sites": "homer"},
}
HOMER_MIN_PROB = 0.001     # HOMER's MIN_MATRIX_PROB: no letter of a column is less likely than this


def homer_probabilities(freqs) -> np.ndarray:
    """Each row of ``freqs`` as HOMER adjusts a motif's column: normalised to sum 1, entries below
    HOMER_MIN_PROB raised to it and the others scaled by (over - under x HOMER_MIN_PROB) / over, where
    ``over`` is their sum and ``under`` the number raised, so that the row sums to 1 again.

    >>> homer_probabilities([[0.997, 0.003, 0.0, 0.0]]).round(6).tolist()      # 0.998 of 1 left for the two
    [[0.995006, 0.002994, 0.001, 0.001]]
    """
    p = np.asarray(freqs, dtype=np.float64)
    p = p / p.sum(axis=1, keepdims=True)
    low = p < HOMER_MIN_PROB
    over = np.where(low, 0.0, p).sum(axis=1, keepdims=True)
    scale = (over - low.sum(axis=1, keepdims=True) * HOMER_MIN_PROB) / over
    return np.where(low, HOMER_MIN_PROB, p * scale)
DEFAULT_PRESET = "fimo"
DEFAULT_NSITES = 20.0


def _as_counts(matrix, kind, nsites):
    if kind == "frequencies":
        return np.asarray(matrix, dtype=np.float64) * float(nsites or DEFAULT_NSITES)
    return np.asarray(matrix, dtype=np.float64)


@dataclass
class PSSM:
    """A position-specific scoring matrix: ``scores[i, x]`` for column i and letter x in A, C, G, T.

    >>> m = PSSM(np.array([[1.0, 0, 0, 0], [0, 2.0, 0, 0]]), motif_id="m")
    >>> m.length, m.max_score, m.score("AC")
    (2, 3.0, 3.0)
    """

    scores: np.ndarray
    motif_id: str = "motif"
    name: str = ""
    background: Background = field(default_factory=Background.uniform)
    counts: np.ndarray = None
    probabilities: np.ndarray = None
    pseudocount: float = None
    log_base: float = None
    source: str = ""
    #: the score threshold the motif's file gives (a HOMER file's log-odds detection threshold, in the
    #: units of the ``homer`` preset), None where it gives none
    file_threshold: "float | None" = None

    def __post_init__(self):
        s = np.ascontiguousarray(self.scores, dtype=np.float64)
        if s.ndim != 2 or s.shape[1] != 4 or s.shape[0] < 1:
            raise InvalidParameter(f"{self.motif_id}: a PSSM needs shape (m >= 1, 4), got {s.shape}")
        if not np.all(np.isfinite(s)):
            raise InvalidParameter(
                f"{self.motif_id}: the PSSM has infinite scores (a zero count without pseudocount); "
                "use a pseudocount > 0")
        self.scores = s

    def __len__(self):
        return self.scores.shape[0]

    @property
    def length(self) -> int:
        """Number of columns."""
        return self.scores.shape[0]

    @property
    def min_score(self) -> float:
        """The lowest word score (every column's lowest entry)."""
        return float(self.scores.min(axis=1).sum())

    @property
    def max_score(self) -> float:
        """The highest word score (every column's highest entry)."""
        return float(self.scores.max(axis=1).sum())

    def score(self, word) -> float:
        """Score of one word (str of A, C, G, T/U), summed on the motif's integer grid: the same number
        every exact P-value, threshold and scan of this motif uses for it.

        >>> PSSM([[0.1, 0.0, 0.0, 0.0], [0.2, 0.0, 0.0, 0.0]]).score("AA")
        0.30000000000001137
        """
        from ..inputs.alphabet import encode
        from ._integer import grid_bits, to_score, to_units, word_units

        codes = encode(word)
        if codes.size != self.length or np.any(codes > 3):
            raise InvalidParameter(f"word {word!r}: expected {self.length} letters A, C, G, T")
        bits = grid_bits(self.scores)
        return to_score(word_units(to_units(self.scores, bits), codes), bits)

    @classmethod
    def from_counts(cls, counts, *, motif_id="motif", name="", background=None, preset=DEFAULT_PRESET,
                    pseudocount=None, log_base=None, kind="counts", nsites=None, source="",
                    file_threshold=None) -> "PSSM":
        """Build scores from counts (or frequencies, with ``kind="frequencies"``) per ``preset``;
        ``pseudocount`` and ``log_base`` override the preset's values.

        >>> PSSM.from_counts([[4, 2, 1, 1]], pseudocount=0.0).scores.round(9).tolist()     # log2(p / 0.25)
        [[1.0, 0.0, -1.0, -1.0]]
        """
        if preset not in PRESETS:
            raise InvalidParameter(f"preset must be one of {', '.join(PRESETS)}, got {preset!r}")
        ps = PRESETS[preset]["pseudocount"] if pseudocount is None else float(pseudocount)
        base = PRESETS[preset]["log_base"] if log_base is None else float(log_base)
        if not (math.isfinite(ps) and ps >= 0):
            raise InvalidParameter(f"pseudocount must be a finite number >= 0, got {ps}")
        if not (math.isfinite(base) and base > 1):
            raise InvalidParameter(f"log base must be a finite number > 1, got {base}")
        background = background if background is not None else Background.uniform()
        c = _as_counts(counts, kind, nsites)
        if c.ndim != 2 or c.shape[1] != 4 or c.shape[0] < 1:
            raise InvalidParameter(f"{motif_id}: expected a matrix of m >= 1 columns by 4 letters, got {c.shape}")
        if np.any(c < 0) or not np.all(np.isfinite(c)):
            raise InvalidParameter(f"{motif_id}: counts must be finite and >= 0")
        bg = background.letter_frequencies
        totals = c.sum(axis=1, keepdims=True)
        if np.any(totals + ps <= 0):
            raise InvalidParameter(f"{motif_id}: a column has no counts and the pseudocount is 0")
        if PRESETS[preset]["sites"] == "homer":         # HOMER: frequencies, each at least 0.001
            probs = homer_probabilities((c + ps * bg) / (totals + ps))
        elif PRESETS[preset]["sites"] == "motif":       # MEME: frequencies and one site count per motif
            sites = float(nsites or DEFAULT_NSITES) if kind == "frequencies" else float(totals[0, 0])
            freqs = np.divide(c, totals, out=np.full_like(c, 0.25), where=totals > 0)
            probs = (freqs * sites + ps * bg) / (sites + ps)
        else:
            probs = (c + ps * bg) / (totals + ps)
        with np.errstate(divide="ignore"):
            scores = (np.log(probs) - np.log(bg)) / math.log(base)
        return cls(scores, motif_id=motif_id, name=name, background=background, counts=c,
                   probabilities=probs, pseudocount=ps, log_base=base, source=source, file_threshold=file_threshold)

    @classmethod
    def from_biopython(cls, obj, *, motif_id=None, background=None, preset=DEFAULT_PRESET, pseudocount=None,
                       log_base=None) -> "PSSM":
        """From a ``Bio.motifs`` Motif (its counts, scored per ``preset``) or a Biopython PSSM
        (``motif.pssm``, whose log-odds are kept as they are).

        >>> from Bio import motifs
        >>> PSSM.from_biopython(motifs.create(["ACG", "ACT"])).length
        3
        """
        letters = [x if x in getattr(obj, "alphabet", LETTERS) else x.replace("T", "U") for x in LETTERS]
        ident = motif_id or getattr(obj, "matrix_id", None) or getattr(obj, "name", None) or "motif"
        if hasattr(obj, "counts"):
            counts = np.array([[obj.counts[x][i] for x in letters] for i in range(obj.length)], dtype=np.float64)
            return cls.from_counts(counts, motif_id=ident, name=getattr(obj, "name", "") or "",
                                   background=background, preset=preset, pseudocount=pseudocount,
                                   log_base=log_base)
        scores = np.array([[obj[x][i] for x in letters] for i in range(obj.length)], dtype=np.float64)
        return cls(scores, motif_id=ident, background=background or Background.uniform())

    def with_background(self, background) -> "PSSM":
        """The same motif scored against another background, with the same pseudocount and log base
        (a matrix read as log-odds keeps its scores).

        >>> m = PSSM.from_counts([[4, 2, 1, 1]])
        >>> bool(m.with_background(Background.parse("0.4,0.1,0.1,0.4")).scores[0, 0] < m.scores[0, 0])
        True
        """
        if self.counts is None:
            return PSSM(self.scores, self.motif_id, self.name, background, None, None, None, None, self.source)
        return PSSM.from_counts(self.counts, motif_id=self.motif_id, name=self.name, background=background,
                                pseudocount=self.pseudocount, log_base=self.log_base, source=self.source)

    def reverse_complement(self) -> "PSSM":
        """The matrix of the other strand: columns in reverse order, each letter's score given to its
        complement (A <-> T, C <-> G); the same background.

        >>> PSSM([[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0]]).reverse_complement().scores.tolist()
        [[8.0, 7.0, 6.0, 5.0], [4.0, 3.0, 2.0, 1.0]]
        """
        counts = None if self.counts is None else self.counts[::-1, ::-1].copy()
        probs = None if self.probabilities is None else self.probabilities[::-1, ::-1].copy()
        return PSSM(self.scores[::-1, ::-1].copy(), self.motif_id, self.name, self.background, counts, probs,
                    self.pseudocount, self.log_base, self.source)

    def search(self, sequence, threshold: float = 0.0, both: bool = True, chunksize: int = 10 ** 6):
        """Yield ``(position, score)`` for every window of ``sequence`` scoring at least ``threshold``,
        as Biopython's ``PositionSpecificScoringMatrix.search`` does: forward windows at their 0-based
        start, reverse-strand windows (scored by the reverse complement, when ``both``) at start -
        len(sequence), in Biopython's order (windows of each ``chunksize`` block by start, ordered by
        the same ``np.argsort`` call). A window holding anything but A, C, G, T/U (any case) is
        skipped, as Biopython's NaN scores are; a sequence shorter than the motif has no window.

        Scores are in the motif's own units, summed on its integer grid (the numbers
        :meth:`score` and ``bioaccel scan`` give: Biopython sums float32), and ``threshold`` is read
        with the grid's tolerance, so a window scores at least ``threshold`` exactly when
        ``bioaccel scan --threshold`` reports it. Where Biopython fails (a sequence exactly as long as
        the motif, or shorter by two letters or more) this answers; U is read as T.

        >>> m = PSSM(np.eye(4)[:2] * 2)          # AC scores 4; on the reverse strand GT does
        >>> list(m.search("TTACGTNAC", threshold=3))
        [(2, 4.0), (-5, 4.0), (7, 4.0)]
        >>> list(m.search("AC", threshold=3, both=False)), list(m.search("A"))
        ([(0, 4.0)], [])
        """
        import numbers

        from ..inputs.alphabet import lenient_codes
        from ._integer import grid_bits, score_to_units, to_units

        if isinstance(threshold, bool) or not isinstance(threshold, numbers.Real) or math.isnan(threshold):
            raise InvalidParameter(f"threshold must be a number, got {threshold!r}")
        if isinstance(chunksize, bool) or not isinstance(chunksize, numbers.Integral) or chunksize < 1:
            raise InvalidParameter(f"chunksize must be a whole number >= 1, got {chunksize!r}")
        codes = lenient_codes(sequence)
        n, m = codes.size, self.length
        bits = grid_bits(self.scores)
        forward = to_units(self.scores, bits)
        units = np.concatenate([forward, forward[::-1, ::-1]]) if both else forward
        cut = score_to_units(float(threshold), bits, m)
        for start in range(0, max(n - m + 1, 0), chunksize):
            stop = min(start + chunksize, n - m + 1)             # windows start .. stop - 1
            entry, pos, score = _window_hits(codes[start:stop + m - 1], stop - start, units, m, cut, 2 if both else 1)
            plus, minus = (np.sort(pos[entry == e]) + start for e in (0, 1))      # window starts per strand
            totals = np.append(*(_scores_at(pos, score, entry == e) for e in (0, 1)))
            positions = np.append(plus, minus - n)
            # Biopython's own call on the same array (its default sort is not stable, so the order of a
            # position hit on both strands is whatever this call gives, as it is in Biopython)
            order = np.argsort(np.append(plus, minus))
            for k in order:
                yield int(positions[k]), float(totals[k]) / 2.0 ** bits

    def distribution(self, variant: "str | None" = None, *, backend: str = "cpu", precision: "float | None" = None,
                     slices: int = 4, buckets: int = 3600, threads: int = 0):
        """The score distribution, as Biopython's ``pssm.distribution(...)``; then
        ``.threshold_fpr(p)``, ``.threshold(p)``, ``.pvalue(score)`` or ``.pvalue_result(score)``.
        See :func:`bioaccel.motif.score_distribution` for the keywords.

        >>> PSSM(np.eye(4)[:2]).distribution().threshold_fpr(0.1)
        2.0
        """
        from ._stats import score_distribution

        return score_distribution(self, variant, backend=backend, precision=precision, slices=slices,
                                  buckets=buckets, threads=threads)

    def to_dict(self) -> dict:
        """The matrix, its score range, how it was scored and its background, as plain values."""
        return {"motif_id": self.motif_id, "name": self.name, "length": self.length,
                "alphabet": list(LETTERS), "pssm": self.scores.tolist(),
                "min_score": self.min_score, "max_score": self.max_score,
                "pseudocount": self.pseudocount, "log_base": self.log_base,
                "background": self.background.to_dict(), "source": self.source}


def _window_hits(codes, windows, units, m, cut, strands):
    """(strand, window start, grid score) of the windows of ``codes`` scoring at least ``cut``, the
    first ``windows`` of them, by the forward matrix (strand 0) and the reverse complement (1; both
    stacked in ``units``): the plain scan the scan wing runs (:mod:`bioaccel.runtime.window_scores`)."""
    from ..runtime.window_scores import bad_letters, scan_naive

    capacity = 1024
    while True:
        out = [np.empty(capacity, np.int64) for _ in range(3)] + [np.zeros(1, np.int64)]
        scan_naive(codes, windows, bad_letters(codes), np.full(strands, cut, np.int64), np.full(strands, m, np.int64),
                   units, np.arange(strands, dtype=np.int64) * m, *out)
        found = int(out[3][0])
        if found <= capacity:
            return out[0][:found], out[1][:found], out[2][:found]
        capacity = found


def _scores_at(pos, score, mine) -> np.ndarray:
    """The scores of one strand's hits, by window start."""
    return score[mine][np.argsort(pos[mine], kind="stable")]
