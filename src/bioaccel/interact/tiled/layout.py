"""Where the ``tiled`` BPMax fill keeps its cells: :class:`StreamPlan` (matrices, rows, a ring of rows
under a target window, the memory it takes) and the padded band rows of S2 and of the strand-2 pair
scores. Plain NumPy; the fill itself is in fill.

Each query interval (i1, j1) has one target matrix, ``buf[mat_id[i1, j1 - i1]]``; row i2 of it holds
F(i1, j1, i2, i2 .. i2 + Wd - 1) from ``rowstart[i2]`` on, behind a 16-cell pad whose last cell holds
S1(i1, j1) (the empty-target border of docs/bpmax.md's compact form).
"""
import numpy as np

from .._model import sentinel

RING_SLACK = 2  # steps a task may run ahead of the slowest with a ring of rows (see schedule)
ROWS_PER_TASK = 32  # rows of one query interval per parallel task: rows share F(k1+1, j1) in cache


class StreamPlan:
    """Layout of the streamed table for an M x N problem under ``params`` (sizes in cells and bytes).

    >>> from bioaccel.interact import InteractParams
    >>> plan = StreamPlan(20, 3000, InteractParams(window_target=128))
    >>> plan.wraps, plan.rows, plan.Wd
    (True, 865, 129)
    """

    def __init__(self, M, N, params, keep=False, rows_per_task=ROWS_PER_TASK):
        self.M, self.N = M, N
        self.L1, self.Wd = params.spans(M, N)
        self.dtype = params.cell_dtype(M, N)
        self.rows_per_task = rows_per_task
        # a row is last read by rows up to Wd - 1 above it, at most (L1 + 1) task blocks later
        ring = self.Wd + (self.L1 + 1 + RING_SLACK) * rows_per_task
        self.wraps = ring < N and not keep
        self.rows = ring if self.wraps else N
        self.n_mat = sum(M - l1 + 1 for l1 in range(1, self.L1 + 1))
        if self.wraps:
            self.row_capacity = 16 + self.Wd
            self.capacity = self.rows * self.row_capacity + 160
        else:
            lengths = np.minimum(self.Wd, N - np.arange(N)) + 16
            self.capacity = int(lengths.sum()) + 160
        itemsize = np.dtype(self.dtype).itemsize
        side = (N * (self.Wd + 48)) * 2 * itemsize  # padded S2 and pair-score rows
        # terms.py: the R1 and R2 lists (values, two int32 offsets and x per entry), their prefix counts, and
        # the window scores: all linear in N, but for a long target more than the ring itself
        lists = N * self.Wd * (itemsize + 12) + 2 * N * (self.Wd // 16 + 6) * 8
        scores = (M - self.L1 + 1) * N * 4
        self.nbytes = self.n_mat * self.capacity * itemsize + side + lists + scores

    def rowstart(self):
        """Where row i2 starts in a matrix, for i2 <= N: row N is empty, only its left border cell
        (S1 of the matrix) is read, by R4 at the last column."""
        N = self.N
        if self.wraps:
            return (np.arange(N + 1, dtype=np.int64) % self.rows) * self.row_capacity + 16
        lengths = np.minimum(self.Wd, N - np.arange(N)) + 16
        return (np.concatenate(([0], np.cumsum(lengths))) + 16).astype(np.int64)

    def mat_id(self):
        """``mat_id[i1, l1 - 1]``: the matrix of query interval (i1, i1 + l1 - 1); -1 outside the domain."""
        ids = np.full((self.M, self.L1), -1, dtype=np.int64)
        m = 0
        for l1 in range(1, self.L1 + 1):
            for i1 in range(self.M - l1 + 1):
                ids[i1, l1 - 1] = m
                m += 1
        return ids


def padded_band(band, Wd, dtype, pairs_rb=None):
    """Rows r of a strand's S (``band``, the band form of bioaccel.interact._strands, at least Wd
    columns) from column r on (Wd values) behind a 16-cell sentinel pad, plus slack; cells past the
    strand's end are sentinel.

    With ``pairs_rb`` (pair table, codes) and ``band`` None: the strand-2 pair scores
    score(rb[r], rb[r+d]) for d >= 4 (0 for d < 4 and past the end).

    >>> padded_band(np.array([[0, 2], [0, 0]]), 2, np.int16)[:, 15:19].tolist()
    [[-16384, 0, 2, -16384], [-16384, 0, -16384, -16384]]
    """
    if pairs_rb is not None:
        pairs, codes = pairs_rb
        N = codes.shape[0]
    else:
        N = band.shape[0]
    out = np.full((N, 16 + Wd + 32), sentinel(dtype), dtype=dtype)
    d = np.arange(Wd)
    for r0 in range(0, N, 4096):  # blocks of rows: the index arrays stay small for long strands
        rows = np.arange(r0, min(r0 + 4096, N))[:, None]
        inside = rows + d < N
        if pairs_rb is None:
            out[rows, 16 + d] = np.where(inside, band[r0:r0 + rows.shape[0], :Wd], sentinel(dtype))
            continue
        scores = pairs[codes[rows], codes[np.minimum(rows + d, N - 1)]]
        scores[:, :4] = 0
        out[rows, 16 + d] = np.where(inside, scores, 0)
        out[rows, 16 + Wd:] = 0
    return out
