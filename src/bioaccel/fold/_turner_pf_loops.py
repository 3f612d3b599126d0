"""Boltzmann factors of single loops of the Turner 2004 model, as ViennaRNA's partition function
multiplies them (eval/exp_eval_hairpin.c ``vrna_exp_E_hairpin``, exp_eval_internal.c
``vrna_exp_E_internal``, the exterior and multiloop stems of ``exp_E_ExtLoop`` / ``exp_E_MLstem``).

Each reads the float64 factors ``B`` of :func:`._turner_pf_params.boltzmann_tables` and, for the
special hairpins' codes, the int32 tables ``E`` (same layout); ``S`` is the sequence in table codes,
positions 0-based. The factors are products of table entries in ViennaRNA's order (no energy is
added up and exponentiated), so that the sums agree with RNAfold -p to rounding.
"""
import math

from numba import njit

from ._turner_energy import RTYPE, special_hairpin
from ._turner_tables import (BULGE, DANGLE3, DANGLE5, GENERIC, HAIRPIN, INT11, INT21, INT22, INTERIOR,
                            MM_INTERIOR, ML_CLOSING, ML_INTERN, MM_1N, MM_23, MM_EXTERIOR, MM_HAIRPIN, MM_MULTI,
                            NINIO, ONE_N, STACK, TERMINAL_AU)

_JIT = dict(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)


@njit(**_JIT)
def exp_hairpin(B, E, kT, lxc, S, i, j, tp):
    """The hairpin closed by (i, j), type tp: size term (extrapolated unrounded past 30), then a listed
    tetra-/hexa-/triloop's factor *instead*, a loop of 3 with the terminal AU/GU factor, or the hairpin
    mismatch."""
    u = j - i - 1
    if u <= 30:
        q = B[HAIRPIN + u]
    else:
        q = B[HAIRPIN + 30] * math.exp(-(lxc * math.log(u / 30.0)) * 10.0 / kT)
    if u == 3 or u == 4 or u == 6:
        at = special_hairpin(E, S, i, u)
        if at >= 0:
            return B[at]
        if u == 3:
            return q * B[TERMINAL_AU] if tp > 2 else q
    return q * B[MM_HAIRPIN + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]


@njit(**_JIT)
def exp_interior(B, S, i, j, p, q, tp, tq):
    """The interior loop (i, j) > (p, q), tp = type(i, j), tq = type(q, p) (ViennaRNA's case order)."""
    u1 = p - i - 1
    u2 = j - q - 1
    nl = max(u1, u2)
    ns = min(u1, u2)
    if nl == 0:
        return B[STACK + tp * 8 + tq]
    si = S[i + 1]
    sj = S[j - 1]
    sp = S[p - 1]
    sq = S[q + 1]
    if ns == 0:
        z = B[BULGE + nl]
        if nl == 1:
            return z * B[STACK + tp * 8 + tq]
        if tp > 2:
            z *= B[TERMINAL_AU]
        if tq > 2:
            z *= B[TERMINAL_AU]
        return z
    if ns == 1:
        if nl == 1:
            return B[INT11 + ((tp * 8 + tq) * 5 + si) * 5 + sj]
        if nl == 2:
            if u1 == 1:
                return B[INT21 + (((tp * 8 + tq) * 5 + si) * 5 + sq) * 5 + sj]
            return B[INT21 + (((tq * 8 + tp) * 5 + sq) * 5 + si) * 5 + sp]
        return B[ONE_N + nl] * (B[MM_1N + (tp * 5 + si) * 5 + sj] * B[MM_1N + (tq * 5 + sq) * 5 + sp])
    if ns == 2:
        if nl == 2:
            return B[INT22 + ((((tp * 8 + tq) * 5 + si) * 5 + sp) * 5 + sq) * 5 + sj]
        if nl == 3:
            return (B[INTERIOR + 5] * B[NINIO]) * (B[MM_23 + (tp * 5 + si) * 5 + sj]
                                                    * B[MM_23 + (tq * 5 + sq) * 5 + sp])
    return B[GENERIC + u2 * 31 + u1] * (B[MM_INTERIOR + (tp * 5 + si) * 5 + sj]
                                        * B[MM_INTERIOR + (tq * 5 + sq) * 5 + sp])


@njit(**_JIT)
def _stem_ends(B, mismatch, tp, s5, s3):
    if s5 >= 0 and s3 >= 0:
        z = B[mismatch + (tp * 5 + s5) * 5 + s3]
    elif s5 >= 0:
        z = B[DANGLE5 + tp * 5 + s5]
    elif s3 >= 0:
        z = B[DANGLE3 + tp * 5 + s3]
    else:
        z = 1.0
    if tp > 2:
        z *= B[TERMINAL_AU]
    return z


@njit(**_JIT)
def exp_ml_stem(B, tp, s5, s3):
    """A stem of type tp in a multiloop (dangles 2: its neighbours' mismatch), with MLintern."""
    return _stem_ends(B, MM_MULTI, tp, s5, s3) * B[ML_INTERN]


@njit(**_JIT)
def exp_ext_stem(B, tp, s5, s3):
    """A stem of type tp in the exterior loop (a neighbour code < 0: that end of the sequence)."""
    return _stem_ends(B, MM_EXTERIOR, tp, s5, s3)


@njit(**_JIT)
def exp_ml_closing(B, S, i, j, tp):
    """The multiloop closed by (i, j) of type tp: MLclosing and the closing stem read from inside."""
    return B[ML_CLOSING] * exp_ml_stem(B, RTYPE[tp], S[j - 1], S[i + 1])
