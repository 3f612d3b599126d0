"""The API contract every family keeps, as code.

Every family function takes its inputs first, then the same keywords in the same order:

* ``params``: the family's model object (``FoldParams``, ``TurnerModel``, ``InteractParams``,
  ``MotifParams``), None for its defaults;
* ``backend``: ``"cpu"`` (Numba, every core) or ``"gpu"`` (CUDA through CuPy);
* ``variant``: None for the backend's default, or a name (or a paper's alias) of the family's registry;
* ``threads``: CPU threads for the duration of the call (0: every core);
* ``client``: where the work is a batch, a Dask client, a scheduler's address or ``"local"``.

:func:`check_call` checks the first four before any input is read and gives them back as a
:class:`Call`; :func:`records` turns what the functions accept as sequences into records, lazily.

One rule for an empty sequence in every family: it is a valid input with the empty answer (folded:
the empty structure, energy or score 0; in an interaction, the other strand alone; scanned: no hits).

>>> from bioaccel.runtime.registry import Variant, VariantRegistry
>>> demo = VariantRegistry("demo", [Variant("plain", ("cpu",), "the only one")], defaults={"cpu": "plain"})
>>> check_call(demo, None, dict).variant
'plain'
>>> [(r.id, r.sequence) for r in records(["acgt", ("x", "GG")])]
[('seq1', 'ACGT'), ('x', 'GG')]
"""
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Iterator, Union

from ..errors import InvalidParameter
from ..inputs.fasta import Record, as_records, is_pair

#: What a family function accepts as sequences: one string, Record or ``(id, sequence)`` pair, or an
#: iterable of them (a list, a generator, ``read_fasta(path)``).
Sequences = Union[str, Record, "tuple[str, str]", Iterable[Union[str, Record, "tuple[str, str]"]]]


@dataclass(frozen=True)
class Call:
    """The checked keywords of one family call: the model, the backend, the variant's canonical name
    and the thread count asked for (0: every core)."""

    params: Any
    backend: str
    variant: str
    threads: int


def check_params(params, model: "type | tuple", default: Callable = None):
    """``params``, or the family's default model when it is None; InvalidParameter when it is not one of
    the family's model types ``model``.

    >>> check_params(None, dict)
    {}
    >>> check_params(3, dict)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: params must be a dict, got int
    """
    if params is None:
        return (default or (model[0] if isinstance(model, tuple) else model))()
    if not isinstance(params, model):
        names = " or ".join(m.__name__ for m in model) if isinstance(model, tuple) else model.__name__
        raise InvalidParameter(f"params must be a{'n' if names[0] in 'AEIOU' else ''} {names}, "
                               f"got {type(params).__name__}")
    return params


def check_call(registry, params, model, *, backend: str = "cpu", variant: "str | None" = None,
               threads: int = 0, default: Callable = None) -> Call:
    """Check a family call's keywords before any input is read: the model (:func:`check_params`), the
    backend and variant (the family's ``registry``: an unknown name is InvalidParameter, a known one on
    the wrong backend NotAvailable), the thread count, and a GPU when the backend is ``"gpu"``
    (GPUUnavailable: no input is read first).

    >>> from bioaccel.runtime.registry import Variant, VariantRegistry
    >>> demo = VariantRegistry("demo", [Variant("plain", ("cpu",), "only")], defaults={"cpu": "plain"})
    >>> check_call(demo, None, dict, threads=-1)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: threads must be 0 (all cores) or a positive whole number, got -1
    """
    from .parallel import resolve_threads

    params = check_params(params, model, default)
    name = registry.resolve(variant, backend)
    resolve_threads(threads)
    if backend == "gpu":
        from .gpu import require_gpu

        require_gpu()
    return Call(params, backend, name, threads)


def records(sequences: Sequences) -> Iterator[Record]:
    """Records from one string, Record or ``(id, sequence)`` pair, or from an iterable of them, lazily
    (an iterator such as ``read_fasta(path)`` is read as the records are used). Strings get the ids
    ``seq1``, ``seq2``, ... by their place; lower case reads as upper case; an empty sequence is a
    valid record.

    >>> [r.id for r in records(iter(["GG", "", ("z", "A")]))]
    ['seq1', 'seq2', 'z']
    """
    if isinstance(sequences, (str, bytes, Record)) or is_pair(sequences):
        yield from as_records(sequences)
        return
    for index, item in enumerate(sequences, start=1):
        record = item if isinstance(item, Record) else as_records([item])[0]
        if isinstance(item, (str, bytes)):
            record = dataclasses.replace(record, id=f"seq{index}")
        yield record
