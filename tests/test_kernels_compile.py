"""CUDA sources checked without a GPU: every kernel the host launches, with the production launch sizes
and with the tests' small ones, compiles for Hopper (nvcc -arch=sm_90, where nvcc is installed: the CI
machine has it) from its .cu file and the shared headers (tests/host_kernels.py lists and builds them).
"""
import re
import shutil
import subprocess
from types import SimpleNamespace

import numpy as np
import pytest

from bioaccel.fold import _launch as fold_launch
from bioaccel.runtime.launch import expression
from host_kernels import CU_FILES, NVCC, PACKAGE, PRODUCTION, SHARED, host_kernels, nvcc_build

needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")


def _ptx(path, expressions, tmp_path):
    out, proc = nvcc_build(path, expressions, tmp_path, "ptx")
    assert proc.returncode == 0, proc.stderr
    return out.read_text()


def _entries(ptx):
    """Kernel names in a PTX file, demangled to 'name<args>' without spaces."""
    mangled = re.findall(r"\.entry\s+([A-Za-z_0-9]+)\(", ptx)
    filt = shutil.which("cu++filt") or shutil.which("c++filt")   # same (Itanium) mangling
    if filt is None:
        pytest.skip("neither cu++filt nor c++filt is installed to demangle kernel names")
    names = subprocess.run([filt], input="\n".join(mangled), capture_output=True, text=True).stdout.split("\n")
    # cu++filt writes integer template arguments as "(int)2", c++filt as "2"
    names = [re.sub(r"\((?:unsigned )?(?:int|long|short)\)", "", name) for name in names]
    return {re.sub(r"^void |\(.*$", "", name).replace(" ", "") for name in names if name}


def test_kernel_sources_are_shipped():
    assert any(p.name == "nussinov_tiled.cu" for p in CU_FILES)
    assert (SHARED / "dpx.cuh").is_file()


@pytest.mark.parametrize("which", ["production", "test"])
def test_every_kernel_file_is_launched(request, which):
    """Every .cu file shipped has kernels the host launches (so each is compiled below), and no other."""
    sizes = PRODUCTION if which == "production" else request.getfixturevalue("small_launch_sizes")
    assert set(host_kernels(sizes)) == {str(p.relative_to(PACKAGE)) for p in CU_FILES}


def test_the_host_asks_for_the_listed_kernels(small_launch_sizes, monkeypatch):
    """The launch code that works out template arguments (fold's bulk and finish kernels, scan's), run
    with a recording stand-in for the compiler, asks only for kernels listed by host_kernels."""
    from bioaccel.fold import _gpu_table, _gpu_tiled
    from bioaccel.scan import _gpu as scan_gpu

    asked = []

    def record(package, filename, name, arguments=()):
        asked.append((f"{package.split('.')[1]}/kernels/{filename}", expression(name, arguments)))
        return SimpleNamespace()

    monkeypatch.setattr(_gpu_table._gpu, "kernel", record)
    for sizes in (PRODUCTION, small_launch_sizes):
        monkeypatch.setattr(fold_launch, "SIZES", sizes.fold)
        asked.clear()
        for encoding in ("int16", "offset"):
            _gpu_tiled.bulk_kernel(np.int16, sizes.fold.tile, lanes=_gpu_tiled.int16_lanes(encoding))
            _gpu_tiled.bulk_kernel(np.int16, sizes.fold.tile, lanes=_gpu_tiled.int16_lanes(encoding),
                                   kernel_name="tiled_bulk_rows")           # issue 29 (nbedges): the interior's default
        _gpu_tiled.bulk_kernel(np.int16, sizes.fold.tile, lanes="Int16x2Dup")
        _gpu_tiled.bulk_kernel(np.int32, sizes.fold.tile)
        for score_type in (np.int16, np.int32):
            for rows in (0, 1):                         # issue 29 (nbedges): the split chain's edge products
                _gpu_tiled.edge_kernel(score_type, sizes.fold.tile, rows)
            _gpu_tiled.bulk_kernel(score_type, sizes.fold.batch_tile, kernel_name="batch_bulk")
            for form in ("sub", "wavefront"):
                _gpu_tiled.finish_kernels(score_type, sizes.fold.tile, form)
            _gpu_tiled.finish_kernels(score_type, sizes.fold.tile, "sub", closure=1)
            for closure in (0, 1):
                _gpu_tiled.chain_kernel(score_type, sizes.fold.tile, "Int16x2Dup", closure)
        for L in (4, 1):
            scan_gpu.fused_kernel(L, sizes.scan)
        scan_gpu.segments_kernel(sizes.scan)
        listed = host_kernels(sizes)
        assert len(asked) > 10
        for path, name in asked:
            assert name in listed[path], (path, name)


@needs_nvcc
@pytest.mark.parametrize("which", ["production", "test"])
@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_host_kernels_compile_for_hopper(request, tmp_path, which, path):
    """Every kernel the host launches, with the production launch sizes and with the tests' small ones."""
    sizes = PRODUCTION if which == "production" else request.getfixturevalue("small_launch_sizes")
    expressions = host_kernels(sizes)[str(path.relative_to(PACKAGE))]
    ptx = _ptx(path, expressions, tmp_path)
    assert ".target sm_90" in ptx
    entries = _entries(ptx)
    for name in expressions:
        assert name.replace(" ", "") in entries, (path.name, name, sorted(entries))


@needs_nvcc
def test_tiled_kernels_use_dpx(tmp_path):
    """The max-plus updates compile to Hopper's DPX instructions (vimnmx / viaddmax in PTX, VIADDMNMX in SASS)."""
    path = PACKAGE / "fold" / "kernels" / "nussinov_tiled.cu"
    ptx = _ptx(path, host_kernels(PRODUCTION)["fold/kernels/nussinov_tiled.cu"], tmp_path)
    assert re.search(r"\bvi?add\w*max|\bvimnmx|max\.s16x2", ptx), "no DPX-able max-plus found in the PTX"
