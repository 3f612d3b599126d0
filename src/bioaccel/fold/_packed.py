"""Folding packed records, for the command line's array path: codes back to back in, one value per
sequence and every dot-bracket back to back out, with no Python step per sequence.

Each model's batch kernels do the folding: Nussinov's packed CPU fold (one sequence per core) and GPU
batch (:mod:`._gpu_batch`), the Turner model's one-per-core CPU fold (:func:`._turner_cpu.mfe_packed`)
and GPU batch (:mod:`._turner_gpu`). They give the structures the per-record path gives (the same
kernels, or kernels the tests hold equal to them), so the texts written from these arrays are the
per-record path's, byte for byte.
"""
import numpy as np
from numba import njit

from ..runtime.contract import Call
from ..runtime.parallel import threads as using_threads


def packed_limit(call: Call) -> int:
    """The longest sequence the packed fold takes for this call (its model, backend and variant); 0
    when the variant is not the batch kernels' (a paper's algorithm: folded record by record).

    >>> from bioaccel.fold import check_fold, FoldParams, TurnerModel
    >>> packed_limit(check_fold(FoldParams())), packed_limit(check_fold(TurnerModel()))
    (4000, 499)
    >>> packed_limit(check_fold(FoldParams(), variant="naive"))
    0
    """
    model, backend = call.params, call.backend
    if call.variant != model.variants.defaults[backend]:
        return 0
    if model.name == "nussinov":
        if backend == "gpu":
            from ._gpu_batch import BATCH_TILED_MAX

            return BATCH_TILED_MAX
        from ._arrays import PACKED_MAX_LENGTH

        return PACKED_MAX_LENGTH
    if model.name == "turner2004":
        if backend == "gpu":
            from ._turner_gpu import MAX_GPU_LENGTH

            return MAX_GPU_LENGTH
        from ._turner_cpu import PARALLEL_LENGTH

        return PARALLEL_LENGTH - 1
    return 0


@njit(cache=True, nogil=True)
def _brackets(pair_to, starts):
    out = np.empty(pair_to.shape[0], dtype=np.uint8)
    for k in range(starts.shape[0] - 1):
        a = starts[k]
        for x in range(starts[k + 1] - a):
            p = pair_to[a + x]
            out[a + x] = 46 if p < 0 else (40 if p > x else 41)      # '.', '(', ')'
    return out


def fold_packed(codes: np.ndarray, starts: np.ndarray, call: Call) -> "tuple[np.ndarray, np.ndarray]":
    """``(units, chars)``: the optimum of each sequence in the model's integer units (int64; weighted
    pairs x ``unit`` for Nussinov, dcal/mol for Turner) and the dot-brackets back to back (uint8,
    sequence k at ``starts[k]:starts[k + 1]``). ``codes``: alphabet codes back to back; ``call``:
    :func:`bioaccel.fold.check_fold`'s, whose sequences are at most :func:`packed_limit` long.

    >>> from bioaccel.fold import check_fold, TurnerModel
    >>> from bioaccel.inputs.alphabet import encode
    >>> units, chars = fold_packed(encode("GGGGAAACCCCA"), np.array([0, 11, 11, 12]), check_fold(TurnerModel()))
    >>> units.tolist(), chars.tobytes()
    ([-450, 0, 0], b'((((...)))).')
    """
    starts = np.asarray(starts, dtype=np.int64)
    codes = np.ascontiguousarray(codes, dtype=np.uint8)
    model = call.params
    if call.backend == "gpu" and model.name == "nussinov":
        from ..runtime import gpu as _gpu
        from ._gpu_batch import fold_packed as fold_gpu

        cp = _gpu.require_gpu()
        out = fold_gpu(cp.asarray(codes), starts, model)
        return cp.asnumpy(out.scores).astype(np.int64), cp.asnumpy(out.chars)[:int(starts[-1])]
    if call.backend == "gpu":
        from ._turner_gpu import fold_packed as fold_gpu

        units, pair_to = fold_gpu(codes, starts, model)
    else:
        with using_threads(call.threads):
            if model.name == "nussinov":
                from ._arrays import _packed_or_alone

                units, pair_to = _packed_or_alone(codes, starts, model, True)
            else:
                from ._turner_cpu import mfe_packed

                units, pair_to = mfe_packed(codes, starts, model)
    return np.asarray(units, dtype=np.int64), _brackets(np.asarray(pair_to), starts)
