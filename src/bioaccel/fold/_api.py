"""The folding API: ``nussinov(sequences, backend=...)`` and ViennaRNA-style ``fold(sequence)``."""
import functools
from dataclasses import dataclass, field

import numpy as np

from .._cliutil import set_threads
from ..errors import GPUUnavailable, InvalidParameter
from ..fasta import Record, as_records
from . import _cpu
from ._model import FoldParams
from ._traceback import dot_bracket, traceback_pairs

#: Sequences up to this length are folded several at a time, one per core (see _cpu.fold_batch);
#: longer ones one at a time, each on all cores.
BATCH_MAX_LENGTH = 800
#: A batch is folded once it holds this much work (sum of n^3) or this many sequences.
BATCH_MAX_WORK = 4e9
BATCH_MAX_COUNT = 20_000
#: Sequences handed to the GPU backend per call.
GPU_CHUNK = 4096

BACKENDS = ("cpu", "gpu")


@dataclass
class FoldResult:
    """One folded sequence.

    ``structure`` is the dot-bracket and ``pair_to[i]`` the 0-based partner of position i (-1:
    unpaired); both are None when folded with ``traceback=False``. ``score`` is the optimal weighted
    number of pairs (an int when whole), ``score_units`` the same in the model's integer units.
    """

    id: str
    sequence: str
    structure: str | None
    score: int | float
    pair_to: np.ndarray | None = field(default=None, repr=False)
    score_units: int = 0
    min_loop: int = 3
    variant: str = ""
    backend: str = "cpu"

    @property
    def length(self):
        return len(self.sequence)

    @property
    def pairs(self):
        """Number of base pairs in the structure (None without a traceback)."""
        return None if self.pair_to is None else int(np.count_nonzero(self.pair_to >= 0) // 2)

    def base_pairs(self):
        """The pairs as a list of 0-based ``(i, j)``, ``i < j``, in order of ``i``."""
        if self.pair_to is None:
            return []
        i = np.flatnonzero(self.pair_to > np.arange(len(self.pair_to)))
        return list(zip(i.tolist(), self.pair_to[i].tolist()))


def make_params(params=None, *, min_loop=3, gu=True):
    """``params`` if given, else FoldParams(min_loop, GU weight 1 when ``gu`` is True, 0 when False)."""
    if params is not None:
        if not isinstance(params, FoldParams):
            raise InvalidParameter(f"params must be a FoldParams, got {type(params).__name__}")
        return params
    gu_weight = 1 if gu is True else 0 if gu is False or gu is None else gu
    return FoldParams(min_loop=min_loop, gu=gu_weight)


def _records(sequences):
    """Records from what as_records accepts, lazily when given an iterator (e.g. read_fasta)."""
    if isinstance(sequences, (str, bytes, Record)):
        yield from as_records(sequences)
        return
    for index, item in enumerate(sequences, start=1):
        record = item if isinstance(item, Record) else as_records([item])[0]
        if isinstance(item, (str, bytes)):
            record.id = f"seq{index}"
        yield record


def nussinov(sequences, *, backend="cpu", variant=None, threads=0, min_loop=3, gu=True, params=None,
             traceback=True, client=None):
    """Fold each sequence with Nussinov's algorithm (maximum weighted base pairs); a list of FoldResult.

    ``sequences``: one string, a Record, or an iterable of strings, Records or ``(id, sequence)``
    pairs. ``backend``: "cpu" (Numba, all cores) or "gpu" (CUDA through CuPy). ``variant``: None for
    the backend's default ("blocked" on the CPU, "fast" on the GPU); CPU choices are
    ``blocked, naive, cache, naive-parallel, cache-parallel``. ``threads``: CPU threads (0 = all
    cores). ``params`` (a FoldParams) overrides ``min_loop`` and ``gu``. ``client``: fold on a Dask
    cluster instead (a ``dask.distributed.Client``, a scheduler address, or "local"), in chunks
    balanced by n^3, results in input order; with ``backend="gpu"`` and "local", one worker per GPU.

    >>> [(r.structure, r.score) for r in nussinov("GGGAAAUCC")]
    [('(((...)))', 3)]
    """
    options = dict(backend=backend, variant=variant, threads=threads, min_loop=min_loop, gu=gu, params=params,
                   traceback=traceback)
    if client is not None:
        from .._distributed import map_chunks

        records = list(_records(sequences))
        fold_chunk = functools.partial(_fold_records, **options)
        costs = [float(len(r)) ** 3 + 1.0 for r in records]
        return list(map_chunks(fold_chunk, records, costs, client=client, gpus=backend == "gpu"))
    return list(iter_nussinov(sequences, **options))


def _fold_records(records, **options):
    """Fold a chunk of records where this runs (a Dask worker): the same code as a local call."""
    return list(iter_nussinov(records, **options))


def fold(sequence, **options):
    """``(structure, score)`` of one sequence, like ViennaRNA's ``RNA.fold``; options as nussinov's.

    >>> fold("GGGAAAUCC")
    ('(((...)))', 3)
    """
    result = nussinov([sequence], **options)[0]
    return result.structure, result.score


def iter_nussinov(sequences, *, backend="cpu", variant=None, threads=0, min_loop=3, gu=True, params=None,
                  traceback=True, tile=_cpu.TILE):
    """Like :func:`nussinov` but yields each FoldResult in input order as soon as it is ready.

    Parameters are checked here, before any sequence is read.
    """
    params = make_params(params, min_loop=min_loop, gu=gu)
    if backend not in BACKENDS:
        raise InvalidParameter(f"unknown backend {backend!r}; choose one of {', '.join(BACKENDS)}")
    if backend == "cpu":
        variant = _cpu.check_variant(variant)
        set_threads(threads)
        return _iter_cpu(_records(sequences), params, variant, traceback, tile)
    gpu = _gpu_module()
    variant = variant or gpu.DEFAULT_VARIANT
    if variant not in gpu.VARIANTS:
        raise InvalidParameter(f"unknown GPU variant {variant!r}; choose one of {', '.join(gpu.VARIANTS)}")
    from .._gpu import require_gpu

    require_gpu()  # fail before reading any input
    return _iter_gpu(gpu, _records(sequences), params, variant, traceback)


def _gpu_module():
    try:
        from . import _gpu
    except ModuleNotFoundError as exc:
        if exc.name and exc.name.startswith("bioaccel"):
            raise GPUUnavailable("the GPU backend is not available in this build of bioaccel") from None
        raise
    return _gpu


def _result(record, params, units, pair_to, variant, backend):
    return FoldResult(
        id=record.id, sequence=record.sequence,
        structure=None if pair_to is None else dot_bracket(pair_to),
        score=params.to_score(units), pair_to=pair_to, score_units=int(units),
        min_loop=params.min_loop, variant=variant, backend=backend,
    )


def _fold_one_cpu(codes, params, pairs, variant, traceback, tile):
    table, base = _cpu.fill_table(codes, pairs, params.min_loop, variant, tile=tile)
    n = len(codes)
    units = int(table[base[0] + n - 1]) if n else 0
    pair_to = traceback_pairs(table, base, codes, pairs, params.min_loop) if traceback else None
    return units, pair_to


def _iter_cpu(records, params, variant, traceback, tile):
    pairs = params.pair_table()
    pending, work = [], 0.0

    def flush():
        if len(pending) == 1:
            record = pending[0]
            yield _result(record, params, *_fold_one_cpu(record.codes, params, pairs, variant, traceback,
                                                          tile), variant, "cpu")
        elif pending:
            folded = _cpu.fold_batch([r.codes for r in pending], pairs, params.min_loop, tile=tile,
                                     traceback=traceback)
            for record, (units, pair_to) in zip(pending, folded):
                yield _result(record, params, units, pair_to, variant, "cpu")
        pending.clear()

    for record in records:
        n = len(record)
        if variant == "blocked" and n <= BATCH_MAX_LENGTH:
            pending.append(record)
            work += float(n) ** 3
            if work >= BATCH_MAX_WORK or len(pending) >= BATCH_MAX_COUNT:
                yield from flush()
                work = 0.0
            continue
        yield from flush()
        work = 0.0
        yield _result(record, params, *_fold_one_cpu(record.codes, params, pairs, variant, traceback, tile),
                      variant, "cpu")
    yield from flush()


def _iter_gpu(gpu, records, params, variant, traceback):
    chunk = []

    def flush():
        folded = gpu.fold_many([r.codes for r in chunk], params, variant=variant, traceback=traceback)
        for record, (units, pair_to) in zip(chunk, folded):
            yield _result(record, params, units, pair_to, variant, "gpu")
        chunk.clear()

    for record in records:
        chunk.append(record)
        if len(chunk) >= GPU_CHUNK:
            yield from flush()
    if chunk:
        yield from flush()
