"""The Nussinov model shared by every backend (and by BPMax's single-strand tables): :class:`FoldParams`,
a folding model as :class:`~bioaccel.fold._models.FoldModel` describes one.

The recurrence (Chang et al.'s form, Li, Ranka & Sahni's equation 3, with a minimum hairpin loop), for
the optimal weighted number of base pairs ``C(i, j)`` of the interval ``[i, j]`` (0-based, closed)::

    C(i, j) = 0                                            if j <= i
    C(i, j) = max( C(i+1, j-1) + w(s[i], s[j])             if (i, j) may pair,
                   max_{i <= k < j} C(i, k) + C(k+1, j) )

``(i, j)`` may pair when ``w(s[i], s[j]) > 0`` and ``j - i - 1 >= min_loop`` (at least ``min_loop``
unpaired bases inside). ``min_loop=1`` is exactly Chang et al.'s recurrence as Li, Ranka & Sahni use
it; 3 is ViennaRNA's rule. Weights are held as exact integers: every weight is multiplied by ``unit``,
the smallest integer making them all whole, and a score is ``table value / unit``.
"""
import functools
import math
from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from ..errors import InvalidParameter
from ..inputs.alphabet import A, C, G, U
from ..results.values import format_number, shown
from ..runtime.registry import VariantRegistry
from ._variants import VARIANTS

_PAIRS = {"AU": ((A, U), (U, A)), "GC": ((G, C), (C, G)), "GU": ((G, U), (U, G))}
MAX_WEIGHT = 1000        # in units of the largest weight, tables of 100,000 nt stay within int32
MAX_MIN_LOOP = 1_000_000


@dataclass(frozen=True)
class FoldParams:
    """Allowed pairs, their weights and the minimum hairpin loop.

    ``gu=0`` (or ``None``) drops GU pairs; a weight must be positive or zero (zero: never pairs).
    Weights may be fractions such as 1.5; they must be multiples of ``1/unit`` for some unit <= 1000.

    >>> int(FoldParams(au=2, gc=3, gu=1.5).pair_table()[2, 1]), FoldParams(au=2, gc=3, gu=1.5).unit
    (6, 2)
    >>> FoldParams(au=float("nan"))
    Traceback (most recent call last):
    ...
    bioaccel.errors.InvalidParameter: pair weight AU must be a finite number >= 0, got nan
    """

    min_loop: int = 3
    au: float = 1
    gc: float = 1
    gu: float = 1

    name: ClassVar[str] = "nussinov"
    variants: ClassVar[VariantRegistry] = VARIANTS
    json_columns: ClassVar[tuple] = ("id", "description", "sequence", "structure", "score", "length", "min_loop",
                                     "pairs", "variant", "backend")

    def __post_init__(self):
        if isinstance(self.min_loop, bool) or not isinstance(self.min_loop, (int, np.integer)) \
                or not 0 <= self.min_loop <= MAX_MIN_LOOP:
            raise InvalidParameter(f"min_loop must be a whole number from 0 to {MAX_MIN_LOOP:,}, "
                                   f"got {shown(self.min_loop)}")
        for name in ("au", "gc", "gu"):
            value = getattr(self, name)
            if value is None:
                object.__setattr__(self, name, 0)
                continue
            if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)) \
                    or not math.isfinite(value) or value < 0:
                raise InvalidParameter(f"pair weight {name.upper()} must be a finite number >= 0, got {shown(value)}")
            if value > MAX_WEIGHT:
                raise InvalidParameter(f"pair weight {name.upper()} must be at most {MAX_WEIGHT:,}, got {shown(value)}")
        self.unit  # validates that the weights are exact

    @classmethod
    def bpmax(cls, au=1.0, gu=1.5):
        """The BPMax single-strand model: GC=3, AU and GU as given, hairpins of at least 3.

        >>> FoldParams.bpmax().gc
        3
        """
        return cls(min_loop=3, au=au, gc=3, gu=gu)

    @property
    def weights(self):
        """The three pair weights by name."""
        return {"AU": self.au, "GC": self.gc, "GU": self.gu}

    @functools.cached_property              # asked for each result: a fraction search each time otherwise
    def unit(self):
        """Smallest positive integer that makes every weight a whole number.

        >>> FoldParams(au=1.5, gu=0.25).unit
        4
        """
        unit = 1
        for name, value in self.weights.items():
            frac = Fraction(value).limit_denominator(1000)
            if abs(float(frac) - float(value)) > 1e-12:
                raise InvalidParameter(f"pair weight {name}={value} is not a fraction with denominator <= 1000")
            unit = unit * frac.denominator // np.gcd(unit, frac.denominator)
        return int(unit)

    def pair_table(self):
        """5 x 5 int32 table over codes (A, C, G, U, other) of pair weights in units; 0 = no pair.

        >>> int(FoldParams().pair_table().sum())
        6
        """
        table = np.zeros((5, 5), dtype=np.int32)
        unit = self.unit
        for name, value in self.weights.items():
            for a, b in _PAIRS[name]:
                table[a, b] = int(round(value * unit))
        return table

    def max_score_units(self, n):
        """An upper bound on any table value for a sequence of length n, in units."""
        return (n // 2) * int(self.pair_table().max())

    def cell_dtype(self, n):
        """The cells of an n-long table, on every backend: int16 when every value fits, else int32.

        >>> FoldParams().cell_dtype(65_534), FoldParams().cell_dtype(70_000)
        (dtype('int16'), dtype('int32'))
        """
        bound = self.max_score_units(n)
        if bound <= np.iinfo(np.int16).max:
            return np.dtype(np.int16)
        if bound > np.iinfo(np.int32).max:
            raise InvalidParameter(f"scores of a sequence of length {n:,} would overflow 32-bit integers")
        return np.dtype(np.int32)

    def to_score(self, units):
        """Table value in units to the reported score (int when whole, else float).

        >>> FoldParams(gu=1.5).to_score(7), FoldParams(gu=1.5).to_score(8)
        (3.5, 4)
        """
        unit = self.unit
        return int(units) // unit if int(units) % unit == 0 else int(units) / unit

    # --- what the folding pipeline asks of a model (bioaccel.fold._models.FoldModel) ---

    @classmethod
    def from_options(cls, options: dict) -> "FoldParams":
        """The model from the fold command's options that were given: ``min_loop``, ``au``, ``gc``,
        ``gu`` and ``no_gu`` (GU pairs weigh 0).

        >>> FoldParams.from_options({"min_loop": 1, "no_gu": True})
        FoldParams(min_loop=1, au=1, gc=1, gu=0)
        """
        options = dict(options)
        if options.pop("no_gu", False):
            options["gu"] = 0
        unknown = sorted(set(options) - {"min_loop", "au", "gc", "gu"})
        if unknown:
            raise InvalidParameter(f"the {cls.name} model has no option {', '.join(unknown)} (an energy model's: "
                                   "add --model turner2004)")
        return cls(**options)

    def result_values(self, units: int) -> dict:
        """The FoldResult fields of an optimum of ``units``.

        >>> FoldParams(gu=1.5).result_values(7)
        {'score': 3.5, 'min_loop': 3}
        """
        return {"score": self.to_score(units), "min_loop": self.min_loop}

    @staticmethod
    def vienna_value(result) -> str:
        """The score as RNAfold's layout shows it, at least two characters wide.

        >>> FoldParams.vienna_value(type("R", (), {"score": 3})())
        ' 3'
        """
        return f"{format_number(result.score):>2}"

    @staticmethod
    def ct_header(result) -> str:
        """``length  id``."""
        return f"{result.length:5d}  {result.id}"

    def check_sizes(self, lengths, variant: str, *, backend: str = "cpu") -> None:
        """Refuse, before any is folded, sequences whose longest will not fit (see :mod:`._nussinov_cost`)."""
        from ._nussinov_cost import check_sizes

        check_sizes(lengths, self, variant, backend=backend)

    def estimate_seconds(self, lengths, variant: str, *, backend: str = "cpu", threads: int = 0) -> float:
        """A rough time for these lengths (see :mod:`._nussinov_cost`).

        >>> round(FoldParams().estimate_seconds([40_000] * 3, "tiled", threads=2) / 60)
        25
        """
        from ._nussinov_cost import estimate_seconds

        return estimate_seconds(lengths, variant, backend=backend, threads=threads)

    def one_per_core(self, n: int, variant: str) -> bool:
        """Short sequences of the ``tiled`` variant are folded one per core, several at a time."""
        from . import _cpu

        return variant == "tiled" and n <= _cpu.ONE_CORE_MAX_LENGTH

    def fold_cpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(units, pair_to or None)]`` of each sequence on the CPU (:func:`._cpu.fold_many`)."""
        from ._cpu import fold_many

        return fold_many(codes_list, self, variant, traceback)

    def fold_gpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(units, pair_to or None)]`` of each sequence on the GPU (:func:`._gpu.fold_many`)."""
        from ._gpu import fold_many

        return fold_many(codes_list, self, variant=variant, traceback=traceback)

    def partition_cpu(self, codes_list: list, want_bpp: bool) -> list:
        """``[(log_z, bpp or None)]`` of each sequence on the CPU, on Numba's current thread count: the
        natural log of the partition function (a structure weighs exp(sum of its pairs' weights)) and,
        when ``want_bpp``, the (n, n) float64 base-pair probabilities, ``bpp[i, j]`` for i < j (0-based),
        zero elsewhere (:mod:`._nussinov_partition`, docs/nussinov-partition.md).

        >>> from bioaccel.inputs.alphabet import encode
        >>> [(round(z, 4), bpp) for z, bpp in FoldParams(gc=3).partition_cpu([encode("GAAAC")], False)]
        [(3.0486, None)]
        """
        from ._nussinov_partition import partition_many

        return partition_many(codes_list, self, want_bpp)

    def log_weight(self, units: int) -> float:
        """The natural log of the weight of a structure worth ``units`` (the model's exact integer units):
        a structure weighs exp(its score), so this is the score itself.

        >>> FoldParams(gu=1.5).log_weight(7)
        3.5
        """
        return int(units) / self.unit

    def evaluate(self, codes, pair_to) -> int:
        """The weight in units of the structure ``pair_to`` (partner or -1 per position) on ``codes``:
        the sum of its pairs' weights; a pair of weight 0 or one enclosing fewer than ``min_loop``
        bases is refused (InputError), as no fold of this model could give it.

        >>> from bioaccel.inputs.alphabet import encode
        >>> FoldParams(gc=2).evaluate(encode("GGGAAAUCC"), [8, 7, 6, -1, -1, -1, 2, 1, 0])
        5
        """
        from ..errors import InputError
        from ._traceback import check_nested

        table = self.pair_table()
        pair_to = check_nested(pair_to, len(codes))
        units = 0
        for i, j in enumerate(pair_to.tolist()):
            if j <= i:
                continue
            if table[codes[i], codes[j]] == 0:
                raise InputError(f"pair ({i + 1}, {j + 1}) is {'ACGUN'[codes[i]]}-{'ACGUN'[codes[j]]}, which "
                                 "this model does not pair")
            if j - i - 1 < self.min_loop:
                raise InputError(f"pair ({i + 1}, {j + 1}) encloses {j - i - 1} bases; the model's minimum "
                                 f"loop is {self.min_loop}")
            units += int(table[codes[i], codes[j]])
        return units
