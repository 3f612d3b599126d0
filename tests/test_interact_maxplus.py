"""The banded multiple max-plus product library (interact/_maxplus_gpu.py, kernels/maxplus.cu).

CPU part (runs in CI): the jagged tile-major layout, packing and unpacking round trips, the quadratic
map from a tile index to its row and column, the work counts. GPU part (marker ``gpu``; skipped, with
the reason, where there is no CUDA device): every product equal to a plain NumPy max-plus product on
banded matrices of many shapes, and seed 003's correctness test (5.6): the largest value moved through
every position of A and of B.
"""
import math

import numpy as np
import pytest

from bioaccel.errors import InputError, InvalidParameter
from bioaccel.interact import _maxplus_gpu as mp

# the tests' kernel shapes (tests/conftest.py): the production ones and 16-tiles, so that matrices of a few
# dozen rows cross many tiles
pytestmark = pytest.mark.usefixtures("small_launch_sizes")

SHAPES = [  # (N, W): N off the tile, W = 1, W odd, W = N, W > N
    (1, 1), (2, 2), (5, 1), (16, 16), (17, 17), (33, 5), (40, 40), (70, 16), (100, 37), (64, 200),
]


def _random_band(rng, k, n, w, dtype, spikes=True):
    """Band-form matrices with values over the whole allowed range, its ends and some NEG_INF cells."""
    lim = mp.FINITE_MAX[dtype]
    band = rng.integers(-lim, lim + 1, size=(k, n, w)).astype(dtype)
    if spikes and band.size >= 4:
        flat = band.reshape(-1)
        picks = rng.choice(flat.size, size=max(3, flat.size // 20), replace=False)
        flat[picks[0::3]] = lim
        flat[picks[1::3]] = -lim
        flat[picks[2::3]] = mp.NEG_INF[dtype]
    return band


def _dense(band, n, neg_inf):
    """Dense matrices (NEG_INF outside the band) from band form."""
    k, _, w = band.shape
    out = np.full((k, n, n), neg_inf, np.int64)
    for d in range(min(w, n)):
        idx = np.arange(n - d)
        out[:, idx, idx + d] = band[:, idx, d]
    return out


def maxplus_reference(a, b, c, w, neg_inf, accumulate=True):
    """C[i, j] = max(C, max_k max_{i<=m<j} A_k[i, m] + B_k[m+1, j]) over the band, in int64, with NEG_INF
    absorbing; dense (K, N, N) A, B and (N, N) C with NEG_INF outside the band."""
    k, n, _ = a.shape
    best = np.full((n, n), np.iinfo(np.int64).min, np.int64)
    for m in range(n - 1):
        left, down = a[:, :, m, None], b[:, None, m + 1, :]
        terms = np.where((left != neg_inf) & (down != neg_inf), left + down, np.iinfo(np.int64).min)
        i, j = np.arange(n)[:, None], np.arange(n)[None, :]
        terms = np.where((i <= m) & (m < j), terms, np.iinfo(np.int64).min)
        best = np.maximum(best, terms.max(axis=0))
    out = np.maximum(best, c) if accumulate else best
    out = np.where(out == np.iinfo(np.int64).min, neg_inf, out)
    d = np.arange(n)[None, :] - np.arange(n)[:, None]
    return np.where((d >= 0) & (d < w), out, neg_inf)


# ---- layout (CPU) -------------------------------------------------------------------------------

def _kernel_tile_map(t, nb, D):
    """The CUDA kernel's quadratic map (BandTiles::coordinates), transcribed."""
    full = nb - (D + 1)
    par = full * (D + 1)
    if t < par:
        return t // (D + 1), t // (D + 1) + t % (D + 1)
    u = t - par
    start = lambda r: r * (D + 1) - r * (r - 1) // 2   # noqa: E731
    m2 = 2.0 * (D + 1) + 1.0
    r = max(0, math.floor((m2 - math.sqrt(m2 * m2 - 8.0 * u)) / 2.0))
    while start(r + 1) <= u:
        r += 1
    while start(r) > u:
        r -= 1
    return full + r, full + r + u - start(r)


@pytest.mark.parametrize("n, w, tile", [(1, 1, 16), (40, 40, 16), (100, 37, 16), (1000, 128, 32),
                                        (20_000, 128, 32), (4096, 4096, 64), (65_535, 300, 16)])
def test_quadratic_map_inverts_the_storage_order(n, w, tile):
    layout = mp.BandLayout(n, w, tile, "int32")
    I, J = layout.tile_coordinates()
    assert I.size == layout.tiles
    assert ((J - I >= 0) & (J - I < layout.diagonals) & (J < layout.tiles_per_side)).all()
    picks = np.unique(np.concatenate([np.arange(min(I.size, 3000)), np.arange(max(0, I.size - 3000), I.size)]))
    got = [_kernel_tile_map(int(t), layout.tiles_per_side, layout.diagonals - 1) for t in picks]
    assert got == list(zip(I[picks].tolist(), J[picks].tolist()))


@pytest.mark.parametrize("n, w, tile", [(1, 1, 16), (17, 17, 16), (33, 5, 16), (100, 37, 32), (200, 64, 64)])
def test_exactly_the_tiles_that_meet_the_band_are_stored(n, w, tile):
    layout = mp.BandLayout(n, w, tile, "int32")
    nb = layout.tiles_per_side
    i, j = np.meshgrid(np.arange(n + 1), np.arange(n + 1), indexing="ij")
    inside = (j - i >= 1) & (j - i <= w) & (j <= n)                  # the shifted band
    meets = {(a // tile, b // tile) for a, b in zip(i[inside].tolist(), j[inside].tolist())}
    I, J = layout.tile_coordinates()
    assert set(zip(I.tolist(), J.tolist())) == meets
    assert max(J - I) < nb


@pytest.mark.parametrize("dtype", mp.DTYPES)
@pytest.mark.parametrize("n, w", SHAPES)
@pytest.mark.parametrize("tile", [16, 32, 64])
def test_pack_and_unpack_round_trip(dtype, n, w, tile):
    rng = np.random.default_rng(n * 1000 + w + tile)
    layout = mp.band_layout(n, w, dtype=dtype, tile=tile)
    band = _random_band(rng, 3, n, layout.band, dtype)
    back = mp.unpack_band(mp.pack_band(band, layout), layout)
    d = np.arange(layout.band)[None, :]
    valid = np.arange(n)[:, None] + d < n
    assert (back[:, valid] == band[:, valid]).all()
    assert (back[:, ~valid] == layout.neg_inf).all()
    dense = _dense(band, n, layout.neg_inf)
    packed = mp.pack_dense(dense, layout)
    assert packed.dtype == np.dtype(dtype) and packed.shape == (3, layout.tiles, tile, tile)
    assert (packed == mp.pack_band(band, layout)).all()
    assert (mp.unpack_dense(packed, layout) == dense).all()


def test_padding_holds_neg_inf_and_band_cells_are_shifted_one_column():
    layout = mp.band_layout(20, 3, tile=16)
    band = np.arange(60, dtype=np.int32).reshape(1, 20, 3)
    packed = mp.pack_band(band, layout)
    assert (packed != layout.neg_inf).sum() == 20 * 3 - 3          # 3 band cells run past the last column
    I, J = layout.tile_coordinates()
    t = list(zip(I.tolist(), J.tolist())).index((0, 0))
    assert packed[0, t, 2, 3] == band[0, 2, 0] and packed[0, t, 2, 2] == layout.neg_inf


def test_int16_range_is_checked():
    layout = mp.band_layout(10, 4, dtype="int16", tile=16)
    ok = np.full((1, 10, 4), mp.FINITE_MAX["int16"], np.int16)
    mp.pack_band(ok, layout)
    with pytest.raises(InputError, match="outside the int16 range"):
        mp.pack_band(ok + 1, layout)
    with pytest.raises(InputError, match="expected shape"):
        mp.pack_band(np.zeros((1, 9, 4), np.int16), layout)


@pytest.mark.parametrize("n, w", [(1, 1), (7, 3), (30, 30), (50, 9)])
def test_useful_updates_counts_the_band(n, w):
    brute = sum(j - i for i in range(n) for j in range(i, min(n, i + w)))
    assert mp.useful_updates(n, w) == brute
    for tile in (16, 32):
        assert mp.kernel_updates(mp.band_layout(n, w, tile=tile)) >= brute


def test_tile_is_chosen_from_the_compiled_ones():
    for n, w in [(20_000, 128), (4096, None), (50, 50)]:
        for dtype in mp.DTYPES:
            assert mp.band_layout(n, w, dtype=dtype).tile in mp.ProductSizes().tiles(dtype)   # production's


def test_a_tile_without_a_kernel_is_refused():
    """No silent fallback to other sizes: a tile the run's kernel shapes lack is an error."""
    with pytest.raises(InvalidParameter, match="no int32 kernel for tile 16"):
        mp.band_layout(40, 40, tile=16, sizes=mp.ProductSizes())
    assert mp.band_layout(40, 40, tile=16).tile == 16          # the tests' sizes have one


# ---- the product (GPU) --------------------------------------------------------------------------

def _cp():
    from bioaccel.runtime.gpu import require_gpu

    return require_gpu()


def _check_column(rng, n, w, k, g, dtype, tile, accumulate=True):
    cp = _cp()
    layout = mp.band_layout(n, w, dtype=dtype, tile=tile)
    tile = layout.tile
    a = _random_band(rng, g * k, n, layout.band, dtype)
    b = _random_band(rng, g * k, n, layout.band, dtype)
    c0 = _random_band(rng, g, n, layout.band, dtype)                  # accumulated into, or poison
    pa = cp.asarray(mp.pack_band(a, layout).reshape(g, k, layout.tiles, tile, tile))
    pb = cp.asarray(mp.pack_band(b, layout).reshape(g, k, layout.tiles, tile, tile))
    pc = cp.asarray(mp.pack_band(c0, layout))
    got = mp.unpack_dense(mp.banded_column_product(pa, pb, layout, c=pc, accumulate=accumulate).get(), layout)
    ninf = layout.neg_inf
    for x in range(g):
        want = maxplus_reference(_dense(a[x * k:(x + 1) * k], n, ninf), _dense(b[x * k:(x + 1) * k], n, ninf),
                                 _dense(c0[x:x + 1], n, ninf)[0], layout.band, ninf, accumulate)
        bad = np.argwhere(got[x] != want)
        assert bad.size == 0, f"output {x}: {len(bad)} cells differ, first {bad[0].tolist()}: " \
                              f"{got[x][tuple(bad[0])]} != {want[tuple(bad[0])]}"
    # the padding of every output is still NEG_INF, so the next product can read it
    packed = pc.get()
    assert (packed[mp.pack_band(np.zeros_like(c0), layout) == ninf] == ninf).all()


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", mp.DTYPES)
@pytest.mark.parametrize("n, w", SHAPES)
def test_column_product_equals_numpy_small_tiles(dtype, n, w):
    rng = np.random.default_rng(7 * n + w)
    _check_column(rng, n, w, k=3, g=2, dtype=dtype, tile=16)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", mp.DTYPES)
@pytest.mark.parametrize("n, w, k, g", [(1, 1, 1, 1), (100, 37, 20, 1), (150, 150, 1, 3), (129, 64, 20, 2),
                                        (97, 1, 2, 2), (257, 33, 3, 2)])
@pytest.mark.parametrize("tile", [None, 32, 64, 128])
def test_column_product_equals_numpy_production_tiles(dtype, n, w, k, g, tile):
    rng = np.random.default_rng(n + 31 * k + (tile or 0))
    _check_column(rng, n, w, k, g, dtype, tile)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", mp.DTYPES)
def test_overwrite_without_accumulate(dtype):
    _check_column(np.random.default_rng(3), 45, 20, k=2, g=2, dtype=dtype, tile=16, accumulate=False)


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", mp.DTYPES)
def test_every_kernel_shape_alike(dtype):
    """The benchmark's alternative shapes compute the same products as the chosen ones."""
    cp = _cp()
    rng = np.random.default_rng(11)
    for shape in [s for s in mp.SIZES.shapes + mp.ALTERNATIVES if s.dtype == dtype]:
        layout = mp.band_layout(150, 90, dtype=dtype, tile=shape.tile)
        a = _random_band(rng, 4, 150, 90, dtype)
        b = _random_band(rng, 4, 150, 90, dtype)
        pa, pb = cp.asarray(mp.pack_band(a, layout)), cp.asarray(mp.pack_band(b, layout))
        got = mp.unpack_dense(mp.banded_column_product(pa, pb, layout, shape=shape).get(), layout)[0]
        want = maxplus_reference(_dense(a, 150, layout.neg_inf), _dense(b, 150, layout.neg_inf),
                                 np.full((150, 150), layout.neg_inf), 90, layout.neg_inf)
        assert (got == want).all(), shape


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", mp.DTYPES)
def test_one_pool_as_bpmax_uses_it(dtype):
    """A, B and C in one pool (BPMax's F), outputs indexed, inputs shared between outputs."""
    cp = _cp()
    rng = np.random.default_rng(5)
    n, w = 60, 25
    layout = mp.band_layout(n, w, dtype=dtype, tile=16)
    band = _random_band(rng, 8, n, w, dtype)
    pool = cp.asarray(mp.pack_band(band, layout))
    a_index, b_index, c_index = [[0, 1, 2], [1, 3, 0]], [[4, 5, 3], [2, 2, 5]], [6, 7]
    mp.banded_products(pool, pool, pool, a_index, b_index, c_index, layout)
    got = mp.unpack_dense(pool.get(), layout)
    dense = _dense(band, n, layout.neg_inf)
    for ai, bi, ci in zip(a_index, b_index, c_index):
        want = maxplus_reference(dense[ai], dense[bi], dense[ci], w, layout.neg_inf)
        assert (got[ci] == want).all()
    assert (got[:6] == dense[:6]).all()                                 # inputs untouched


@pytest.mark.gpu
@pytest.mark.parametrize("dtype", mp.DTYPES)
@pytest.mark.parametrize("n, w, tile", [(20, 20, 16), (21, 7, 16), (40, 33, 32)])
def test_largest_value_through_every_position(dtype, n, w, tile):
    """Seed 003, 5.6: small values everywhere, one large value at each position of A, then of B, in turn;
    one launch holds every position as its own output."""
    cp = _cp()
    rng = np.random.default_rng(n + w)
    layout = mp.band_layout(n, w, dtype=dtype, tile=tile)
    big = mp.FINITE_MAX[dtype]
    base_a = rng.integers(0, 10, size=(1, n, w)).astype(dtype)
    base_b = rng.integers(0, 10, size=(1, n, w)).astype(dtype)
    positions = [(i, d) for i in range(n) for d in range(w) if i + d < n]
    a = np.repeat(base_a, 2 * len(positions), axis=0)
    b = np.repeat(base_b, 2 * len(positions), axis=0)
    for x, (i, d) in enumerate(positions):
        a[x, i, d] = big
        b[len(positions) + x, i, d] = big
    pa, pb = cp.asarray(mp.pack_band(a, layout)), cp.asarray(mp.pack_band(b, layout))
    g = len(a)
    got = mp.unpack_dense(mp.banded_column_product(pa[:, None], pb[:, None], layout).get(), layout)
    ninf = layout.neg_inf
    empty = np.full((n, n), ninf)
    for x in range(g):
        want = maxplus_reference(_dense(a[x:x + 1], n, ninf), _dense(b[x:x + 1], n, ninf), empty, w, ninf)
        assert (got[x] == want).all(), f"large value at {positions[x % len(positions)]} of {'AB'[x // len(positions)]}"
