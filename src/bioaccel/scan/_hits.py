"""The hits of a scan as columns of NumPy arrays (:class:`Hits`), and what is done to all of them at
once: q-values, FIMO's order, pruning to the best, and the pandas DataFrame the API returns.

A hit's matched word is kept packed, two bits a letter, 32 letters to a uint64 (as read on its strand:
reverse-complemented on ``-``), so a genome's worth of hits holds no Python strings.
"""
from dataclasses import dataclass, fields

import numpy as np
from numba import njit, prange

#: The columns of a FIMO TSV file, in order: the DataFrame's columns.
FIMO_COLUMNS = ("motif_id", "motif_alt_id", "sequence_name", "start", "stop", "strand", "score", "p-value",
                "q-value", "matched_sequence")


@dataclass
class Hits:
    """Hits as parallel arrays. ``motif``: index into the scan's motifs; ``strand``: 0 for +, 1 for -;
    ``sequence``: index into the scan's sequence names; ``start``: 0-based first position on the
    forward strand; ``units``: the score on the motif's integer grid; ``word``: the matched letters,
    packed (:func:`pack_words`); ``pvalue``, ``qvalue``: NaN until computed."""

    motif: np.ndarray
    strand: np.ndarray
    sequence: np.ndarray
    start: np.ndarray
    units: np.ndarray
    word: np.ndarray
    pvalue: np.ndarray
    qvalue: np.ndarray

    def __len__(self):
        return self.motif.shape[0]

    @classmethod
    def empty(cls, words=1) -> "Hits":
        """No hits (``words`` uint64 per packed word)."""
        return cls(np.zeros(0, np.int32), np.zeros(0, np.int8), np.zeros(0, np.int32), np.zeros(0, np.int64),
                   np.zeros(0, np.int64), np.zeros((0, words), np.uint64), np.zeros(0), np.zeros(0))

    @classmethod
    def concat(cls, parts) -> "Hits":
        """All of ``parts`` (a list of Hits) in order; words packed narrower than the widest (groups of
        shorter motifs, scanned apart) are padded with zero columns, which no letter of theirs reads.

        >>> Hits.concat([Hits.empty(), Hits.empty(2)]).word.shape
        (0, 2)
        """
        parts = list(parts)
        if not parts:
            return cls.empty()
        width = max(p.word.shape[1] for p in parts)
        parts = [p if p.word.shape[1] == width else
                 cls(**{**{f.name: getattr(p, f.name) for f in fields(cls)},
                        "word": np.pad(p.word, ((0, 0), (0, width - p.word.shape[1])))}) for p in parts]
        return cls(*(np.concatenate([getattr(p, f.name) for p in parts]) for f in fields(cls)))

    def take(self, index) -> "Hits":
        """The hits at ``index`` (indices or a boolean mask), in that order."""
        return Hits(*(getattr(self, f.name)[index] for f in fields(self)))

    def at_most_qvalue(self, q: float) -> "Hits":
        """The hits whose q-value is at most ``q`` (FIMO's ``--qv-thresh``), in the same order; a hit
        without a q-value (NaN) is not among them.

        >>> h = Hits(np.zeros(3, np.int32), np.zeros(3, np.int8), np.zeros(3, np.int32), np.arange(3),
        ...          np.zeros(3, np.int64), np.zeros((3, 1), np.uint64), np.ones(3), np.array([0.01, 0.2, np.nan]))
        >>> h.at_most_qvalue(0.05).start.tolist()
        [0]
        """
        return self.take(np.flatnonzero(self.qvalue <= q))

    def position_order(self) -> np.ndarray:
        """The order genome tools expect of BED and GFF: sequence (in input order), start, strand, motif.

        >>> h = Hits(np.array([1, 0], np.int32), np.zeros(2, np.int8), np.zeros(2, np.int32), np.array([9, 9]),
        ...          np.zeros(2, np.int64), np.zeros((2, 1), np.uint64), np.ones(2), np.ones(2))
        >>> h.position_order().tolist()
        [1, 0]
        """
        return np.lexsort((self.motif, self.strand, self.start, self.sequence))

    def fimo_order(self) -> np.ndarray:
        """The order FIMO writes: motif (in input order), then P-value ascending, then sequence, start
        and strand."""
        return np.lexsort((self.strand, self.start, self.sequence, self.pvalue, self.motif))

    def best(self, keep) -> "tuple[Hits, float]":
        """The ``keep`` hits of smallest P-value (ties at the cut: all or none of them) and the cut: the
        smallest P-value dropped (``inf`` when nothing was), for ``--max-stored-hits``. A later hit
        can be dropped at once when its P-value is at the cut or above (it can never be among the best),
        but not merely above the largest P-value kept: ties may have left fewer than ``keep`` hits.

        >>> h = Hits.empty()
        >>> h.best(10)[1]
        inf
        >>> p = np.array([0.1, 0.3, 0.3, 0.2])
        >>> h = Hits(np.zeros(4, np.int32), np.zeros(4, np.int8), np.zeros(4, np.int32), np.arange(4),
        ...          np.zeros(4, np.int64), np.zeros((4, 1), np.uint64), p, np.full(4, np.nan))
        >>> kept, cut = h.best(3)         # the two hits of P = 0.3 tie at the cut: neither is kept
        >>> kept.pvalue.tolist(), cut
        ([0.1, 0.2], 0.3)
        """
        if len(self) <= keep:
            return self, float("inf")
        # the first P-value that does not fit: a hit is kept only below it (a tie at the cut, kept in
        # part, would depend on the order hits were found)
        cut = float(np.partition(self.pvalue, keep)[keep])
        return self.take(self.pvalue < cut), cut


    def best_per_motif(self, keep) -> "tuple[Hits, np.ndarray]":
        """The ``keep`` hits of smallest P-value of each motif, in this order, as :meth:`best` keeps them
        (ties at a motif's cut: all or none of them, so a motif may keep fewer), and how many hits each
        motif lost (an array by motif number, as long as the largest number seen + 1).

        >>> p = np.array([0.1, 0.3, 0.3, 0.2, 0.5, 0.4])
        >>> h = Hits(np.array([0, 0, 0, 0, 1, 1], np.int32), np.zeros(6, np.int8), np.zeros(6, np.int32),
        ...          np.arange(6), np.zeros(6, np.int64), np.zeros((6, 1), np.uint64), p, np.full(6, np.nan))
        >>> kept, lost = h.best_per_motif(2)      # motif 0: 0.1, 0.2 (then 0.3 twice); motif 1: both
        >>> kept.start.tolist(), lost.tolist()
        ([0, 3, 4, 5], [2, 0])
        >>> kept, lost = h.best_per_motif(3)      # the two of P = 0.3 tie at motif 0's cut: neither kept
        >>> kept.start.tolist(), lost.tolist()
        ([0, 3, 4, 5], [2, 0])
        """
        if len(self) == 0:
            return self, np.zeros(0, np.int64)
        order = np.lexsort((self.pvalue, self.motif))
        motif, pvalue = self.motif[order], self.pvalue[order]
        first = np.flatnonzero(np.r_[True, motif[1:] != motif[:-1]])         # each motif's first hit
        rank = np.arange(len(order)) - np.repeat(first, np.diff(np.r_[first, len(order)]))
        # a motif's cut: the P-value of its (keep + 1)-th best hit (inf where it has no more than keep)
        cut = np.full(int(motif.max()) + 1, np.inf)
        over = rank == keep
        cut[motif[over]] = pvalue[over]
        kept = self.pvalue < cut[self.motif]
        lost = np.bincount(self.motif[~kept], minlength=cut.size).astype(np.int64)
        return self.take(np.flatnonzero(kept)), lost


@njit(cache=True, nogil=True, parallel=True)
def pack_words(codes, starts, lengths, strands, words):
    """The letters ``codes[start:start + length]`` of each hit, reverse-complemented where its strand is
    1, packed two bits a letter (first letter in the lowest bits), ``words`` uint64 a hit; the hits on
    every core (a genome's millions).

    >>> from bioaccel.inputs.alphabet import encode
    >>> w = pack_words(encode("ACGTT"), np.array([0, 0]), np.array([3, 3]), np.array([0, 1]), 1)
    >>> unpack_words(w, 3)
    ['ACG', 'CGT']
    """
    out = np.zeros((starts.shape[0], words), np.uint64)
    for h in prange(starts.shape[0]):
        _pack_into(out[h], codes, starts[h], lengths[h], strands[h])
    return out


@njit(cache=True, nogil=True)
def _pack_into(row, codes, start, length, strand):
    """One hit's letters into ``row`` (its ``words`` uint64, zero), as :func:`pack_words` packs them."""
    for k in range(length):
        c = codes[start + k] if strand == 0 else 3 - codes[start + length - 1 - k]
        row[k // 32] |= np.uint64(c) << np.uint64(2 * (k % 32))


@njit(cache=True, nogil=True)
def in_key_order(pos, entry, entries) -> bool:
    """Whether the hits are sorted by position, then entry (the GPU's come so).

    >>> in_key_order(np.array([0, 0, 1]), np.array([0, 2, 1]), 3), in_key_order(np.array([1, 0]), np.array([0, 0]), 3)
    (True, False)
    """
    for i in range(1, pos.shape[0]):
        if pos[i] * entries + entry[i] < pos[i - 1] * entries + entry[i - 1]:
            return False
    return True


@njit(cache=True, nogil=True, parallel=True)
def chunk_hits(codes, entry, pos, units, motif_of, strand_of, length_of, chunk_start, sequence, words):
    """The columns of :class:`Hits` for hits ``(entry, pos, units)`` of one chunk (``pos`` within
    ``codes``, which starts at ``chunk_start`` of sequence ``sequence``), made in one pass on every
    core: a genome's chunks of 2 million hits each, where NumPy's dozen passes (casts, gathers, fills)
    held the scan's host thread about 0.1 s a chunk.

    >>> from bioaccel.inputs.alphabet import encode
    >>> one = np.array([0])
    >>> cols = chunk_hits(encode("ACGT"), one, np.array([1]), np.array([7]), one, np.array([1]), np.array([2]),
    ...                   10, 3, 1)
    >>> [int(c[0]) for c in cols[:5]], unpack_words(cols[5], 2)
    ([0, 1, 3, 11, 7], ['CG'])
    """
    n = entry.shape[0]
    motif = np.empty(n, np.int32)
    strand = np.empty(n, np.int8)
    seq = np.empty(n, np.int32)
    start = np.empty(n, np.int64)
    score = np.empty(n, np.int64)
    packed = np.zeros((n, words), np.uint64)
    pvalue = np.empty(n, np.float64)
    qvalue = np.empty(n, np.float64)
    for h in prange(n):
        e = entry[h]
        p = pos[h]
        motif[h] = motif_of[e]
        s = strand_of[e]
        strand[h] = s
        seq[h] = sequence
        start[h] = chunk_start + p
        score[h] = units[h]
        pvalue[h] = np.nan
        qvalue[h] = np.nan
        _pack_into(packed[h], codes, p, length_of[e], s)
    return motif, strand, seq, start, score, packed, pvalue, qvalue


def unpack_words(packed, length) -> list:
    """The words of :func:`pack_words` as strings of A, C, G, T."""
    if packed.shape[0] == 0:
        return []
    k = np.arange(length)
    letters = (packed[:, k // 32] >> (2 * (k % 32)).astype(np.uint64)) & np.uint64(3)
    table = np.frombuffer(b"ACGT", dtype=np.uint8)
    rows = table[letters.astype(np.int64)]
    return [bytes(r).decode("ascii") for r in rows]


def bh_qvalues(pvalues, tests) -> np.ndarray:
    """Benjamini-Hochberg q-values of ``pvalues`` among ``tests`` tests in all, the tests not given
    counted as P = 1 (they were not hits): q_i = min over j >= rank(i) of p_(j) * tests / j, at most 1.

    >>> bh_qvalues(np.array([0.01, 0.04, 0.03]), 4).round(4).tolist()    # 0.01 * 4/1; 0.03 * 4/2 > 0.04 * 4/3
    [0.04, 0.0533, 0.0533]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    if p.size == 0:
        return p.copy()
    order = np.argsort(p, kind="stable")
    ranked = p[order] * tests / np.arange(1, p.size + 1)
    ranked = np.minimum.accumulate(ranked[::-1])[::-1]
    q = np.empty_like(p)
    q[order] = np.minimum(ranked, 1.0)
    return q


def add_qvalues(hits, tests) -> None:
    """Fill ``hits.qvalue`` motif by motif: ``tests[k]`` is motif k's number of tests (windows scored
    on every strand scanned)."""
    if len(hits) == 0:
        return
    order = np.argsort(hits.motif, kind="stable")
    bounds = np.flatnonzero(np.diff(hits.motif[order])) + 1
    for group in np.split(order, bounds):
        k = int(hits.motif[group[0]])
        hits.qvalue[group] = bh_qvalues(hits.pvalue[group], max(int(tests[k]), group.size))


def to_frame(hits, motifs, names, *, qvalues=True):
    """The hits as a pandas DataFrame with FIMO's columns (1-based inclusive start and stop), in the
    order given. ``motifs``: the scan's PSSMs; ``names``: the sequence names."""
    import pandas as pd

    ids = np.array([m.motif_id for m in motifs], dtype=object)
    alts = np.array([m.name for m in motifs], dtype=object)
    seqs = np.array(list(names), dtype=object)
    lengths = np.array([m.length for m in motifs], dtype=np.int64)
    bits = np.array([_bits(m) for m in motifs], dtype=np.float64)
    motif = hits.motif.astype(np.int64)
    matched = np.empty(len(hits), dtype=object)
    for k in np.unique(motif):
        sel = motif == k
        matched[sel] = unpack_words(hits.word[sel], int(lengths[k]))
    return pd.DataFrame({
        "motif_id": ids[motif] if len(hits) else np.zeros(0, object),
        "motif_alt_id": alts[motif] if len(hits) else np.zeros(0, object),
        "sequence_name": seqs[hits.sequence] if len(hits) else np.zeros(0, object),
        "start": hits.start + 1,
        "stop": hits.start + lengths[motif],
        "strand": np.where(hits.strand == 0, "+", "-").astype(object),
        "score": hits.units / np.exp2(bits[motif]),
        "p-value": hits.pvalue,
        "q-value": hits.qvalue if qvalues else np.full(len(hits), np.nan),
        "matched_sequence": matched,
    }, columns=list(FIMO_COLUMNS))


def _bits(pssm) -> int:
    from ..motif import Grid

    return Grid.of(pssm).bits
