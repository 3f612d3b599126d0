"""Records in, FoldResults out, in input order, through a model's CPU or GPU fold, a chunk at a time.

The model says how it folds (``fold_cpu``, ``fold_gpu``: integer units and partners) and which
sequences share the cores (``one_per_core``); this module cuts the stream into chunks, sets the thread
count, and builds the results, the same way for every model.
"""
from typing import Callable, Iterator

import numpy as np

from ..runtime.contract import Call
from ..runtime.parallel import threads as using_threads
from ._result import FoldResult

#: A chunk of sequences that share the cores is folded once it holds this much work (sum of n^3) or
#: this many sequences.
CHUNK_MAX_WORK = 4e9
CHUNK_MAX_COUNT = 20_000
#: Sequences handed to the GPU backend per call (one packed batch: fold/_gpu_batch.py).
GPU_CHUNK = 65_536


def fold_records(call: Call, records, traceback: bool) -> Iterator[FoldResult]:
    """Each record's FoldResult, in input order, as soon as it is ready (``call``: the checked keywords)."""
    return BY_BACKEND[call.backend](call, records, traceback)


def _results(call, chunk, folded) -> list:
    model, backend = call.params, call.backend
    structures = _dot_brackets([pair_to for _, pair_to in folded])
    return [FoldResult(id=record.id, sequence=record.sequence, description=record.description,
                       structure=structure, pair_to=pair_to, score_units=int(units), variant=call.variant,
                       backend=backend, model=model.name, **model.result_values(units))
            for record, (units, pair_to), structure in zip(chunk, folded, structures)]


def _dot_brackets(partners) -> list:
    """:func:`._traceback.dot_bracket` of each ``pair_to`` (None stays None), made in one pass over the
    chunk: a NumPy call per record cost more than a short record's fold.

    >>> _dot_brackets([np.array([4, -1, -1, -1, 0]), None, np.array([], dtype=np.int64)])
    ['(...)', None, '']
    """
    traced = [p for p in partners if p is not None]
    if not traced:
        return [None] * len(partners)
    lengths = np.fromiter(map(len, traced), dtype=np.int64, count=len(traced))
    starts = np.zeros(len(traced) + 1, dtype=np.int64)
    np.cumsum(lengths, out=starts[1:])
    joined = np.concatenate(traced) if starts[-1] else np.zeros(0, dtype=np.int64)
    within = np.arange(joined.shape[0]) - np.repeat(starts[:-1], lengths)
    chars = np.where(joined < 0, 46, np.where(joined > within, 40, 41)).astype(np.uint8)    # '.', '(', ')'
    text = chars.tobytes().decode("ascii")
    bounds = iter(zip(starts[:-1].tolist(), starts[1:].tolist()))
    return [None if p is None else text[slice(*next(bounds))] for p in partners]


def _on_cpu(call, records, traceback):
    model, variant = call.params, call.variant
    pending, work = [], 0.0

    def flush():
        if not pending:
            return []
        with using_threads(call.threads):
            folded = model.fold_cpu([r.codes for r in pending], variant, traceback)
        results = _results(call, pending, folded)
        pending.clear()
        return results

    for record in records:
        n = len(record)
        if model.one_per_core(n, variant):
            pending.append(record)
            work += float(n) ** 3
            if work >= CHUNK_MAX_WORK or len(pending) >= CHUNK_MAX_COUNT:
                yield from flush()
                work = 0.0
            continue
        yield from flush()
        work = 0.0
        pending.append(record)
        yield from flush()
    yield from flush()


def _on_gpu(call, records, traceback):
    chunk = []

    def flush():
        folded = call.params.fold_gpu([r.codes for r in chunk], call.variant, traceback)
        results = _results(call, chunk, folded)
        chunk.clear()
        return results

    for record in records:
        chunk.append(record)
        if len(chunk) >= GPU_CHUNK:
            yield from flush()
    if chunk:
        yield from flush()


#: backend -> the generator that folds a stream of records there
BY_BACKEND: "dict[str, Callable]" = {"cpu": _on_cpu, "gpu": _on_gpu}
