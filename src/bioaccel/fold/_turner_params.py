"""Read a ViennaRNA 2.0 parameter file (the Turner 2004 set ships as ``data/rna_turner2004.par``) into
integer arrays laid out as ViennaRNA holds them in memory.

Indices follow ViennaRNA, so every table reads as the C source does:

- pair types 1..7 = CG, GC, GU, UG, AU, UA, NS (any other pair); 0 = no pair (its rows are never read);
- bases 0..4 = N (any letter that is not A, C, G, U), A, C, G, U.

``read_parameter_file`` returns a dict from section name (``"stack"``, ``"mismatch_hairpin"``,
``"int22_enthalpies"``, ...) to an int64 array (free energies at 37 C or enthalpies, in dcal/mol),
plus ``"ML_params"``, ``"NINIO"``, ``"Misc"`` (numbers) and ``"Tetraloops"``, ``"Triloops"``,
``"Hexaloops"`` (lists of ``(loop, dG37, dH)``). The file stores each table in C order without the
rows of pair type 0; int22 lists only A, C, G, U and the six canonical pairs: its N entries and the NS
pair type are filled as ViennaRNA's reader fills them (the largest value over A, C, G, U, then over
the canonical pairs). Tokens ``INF`` and ``DEF`` read as 10,000,000 and -50, as in ViennaRNA.

>>> tables = read_parameter_file()
>>> int(tables["stack"][1, 1]), int(tables["hairpin"][3]), tables["Tetraloops"][0]
(-240, 540, ('CAACGG', 550, 690))
>>> tables["int22"].shape, int(tables["int22"][1, 1, 0, 0, 0, 0])
((8, 8, 5, 5, 5, 5), 200)
"""
import os
import re

import numpy as np

from ..errors import InputError

#: ViennaRNA's "infinite" energy (INF in params/constants.h): forbidden entries of a table
INF = 10_000_000
#: the parameter file's token DEF
DEF = -50
DEFAULT_FILE = os.path.join(os.path.dirname(__file__), "data", "rna_turner2004.par")

_P = 8  # pair types 0..7
# section -> (shape in memory, slice of it the file fills in C order, value of the rest)
_TABLES = {
    "stack": ((_P, _P), np.s_[1:, 1:], INF),
    "mismatch_hairpin": ((_P, 5, 5), np.s_[1:], 0),
    "mismatch_interior": ((_P, 5, 5), np.s_[1:], 0),
    "mismatch_interior_1n": ((_P, 5, 5), np.s_[1:], 0),
    "mismatch_interior_23": ((_P, 5, 5), np.s_[1:], 0),
    "mismatch_multi": ((_P, 5, 5), np.s_[1:], 0),
    "mismatch_exterior": ((_P, 5, 5), np.s_[1:], 0),
    "dangle5": ((_P, 5), np.s_[1:], 0),
    "dangle3": ((_P, 5), np.s_[1:], 0),
    "int11": ((_P, _P, 5, 5), np.s_[1:, 1:], INF),
    "int21": ((_P, _P, 5, 5, 5), np.s_[1:, 1:], INF),
    "int22": ((_P, _P, 5, 5, 5, 5), np.s_[1:7, 1:7, 1:, 1:, 1:, 1:], INF),
    "hairpin": ((31,), np.s_[:], INF),
    "bulge": ((31,), np.s_[:], INF),
    "interior": ((31,), np.s_[:], INF),
}
# ViennaRNA's reader accepts both spellings of the interior-loop sections
_ALIASES = {"internal": "interior", "mismatch_internal": "mismatch_interior",
            "mismatch_internal_1n": "mismatch_interior_1n", "mismatch_internal_23": "mismatch_interior_23"}
_NUMBERS = {"ML_params": 6, "NINIO": 3, "Misc": 4}
_SPECIAL = {"Tetraloops": 6, "Triloops": 5, "Hexaloops": 8}
_COMMENT = re.compile(r"/\*.*?\*/")


def _token(word, where):
    if word == "INF":
        return INF
    if word == "DEF":
        return DEF
    try:
        return int(word)
    except ValueError:
        try:
            return float(word)
        except ValueError:
            raise InputError(f"{where}: cannot read {word!r} as a number") from None


def _sections(text, where):
    """(name, [lines]) for each '# name' header, comments removed and blank lines dropped."""
    name, lines, out = None, [], []
    for raw in text.splitlines():
        line = _COMMENT.sub("", raw).strip()
        if raw.startswith("# "):
            if name is not None:
                out.append((name, lines))
            name, lines = raw[2:].split()[0], []
        elif line and name is not None:
            lines.append(line)
        elif line and not raw.startswith("##"):
            raise InputError(f"{where}: text before the first section: {raw!r}")
    if name is not None:
        out.append((name, lines))
    return out


def _fill_int22_nonstandard(t):
    """Give int22's N entries and NS pair type the largest value over A, C, G, U (and over the canonical
    pairs), as ViennaRNA's file reader does (update_nst in params/io.c)."""
    core = t[1:7, 1:7]  # a view: the canonical pair types
    block = core[:, :, 1:, 1:, 1:, 1:]
    # one N: the largest value over the four bases in that position
    for axis in range(2, 6):
        core[(slice(None), slice(None), *[0 if a == axis else slice(1, 5) for a in range(2, 6)])] = \
            block.max(axis=axis)
    # two N: ViennaRNA fills each of the six patterns from the one-N entries of one neighbouring axis
    for k in range(1, 5):
        for l in range(1, 5):
            core[:, :, k, l, 0, 0] = core[:, :, k, l, 1:5, 0].max(axis=2)
            core[:, :, k, 0, 0, l] = core[:, :, k, 1:5, 0, l].max(axis=2)
            core[:, :, 0, 0, k, l] = core[:, :, 1:5, 0, k, l].max(axis=2)
            core[:, :, k, 0, l, 0] = core[:, :, k, 0, l, 1:5].max(axis=2)
            core[:, :, 0, k, 0, l] = core[:, :, 0, k, 1:5, l].max(axis=2)
            core[:, :, 0, k, l, 0] = core[:, :, 0, k, l, 1:5].max(axis=2)
    # three N
    for k in range(1, 5):
        core[:, :, k, 0, 0, 0] = core[:, :, k, 1:5, 0, 0].max(axis=2)
        core[:, :, 0, k, 0, 0] = core[:, :, 0, k, 1:5, 0].max(axis=2)
        core[:, :, 0, 0, k, 0] = core[:, :, 0, 0, k, 1:5].max(axis=2)
        core[:, :, 0, 0, 0, k] = core[:, :, 0, 0, 1:5, k].max(axis=2)
    # four N
    core[:, :, 0, 0, 0, 0] = core[:, :, 1:5, 0, 0, 0].max(axis=2)
    # the NS pair type: the largest value over the canonical partners, then over both
    t[1:7, 7] = t[1:7, 1:7].max(axis=1)
    t[7, 1:7] = t[1:7, 1:7].max(axis=0)
    t[7, 7] = t[7, 1:7].max(axis=0)


def read_parameter_file(path=None):
    """Read a ViennaRNA 2.0 parameter file (default: the bundled Turner 2004 set); see the module
    docstring for the layout of the result."""
    path = DEFAULT_FILE if path is None else os.fspath(path)
    with open(path) as handle:
        text = handle.read()
    if not text.startswith("## RNAfold parameter file v2.0"):
        raise InputError(f"{path}: not a ViennaRNA 2.0 parameter file (first line should be "
                         "'## RNAfold parameter file v2.0')")
    tables = {}
    for name, lines in _sections(text, path):
        where = f"{path}: section {name}"
        enthalpy = name.endswith("_enthalpies")
        base = _ALIASES.get(name.removesuffix("_enthalpies"), name.removesuffix("_enthalpies"))
        key = base + ("_enthalpies" if enthalpy else "")
        if base in _TABLES:
            shape, part, rest = _TABLES[base]
            table = np.full(shape, rest, dtype=np.int64)
            values = [_token(w, where) for line in lines for w in line.split()]
            if len(values) != table[part].size:
                raise InputError(f"{where}: {len(values)} values, expected {table[part].size}")
            table[part] = np.array(values, dtype=np.int64).reshape(table[part].shape)
            if base == "int22":
                _fill_int22_nonstandard(table)
            tables[key] = table
        elif name in _NUMBERS:
            values = [_token(w, where) for line in lines for w in line.split()]
            if len(values) < _NUMBERS[name]:
                raise InputError(f"{where}: {len(values)} values, expected at least {_NUMBERS[name]}")
            tables[name] = values
        elif name in _SPECIAL:
            loops = []
            for line in lines:
                words = line.split()
                if len(words) != 3 or len(words[0]) != _SPECIAL[name]:
                    raise InputError(f"{where}: expected 'LOOP dG dH', got {line!r}")
                loops.append((words[0].upper().replace("T", "U"), int(words[1]), int(words[2])))
            tables[name] = loops
        elif name != "END":
            raise InputError(f"{where}: unknown section")
    missing = [f"{n}{s}" for n in _TABLES for s in ("", "_enthalpies") if f"{n}{s}" not in tables]
    missing += [n for n in (*_NUMBERS, *_SPECIAL) if n not in tables]
    if missing:
        raise InputError(f"{path}: missing section(s) {', '.join(missing)}")
    return tables
