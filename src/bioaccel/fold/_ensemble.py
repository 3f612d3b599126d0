"""The Boltzmann ensemble of each sequence (RNAfold -p): :func:`ensemble` / :func:`iter_ensemble` return an
:class:`EnsembleResult` per sequence, for any model that provides ``partition_cpu`` and ``log_weight``
(:class:`~bioaccel.fold._models.FoldModel`) besides its fold.

>>> r = ensemble("GGGGAAACCCC")[0]
>>> r.structure, r.energy, round(r.ensemble_energy, 2), r.centroid, r.mea
('((((...))))', -4.5, -4.87, '((((...))))', '((((...))))')
>>> round(r.mfe_frequency, 3), round(r.ensemble_diversity, 2), r.ensemble_line, r.bpp.shape
(0.546, 3.53, '((({...)))}', (11, 11))
"""
import functools
import math
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from ..errors import InvalidParameter
from ..results.rows import Result, hidden
from ..runtime.contract import Sequences, records
from ..runtime.memory import require_memory

#: bytes per n^2 the partition function's tables take (six n x n float64), for the refusal up front
TABLE_BYTES_PER_CELL = 48
#: host bytes per n^2 with the GPU's partition function: the probabilities (float64; the derived
#: structures take O(n + pairs) beyond them, fold/_ensemble_derived_cpu.py)
HOST_BYTES_PER_CELL_GPU = 8


@dataclass(frozen=True)
class EnsembleResult(Result):
    """The ensemble of one sequence under ``model``.

    ``log_z``: the natural log of the partition function Z (Z = sum over structures of
    ``model.log_weight``'s weights; the unfolded chain weighs 1). ``ensemble_energy``: -kT ln Z in
    kcal/mol (energy models; None otherwise). ``structure`` and ``energy`` (or ``score``): the optimum and
    its value, as :func:`~bioaccel.fold.fold` gives them; ``mfe_frequency``: its Boltzmann probability (an energy model: from the MFE as a
    single-precision float, as RNAfold prints it; log_weight is taken to be linear in units).
    ``ensemble_diversity``: the mean base-pair distance of two structures of the ensemble.
    ``centroid`` (pairs of probability above 0.5), ``centroid_energy`` (its free energy in kcal/mol, energy
    models) or ``centroid_score`` (its weighted pair count, score models) and ``centroid_distance`` (its
    expected distance to the ensemble); ``mea``, ``mea_energy`` or ``mea_score``, and ``mea_accuracy``:
    ViennaRNA's maximum expected accuracy
    structure (gamma 1). ``bpp``: the n x n probabilities, P[i, j] for i < j (0-based); ``ensemble_line``:
    RNAfold -p's pseudo-bracket summary of them.

    >>> r = ensemble("GGGGAAACCCC")[0]
    >>> r.length, r.to_dict()["ensemble_line"], "score" in r.to_dict()
    (11, '((({...)))}', False)
    """

    DERIVED = ("length",)

    id: str
    sequence: str
    model: str
    log_z: float
    ensemble_energy: "float | None"
    structure: str
    energy: "float | None"
    score: "float | None"
    mfe_frequency: float
    ensemble_diversity: float
    centroid: str
    centroid_energy: "float | None"
    centroid_score: "float | None"
    centroid_distance: float
    mea: str
    mea_energy: "float | None"
    mea_score: "float | None"
    mea_accuracy: float
    ensemble_line: str
    backend: str = "cpu"
    bpp: "np.ndarray | None" = hidden(default=None, repr=False)
    pair_to: "np.ndarray | None" = hidden(default=None, repr=False)
    description: str = hidden(default="")

    @property
    def length(self) -> int:
        return len(self.sequence)

    def to_dict(self) -> dict:
        row = super().to_dict()
        for name in VALUE_FIELDS:
            if row[name] is None:
                del row[name]
        return row

    def pairs_above(self, threshold: float = 1e-5) -> list:
        """``[(i, j, p)]``, 1-based, i < j, every pair of probability at least ``threshold``, by i then j.

        >>> ensemble("GGGGAAACCCC")[0].pairs_above(0.5)[0][:2]
        (1, 11)
        """
        i, j = np.nonzero(self.bpp >= threshold)
        return [(a + 1, b + 1, float(self.bpp[a, b])) for a, b in zip(i.tolist(), j.tolist())]


#: the value fields of which a model has either the energy (kcal/mol) or the score: dropped from
#: ``to_dict`` where None
VALUE_FIELDS = ("energy", "score", "ensemble_energy", "centroid_energy", "centroid_score", "mea_energy",
                "mea_score")


def _value(model, units):
    """The model's value of ``units`` (its result_values' first field) and whether it is an energy."""
    values = model.result_values(units)
    name = "energy" if "energy" in values else "score"
    return values[name], name == "energy"


def ensemble_of(record, model, log_z, P, mfe_units, pair_to, backend="cpu") -> EnsembleResult:
    """The EnsembleResult of one record from its partition function and its optimum."""
    from ._ensemble_derived import centroid, ensemble_diversity, mea, pseudo_bracket
    from ._traceback import dot_bracket

    c_pairs, c_dist = centroid(P)
    m_pairs, m_acc = mea(P)
    derived = (ensemble_diversity(P), dot_bracket(c_pairs), c_dist, dot_bracket(m_pairs), m_acc,
               pseudo_bracket(P), model.evaluate(record.codes, c_pairs), model.evaluate(record.codes, m_pairs))
    return assemble(record, model, log_z, mfe_units, dot_bracket(pair_to), derived, backend, P, pair_to)


def assemble(record, model, log_z, mfe_units, structure, derived, backend="cpu", P=None,
             pair_to=None) -> EnsembleResult:
    """The EnsembleResult of one record from its ln Z, its optimum (units, dot-bracket) and ``derived``:
    (diversity, centroid, centroid distance, MEA, MEA accuracy, ensemble line, the centroid's and the
    MEA's units), the structures as dot-brackets."""
    diversity, c_text, c_dist, m_text, m_acc, line, c_units, m_units = derived
    value, is_energy = _value(model, mfe_units)
    ensemble_energy = None
    if is_energy:
        per_unit = _value(model, 100)[0] / 100
        # -ln Z / ln(weight of one unit) is the ensemble's value in units; result_values is linear
        ensemble_energy = float(log_z / model.log_weight(1) * per_unit) if len(record) else 0.0
        # RNAfold's frequency: from its MFE as a single-precision float (its printed digits)
        mfe_units = float(np.float32(value)) / per_unit
    frequency = math.exp(model.log_weight(1) * mfe_units - log_z)
    c_value = _value(model, c_units)[0]
    m_value = _value(model, m_units)[0]
    return EnsembleResult(
        id=record.id, sequence=record.sequence, description=record.description, model=model.name,
        log_z=float(log_z), ensemble_energy=ensemble_energy, structure=structure,
        energy=value if is_energy else None, score=None if is_energy else value, mfe_frequency=frequency,
        ensemble_diversity=float(diversity), centroid=c_text,
        centroid_energy=c_value if is_energy else None, centroid_score=None if is_energy else c_value,
        centroid_distance=float(c_dist), mea=m_text, mea_energy=m_value if is_energy else None,
        mea_score=None if is_energy else m_value,
        mea_accuracy=float(m_acc), ensemble_line=line, backend=backend, bpp=P, pair_to=pair_to)


def check_ensemble(params=None, *, backend: str = "cpu", threads: int = 0):
    """The checked keywords (a :class:`~bioaccel.runtime.contract.Call`): the model must have a
    partition function on that backend ("cpu", or "gpu": the Turner model's, with a GPU here).

    >>> check_ensemble(backend="tpu")
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: backend must be 'cpu' or 'gpu', got 'tpu'
    """
    from ._api import check_fold

    if backend not in ("cpu", "gpu"):
        raise InvalidParameter(f"backend must be 'cpu' or 'gpu', got {backend!r}")
    call = check_fold(params, backend=backend, threads=threads)
    if not hasattr(call.params, "partition_cpu"):
        raise InvalidParameter(f"the {call.params.name} model has no partition function")
    if backend == "gpu" and not hasattr(call.params, "partition_gpu"):
        raise InvalidParameter(f"the {call.params.name} model's partition function runs on the CPU only "
                               "(backend='cpu')")
    return call


def check_ensemble_sizes(lengths, model=None, backend: str = "cpu") -> None:
    """Refuse, before any is computed, a longest sequence whose tables will not fit (ResourceError): on
    the CPU its tables, on the GPU the probabilities and the MEA's table in host memory and the model's
    device tables (``model.check_partition_gpu``).

    >>> check_ensemble_sizes([100, 2_000])
    >>> check_ensemble_sizes([10_000_000])
    Traceback (most recent call last):
    ...
    bioaccel.errors.ResourceError: the partition function of a sequence of length 10,000,000 needs about ...
    """
    if not lengths:
        return
    n = max(lengths)
    per_cell = TABLE_BYTES_PER_CELL if backend == "cpu" else HOST_BYTES_PER_CELL_GPU
    require_memory(per_cell * n * n, f"the partition function of a sequence of length {n:,}",
                   "fold shorter pieces (a window), or on a machine with more memory")
    if backend == "gpu" and hasattr(model, "check_partition_gpu"):
        model.check_partition_gpu(lengths)


def iter_ensemble(sequences: Sequences, *, params=None, backend: str = "cpu",
                  threads: int = 0) -> Iterator[EnsembleResult]:
    """Like :func:`ensemble`, yielding each result in input order as soon as it is ready (keywords
    checked here, before any sequence is read).

    >>> next(iter_ensemble(["GGGGAAACCCC"])).centroid_distance < 3
    True
    """
    call = check_ensemble(params, backend=backend, threads=threads)
    return _results(call, records(sequences))


#: records computed together (one per core) once they hold this much work (sum of n^3) or this many
CHUNK_WORK, CHUNK_COUNT = 2e9, 256
#: the same for the GPU batch (one launch: enough to fill the GPU; the dense P of each is kept until written)
GPU_CHUNK_WORK, GPU_CHUNK_COUNT = 2e11, 2048


def _results(call, stream):
    from ..runtime.parallel import threads as using_threads

    model = call.params
    chunk, work = [], 0.0
    gpu = call.backend == "gpu"
    most_work, most_count = (GPU_CHUNK_WORK, GPU_CHUNK_COUNT) if gpu else (CHUNK_WORK, CHUNK_COUNT)

    def flush():
        codes = [r.codes for r in chunk]
        if call.backend == "gpu":
            folded = model.fold_gpu(codes, call.variant, True)
            parts = model.partition_gpu(codes, True)
        else:
            with using_threads(call.threads):
                folded = model.fold_cpu(codes, call.variant, True)
                parts = model.partition_cpu(codes, True)
        made = [ensemble_of(r, model, log_z, P, units, pair_to, call.backend)
                for r, (units, pair_to), (log_z, P) in zip(chunk, folded, parts)]
        chunk.clear()
        return made

    for record in stream:
        check_ensemble_sizes([len(record)], model, call.backend)
        chunk.append(record)
        work += float(len(record)) ** 3
        if work >= most_work or len(chunk) >= most_count:
            yield from flush()
            work = 0.0
    if chunk:
        yield from flush()


def ensemble(sequences: Sequences, *, params=None, backend: str = "cpu", threads: int = 0,
             client=None) -> "list[EnsembleResult]":
    """The Boltzmann ensemble of each sequence under the model ``params`` (default the Turner 2004
    model, as RNAfold -p): a list of :class:`EnsembleResult` in input order. ``sequences``: as for
    :func:`~bioaccel.fold.fold`; ``backend``: "cpu" or "gpu" (the Turner 2004 model: many RNAs of up to
    4,000 nt per launch, longer ones one at a time over the whole GPU; FP64, the CPU's numbers within
    1e-10 relative in ln Z and 1e-9 in every probability); ``threads``: CPU threads (0 = all cores);
    ``client``: compute on a Dask cluster instead (a ``dask.distributed.Client``, a scheduler's address, or
    "local"), the work of :func:`ensemble_work`.

    >>> [r.centroid for r in ensemble(["GGGGAAACCCC", "AAAA"])]
    ['((((...))))', '....']
    """
    if client is not None:
        from ..distribution.work import run_work

        return run_work(ensemble_work(sequences, params=params, backend=backend, threads=threads), client)
    return list(iter_ensemble(sequences, params=params, backend=backend, threads=threads))


def ensemble_work(sequences: Sequences, *, params=None, backend: str = "cpu", threads: int = 0):
    """The ensembles of ``sequences`` as a batch (:class:`~bioaccel.distribution.work.Work`): one item per
    record, costing n^3, labelled ``record 'id'``; its function computes a list of records where it runs
    with :func:`iter_ensemble`, the in-process path's code. ``client=`` runs it.

    >>> work = ensemble_work(["GGGGAAACCCC", ("x", "GC")])
    >>> [item.label for item in work.items], [r.centroid for r in work.function([i.payload for i in work.items])]
    (["record 'seq1'", "record 'x'"], ['((((...))))', '..'])
    """
    from ..distribution.batch import Item
    from ..distribution.work import Work

    call = check_ensemble(params, backend=backend, threads=threads)
    items = [Item(key, f"record {record.id!r}", float(len(record)) ** 3 + 1.0, record)
             for key, record in enumerate(records(sequences))]
    # the workers compute on the same backend: a GPU batch goes to GPU workers only
    return Work(items, functools.partial(ensemble_payloads, params=call.params, backend=backend, threads=threads),
                gpu=backend == "gpu")


def ensemble_payloads(payloads: list, **options) -> "list[EnsembleResult]":
    """The worker function of :func:`ensemble_work`: the EnsembleResult of each record of ``payloads``.

    >>> ensemble_payloads(["GGGGAAACCCC"])[0].structure
    '((((...))))'
    """
    return list(iter_ensemble(payloads, **options))
