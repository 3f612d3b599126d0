"""The Turner 2004 free-energy model: its options (temperature, no lonely pairs, no GU) and what the fold
pipeline asks of a model (:class:`bioaccel.fold._models.FoldModel`).

ViennaRNA's RNAfold with default options is the reference: dangles 2, special hairpins on, interior
loops of at most 30 unpaired bases, no G-quadruplexes, linear sequences. Energies are integers in
dcal/mol (-3.40 kcal/mol is -340).

The tables at a temperature, and how they are rescaled, are in :mod:`._turner_tables`.

>>> model = TurnerModel()
>>> model.name, model.temperature, model.no_lp, model.no_gu
('turner2004', 37.0, False, False)
>>> tables = model.tables()
>>> int(tables.stack[1, 2]), tables.terminal_au, tables.ml_closing
(-330, 50, 930)
>>> int(TurnerModel(temperature=50).tables().stack[1, 2])
-287
>>> TurnerModel(temperature=float("nan"))
Traceback (most recent call last):
...
bioaccel.errors.InvalidParameter: temperature must be a number from -273.15 to 200 (Celsius), got nan
"""
import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import InvalidParameter
from ._turner_tables import MAX_TEMPERATURE, MIN_TEMPERATURE, kernel_tables_at, tables_at
from ._variants import TURNER_VARIANTS


def _is_real(value):
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))


#: Below this many cubed bases in all (three RNAs of 230 nt: well under 0.1 s on one core) several sequences
#: are folded one after another on the calling thread rather than one per core.
SERIAL_WORK = 40_000_000

@dataclass(frozen=True)
class TurnerModel:
    """Turner 2004 minimum free energy with ViennaRNA's default options (dangles 2).

    ``temperature`` in Celsius (-273.15 to 200); ``no_lp`` forbids isolated base pairs (helices of one
    pair), as RNAfold --noLP; ``no_gu`` forbids GU pairs, as RNAfold --noGU.

    >>> TurnerModel(no_lp=1)
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: no_lp must be True or False, got 1
    """

    temperature: float = 37.0
    no_lp: bool = False
    no_gu: bool = False
    name: ClassVar[str] = "turner2004"
    variants: ClassVar = TURNER_VARIANTS
    json_columns: ClassVar[tuple] = ("id", "description", "sequence", "structure", "energy", "length", "pairs",
                                     "variant", "backend")

    def __post_init__(self):
        t = self.temperature
        if not _is_real(t) or math.isnan(t) or not MIN_TEMPERATURE <= t <= MAX_TEMPERATURE:
            raise InvalidParameter(f"temperature must be a number from -273.15 to 200 (Celsius), got {t!r}")
        object.__setattr__(self, "temperature", float(t))
        for name in ("no_lp", "no_gu"):
            value = getattr(self, name)
            if not isinstance(value, (bool, np.bool_)):
                raise InvalidParameter(f"{name} must be True or False, got {value!r}")
            object.__setattr__(self, name, bool(value))

    def tables(self):
        """The :data:`EnergyTables` at this model's temperature (cached per temperature; read-only)."""
        return tables_at(self.temperature, self.no_gu)

    def kernel_tables(self):
        """``(E, lxc)``: the flat int32 tables the Numba kernels read (see :func:`kernel_tables`; cached)
        and the loop-extrapolation factor at this temperature."""
        return kernel_tables_at(self.temperature, self.no_gu)

    # --- what the folding pipeline asks of a model (bioaccel.fold._models.FoldModel) ---

    @classmethod
    def from_options(cls, options: dict) -> "TurnerModel":
        """The model from the fold command's options that were given: ``temperature``, ``no_lp``,
        ``no_gu``.

        >>> TurnerModel.from_options({"temperature": 25.0, "no_lp": True})
        TurnerModel(temperature=25.0, no_lp=True, no_gu=False)
        """
        unknown = sorted(set(options) - {"temperature", "no_lp", "no_gu"})
        if unknown:
            raise InvalidParameter(f"the {cls.name} model has no option {', '.join(unknown)} (a Nussinov option: "
                                   "add --model nussinov)")
        return cls(**options)

    def result_values(self, units: int) -> dict:
        """The FoldResult fields of a minimum of ``units`` dcal/mol: its energy in kcal/mol.

        >>> TurnerModel().result_values(-340)
        {'energy': -3.4}
        """
        return {"energy": int(units) / 100}

    @staticmethod
    def vienna_value(result) -> str:
        """The energy as RNAfold prints it (``%6.2f``).

        >>> TurnerModel.vienna_value(type("R", (), {"energy": -29.9})())
        '-29.90'
        """
        return f"{result.energy:6.2f}"

    @staticmethod
    def ct_header(result) -> str:
        """``length  ENERGY = e  id``, as ViennaRNA and mfold write a connect file."""
        return f"{result.length:5d}  ENERGY = {result.energy:6.2f}  {result.id}"

    def check_sizes(self, lengths, variant: str, *, backend: str = "cpu") -> None:
        """Refuse, before any is folded, sequences whose longest will not fit (:mod:`._turner_cost`; on
        the GPU, the tiled fill's memory: :func:`._turner_tiled_gpu.check_lengths`)."""
        if backend == "gpu":
            from ._turner_tiled_gpu import check_lengths

            return check_lengths(lengths, variant)
        from ._turner_cost import check_sizes

        check_sizes(lengths)

    def estimate_seconds(self, lengths, variant: str, *, backend: str = "cpu", threads: int = 0) -> float:
        """A rough time for these lengths (:mod:`._turner_cost`; :func:`._turner_tiled_gpu.estimate_seconds`)."""
        if backend == "gpu":
            from ._turner_tiled_gpu import estimate_seconds

            return estimate_seconds(lengths, variant)
        from ._turner_cost import estimate_seconds

        return estimate_seconds(lengths, threads=threads)

    def one_per_core(self, n: int, variant: str) -> bool:
        """Sequences below the length where one fill gains from every core are folded one per core."""
        from ._turner_cpu import PARALLEL_LENGTH

        return n < PARALLEL_LENGTH

    def fold_gpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(energy in dcal/mol, pair_to or None)]`` of each sequence on the GPU: many short ones per
        launch, one thread block each (:mod:`._turner_gpu`, variant ``batch``), longer than it takes (or
        with variant ``tiled``) one at a time over the whole GPU (:mod:`._turner_tiled_gpu`); the same
        energies and structures as :meth:`fold_cpu`."""
        from ._turner_tiled_gpu import fold

        return fold(codes_list, self, variant, traceback)

    def evaluate(self, codes, pair_to) -> int:
        """The free energy (dcal/mol) of the structure ``pair_to`` on ``codes``
        (:func:`._turner_energy.eval_structure`)."""
        from ._turner_energy import eval_structure

        return eval_structure(codes, pair_to, self)

    def fold_cpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(energy in dcal/mol, pair_to)]`` of each sequence on the CPU: a lone one by the tiled fill on
        every core, several one per core (the traceback costs a fraction of the fill, so it is always
        made)."""
        from ._turner_cpu import mfe, mfe_many

        if len(codes_list) == 1:
            return [mfe(codes_list[0], self)]
        if sum(len(c) ** 3 for c in codes_list) <= SERIAL_WORK:
            # a few short RNAs: on this thread, where loading (or first compiling) the parallel kernel
            # and its threads costs more than the fold
            return [mfe(c, self, parallel=False) for c in codes_list]
        return mfe_many(codes_list, self)

    def partition_cpu(self, codes_list: list, want_bpp: bool) -> list:
        """``[(ln Z, P or None)]`` of each sequence: McCaskill's partition function as RNAfold -p computes
        it (:mod:`._turner_pf_cpu`), P the n x n base-pair probabilities (upper triangle, 0-based); several
        sequences one per core."""
        from ._turner_pf_cpu import partition_many

        return partition_many(codes_list, self, want_bpp=want_bpp)

    def partition_gpu(self, codes_list: list, want_bpp: bool) -> list:
        """``[(ln Z, P or None)]`` of each sequence on the GPU, FP64, the CPU's numbers within rounding:
        sequences up to :data:`._turner_pf_long_gpu.LONG_LENGTH` many per launch, one thread block each
        (:mod:`._turner_pf_gpu`, variant ``batch``), longer ones one at a time over the whole GPU
        (:mod:`._turner_pf_long_gpu`, variant ``tiled``; :func:`._turner_pf_long_gpu.goes_long`)."""
        from ._turner_pf_gpu import partition_many

        return partition_many(codes_list, self, want_bpp=want_bpp)

    def check_partition_gpu(self, lengths) -> None:
        """Refuse (ResourceError), where a GPU is here, sequences whose partition function will not fit
        its free memory: the batch's (:func:`._turner_pf_gpu.check_batch`) and the long path's
        (:func:`._turner_pf_long_gpu.check_lengths`)."""
        from ._turner_pf_gpu import check_batch
        from ._turner_pf_long_gpu import check_lengths, goes_long

        check_batch(lengths)
        check_lengths([n for n in lengths if goes_long(n)])

    def log_weight(self, units: int) -> float:
        """The natural log of the Boltzmann weight of a structure of ``units`` dcal/mol at this
        temperature: ``-units * 10 / kT``, kT in cal/mol as ViennaRNA's.

        >>> round(TurnerModel().log_weight(-450), 6)
        7.301393
        """
        from ._turner_pf_params import kt_cal

        return -int(units) * 10.0 / kt_cal(self.temperature)
