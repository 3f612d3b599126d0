"""The folding family: ``fold(sequences, ...)`` with any model and its streaming form ``iter_fold``,
``nussinov``/``iter_nussinov`` (the same with the Nussinov model), the batch ``client=`` and the command
line's ``--workers`` run (:func:`fold_work`), ViennaRNA-style ``fold_one(sequence)``, and the dense
table of one sequence (``fold_table``, which BPMax uses for its single strands)."""
import functools
from typing import Iterator

import numpy as np

from ..distribution.batch import Item
from ..distribution.work import Work, run_work
from ..runtime.contract import Call, Sequences, check_call, check_params, records
from ._model import FoldParams
from ._models import MODELS, FoldModel
from ._result import FoldResult
from ._variants import VARIANTS


def check_fold(params: "FoldModel | None" = None, *, backend: str = "cpu", variant: "str | None" = None,
               threads: int = 0, gpu_here: bool = True) -> Call:
    """The keywords of a fold call, checked before any input is read: ``params`` (a model of
    ``bioaccel.fold.MODELS``; None: Nussinov's defaults), ``backend`` and ``variant`` (against the
    model's registry), ``threads``, and a GPU here when the backend is "gpu", unless ``gpu_here=False``
    (the work goes to a cluster's GPU workers).

    >>> check_fold(FoldParams(), variant="CPU1").variant, check_fold().params.name
    ('naive', 'turner2004')
    >>> check_fold(params=3)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: params must be a TurnerModel or FoldParams, got int
    """
    model = check_params(params, MODELS.classes())
    if gpu_here:
        return check_call(model.variants, model, type(model), backend=backend, variant=variant, threads=threads)
    from ..runtime.parallel import resolve_threads

    name = model.variants.resolve(variant, backend)
    resolve_threads(threads)
    return Call(model, backend, name, threads)


def fold(sequences: Sequences, *, params: "FoldModel | None" = None, backend: str = "cpu",
         variant: "str | None" = None, threads: int = 0, traceback: bool = True, client=None) -> "list[FoldResult]":
    """Fold each sequence with the model ``params``; a list of :class:`FoldResult` in input order.

    ``sequences``: one string, a Record, or an iterable of strings, Records or ``(id, sequence)``
    pairs (an empty sequence folds to the empty structure, value 0). ``params``: the model, one of
    ``bioaccel.fold.MODELS`` (None: :class:`FoldParams`, Nussinov's defaults). ``backend``: "cpu"
    (Numba, all cores) or "gpu" (CUDA through CuPy). ``variant``: None for the backend's default or a
    name of the model's registry (``FoldParams.variants`` is ``bioaccel.fold.VARIANTS``). ``threads``:
    CPU threads (0 = all cores). ``traceback=False``: values only, no structures. ``client``: fold on
    a Dask cluster instead (a ``dask.distributed.Client``, a scheduler address, or "local"), the work
    of :func:`fold_work`; with ``backend="gpu"`` and "local", one worker per GPU of this machine.

    >>> [(r.structure, r.energy, r.model) for r in fold("GGGGAAACCCC")]
    [('((((...))))', -4.5, 'turner2004')]
    >>> [(r.structure, r.score, r.model) for r in fold("GGGAAAUCC", params=FoldParams())]
    [('(((...)))', 3, 'nussinov')]
    """
    if client is not None:
        work = fold_work(sequences, params=params, backend=backend, variant=variant, threads=threads,
                         traceback=traceback)
        return run_work(work, client, gpus="all" if work.gpu and client == "local" else ())
    return list(iter_fold(sequences, params=params, backend=backend, variant=variant, threads=threads,
                          traceback=traceback))


def iter_fold(sequences: Sequences, *, params: "FoldModel | None" = None, backend: str = "cpu",
              variant: "str | None" = None, threads: int = 0, traceback: bool = True) -> Iterator[FoldResult]:
    """Like :func:`fold` but yields each FoldResult in input order as soon as it is ready; the keywords
    are checked here, before any sequence is read.

    >>> next(iter_fold(["GGGGAAACCCC"])).energy
    -4.5
    """
    from ._stream import fold_records

    call = check_fold(params, backend=backend, variant=variant, threads=threads)
    return fold_records(call, records(sequences), traceback)


def nussinov(sequences: Sequences, *, params: "FoldParams | None" = None, backend: str = "cpu",
             variant: "str | None" = None, threads: int = 0, traceback: bool = True,
             client=None) -> "list[FoldResult]":
    """Fold each sequence with Nussinov's algorithm (maximum weighted base pairs): :func:`fold` with a
    :class:`FoldParams` (pairs, weights, minimum hairpin loop; None: its defaults).

    >>> [(r.structure, r.score) for r in nussinov("GGGAAAUCC")]
    [('(((...)))', 3)]
    >>> nussinov(["GGGAAAUCC", "GGGAAUCC"], params=FoldParams(min_loop=2))[1].structure
    '(((..)))'
    """
    return fold(sequences, params=check_params(params, FoldParams), backend=backend, variant=variant,
                threads=threads, traceback=traceback, client=client)


def iter_nussinov(sequences: Sequences, *, params: "FoldParams | None" = None, backend: str = "cpu",
                  variant: "str | None" = None, threads: int = 0,
                  traceback: bool = True) -> Iterator[FoldResult]:
    """:func:`iter_fold` with a :class:`FoldParams`.

    >>> next(iter_nussinov(["GGGAAAUCC"])).score
    3
    """
    return iter_fold(sequences, params=check_params(params, FoldParams), backend=backend, variant=variant,
                     threads=threads, traceback=traceback)


def fold_work(sequences: Sequences, *, params: "FoldModel | None" = None, backend: str = "cpu",
              variant: "str | None" = None, threads: int = 0, traceback: bool = True) -> Work:
    """The fold of ``sequences`` as a batch (:class:`~bioaccel.distribution.work.Work`): one item per
    record, costing n^3, labelled ``record 'id'``; its function folds a list of records where it runs,
    with :func:`iter_fold`, the code of the in-process path. ``client=`` runs it, and so does the
    command line's ``--workers``. A GPU is needed by the workers, not here.

    >>> work = fold_work(["GGGAAAUCC", ("x", "GC")], params=FoldParams())
    >>> [item.label for item in work.items], [r.score for r in work.function([i.payload for i in work.items])]
    (["record 'seq1'", "record 'x'"], [3, 0])
    """
    call = check_fold(params, backend=backend, variant=variant, threads=threads, gpu_here=False)
    items = [Item(key, f"record {record.id!r}", float(len(record)) ** 3 + 1.0, record)
             for key, record in enumerate(records(sequences))]
    function = functools.partial(fold_payloads, params=call.params, backend=backend, variant=call.variant,
                                 threads=threads, traceback=traceback)
    return Work(items, function, gpu=backend == "gpu")


def fold_payloads(payloads: list, **options) -> "list[FoldResult]":
    """The worker function of :func:`fold_work`: the FoldResult of each record of ``payloads``."""
    return list(iter_fold(payloads, **options))


def fold_one(sequence: "str | tuple[str, str]", *, params: "FoldModel | None" = None, backend: str = "cpu",
             variant: "str | None" = None) -> tuple:
    """``(structure, value)`` of one sequence, like ViennaRNA's ``RNA.fold`` (the value: Nussinov's
    score, an energy model's energy).

    >>> fold_one("GGGGAAACCCC"), fold_one("GGGAAAUCC", params=FoldParams())
    (('((((...))))', -4.5), ('(((...)))', 3))
    """
    result = fold([sequence], params=params, backend=backend, variant=variant)[0]
    return result.structure, result.value


def fold_table(sequence: "str | np.ndarray", *, params: "FoldParams | None" = None, variant: "str | None" = None,
               threads: int = 0) -> np.ndarray:
    """The (n, n) int32 Nussinov table of one sequence on the CPU: C(i, j) in the upper triangle, in
    the model's integer units (``params.unit`` per pair of weight 1); the rest is 0.

    >>> int(fold_table("GGGAAAUCC")[0, 8])
    3
    """
    from ..inputs.fasta import as_records
    from ..runtime.parallel import threads as using_threads
    from . import _cpu

    call = check_call(VARIANTS, params, FoldParams, backend="cpu", variant=variant, threads=threads)
    codes = as_records([sequence])[0].codes if not isinstance(sequence, np.ndarray) else sequence
    with using_threads(threads):
        table, base = _cpu.fill_table(codes, call.params, call.variant)
        return _cpu.unpack(table, base, len(codes))
