"""The windowed BPPart cross products with the blocks started in another order (v26, ``band_stagger``: stripes of that
many row tiles, a row tile's longest column tile first; 48 the production's since v26): the same blocks, each
computing what it computed, so the numbers of the order before it to the last bit; and the order itself a
permutation of the grid (pure Python, the kernel's arithmetic). Marker ``gpu`` on the GPU tests."""
import pytest

from test_bppart_gpu_windows import _form_same_bits_and_cpu, _variant_equals_cpu


def staggered(x: int, D: int, ntr: int, stripe: int) -> tuple:
    """(row tile, column place) of block ``x`` as band_cross_staggered computes them (kernels/bppart_band_cross.cuh)."""
    per = stripe * (D + 1)
    s, w = divmod(x, per)
    rows = min(stripe, ntr - s * stripe)
    return s * stripe + w % rows, D - w // rows


@pytest.mark.parametrize("ntr, stripe", [(626, 48), (33, 4), (5, 48), (97, 24), (1, 1)])
def test_stagger_is_a_permutation_longest_first(ntr, stripe):
    """Every (row tile, place) once over the grid of ntr (D + 1) blocks, the places of a stripe D first."""
    D = 3
    places = [staggered(x, D, ntr, stripe) for x in range(ntr * (D + 1))]
    assert sorted(places) == [(i, j) for i in range(ntr) for j in range(D + 1)]
    assert [j for _, j in places[:min(stripe, ntr)]] == [D] * min(stripe, ntr)


@pytest.mark.gpu
@pytest.mark.parametrize("stripe", [4, 48])
def test_gpu_windows_v26_stagger_same_bits_and_cpu(monkeypatch, stripe):
    """The blocks staggered in stripes of 4 (several stripes, the last partial, at 23 x 700 after 333 nt) and 48 row
    tiles (one partial stripe; the production's since v26): against the CPU, and equal to the last bit to the order
    before v26 (``band_stagger`` 0)."""
    _form_same_bits_and_cpu(monkeypatch, dict(band_stagger=stripe), dict(band_stagger=0))


@pytest.mark.gpu
def test_gpu_windows_v26_stagger_in_pieces_equal_cpu(monkeypatch):
    """Stripes of 4 row tiles in launches of 333 bases on one stream: the CPU's numbers to 1e-12."""
    _variant_equals_cpu(monkeypatch, dict(band_stagger=4, band_bases=333, band_streams=1))
