"""BPPart with windows and the binding profile: what the sweep of :mod:`._partition_band` gives, put
together (docs/bppart.md, "Windows" and "Binding probabilities").

The windowed ensemble is every joint structure whose pairs all lie in one window pair (a query window
of L1 bases, a target window of L2, BPMax's windows). A structure fits the windows [q, q + L1) x
[t, t + L2) for a run of consecutive q and a run of consecutive t, so inclusion-exclusion counts it
once: Z = sum over windows of QI - sum over the overlaps of two consecutive windows (per strand, and
their product across the strands). Every term is the partition function of one box, which the sweep
keeps, and no term exceeds Z, so nothing cancels badly.

The binding profile: Z is linear in the weight of every intermolecular pair of a target base y (a
base pairs at most once), so the structures in which y pairs with the query weigh Z - Z_y, Z_y the
same sum with y forbidden from intermolecular pairs; only the boxes holding y change, and the sweep
refills just their rows.
"""
import math
from dataclasses import dataclass

import numpy as np

from ..errors import InternalError, InvalidParameter
from ._partition_model import strand_scales
from ._sites import greedy_sites

#: Rows at a time of the blocked sweep (docs/bppart.md, "Windows").
GROUP = 16


@dataclass(frozen=True)
class Windowed:
    """The windowed partition function of one pair (natural logs; ``probabilities`` and ``log_zs`` per
    [query window, target window], target windows in the original orientation; ``binding`` per
    target position, original orientation, or None)."""

    log_z: float
    log_z_interaction: float
    log_z_query: float
    log_z_target: float
    query_window: int
    target_window: int
    log_zs: np.ndarray
    log_zs_interaction: np.ndarray
    probabilities: np.ndarray
    binding: "np.ndarray | None"


def window_scales(a, rb, params, L1: int, L2: int) -> "tuple[float, float]":
    """(c1, c2): the per-base log scale of each strand: ``params.scale`` when given, else the largest
    growth log Q / L of its windows of L bases (so that no window's scaled Q exceeds 1), found on a
    first scale that cannot overflow; without windows the whole strand's, as :func:`._partition.choose_scales`.

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.interact import PartitionParams
    >>> window_scales(encode("GGGAAACCC"), encode("AAAA"), PartitionParams(), 9, 4)
    (1.0428459133331107, 0.0)
    """
    return strand_scales(params, ((a, L1), (rb, L2)), _window_scale)


def _window_scale(strand, weights, first) -> float:
    """The per-base log scale of one ``(codes, L)`` strand (window_scales'): the largest growth of its
    windows of L bases, folded at ``first``; 0 for an empty strand or window."""
    from ._partition_band import single_strand_band

    codes, L = strand
    n = codes.shape[0]
    if n == 0 or L == 0:
        return 0.0
    band = single_strand_band(codes, weights, math.exp(-first), L)
    growth = float(np.max(np.log(band[:n - L + 1, L]))) / L
    return max(0.0, first + growth)


def plan_chunks(N: int, L2: int, threads: int, binding: bool) -> np.ndarray:
    """Rows [lo, hi) of the reversed target and binding positions [ylo, yhi) of each task of the sweep.
    Windowed: the rows split in pieces of at least 4 windows (each piece sweeps L2 rows more); without
    a target window (one box, at row 0) the binding positions split by their cost (y + 1 rows each).

    >>> plan_chunks(1000, 100, 2, False).tolist()
    [[0, 500, 0, 0], [500, 1001, 0, 0]]
    >>> plan_chunks(10, 10, 2, True).tolist()
    [[0, 1, 0, 7], [0, 1, 7, 10]]
    """
    if L2 >= N:
        if not binding or N == 0:
            return np.array([[0, 1, 0, 0]], dtype=np.int64)
        count = max(1, min(threads, N))
        cost = np.cumsum(np.arange(1, N + 1) + N / count)
        cuts = [0] + [int(np.searchsorted(cost, cost[-1] * k / count)) + 1 for k in range(1, count)] + [N]
        return np.array([[0, 1, lo, hi] for lo, hi in zip(cuts, cuts[1:]) if hi > lo], dtype=np.int64)
    count = max(1, min(threads, (N + 1) // (4 * L2)))
    cuts = [(N + 1) * k // count for k in range(count + 1)]
    return np.array([[lo, hi, lo, min(N, hi + L2 - 1)] if binding else [lo, hi, 0, 0]
                     for lo, hi in zip(cuts, cuts[1:])], dtype=np.int64)


def windowed_partition(a, rb, params, L1: int, L2: int, threads: int, binding: bool,
                       variant: str = "blocked") -> Windowed:
    """The windowed partition function of the query codes ``a`` and the REVERSED target codes ``rb``
    with windows of L1 and L2 bases (the whole strands where they are the lengths), and the binding
    profile when asked for. ``variant``: the sweep's, ``"blocked"`` (register-blocked products,
    :data:`GROUP` rows at a time) or ``"rows"`` (the first form, for comparison: bench/bppart_windows_cpu.py).

    >>> from bioaccel.inputs.alphabet import encode
    >>> from bioaccel.interact import PartitionParams
    >>> w = windowed_partition(encode("G"), encode("CC"), PartitionParams(), 1, 1, 1, True)
    >>> round(w.log_z, 6), [round(p, 6) for p in w.binding.tolist()]   # 1 + 2 e^3: no pair, G with either C
    (3.717736, [0.487856, 0.487856])
    """
    from ._partition_band import single_strand_band, sweep

    if variant not in ("blocked", "rows"):
        raise InvalidParameter(f"the windowed sweep's variant is 'blocked' or 'rows', not {variant!r}")
    M, N = a.shape[0], rb.shape[0]
    c1, c2 = window_scales(a, rb, params, L1, L2)
    u1, u2 = math.exp(-c1), math.exp(-c2)
    weights = params.weights()
    Q0b = single_strand_band(a, weights, u1, L1)
    Q1b = single_strand_band(rb, weights, u2, L2)
    chunks = plan_chunks(N, L2, threads, binding)
    rec_qi, rec_qx, forbidden = sweep(a, rb, weights * (u1 * u1), weights * (u2 * u2), weights * (u1 * u2), Q0b, Q1b,
                                      L1, L2, chunks, u1, u2, GROUP if variant == "blocked" else 0)
    nq, nt = M - L1 + 1, N - L2 + 1
    zq = float(Q0b[:nq, L1].sum()) - (u1 * float(Q0b[1:nq, L1 - 1].sum()) if L1 else 0.0)
    zt = float(Q1b[:nt, L2].sum()) - (u2 * float(Q1b[1:nt, L2 - 1].sum()) if L2 else 0.0)
    return assemble(rec_qi, rec_qx, zq, zt, M, N, L1, L2, c1, c2, params.scale,
                    forbidden.sum(axis=0) if binding else None)


def assemble(rec_qi, rec_qx, zq: float, zt: float, M: int, N: int, L1: int, L2: int, c1: float, c2: float,
             scale: "float | None", forbidden=None) -> Windowed:
    """The Windowed of a sweep's records (``rec_qi`` / ``rec_qx``: [query length class, target length
    class, query start, reversed row], the windows and their overlaps), each strand's windowed sum
    ``zq`` / ``zt`` (scaled), the scales c1, c2 (``scale``: the one given, or None), and, for the binding profile, the forbidden sums per
    reversed position (None: no profile). The CPU's sweep and the GPU's (_partition_band_gpu) end here.

    >>> rec = np.zeros((2, 2, 2, 2)); rec[0, 0, 0, 0] = 3.0
    >>> w = assemble(rec, rec / 3, 1.0, 1.0, 1, 1, 1, 1, 0.0, 0.0, None)
    >>> round(w.log_z, 6), round(float(w.probabilities[0, 0]), 6)
    (1.098612, 0.333333)
    """
    nq, nt = M - L1 + 1, N - L2 + 1
    f1, f2 = math.exp(-c1), math.exp(-c2)     # an overlap is one base shorter than a window

    def combined(rec):
        total = 0.0
        for iq, fq in ((0, 1.0), (1, -f1)):
            for it, ft in ((0, 1.0), (1, -f2)):
                if (iq and L1 == 0) or (it and L2 == 0):
                    continue
                total += fq * ft * float(rec[iq, it, iq:nq, it:nt].sum())
        return total

    z, x = combined(rec_qi), combined(rec_qx)
    shift = c1 * L1 + c2 * L2
    values = (z, zq, zt, x)
    if not all(math.isfinite(v) for v in values) or min(z, zq, zt) <= 0.0 or x < 0.0:
        if scale is not None:
            raise InvalidParameter(f"scale {scale} lets the tables of {M} x {N} nt over- or underflow; "
                                   f"leave it out to have it chosen")
        raise InternalError(f"the windowed partition function of {M} x {N} nt overflowed at scales {c1}, {c2}")
    qi = rec_qi[0, 0, :nq, :nt][:, ::-1]       # target windows in the original orientation
    qx = rec_qx[0, 0, :nq, :nt][:, ::-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        log_zs = np.log(qi) + shift
        log_xs = np.log(qx) + shift
    profile = None
    if forbidden is not None:
        profile = _binding(rec_qi, forbidden, M, N, L1, L2, f1, f2) / z
        profile = np.clip(profile[:N][::-1], 0.0, 1.0)   # rounding can leave -1e-17
    return Windowed(math.log(z) + shift, math.log(x) + shift if x > 0 else -math.inf, math.log(zq) + c1 * L1,
                    math.log(zt) + c2 * L2, L1, L2, log_zs, log_xs, qx / qi, profile)


def _binding(rec_qi, forbidden, M, N, L1, L2, f1, f2) -> np.ndarray:
    """Z - Z_y (scaled) for every reversed target position y: the boxes holding y, plain minus forbidden."""
    nq, nt = M - L1 + 1, N - L2 + 1
    plain = np.zeros(N + 1)
    for iq, fq in ((0, 1.0), (1, -f1)):
        for it, ft in ((0, 1.0), (1, -f2)):
            lt = L2 - it
            if (iq and L1 == 0) or lt < 0:
                continue
            per_row = np.zeros(N + 1)
            rows = slice(it, nt)
            per_row[rows] = fq * ft * rec_qi[iq, it, iq:nq, rows].sum(axis=0)
            # y lies in the box at row r when r <= y < r + lt
            running = np.concatenate(([0.0], np.cumsum(per_row)))
            y = np.arange(N + 1)
            plain += running[y + 1] - running[np.maximum(0, y - lt + 1)]
    return plain - forbidden


def pick_sites(probabilities: np.ndarray, target_window: int, count: int) -> list:
    """``(query start, target start)`` of up to ``count`` target windows that share no base, the most
    probable interaction first (each target window with its most probable query window; ties to the
    leftmost target window, then query window), as BPMax's sites (_sites) are picked by score.

    >>> pick_sites(np.array([[0.1, 0.5, 0.5, 0.2, 0.4, 0.0]]), 2, 3)
    [(0, 1), (0, 4)]
    """
    best = probabilities.max(axis=0)
    query_of = probabilities.argmax(axis=0)
    return greedy_sites(best, query_of, target_window, count)
