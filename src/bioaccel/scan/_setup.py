"""What a scan of some motifs needs before the first letter (:func:`prepare`, a :class:`ScanSetup`): each
motif's threshold, by default the exact threshold of P-value ``pvalue`` (the smallest score whose
P-value is at most ``pvalue``, from the motif's exact score distribution: the number ``bioaccel motif
threshold`` prints), or the score ``threshold`` given; the :class:`~._plan.ScanPlan` of the entries
(motif x strand) that can be hit; and each entry's score distribution, for the hits' P-values. A motif
is scanned on the forward strand and, as its reverse complement, on the reverse strand; under a
background that is not strand-symmetric the reverse complement gets its own threshold and P-values.
"""
import math
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field

import numpy as np

from ..motif import Grid, thresholds
from ._bounds import PriceBounds
from ._defaults import DEFAULT_PVALUE, FILE_THRESHOLD, SLICE_LENGTH
from ._plan import FEW, ScanPlan, layouts
from ._price_cache import PriceCache
from ._price_store import PriceStore


@dataclass
class ScanSetup:
    """What a scan of these motifs needs before the first letter: the motifs, each one's threshold
    (``thresholds[k]``: a :class:`~bioaccel.motif.Threshold`, or the score given), the :class:`ScanPlan`
    of the entries that can be hit, and each entry's score distribution for P-values."""

    motifs: list
    thresholds: list
    plan: ScanPlan
    strands: tuple
    grids: list = field(default_factory=list)
    #: distribution of (motif k, strand s): dist_index[k, s] into ``dists``, (Grid, Background) pairs
    dist_index: np.ndarray = None
    dists: list = field(default_factory=list)
    inexact: dict = field(default_factory=dict)     # motif index -> largest relative gap of its P-values
    priced: PriceCache = None                       # the P-values priced so far
    bounds: PriceBounds = None                      # certified bounds on them, made when asked for
    store: PriceStore = None                        # their answers on disk (None: not kept)

    @property
    def longest(self) -> int:
        return max((m.length for m in self.motifs), default=1)


def _strand_symmetric(background) -> bool:
    f = background.letter_frequencies
    close = lambda a, b: abs(a - b) <= 1e-8 + 1e-5 * abs(b)     # noqa: E731 -- np.isclose, 20 times faster
    return background.order == 0 and close(f[0], f[3]) and close(f[1], f[2])


def _grid_value(threshold, grid):
    """A Threshold's score as a grid value (exact: the score is a grid value / 2**bits), None if no
    word reaches it."""
    if not math.isfinite(threshold.score):
        return None
    return int(round(threshold.score * 2.0 ** grid.bits))


def file_threshold(motif) -> float:
    """The score threshold ``motif``'s file gives (``threshold="file"``), or InvalidParameter naming it.

    >>> from bioaccel.motif import PSSM
    >>> file_threshold(PSSM(np.eye(4)[:2], file_threshold=1.5))
    1.5
    """
    from ..errors import InvalidParameter

    if motif.file_threshold is None:
        raise InvalidParameter(f"motif {motif.motif_id}: its file gives no threshold (only HOMER files do); give a "
                               "P-value or a score threshold")
    return float(motif.file_threshold)


def prepare(motifs, *, pvalue=DEFAULT_PVALUE, threshold=None, strands=(0, 1),
            slice_length=SLICE_LENGTH, cache=True) -> ScanSetup:
    """The :class:`ScanSetup` of ``motifs`` (PSSMs): thresholds, plan and distributions (``cache``: the
    thresholds read from and kept in the threshold cache on disk, as :func:`bioaccel.motif.thresholds`,
    and the hits' P-values too, :mod:`._price_store`).

    >>> from bioaccel.motif import PSSM
    >>> setup = prepare([PSSM(np.eye(4)[:2])], pvalue=0.1)
    >>> setup.thresholds[0].score, setup.plan.entries
    (2.0, 2)
    """
    motifs = list(motifs)
    grids = [Grid.of(m) for m in motifs]
    rc = [m.reverse_complement() if 1 in strands and not _strand_symmetric(m.background) else None
          for m in motifs]
    laid_out = None
    if threshold is None:
        asked = motifs + [r for r in rc if r is not None]
        if len(motifs) > FEW:            # (fewer entries open with a table of their own: see ScanPlan.build)
            # the searches run without the GIL on every core; meanwhile this thread builds the plan's
            # tables (0.4 s of Python for all 2,346 JASPAR 2024 CORE matrices on an H100 machine)
            with ThreadPoolExecutor(max_workers=1) as pool:
                searching = pool.submit(thresholds, asked, pvalue, cache=cache)
                laid_out = layouts(grids, strands, slice_length)
                found = searching.result()
        else:
            found = thresholds(asked, pvalue, cache=cache) if asked else []
        forward = found[:len(motifs)]
        reverse = iter(found[len(motifs):])
        cuts, shown = [], []
        for m, g, r, t in zip(motifs, grids, rc, forward):
            t_rc = next(reverse) if r is not None else t
            cuts.append((_grid_value(t, g), _grid_value(t_rc, g)))
            shown.append(t)
    else:
        # one score for every motif, each motif's own from its file (a HOMER file's), or (the first run's
        # warming child, ._warm) one score per motif
        if isinstance(threshold, (list, tuple)):
            scores = list(threshold)
        elif threshold == FILE_THRESHOLD:
            scores = [file_threshold(m) for m in motifs]
        else:
            scores = [threshold] * len(motifs)
        cuts = [g.admits(score) for g, score in zip(grids, scores)]
        shown = [float(score) for score in scores]
    plan = ScanPlan.build(motifs, cuts, slice_len=slice_length, strands=strands, layouts=laid_out)
    dist_index = np.zeros((len(motifs), 2), dtype=np.int64)
    dists = []
    for k, (m, g, r) in enumerate(zip(motifs, grids, rc)):
        dist_index[k, 0] = len(dists)
        dists.append((g, m.background))
        if r is None:
            dist_index[k, 1] = dist_index[k, 0]
        else:
            dist_index[k, 1] = len(dists)
            dists.append((Grid.of(r), m.background))
    setup = ScanSetup(motifs, shown, plan, tuple(strands), grids, dist_index, dists, priced=PriceCache(len(dists)))
    setup.bounds = PriceBounds(setup)
    setup.store = PriceStore(dists) if cache else None
    return setup
