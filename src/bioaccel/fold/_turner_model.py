"""The Turner 2004 free-energy model: its options, and its integer tables at a temperature.

ViennaRNA's RNAfold with default options is the reference: dangles 2, special hairpins on, interior
loops of at most 30 unpaired bases, no G-quadruplexes, linear sequences. Energies are integers in
dcal/mol (-3.40 kcal/mol is -340).

Temperature rescaling is ViennaRNA's (``get_scaled_params`` in params/params.c): every free energy at
T Celsius is ``dG(T) = dH - (dH - dG37) * (T + 273.15) / (37 + 273.15)``, computed in double precision
and truncated toward zero to an integer; the multiloop and exterior mismatches and the dangles are then
capped at 0 (they must never destabilise); the loop-extrapolation factor is ``lxc(T) = lxc37 * (T +
273.15) / 310.15`` and stays a double; the cap on the ninio asymmetry term (300) is not rescaled.

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
import functools
import math
from collections import namedtuple
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from ..errors import InputError, InvalidParameter
from ._turner_params import INF, read_parameter_file
from ._variants import TURNER_VARIANTS

K0 = 273.15
#: The fill's infinity (the parameter file's INF, 10**7, marks forbidden parameters). Two stored values
#: add up within int32 (2 * 10**9 < 2**31), and no real energy comes near it: the most stable stack at
#: any temperature is -1490 dcal/mol, so a sequence of n bases stays above about -750 n, -2.3 * 10**8 at the
#: longest allowed (MAX_LENGTH).
INFINITE = 1_000_000_000
#: Longest sequence the fill accepts (its energies stay far from INFINITE; see above).
MAX_LENGTH = 300_000
#: ViennaRNA's MAXLOOP: interior loops (and bulges) of at most this many unpaired bases are folded
MAX_LOOP = 30
MIN_TEMPERATURE, MAX_TEMPERATURE = -K0, 200.0

# Base codes of the tables (ViennaRNA's): N=0, A=1, C=2, G=3, U=4. bioaccel.alphabet's codes are
# A=0, C=1, G=2, U=3, other=4, so a table code is (code + 1) % 5.
_VIENNA_BASE = {"A": 1, "C": 2, "G": 3, "U": 4}
# pair type of (5' base, 3' base) in table codes; 0 = cannot pair
_PAIRS = {(2, 3): 1, (3, 2): 2, (3, 4): 3, (4, 3): 4, (1, 4): 5, (4, 1): 6}

#: The tables a kernel reads, at one temperature: integer arrays (int32) indexed as in ViennaRNA
#: (pair type 1..7 = CG, GC, GU, UG, AU, UA, NS; base 0..4 = N, A, C, G, U) and integer scalars.
#: ``interior_generic[u2, u1]`` is the size and asymmetry part of a generic interior loop with u1
#: unpaired bases on the 5' side and u2 on the 3' side (INFINITE where the loop is not generic: stacks,
#: bulges, 1xn, 2x2, 2x3, more than MAX_LOOP); ``interior_1n[nl]`` the same for a 1 x nl loop (nl >= 3).
#: ``pair_type[a, b]`` is the pair type of bases a, b
#: (GU and UG are 0 when the model has ``no_gu``).
EnergyTables = namedtuple("EnergyTables", [
    "stack", "hairpin", "bulge", "interior",
    "mismatch_hairpin", "mismatch_interior", "mismatch_interior_1n", "mismatch_interior_23",
    "mismatch_multi", "mismatch_exterior", "dangle5", "dangle3",
    "int11", "int21", "int22",
    "ml_base", "ml_closing", "ml_intern", "ninio", "max_ninio", "terminal_au", "lxc",
    "tetraloops", "tetraloop_energy", "triloops", "triloop_energy", "hexaloops", "hexaloop_energy",
    "interior_generic", "interior_1n", "pair_type",
])

_TABLE_SECTIONS = {"stack": "stack", "hairpin": "hairpin", "bulge": "bulge", "interior": "interior",
                   "mismatch_hairpin": "mismatch_hairpin", "mismatch_interior": "mismatch_interior",
                   "mismatch_interior_1n": "mismatch_interior_1n",
                   "mismatch_interior_23": "mismatch_interior_23", "mismatch_multi": "mismatch_multi",
                   "mismatch_exterior": "mismatch_exterior", "dangle5": "dangle5", "dangle3": "dangle3",
                   "int11": "int11", "int21": "int21", "int22": "int22"}
# capped at 0 after rescaling (ViennaRNA: "must be <= 0")
_NEVER_POSITIVE = ("mismatch_multi", "mismatch_exterior", "dangle5", "dangle3")


def rescale(dg37, dh, temperature):
    """ViennaRNA's RESCALE_dG, truncated to an integer as its C code assigns it to an int.

    >>> rescale(-330, -1340, 37.0), rescale(-330, -1340, 50.0), rescale(50, 370, 25.0)
    (-330, -287, 62)
    """
    factor = (temperature + K0) / (37 + K0)
    dg37 = np.asarray(dg37, dtype=np.int64)
    dh = np.asarray(dh, dtype=np.int64)
    value = np.trunc(dh.astype(np.float64) - (dh - dg37).astype(np.float64) * factor).astype(np.int64)
    return int(value) if value.ndim == 0 else value


@functools.lru_cache(maxsize=None)
def _raw_parameters():
    return read_parameter_file()


def _loop_codes(loops, length):
    codes = np.zeros((max(len(loops), 1), length), dtype=np.int32)
    for row, (seq, _, _) in enumerate(loops):
        codes[row] = [_VIENNA_BASE[b] for b in seq]
    return codes


@functools.lru_cache(maxsize=64)
def _energy_tables(temperature):
    """The tables at ``temperature`` (pair_type allowing GU); cached, read-only."""
    raw = _raw_parameters()
    arrays = {}
    for field, section in _TABLE_SECTIONS.items():
        table = rescale(raw[section], raw[section + "_enthalpies"], temperature)
        if section in _NEVER_POSITIVE:
            table = np.minimum(table, 0)
        arrays[field] = table
    cu, cu_dh, cc, cc_dh, ci, ci_dh = raw["ML_params"][:6]
    ninio37, ninio_dh, max_ninio = raw["NINIO"][:3]
    _, _, au37, au_dh = raw["Misc"][:4]
    lxc37 = raw["Misc"][4] if len(raw["Misc"]) > 4 else 107.856
    scalars = {
        "ml_base": rescale(cu, cu_dh, temperature),
        "ml_closing": rescale(cc, cc_dh, temperature),
        "ml_intern": rescale(ci, ci_dh, temperature),
        "ninio": rescale(ninio37, ninio_dh, temperature),
        "max_ninio": int(max_ninio),
        "terminal_au": rescale(au37, au_dh, temperature),
        "lxc": float(lxc37) * ((temperature + K0) / (37 + K0)),
    }
    specials = {}
    for name, field, length in (("Tetraloops", "tetraloop", 6), ("Triloops", "triloop", 5),
                                ("Hexaloops", "hexaloop", 8)):
        loops = raw[name]
        specials[field + "s"] = _loop_codes(loops, length)
        energy = np.full(max(len(loops), 1), INF, dtype=np.int64)  # an empty list matches nothing
        if loops:
            energy[:] = rescale([e for _, e, _ in loops], [h for _, _, h in loops], temperature)
        specials[field + "_energy"] = energy
    generic = np.full((MAX_LOOP + 1, MAX_LOOP + 1), INFINITE, dtype=np.int64)
    for u2 in range(2, MAX_LOOP + 1):
        for u1 in range(2, MAX_LOOP + 1 - u2):
            if (u1, u2) not in ((2, 2), (2, 3), (3, 2)):
                generic[u2, u1] = arrays["interior"][u1 + u2] + min(scalars["max_ninio"],
                                                                     abs(u1 - u2) * scalars["ninio"])
    arrays["interior_generic"] = generic
    one_n = np.full(MAX_LOOP + 1, INFINITE, dtype=np.int64)
    for nl in range(3, MAX_LOOP):
        one_n[nl] = arrays["interior"][nl + 1] + min(scalars["max_ninio"], (nl - 1) * scalars["ninio"])
    arrays["interior_1n"] = one_n
    arrays["pair_type"] = pair_type_table(no_gu=False)
    fields = {}
    for name, value in {**arrays, **specials}.items():
        value = np.ascontiguousarray(value, dtype=np.int32)
        value.setflags(write=False)
        fields[name] = value
    return EnergyTables(**fields, **scalars)


# The kernels read every table from one flat int32 array ``E``: table ``name`` at index (a, b, ...) is
# ``E[OFFSET + its C-order index]``, OFFSET one of the constants below. (A Numba function taking a tuple of
# thirty arrays took about 0.6 s longer to compile than one taking a single array, measured per function.)
# Special hairpins: rows of the loop's codes followed by its energy, unused rows of code -1 (no match).
# Numba freezes these offsets into the cached kernels of _turner_energy and _turner_cpu, and checks only
# those files' timestamps: after changing the layout, delete the kernels' cache (__pycache__/*.nb[ic]).
MAX_SPECIAL = 40  # ViennaRNA's capacity for each list
_KERNEL_LAYOUT = (
    ("stack", (8, 8)), ("hairpin", (31,)), ("bulge", (31,)), ("interior", (31,)),
    ("mismatch_hairpin", (8, 5, 5)), ("mismatch_interior", (8, 5, 5)), ("mismatch_interior_1n", (8, 5, 5)),
    ("mismatch_interior_23", (8, 5, 5)), ("mismatch_multi", (8, 5, 5)), ("mismatch_exterior", (8, 5, 5)),
    ("dangle5", (8, 5)), ("dangle3", (8, 5)),
    ("int11", (8, 8, 5, 5)), ("int21", (8, 8, 5, 5, 5)), ("int22", (8, 8, 5, 5, 5, 5)),
    ("tetraloops", (MAX_SPECIAL, 7)), ("triloops", (MAX_SPECIAL, 6)), ("hexaloops", (MAX_SPECIAL, 9)),
    ("interior_generic", (MAX_LOOP + 1, MAX_LOOP + 1)), ("interior_1n", (MAX_LOOP + 1,)), ("pair_type", (5, 5)),
    ("scalars", (6,)),
)
_OFFSETS = {}
_size = 0
for _name, _shape in _KERNEL_LAYOUT:
    _OFFSETS[_name] = _size
    _size += int(np.prod(_shape))
KERNEL_TABLE_SIZE = _size
STACK, HAIRPIN, BULGE, INTERIOR = (_OFFSETS[k] for k in ("stack", "hairpin", "bulge", "interior"))
MM_HAIRPIN, MM_INTERIOR, MM_1N, MM_23, MM_MULTI, MM_EXTERIOR = (_OFFSETS["mismatch_" + k] for k in (
    "hairpin", "interior", "interior_1n", "interior_23", "multi", "exterior"))
DANGLE5, DANGLE3, INT11, INT21, INT22 = (_OFFSETS[k] for k in ("dangle5", "dangle3", "int11", "int21", "int22"))
TETRALOOPS, TRILOOPS, HEXALOOPS = (_OFFSETS[k] for k in ("tetraloops", "triloops", "hexaloops"))
GENERIC, ONE_N, PAIR_TYPE, SCALARS = (_OFFSETS[k] for k in ("interior_generic", "interior_1n", "pair_type", "scalars"))
# the scalars, in this order from E[SCALARS]
ML_BASE, ML_CLOSING, ML_INTERN, NINIO, MAX_NINIO, TERMINAL_AU = (SCALARS + k for k in range(6))


def kernel_tables(tables):
    """The flat int32 array of ``tables`` (an :data:`EnergyTables`) that the kernels read.

    >>> E = kernel_tables(TurnerModel().tables())
    >>> int(E[STACK + 1 * 8 + 2]), int(E[TERMINAL_AU]), int(E[PAIR_TYPE + 3 * 5 + 2])
    (-330, 50, 2)
    """
    E = np.zeros(KERNEL_TABLE_SIZE, dtype=np.int32)
    for name, shape in _KERNEL_LAYOUT:
        part = E[_OFFSETS[name]:_OFFSETS[name] + int(np.prod(shape))].reshape(shape)
        if name in ("tetraloops", "triloops", "hexaloops"):
            loops = getattr(tables, name)
            energy = getattr(tables, name[:-1] + "_energy")
            part[:] = -1
            listed = energy < INF
            part[:listed.sum(), :-1] = loops[listed]
            part[:listed.sum(), -1] = energy[listed]
        elif name == "scalars":
            part[:] = [tables.ml_base, tables.ml_closing, tables.ml_intern, tables.ninio, tables.max_ninio,
                       tables.terminal_au]
        else:
            part[:] = getattr(tables, name)
    E.setflags(write=False)
    return E


@functools.lru_cache(maxsize=128)
def _kernel_tables(temperature, no_gu):
    return kernel_tables(TurnerModel(temperature=temperature, no_gu=no_gu).tables())


def pair_type_table(no_gu):
    """5 x 5 int32: the pair type of (5' base, 3' base) in table codes (N=0, A..U=1..4); 0 = no pair.

    >>> [int(pair_type_table(gu)[3, 4]) for gu in (False, True)], int(pair_type_table(False)[0, 0])
    ([3, 0], 0)
    """
    table = np.zeros((5, 5), dtype=np.int32)
    for (a, b), t in _PAIRS.items():
        if not (no_gu and t in (3, 4)):
            table[a, b] = t
    return table


def table_codes(codes):
    """bioaccel.inputs.alphabet codes (A=0, C=1, G=2, U=3, other=4) -> the tables' codes (N=0, A..U=1..4),
    int64.

    >>> table_codes(np.array([0, 1, 2, 3, 4], dtype=np.uint8)).tolist()
    [1, 2, 3, 4, 0]
    """
    codes = np.asarray(codes, dtype=np.int64)
    if codes.size and (codes.min() < 0 or codes.max() > 4):
        raise InputError("sequence codes must be 0 to 4 (bioaccel.alphabet: A, C, G, U, other), got "
                         f"{int(codes.min() if codes.min() < 0 else codes.max())}")
    return (codes + 1) % 5


def _is_real(value):
    return not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating))


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
    json_columns: ClassVar[tuple] = ("id", "sequence", "structure", "energy", "length", "pairs", "variant",
                                     "backend")

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
        tables = _energy_tables(self.temperature)
        if self.no_gu:
            no_gu_pairs = pair_type_table(no_gu=True)
            no_gu_pairs.setflags(write=False)
            tables = tables._replace(pair_type=no_gu_pairs)
        return tables

    def kernel_tables(self):
        """``(E, lxc)``: the flat int32 tables the Numba kernels read (see :func:`kernel_tables`; cached)
        and the loop-extrapolation factor at this temperature."""
        return _kernel_tables(self.temperature, self.no_gu), _energy_tables(self.temperature).lxc

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
        the GPU, longer than the batch kernel takes: :func:`._turner_gpu.check_lengths`)."""
        if backend == "gpu":
            from ._turner_gpu import check_lengths

            return check_lengths(lengths)
        from ._turner_cost import check_sizes

        check_sizes(lengths)

    def estimate_seconds(self, lengths, variant: str, *, backend: str = "cpu", threads: int = 0) -> float:
        """A rough time for these lengths (:mod:`._turner_cost`; :func:`._turner_gpu.estimate_seconds`)."""
        if backend == "gpu":
            from ._turner_gpu import estimate_seconds

            return estimate_seconds(lengths)
        from ._turner_cost import estimate_seconds

        return estimate_seconds(lengths, threads=threads)

    def one_per_core(self, n: int, variant: str) -> bool:
        """Sequences below the length where one fill gains from every core are folded one per core."""
        from ._turner_cpu import PARALLEL_LENGTH

        return n < PARALLEL_LENGTH

    def fold_gpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(energy in dcal/mol, pair_to or None)]`` of each sequence on the GPU: many per launch, one
        thread block each (:mod:`._turner_gpu`); the same energies and structures as :meth:`fold_cpu`."""
        from ._turner_gpu import fold

        return fold(codes_list, self, traceback=traceback)

    def fold_cpu(self, codes_list: list, variant: str, traceback: bool) -> list:
        """``[(energy in dcal/mol, pair_to)]`` of each sequence on the CPU: a lone one by the tiled fill on
        every core, several one per core (the traceback costs a fraction of the fill, so it is always
        made)."""
        from ._turner_cpu import mfe, mfe_many

        if len(codes_list) == 1:
            return [mfe(codes_list[0], self)]
        return mfe_many(codes_list, self)
