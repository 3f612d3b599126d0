"""The value of given structures under a model, as RNAeval gives it: the free energy of each structure
(Turner 2004, kcal/mol) or its weighted pairs (Nussinov). A structure the model could not form (a pair
it does not allow, a hairpin too short, a pseudoknot) is refused with the record and the position.
"""
from typing import Iterable, Iterator

from ..errors import InputError
from ..runtime.contract import check_params, records
from ._models import MODELS
from ._result import FoldResult
from ._traceback import parse_dot_bracket


def iter_evaluate(structures: Iterable, *, params=None) -> Iterator[FoldResult]:
    """A :class:`FoldResult` for each ``(sequence, structure)`` of ``structures``, lazily: the sequence
    as :func:`bioaccel.fold.fold` takes one (a string, an ``(id, sequence)`` pair or a Record), the
    structure in dot-bracket; ``params`` the model (None: the default, Turner 2004). The result's
    ``variant`` is ``"eval"``.

    >>> [r.energy for r in iter_evaluate([("GGGGAAACCCC", "((((...))))"), ("GGGGAAACCCC", "...........")])]
    [-4.5, 0.0]
    """
    model = check_params(params, MODELS.classes())
    for index, (sequence, structure) in enumerate(structures, start=1):
        record = next(records([sequence]))
        ident = record.id if not isinstance(sequence, str) else f"seq{index}"
        try:
            pair_to = parse_dot_bracket(structure)
            units = model.evaluate(record.codes, pair_to)
        except InputError as exc:
            raise InputError(f"record {ident!r}: {exc}") from None
        yield FoldResult(id=ident, sequence=record.sequence, description=record.description, structure=structure,
                         pair_to=pair_to, score_units=int(units), variant="eval",
                         model=model.name, **model.result_values(units))


def evaluate(structures: Iterable, *, params=None) -> list:
    """:func:`iter_evaluate` as a list.

    >>> from bioaccel.fold import FoldParams
    >>> [(r.id, r.score) for r in evaluate([(("x", "GGGAAAUCC"), "(((...)))")], params=FoldParams())]
    [('x', 3)]
    """
    return list(iter_evaluate(structures, params=params))
