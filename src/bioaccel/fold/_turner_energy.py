"""Loop energies of the Turner 2004 model, and the free energy of a given structure.

Each function reads the flat int32 tables ``E`` of ``TurnerModel.kernel_tables()`` (offsets in
:mod:`._turner_tables`), the loop-extrapolation factor ``lxc`` where loops can be long, and a sequence
``S`` in the tables' base codes (N=0, A=1, C=2, G=3, U=4; see ``table_codes``);
positions are 0-based, energies integers in dcal/mol. The rules are ViennaRNA's (eval/hairpin.h,
eval/internal.h, eval/multibranch.h, eval/exterior.h), with dangles 2: a stem in the exterior loop or a
multiloop takes the mismatch (or, at a sequence end, the dangle) of its two neighbouring bases, whether
or not they pair elsewhere. The MFE fill (:mod:`._turner_cpu`) calls these functions, or adds up the
same table terms in loops of its own for speed (bulges, 1xn and generic interior loops), and its
traceback calls them: the tests check that every structure it reports scores its MFE here and in
ViennaRNA.

Structures :func:`eval_structure` refuses (and ViennaRNA's ``eval_structure`` would score with a
penalty or INF instead): crossing pairs (pseudoknots), a position paired twice or with itself, a pair
that is not AU, GC or GU (anything with N included), a hairpin with fewer than 3 unpaired bases.
GU pairs are scored even when the model has ``no_gu``, and isolated pairs even with ``no_lp``: those
options restrict what the fold searches, not what a structure costs.

>>> energy_of("GGGGAAACCCC", "((((...))))")    # RNA.fold_compound(seq).eval_structure(s) == -4.5
-450
>>> energy_of("GGGCUUCGGCCC", "((((....))))")    # a special tetraloop (cUUCGg)
-630
>>> energy_of("", "")
0
"""
import math

import numpy as np
from numba import njit

from ..inputs.alphabet import encode
from ..errors import InputError
from ._traceback import check_nested, parse_dot_bracket
from ._turner_tables import (BULGE, DANGLE3, DANGLE5, HAIRPIN, HEXALOOPS, INT11, INT21, INT22, INTERIOR,
                            ML_BASE, ML_CLOSING, ML_INTERN, MM_1N, MM_23, MM_EXTERIOR, MM_HAIRPIN,
                            MM_INTERIOR, MM_MULTI, MAX_NINIO, MAX_SPECIAL, NINIO, STACK, TERMINAL_AU,
                            TETRALOOPS, TRILOOPS, kernel_inputs, table_codes)
from ._turner_params import INF

#: pair type read from the other side: rtype[type(i, j)] = type(j, i)
RTYPE = np.array([0, 2, 1, 4, 3, 6, 5, 7], dtype=np.int64)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def loop_extension(lxc, size):
    """ViennaRNA's extrapolation of a loop of ``size`` > 30 from the size-30 entry of its table:
    ``(int)(lxc * log(size / 30.))``, the product truncated toward zero (0 for size <= 30)."""
    if size <= 30:
        return 0
    return int(lxc * math.log(size / 30.0))


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def special_hairpin(E, S, i, size):
    """Where the special hairpin of ``size`` (3, 4 or 6) unpaired bases that starts at i (its closing
    base) is listed: the offset of its energy in ``E`` (its factor's in the Boltzmann tables, same
    layout), or -1 if the closing pair and loop are not listed."""
    # the special list for this size: rows of (size + 2) codes then the energy, ended by code -1
    loops = TRILOOPS if size == 3 else (TETRALOOPS if size == 4 else HEXALOOPS)
    width = size + 2
    for row in range(MAX_SPECIAL):
        at = loops + row * (width + 1)
        if E[at] < 0:
            break
        k = 0
        while k < width and S[i + k] == E[at + k]:
            k += 1
        if k == width:
            return at + width
    return -1


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def hairpin_energy(E, lxc, S, i, j, tp):
    """Hairpin loop closed by (i, j) of pair type tp (j - i - 1 >= 3 unpaired bases).

    A special tetra-, tri- or hexaloop (the closing pair and the loop, as listed) takes its listed
    energy instead; a loop of 3 takes the terminal AU/GU penalty and no mismatch; longer loops take
    the hairpin mismatch of the closing pair and its two inner neighbours.
    """
    size = j - i - 1
    e = np.int64(E[HAIRPIN + min(size, 30)]) + loop_extension(lxc, size)
    if size == 3 or size == 4 or size == 6:
        at = special_hairpin(E, S, i, size)
        if at >= 0:
            return np.int64(E[at])
        if size == 3:
            return e + (E[TERMINAL_AU] if tp > 2 else 0)
    return e + E[MM_HAIRPIN + (tp * 5 + S[i + 1]) * 5 + S[j - 1]]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def interior_energy(E, lxc, S, i, j, p, q, tp, tq):
    """Interior loop (stack, bulge or interior loop) closed by (i, j), type tp, with the inner pair
    (p, q), whose type read from inside the loop (q, p) is tq.

    ViennaRNA's E_IntLoop: 0x0 stack; bulge of 1: bulge + the stack of the two pairs; longer bulges:
    bulge + terminal penalties of both pairs; 1x1, 1x2 (both orientations), 2x2: their tables; 1xn:
    initiation + ninio + the 1xn mismatches; 2x3: initiation(5) + ninio + the 2x3 mismatches; other
    loops: initiation + min(max_ninio, ninio * |n1 - n2|) + the interior mismatches.
    """
    n1 = p - i - 1
    n2 = j - q - 1
    nl = max(n1, n2)
    ns = min(n1, n2)
    if nl == 0:
        return np.int64(E[STACK + tp * 8 + tq])
    si = S[i + 1]
    sj = S[j - 1]
    sp = S[p - 1]
    sq = S[q + 1]
    if ns == 0:
        e = np.int64(E[BULGE + min(nl, 30)]) + loop_extension(lxc, nl)
        if nl == 1:
            e += E[STACK + tp * 8 + tq]
        else:
            if tp > 2:
                e += E[TERMINAL_AU]
            if tq > 2:
                e += E[TERMINAL_AU]
        return e
    if ns == 1:
        if nl == 1:
            return np.int64(E[INT11 + ((tp * 8 + tq) * 5 + si) * 5 + sj])
        if nl == 2:
            if n1 == 1:
                return np.int64(E[INT21 + (((tp * 8 + tq) * 5 + si) * 5 + sq) * 5 + sj])
            return np.int64(E[INT21 + (((tq * 8 + tp) * 5 + sq) * 5 + si) * 5 + sp])
        e = np.int64(E[INTERIOR + min(nl + 1, 30)]) + loop_extension(lxc, nl + 1)
        e += min(E[MAX_NINIO], (nl - ns) * E[NINIO])
        return e + E[MM_1N + (tp * 5 + si) * 5 + sj] + E[MM_1N + (tq * 5 + sq) * 5 + sp]
    if ns == 2:
        if nl == 2:
            return np.int64(E[INT22 + ((((tp * 8 + tq) * 5 + si) * 5 + sp) * 5 + sq) * 5 + sj])
        if nl == 3:
            e = np.int64(E[INTERIOR + 5]) + E[NINIO]
            return e + E[MM_23 + (tp * 5 + si) * 5 + sj] + E[MM_23 + (tq * 5 + sq) * 5 + sp]
    e = np.int64(E[INTERIOR + min(nl + ns, 30)]) + loop_extension(lxc, nl + ns)
    e += min(E[MAX_NINIO], (nl - ns) * E[NINIO])
    return e + E[MM_INTERIOR + (tp * 5 + si) * 5 + sj] + E[MM_INTERIOR + (tq * 5 + sq) * 5 + sp]


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _stem_ends(E, mismatch, tp, s5, s3):
    """What a stem of type tp adds at its ends with dangles 2: its 5' and 3' neighbours' mismatch (from
    the table at offset ``mismatch``; a code < 0 means no neighbour: the other's dangle only) and the
    terminal AU/GU penalty."""
    e = np.int64(0)
    if s5 >= 0 and s3 >= 0:
        e += E[mismatch + (tp * 5 + s5) * 5 + s3]
    elif s5 >= 0:
        e += E[DANGLE5 + tp * 5 + s5]
    elif s3 >= 0:
        e += E[DANGLE3 + tp * 5 + s3]
    if tp > 2:
        e += E[TERMINAL_AU]
    return e


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ml_stem_energy(E, tp, s5, s3):
    """A stem of type tp in a multiloop (the closing pair too, read from inside): its ends with the
    multiloop mismatches, and the per-branch term."""
    return np.int64(E[ML_INTERN]) + _stem_ends(E, MM_MULTI, tp, s5, s3)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def ext_stem_energy(E, tp, s5, s3):
    """A stem of type tp in the exterior loop: its ends with the exterior mismatches (a code < 0: that
    end of the sequence)."""
    return _stem_ends(E, MM_EXTERIOR, tp, s5, s3)


#: pair types of any two bases (table codes), GU included: eval scores GU pairs even under no_gu
_ANY_PAIR_TYPE = np.array([[0, 0, 0, 0, 0], [0, 0, 0, 0, 5], [0, 0, 0, 1, 0], [0, 0, 2, 0, 3], [0, 6, 0, 4, 0]],
                          dtype=np.int64)


@njit(cache=True, nogil=True, no_cpython_wrapper=True, no_cfunc_wrapper=True)
def _loop_energy(E, lxc, S, pair_to, i, j):
    """Energy of the loop closed by (i, j): hairpin, interior or multiloop by its number of branches."""
    tp = _ANY_PAIR_TYPE[S[i], S[j]]
    branches = 0
    unpaired = 0
    first_p = -1
    k = i + 1
    while k < j:
        if pair_to[k] > k:
            if branches == 0:
                first_p = k
            branches += 1
            k = pair_to[k] + 1
        else:
            unpaired += 1
            k += 1
    if branches == 0:
        return hairpin_energy(E, lxc, S, i, j, tp)
    if branches == 1:
        q = pair_to[first_p]
        return interior_energy(E, lxc, S, i, j, first_p, q, tp, _ANY_PAIR_TYPE[S[q], S[first_p]])
    e = np.int64(E[ML_CLOSING]) + unpaired * np.int64(E[ML_BASE])
    e += ml_stem_energy(E, RTYPE[tp], S[j - 1], S[i + 1])
    k = i + 1
    while k < j:
        if pair_to[k] > k:
            q = pair_to[k]
            e += ml_stem_energy(E, _ANY_PAIR_TYPE[S[k], S[q]], S[k - 1], S[q + 1])
            k = q + 1
        else:
            k += 1
    return e


@njit(cache=True, nogil=True)
def structure_energy(E, lxc, S, pair_to):
    """Free energy of a valid structure (checked by :func:`check_structure`): the exterior loop's stems
    plus every loop closed by a pair."""
    n = S.shape[0]
    e = np.int64(0)
    i = 0
    while i < n:
        if pair_to[i] > i:
            j = pair_to[i]
            s5 = S[i - 1] if i > 0 else -1
            s3 = S[j + 1] if j < n - 1 else -1
            e += ext_stem_energy(E, _ANY_PAIR_TYPE[S[i], S[j]], s5, s3)
            i = j + 1
        else:
            i += 1
    for i in range(n):
        if pair_to[i] > i:
            e += _loop_energy(E, lxc, S, pair_to, i, pair_to[i])
    return e


def check_structure(codes, pair_to):
    """Raise InputError unless ``pair_to`` (partner or -1 per position) is a nested structure
    (:func:`._traceback.check_nested`) of canonical pairs (AU, GC, GU) over ``codes``
    (bioaccel.inputs.alphabet codes), each hairpin with at least 3 unpaired bases."""
    pair_to = check_nested(pair_to, len(codes))
    canonical = {(0, 3), (3, 0), (1, 2), (2, 1), (2, 3), (3, 2)}
    for i, j in enumerate(pair_to.tolist()):
        if j <= i:
            continue
        if (int(codes[i]), int(codes[j])) not in canonical:
            letters = "ACGUN"
            raise InputError(f"pair ({i + 1}, {j + 1}) is {letters[codes[i]]}-{letters[codes[j]]}, "
                             "not a canonical pair (AU, GC, GU)")
        if j - i - 1 < 3 and not any(pair_to[k] >= 0 for k in range(i + 1, j)):
            raise InputError(f"hairpin closed by ({i + 1}, {j + 1}) has {j - i - 1} unpaired bases "
                             "(at least 3 needed)")
    return pair_to


def eval_structure(codes, pair_to, model=None):
    """Free energy (int, dcal/mol) of the structure ``pair_to`` (partner of each position or -1) on
    ``codes`` (bioaccel.inputs.alphabet codes), under ``model`` (default: TurnerModel()); see the module
    docstring for what is refused."""
    codes = np.asarray(codes, dtype=np.uint8)
    pair_to = check_structure(codes, pair_to)
    if len(codes) == 0:
        return 0
    E, lxc, _ = kernel_inputs(model)
    return int(structure_energy(E, lxc, table_codes(codes), pair_to))


def energy_of(sequence, structure, model=None):
    """Free energy (int, dcal/mol) of a dot-bracket ``structure`` on ``sequence``, as ViennaRNA's
    ``fold_compound(sequence).eval_structure(structure)`` reports it in kcal/mol (times 100).

    >>> from bioaccel.fold import TurnerModel
    >>> energy_of("GGGGAAACCCC", "((((...))))", TurnerModel(temperature=25))
    -583
    """
    codes = encode(sequence)
    if len(structure) != len(codes):
        raise InputError(f"structure has {len(structure)} positions, the sequence {len(codes)}")
    return eval_structure(codes, parse_dot_bracket(structure), model)
