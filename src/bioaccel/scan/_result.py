"""What a scan found: its hits with the motifs and sequence names they refer to (:class:`ScanHits`, the
DataFrame the API returns or the file the command line writes), what a person must be told about
them (:class:`ScanReport`: the tests, the hits dropped, the P-values that are bounds, the motifs no
word can hit), and the hits of a streamed scan written as they come (:func:`write_behind`).
"""
import collections
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

from ._hits import Hits, to_frame


@dataclass(frozen=True)
class ScanReport:
    """The notes of one scan. ``tests``: windows tested per motif (on every strand scanned), by motif
    id; ``dropped``: hits dropped by ``max_stored_hits``, those of P-value ``cut`` or more; ``inexact``:
    the motifs whose P-values are certified upper bounds rather than exact, with the largest relative
    gap (in the motifs' order); ``unreachable``: the motifs that no word can hit at the scan's P-value;
    ``best_lost``: the hits each motif lost to a cut to its best ``best_per_motif`` (by motif id, those
    that lost any), ``best_short``: the motifs of them that kept fewer, their hits tied at the cut;
    ``stored``: the hits held after the ``max_stored_hits`` cut (None where they were streamed).

    >>> ScanReport({"m": 10}).dropped, ScanReport({"m": 10}).cut
    (0, inf)
    """

    tests: dict
    dropped: int = 0
    cut: float = math.inf
    inexact: dict = field(default_factory=dict)
    unreachable: tuple = ()
    best_lost: dict = field(default_factory=dict)
    best_short: tuple = ()
    stored: "int | None" = None

    def with_written(self, motifs, stored, hits, lost=None, keep=None) -> "ScanReport":
        """This report with the number of hits ``stored`` (held after the ``max_stored_hits`` cut) and a
        per-motif cut's numbers: ``hits`` written, ``lost`` (by motif number, from
        :meth:`~._hits.Hits.best_per_motif`; None: no such cut), ``keep`` its N. Unchanged where the
        hits were streamed (``stored`` None)."""
        import dataclasses

        import numpy as np

        if stored is None:
            return self
        report = dataclasses.replace(self, stored=int(stored))
        if lost is None or not lost.any():
            return report
        kept = np.bincount(hits.motif, minlength=lost.size)
        return dataclasses.replace(
            report, best_lost={motifs[k].motif_id: int(lost[k]) for k in np.flatnonzero(lost)},
            best_short=tuple(motifs[k].motif_id for k in np.flatnonzero((lost > 0) & (kept[:lost.size] < keep))))

    @classmethod
    def of(cls, motifs, tests, *, dropped=0, cut=math.inf, inexact=None, unreachable=()) -> "ScanReport":
        """The report of a scan of ``motifs`` (PSSMs): ``tests[k]`` motif k's tests, ``inexact`` and
        ``unreachable`` by motif number."""
        inexact = inexact or {}
        return cls({m.motif_id: int(t) for m, t in zip(motifs, tests)}, int(dropped), float(cut),
                   {motifs[k].motif_id: inexact[k] for k in sorted(inexact)},
                   tuple(motifs[k].motif_id for k in unreachable))


@dataclass(frozen=True)
class ScanHits:
    """The hits of a scan (in the order they are written), the ``motifs`` (PSSMs) and sequence ``names``
    they refer to by number, whether their q-values were computed, and the :class:`ScanReport`.

    >>> import io
    >>> import numpy as np
    >>> from bioaccel.motif import PSSM
    >>> out = io.StringIO()
    >>> ScanHits(Hits.empty(), [PSSM(np.eye(4)[:2])], [], ScanReport({"motif": 0})).write(out, "gff").tests
    {'motif': 0}
    >>> out.getvalue()
    '##gff-version 3\\n'
    """

    hits: Hits
    motifs: list
    names: list
    report: ScanReport
    qvalues: bool = True

    def frame(self):
        """The hits as a pandas DataFrame with FIMO's columns; ``attrs`` hold the report's ``tests``,
        ``dropped`` and ``inexact``.

        >>> import numpy as np
        >>> from bioaccel.motif import PSSM
        >>> found = ScanHits(Hits.empty(), [PSSM(np.eye(4)[:2], motif_id="m")], [], ScanReport({"m": 0}))
        >>> len(found.frame()), found.frame().attrs["tests"]
        (0, {'m': 0})
        """
        frame = to_frame(self.hits, self.motifs, self.names, qvalues=self.qvalues)
        frame.attrs["tests"] = dict(self.report.tests)
        frame.attrs["dropped"] = self.report.dropped
        frame.attrs["inexact"] = dict(self.report.inexact)
        return frame

    def write(self, handle, fmt="fimo", qvalue_max: "float | None" = None,
              best_per_motif: "int | None" = None) -> ScanReport:
        """Write the hits to the text ``handle`` as ``fmt`` (``fimo``, ``bed`` or ``gff``), its header
        first (:class:`~._write.HitWriter`); ``qvalue_max``: only those of q-value at most it;
        ``best_per_motif``: then only each motif's best N (:func:`as_written`). Returns the report,
        with the hits written and the per-motif cut's numbers."""
        from ._write import HitWriter

        hits, lost = as_written(self.hits, fmt, qvalue_max=qvalue_max, best_per_motif=best_per_motif)
        writer = HitWriter(handle, fmt, self.motifs, self.names, qvalues=self.qvalues)
        writer.header()
        writer.write(hits)
        return self.report.with_written(self.motifs, len(self.hits), hits, lost, best_per_motif)


def as_written(hits, fmt, *, qvalue_max=None, best_per_motif=None) -> "tuple[Hits, object]":
    """The held ``hits`` (in FIMO's order) as they are written: those of q-value at most ``qvalue_max``
    (FIMO's --qv-thresh), then the best ``best_per_motif`` of each motif by P-value (ties at a motif's
    cut all or none, as ``max_stored_hits`` cuts), in FIMO's order or by position (BED, GFF); and the
    hits each motif lost to the per-motif cut (None without it).

    >>> import numpy as np
    >>> h = Hits(np.zeros(3, np.int32), np.zeros(3, np.int8), np.zeros(3, np.int32), np.array([5, 1, 3]),
    ...          np.zeros(3, np.int64), np.zeros((3, 1), np.uint64), np.array([0.1, 0.2, 0.3]), np.full(3, 0.5))
    >>> kept, lost = as_written(h, "bed", best_per_motif=2)
    >>> kept.start.tolist(), lost.tolist()
    ([1, 5], [1])
    """
    if qvalue_max is not None:
        hits = hits.at_most_qvalue(qvalue_max)
    lost = None
    if best_per_motif is not None:
        hits, lost = hits.best_per_motif(best_per_motif)
    return (hits if fmt == "fimo" else hits.take(hits.position_order())), lost


def write_behind(writer, batches, depth=2) -> None:
    """``--text``: each batch of ``batches`` (Hits) written by ``writer`` (a :class:`~._write.HitWriter`)
    on a thread of its own while the next is scanned and priced (at most ``depth`` waiting: memory), in
    order. Writing a genome's hits (47 million, 3.9 GB for every JASPAR 2024 CORE matrix over 100 Mb) is
    seconds of formatting and file writes that the scan no longer waits for."""
    pending = collections.deque()
    with ThreadPoolExecutor(max_workers=1) as pool:
        try:
            for hits in batches:
                pending.append(pool.submit(writer.write, hits))
                while pending and (pending[0].done() or len(pending) > depth):
                    pending.popleft().result()
            while pending:
                pending.popleft().result()
        finally:
            for job in pending:
                job.cancel()
