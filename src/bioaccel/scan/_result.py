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
    gap (in the motifs' order); ``unreachable``: the motifs that no word can hit at the scan's P-value.

    >>> ScanReport({"m": 10}).dropped, ScanReport({"m": 10}).cut
    (0, inf)
    """

    tests: dict
    dropped: int = 0
    cut: float = math.inf
    inexact: dict = field(default_factory=dict)
    unreachable: tuple = ()

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
    >>> ScanHits(Hits.empty(), [PSSM(np.eye(4)[:2])], [], ScanReport({"motif": 0})).write(out, "gff")
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

    def write(self, handle, fmt="fimo", qvalue_max: "float | None" = None) -> None:
        """Write the hits to the text ``handle`` as ``fmt`` (``fimo``, ``bed`` or ``gff``), its header
        first (:class:`~._write.HitWriter`); ``qvalue_max``: only those of q-value at most it."""
        from ._write import HitWriter

        hits = self.hits if qvalue_max is None else self.hits.at_most_qvalue(qvalue_max)
        writer = HitWriter(handle, fmt, self.motifs, self.names, qvalues=self.qvalues)
        writer.header()
        writer.write(hits if fmt == "fimo" else hits.take(hits.position_order()))


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
