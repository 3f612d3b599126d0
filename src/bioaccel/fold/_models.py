"""The folding models: what a model must provide (:class:`FoldModel`) and the registry of those there
are (:data:`MODELS`). Pure data: the command line lists the models and their variants without
importing Numba; a model's class is imported when it is first used.

>>> MODELS.names(), MODELS.default.name
(('turner2004', 'nussinov'), 'turner2004')
>>> MODELS["nussinov"].variants.resolve(None, "cpu")
'tiled'
>>> MODELS.model_class("nussinov").__name__
'FoldParams'
"""
import functools
import importlib
from dataclasses import dataclass
from typing import ClassVar, Protocol, runtime_checkable

from ..errors import InvalidParameter
from ..runtime.registry import BACKENDS, VariantRegistry
from ._variants import TURNER_VARIANTS, VARIANTS


@runtime_checkable
class FoldModel(Protocol):
    """What the folding pipeline (:func:`bioaccel.fold.fold`, its ``client=`` and the command line's
    batches, the writers) asks of a model object. Values are exact integers ("units": weighted pairs
    times ``unit`` for Nussinov, dcal/mol for an energy model) until :meth:`result_values` turns them
    into what a :class:`~bioaccel.fold.FoldResult` shows.

    >>> from bioaccel.fold import TurnerModel
    >>> isinstance(TurnerModel(), FoldModel), isinstance("GGGAAAUCC", FoldModel)
    (True, False)
    """

    #: the model's name in :data:`MODELS` and in ``FoldResult.model``
    name: ClassVar[str]
    #: its algorithms, on each backend
    variants: ClassVar[VariantRegistry]
    #: the fields ``--format json`` writes, in order
    json_columns: ClassVar[tuple]

    @classmethod
    def from_options(cls, options: dict) -> "FoldModel":
        """The model from the fold command's model options that were given (``min_loop``, ``au``,
        ``gc``, ``gu``, ``no_gu``, ...); InvalidParameter for one it does not take."""

    def result_values(self, units: int) -> dict:
        """The FoldResult fields of an optimum of ``units``: its value (``score`` or ``energy``) and
        the model's own (``min_loop``)."""

    @staticmethod
    def vienna_value(result) -> str:
        """What RNAfold's layout shows between the brackets after the structure (``" 3"``, ``"-1.20"``)."""

    @staticmethod
    def ct_header(result) -> str:
        """The first line of the result's block in the connect (ct) format."""

    def check_sizes(self, lengths, variant: str, *, backend: str) -> None:
        """Refuse (ResourceError, InvalidParameter) sequences of these lengths that cannot be folded,
        before any is."""

    def estimate_seconds(self, lengths, variant: str, *, backend: str, threads: int) -> float:
        """A rough time for folding sequences of these lengths."""

    def one_per_core(self, n: int, variant: str) -> bool:
        """Whether an n-long sequence is folded on one core beside others (else alone on every core)."""

    def fold_cpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(units, pair_to or None)]`` of each sequence (uint8 codes) on the CPU, in the thread count
        the caller set; ``pair_to[i]`` is the 0-based partner of i, -1 unpaired."""

    def fold_gpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """The same on the GPU."""

    def partition_cpu(self, codes_list: list, want_bpp: bool) -> list:
        """``[(log_z, bpp)]`` of each sequence on the CPU: the natural log of the partition function (the
        sum of :meth:`log_weight`'s weights over every structure) and, when ``want_bpp``, the (n, n)
        float64 base-pair probabilities (P[i, j] for i < j, 0-based, zero elsewhere), else None."""

    def log_weight(self, units: int) -> float:
        """The natural log of the Boltzmann weight of a structure of value ``units`` (Turner: ``-units /
        (10 kT)`` with kT in kcal/mol)."""

    def evaluate(self, codes, pair_to) -> int:
        """The value in units of the given structure ``pair_to`` on ``codes`` (InputError when the model
        does not allow it: a pair it cannot form, a hairpin too short)."""


@dataclass(frozen=True)
class ModelEntry:
    """A model of the registry: ``name``, its class as ``"module:Class"`` (imported on first use), a
    one-line ``description`` and its ``variants`` registry (pure data, read without the class)."""

    name: str
    path: str
    description: str
    variants: VariantRegistry

    def load(self) -> type:
        """The model's class."""
        return _load_class(self.path)


@functools.cache                            # the writers ask for every result
def _load_class(path: str) -> type:
    module, _, name = path.partition(":")
    return getattr(importlib.import_module(module), name)


class ModelRegistry:
    """The folding models by name; the first is the default (``params=None``)."""

    def __init__(self, entries):
        self.entries = {entry.name: entry for entry in entries}

    def names(self) -> tuple:
        return tuple(self.entries)

    @property
    def default(self) -> ModelEntry:
        return next(iter(self.entries.values()))

    def __getitem__(self, name) -> ModelEntry:
        if name not in self.entries:
            raise InvalidParameter(f"unknown folding model {name!r}; choose one of {', '.join(self.entries)}")
        return self.entries[name]

    def model_class(self, name: str) -> type:
        """The class of the model called ``name``."""
        return self[name].load()

    def classes(self) -> tuple:
        """Every model's class, the default's first (what ``params`` may be)."""
        return tuple(entry.load() for entry in self.entries.values())

    def backends(self) -> tuple:
        """The backends on which some model has a variant."""
        return tuple(b for b in BACKENDS if any(b in v.backends for e in self.entries.values() for v in e.variants))

    def variant_help(self) -> str:
        """``--variant``'s help: the one model's, or each model's in turn."""
        if len(self.entries) == 1:
            return self.default.variants.help()
        return "; ".join(f"{e.name}: {e.variants.help()}" for e in self.entries.values())

    def variant_table(self) -> str:
        """What ``--list-variants`` prints: the one model's table, or each model's under its name."""
        if len(self.entries) == 1:
            return self.default.variants.table()
        return "\n\n".join(f"{e.name}:\n{e.variants.table()}" for e in self.entries.values())

    def table(self) -> str:
        """What ``--list-models`` prints.

        >>> [line.split()[0] for line in MODELS.table().splitlines()]
        ['model', 'turner2004', 'nussinov']
        """
        rows = [("model", "variants", "description")]
        rows += [(e.name, ", ".join(e.variants.variants), e.description) for e in self.entries.values()]
        widths = [max(len(r[c]) for r in rows) for c in range(2)]
        return "\n".join(f"{r[0].ljust(widths[0])}  {r[1].ljust(widths[1])}  {r[2]}" for r in rows)


#: The folding models. A model plugs in with an entry here and a class providing :class:`FoldModel`.
#: The first is the default: the minimum free energy, which a newcomer from RNAfold expects.
MODELS = ModelRegistry([
    ModelEntry("turner2004", "bioaccel.fold._turner_model:TurnerModel",
               "minimum free energy, Turner 2004 parameters, exactly as ViennaRNA's RNAfold (Zuker)",
               TURNER_VARIANTS),
    ModelEntry("nussinov", "bioaccel.fold._model:FoldParams",
               "the most weighted base pairs (Nussinov)", VARIANTS),
])
