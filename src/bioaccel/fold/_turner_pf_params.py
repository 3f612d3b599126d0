"""The Turner 2004 Boltzmann factors at a temperature, as ViennaRNA's partition function makes them
(``get_scaled_exp_params`` in params/basic.c, default model: ``pf_smooth`` on).

The MFE model's integer tables (:mod:`._turner_tables`) are not used here beyond their layout and the
special-hairpin codes: ViennaRNA's Boltzmann factors come from the *unrounded* rescaled free energies,
``dG(T) = dH - (dH - dG37) * (T + 273.15) / 310.15`` as a double (at 37 C exactly the integers), and

    factor = exp(-dG(T) * 10 / kT),   kT = (T + 273.15) * 1.98717 cal/mol

except the multiloop and exterior mismatches and both dangle tables, which go through ViennaRNA's
``SMOOTH`` of ``-dG`` (0 below -12.28 dcal/mol, ``-dG`` above 8.66, a squared sine in between: a
dangle of 0 is worth a factor of 1.028 at 37 C, as in ViennaRNA). ``ninio`` is rescaled unrounded and
capped per loop at 300 (``MAX_NINIO``) before the exponential.

The factors are laid out as the kernels' int32 tables ``E`` are (the same offsets), in a float64 array
``B``: ``B[STACK + 8 * a + b]`` is ``expstack[a][b]``. Combined entries: ``B[GENERIC + 31 * u2 + u1]`` is
``expinternal[u1 + u2] * expninio[|u1 - u2|]``, ``B[ONE_N + nl]`` is ``expinternal[nl + 1] *
expninio[nl - 1]``; the scalars ``ML_BASE, ML_CLOSING, ML_INTERN, NINIO, TERMINAL_AU`` are
``expMLbase, expMLclosing, expMLintern, expninio[1], expTermAU``; each special hairpin's row ends with
its factor where ``E``'s ends with its energy.

>>> B, kT = boltzmann_tables(37.0)
>>> round(kT, 4)
616.3208
>>> from ._turner_tables import STACK, TERMINAL_AU
>>> bool(abs(B[STACK + 8 * 1 + 2] - math.exp(330 * 10 / kT)) < 1e-12)
True
>>> round(float(B[TERMINAL_AU]), 6)
0.444295
"""
import functools
import math

import numpy as np

from ._turner_tables import (GENERIC, HEXALOOPS, K0, MAX_LOOP, ML_BASE, ML_CLOSING, ML_INTERN, NINIO,
                            ONE_N, TERMINAL_AU, TETRALOOPS, TRILOOPS, _KERNEL_LAYOUT, _NEVER_POSITIVE,
                            _OFFSETS, _TABLE_SECTIONS, _raw_parameters, kernel_tables_at)

#: ViennaRNA's gas constant, cal/(mol K)
GASCONST = 1.98717
_MAX_NINIO = 300


def kt_cal(temperature: float) -> float:
    """kT in cal/mol at ``temperature`` Celsius, as ViennaRNA computes it.

    >>> round(kt_cal(37.0), 3)
    616.321
    """
    return (temperature + K0) * GASCONST


def _dg(dg37, dh, tt):
    """RESCALE_dG as a double (no truncation: pf_smooth is on in ViennaRNA's default model)."""
    dg37 = np.asarray(dg37, dtype=np.float64)
    dh = np.asarray(dh, dtype=np.float64)
    return dh - (dh - dg37) * tt


def _smooth(x):
    """ViennaRNA's SMOOTH (SCALE 10) of x = -dG, elementwise."""
    x = np.asarray(x, dtype=np.float64)
    y = x / 10.0
    mid = 10.0 * 0.38490018 * (np.sin(y - 0.34242663) + 1) * (np.sin(y - 0.34242663) + 1)
    return np.where(y < -1.2283697, 0.0, np.where(y > 0.8660254, x, mid))


@functools.lru_cache(maxsize=64)
def boltzmann_tables(temperature: float, no_gu: bool = False):
    """``(B, kT)``: the flat float64 Boltzmann factors at ``temperature`` (layout above; read-only,
    cached) and kT in cal/mol. ``no_gu`` changes nothing here (pair types come from ``E``); it is taken
    for symmetry with :func:`._turner_tables.kernel_tables_at`."""
    kT = kt_cal(temperature)
    tt = (temperature + K0) / (37 + K0)
    raw = _raw_parameters()
    E, _ = kernel_tables_at(temperature, no_gu)
    B = np.zeros(E.size, dtype=np.float64)
    shapes = dict(_KERNEL_LAYOUT)

    def put(name, values):
        size = int(np.prod(shapes[name]))
        B[_OFFSETS[name]:_OFFSETS[name] + size] = np.asarray(values, dtype=np.float64).reshape(-1)

    for field, section in _TABLE_SECTIONS.items():
        dg = _dg(raw[section], raw[section + "_enthalpies"], tt)
        if section in _NEVER_POSITIVE:
            put(field, np.exp(_smooth(-dg) * 10.0 / kT))
        else:
            put(field, np.exp(-dg * 10.0 / kT))
    cu, cu_dh, cc, cc_dh, ci, ci_dh = raw["ML_params"][:6]
    ninio37, ninio_dh = raw["NINIO"][:2]
    _, _, au37, au_dh = raw["Misc"][:4]
    ninio = float(_dg(ninio37, ninio_dh, tt))
    expninio = np.array([math.exp(-min(_MAX_NINIO, j * ninio) * 10.0 / kT) for j in range(MAX_LOOP + 1)])
    interior = np.exp(-_dg(raw["interior"], raw["interior_enthalpies"], tt) * 10.0 / kT)
    generic = np.zeros((MAX_LOOP + 1, MAX_LOOP + 1))
    for u2 in range(MAX_LOOP + 1):
        for u1 in range(MAX_LOOP + 1 - u2):
            generic[u2, u1] = interior[u1 + u2] * expninio[abs(u1 - u2)]
    put("interior_generic", generic)
    one_n = np.zeros(MAX_LOOP + 1)
    for nl in range(1, MAX_LOOP):
        one_n[nl] = interior[nl + 1] * expninio[nl - 1]
    put("interior_1n", one_n)
    for offset, (dg37, dh) in ((ML_BASE, (cu, cu_dh)), (ML_CLOSING, (cc, cc_dh)), (ML_INTERN, (ci, ci_dh)),
                               (TERMINAL_AU, (au37, au_dh))):
        B[offset] = math.exp(-float(_dg(dg37, dh, tt)) * 10.0 / kT)
    B[NINIO] = expninio[1]
    for name, offset, width in (("Tetraloops", TETRALOOPS, 7), ("Triloops", TRILOOPS, 6),
                                ("Hexaloops", HEXALOOPS, 9)):
        # kernel_tables writes the listed loops in the file's order: row r is the file's r-th loop
        for row, (_, dg37, dh) in enumerate(raw[name]):
            B[offset + row * width + width - 1] = math.exp(-float(_dg(dg37, dh, tt)) * 10.0 / kT)
    B.setflags(write=False)
    return B, kT


def exp_hairpin_long(B, kT, lxc, u):
    """ViennaRNA's factor of the size term of a hairpin of ``u`` > 30 unpaired bases (unrounded).

    >>> from ._turner_tables import HAIRPIN, kernel_tables_at
    >>> B, kT = boltzmann_tables(37.0)
    >>> lxc = kernel_tables_at(37.0)[1]
    >>> bool(exp_hairpin_long(B, kT, lxc, 30) == B[HAIRPIN + 30])
    True
    """
    from ._turner_tables import HAIRPIN

    return B[HAIRPIN + 30] * math.exp(-(lxc * math.log(u / 30.0)) * 10.0 / kT)
