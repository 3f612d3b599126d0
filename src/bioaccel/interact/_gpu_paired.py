"""The products' paired copy of the BPMax levels (pairs_stage 4; issue 29, helper bpmaxcp3).

bpmax_products_pairs with pairs_stage 4 reads its right operand B by cp.async from a copy of each level whose pair
rows hold two consecutive band rows interleaved (kernels/bpmax.cu, bpmax_pair_rows), written after the level's
finish for every level a later level reads (all but the last).
"""
import numpy as np

from ..runtime import gpu as _gpu

MAX_GRID_Y = 65535   # matrices of one copy launch (its grid's second dimension)


class Paired:
    """The copy of one launch group (for ``stage`` 4; none for other stages): the products kernel's last two
    arguments, and the copy of a level after its finish. ``kernel``: the built bpmax_pair_rows, ``timed(launch)``:
    it wrapped for the bench's "pairing" seconds.
    """

    def __init__(self, dims, matrices, stage, kernel, timed):
        N, RS = int(dims[1]), int(dims[4])
        self.dims, self.stride = dims, (N // 2 + 2) * RS    # words a matrix
        self.vectors = (N // 2 + 2) * (RS // 8)
        copy = stage == 4
        self.table = _gpu.cupy().empty(matrices * self.stride, dtype=np.uint32) if copy else None
        self.kernel = timed(kernel) if copy else None

    def arguments(self, F):
        return (F if self.table is None else self.table), np.int64(self.stride)

    def write(self, F, l1, L1, first, mats):
        """The copy of level ``l1`` (matrices first .. first + mats - 1) after its finish, where a later level
        reads it."""
        if self.table is None or l1 >= L1:
            return
        for at in range(0, mats, MAX_GRID_Y):
            count = min(MAX_GRID_Y, mats - at)
            self.kernel((-(-self.vectors // 256), count), (256,),
                        (F, self.table, *self.dims, np.int32(first + at), np.int64(self.stride)))
