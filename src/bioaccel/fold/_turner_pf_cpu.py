"""McCaskill's partition function and base-pair probabilities of the Turner 2004 model on the CPU: one
sequence (the cells of each diagonal over the cores when it is long) or many (each whole on one core).
The cells are :mod:`._turner_pf_fill`'s; docs/mccaskill.md has the recurrences and the scaling.

>>> import numpy as np
>>> from bioaccel.inputs.alphabet import encode
>>> log_z, P = partition(encode("GGGGAAACCCC"), None, want_bpp=True)
>>> round(float(-log_z * kt_cal(37.0) / 1000), 4)          # RNA.fold_compound(seq).pf()[1]
-4.8734
>>> P.shape, bool(P[0, 10] > 0.5)
((11, 11), True)
"""
import math

import numpy as np
from numba import njit, prange

from ..runtime.memory import require_memory
from ._turner_pf_fill import SEG, exterior_inside, inside_cell, outside_cell
from ._turner_pf_params import boltzmann_tables, kt_cal
from ._turner_tables import MAX_LENGTH, PAIR_TYPE, kernel_inputs, table_codes

#: Sequences at least this long are filled in tiles over the cores (shorter: one column-ordered pass on
#: the calling thread). A barrier per cell diagonal was 20x slower than serial on the loaded 2-core VM
#: (500 nt: 15.8 s against 0.58 s); a barrier per tile-diagonal gains (1,000 nt: 2.47 s against 3.2 s).
#: Many sequences run one per core (:func:`partition_many`).
PARALLEL_LENGTH = 400
#: tile edge of the parallel fill
TILE = 64
#: ViennaRNA's ``sfact``: the scale assumes a free energy 7% below the estimate per base
SFACT = 1.07
#: fills tried before giving up on a scale (each failure halves the bracket on the estimate)
MAX_REFILLS = 24
#: the scaled Z is accepted within e^+-LOG_RANGE (doubles reach e^709; the cells stay below the total)
LOG_RANGE = 500


def table_bytes(n: int) -> int:
    """Memory of one n-long partition function with probabilities: six n x n float64 tables.

    >>> table_bytes(1_500)
    108000000
    """
    return 48 * n * n


def pair_types(E, S, no_lp):
    """PT[i, j]: the pair type of (i, j) where it may pair (j - i - 1 >= 3; under noLP ViennaRNA's rule
    for the partition function: (i - 1, j + 1) or (i + 1, j - 1) could pair too), else 0."""
    n = S.shape[0]
    table = np.asarray(E[PAIR_TYPE:PAIR_TYPE + 25]).reshape(5, 5)
    PT = table[S[:, None], S[None, :]].astype(np.int8) if n else np.zeros((0, 0), np.int8)
    PT = np.triu(PT, 4)
    if no_lp and n:
        can = np.zeros_like(PT, dtype=bool)
        can[1:-1, 1:-1] |= PT[:-2, 2:] != 0        # enclosed by (i - 1, j + 1)
        can[:-2, 2:] |= PT[1:-1, 1:-1] != 0         # encloses (i + 1, j - 1)
        PT = np.where(can, PT, 0).astype(np.int8)
    return np.ascontiguousarray(PT)


def _scales(n, log_sc):
    """(sc, seg, cum) of per-base log scales."""
    log_sc = np.asarray(log_sc, dtype=np.float64)
    cum = np.zeros(n + 1)
    cum[1:] = np.cumsum(log_sc)
    sc = np.exp(log_sc)
    seg = np.zeros(max(n, 1) * SEG)
    for L in range(SEG):
        a = np.arange(0, n - L + 1) if n - L + 1 > 0 else np.arange(0)
        a = a[a < n]
        seg[a * SEG + L] = np.exp(cum[a + L] - cum[a])
    return sc, seg, cum


@njit(cache=True, nogil=True)
def _inside_tile(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI, r0, r1, c0, c1):
    """The cells of rows r0..r1-1, columns c0..c1-1 column by column (j up, i down): the column's
    vectors stay in cache. R(i, j) lives in QI's lower triangle, QI[j, i]."""
    for j in range(c0, c1):
        for i in range(min(r1, j - 3) - 1, r0 - 1, -1):
            inside_cell(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI, QI[j], QI[j], i, j)


@njit(cache=True, nogil=True)
def _outside_tile(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, OM, OML, QI, r0, r1, c0, c1):
    """The outside of a tile, j down, i up. T(i, j) overwrites R in QI[j, i]; om1(i, j) the copy of
    qm1 in QM1's lower triangle, QM1[j, i] (the outside reads qm1 by rows only)."""
    n = S.shape[0]
    for j in range(c1 - 1, c0 - 1, -1):
        o_prev = QM1[j + 1] if j + 1 < n else QM1[j]
        for i in range(r0, min(r1, j - 3)):
            outside_cell(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, OM, OML, QI, QI[j], QI[j], o_prev, QM1[j],
                         i, j)


@njit(cache=True, nogil=True)
def _inside_serial(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI):
    n = S.shape[0]
    _inside_tile(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI, 0, n, 0, n)
    return exterior_inside(E, B, S, PT, sc, QB)


@njit(cache=True, nogil=True)
def _outside_serial(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, QI, OM, OML):
    n = S.shape[0]
    _outside_tile(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, OM, OML, QI, 0, n, 0, n)


@njit(cache=True, nogil=True, parallel=True)
def _inside_parallel(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI, tile):
    """Tiles of tile x tile cells, tile-diagonal by tile-diagonal (the inside from the main diagonal out,
    the outside back), the tiles of one tile-diagonal over the cores: a cell needs only cells below and
    left of it (inside) or above and right (outside), in its own tile or an earlier tile-diagonal."""
    n = S.shape[0]
    T = (n + tile - 1) // tile
    for d in range(T):
        for t in prange(T - d):
            _inside_tile(E, B, kT, lxc, S, PT, sc, seg, cum, QB, QM, QM1, QI, t * tile, min(n, (t + 1) * tile),
                         (t + d) * tile, min(n, (t + d + 1) * tile))
    return exterior_inside(E, B, S, PT, sc, QB)


@njit(cache=True, nogil=True, parallel=True)
def _outside_parallel(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, QI, OM, OML, tile):
    n = S.shape[0]
    T = (n + tile - 1) // tile
    for d in range(T - 1, -1, -1):
        for t in prange(T - d):
            _outside_tile(E, B, S, PT, sc, seg, q5, q3, QB, QM, QM1, OM, OML, QI, t * tile,
                          min(n, (t + 1) * tile), (t + d) * tile, min(n, (t + d + 1) * tile))


@njit(cache=True, nogil=True)
def _probabilities(QB, z):
    n = QB.shape[0]
    P = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 4, n):
            if QB[i, j] != 0.0:
                P[i, j] = QB[i, j] * QB[j, i] / z
    return P


def uniform_log_scale(n, energy_estimate, kT):
    """ViennaRNA's scale: every base weighs exp(sfact * estimate / (n kT)), ``energy_estimate`` in
    dcal/mol (the MFE), kT in cal/mol; per-base natural logs."""
    if n == 0:
        return np.zeros(0)
    return np.full(n, SFACT * energy_estimate * 10.0 / (n * kT))


def partition(codes, model=None, *, want_bpp=True, log_scale=None, parallel=None, tile=TILE):
    """``(log_z, P)`` of one sequence: ln Z (Z in units of the Boltzmann weight of the unfolded chain)
    and, when ``want_bpp``, the n x n base-pair probabilities (upper triangle, 0-based), else None.
    ``log_scale``: per-base natural-log scales (default: ViennaRNA's uniform scale from its -0.185
    kcal/mol-per-base estimate; when the scaled Z over- or underflows, or lies beyond e^+-500, the inside
    is redone with a corrected estimate: bisection, then the exact one from ln Z; the outside runs once)."""
    from ..errors import InvalidParameter

    E, lxc, no_lp = kernel_inputs(model)
    temperature = 37.0 if model is None else model.temperature
    B, kT = boltzmann_tables(temperature, False if model is None else model.no_gu)
    S = table_codes(codes)
    n = S.shape[0]
    if n > MAX_LENGTH:
        raise InvalidParameter(f"a sequence of {n:,} bases; the partition function accepts at most {MAX_LENGTH:,}")
    require_memory(table_bytes(n), f"the partition function of a sequence of length {n:,}",
                   "fold shorter pieces, or on a machine with more memory")
    if n < 5:                       # no pair fits: the unfolded chain alone, Z = 1
        return 0.0, (np.zeros((n, n)) if want_bpp else None)
    PT = pair_types(E, S, no_lp)
    if parallel is None:
        parallel = n >= PARALLEL_LENGTH
    inside, outside = (_inside_parallel, _outside_parallel) if parallel else (_inside_serial, _outside_serial)
    extra = (int(tile),) if parallel else ()
    estimate = (-185 + (temperature - 37.0) * 7.27) * n / 10.0        # ViennaRNA's default, dcal/mol
    low = high = None        # estimates known to underflow (too low) and overflow (too high)
    for _ in range(MAX_REFILLS):
        logs = uniform_log_scale(n, estimate, kT) if log_scale is None else np.asarray(log_scale, float)
        sc, seg, cum = _scales(n, logs)
        tables = [np.zeros((n, n)) for _ in range(4)]        # QB, QM, QM1, QI
        q5, q3 = inside(E, B, kT, lxc, S, PT, sc, seg, cum, *tables, *extra)
        z = q5[n]
        ok = 0 < z < math.inf
        log_z = math.log(z) - cum[n] if ok else math.nan
        if log_scale is not None or (ok and abs(math.log(z)) < LOG_RANGE):
            break
        if ok:          # in range but far from 1: the next scale is exact (Z-hat ~ 1)
            estimate = -log_z * kT / 10.0 / SFACT
            continue
        if z == 0:
            low = estimate
        else:           # inf or nan (inf - inf): the scale was too weak
            high = estimate
        if low is not None and high is not None:
            estimate = (low + high) / 2
        else:
            estimate = estimate / 2 if z == 0 else estimate * 2 - n
    if not math.isfinite(log_z):
        from ..errors import InternalError

        raise InternalError(f"the partition function of a sequence of {n:,} bases left double range at every scale")
    if not want_bpp:
        return log_z, None
    outside(E, B, S, PT, sc, seg, q5, q3, *tables, np.zeros((n, n)), np.zeros((n, n)), *extra)   # OM, OML
    return log_z, _probabilities(tables[0], z)


def partition_many(codes_list, model=None, *, want_bpp=True) -> list:
    """:func:`partition` of each sequence, in order; several at once on threads of their own (the fill
    releases the GIL), as many as Numba's thread count, longest first.

    >>> from bioaccel.inputs.alphabet import encode
    >>> [round(float(z), 3) for z, _ in partition_many([encode("GGGGAAACCCC"), encode("ACGU")], want_bpp=False)]
    [7.907, 0.0]
    """
    from concurrent.futures import ThreadPoolExecutor

    from numba import get_num_threads

    workers = min(get_num_threads(), len(codes_list))
    if workers <= 1:
        return [partition(codes, model, want_bpp=want_bpp) for codes in codes_list]
    order = sorted(range(len(codes_list)), key=lambda k: -len(codes_list[k]))
    with ThreadPoolExecutor(workers) as pool:
        done = dict(zip(order, pool.map(lambda k: partition(codes_list[k], model, want_bpp=want_bpp,
                                                              parallel=False), order)))
    return [done[k] for k in range(len(codes_list))]
