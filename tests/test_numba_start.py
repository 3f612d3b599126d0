"""The command line's Numba start-up without SciPy and cffi (bioaccel.runtime.numba_start)."""
import importlib.util
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RNAS = os.path.join(ROOT, "examples", "rnas.fa")

# compiles one tiny kernel (Numba's CPU target starts: every implementation it offers is imported), then
# reports which optional packages were loaded and whether Numba found BLAS
PROBE = """
import sys
{install}
import numba
@numba.njit
def add(x):
    return x + 1
assert add(1) == 2
from numba.np import arraymath
print("scipy" in sys.modules, "cffi" in sys.modules, arraymath._HAVE_BLAS)
{after}
"""

needs_both = pytest.mark.skipif(importlib.util.find_spec("scipy") is None or importlib.util.find_spec("cffi") is None,
                                reason="SciPy and cffi are what Numba would load; one is not installed here")


def _probe(install, after=""):
    code = PROBE.format(install=install, after=after)
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
    return proc.stdout.split()


@needs_both
def test_numba_alone_loads_scipy_and_cffi():
    # the cost the finder avoids: plain Numba imports both at its first compile, and finds BLAS
    assert _probe("") == ["True", "True", "True"]


@needs_both
def test_finder_keeps_them_from_numba_only():
    install = "from bioaccel.runtime.numba_start import skip_numba_optionals; assert skip_numba_optionals()"
    # the same packages imported by anyone else afterwards still load (and work)
    after = "import scipy.linalg, cffi; print(scipy.linalg.norm([3.0, 4.0]))"
    assert _probe(install, after) == ["False", "False", "False", "5.0"]


def test_too_late_once_numba_started():
    code = ("import numba, sys; from bioaccel.runtime.numba_start import skip_numba_optionals, "
            "NumbaOptionalsFinder; print(skip_numba_optionals(), "
            "any(isinstance(f, NumbaOptionalsFinder) for f in sys.meta_path))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                          env=dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src")))
    assert proc.stdout.split() == ["False", "False"]


@needs_both
def test_command_line_folds_without_them():
    # the bioaccel executable (console_main) installs the finder: the fold is the same, SciPy never loads
    code = ("import atexit, sys; atexit.register(lambda: print('scipy' in sys.modules, 'cffi' in sys.modules, "
            "file=sys.stderr)); sys.argv = ['bioaccel', 'fold', sys.argv[1]]; "
            "from bioaccel.cli.main import console_main; console_main()")
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "src"))
    proc = subprocess.run([sys.executable, "-c", code, RNAS], capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr.split()[-2:] == ["False", "False"]
    import io

    from bioaccel.cli.main import main

    plain = io.StringIO()
    assert main(["fold", RNAS], stdout=plain) == 0
    assert proc.stdout == plain.getvalue() and proc.stdout.count("(-") == 3
