"""Writing a scan's hits: FIMO's TSV, BED6 and GFF3, formatted by Numba into byte buffers (a genome's
tens of millions of hits in seconds, where Python's string formatting would take minutes).

Numbers are written as C's ``printf`` would: integers in full, scores ``%.6g`` and P- and q-values
``%.3g`` (as FIMO writes them), rounded as ``printf`` rounds (on the exact binary value; for numbers of
1e22 and more, or below 1e-22 scaled, from the float product).

* ``fimo``: FIMO's columns (``motif_id motif_alt_id sequence_name start stop strand score p-value
  q-value matched_sequence``), 1-based inclusive coordinates, a header line; the q-value empty when
  it was not computed (``--text``, as FIMO leaves it).
* ``bed``: BED6, 0-based half-open: chrom, start, end, name (the motif id), score (0 to 1000: the
  hit's score relative to the motif's lowest and highest, as JASPAR's relative score), strand.
* ``gff``: GFF3 with its ``##gff-version 3`` line: type ``TF_binding_site`` (SO:0000235), 1-based
  inclusive, the score, attributes ``Name``, ``Alias`` (the alternative name), ``ID``, ``pvalue``,
  ``qvalue`` and ``sequence``; reserved characters percent-encoded as GFF3 requires.
"""
import math
import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
from numba import njit

from ..results.digits import put_int
from ._defaults import FORMATS

#: Hits formatted per buffer.
ROWS = 1 << 17
FIMO_HEADER = "motif_id\tmotif_alt_id\tsequence_name\tstart\tstop\tstrand\tscore\tp-value\tq-value\tmatched_sequence\n"
GFF_HEADER = "##gff-version 3\n"
_ACGT = np.frombuffer(b"ACGT", dtype=np.uint8)
# literal pieces of a GFF line, as arrays (Numba reads global arrays as constants)
_GFF_TYPE = np.frombuffer(b"\tbioaccel\tTF_binding_site\t", dtype=np.uint8)
_GFF_NAME = np.frombuffer(b"\t.\tName=", dtype=np.uint8)
_GFF_ALIAS = np.frombuffer(b";Alias=", dtype=np.uint8)
_GFF_ID = np.frombuffer(b";ID=", dtype=np.uint8)
_GFF_P = np.frombuffer(b";pvalue=", dtype=np.uint8)
_GFF_Q = np.frombuffer(b";qvalue=", dtype=np.uint8)
_GFF_SEQ = np.frombuffer(b";sequence=", dtype=np.uint8)


@njit(cache=True, nogil=True)
def _product_error(a, b, p):
    """The rounding error of the float product p = a * b (Dekker's TwoProduct): a * b = p + error exactly."""
    split = 134217729.0            # 2**27 + 1
    t = split * a
    a_hi = t - (t - a)
    a_lo = a - a_hi
    t = split * b
    b_hi = t - (t - b)
    b_lo = b - b_hi
    return ((a_hi * b_hi - p) + a_hi * b_lo + a_lo * b_hi) + a_lo * b_lo


@njit(cache=True, nogil=True)
def _scaled_round(x, k):
    """round(x * 10**k) to the nearest integer, ties to even, decided on the exact product when
    10**k is exact (0 <= k <= 22) as printf decides on the exact binary value."""
    if 0 <= k <= 22:
        scale = 10.0 ** k
        y = x * scale
        low = _product_error(x, scale, y)
        a = math.floor(y)
        if y - a == 0.5 and low != 0.0:            # a tie only in the rounded product
            return int(a) + (1 if low > 0 else 0)
        return int(round(y))
    if k > 300:
        return int(round(x * 1e300 * 10.0 ** (k - 300)))
    return int(round(x * 10.0 ** k))


@njit(cache=True, nogil=True)
def put_g(buf, pos, x, digits):
    """Write ``x`` as ``printf("%.<digits>g")`` would; return the position after it."""
    if x != x:
        buf[pos] = 110
        buf[pos + 1] = 97
        buf[pos + 2] = 110
        return pos + 3
    if x < 0:
        buf[pos] = 45
        pos += 1
        x = -x
    if x == np.inf:
        buf[pos] = 105
        buf[pos + 1] = 110
        buf[pos + 2] = 102
        return pos + 3
    if x == 0.0:
        buf[pos] = 48
        return pos + 1
    e = int(math.floor(math.log10(x)))
    top = 10 ** digits
    m = 0
    for _ in range(3):              # log10 may be one off near powers of ten
        m = _scaled_round(x, digits - 1 - e)
        if m >= top:
            e += 1
        elif m < top // 10:
            e -= 1
        else:
            break
    if m >= top:                    # rounding carried into a new digit
        m //= 10
        e += 1
    mant = np.empty(digits, np.int64)
    for i in range(digits - 1, -1, -1):
        mant[i] = m % 10
        m //= 10
    last = digits - 1               # the last significant digit kept (trailing zeros dropped)
    while last > 0 and mant[last] == 0:
        last -= 1
    if e < -4 or e >= digits:       # exponent form: d.ddde[+-]XX
        buf[pos] = 48 + mant[0]
        pos += 1
        if last > 0:
            buf[pos] = 46
            pos += 1
            for i in range(1, last + 1):
                buf[pos] = 48 + mant[i]
                pos += 1
        buf[pos] = 101
        pos += 1
        if e < 0:
            buf[pos] = 45
            e = -e
        else:
            buf[pos] = 43
        pos += 1
        if e < 10:
            buf[pos] = 48
            pos += 1
        return put_int(buf, pos, e)
    if e < 0:                       # 0.000ddd
        buf[pos] = 48
        buf[pos + 1] = 46
        pos += 2
        for _ in range(-e - 1):
            buf[pos] = 48
            pos += 1
        for i in range(last + 1):
            buf[pos] = 48 + mant[i]
            pos += 1
        return pos
    for i in range(e + 1):          # ddd[.ddd]
        buf[pos] = 48 + mant[i]
        pos += 1
    if last > e:
        buf[pos] = 46
        pos += 1
        for i in range(e + 1, last + 1):
            buf[pos] = 48 + mant[i]
            pos += 1
    return pos


@njit(cache=True, nogil=True)
def _put_text(buf, pos, table, offsets, k):
    for i in range(offsets[k], offsets[k + 1]):
        buf[pos] = table[i]
        pos += 1
    return pos


@njit(cache=True, nogil=True)
def _put_bytes(buf, pos, literal):
    for i in range(literal.shape[0]):
        buf[pos + i] = literal[i]
    return pos + literal.shape[0]


@njit(cache=True, nogil=True)
def _put_word(buf, pos, word, length):
    for k in range(length):
        code = (word[k // 32] >> np.uint64(2 * (k % 32))) & np.uint64(3)
        buf[pos] = _ACGT[code]
        pos += 1
    return pos


@njit(cache=True, nogil=True)
def format_rows(kind, buf, motif, strand, sequence, start, units, word, pvalue, qvalue, has_q, lengths, scale,
                low, high, ids, id_off, alts, alt_off, names, name_off):
    """Write one line per hit into ``buf`` (kind 0 fimo, 1 bed, 2 gff); return the bytes written."""
    # int64s, not literals: Numba compiles a callee once per literal argument (3 more copies on a first run)
    pos, six, three = np.int64(0), np.int64(6), np.int64(3)
    for r in range(motif.shape[0]):
        k = motif[r]
        m = lengths[k]
        score = units[r] * scale[k]
        plus = strand[r] == 0
        if kind == 1:                                         # BED6
            pos = _put_text(buf, pos, names, name_off, sequence[r])
            buf[pos] = 9
            pos = put_int(buf, pos + 1, start[r])
            buf[pos] = 9
            pos = put_int(buf, pos + 1, start[r] + m)
            buf[pos] = 9
            pos = _put_text(buf, pos + 1, ids, id_off, k)
            buf[pos] = 9
            span = high[k] - low[k]
            rel = 1000 if span <= 0 else int(round(1000.0 * (score - low[k]) / span))
            pos = put_int(buf, pos + 1, min(max(rel, 0), 1000))
            buf[pos] = 9
            buf[pos + 1] = 43 if plus else 45
            buf[pos + 2] = 10
            pos += 3
            continue
        if kind == 0:                                         # FIMO TSV
            pos = _put_text(buf, pos, ids, id_off, k)
            buf[pos] = 9
            pos = _put_text(buf, pos + 1, alts, alt_off, k)
            buf[pos] = 9
            pos = _put_text(buf, pos + 1, names, name_off, sequence[r])
            buf[pos] = 9
            pos = put_int(buf, pos + 1, start[r] + 1)
            buf[pos] = 9
            pos = put_int(buf, pos + 1, start[r] + m)
            buf[pos] = 9
            buf[pos + 1] = 43 if plus else 45
            buf[pos + 2] = 9
            pos = put_g(buf, pos + 3, score, six)
            buf[pos] = 9
            pos = put_g(buf, pos + 1, pvalue[r], three)
            buf[pos] = 9
            pos += 1
            if has_q:
                pos = put_g(buf, pos, qvalue[r], three)
            buf[pos] = 9
            pos = _put_word(buf, pos + 1, word[r], m)
            buf[pos] = 10
            pos += 1
            continue
        # GFF3: seqid source type start end score strand phase attributes
        pos = _put_text(buf, pos, names, name_off, sequence[r])
        pos = _put_bytes(buf, pos, _GFF_TYPE)
        pos = put_int(buf, pos, start[r] + 1)
        buf[pos] = 9
        pos = put_int(buf, pos + 1, start[r] + m)
        buf[pos] = 9
        pos = put_g(buf, pos + 1, score, six)
        buf[pos] = 9
        buf[pos + 1] = 43 if plus else 45
        pos = _put_bytes(buf, pos + 2, _GFF_NAME)
        pos = _put_text(buf, pos, ids, id_off, k)
        if alt_off[k + 1] > alt_off[k]:
            pos = _put_bytes(buf, pos, _GFF_ALIAS)
            pos = _put_text(buf, pos, alts, alt_off, k)
        pos = _put_bytes(buf, pos, _GFF_ID)
        pos = _put_text(buf, pos, ids, id_off, k)
        buf[pos] = 45
        pos = _put_text(buf, pos + 1, names, name_off, sequence[r])
        buf[pos] = 45
        pos = put_int(buf, pos + 1, start[r] + 1)
        buf[pos] = 45
        buf[pos + 1] = 112 if plus else 109                   # p(lus) / m(inus)
        pos = _put_bytes(buf, pos + 2, _GFF_P)
        pos = put_g(buf, pos, pvalue[r], three)
        if has_q:
            pos = _put_bytes(buf, pos, _GFF_Q)
            pos = put_g(buf, pos, qvalue[r], three)
        pos = _put_bytes(buf, pos, _GFF_SEQ)
        pos = _put_word(buf, pos, word[r], m)
        buf[pos] = 10
        pos += 1
    return pos


def _gff_escape(text: str) -> str:
    """Percent-encode what GFF3 reserves in a column or attribute value (tab, newline, ;, =, &, ,, %).

    >>> _gff_escape("a;b=c")
    'a%3Bb%3Dc'
    """
    return "".join(f"%{ord(c):02X}" if c in "\t\n\r;=&,%" or ord(c) < 32 else c for c in text)


def _table(texts, escape=False):
    data = [(_gff_escape(t) if escape else t).replace("\t", " ").replace("\n", " ").encode("utf-8") for t in texts]
    offsets = np.zeros(len(data) + 1, np.int64)
    np.cumsum([len(d) for d in data], out=offsets[1:])
    return np.frombuffer(b"".join(data) or b"\0", dtype=np.uint8).copy(), offsets


class HitWriter:
    """Writes :class:`~._hits.Hits` of one scan to a text handle in one of :data:`FORMATS`.

    ``motifs``: the scan's PSSMs; ``names``: a list the sequence names are appended to as the scan
    reads them (the writer reads it at each call). :meth:`header` asks for the header line, written with
    the first batch (or by :meth:`finish`): an input refused at once leaves no lone header.

    >>> import io
    >>> from bioaccel.motif import PSSM
    >>> from bioaccel.scan._hits import Hits
    >>> out = io.StringIO()
    >>> w = HitWriter(out, "bed", [PSSM(np.eye(4)[:2], motif_id="m1")], ["chr1"])
    >>> h = Hits(np.array([0], np.int32), np.array([1], np.int8), np.array([0], np.int32), np.array([9]),
    ...          np.array([2 << 44]), np.zeros((1, 1), np.uint64), np.array([0.0625]), np.array([np.nan]))
    >>> w.write(h)
    >>> out.getvalue()
    'chr1\\t9\\t11\\tm1\\t1000\\t-\\n'
    """

    def __init__(self, handle, fmt, motifs, names, *, qvalues=True):
        from ..motif import Grid

        if fmt not in FORMATS:
            raise ValueError(f"format must be one of {', '.join(FORMATS)}")
        self.handle = handle
        self.kind = FORMATS.index(fmt)
        self.names = names
        self.qvalues = qvalues
        escape = fmt == "gff"
        self.ids, self.id_off = _table([m.motif_id for m in motifs], escape)
        self.alts, self.alt_off = _table([m.name for m in motifs], escape)
        self.lengths = np.array([m.length for m in motifs], dtype=np.int64)
        self.scale = np.array([2.0 ** -Grid.of(m).bits for m in motifs], dtype=np.float64)
        self.low = np.array([m.min_score for m in motifs], dtype=np.float64)
        self.high = np.array([m.max_score for m in motifs], dtype=np.float64)
        self._escape = escape
        self._names_done = 0          # names already in the byte table
        self._name_parts = []
        self._name_table = (np.zeros(1, np.uint8), np.zeros(1, np.int64))
        self._longest_name = 0
        self._row_fixed = (int(np.diff(self.id_off).max(initial=0)) * 2 + int(np.diff(self.alt_off).max(initial=0))
                           + int(self.lengths.max(initial=0)) + 200)
        self._header_due = False

    def _names(self):
        """The byte table of the sequence names, extended by the names added since the last call."""
        if len(self.names) > self._names_done:
            new = [(_gff_escape(t) if self._escape else t).replace("\t", " ").encode("utf-8")
                   for t in self.names[self._names_done:]]
            self._name_parts.extend(new)
            self._names_done = len(self.names)
            offsets = np.zeros(len(self._name_parts) + 1, np.int64)
            np.cumsum([len(d) for d in self._name_parts], out=offsets[1:])
            self._name_table = (np.frombuffer(b"".join(self._name_parts) or b"\0", dtype=np.uint8).copy(), offsets)
            self._longest_name = int(np.diff(offsets).max(initial=0))
        return self._name_table

    def header(self):
        """Ask for the format's header line (none for BED), written before the first rows."""
        self._header_due = True

    def finish(self):
        if self._header_due:                        # the header, if no batch came to write it
            self._header_due = False
            self.handle.write({0: FIMO_HEADER, 2: GFF_HEADER}.get(self.kind, ""))

    def write(self, hits):
        """Write ``hits`` in the order given (the header first, when asked for and not written yet)."""
        self.finish()
        if len(hits) == 0:
            return
        names, name_off = self._names()
        row = self._row_fixed + 2 * self._longest_name

        def text(lo):                               # one block of rows, formatted without the GIL
            part = hits.take(slice(lo, lo + ROWS))
            buf = np.empty(len(part) * row, np.uint8)
            n = format_rows(self.kind, buf, part.motif.astype(np.int64), part.strand, part.sequence.astype(np.int64),
                            part.start, part.units, part.word, part.pvalue, part.qvalue, self.qvalues, self.lengths,
                            self.scale, self.low, self.high, self.ids, self.id_off, self.alts, self.alt_off, names,
                            name_off)
            return buf[:n]

        binary = getattr(self.handle, "buffer", None)      # bytes straight to the file where it can
        if binary is not None:
            self.handle.flush()
        blocks = range(0, len(hits), ROWS)
        workers = min(len(blocks), os.cpu_count() or 1)
        with ThreadPoolExecutor(max_workers=workers) as pool:
            for at in range(0, len(blocks), 2 * workers):    # a few blocks at once: memory stays bounded
                for data in pool.map(text, blocks[at:at + 2 * workers]):          # in order
                    if binary is not None:
                        binary.write(data)                  # the buffer itself, not a copy
                    else:
                        self.handle.write(data.tobytes().decode("utf-8"))
