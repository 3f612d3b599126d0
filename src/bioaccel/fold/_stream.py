"""Records in, FoldResults out, in input order, through a model's CPU or GPU fold, a chunk at a time.

The model says how it folds (``fold_cpu``, ``fold_gpu``: integer units and partners) and which
sequences share the cores (``one_per_core``); this module cuts the stream into chunks, sets the thread
count, and builds the results, the same way for every model.
"""
from typing import Callable, Iterator

from ..runtime.contract import Call
from ..runtime.parallel import threads as using_threads
from ._result import FoldResult
from ._traceback import dot_bracket

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
    return [FoldResult(id=record.id, sequence=record.sequence, description=record.description,
                       structure=None if pair_to is None else dot_bracket(pair_to),
                       pair_to=pair_to, score_units=int(units), variant=call.variant, backend=backend,
                       model=model.name, **model.result_values(units))
            for record, (units, pair_to) in zip(chunk, folded)]


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
