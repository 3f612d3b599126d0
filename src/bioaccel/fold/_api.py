"""The folding API: ``nussinov(sequences, ...)``, its streaming form, ViennaRNA-style ``fold(sequence)``
and the dense table of one sequence (``fold_table``, which BPMax uses for its single strands)."""
import functools

import numpy as np

from ..runtime.parallel import threads as using_threads
from ..errors import InvalidParameter
from ..inputs.fasta import Record, as_records, is_pair
from ._model import FoldParams
from ._result import FoldResult
from ._traceback import check_traced, dot_bracket, traceback_pairs
from ._variants import VARIANTS

#: Sequences up to this length are folded several at a time, one per core (see _packed_cpu);
#: longer ones one at a time, each on all cores.
BATCH_MAX_LENGTH = 800
#: A batch is folded once it holds this much work (sum of n^3) or this many sequences.
BATCH_MAX_WORK = 4e9
BATCH_MAX_COUNT = 20_000
#: Sequences handed to the GPU backend per call (one packed batch: fold/_gpu_batch.py).
GPU_CHUNK = 65_536


def _params(params):
    if params is None:
        return FoldParams()
    if not isinstance(params, FoldParams):
        raise InvalidParameter(f"params must be a FoldParams, got {type(params).__name__}")
    return params


def _records(sequences):
    """Records from what as_records accepts, lazily when given an iterator (e.g. read_fasta)."""
    if isinstance(sequences, (str, bytes, Record)) or is_pair(sequences):
        yield from as_records(sequences)
        return
    for index, item in enumerate(sequences, start=1):
        record = item if isinstance(item, Record) else as_records([item])[0]
        if isinstance(item, (str, bytes)):
            record.id = f"seq{index}"
        yield record


def nussinov(sequences, *, params=None, backend="cpu", variant=None, threads=0, traceback=True,
             client=None) -> list:
    """Fold each sequence with Nussinov's algorithm (maximum weighted base pairs); a list of FoldResult.

    ``sequences``: one string, a Record, or an iterable of strings, Records or ``(id, sequence)``
    pairs. ``params``: a :class:`FoldParams` (pairs, weights, minimum hairpin loop). ``backend``:
    "cpu" (Numba, all cores) or "gpu" (CUDA through CuPy). ``variant``: None for the backend's default
    (``tiled``) or a name of ``bioaccel.fold.VARIANTS``. ``threads``: CPU threads (0 = all cores).
    ``client``: fold on a Dask cluster instead (a ``dask.distributed.Client``, a scheduler address, or
    "local"), in tasks balanced by n^3 (:mod:`bioaccel.distribution.batch`), results in input order; GPU work goes
    to the GPU workers; with ``backend="gpu"`` and "local", one worker per GPU of this machine.

    >>> [(r.structure, r.score) for r in nussinov("GGGAAAUCC")]
    [('(((...)))', 3)]
    >>> nussinov(["GGGAAAUCC", "GGGAAUCC"], params=FoldParams(min_loop=2))[1].structure
    '(((..)))'
    """
    options = dict(params=params, backend=backend, variant=variant, threads=threads, traceback=traceback)
    if client is not None:
        return _on_cluster(sequences, client, options)
    return list(iter_nussinov(sequences, **options))


def _on_cluster(sequences, client, options):
    """Fold on a Dask cluster through the batch layer, one item per record, costing n^3; the first
    record that fails raises its error, as the in-process path would."""
    from ..distribution.batch import Item, run_items
    from ..distribution.cluster import connect

    _params(options["params"])
    VARIANTS.resolve(options["variant"], options["backend"])   # the GPU is the workers' to have
    records = list(_records(sequences))
    items = [Item(key, record.id, float(len(record)) ** 3 + 1.0, record) for key, record in enumerate(records)]
    results = [None] * len(items)
    gpu = options["backend"] == "gpu"
    with connect(client, gpus="all" if gpu and client == "local" else ()) as opened:
        for outcome in run_items(functools.partial(_fold_records, **options), items, client=opened, gpu=gpu):
            if outcome.error is not None:
                raise outcome.error
            results[outcome.key] = outcome.value
    return results


def _fold_records(records, **options):
    """Fold a task's records where it runs (a Dask worker): the same code as a local call."""
    return list(iter_nussinov(records, **options))


def fold(sequence, *, params=None, backend="cpu", variant=None) -> tuple:
    """``(structure, score)`` of one sequence, like ViennaRNA's ``RNA.fold``.

    >>> fold("GGGAAAUCC")
    ('(((...)))', 3)
    """
    result = nussinov([sequence], params=params, backend=backend, variant=variant)[0]
    return result.structure, result.score


def fold_table(sequence, *, params=None, variant=None, threads=0) -> np.ndarray:
    """The (n, n) int32 table of one sequence on the CPU: C(i, j) in the upper triangle, in the
    model's integer units (``params.unit`` per pair of weight 1); the rest is 0.

    >>> int(fold_table("GGGAAAUCC")[0, 8])
    3
    """
    from . import _cpu

    params = _params(params)
    variant = VARIANTS.resolve(variant, "cpu")
    codes = as_records([sequence])[0].codes if not isinstance(sequence, np.ndarray) else sequence
    with using_threads(threads):
        table, base = _cpu.fill_table(codes, params, variant)
        return _cpu.unpack(table, base, len(codes))


#: Measured fill rates in n^3 per second (bench/nussinov_cpu.py, bench/nussinov_gpu.py): the CPU's per
#: thread (tiled: n = 4,000 in 0.47 s on 2 threads of the development machine), an H200's whole.
CPU_RATE_PER_THREAD = {"tiled": 6.5e10}
CPU_RATE_OTHER = 1.0e9                   # Li, Ranka & Sahni's CPU variants: ~60x slower than tiled
GPU_RATE = {"tiled": 8.0e13}
GPU_RATE_OTHER = 3.0e12
SERIAL_VARIANTS = ("naive", "cache")


def estimate_seconds(lengths, *, backend="cpu", variant=None, threads=0) -> float:
    """Rough time to fold sequences of these ``lengths`` (sum of n^3 at a measured rate).

    >>> round(estimate_seconds([40_000] * 3, threads=2) / 60)
    25
    """
    from ..runtime.parallel import resolve_threads

    variant = VARIANTS.resolve(variant, backend)
    work = sum(float(n) ** 3 for n in lengths)
    if backend == "gpu":
        return work / GPU_RATE.get(variant, GPU_RATE_OTHER)
    count = 1 if variant in SERIAL_VARIANTS else resolve_threads(threads)
    return work / (CPU_RATE_PER_THREAD.get(variant, CPU_RATE_OTHER) * count)


def check_sizes(lengths, *, params=None, backend="cpu", variant=None):
    """Refuse, before any sequence is folded, a batch whose longest sequence will not fit in memory
    (ResourceError with the estimate and a way out)."""
    params, variant = _check(params, backend, variant)
    if not lengths:
        return
    n = max(lengths)
    params.cell_dtype(n)
    if backend == "gpu":
        from ._gpu import check_fits

        check_fits(n, variant, params)
        return
    from ._cpu import check_memory, table_bytes

    check_memory(table_bytes(n, params, variant), n, "tiled score table" if variant == "tiled"
                 else f"dense {n:,} x {n:,} score table")


def _check(params, backend, variant):
    params = _params(params)
    variant = VARIANTS.resolve(variant, backend)
    if backend == "gpu":
        from ..runtime.gpu import require_gpu

        require_gpu()  # fail before reading any input
    return params, variant


def iter_nussinov(sequences, *, params=None, backend="cpu", variant=None, threads=0, traceback=True):
    """Like :func:`nussinov` but yields each FoldResult in input order as soon as it is ready.

    Parameters are checked here, before any sequence is read.

    >>> next(iter_nussinov(["GGGAAAUCC"])).score
    3
    """
    params, variant = _check(params, backend, variant)
    if backend == "cpu":
        return _iter_cpu(_records(sequences), params, variant, traceback, threads)
    return _iter_gpu(_records(sequences), params, variant, traceback)


def _result(record, params, units, pair_to, variant, backend):
    return FoldResult(
        id=record.id, sequence=record.sequence,
        structure=None if pair_to is None else dot_bracket(pair_to),
        score=params.to_score(units), pair_to=pair_to, score_units=int(units),
        min_loop=params.min_loop, variant=variant, backend=backend,
    )


def _fold_one_cpu(codes, params, variant, traceback):
    from . import _cpu

    table, base = _cpu.fill_table(codes, params, variant)
    n = len(codes)
    units = int(table[base[0] + n - 1]) if n else 0
    if not traceback:
        return units, None
    return units, check_traced(traceback_pairs(table, base, codes, params.pair_table(), params.min_loop))


def _iter_cpu(records, params, variant, traceback, threads):
    from ._packed_cpu import fold_list

    pending, work = [], 0.0

    def flush():
        with using_threads(threads):
            if len(pending) == 1:
                folded = [_fold_one_cpu(pending[0].codes, params, variant, traceback)]
            else:
                folded = fold_list([r.codes for r in pending], params, traceback=traceback) if pending else []
        results = [_result(r, params, units, pair_to, variant, "cpu") for r, (units, pair_to) in zip(pending, folded)]
        pending.clear()
        return results

    for record in records:
        n = len(record)
        if variant == "tiled" and n <= BATCH_MAX_LENGTH:
            pending.append(record)
            work += float(n) ** 3
            if work >= BATCH_MAX_WORK or len(pending) >= BATCH_MAX_COUNT:
                yield from flush()
                work = 0.0
            continue
        yield from flush()
        work = 0.0
        pending.append(record)
        yield from flush()
    yield from flush()


def _iter_gpu(records, params, variant, traceback):
    from . import _gpu

    chunk = []

    def flush():
        folded = _gpu.fold_many([r.codes for r in chunk], params, variant=variant, traceback=traceback)
        results = [_result(r, params, units, pair_to, variant, "gpu") for r, (units, pair_to) in zip(chunk, folded)]
        chunk.clear()
        return results

    for record in records:
        chunk.append(record)
        if len(chunk) >= GPU_CHUNK:
            yield from flush()
    if chunk:
        yield from flush()
