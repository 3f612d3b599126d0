"""What BPPart of one query against one target gives: :class:`Partition`."""
from dataclasses import dataclass

import numpy as np

from ..results.rows import Result, hidden


@dataclass(frozen=True)
class Partition(Result):
    """The partition function of one query and one target (natural logs, BPPart's weights exp(score)).

    ``log_z``: log QI, every joint structure; ``log_z_query`` / ``log_z_target``: log Q of each strand
    alone (log Q0, log Q1); ``log_z_interaction``: log(QI - Q0 Q1), the structures with at least one
    intermolecular pair (-inf when the strands cannot pair); ``probability``: 1 - Q0 Q1 / QI, the
    probability that the strands interact. The original program prints QI, Q0, Q1, -log QI and
    -log(QI - Q0 Q1).

    With windows (docs/bppart.md, "Windows") these are of the structures whose pairs all lie in one
    window pair, and each row is a site, as BPMax's windowed rows: ``site`` (1 the most probable),
    the window pair ``query_start``/``query_end``, ``target_start``/``target_end`` (0-based,
    half-open, the target as given) and its own ``window_log_z``, ``window_log_z_interaction`` and
    ``window_probability`` (the two windows alone). Without windows the one window is the whole of both
    strands. ``window_probabilities[q, t]``: of every query window q and target window t;
    ``window_log_zs`` likewise; ``binding`` (asked for with ``binding=True``): for each target
    position, the probability that it pairs with the query. The arrays stay out of ``to_dict()``.

    >>> from bioaccel.interact import bppart
    >>> r = bppart("G", "C")[0]
    >>> round(r.log_z, 6), round(r.probability, 6), r.log_z_query
    (3.048587, 0.952574, 0.0)
    """

    query: str
    target: str
    log_z: float
    log_z_query: float
    log_z_target: float
    log_z_interaction: float
    probability: float
    query_length: int
    target_length: int
    variant: str = ""
    backend: str = "cpu"
    site: int = 1
    query_start: int = 0
    query_end: int = 0
    target_start: int = 0
    target_end: int = 0
    window_log_z: float = 0.0
    window_log_z_interaction: float = 0.0
    window_probability: float = 0.0
    window_log_zs: "np.ndarray | None" = hidden(default=None, repr=False)
    window_probabilities: "np.ndarray | None" = hidden(default=None, repr=False)
    binding: "np.ndarray | None" = hidden(default=None, repr=False)
