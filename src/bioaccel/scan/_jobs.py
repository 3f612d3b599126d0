"""``bioaccel scan`` as a batch (:mod:`bioaccel.cli.batch_run`): one item per group of motifs (at most
:data:`GROUP_MOTIFS`, in input order), each scanning every sequence; the output is the in-process
scan's, byte for byte.

Why groups of motifs rather than pieces of sequence: a hit's P-value comes from one search over the
scores of its motif found in the same batch of hits, and the float sums of that search (and the bound
of a long motif over its work budget) depend on which scores are searched together: pieces of sequence
scanned apart give the same P-values only to within a few units in the last place (measured: 15 of 22
hits under a skewed background), enough to reorder ties and move q-values. A motif scanned over all the
sequences by one item meets exactly the scores it meets in the in-process scan while the scan's hits
fit one batch (both then price every hit at once: up to 4 million), so its P-values, bounds and notes are
the same to the last bit, and so are the q-values, the order of ties and the hits kept by
``max_stored_hits``. (Past one batch the two price in batches of their own, and with
``max_stored_hits`` only what may be kept: P-values that may differ in the last places, and so, rarely,
a hit at the cut.) The groups do not depend on the number of workers, so a batch may be resumed on
another cluster.

* Each worker reads the FASTA file itself and scans it through the public :func:`bioaccel.scan.scan`
  (the in-process code, CPU or GPU; memory bounded by the chunk size): with ``--scheduler`` the file
  must be readable at the same path on the workers (a shared file system). Hits name their record;
  where two records share a name the worker holds the records in memory instead, each under its number.
* A worker returns the hits' columns (motif, strand, record, start, score units, matched word,
  P-value), with ``max_stored_hits`` only those below its group's own cut (:meth:`~._hits.Hits.best`:
  no other can be among the best of all), and the windows tested per motif.
* At the end the hits of every group are merged and cut to ``max_stored_hits`` by the rule of the
  in-process scan (a hit is kept when its P-value is below the smallest one dropped anywhere), q-values
  are computed over the tests, and the hits are sorted in FIMO's order (``--text``: sequence order, no
  q-values) and written by the same writer.
"""
import base64
import dataclasses
import functools
import math

import numpy as np

from ..distribution.batch import Item, each
from ..cli.batch_run import Job, fingerprint

#: Motifs scanned together by one item at most: their thresholds found, and the sequences read, once.
GROUP_MOTIFS = 32
_LETTERS = np.frombuffer(b"ACGUN", dtype=np.uint8)
_CODES = np.full(256, 4, dtype=np.uint8)
for _code, _letter in enumerate(b"ACGT"):
    _CODES[_letter] = _code


def _array(value) -> dict:
    value = np.ascontiguousarray(value)
    return {"dtype": value.dtype.str, "shape": list(value.shape), "data": base64.b64encode(value.tobytes()).decode()}


def _unarray(value) -> np.ndarray:
    return np.frombuffer(base64.b64decode(value["data"]), dtype=value["dtype"]).reshape(value["shape"]).copy()


def _pack(words, lengths, width) -> np.ndarray:
    """The matched words (strings of A, C, G, T) packed as :func:`~._hits.pack_words` packs them.

    >>> from ._hits import unpack_words
    >>> unpack_words(_pack(["ACG", "TTA"], [3, 3], 1), 3)
    ['ACG', 'TTA']
    """
    from ._hits import pack_words

    lengths = np.asarray(lengths, dtype=np.int64)
    text = np.frombuffer("".join(words).encode("ascii"), dtype=np.uint8)
    starts = np.cumsum(lengths) - lengths                    # the words back to back
    return pack_words(_CODES[text], starts, lengths, np.zeros(len(words), np.int8), width)


def _sequences(source):
    """What a worker scans, and a hit's record number from its sequence name: ``("file", path, numbers)``,
    the file itself when its record names are unique (``numbers``: name -> number), else its records
    read into memory under their numbers; ``("records", records)``: records named by their numbers."""
    if source[0] == "records":
        return source[1], lambda name: int(name[1:])
    _, path, numbers = source
    if numbers is not None:
        return path, numbers.__getitem__
    from ..inputs.chunks import read_chunks
    from ..inputs.fasta import Record

    pieces = []                          # each record's letters, chunk by chunk
    for chunk in read_chunks(path, allow_empty=True):
        if chunk.start == 0:
            pieces.append([])
        pieces[-1].append(chunk.codes[:chunk.windows].copy())     # the reader reuses its buffer
    records = []
    for i, parts in enumerate(pieces):
        codes = np.concatenate(parts)
        records.append(Record(f"s{i}", _LETTERS[codes].tobytes().decode("ascii"), codes=codes))
    return records, lambda name: int(name[1:])


def _group_entry(payload, *, source, options, width, max_stored_hits):
    """Scan every sequence with one group of motifs here: its entry of the journal."""
    from ..motif._integer import grid_bits
    from ._api import scan

    motifs, first = payload
    sequences, record_of = _sequences(source)
    hits = scan(motifs, sequences, qvalues=False, max_stored_hits=None, **options)
    index = {m.motif_id: k for k, m in enumerate(motifs)}
    tests = [int(hits.attrs["tests"][m.motif_id]) for m in motifs]
    inexact = {str(index[k] + first): gap for k, gap in hits.attrs.get("inexact", {}).items()}
    local = hits["motif_id"].map(index).to_numpy(dtype=np.int64)
    pvalue = hits["p-value"].to_numpy(dtype=np.float64)
    hit = sorted(set((local + first).tolist()))         # the motifs hit, before any is dropped
    count, cut = len(hits), math.inf
    if max_stored_hits is not None and count > max_stored_hits:
        cut = float(np.partition(pvalue, max_stored_hits)[max_stored_hits])    # as Hits.best cuts
        keep = pvalue < cut
        hits, local, pvalue = hits[keep], local[keep], pvalue[keep]
    bits = np.array([grid_bits(m.scores) for m in motifs], dtype=np.float64)
    lengths = np.array([m.length for m in motifs], dtype=np.int64)
    columns = {
        "motif": (local + first).astype(np.int32),
        "strand": (hits["strand"].to_numpy() == "-").astype(np.int8),
        "sequence": np.array([record_of(name) for name in hits["sequence_name"]], dtype=np.int32),
        "start": hits["start"].to_numpy(dtype=np.int64) - 1,
        # a score is units / 2**bits exactly (units < 2**53): the units come back exactly
        "units": np.rint(hits["score"].to_numpy(dtype=np.float64) * np.exp2(bits[local])).astype(np.int64),
        "word": _pack(hits["matched_sequence"].tolist(), lengths[local], width),
        "pvalue": pvalue,
    }
    return {"hits": {name: _array(value) for name, value in columns.items()}, "count": count,
            "cut": None if math.isinf(cut) else cut, "tests": tests, "first": first, "found": hit,
            "inexact": inexact}


def group_entries(payloads, *, source, options, width, max_stored_hits) -> list:
    """Scan the sequences of ``source`` (see :func:`_sequences`) here with each of ``payloads``
    (``(motifs, first)``: a group of motifs and the number of its first), ``options`` being scan's
    keywords: one entry each."""
    return each(functools.partial(_group_entry, source=source, options=options, width=width,
                                  max_stored_hits=max_stored_hits), payloads)


def read_names(path) -> "tuple[list, int, str]":
    """The names of the records of the FASTA file ``path`` that hold letters (numbered as the scan
    numbers them), read and checked as the scan reads them; their letters in all; and a digest.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">a\\nACGTACGTAC\\n>b\\n>c x\\nTTT\\n")
    >>> read_names(f.name)[:2]
    (['a', 'c'], 13)
    """
    import hashlib

    from ..inputs.chunks import read_chunks

    names, letters, digest = [], 0, hashlib.sha256()
    for chunk in read_chunks(path, allow_empty=True):
        if chunk.start == 0:
            names.append(chunk.record)
            digest.update(f">{chunk.record}\n".encode())
        digest.update(chunk.codes[:chunk.windows].tobytes())
        letters += chunk.windows
    return names, letters, digest.hexdigest()


def _hits(entry):
    from ._hits import Hits

    columns = {name: _unarray(value) for name, value in entry["hits"].items()}
    n = columns["motif"].shape[0]
    return Hits(columns["motif"], columns["strand"], columns["sequence"], columns["start"], columns["units"],
                columns["word"], columns["pvalue"], np.full(n, np.nan))


@dataclasses.dataclass
class Merged:
    """What the entries add up to, for the notes after the output: tests per motif, hits dropped by
    ``max_stored_hits`` and the cut, the motifs hit, the inexact P-values' gaps."""

    tests: np.ndarray
    dropped: int = 0
    cut: float = math.inf
    found: set = dataclasses.field(default_factory=set)
    inexact: dict = dataclasses.field(default_factory=dict)

    def add(self, entry):
        first = entry["first"]
        self.tests[first:first + len(entry["tests"])] += np.array(entry["tests"], dtype=np.int64)
        self.found.update(entry["found"])
        for k, gap in entry["inexact"].items():
            self.inexact[int(k)] = max(self.inexact.get(int(k), 0.0), gap)


def merge_best(pairs, *, motifs, max_stored_hits, merged):
    """Every item's hits merged and cut to ``max_stored_hits`` as the in-process scan cuts them
    (``_pipeline.collect``): :class:`~._hits.Hits` in no particular order, q-values not computed."""
    from ._hits import Hits

    kept, stored, total = [], 0, 0
    for _, entry in pairs:
        if entry is None:
            continue
        merged.add(entry)
        total += entry["count"]
        if entry["cut"] is not None:
            merged.cut = min(merged.cut, entry["cut"])
        hits = _hits(entry)
        if math.isfinite(merged.cut):
            hits = hits.take(hits.pvalue < merged.cut)
        kept.append(hits)
        stored += len(hits)
        if max_stored_hits is not None and stored > max_stored_hits:
            best, cut = Hits.concat(kept).best(max_stored_hits)
            merged.cut = min(merged.cut, cut)
            kept, stored = [best], len(best)
    width = (max((m.length for m in motifs), default=1) + 31) // 32
    hits = Hits.concat(kept) if kept else Hits.empty(width)
    if math.isfinite(merged.cut):        # a later item's cut may be below hits kept earlier
        hits = hits.take(hits.pvalue < merged.cut)
    merged.dropped = total - len(hits)
    return hits


def _write_best(outputs, pairs, *, motifs, names, fmt, qvalues, max_stored_hits, merged):
    """The default output: the hits of :func:`merge_best`, q-values over the summed tests, FIMO's order."""
    from ._hits import add_qvalues
    from ._write import HitWriter

    hits = merge_best(pairs, motifs=motifs, max_stored_hits=max_stored_hits, merged=merged)
    if qvalues:
        add_qvalues(hits, merged.tests)
    writer = HitWriter(outputs["-o"], fmt, motifs, names, qvalues=qvalues)
    writer.header()
    writer.write(hits.take(hits.fimo_order()))


def _write_text(outputs, pairs, *, motifs, names, fmt, merged):
    """``--text``: every hit in sequence order (by record and start, then motif and strand, as the
    in-process scan sorts each chunk's), without q-values; held in memory to be sorted."""
    from ._hits import Hits
    from ._write import HitWriter

    parts = []
    for _, entry in pairs:
        if entry is not None:
            merged.add(entry)
            parts.append(_hits(entry))
    width = (max((m.length for m in motifs), default=1) + 31) // 32
    hits = Hits.concat(parts) if parts else Hits.empty(width)
    writer = HitWriter(outputs["-o"], fmt, motifs, names, qvalues=False)
    writer.header()
    writer.write(hits.take(np.lexsort((hits.strand, hits.motif, hits.start, hits.sequence))))


def _notes(stderr, *, args, motifs, pvalue, merged):
    """The notes and warnings of the in-process scan: motifs that cannot be hit, hits dropped, P-values
    that are bounds."""
    from types import SimpleNamespace

    from ..motif._api import thresholds
    from ..cli.scan import _note_unreachable, _report

    if args.threshold is None and not args.quiet:
        never = [m for k, m in enumerate(motifs) if k not in merged.found]   # the others were hit
        unreachable = [m.motif_id for m, t in zip(never, thresholds(never, pvalue) if never else []) if not t.reachable]
        _note_unreachable(stderr, unreachable, pvalue)
    _report(args, stderr, SimpleNamespace(motifs=motifs, inexact=merged.inexact),
            SimpleNamespace(dropped=merged.dropped, cut=merged.cut))


def groups(motifs) -> list:
    """The items of a scan: ``(label, cost per letter, (motifs renamed m0, m1, ... as ids may repeat,
    the number of the first))`` of each group of at most :data:`GROUP_MOTIFS` motifs, in input order.

    >>> from bioaccel.motif import PSSM
    >>> [label for label, _, _ in groups([PSSM(np.eye(4)[:2], motif_id="AC")] * 33)]
    ['motifs 1-32 (AC ..)', 'motif AC']
    """
    tokens = [dataclasses.replace(m, motif_id=f"m{k}") for k, m in enumerate(motifs)]
    found = []
    for a in range(0, len(motifs), GROUP_MOTIFS):
        b = min(a + GROUP_MOTIFS, len(motifs))
        label = f"motif {motifs[a].motif_id}" if b == a + 1 else f"motifs {a + 1}-{b} ({motifs[a].motif_id} ..)"
        found.append((label, float(sum(m.length for m in motifs[a:b])), (tokens[a:b], a)))
    return found


def job(args, motifs, pvalue, variant, threads) -> Job:
    """The batch of ``bioaccel scan`` with the command line's options: ``motifs`` (PSSMs) over the
    FASTA file ``args.sequences``."""
    names, letters, sequences = read_names(args.sequences)
    numbers = {name: k for k, name in enumerate(names)} if len(set(names)) == len(names) else None
    items = [Item(key, label, float(letters + 1) * columns, payload)
             for key, (label, columns, payload) in enumerate(groups(motifs))]
    options = dict(pvalue=pvalue, threshold=args.threshold, backend=args.backend, variant=variant,
                   strands="+" if args.norc else "both", threads=threads, slice_length=args.slice_length,
                   chunk_size=args.chunk_size)
    limit = None if args.text else args.max_stored_hits
    # backend, variant, slices, chunks and threads are left out: they do not change the hits
    digest = fingerprint("scan", [(m.motif_id, m.name, m.background.to_dict()) for m in motifs],
                         *[m.scores for m in motifs], pvalue, args.threshold, args.norc, args.text, limit,
                         GROUP_MOTIFS, sequences)
    merged = Merged(np.zeros(len(motifs), np.int64))
    if args.text:
        write = functools.partial(_write_text, motifs=motifs, names=names, fmt=args.format, merged=merged)
    else:
        write = functools.partial(_write_best, motifs=motifs, names=names, fmt=args.format,
                                  qvalues=not args.no_qvalue, max_stored_hits=limit, merged=merged)
    width = (max(m.length for m in motifs) + 31) // 32
    return Job(prog="bioaccel scan", unit="motif group", items=items,
               function=functools.partial(group_entries, source=("file", args.sequences, numbers), options=options,
                                          width=width, max_stored_hits=limit),
               write=write, outputs={"-o": "-" if args.output is None else args.output},
               fingerprint=digest, gpu=args.backend == "gpu",
               notes=functools.partial(_notes, args=args, motifs=motifs, pvalue=pvalue, merged=merged))
