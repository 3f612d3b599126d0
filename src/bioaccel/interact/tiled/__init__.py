"""The ``tiled`` BPMax fill on all CPU cores (the CPU's default variant), in six pieces.

:func:`fill_tiled` takes the query's codes, the REVERSED target's codes and their single-strand
tables as bands (:mod:`bioaccel.interact._strands`), and gives every window score. How the pieces fit,
from the top down:

- ``fill``: the fill itself. One task is a block of 32 target rows of one query interval's target
  matrix; a task starts its rows with the terms that read shorter query intervals (the strand-1 pair,
  then the double reduction D with R3/R4 as its border terms), then finishes them bottom-up with the
  terms inside the matrix (R1, the strand-2 pair, R2). Workers take tasks from one shared queue: a
  ``prange`` kernel's, or for a small fill Python threads (no ``prange`` kernel to compile or load).
- ``layout``: where the cells live (:class:`StreamPlan`): one banded matrix per query interval, or
  under a target window a ring of rows whose length does not grow with the target; the memory a fill
  takes (the up-front refusal reads it); the padded band rows of S2 and of the strand-2 pair scores.
- ``schedule``: the order the tasks are handed out and what each waits for (three earlier tasks, and
  with a ring the tasks that may still read the rows it overwrites), so that no worker waits for a
  task nobody has taken.
- ``terms``: the static lists of reduction indices R1 and R2 need per target row (most cannot give the
  maximum), built once per fill, and the strand-1 pair term of a row's start.
- ``rows``: whole rows of max-plus terms (a broadcast scalar plus a contiguous row) through the
  kernels, 64 columns at a time, the partial chunk 16 at a time; D two rows per pass.
- ``simd``: the register-blocked max-plus kernels as LLVM vector IR (accumulators held in registers
  across the reduction), the only hand-built IR of the package.

The recurrence is the one of docs/bpmax.md; every cell equals the recurrence as written (the
``naive`` variant and tests/naive_bpmax.py, checked cell by cell in tests/test_interact.py).

>>> from bioaccel.inputs.alphabet import encode
>>> from bioaccel.interact import InteractParams
>>> from bioaccel.interact._strands import fold_band
>>> fold = InteractParams().fold_params
>>> a, rb = encode("GGGAAACCC"), encode("GGGUUUCCC")[::-1].copy()
>>> int(fill_tiled(a, rb, fold_band(a, fold, 9), fold_band(rb, fold, 9), InteractParams())[0][0, 0])
42
"""
from .fill import fill_tiled
from .layout import StreamPlan

__all__ = ["StreamPlan", "fill_tiled"]
