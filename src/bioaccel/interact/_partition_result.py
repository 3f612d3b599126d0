"""What BPPart of one query against one target gives: :class:`Partition`."""
from dataclasses import dataclass

from ..results.rows import Result


@dataclass(frozen=True)
class Partition(Result):
    """The partition function of one query and one target (natural logs, BPPart's weights exp(score)).

    ``log_z``: log QI, every joint structure; ``log_z_query`` / ``log_z_target``: log Q of each strand
    alone (log Q0, log Q1); ``log_z_interaction``: log(QI - Q0 Q1), the structures with at least one
    intermolecular pair (-inf when the strands cannot pair); ``probability``: 1 - Q0 Q1 / QI, the
    probability that the strands interact. The original program prints QI, Q0, Q1, -log QI and
    -log(QI - Q0 Q1).

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
