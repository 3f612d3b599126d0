"""The sub-tiled finish's shared-memory addressing (kernels/nussinov_tiled.cu, finish_sub_tile), checked
on the CPU: no GPU needed.

The closure does not clamp the addresses of a lane whose cell lies outside its sub-tile; its comments
claim that every such address still lies in the block's buffers (AB, then X with one extra row, then
XT, then S rows of padding) and that a cell inside the sub-tile reads only what it means to. These
tests walk every lane of every step of every sub-tile, with the kernel's own arithmetic, and check
both claims against the allocation that fold/_gpu_tiled.py asks for.
"""
import numpy as np
import pytest

from bioaccel.fold._gpu_tiled import FINISH_SUB, finish_shared_bytes

S = FINISH_SUB


def _walk(tile, itemsize):
    """Yield (kind, element offset, length, in_sub, row lane) for every read and write of the closure."""
    ld = tile + 16 // itemsize
    ab, x, xt = 0, tile * ld, (2 * tile + 1) * ld                  # buffer starts, in elements
    g = tile // S
    for a in range(g):
        for b in range(g):
            for lane in range(32):
                row_lane, own = lane < S, lane % S
                r = a * S + (own if row_lane else own + S - 1)
                q = b * S + (own - (S - 1) if row_lane else own)
                dr, dq = (0, 1) if row_lane else (-1, 0)
                k = own - (S - 1) if row_lane else own + (S - 1)
                for _ in range(2 * S - 1):
                    in_sub = 0 <= k < S
                    line = xt + q * ld + a * S if row_lane else x + r * ld + b * S
                    yield "line", line, S, in_sub, row_lane
                    yield "cell", x + r * ld + q, 1, in_sub, row_lane
                    yield "below-left", x + (r + 1) * ld + q - 1, 1, in_sub, row_lane
                    if row_lane and in_sub:
                        yield "cell-t", xt + q * ld + r, 1, in_sub, row_lane
                    r, q, k = r + dr, q + dq, k + (1 if row_lane else -1)
            # the lane's own splits of A or B, read once per sub-tile from AB
            for lane in range(32):
                own = lane % S
                base = (a * S + own) * ld + a * S if lane < S else (b * S + own) * ld + b * S
                yield "splits", ab + base, S, True, lane < S


@pytest.mark.parametrize("itemsize", [2, 4], ids=["int16", "int32"])
@pytest.mark.parametrize("tile", [32, 64, 128])
def test_every_closure_address_lies_in_the_buffers(tile, itemsize):
    elements = finish_shared_bytes(np.dtype(f"int{8 * itemsize}"), tile, "sub") // itemsize
    ld = tile + 16 // itemsize
    assert elements == (3 * tile + 1 + S) * ld                      # the layout the kernel assumes
    for kind, start, length, _, _ in _walk(tile, itemsize):
        assert 0 <= start and start + length <= elements, (kind, tile, start, length, elements)
        if kind == "line":                                        # one or two 16-byte vector loads
            assert (start * itemsize) % 16 == 0, (kind, tile, start)


@pytest.mark.parametrize("tile", [32, 64, 128])
def test_cells_inside_a_sub_tile_read_what_they_mean(tile):
    """A cell of the sub-tile reads X's row (column lane) or XT's row (row lane) inside the tile, its
    own cell in X, the pair term's cell in X or in its staged edges (X's extra row, the padding column),
    and writes XT inside the tile."""
    ld = tile + 8
    x, xt = tile * ld, (2 * tile + 1) * ld
    for kind, start, length, in_sub, row_lane in _walk(tile, 2):
        if not in_sub:
            continue
        if kind == "line":
            buffer = xt if row_lane else x
            row, column = divmod(start - buffer, ld)
            assert 0 <= row < tile and 0 <= column and column + length <= tile, (kind, row, column)
        elif kind == "cell":
            row, column = divmod(start - x, ld)
            assert 0 <= row < tile and 0 <= column < tile
        elif kind == "below-left":                                # X(r + 1, q - 1), edges staged
            row, column = divmod(start - x, ld)
            assert 0 <= row <= tile and 0 <= column < ld
            assert column < tile - 1 or column == ld - 1           # a cell, or the padding column's edge
        elif kind == "cell-t":
            row, column = divmod(start - xt, ld)
            assert 0 <= row < tile and 0 <= column < tile


def test_a_masked_split_stays_below_every_real_one():
    """Packed int16: a masked operand (-32768) plus any cell the closure can read (0 .. 32767, cells past
    the sequence's end held at 0) wraps to a negative sum, below the 0 every maximum starts from."""
    cells = np.arange(0, 32768, dtype=np.int64)
    sums = (cells - 32768 + 32768) % 65536 - 32768
    assert (sums < 0).all()
