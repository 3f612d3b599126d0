"""The score distribution of one PSSM by variant (:func:`score_distribution`): the object behind
``PSSM.distribution(...)`` and every P-value and threshold.

Both variants keep one contract (see ``_grid``): every answer carries certified (low, high) bounds.
"""
import math
import numbers

from ..runtime.parallel import threads as using_threads
from ..runtime.gpu import require_gpu
from ..results.values import shown
from ..errors import InvalidParameter
from ._bucket import DEFAULT_BUCKETS, DEFAULT_SLICES, bucket_distribution
from ._exact import ExactDistribution
from ._grid import ScoreDistribution  # noqa: F401  (the return annotation)
from ._variants import VARIANTS


def check_precision(precision) -> "float | None":
    """The exact variant's tolerance: None (exact answers, the default) or ``precision`` (> 0, finite).

    >>> check_precision(None), check_precision(0.01)
    (None, 0.01)
    """
    if precision is None:
        return None
    if isinstance(precision, bool) or not isinstance(precision, numbers.Real) or not math.isfinite(precision) \
            or precision <= 0:
        raise InvalidParameter(f"precision must be a finite number > 0, got {shown(precision)}")
    return float(precision)


def check_variant(variant, backend) -> str:
    """The variant to run (``VARIANTS.resolve``); for the gpu backend, also that a GPU is there.

    >>> check_variant(None, "cpu")
    'exact'
    """
    variant = VARIANTS.resolve(variant, backend)
    if backend == "gpu":
        require_gpu()
    return variant


def score_distribution(pssm, variant: "str | None" = None, *, backend: str = "cpu",
                       precision: "float | None" = None, slices: int = DEFAULT_SLICES,
                       buckets: int = DEFAULT_BUCKETS, threads: int = 0) -> "ExactDistribution | ScoreDistribution":
    """The score distribution of ``pssm`` by ``variant`` (None: the backend's default, ``exact`` on the
    CPU, ``bucket`` on the GPU; see ``bioaccel.motif.VARIANTS``).

    ``exact`` answers each question exactly on the motif's integer grid (or, with ``precision``, to that
    relative tolerance); ``bucket`` is BUCKETSCOREDISTRIBUTION with ``slices`` slices and ``buckets`` buckets,
    computed here on ``threads`` CPU threads (0: all cores) or the GPU. Either way, ask it
    ``.pvalue_result(score)``, ``.threshold(p)``, ``.pvalue(score)`` or ``.threshold_fpr(p)``.

    >>> import numpy as np
    >>> from bioaccel.motif import PSSM
    >>> score_distribution(PSSM(np.eye(4)[:2])).threshold(0.1).score       # the word AA: P = 1/16
    2.0
    >>> score_distribution(PSSM(np.eye(4)[:2]), "bucket", slices=2).threshold(0.1).pvalue_high
    0.0625
    """
    variant = check_variant(variant, backend)
    precision = check_precision(precision)
    return DISTRIBUTIONS[variant](pssm, backend, precision, slices, buckets, threads)


def _exact(pssm, backend, precision, slices, buckets, threads):
    return ExactDistribution(pssm, precision=precision)


def _bucket(pssm, backend, precision, slices, buckets, threads):
    with using_threads(threads):
        return bucket_distribution(pssm, slices=slices, buckets=buckets, backend=backend)


#: Each variant's distribution: (pssm, backend, precision, slices, buckets, threads) -> the object
#: that answers P-values and thresholds.
DISTRIBUTIONS = {"exact": _exact, "bucket": _bucket}
