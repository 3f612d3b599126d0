"""``bpmax(query, target)``: one interaction, every variant, windows, structure."""
from collections import OrderedDict
from dataclasses import dataclass, field

import numpy as np

from .._cliutil import set_threads
from ..errors import InputError, InvalidParameter
from ..fasta import as_records
from . import _cpu, _naive
from .._memory import format_bytes
from ._model import InteractParams, check_memory
from ._traceback import dot_bracket, traceback
from ._window import position_profile

VARIANTS = ("tiled", "naive")


def single_strand_table(codes, params):
    """Dense (n, n) int32 weighted-Nussinov table S (upper triangle), filled by bioaccel.fold."""
    import numba

    from ..fold._cpu import fill_dense

    # fill_dense sets Numba's thread count: hand it the one in force, not "all cores"
    table = fill_dense(codes, params.pair_table(), params.min_loop, threads=numba.get_num_threads())
    return np.asarray(table, dtype=np.int32)


_RECENT_TABLES = OrderedDict()  # every query meets the same target: fold each strand once


def _single_strand_cached(codes, fold):
    key = (codes.tobytes(), fold)
    table = _RECENT_TABLES.get(key)
    if table is None:
        table = single_strand_table(codes, fold)
        if table.nbytes <= 2 ** 28:
            _RECENT_TABLES[key] = table
            while len(_RECENT_TABLES) > 4:
                _RECENT_TABLES.popitem(last=False)
    else:
        _RECENT_TABLES.move_to_end(key)
    return table


@dataclass
class Interaction:
    """The result of BPMax for one query against one target.

    Coordinates are 0-based, half-open, on the strands as given (the target is NOT reversed here).
    Without windows the single window is the whole of both strands. ``window_scores[q, t]`` is the
    score of the query window starting at ``q`` with the target window starting at ``t``.
    ``inter``: intermolecular pairs (query position, target position).
    """

    query: str
    target: str
    score: float
    query_fold: float
    target_fold: float
    query_start: int
    query_end: int
    target_start: int
    target_end: int
    query_window: int
    target_window: int
    window_scores: np.ndarray = field(repr=False)
    structure: str | None = None
    intra_query: list | None = None
    intra_target: list | None = None
    inter: list | None = None
    target_length: int = 0

    def profile(self):
        """Best score of any window pair covering each target position (float array, length N)."""
        return position_profile(self.window_scores.max(axis=0), self.target_window, self.target_length)


def _plan_bytes(M, N, params, variant):
    side = 4 * (M * M + N * N)  # dense S1, S2 from bioaccel.fold
    if variant == "naive":
        return _naive.naive_bytes(M, N) + side
    return _cpu.StreamPlan(M, N, params).nbytes + side


def _suggest_window(M, N, params, variant):
    def hint(limit):
        if variant == "naive":
            return "the naive variant keeps all M^2 N^2 cells: use --variant tiled"
        for window in (4096, 2048, 1024, 512, 256, 128, 64, 32, 16):
            if window >= N - 1:
                continue
            trial = InteractParams(params.au, params.gu, params.window_query, window)
            if _plan_bytes(M, N, trial, variant) <= limit:
                return f"--window-target {window} (or smaller) would fit"
        return "the target is too long for its single-strand table: split it"

    return hint


def bpmax(query, target, params=None, *, variant="tiled", backend="cpu", structure=False, threads=None):
    """BPMax of ``query`` (strand 1) against ``target`` (strand 2): an :class:`Interaction`.

    ``query``/``target``: a string, a :class:`~bioaccel.fasta.Record` or an (id, sequence) pair.
    ``params``: :class:`InteractParams` (weights and windows). ``variant``: ``tiled`` (default, all
    cores) or ``naive`` (the recurrence as written). ``structure``: also trace an optimal joint
    structure of the best window pair. ``threads``: CPU threads (0 = all; None = leave as is).
    """
    params = InteractParams() if params is None else params
    if backend == "gpu":
        raise InvalidParameter("GPU BPMax is not available yet: use --backend cpu")
    if backend != "cpu":
        raise InvalidParameter(f"unknown backend {backend!r}: expected cpu or gpu")
    if variant not in VARIANTS:
        raise InvalidParameter(f"unknown variant {variant!r}: expected one of {', '.join(VARIANTS)}")
    if threads is not None:
        set_threads(threads)
    (qrec,), (trec,) = as_records([query]), as_records([target])
    for rec, what in ((qrec, "query"), (trec, "target")):
        if len(rec) == 0:
            raise InputError(f"{what} {rec.id!r} is empty")
    a = np.ascontiguousarray(qrec.codes)
    rb = np.ascontiguousarray(trec.codes[::-1])
    M, N = len(a), len(rb)
    params.score_dtype(M, N)  # refuses sizes that overflow
    check_memory(_plan_bytes(M, N, params, variant), f"BPMax ({variant}) of {M} x {N} nt",
                 _suggest_window(M, N, params, variant))
    fold = params.fold_params
    S1 = _single_strand_cached(a, fold)
    S2 = _single_strand_cached(rb, fold)
    L1, L2 = params.spans(M, N)
    n_qw, n_tw = M - L1 + 1, N - L2 + 1
    if variant == "naive":
        F = _naive.fill_naive(a, rb, params.pair_table(), S1, S2, L1, L2)
        q = np.arange(n_qw)
        win = np.stack([F[q, q + L1 - 1, i2, i2 + L2 - 1] for i2 in range(n_tw)], axis=1)
        del F
    else:
        win = _cpu.fill_tiled(a, rb, S1, S2, params)[0][:, :n_tw]
    # target window t (original orientation) starts where the reversed window ends
    units = np.ascontiguousarray(win[:, ::-1]).astype(np.int64)
    flat = int(np.argmax(units.T))  # leftmost target window first, then leftmost query window
    ts, qs = divmod(flat, n_qw)
    best = int(units[qs, ts])
    unit = params.unit
    result = Interaction(
        query=qrec.id, target=trec.id, score=params.to_score(best),
        query_fold=params.to_score(S1[0, M - 1]), target_fold=params.to_score(S2[0, N - 1]),
        query_start=qs, query_end=qs + L1, target_start=ts, target_end=ts + L2,
        query_window=L1, target_window=L2, window_scores=units / unit, target_length=N,
    )
    if structure:
        _trace_best(result, a, rb, S1, S2, params, qs, ts, L1, L2, best)
    return result


def _trace_best(result, a, rb, S1, S2, params, qs, ts, L1, L2, best):
    N = len(rb)
    i2 = N - ts - L2
    a_sub = np.ascontiguousarray(a[qs:qs + L1])
    rb_sub = np.ascontiguousarray(rb[i2:i2 + L2])
    S1_sub = np.ascontiguousarray(S1[qs:qs + L1, qs:qs + L1])
    S2_sub = np.ascontiguousarray(S2[i2:i2 + L2, i2:i2 + L2])
    whole = InteractParams(params.au, params.gu)
    plan = _cpu.StreamPlan(L1, L2, whole, keep=True)
    check_memory(plan.nbytes, f"the traceback table of {L1} x {L2} nt ({format_bytes(plan.nbytes)})")
    win, plan, buf, rowstart, mat_id = _cpu.fill_tiled(a_sub, rb_sub, S1_sub, S2_sub, whole, keep=True)
    if int(win[0, 0]) != best:
        raise AssertionError("traceback table disagrees with the score")
    intra_q, intra_t, inter = traceback(a_sub, rb_sub, params.pair_table(), S1_sub, S2_sub,
                                        (buf, rowstart, mat_id))
    result.structure = dot_bracket(L1, L2, intra_q, intra_t, inter)
    result.intra_query = [(p + qs, q + qs) for p, q in intra_q]
    result.intra_target = [(p + ts, q + ts) for p, q in intra_t]
    result.inter = [(p + qs, t + ts) for p, t in inter]
