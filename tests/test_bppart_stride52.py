"""The band tables' row pitch (v38, docs/bppart-gpu-notes.md): a row of W1 = L2 + 1 cells and a pad where W1 is even,
so that cell (row, col), at row P + (col - row) of its matrix, lies at row (P - 1) + col with P - 1 even: the pairs
(col even, col + 1) that the cross ring copies by 16 bytes start aligned in every row, and the pads sit exactly where
such a pair leaves the band (the cell before a row's first, o = -1, is the row before's pad; the cell after its last,
o = L2 + 1, its own). Pure Python: the kernels' index arithmetic (kernels/bppart_tile.cuh's band_pitch)."""
import pytest

from bioaccel.interact._partition_band_tables import band_intervals, band_pitch, row_bytes


def _at(row, col, P):
    """A band cell's index in its matrix, as the kernels form it: row P + (col - row)."""
    return row * P + (col - row)


@pytest.mark.parametrize("L2", [129, 65, 9, 128, 64])
def test_v38_pitch_aligns_every_rows_pairs_and_pads_the_band_edges(L2):
    W1, P = L2 + 1, band_pitch(L2)
    assert P % 2 == 1 and P in (W1, W1 + 1) and (P == W1 + 1) == (W1 % 2 == 0)
    for row in range(1, 3 * W1):
        # every even column starts a 16-byte pair (an even index: S = (n + 1) P even keeps matrices aligned)
        assert all(_at(row, col, P) % 2 == 0 for col in range(row - 1, row + L2 + 2) if col % 2 == 0)
        if P > W1:     # the pair that straddles either edge meets a pad, never another row's band cell
            assert _at(row, row - 1, P) == (row - 1) * P + W1
            assert _at(row, row + L2 + 1, P) == row * P + W1
            band = {_at(r, c, P) for r in (row - 1, row, row + 1) for c in range(r, r + W1)}
            assert _at(row, row - 1, P) not in band and _at(row, row + L2 + 1, P) not in band


def test_v38_row_bytes_follow_the_pitch():
    """A launch's bytes a target base: the pitch's cells a row of each table (one more than W1 at even windows)."""
    cells = 7 * band_intervals(23, 23) + 4 * 23 + 2
    assert row_bytes(23, 23, 129) == 8 * 131 * cells + 1
    assert row_bytes(23, 23, 128) == 8 * 129 * cells + 1
