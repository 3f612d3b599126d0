"""A BPMax call's keywords, checked once before any input is read: :class:`Request`.

The family keywords (``params``, ``backend``, ``variant``, ``threads``) are checked by the shared
contract (:func:`bioaccel.runtime.contract.check_call`); BPMax's own (``structure``, ``sites``,
``rank``) here. Every path (the stream, a Dask worker, the command line's batch) computes its pairs
from one Request, so no later step checks a keyword again.
"""
from dataclasses import dataclass

from ..runtime.contract import Call, check_call, check_params
from ..runtime.parallel import resolve_threads
from ._model import InteractParams
from ._sites import check_rank, check_sites
from ._variants import VARIANTS


@dataclass(frozen=True)
class Request:
    """The checked keywords of one BPMax call: the contract's :class:`~bioaccel.runtime.contract.Call`
    (model, backend, the variant's canonical name, threads) and the pairs' options."""

    call: Call
    structure: bool = False
    sites: int = 1
    rank: str = "score"

    @property
    def params(self) -> InteractParams:
        return self.call.params


def check_request(params=None, backend="cpu", variant=None, threads=0, structure=False, sites=1, rank="score",
                  *, here=True) -> Request:
    """The checks made before any input is read. ``here``: the pairs are computed in this process, so
    a GPU backend needs a GPU here (GPUUnavailable); a batch computed by workers (``here=False``) is
    checked for its GPU where it runs.

    >>> check_request(variant="BPMax").call.variant
    'naive'
    >>> check_request(sites=0)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: sites must be a whole number >= 1, got 0
    """
    if here:
        call = check_call(VARIANTS, params, InteractParams, backend=backend, variant=variant, threads=threads)
    else:
        params = check_params(params, InteractParams)
        call = Call(params, backend, VARIANTS.resolve(variant, backend), threads)
        resolve_threads(threads)
    return Request(call, bool(structure), check_sites(sites), check_rank(rank))
