"""Nussinov folding on an NVIDIA GPU (CuPy; kernels in fold/kernels/*.cu): dispatch of a list of
sequences.

Each variant's fill lives in its own module (:mod:`._gpu_tiled`, bioaccel's; :mod:`._gpu_papers`, the
papers'), chosen and sized in :mod:`._gpu_fill`; every one is exact and gives the CPU's scores and
structures. The traceback runs on the device over the table (:mod:`._gpu_table`), with the rule of
fold/_traceback.py. Batches of the default variant are folded many sequences per launch
(:mod:`._gpu_batch`).
"""
import numpy as np

from ..runtime import gpu as _gpu
from ._gpu_batch import fold_list
from ._gpu_fill import check_fits, fill, table_bytes  # noqa: F401  (check_fits, table_bytes: fold/_api, tests)
from ._gpu_table import pair_model, score_units, trace_structure


def fold_many(codes_list, params, *, variant="tiled", traceback=True):
    """Fold each sequence (uint8 codes) on the GPU: a list of (score in units, pair_to or None).

    With the ``tiled`` variant the whole list is one batch (:mod:`._gpu_batch`: binned by length, many
    sequences per launch); with a paper's variant, one sequence after another.
    """
    cp = _gpu.require_gpu()
    if variant == "tiled":
        return fold_list(codes_list, params, traceback=traceback)
    pm = pair_model(cp, params)
    results = []
    for codes in codes_list:
        n = len(codes)
        check_fits(n, variant, params)
        codes_dev = cp.asarray(np.ascontiguousarray(codes, dtype=np.uint8)) if n else cp.zeros(1, np.uint8)
        table = fill(codes_dev, n, params, pm, variant)
        results.append((score_units(table), trace_structure(table, codes_dev, pm) if traceback else None))
        del table
        cp.get_default_memory_pool().free_all_blocks()
    return results
