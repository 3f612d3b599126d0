"""The products' paired copy of the BPMax levels (pairs_stage 4 and 5; issue 29, helper bpmaxcp3).

bpmax_products_pairs with pairs_stage 4 reads its right operand B by cp.async from a copy of each level whose pair
rows hold two consecutive band rows interleaved (kernels/bpmax.cu, bpmax_pair_rows), written after the level's
finish. With pairs_stage 5 the products read the level just finished from the table instead, so the copy of level
l is first read by level l + 2: it is written on a second stream beside level l + 1's products and finish.
"""
import numpy as np

from ..runtime import gpu as _gpu

MAX_GRID_Y = 65535   # matrices of one copy launch (its grid's second dimension)


class Paired:
    """The copy of one launch group (``stage`` 4 or 5; none for other stages): the products kernel's last two
    arguments, the copy of a level after its finish, and the wait before a level's products.

    ``kernel``: the built bpmax_pair_rows, ``timed(launch)``: it wrapped for the bench's "pairing" seconds.
    """

    def __init__(self, dims, matrices, stage, kernel, timed):
        N, RS = int(dims[1]), int(dims[4])
        self.dims, self.stride = dims, (N // 2 + 2) * RS    # words a matrix
        self.vectors = (N // 2 + 2) * (RS // 8)
        copy = stage in (4, 5)
        cp = _gpu.cupy()
        self.table = cp.empty(matrices * self.stride, dtype=np.uint32) if copy else None
        self.kernel = timed(kernel) if copy else None
        self.ahead = stage == 5
        self.stream = cp.cuda.Stream(non_blocking=True) if self.ahead else None
        self.done = {}

    def arguments(self, F):
        return (F if self.table is None else self.table), np.int64(self.stride)

    def before_products(self, l1):
        """Level ``l1``'s products read the copies of levels up to l1 - 2 (5) or l1 - 1 (4, written in order)."""
        if self.ahead and l1 - 2 in self.done:
            _gpu.cupy().cuda.get_current_stream().wait_event(self.done.pop(l1 - 2))

    def write(self, F, l1, L1, first, mats):
        """The copy of level ``l1`` (matrices first .. first + mats - 1) after its finish, where a later level
        reads it."""
        if self.table is None or l1 >= L1 - self.ahead:
            return
        if not self.ahead:
            return self._launch(F, first, mats)
        cp = _gpu.cupy()
        finished = cp.cuda.Event()
        finished.record()
        self.stream.wait_event(finished)
        with self.stream:
            self._launch(F, first, mats)
            self.done[l1] = cp.cuda.Event()
            self.done[l1].record(self.stream)

    def _launch(self, F, first, mats):
        for at in range(0, mats, MAX_GRID_Y):
            count = min(MAX_GRID_Y, mats - at)
            self.kernel((-(-self.vectors // 256), count), (256,),
                        (F, self.table, *self.dims, np.int32(first + at), np.int64(self.stride)))
