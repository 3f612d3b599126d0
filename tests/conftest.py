from pathlib import Path
from types import SimpleNamespace

import pytest

from stale_caches import remove_stale


def pytest_sessionstart(session):
    """Numba's caches of functions whose imported modules changed since they were compiled, removed
    before any test loads them (tests/stale_caches.py: Numba checks a function's own file only). Under
    pytest-xdist only the controller does it, before it starts the workers: a worker doing it could race
    another worker's fresh cache files."""
    if hasattr(session.config, "workerinput"):
        return
    removed = remove_stale(Path(__file__).resolve().parent.parent / "src" / "bioaccel")
    if removed:
        print(f"\nremoved the stale Numba caches of {removed} functions (a module they import changed)")


@pytest.fixture(scope="session", autouse=True)
def threshold_cache_dir(tmp_path_factory):
    """Every test's threshold cache (bioaccel.motif._threshold_cache) in one directory of the session,
    never the user's ~/.cache; set before any fixture starts workers or subprocesses, which inherit it."""
    with pytest.MonkeyPatch.context() as patch:
        path = tmp_path_factory.mktemp("threshold-cache")
        patch.setenv("BIOACCEL_CACHE_DIR", str(path))
        yield path


@pytest.fixture
def cache_dir(tmp_path, monkeypatch):
    """A fresh, empty cache (BIOACCEL_CACHE_DIR) for this test, for the tests of what the cache keeps."""
    path = tmp_path / "cache"
    monkeypatch.setenv("BIOACCEL_CACHE_DIR", str(path))
    return path


def _gpu_reason():
    """None when a CUDA device can be used, else why not."""
    try:
        from bioaccel.runtime.gpu import require_gpu

        require_gpu()
        return None
    except Exception as exc:  # GPUUnavailable, or anything CuPy raises while probing
        return str(exc)


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "gpu" in item.keywords:
            if reason is None:
                reason = _gpu_reason() or ""
            if reason:
                item.add_marker(pytest.mark.skip(reason=f"needs a CUDA GPU: {reason}"))


def _small_sizes():
    """The GPU tests' launch sizes of every family (STUMPY's habit): small tiles, blocks, segments and
    stage switches, so that inputs of a few dozen to a few hundred bases cross many tiles, blocks and
    stages of every kernel. Pure Python (no GPU): the kernel compile test uses them too."""
    from bioaccel.fold._launch import FoldSizes
    from bioaccel.interact._gpu_launch import BPMaxSizes
    from bioaccel.interact._maxplus_gpu import KernelShape, ProductSizes
    from bioaccel.interact._partition_launch import BPPartSizes
    from bioaccel.motif._launch import BucketSizes
    from bioaccel.scan._gpu import ScanSizes

    return SimpleNamespace(
        # 32-tiles, 8-tiles for the papers' blocked kernels, 32-thread blocks, early stage switches
        fold=FoldSizes(tile=32, seed_tile=8, batch_threads=32, batch_tile=32, batch_traceback_threads=32,
                       two_kernel_switch=4, two_kernel_block=32, chang_initial_stage=4, chang_final_stage_cells=8,
                       chang_block=32, bulk_min_products=1, traceback_threads=64),
        # 8-row tiles (the split products' too, 8-index chunks), 8-row finish segments, the product library's 16-tiles
        # (groups of 4 diagonals, the production's until bpmaxfin2: the small tests kept as they were; 8 is tested
        # by name in tests/test_interact_gpu_fin2.py)
        bpmax=BPMaxSizes(tile_rows=8, tile_cols=16, packed_rows=8, packed_cols=16, chunk=8, finish_threads=64,
                         segment_rows=8, library_tile=16, split_rows=8, split_cols=16, split_chunk=8,
                         finish_diagonals=4),
        # 16-tiles too, so that matrices of a few dozen rows cross many tiles and tile diagonals
        maxplus=ProductSizes(ProductSizes().shapes + (KernelShape("int32", 16, 4, 4, 16),
                                                       KernelShape("int16", 16, 4, 4, 16))),
        # 32 threads, 3 fixed letters: a slice of 8 columns runs 2 blocks of 32 threads
        motif=BucketSizes(threads=32, fixed_letters=3, inner_letters=2),
        # small blocks, segments and budgets: every border (segments, groups, buffers) is reached
        scan=ScanSizes(threads=32, per_thread=2, segment=64, buffer=8, fused_words=600, segment_words=200),
        # BPPart: 16-cell product tiles of 8-index chunks split among blocks, 8-cell sweep tiles, 64-thread
        # diagonal sweep blocks, 3 pairs a launch; windows: 16 x 8 product tiles, 8-cell sweep tiles (persistent:
        # its barriers; the production's launch a diagonal is tested at its own sizes), targets cut into pieces
        # of 40 bases (several launches)
        bppart=BPPartSizes(tile=16, chunk=8, cross_blocks=10_000, sweep_tile=8, threads=64, blocks_per_sm=1, pairs=3,
                           band_rows=16, band_cols=8, band_chunk=8, band_blocks=1, band_tile=8, band_bases=40,
                           band_sweep="persistent"),
    )


@pytest.fixture
def small_launch_sizes(monkeypatch):
    """Every GPU family launched with :func:`_small_sizes` for this test, patched over each family's
    ``SIZES`` (the production modules read it at call time); returns them (``.fold``, ``.bpmax``,
    ``.maxplus``, ``.motif``, ``.scan``) for tests that vary them further."""
    from bioaccel.fold import _launch as fold_launch
    from bioaccel.interact import _gpu_launch as bpmax_launch
    from bioaccel.interact import _maxplus_gpu as maxplus
    from bioaccel.interact import _partition_launch as bppart_launch
    from bioaccel.motif import _launch as motif_launch
    from bioaccel.scan import _gpu as scan_gpu

    sizes = _small_sizes()
    for module, value in ((fold_launch, sizes.fold), (bpmax_launch, sizes.bpmax), (maxplus, sizes.maxplus),
                          (motif_launch, sizes.motif), (scan_gpu, sizes.scan), (bppart_launch, sizes.bppart)):
        monkeypatch.setattr(module, "SIZES", value)
    return sizes


@pytest.fixture(params=["cpu", pytest.param("gpu", marks=pytest.mark.gpu)])
def backend(request):
    """Each backend in turn: "cpu", then "gpu" (skipped, with the reason, where there is no CUDA GPU)."""
    return request.param


@pytest.fixture
def tmp_fasta(tmp_path):
    """Write FASTA text (str or bytes) to a file and return its path."""
    def write(text, name="in.fa"):
        path = tmp_path / name
        if isinstance(text, bytes):
            path.write_bytes(text)
        else:
            path.write_text(text)
        return str(path)

    return write


@pytest.fixture(scope="session")
def dask_client():
    """One local Dask cluster for the whole session (started by the first test that asks): 2 worker
    processes of 1 thread, as ``--workers 2`` starts them; tests join it as a client or through
    ``--scheduler``. A test that kills a worker waits for the nanny to restart it."""
    import dask.distributed as dd

    from bioaccel.distribution.cluster import local_cluster

    with local_cluster(workers=2) as cluster, dd.Client(cluster) as client:
        client.wait_for_workers(2)
        yield client


@pytest.fixture
def small_turner_sizes(monkeypatch):
    """The Turner GPU batch (fold/_turner_gpu.py) with 32-thread blocks and launches of at most 8
    sequences and 2 MiB of tables, patched over its ``SIZES``: a batch of a few dozen RNAs of up to 300
    nt then crosses many launches, each of one or a few blocks that fold its sequences in turn, and
    every block strides over diagonals wider than itself."""
    from bioaccel.fold import _turner_gpu

    sizes = _turner_gpu.TurnerSizes(threads=32, table_bytes=2 << 20, max_blocks=8)
    monkeypatch.setattr(_turner_gpu, "SIZES", sizes)
    return sizes


@pytest.fixture
def small_turner_tiled_sizes(monkeypatch):
    """The tiled Turner fill (fold/_turner_tiled_gpu.py) with 16 x 16 tiles, product stages of 8 splits,
    k ranges split down to 16 splits and exterior chunks of 64 positions (host_kernels.TEST_TURNER_TILED),
    patched over its ``SIZES``: a few hundred bases then cross dozens of tile-diagonals, split products
    and exterior chunks."""
    from bioaccel.fold import _turner_tiled_gpu
    from host_kernels import TEST_TURNER_TILED

    monkeypatch.setattr(_turner_tiled_gpu, "SIZES", TEST_TURNER_TILED)
    return TEST_TURNER_TILED
