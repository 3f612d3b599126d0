"""The ensemble of many records by chunks (:func:`iter_ensemble_chunks`): each chunk's partition functions
in one call (the GPU batch's sparse pair lists as they come, or the CPU's P with its zeros left out),
its derived quantities in one Numba call parallel over records (:mod:`._ensemble_sparse`), the
centroid's and the MEA's free energies in another (Turner models), its dot-brackets cut from one byte
array; no n x n matrix kept, no derived quantity computed per record in Python. Every value is the one
:func:`~bioaccel.fold.iter_ensemble` gives, bit for bit.

>>> chunk = next(iter_ensemble_chunks(["GGGGAAACCCC", "AAAA"]))
>>> [r.centroid for r in chunk.results], chunk.results[0].mea, int(chunk.offsets[-1]) > 0
(['((((...))))', '....'], '((((...))))', True)
"""
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..runtime.contract import Sequences, records
from ._ensemble import (CHUNK_COUNT, CHUNK_WORK, GPU_CHUNK_WORK, EnsembleResult, assemble, check_ensemble,
                        check_ensemble_sizes)

#: records per GPU chunk: the pair lists (every non-zero probability, ~7,500 per 200-nt RNA, 16 bytes
#: each) take ~1 GB of host memory at 8,192 records of 200 nt
GPU_BULK_COUNT = 8192


@dataclass
class EnsembleChunk:
    """The ensembles of consecutive records: ``results`` (:class:`EnsembleResult` each, without ``bpp``)
    and every non-zero base-pair probability, result r's at ``offsets[r]:offsets[r + 1]`` of ``i``, ``j``
    (0-based, row-major) and ``p``.

    >>> c = next(iter_ensemble_chunks(["GGGGAAACCCC"]))
    >>> len(c), int(c.i[0]), int(c.j[0]) > int(c.i[0])
    (1, 0, True)
    """

    results: "list[EnsembleResult]"
    offsets: np.ndarray
    i: np.ndarray
    j: np.ndarray
    p: np.ndarray

    def __len__(self) -> int:
        return len(self.results)


def _sparse(dense):
    """(offsets, i, j, p) of dense matrices' non-zero entries, row-major."""
    from ._ensemble_sparse import sparse_lists

    return sparse_lists(dense)


def _partition(call, codes):
    """``(log_z, (offsets, i, j, p))`` of the chunk, by backend."""
    from ..runtime.parallel import threads as using_threads

    model = call.params
    if call.backend == "gpu":
        from ._turner_model import TurnerModel
        from ._turner_pf_long_gpu import goes_long

        if isinstance(model, TurnerModel) and not any(goes_long(len(c)) for c in codes):
            from ._turner_pf_gpu import partition

            batch = partition(codes, model, cutoff=0.0)       # every non-zero probability, as partition_gpu
            return batch.log_z.tolist(), (batch.offsets, batch.i, batch.j, batch.p)
        parts = model.partition_gpu(codes, True)
    else:
        with using_threads(call.threads):
            parts = model.partition_cpu(codes, True)
    return [float(z) for z, _ in parts], _sparse([P for _, P in parts])


def _fold(call, codes):
    from ..runtime.parallel import threads as using_threads

    model = call.params
    if call.backend == "gpu":
        return model.fold_gpu(codes, call.variant, True)
    with using_threads(call.threads):
        return model.fold_cpu(codes, call.variant, True)


def _brackets(pair_to, starts):
    """Each record's dot-bracket from the flat partners (local, -1 unpaired)."""
    local = np.arange(len(pair_to)) - np.repeat(starts[:-1], np.diff(starts))
    chars = np.full(len(pair_to), ord("."), np.uint8)
    chars[(pair_to >= 0) & (pair_to > local)] = ord("(")
    chars[(pair_to >= 0) & (pair_to < local)] = ord(")")
    text = chars.tobytes().decode("ascii")
    return [text[a:b] for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]


def _units(model, chunk, starts, c_to, m_to):
    """The centroid's and the MEA's units (model.evaluate's), in one parallel call for Turner models."""
    from ._turner_model import TurnerModel

    if isinstance(model, TurnerModel) and len(chunk):
        from ._ensemble_energy import structure_energies

        codes = np.concatenate([r.codes for r in chunk])
        return structure_energies(model, codes, starts, c_to, m_to)
    pieces = [(a, b) for a, b in zip(starts[:-1].tolist(), starts[1:].tolist())]
    return ([model.evaluate(r.codes, c_to[a:b]) for r, (a, b) in zip(chunk, pieces)],
            [model.evaluate(r.codes, m_to[a:b]) for r, (a, b) in zip(chunk, pieces)])


def chunk_of(call, chunk) -> EnsembleChunk:
    """The :class:`EnsembleChunk` of records (runtime.contract records) under a checked call."""
    codes = [r.codes for r in chunk]
    folded = _fold(call, codes)
    log_z, pairs = _partition(call, codes)
    return chunk_from(call, chunk, folded, log_z, pairs)


def chunk_from(call, chunk, folded, log_z, pairs) -> EnsembleChunk:
    """The :class:`EnsembleChunk` of records from their optima ``folded`` ([(units, pair_to)]), ``log_z``
    and pair lists ``pairs`` = (offsets, i, j, p): every non-zero probability, row-major per record."""
    from ._ensemble_sparse import SYMBOLS, derive_sparse

    model = call.params
    offsets, i, j, p = pairs
    codes = [r.codes for r in chunk]
    lengths = np.fromiter(map(len, codes), np.int64, len(codes))
    starts = np.zeros(len(codes) + 1, np.int64)
    np.cumsum(lengths, out=starts[1:])
    diversity, c_to, c_dist, m_to, m_acc, line, ok = derive_sparse(lengths, offsets, i, j, p)
    if not ok.all():
        raise ArithmeticError("MEA traceback found no case")
    c_units, m_units = _units(model, chunk, starts, c_to, m_to)
    mfe_to = np.concatenate([np.asarray(t, np.int64) for _, t in folded] + [np.zeros(0, np.int64)])
    lines = np.frombuffer(SYMBOLS, np.uint8)[line].tobytes().decode("ascii")
    columns = zip(chunk, log_z, folded, _brackets(mfe_to, starts), diversity.tolist(), _brackets(c_to, starts),
                  c_dist.tolist(), _brackets(m_to, starts), m_acc.tolist(), starts[:-1].tolist(),
                  starts[1:].tolist(), c_units, m_units)
    results = [assemble(r, model, z, units, s, (d, c, cd, m, ma, lines[a:b], int(cu), int(mu)), call.backend)
               for r, z, (units, _), s, d, c, cd, m, ma, a, b, cu, mu in columns]
    return EnsembleChunk(results, np.asarray(offsets, np.int64), i, j, p)


def iter_ensemble_chunks(sequences: Sequences, *, params=None, backend: str = "cpu",
                         threads: int = 0) -> Iterator[EnsembleChunk]:
    """:func:`~bioaccel.fold.iter_ensemble`'s results by chunks of records (:class:`EnsembleChunk`, in input
    order), each computed at once: the bulk form for many records (keywords checked here).

    >>> [len(c) for c in iter_ensemble_chunks(["GGGGAAACCCC"] * 3)]
    [3]
    """
    call = check_ensemble(params, backend=backend, threads=threads)
    return _chunks(call, records(sequences))


def _chunks(call, stream):
    most_work, most_count = (GPU_CHUNK_WORK, GPU_BULK_COUNT) if call.backend == "gpu" else (CHUNK_WORK, CHUNK_COUNT)
    chunk, work = [], 0.0
    for record in stream:
        check_ensemble_sizes([len(record)], call.params, call.backend)
        chunk.append(record)
        work += float(len(record)) ** 3
        if work >= most_work or len(chunk) >= most_count:
            yield chunk_of(call, chunk)
            chunk, work = [], 0.0
    if chunk:
        yield chunk_of(call, chunk)
