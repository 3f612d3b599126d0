"""A scan as a batch (:class:`~bioaccel.distribution.work.Work`): one item per group of motifs (at most
:data:`GROUP_MOTIFS`, in input order), each scanning every sequence, and the groups' hits merged into
the in-process scan's, byte for byte. ``scan(client=...)`` runs it with
:func:`~bioaccel.distribution.work.run_work`; the command line's ``--workers``, ``--scheduler`` and
``--gpus`` run the same Work through its batch runner (``bioaccel.cli.scan``).

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

* Each worker reads the FASTA file itself (a file named here must be readable at the same path on the
  workers: a shared file system) and scans it with the in-process code, CPU or GPU, memory bounded by
  the chunk size. Its hits refer to the records by number (the records that hold letters, in order).
* A worker returns its group's :class:`GroupHits`: with ``max_stored_hits`` only the hits below the
  group's own cut (:meth:`~._hits.Hits.best`: no other can be among the best of all), and the windows
  tested per motif.
* :func:`merge_groups` merges the groups' hits and cuts them to ``max_stored_hits`` by the rule of the
  in-process scan (a hit is kept when its P-value is below the smallest one dropped anywhere), computes
  the q-values over the tests and sorts the hits in FIMO's order (or in sequence order, without
  q-values, as ``--text`` writes them).
"""
import base64
import dataclasses
import functools
import hashlib
import math

import numpy as np

from ..distribution.batch import Item, each
from ..distribution.work import Work
from ._hits import Hits, add_qvalues
from ._result import ScanHits, ScanReport

#: Motifs scanned together by one item at most: their thresholds found, and the sequences read, once.
GROUP_MOTIFS = 32


def _array(value) -> dict:
    value = np.ascontiguousarray(value)
    return {"dtype": value.dtype.str, "shape": list(value.shape), "data": base64.b64encode(value.tobytes()).decode()}


def _unarray(value) -> np.ndarray:
    return np.frombuffer(base64.b64decode(value["data"]), dtype=value["dtype"]).reshape(value["shape"]).copy()


@dataclasses.dataclass(frozen=True)
class GroupHits:
    """What one item of a scan found: its ``hits`` (motifs numbered among all the scan's, records by
    number; P-values filled, q-values not), ``count`` the hits found before the group's own ``cut``
    (``max_stored_hits``; inf: none), the windows tested for each of its motifs (``tests``, the first
    numbered ``first``), and by motif number the P-values' relative gaps where they are bounds
    (``inexact``) and the motifs that no word can hit (``unreachable``).

    >>> GroupHits(Hits.empty(), 0, math.inf, [10, 12], 32, {}, [33]).unreachable
    [33]
    """

    hits: Hits
    count: int
    cut: float
    tests: list
    first: int
    inexact: dict
    unreachable: list

    def to_dict(self) -> dict:
        """The group as JSON values (the hits' columns as base64 arrays), for a batch's journal.

        >>> group = GroupHits(Hits.empty(), 0, math.inf, [5], 3, {3: 1e-4}, [])
        >>> back = GroupHits.from_dict(group.to_dict())
        >>> (back.count, back.cut, back.tests, back.first, back.inexact, len(back.hits))
        (0, inf, [5], 3, {3: 0.0001}, 0)
        """
        return {"hits": {f.name: _array(getattr(self.hits, f.name)) for f in dataclasses.fields(Hits)},
                "count": self.count, "cut": None if math.isinf(self.cut) else self.cut, "tests": self.tests,
                "first": self.first, "inexact": {str(k): gap for k, gap in self.inexact.items()},
                "unreachable": self.unreachable}

    @classmethod
    def from_dict(cls, entry) -> "GroupHits":
        """The group of :meth:`to_dict`'s values."""
        hits = Hits(**{name: _unarray(value) for name, value in entry["hits"].items()})
        return cls(hits, entry["count"], math.inf if entry["cut"] is None else entry["cut"], entry["tests"],
                   entry["first"], {int(k): gap for k, gap in entry["inexact"].items()}, entry["unreachable"])


def _scan_group(payload, *, sequences, pvalue, threshold, strands, slice_length, max_stored_hits, cache=True,
                **options):
    """Scan every sequence with one group of motifs here: its :class:`GroupHits`."""
    from ._pipeline import collect
    from ._setup import prepare

    motifs, first = payload
    setup = prepare(motifs, pvalue=pvalue, threshold=threshold, strands=strands, slice_length=slice_length,
                    cache=cache)
    hits, state = collect(setup, sequences, max_stored_hits=None, qvalues=False, **options)
    count, cut = len(hits), math.inf
    if max_stored_hits is not None and count > max_stored_hits:
        cut = float(np.partition(hits.pvalue, max_stored_hits)[max_stored_hits])    # as Hits.best cuts
        hits = hits.take(hits.pvalue < cut)
    hits = dataclasses.replace(hits, motif=(hits.motif + first).astype(np.int32))
    unreachable = [first + k for k, t in enumerate(setup.thresholds) if threshold is None and not t.reachable]
    return GroupHits(hits, count, cut, [int(t) for t in state.tests], first,
                     {first + k: gap for k, gap in setup.inexact.items()}, unreachable)


def scan_groups(payloads, **options) -> list:
    """Scan the sequences with each group of ``payloads`` (``(motifs, number of the first)``) here, one
    :class:`GroupHits` each (a group that fails on bad input fails alone): the worker function of the
    scan's Work (``options``: :func:`_scan_group`'s)."""
    return each(functools.partial(_scan_group, **options), payloads)


def groups(motifs) -> list:
    """The items of a scan: ``(label, cost per letter, (motifs, the number of the first))`` of each group
    of at most :data:`GROUP_MOTIFS` motifs, in input order.

    >>> from bioaccel.motif import PSSM
    >>> [label for label, _, _ in groups([PSSM(np.eye(4)[:2], motif_id="AC")] * 33)]
    ['motifs 1-32 (AC ..)', 'motif AC']
    """
    found = []
    for a in range(0, len(motifs), GROUP_MOTIFS):
        b = min(a + GROUP_MOTIFS, len(motifs))
        label = f"motif {motifs[a].motif_id}" if b == a + 1 else f"motifs {a + 1}-{b} ({motifs[a].motif_id} ..)"
        found.append((label, float(sum(m.length for m in motifs[a:b])), (motifs[a:b], a)))
    return found


def read_names(path) -> "tuple[list, int, str]":
    """The names of the records of the FASTA file ``path`` that hold letters (numbered as the scan
    numbers them), read and checked as the scan reads them; their letters in all; and a digest.

    >>> import tempfile
    >>> with tempfile.NamedTemporaryFile("w", suffix=".fa", delete=False) as f:
    ...     _ = f.write(">a\\nACGTACGTAC\\n>b\\n>c x\\nTTT\\n")
    >>> read_names(f.name)[:2]
    (['a', 'c'], 13)
    """
    from ..inputs.chunks import read_chunks

    names, letters, digest = [], 0, hashlib.sha256()
    for chunk in read_chunks(path):
        if chunk.start == 0:
            names.append(chunk.record)
            digest.update(f">{chunk.record}\n".encode())
        digest.update(chunk.codes[:chunk.windows].tobytes())
        letters += chunk.windows
    return names, letters, digest.hexdigest()


@dataclasses.dataclass(frozen=True)
class ScanWork:
    """A scan described as a batch: the ``work`` (its items: groups of motifs, each scanning every
    sequence; its function: :func:`scan_groups`), the ``motifs`` (PSSMs), the ``names`` of the records
    that hold letters (the hits' sequence numbers), and a ``digest`` of the sequences and of the
    grouping (what a resumed batch must find again).

    >>> from bioaccel.motif import PSSM
    >>> described = describe([PSSM(np.eye(4)[:2], motif_id="AC")] * 33, [("s1", "ACGT")], strands=(0, 1),
    ...                      backend="cpu", max_stored_hits=None, pvalue=0.1, threshold=None, slice_length=4,
    ...                      variant="index", threads=0, chunk_size=1000)
    >>> [item.label for item in described.work.items], described.names
    (['motifs 1-32 (AC ..)', 'motif AC'], ['s1'])
    """

    work: Work
    motifs: list
    names: list
    digest: str

    def merge(self, values, *, max_stored_hits=None, qvalues=True, in_sequence_order=False) -> ScanHits:
        """The hits of the items' :class:`GroupHits` (``values`` in input order; None for an item that
        failed), as :func:`merge_groups` merges them."""
        return merge_groups(values, self.motifs, self.names, max_stored_hits=max_stored_hits, qvalues=qvalues,
                            in_sequence_order=in_sequence_order)


def describe(motifs, sequences, *, strands, backend, max_stored_hits, **options) -> ScanWork:
    """The :class:`ScanWork` of ``motifs`` (PSSMs) over ``sequences`` (a FASTA file's path, or records
    in memory), ``options`` being the scan's keywords (checked already)."""
    from ..inputs.fasta import as_records
    from ._sequences import is_path

    digest = hashlib.sha256(f"groups of {GROUP_MOTIFS}\n".encode())
    if is_path(sequences):
        names, letters, read = read_names(sequences)
        digest.update(read.encode())
    else:
        sequences = [r for r in as_records(sequences) if len(r)]   # an empty record has no hit and no name
        names, letters = [r.id for r in sequences], sum(len(r) for r in sequences)
        for r in sequences:
            digest.update(f">{r.id}\n".encode() + r.codes.tobytes())
    items = [Item(key, label, float(letters + 1) * columns, payload)
             for key, (label, columns, payload) in enumerate(groups(motifs))]
    function = functools.partial(scan_groups, sequences=sequences, strands=strands, backend=backend,
                                 max_stored_hits=max_stored_hits, **options)
    return ScanWork(Work(items, function, gpu=backend == "gpu"), motifs, names, digest.hexdigest())


def merge_groups(values, motifs, names, *, max_stored_hits=None, qvalues=True, in_sequence_order=False) -> ScanHits:
    """The hits of every group (:class:`GroupHits` in input order, None for a group that failed) merged:
    cut to ``max_stored_hits`` as the in-process scan cuts them (``_pipeline.collect``), q-values over the
    summed tests when ``qvalues``, in FIMO's order; or (``in_sequence_order``) every hit by record and
    start, then motif and strand, as the in-process scan streams them, without q-values.

    >>> from bioaccel.motif import PSSM
    >>> group = GroupHits(Hits.empty(), 0, math.inf, [7], 0, {}, [0])
    >>> found = merge_groups([group], [PSSM(np.eye(4)[:2], motif_id="m")], [])
    >>> len(found.hits), found.report.tests, found.report.unreachable
    (0, {'m': 7}, ('m',))
    """
    tests = np.zeros(len(motifs), np.int64)
    inexact, unreachable = {}, []
    kept, stored, total, cut = [], 0, 0, math.inf
    for group in values:
        if group is None:
            continue
        tests[group.first:group.first + len(group.tests)] += np.array(group.tests, dtype=np.int64)
        for k, gap in group.inexact.items():
            inexact[k] = max(inexact.get(k, 0.0), gap)
        unreachable.extend(group.unreachable)
        hits = group.hits
        if not in_sequence_order:
            total += group.count
            cut = min(cut, group.cut)
            if math.isfinite(cut):
                hits = hits.take(hits.pvalue < cut)
        kept.append(hits)
        stored += len(hits)
        if not in_sequence_order and max_stored_hits is not None and stored > max_stored_hits:
            best, best_cut = Hits.concat(kept).best(max_stored_hits)
            cut = min(cut, best_cut)
            kept, stored = [best], len(best)
    width = (max((m.length for m in motifs), default=1) + 31) // 32
    hits = Hits.concat(kept) if kept else Hits.empty(width)
    if in_sequence_order:
        report = ScanReport.of(motifs, tests, inexact=inexact, unreachable=sorted(unreachable))
        order = np.lexsort((hits.strand, hits.motif, hits.start, hits.sequence))
        return ScanHits(hits.take(order), motifs, names, report, qvalues=False)
    if math.isfinite(cut):        # a later group's cut may be below hits kept earlier
        hits = hits.take(hits.pvalue < cut)
    if qvalues:
        add_qvalues(hits, tests)
    report = ScanReport.of(motifs, tests, dropped=total - len(hits), cut=cut, inexact=inexact,
                           unreachable=sorted(unreachable))
    return ScanHits(hits.take(hits.fimo_order()), motifs, names, report, qvalues=qvalues)
