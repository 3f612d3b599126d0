"""CUDA sources checked without a GPU: every .cu file shipped in the package compiles for Hopper
(nvcc -arch=sm_90, where nvcc is installed: the CI machine has it), and every kernel name expression
the Python side asks CuPy for exists in what the compiler made of its file."""
import importlib
import re
import shutil
import subprocess
from pathlib import Path

import pytest

import bioaccel

PACKAGE = Path(bioaccel.__file__).parent
CU_FILES = sorted(PACKAGE.rglob("kernels/*.cu"))
NVCC = shutil.which("nvcc")
needs_nvcc = pytest.mark.skipif(NVCC is None, reason="nvcc is not installed on this machine")


def _ptx(path, tmp_path):
    out = tmp_path / (path.stem + ".ptx")
    proc = subprocess.run(
        [NVCC, "-arch=sm_90", "--std=c++17", f"-I{path.parent}", "--ptx", str(path), "-o", str(out)],
        capture_output=True, text=True,
    )
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
    assert any(p.name == "nussinov_fast.cu" for p in CU_FILES)


@needs_nvcc
@pytest.mark.parametrize("path", CU_FILES, ids=lambda p: p.name)
def test_compiles_for_hopper(path, tmp_path):
    ptx = _ptx(path, tmp_path)
    assert ".target sm_90" in ptx and ".entry" in ptx


@needs_nvcc
@pytest.mark.parametrize("which", ["SIZES", "TEST_SIZES"])
@pytest.mark.parametrize("family, launch", [("fold", "_launch"), ("scan", "_gpu"),
                                           ("interact", "_maxplus_gpu"), ("interact", "_gpu_launch")])
def test_name_expressions_exist(tmp_path, which, family, launch):
    """Every kernel the host asks for (fold/_launch.py, scan/_gpu.py), with the production launch
    sizes and with the tests' small ones."""
    sizes = importlib.import_module(f"bioaccel.{family}.{launch}")
    folder = PACKAGE / family / "kernels"
    for filename, expressions in sizes.name_expressions(getattr(sizes, which)).items():
        entries = _entries(_ptx(folder / filename, tmp_path))
        for expression in expressions:
            assert expression.replace(" ", "") in entries, (filename, expression, sorted(entries))


@needs_nvcc
def test_fast_kernels_use_dpx(tmp_path):
    """The max-plus updates compile to Hopper's DPX instructions (vimnmx / viaddmax in PTX, VIADDMNMX in SASS)."""
    ptx = _ptx(PACKAGE / "fold" / "kernels" / "nussinov_fast.cu", tmp_path)
    assert re.search(r"\bvi?add\w*max|\bvimnmx|max\.s16x2", ptx), "no DPX-able max-plus found in the PTX"
