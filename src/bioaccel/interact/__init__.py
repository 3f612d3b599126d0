"""BPMax RNA-RNA interaction (Ebrahimpour-Boroojeny, Rajopadhye & Chitsaz): the joint structure of two
RNAs with the most weighted intra- and intermolecular base pairs, with optional windows (BPMaxW).

``bpmax(queries, targets, params=InteractParams(...))`` returns one :class:`Interaction` per target and
query (targets outer, queries inner); ``iter_bpmax`` streams them; ``bpmax_work`` describes them as a
batch to run elsewhere (:mod:`bioaccel.distribution.work`). An empty sequence is a valid input: its
pairs score the other strand folded alone. ``check_sizes`` and ``estimate_seconds`` tell before a run
whether it fits in memory and how long it will take; ``interaction_columns``, ``interaction_writer`` and
``write_bedgraph`` write the results as the command line does. The recurrence is the one of
docs/bpmax.md; the algorithms are listed in ``VARIANTS`` (the CPU's default, the ``tiled`` fill, is
the package :mod:`bioaccel.interact.tiled`). ``bppart`` / ``iter_bppart`` give the partition function
of the same structures (BPPart, docs/bppart.md; ``PartitionParams``, ``PARTITION_VARIANTS``) and the
probability that the strands interact; ``partition_work`` is their batch (``prime_partition_orders``:
what its CPU fill computes first, ahead, for the warm server). A query of at most
``PYTHON_FILL_BASES`` bases is folded without Numba on the GPU path (a screen of svRNAs never waits for
Numba's start). Everything but the registry loads on first use, so that
the command line starts without NumPy or Numba.

>>> from bioaccel.interact import bpmax
>>> [r.score for r in bpmax("GGGAAACCC", ["GGGUUUCCC", "AAAA"])]
[21, 9]
"""
from ..runtime.lazy import lazy_names
from ._variants import PARTITION_VARIANTS, VARIANTS

__all__ = ["PARTITION_VARIANTS", "PYTHON_FILL_BASES", "VARIANTS", "InteractParams", "Interaction", "Partition", "PartitionParams",
           "bppart", "check_partition_sizes", "iter_bppart", "partition_work", "prime_partition_orders", "bpmax", "bpmax_work", "check_sizes", "estimate_seconds",
           "interaction_columns", "interaction_writer", "iter_bpmax", "write_bedgraph"]

_LAZY = {"bpmax": "._api", "bpmax_work": "._api", "iter_bpmax": "._api", "InteractParams": "._model",
         "Interaction": "._result", "check_sizes": "._memory", "estimate_seconds": "._estimate",
         "interaction_columns": "._formats", "interaction_writer": "._formats", "write_bedgraph": "._window",
         "bppart": "._partition", "check_partition_sizes": "._partition", "iter_bppart": "._partition", "partition_work": "._partition_work",
         "prime_partition_orders": "._partition",
         "Partition": "._partition_result",
         "PartitionParams": "._partition_model", "PYTHON_FILL_BASES": "._strands"}

__getattr__, __dir__ = lazy_names(__name__, _LAZY, __all__)
